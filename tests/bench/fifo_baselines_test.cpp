// The scaling benchmark's bare FIFO locks (scaling_baselines.hpp), the
// yardstick of its targets where every pair of requests conflicts: each
// must exclude, and hand over to a thread that waits, or the yardstick
// would measure something no lock can do.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <latch>
#include <memory>
#include <thread>
#include <vector>

#include "scaling_baselines.hpp"

namespace pathlock::bench {
namespace {

using namespace std::chrono_literals;

template <typename Lock>
class BareFifoLock : public ::testing::Test {};
using BareFifoLocks = ::testing::Types<TicketLock, McsLock>;
TYPED_TEST_SUITE(BareFifoLock, BareFifoLocks);

// A thread that waits while the lock is held gets it once it is released.
// (A lock that never handed over would leave the waiter spinning: the test
// fails after 10 s and leaves it to the process's exit.)
TYPED_TEST(BareFifoLock, HandsOverToAWaiter) {
  static TypeParam lock;  // outlives a waiter left spinning on failure
  const Operation op = make_operation("a", Access::kWrite);
  for (int round = 0; round < 50; ++round) {
    lock.acquire(op);
    struct Flags {
      std::atomic<bool> entered{false};
      std::atomic<bool> done{false};
    };
    const auto flags = std::make_shared<Flags>();  // shared with a waiter that may outlive the test
    std::thread waiter([flags, op] {
      lock.acquire(op);
      flags->entered.store(true);
      lock.release(op);
      flags->done.store(true);
    });
    std::this_thread::sleep_for(1ms);  // the waiter queues (or spins) meanwhile
    EXPECT_FALSE(flags->entered.load()) << "round " << round << ": entered while held";
    lock.release(op);
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!flags->done.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(100us);
    if (!flags->done.load()) {
      waiter.detach();
      FAIL() << "round " << round << ": the waiter never got the lock";
    }
    waiter.join();
  }
}

TYPED_TEST(BareFifoLock, Excludes) {
  TypeParam lock;
  const Operation op = make_operation("hot/folder/sub/object", Access::kWrite);
  constexpr int kThreads = 4;
  constexpr int kRounds = 2000;
  std::latch start(kThreads);
  std::uint64_t count = 0;  // plain: the lock alone orders its updates
  std::atomic<int> inside{0};
  std::atomic<int> overlaps{0};
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        start.arrive_and_wait();  // together, so that they meet on the lock
        for (int i = 0; i < kRounds; ++i) {
          lock.acquire(op);
          if (inside.fetch_add(1) != 0) overlaps.fetch_add(1);
          for (int spin = 0; spin < 20; ++spin) impl::cpu_relax();  // held a while: others queue
          ++count;
          inside.fetch_sub(1);
          lock.release(op);
        }
      });
    }
  }
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(count, std::uint64_t{kThreads} * kRounds);
}

}  // namespace
}  // namespace pathlock::bench
