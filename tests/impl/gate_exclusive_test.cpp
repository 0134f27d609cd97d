// Exclusive gates (path_lock.hpp: GATES): a mode that conflicts with itself
// (W on a path that is only written, X on global-mutex's root) is taken fast
// by one holder at a time through the gate's word; a conflicting step closes
// the gate and queues behind a pseudo hold that stands for that holder, whose
// release drains it; a shared set, once opened on a path, keeps its place;
// eviction turns an exclusive holder into a pseudo hold. Seen through the
// gate's word (admitted and taken modes) and the invariants at every point.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string_view>
#include <thread>

#include "pathlock/impl/path_lock_definitions.hpp"
#include "pathlock/path_lock.hpp"
#include "support/path_lock_support.hpp"
#include "support/path_lock_test_peer.hpp"
#include "support/watchdog.hpp"

namespace pathlock {
namespace {

using impl::PathLockTestPeer;
using testing_support::current_test_name;
using testing_support::eventually;
using testing_support::ThreadPhase;
using testing_support::Watchdog;

model::Path P(std::string_view text) { return model::Path::parse(text); }

std::uint32_t mask_of(const impl::Scheme& scheme, impl::Role role) { return 1U << scheme.mode_for(role).index; }

TEST(ExclusiveGate, AWrittenPathsNextWriteTakesTheWord) {
  const impl::Scheme& scheme = impl::path_rwa_joined_scheme();
  const std::uint32_t write = mask_of(scheme, impl::Role::kWriteTarget);
  PathLock lock(scheme);
  lock.write(P("/a/b")).release();
  EXPECT_EQ(PathLockTestPeer::admitted(lock, "/a/b"), write) << "the idle written path's gate opened for W alone";
  EXPECT_EQ(PathLockTestPeer::taken(lock, "/a/b"), 0u);
  {
    const auto guard = lock.write(P("/a/b"));
    ASSERT_TRUE(guard.owns_lock());
    EXPECT_EQ(PathLockTestPeer::taken(lock, "/a/b"), write) << "the second write did not take the word";
    EXPECT_TRUE(PathLockTestPeer::node(lock, "/a/b")->idle) << "a fast hold leaves the entry's queue idle";
    EXPECT_EQ(lock.active_locks(), 3u) << "a fast exclusive hold is active (/, /a, /a/b)";
    EXPECT_EQ(lock.check_invariants(), "");
  }
  EXPECT_EQ(PathLockTestPeer::taken(lock, "/a/b"), 0u);
  EXPECT_EQ(PathLockTestPeer::admitted(lock, "/a/b"), write);
  EXPECT_EQ(lock.check_invariants(), "");
}

TEST(ExclusiveGate, AConflictingStepQueuesBehindTheHolder) {
  const impl::Scheme& scheme = impl::path_rwa_joined_scheme();
  const std::uint32_t write = mask_of(scheme, impl::Role::kWriteTarget);
  PathLock lock(scheme);
  lock.write(P("/a/b")).release();
  auto holder = lock.write(P("/a/b"));
  ASSERT_EQ(PathLockTestPeer::taken(lock, "/a/b"), write);
  EXPECT_EQ(lock.try_acquire(model::read(P("/a/b")).request()).status(), AcquireStatus::kWouldBlock);
  EXPECT_EQ(PathLockTestPeer::admitted(lock, "/a/b"), 0u) << "the reader's step closed the gate";
  EXPECT_EQ(PathLockTestPeer::pseudo_held(lock, "/a/b"), write) << "the holder became a pseudo hold";
  EXPECT_EQ(lock.check_invariants(), "");

  Watchdog watchdog(current_test_name());
  watchdog.watch("lock", lock);
  auto& writer_note = watchdog.thread("second writer of /a/b");
  std::atomic<bool> granted{false};
  std::thread writer([&] {
    const auto request = model::write(P("/a/b")).request();
    writer_note.at(ThreadPhase::kAcquiring, request);
    granted = lock.acquire(request).owns_lock();
    writer_note.at(ThreadPhase::kDone);
  });
  ASSERT_TRUE(eventually([&] { return lock.waiting_acquisitions() == 1; })) << "the second writer never queued";
  EXPECT_FALSE(granted.load());
  EXPECT_EQ(lock.check_invariants(), "");
  holder.release();  // finds the gate closed: drains, which grants the writer
  writer.join();
  EXPECT_TRUE(granted.load());
  EXPECT_EQ(PathLockTestPeer::pseudo_held(lock, "/a/b"), 0u);
  EXPECT_EQ(PathLockTestPeer::taken(lock, "/a/b"), 0u);
  EXPECT_EQ(PathLockTestPeer::admitted(lock, "/a/b"), write) << "idle again: the gate reopened for W";
  EXPECT_EQ(lock.check_invariants(), "");
}

TEST(ExclusiveGate, ASharedSetOnceOpenedKeepsItsPlace) {
  const impl::Scheme& scheme = impl::path_rwa_joined_scheme();
  const std::uint32_t read = mask_of(scheme, impl::Role::kReadTarget);
  PathLock lock(scheme);
  lock.read(P("/a/b")).release();
  const std::uint32_t shared = PathLockTestPeer::admitted(lock, "/a/b");
  ASSERT_NE(shared & read, 0u);
  lock.write(P("/a/b")).release();
  EXPECT_EQ(PathLockTestPeer::admitted(lock, "/a/b"), shared) << "the read after a write would not be fast";
  EXPECT_EQ(lock.check_invariants(), "");
}

TEST(ExclusiveGate, GlobalMutexTakesTheRootsWord) {
  const impl::Scheme& scheme = impl::global_mutex_scheme();
  PathLock lock(scheme);
  lock.write(P("/x")).release();
  const auto guard = lock.read(P("/y"));
  EXPECT_NE(PathLockTestPeer::taken(lock, "/"), 0u) << "the second request did not take the root's word";
  EXPECT_EQ(lock.try_acquire(model::write(P("/z")).request()).status(), AcquireStatus::kWouldBlock);
  EXPECT_EQ(lock.check_invariants(), "");
}

// Two idle entries kept, in one shard: / and /a are idle (/a held only
// through its exclusive gate, / fast too) when /b's new entry needs a
// victim. The sweep's first pass spares both (used fast since the last
// sweep); its second makes their fast holders pseudo holds instead of
// evicting them, and /b gets a new node.
TEST(ExclusiveGate, EvictionMakesTheHolderAPseudoHold) {
  const impl::Scheme& scheme = impl::path_rwa_joined_scheme();
  const std::uint32_t write = mask_of(scheme, impl::Role::kWriteTarget);
  PathLock lock(scheme, PathLockOptions{.shards = 1, .max_idle_locks_per_shard = 2});
  lock.write(P("/a")).release();
  auto holder = lock.write(P("/a"));
  ASSERT_EQ(PathLockTestPeer::taken(lock, "/a"), write);
  lock.write(P("/b")).release();
  ASSERT_NE(PathLockTestPeer::node(lock, "/a"), nullptr) << "an entry held fast was evicted";
  EXPECT_EQ(PathLockTestPeer::pseudo_held(lock, "/a"), write);
  EXPECT_EQ(PathLockTestPeer::admitted(lock, "/a"), 0u);
  EXPECT_EQ(lock.check_invariants(), "");
  holder.release();
  EXPECT_EQ(PathLockTestPeer::pseudo_held(lock, "/a"), 0u);
  EXPECT_EQ(PathLockTestPeer::taken(lock, "/a"), 0u);
  EXPECT_EQ(lock.check_invariants(), "");
}

}  // namespace
}  // namespace pathlock
