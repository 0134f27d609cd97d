// The lock-wide gate index (path_lock.hpp: GATES): a thread takes fast a
// gate another thread opened, though its own cache never saw the path; a
// path whose tag is another path's in its bucket misses (takes the slow
// path) instead of taking that gate; paths of one bucket are each found; a
// full bucket keeps its open gates and gives a closed gate's slot to a new
// path; the index's size follows the table's bound. Seen through the lock's
// own events: a step asked for fast (kAsked).

#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "pathlock/impl/path_hash.hpp"
#include "pathlock/impl/path_lock_definitions.hpp"
#include "pathlock/path_lock.hpp"
#include "support/path_lock_test_peer.hpp"

// Named, not anonymous: the lock is explicitly instantiated on this
// platform below, which needs its members to have external linkage.
namespace pathlock::gate_index_test {

// Fast asks per path, over this test binary's locks on ObservingPlatform.
struct Asks {
  std::mutex mu;
  std::map<std::string, int, std::less<>> by_path;
  int of(std::string_view path) {
    std::lock_guard<std::mutex> hold(mu);
    const auto it = by_path.find(path);
    return it == by_path.end() ? 0 : it->second;
  }
};
Asks g_asks;

struct ObservingPlatform : impl::StdPlatform {
  static void observe(impl::LockEvent event, std::string_view lock, impl::TaskId, impl::ModeId) noexcept {
    if (event != impl::LockEvent::kAsked) return;
    std::lock_guard<std::mutex> hold(g_asks.mu);
    ++g_asks.by_path[std::string(lock)];
  }
};

}  // namespace pathlock::gate_index_test

template class pathlock::BasicPathLock<pathlock::gate_index_test::ObservingPlatform>;

