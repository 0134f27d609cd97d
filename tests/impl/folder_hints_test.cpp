// Folder hints (path_lock_gate.hpp: FOLDER HINTS): an acquire of one path
// that takes every step fast names its folders' gate records in its
// target's record; a thread whose plan memo misses the path takes those
// folders through the hints, without looking them up; a hint that names
// another path's gate is read, found wrong and passed over, and exclusion
// holds either way.

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "pathlock/path_lock.hpp"
#include "pathlock/sim/rng.hpp"
#include "support/fresh_thread.hpp"
#include "support/path_lock_support.hpp"
#include "support/path_lock_test_peer.hpp"
#include "support/watchdog.hpp"

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

// Real threads over a tree of 256 objects, each under three folders (a
// plan of five steps, four hinted), read and written at random, with now
// and then a write of a folder (closing its gate): far more paths than a
// thread's plan memo has entries, so most acquires miss it and take their
// folders through hints, and so few idle entries kept that records are
// retired and reused by other paths all along, hints and all. The check
// is seq_cst counters per node, raised before and read after each grant
// (Dekker: of two conflicting holders, one sees the other), so nothing but
// the lock orders the threads and ThreadSanitizer sees its own
// synchronisation (the concurrency label runs this under TSan).
TEST(FolderHints, StressOverATreeWiderThanThePlanMemoNeverHoldsConflictsTogether) {
  constexpr unsigned kFan = 2;       // folders per folder, three levels
  constexpr unsigned kObjects = 32;  // objects per bottom folder
  constexpr unsigned kThreads = 3;
  constexpr unsigned kAcquires = 50000;  // per thread
  struct Node {
    std::string path;
    std::vector<unsigned> folders;  // its proper ancestors below the root, outermost first
  };
  std::vector<Node> nodes;  // folders of each level, then the objects
  std::vector<unsigned> level_start;
  nodes.push_back({"", {}});  // (the root: never written here)
  std::vector<unsigned> previous = {0};
  for (unsigned level = 0; level < 4; ++level) {
    const unsigned fan = level < 3 ? kFan : kObjects;
    std::vector<unsigned> current;
    level_start.push_back(static_cast<unsigned>(nodes.size()));
    for (const unsigned parent : previous) {
      for (unsigned i = 0; i < fan; ++i) {
        Node n{nodes[parent].path + "/" + "fgho"[level] + std::to_string(i), nodes[parent].folders};
        if (parent != 0) n.folders.push_back(parent);
        current.push_back(static_cast<unsigned>(nodes.size()));
        nodes.push_back(std::move(n));
      }
    }
    previous = std::move(current);
  }
  const unsigned first_object = level_start[3];
  ASSERT_EQ(nodes.size() - first_object, kFan * kFan * kFan * kObjects);
  std::vector<model::Request> reads, writes;
  for (const Node& n : nodes) {
    const model::Path path = P(n.path.empty() ? "/" : n.path);
    reads.push_back(model::read(path).request());
    writes.push_back(model::write(path).request());
  }
  PathLock lock(impl::path_rwa_joined_scheme(), PathLockOptions{.shards = 4, .max_idle_locks_per_shard = 8});
  std::vector<std::atomic<int>> writers(nodes.size()), readers(nodes.size()), below(nodes.size());
  std::atomic<int> violations{0};
  testing_support::Watchdog watchdog(testing_support::current_test_name());  // a hang fails, with a report
  watchdog.watch("lock", lock);
  std::vector<testing_support::WatchedThread*> notes;
  for (unsigned t = 0; t < kThreads; ++t) notes.push_back(&watchdog.thread("thread " + std::to_string(t)));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      sim::Rng rng(4000 + t);
      for (unsigned k = 0; k < kAcquires; ++k) {
        const auto pick = rng.below(100);
        const bool folder = pick < 10;
        const unsigned id = folder ? 1 + static_cast<unsigned>(rng.below(first_object - 1))
                                   : first_object + static_cast<unsigned>(rng.below(nodes.size() - first_object));
        const bool write = folder || pick < 20;
        const model::Request& request = write ? writes[id] : reads[id];
        notes[t]->at(testing_support::ThreadPhase::kAcquiring, request);
        auto g = lock.acquire(request);
        const Node& n = nodes[id];
        for (const unsigned f : n.folders) below[f].fetch_add(1);
        if (write) {
          if (writers[id].fetch_add(1) != 0 || readers[id].load() != 0 || below[id].load() != 0) violations.fetch_add(1);
        } else {
          readers[id].fetch_add(1);
          if (writers[id].load() != 0) violations.fetch_add(1);
        }
        for (const unsigned f : n.folders) {
          if (writers[f].load() != 0) violations.fetch_add(1);
        }
        (write ? writers : readers)[id].fetch_sub(1);
        for (const unsigned f : n.folders) below[f].fetch_sub(1);
      }
      notes[t]->at(testing_support::ThreadPhase::kDone);
    });
  }
  for (auto& th : pool) th.join();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(lock.active_locks(), 0U);
  EXPECT_EQ(lock.check_invariants(), "");
  // Not vacuous: acquires took every step fast, and left hints.
  std::size_t hinted = 0;
  for (unsigned id = first_object; id < nodes.size(); ++id) {
    if (PathLockTestPeer::gate_record(lock, nodes[id].path) != nullptr &&
        PathLockTestPeer::folder_hint(lock, nodes[id].path, 0) != nullptr) {
      ++hinted;
    }
  }
  EXPECT_GT(hinted, 0U) << "no object kept in the table holds a hint";
}

}  // namespace
}  // namespace pathlock
