// The scaling benchmark's bare FIFO locks (scaling_baselines.hpp), the
// yardstick of its targets where every pair of requests conflicts: each
// must exclude, and hand over to every waiter, or the yardstick would
// measure something no lock can do.
#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "scaling_baselines.hpp"

namespace pathlock::bench {
namespace {

template <typename Lock>
class BareFifoLock : public ::testing::Test {};
using BareFifoLocks = ::testing::Types<TicketLock, McsLock>;
TYPED_TEST_SUITE(BareFifoLock, BareFifoLocks);

TYPED_TEST(BareFifoLock, ExcludesAndHandsOverToEveryWaiter) {
  TypeParam lock;
  const Operation op = make_operation("hot/folder/sub/object", Access::kWrite);
  constexpr int kThreads = 4;
  constexpr int kRounds = 20000;
  std::uint64_t count = 0;  // plain: the lock alone orders its updates
  int inside = 0;
  int overlaps = 0;
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < kRounds; ++i) {
          lock.acquire(op);
          if (++inside != 1) ++overlaps;
          ++count;
          --inside;
          lock.release(op);
        }
      });
    }
  }
  EXPECT_EQ(overlaps, 0);
  EXPECT_EQ(count, std::uint64_t{kThreads} * kRounds);
}

TYPED_TEST(BareFifoLock, OneThreadTakesItAgainAndAgain) {
  TypeParam lock;
  const Operation op = make_operation("a", Access::kRead);
  for (int i = 0; i < 1000; ++i) {
    lock.acquire(op);
    lock.release(op);
  }
  // Free after each release: another thread takes it at once.
  std::jthread other([&] {
    lock.acquire(op);
    lock.release(op);
  });
}

}  // namespace
}  // namespace pathlock::bench