namespace pathlock {
namespace {

using gate_index_test::g_asks;
using impl::PathLockTestPeer;
using Lock = BasicPathLock<gate_index_test::ObservingPlatform>;

model::Path P(std::string_view text) { return model::Path::parse(text); }

// Runs `body` on a thread of its own: its gate cache starts empty.
template <typename Body>
void on_fresh_thread(Body body) {
  std::thread t(body);
  t.join();
}

// Top-level paths /p0, /p1, ... that `keep` accepts, `count` of them.
template <typename Keep>
std::vector<std::string> top_level_paths(std::size_t count, Keep keep) {
  std::vector<std::string> found;
  for (int i = 0; found.size() < count; ++i) {
    std::string candidate = "/p" + std::to_string(i);
    if (keep(candidate, found)) found.push_back(std::move(candidate));
  }
  return found;
}

// Whether a fresh thread's read of `path` is asked for fast (through the
// index: its cache is empty).
bool read_fast_on_fresh_thread(Lock& lock, const std::string& path) {
  bool fast = false;
  on_fresh_thread([&] {
    const int before = g_asks.of(path);
    const auto guard = lock.read(P(path));
    fast = guard.owns_lock() && g_asks.of(path) == before + 1;
  });
  return fast;
}

TEST(GateIndex, AThreadTakesFastAGateAnotherThreadOpened) {
  Lock lock(impl::path_rwa_joined_scheme());
  (void)lock.read(P("/a/leaf"));  // opens the gates of /, /a and /a/leaf
  on_fresh_thread([&] {
    const int before = g_asks.of("/a/leaf");
    const auto guard = lock.read(P("/a/leaf"));
    EXPECT_TRUE(guard.owns_lock());
    EXPECT_EQ(g_asks.of("/a/leaf"), before + 1) << "the leaf was not taken fast";
  });
  EXPECT_EQ(lock.check_invariants(), "");
}

// Two top-level paths of one bucket and one tag (not the root's bucket), in
// a shard that keeps both idle: the second's lookup reads the first's
// record, and must not take its gate.
TEST(GateIndex, APathWhoseTagIsAnotherPathsInItsBucketMisses) {
  const PathLockOptions options{.shards = 1, .max_idle_locks_per_shard = 64};  // 16 buckets of 8
  const PathLock same_index(impl::path_rwa_joined_scheme(), options);
  const auto bucket = [&](std::string_view p) { return PathLockTestPeer::index_bucket(same_index, p); };
  const auto paths = top_level_paths(2, [&](const std::string& candidate, const std::vector<std::string>& found) {
    if (bucket(candidate) == bucket("/")) return false;
    return found.empty() || (bucket(candidate) == bucket(found[0]) &&
                             PathLockTestPeer::index_tag(candidate) == PathLockTestPeer::index_tag(found[0]));
  });
  const std::string& first = paths[0];
  const std::string& second = paths[1];
  Lock lock(impl::path_rwa_joined_scheme(), options);
  (void)lock.read(P(first));  // opens its gate: it takes a slot
  (void)lock.read(P(first));
  on_fresh_thread([&] {
    const int before = g_asks.of(second);
    const auto guard = lock.read(P(second));
    EXPECT_TRUE(guard.owns_lock());
    EXPECT_EQ(g_asks.of(second), before) << second << " was taken through " << first << "'s gate";
    const int first_before = g_asks.of(first);
    (void)lock.read(P(first));
    EXPECT_EQ(g_asks.of(first), first_before + 1) << first << " keeps its slot";
  });
  EXPECT_TRUE(read_fast_on_fresh_thread(lock, second)) << second << " has a slot of its own beside " << first;
  EXPECT_EQ(lock.check_invariants(), "");
}

// A bucket's worth of paths (not the root's bucket), each opened by this
// thread: a fresh thread finds every one through the index. A direct-mapped
// index keeps one of them.
TEST(GateIndex, ABucketsPathsAreEachFoundFast) {
  const PathLockOptions options{.shards = 1, .max_idle_locks_per_shard = 64};  // 16 buckets of 8
  const PathLock same_index(impl::path_rwa_joined_scheme(), options);
  const std::size_t ways = PathLockTestPeer::index_ways(same_index);
  ASSERT_EQ(ways, impl::kGateIndexWays);
  const auto bucket = [&](std::string_view p) { return PathLockTestPeer::index_bucket(same_index, p); };
  const auto paths = top_level_paths(ways, [&](const std::string& candidate, const std::vector<std::string>& found) {
    return bucket(candidate) != bucket("/") && (found.empty() || bucket(candidate) == bucket(found[0]));
  });
  Lock lock(impl::path_rwa_joined_scheme(), options);
  for (const std::string& path : paths) (void)lock.read(P(path));
  for (const std::string& path : paths) {
    EXPECT_TRUE(read_fast_on_fresh_thread(lock, path)) << path << " was not found through the index";
  }
  EXPECT_EQ(lock.check_invariants(), "");
}

// A bucket full of open gates keeps them: a ninth path's gate opens with
// no slot. Once one of them closes (a write below it waits for a reader of
// it), a new path takes that gate's slot.
TEST(GateIndex, AFullBucketKeepsItsOpenGatesAndGivesAClosedOnesSlotAway) {
  PathLock lock(impl::path_rwa_joined_scheme(), PathLockOptions{.shards = 1, .max_idle_locks_per_shard = 64});
  const std::size_t ways = PathLockTestPeer::index_ways(lock);
  const auto bucket = [&](std::string_view p) { return PathLockTestPeer::index_bucket(lock, p); };
  const auto paths = top_level_paths(ways + 2, [&](const std::string& candidate, const std::vector<std::string>& found) {
    return bucket(candidate) != bucket("/") && (found.empty() || bucket(candidate) == bucket(found[0]));
  });
  const std::string& left_out = paths[ways];
  const std::string& late = paths[ways + 1];
  for (std::size_t i = 0; i < ways; ++i) (void)lock.read(P(paths[i]));
  (void)lock.read(P(left_out));
  EXPECT_FALSE(PathLockTestPeer::gate_closed(lock, left_out));
  EXPECT_FALSE(PathLockTestPeer::indexed(lock, left_out)) << left_out << " took an open gate's slot";
  for (std::size_t i = 0; i < ways; ++i) EXPECT_TRUE(PathLockTestPeer::indexed(lock, paths[i])) << paths[i];
  std::thread writer;
  {
    const auto reader = lock.read(P(paths[0]));
    writer = std::thread([&] { (void)lock.write(P(paths[0] + "/x")); });  // WA: closes {RA, R}, then waits
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!PathLockTestPeer::gate_closed(lock, paths[0]) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    const bool closed = PathLockTestPeer::gate_closed(lock, paths[0]);
    EXPECT_TRUE(closed) << "the writer never closed " << paths[0];
    if (closed) {
      (void)lock.read(P(late));
      EXPECT_TRUE(PathLockTestPeer::indexed(lock, late)) << late << " found no slot of a closed gate";
      EXPECT_FALSE(PathLockTestPeer::indexed(lock, paths[0]));
    }
  }
  writer.join();
  EXPECT_EQ(lock.check_invariants(), "");
}

// A gate record is three cache lines (path_lock.hpp: MEMORY): the word,
// its readers' counts and the path's copy on the first two, so a lookup of
// a short path reads one.
TEST(GateIndex, ARecordIsThreeCacheLines) {
  EXPECT_EQ(PathLockTestPeer::gate_record_bytes(), 192U);
  EXPECT_EQ(PathLockTestPeer::indexed_key_bytes(), 96U);
}

// A path of the longest indexed length is found through the index; one
// byte longer, never.
TEST(GateIndex, PathsUpToTheCopysLengthAreIndexed) {
  const std::size_t longest = PathLockTestPeer::indexed_key_bytes();
  const std::string fits = "/" + std::string(longest - 1, 'f');
  const std::string too_long = "/" + std::string(longest, 'l');
  PathLock lock(impl::path_rwa_joined_scheme());
  (void)lock.read(P(fits));
  (void)lock.read(P(too_long));
  EXPECT_TRUE(PathLockTestPeer::indexed(lock, fits));
  Lock observed(impl::path_rwa_joined_scheme());
  (void)observed.read(P(fits));
  (void)observed.read(P(too_long));
  EXPECT_TRUE(read_fast_on_fresh_thread(observed, fits));
  EXPECT_FALSE(read_fast_on_fresh_thread(observed, too_long)) << "a path longer than the copy was found";
  EXPECT_EQ(lock.check_invariants(), "");
}

// Two slots per entry the table may keep idle, a power of two within
// 2..2^20, in buckets of kGateIndexWays.
TEST(GateIndex, ItsSizeFollowsTheTablesBound) {
  const PathLockOptions defaults;
  EXPECT_EQ(PathLockTestPeer::index_slots(PathLock(impl::path_rwa_joined_scheme())),
            std::bit_ceil(2 * defaults.shards * defaults.max_idle_locks_per_shard));
  EXPECT_EQ(PathLockTestPeer::index_slots_for(1, 0), 2U);
  EXPECT_EQ(PathLockTestPeer::index_slots_for(3, 5), 32U);  // 2 x 3 x 5 = 30, rounded up
  EXPECT_EQ(PathLockTestPeer::index_slots_for(std::size_t{1} << 40, std::size_t{1} << 40), std::size_t{1} << 20);
  // Buckets of kGateIndexWays slots, or one bucket of every slot.
  EXPECT_EQ(PathLockTestPeer::index_ways(PathLock(impl::path_rwa_joined_scheme())), impl::kGateIndexWays);
  const PathLockOptions two_slots{.shards = 1, .max_idle_locks_per_shard = 1};
  EXPECT_EQ(PathLockTestPeer::index_slots(PathLock(impl::path_rwa_joined_scheme(), two_slots)), 2U);
  EXPECT_EQ(PathLockTestPeer::index_ways(PathLock(impl::path_rwa_joined_scheme(), two_slots)), 2U);
}

}  // namespace
}  // namespace pathlock
