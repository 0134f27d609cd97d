// Folder hints (path_lock_gate.hpp: FOLDER HINTS): an acquire of one path
// that takes every step fast names its folders' gate records in its
// target's record; a thread whose plan memo misses the path takes those
// folders through the hints, without looking them up; a hint that names
// another path's gate is read, found wrong and passed over, and exclusion
// holds either way.

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "pathlock/path_lock.hpp"
#include "support/fresh_thread.hpp"
#include "support/path_lock_test_peer.hpp"

namespace pathlock {
namespace {

using impl::PathLockTestPeer;
using testing_support::on_fresh_thread;
using testing_support::tried_elsewhere;

model::Path P(std::string_view text) { return model::Path::parse(text); }

constexpr std::string_view kTarget = "/a/b/c/d";
constexpr std::string_view kFolders[] = {"/", "/a", "/a/b", "/a/b/c"};

// Writes kTarget twice on a thread of its own: the first write opens the
// gates, the second takes every step fast, and names the folders' gates.
void write_twice_elsewhere(PathLock& lock) {
  on_fresh_thread([&] {
    { auto g = lock.write(P(kTarget)); }
    { auto g = lock.write(P(kTarget)); }
  });
}

TEST(FolderHints, AnAcquireTakenWhollyFastNamesItsFoldersInItsTargetsRecord) {
  PathLock lock(impl::path_rwa_joined_scheme());
  static_assert(std::size(kFolders) == PathLockTestPeer::kFolderHints);
  EXPECT_EQ(PathLockTestPeer::kGateRecordBytes, 192U) << "the hints fit the record's third line";
  for (std::size_t i = 0; i < std::size(kFolders); ++i) {
    EXPECT_EQ(nullptr, PathLockTestPeer::gate_record(lock, kFolders[i]));
  }
  write_twice_elsewhere(lock);
  for (std::size_t i = 0; i < std::size(kFolders); ++i) {
    ASSERT_NE(nullptr, PathLockTestPeer::gate_record(lock, kFolders[i])) << kFolders[i];
    EXPECT_EQ(PathLockTestPeer::gate_record(lock, kFolders[i]), PathLockTestPeer::folder_hint(lock, kTarget, i))
        << "hint " << i << " names " << kFolders[i] << "'s gate";
  }
}

TEST(FolderHints, AThreadThatNeverLookedTheFoldersUpTakesThemThroughTheHints) {
  PathLock lock(impl::path_rwa_joined_scheme());
  write_twice_elsewhere(lock);
  const model::Request write = model::write(P(kTarget)).request();
  on_fresh_thread([&] {
    auto g = lock.acquire(write);
    ASSERT_EQ(g.status(), AcquireStatus::kGranted);
    // Wholly fast (memoized), and no folder was looked up: a lookup would
    // have put each folder's gate in this thread's cache.
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, write), 5U);
    for (std::string_view folder : kFolders) EXPECT_FALSE(PathLockTestPeer::gate_cached(lock, folder)) << folder;
    EXPECT_EQ(tried_elsewhere(lock, model::write(P("/a/b/c")).request()), AcquireStatus::kWouldBlock);
    EXPECT_EQ(tried_elsewhere(lock, model::read(P(kTarget)).request()), AcquireStatus::kWouldBlock);
    EXPECT_EQ(tried_elsewhere(lock, model::write(P("/a/b/c/e")).request()), AcquireStatus::kGranted);
  });
}

TEST(FolderHints, AHintNamingAnotherPathsGateIsPassedOverAndRewritten) {
  PathLock lock(impl::path_rwa_joined_scheme());
  { auto g = lock.write(P("/x/y/z/w")); }  // /x/y/z: an open folder gate of another path
  { auto g = lock.write(P("/x/y/z/w")); }
  write_twice_elsewhere(lock);
  PathLockTestPeer::misdirect_folder_hint(lock, kTarget, 3, "/x/y/z");
  const model::Request write = model::write(P(kTarget)).request();
  on_fresh_thread([&] {
    auto g = lock.acquire(write);
    ASSERT_EQ(g.status(), AcquireStatus::kGranted);
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, write), 5U);
    // /a/b/c was looked up as before (so cached); the others came by their hints.
    EXPECT_TRUE(PathLockTestPeer::gate_cached(lock, "/a/b/c"));
    EXPECT_FALSE(PathLockTestPeer::gate_cached(lock, "/a/b"));
    // It holds /a/b/c's gate, not /x/y/z's: a write of /a/b/c must wait,
    // one of /x/y/z need not.
    EXPECT_EQ(tried_elsewhere(lock, model::write(P("/a/b/c")).request()), AcquireStatus::kWouldBlock);
    EXPECT_EQ(tried_elsewhere(lock, model::write(P("/x/y/z")).request()), AcquireStatus::kGranted);
  });
  EXPECT_EQ(PathLockTestPeer::gate_record(lock, "/a/b/c"), PathLockTestPeer::folder_hint(lock, kTarget, 3))
      << "the acquire that took every step fast named the right gate again";
  EXPECT_TRUE(lock.check_invariants().empty());
}

TEST(FolderHints, APathDeeperThanTheHintsHoldIsTakenAsBefore) {
  PathLock lock(impl::path_rwa_joined_scheme());
  const std::string deep = "/a/b/c/d/e";
  on_fresh_thread([&] {
    { auto g = lock.write(P(deep)); }
    { auto g = lock.write(P(deep)); }
  });
  for (std::size_t i = 0; i < PathLockTestPeer::kFolderHints; ++i) {
    EXPECT_EQ(nullptr, PathLockTestPeer::folder_hint(lock, deep, i)) << "no hints for a path of 5 folders";
  }
  const model::Request write = model::write(P(deep)).request();
  on_fresh_thread([&] {
    auto g = lock.acquire(write);
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, write), 6U);
    EXPECT_TRUE(PathLockTestPeer::gate_cached(lock, "/a/b/c/d")) << "its folders looked up, as before hints";
  });
}

}  // namespace
}  // namespace pathlock
