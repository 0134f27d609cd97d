// The lock-wide gate index (path_lock.hpp: GATES): a thread takes fast a
// gate another thread opened, though its own cache never saw the path; a
// path whose index slot names another path's gate misses (takes the slow
// path) instead of taking that gate; the index's size follows the table's
// bound. Seen through the lock's own events: a step asked for fast (kAsked).

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

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

// Two top-level paths of one index slot (not the root's), in a shard that
// keeps both idle: the slot names the first one's gate.
TEST(GateIndex, APathWhoseSlotNamesAnotherPathsGateMisses) {
  const PathLockOptions options{.shards = 1, .max_idle_locks_per_shard = 4};
  const PathLock same_index(impl::path_rwa_joined_scheme(), options);
  const auto slot = [&](std::string_view p) { return PathLockTestPeer::index_slot(same_index, p); };
  std::string first;
  std::string second;
  for (int i = 0; second.empty(); ++i) {
    const std::string candidate = "/p" + std::to_string(i);
    if (slot(candidate) == slot("/")) continue;
    if (first.empty()) {
      first = candidate;
    } else if (slot(candidate) == slot(first)) {
      second = candidate;
    }
  }
  Lock lock(impl::path_rwa_joined_scheme(), options);
  (void)lock.read(P(first));  // opens its gate: it takes the slot
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
  EXPECT_EQ(lock.check_invariants(), "");
}

// Two slots per entry the table may keep idle, a power of two within 2..2^20.
TEST(GateIndex, ItsSizeFollowsTheTablesBound) {
  const PathLockOptions defaults;
  EXPECT_EQ(PathLockTestPeer::index_slots(PathLock(impl::path_rwa_joined_scheme())),
            std::bit_ceil(2 * defaults.shards * defaults.max_idle_locks_per_shard));
  EXPECT_EQ(PathLockTestPeer::index_slots_for(1, 0), 2U);
  EXPECT_EQ(PathLockTestPeer::index_slots_for(3, 5), 32U);  // 2 x 3 x 5 = 30, rounded up
  EXPECT_EQ(PathLockTestPeer::index_slots_for(std::size_t{1} << 40, std::size_t{1} << 40), std::size_t{1} << 20);
}

}  // namespace
}  // namespace pathlock
