#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "pathlock/impl/lock_queue.hpp"

namespace pathlock::impl {
namespace {

const Scheme& rwa() { return path_rwa_joined_scheme(); }
ModeId mode(const Scheme& s, std::string_view name) {
  for (std::uint8_t m = 0; m < s.mode_count(); ++m) {
    if (s.mode_name(ModeId{m}) == name) return ModeId{m};
  }
  throw std::runtime_error("no such mode");
}

TEST(LockQueue, CompatibleRequestsShareIncompatibleOnesQueue) {
  LockQueue q;
  const auto& s = rwa();
  EXPECT_EQ(q.acquire(s, 1, mode(s, "R")), AcquireOutcome::kGranted);
  EXPECT_EQ(q.acquire(s, 2, mode(s, "RA")), AcquireOutcome::kGranted);
  EXPECT_EQ(q.acquire(s, 3, mode(s, "WA")), AcquireOutcome::kQueued);  // R holds
  // RA is compatible with R, RA and the queued WA: it may pass.
  EXPECT_EQ(q.acquire(s, 4, mode(s, "RA")), AcquireOutcome::kGranted);
  // R is compatible with the holders but not with the queued WA: FIFO.
  EXPECT_EQ(q.acquire(s, 5, mode(s, "R")), AcquireOutcome::kQueued);
  std::vector<TaskId> b;
  q.blockers(s, 5, b);
  EXPECT_EQ(b, (std::vector<TaskId>{3}));
  b.clear();
  q.blockers(s, 3, b);
  EXPECT_EQ(b, (std::vector<TaskId>{1}));
  EXPECT_EQ(q.check_invariants(s), "");

  std::vector<LockEntry> granted;
  EXPECT_TRUE(q.release(s, 1, granted));
  EXPECT_EQ(granted, (std::vector<LockEntry>{{3, mode(s, "WA")}}));  // 5 still conflicts with 3
  EXPECT_EQ(q.check_invariants(s), "");
  granted.clear();
  EXPECT_TRUE(q.release(s, 3, granted));
  EXPECT_EQ(granted, (std::vector<LockEntry>{{5, mode(s, "R")}}));
  EXPECT_FALSE(q.release(s, 42, granted));
}

TEST(LockQueue, CancelLetsThoseBehindThrough) {
  LockQueue q;
  const auto& s = path_rw_scheme();
  ASSERT_EQ(q.acquire(s, 1, mode(s, "R")), AcquireOutcome::kGranted);
  ASSERT_EQ(q.acquire(s, 2, mode(s, "W")), AcquireOutcome::kQueued);
  ASSERT_EQ(q.acquire(s, 3, mode(s, "R")), AcquireOutcome::kQueued);
  std::vector<LockEntry> granted;
  EXPECT_TRUE(q.cancel(s, 2, granted));
  EXPECT_EQ(granted, (std::vector<LockEntry>{{3, mode(s, "R")}}));
  EXPECT_FALSE(q.cancel(s, 2, granted));
  EXPECT_EQ(q.check_invariants(s), "");
}

TEST(LockQueue, NoReentrancyATaskCanWaitForItself) {
  LockQueue q;
  const auto& s = path_rw_scheme();
  ASSERT_EQ(q.acquire(s, 7, mode(s, "R")), AcquireOutcome::kGranted);
  ASSERT_EQ(q.acquire(s, 7, mode(s, "W")), AcquireOutcome::kQueued);
  std::vector<TaskId> b;
  q.blockers(s, 7, b);
  EXPECT_EQ(b, (std::vector<TaskId>{7}));
}

// Random operations keep the invariants, and a request that is granted is
// compatible with every holder it joins.
RC_GTEST_PROP(LockQueueProps, InvariantsHoldUnderRandomOperations, ()) {
  const Scheme* picked = *rc::gen::elementOf(std::vector<const Scheme*>(builtin_schemes().begin(), builtin_schemes().end()));
  const Scheme& s = *picked;
  LockQueue q;
  std::vector<TaskId> holding, waiting;
  const auto steps = *rc::gen::inRange(1, 60);
  TaskId next = 0;
  for (int i = 0; i < steps; ++i) {
    const int action = *rc::gen::inRange(0, 3);
    std::vector<LockEntry> granted;
    if (action == 0 || (holding.empty() && waiting.empty())) {
      const ModeId m{static_cast<std::uint8_t>(*rc::gen::inRange<std::size_t>(0, s.mode_count()))};
      const auto holders_before = std::vector<LockEntry>(q.holders().begin(), q.holders().end());
      if (q.acquire(s, next, m) == AcquireOutcome::kGranted) {
        for (const auto& h : holders_before) RC_ASSERT(s.compatible(h.mode, m));
        holding.push_back(next);
      } else {
        waiting.push_back(next);
      }
      ++next;
    } else if (action == 1 && !holding.empty()) {
      const auto k = *rc::gen::inRange<std::size_t>(0, holding.size());
      RC_ASSERT(q.release(s, holding[k], granted));
      holding.erase(holding.begin() + static_cast<std::ptrdiff_t>(k));
    } else if (!waiting.empty()) {
      const auto k = *rc::gen::inRange<std::size_t>(0, waiting.size());
      RC_ASSERT(q.cancel(s, waiting[k], granted));
      waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(k));
    }
    for (const auto& g : granted) {
      waiting.erase(std::find(waiting.begin(), waiting.end(), g.task));
      holding.push_back(g.task);
    }
    RC_ASSERT(q.check_invariants(s) == "");
    RC_ASSERT(q.holders().size() == holding.size());
    RC_ASSERT(q.waiters().size() == waiting.size());
    RC_ASSERT(q.idle() == (holding.empty() && waiting.empty()));
  }
}

}  // namespace
}  // namespace pathlock::impl
