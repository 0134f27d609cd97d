// Small locks written against the Platform contract, run on the
// deterministic runtime: a correct one passes exhaustive search within two
// preemptions; broken variants are caught (a lost wakeup as a deadlock, a
// check-then-act race as a mutual-exclusion violation, an allocation
// failure that leaks a hold), and a failure replays from its printed
// schedule to the same failure.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "pathlock/sim/runtime/allocation.hpp"
#include "pathlock/sim/runtime/platform.hpp"
#include "pathlock/sim/runtime/strategies/dfs_strategy.hpp"
#include "pathlock/sim/runtime/strategies/iterative_dfs_strategy.hpp"
#include "pathlock/sim/runtime/strategies/pct_strategy.hpp"
#include "pathlock/sim/runtime/strategies/random_strategy.hpp"
#include "pathlock/sim/runtime/strategies/replay_strategy.hpp"

namespace pathlock::sim::runtime {
namespace {

using P = DeterministicPlatform;

enum class Wakeup : std::uint8_t { kUnderTheMutex, kLostWakeupRace };

// A sleeping mutex: a CAS fast path, waiters sleep on a condition variable.
// kLostWakeupRace: unlock checks for waiters without taking the mutex, so
// a waiter that failed its CAS but has not yet counted itself is missed.
template <typename Platform>
class SleepingMutex {
 public:
  explicit SleepingMutex(Wakeup wakeup) : wakeup_(wakeup) {}
  void lock() {
    int expected = 0;
    if (state_.compare_exchange_strong(expected, 1)) return;
    std::unique_lock<typename Platform::Mutex> held(mutex_);
    for (;;) {
      expected = 0;
      if (state_.compare_exchange_strong(expected, 1)) return;
      waiters_.fetch_add(1);
      wakeup_cv_.wait(held);
      waiters_.fetch_sub(1);
    }
  }
  void unlock() {
    state_.store(0);
    if (wakeup_ == Wakeup::kUnderTheMutex) {
      std::unique_lock<typename Platform::Mutex> held(mutex_);
      if (waiters_.load() > 0) wakeup_cv_.notify_one();
    } else if (waiters_.load() > 0) {
      wakeup_cv_.notify_one();
    }
  }

 private:
  Wakeup wakeup_;
  typename Platform::template Atomic<int> state_;
  typename Platform::template Atomic<int> waiters_;
  typename Platform::Mutex mutex_;
  typename Platform::CondVar wakeup_cv_;
};

// Test-and-set done as a check and then a separate set: two threads can
// both see it free.
template <typename Platform>
class CheckThenSetLock {
 public:
  void lock() {
    while (held_.load() != 0) Platform::yield();
    held_.store(1);
  }
  void unlock() { held_.store(0); }

 private:
  typename Platform::template Atomic<int> held_;
};

// Counts the threads inside the critical section between steps.
struct Section {
  int inside = 0;
  P::Atomic<int> work;
  std::optional<std::string> exclusive() const {
    if (inside > 1) return std::to_string(inside) + " threads inside the critical section";
    return std::nullopt;
  }
};

template <typename Lock>
Program contend(std::size_t threads, std::shared_ptr<Lock> lock) {
  auto section = std::make_shared<Section>();
  Program program;
  for (std::size_t t = 0; t < threads; ++t) {
    program.threads.emplace_back([lock, section] {
      lock->lock();
      ++section->inside;
      section->work.fetch_add(1);
      --section->inside;
      lock->unlock();
    });
  }
  program.after_each_step = [section] { return section->exclusive(); };
  return program;
}

ExploreResult dfs(const std::function<Program()>& make, std::size_t bound) {
  DfsStrategy strategy(bound);
  return explore(make, strategy, {});
}

TEST(RuntimeLocks, SleepingMutexPassesExhaustiveSearchWithTwoPreemptions) {
  for (std::size_t threads : {2u, 3u}) {
    const ExploreResult r = dfs(
        [&] { return contend(threads, std::make_shared<SleepingMutex<P>>(Wakeup::kUnderTheMutex)); }, 2);
    EXPECT_EQ(r.outcome, ExploreOutcome::kAllPassed)
        << threads << " threads: " << (r.first_bad_run ? r.first_bad_run->detail : "");
    std::printf("sleeping mutex, %zu threads, <= 2 preemptions: %zu schedules\n", threads, r.runs);
    EXPECT_GT(r.runs, 10u);
  }
}

// The lock's rule: no blocking call while a spin lock is held (a sleeping
// holder makes everyone who wants the spin lock spin as long). The waker of
// PathLock once took a waiter's mutex under the shard's spin lock.
TEST(RuntimeLocks, ABlockingCallUnderASpinLockBreaksTheRule) {
  struct Shared {
    P::SpinLock spin;
    P::Mutex mutex;
  };
  const auto make = [](bool under) {
    return [under] {
      auto shared = std::make_shared<Shared>();
      Program program;
      if (under) {
        program.threads.push_back([shared] {
          shared->spin.lock();
          shared->mutex.lock();
          shared->spin.unlock();
          shared->mutex.unlock();
        });
      } else {
        program.threads.push_back([shared] {
          shared->spin.lock();
          shared->spin.unlock();
          shared->mutex.lock();
          shared->mutex.unlock();
        });
      }
      return program;
    };
  };
  const ExploreResult bad = dfs(make(true), 0);
  ASSERT_EQ(bad.outcome, ExploreOutcome::kFailureFound);
  EXPECT_NE(bad.first_bad_run->detail.find("a blocking call (mutex at"), std::string::npos)
      << bad.first_bad_run->detail;
  EXPECT_NE(bad.first_bad_run->detail.find("while holding a spin lock"), std::string::npos);
  EXPECT_EQ(dfs(make(false), 0).outcome, ExploreOutcome::kAllPassed);
}

TEST(RuntimeLocks, LostWakeupIsFoundAsADeadlockNamingTheConditionVariable) {
  const ExploreResult r =
      dfs([] { return contend(2, std::make_shared<SleepingMutex<P>>(Wakeup::kLostWakeupRace)); }, 2);
  ASSERT_EQ(r.outcome, ExploreOutcome::kFailureFound);
  const RunResult& run = *r.first_bad_run;
  EXPECT_EQ(run.outcome, RunOutcome::kDeadlock);
  EXPECT_NE(run.detail.find("waits for the condition variable declared at"), std::string::npos) << run.detail;
  EXPECT_NE(run.detail.find("runtime_locks_test.cpp"), std::string::npos) << run.detail;
  // The trace names the lock a step takes even when std::unique_lock takes it.
  const std::string trace = format_trace(run);
  EXPECT_NE(trace.find(": lock at "), std::string::npos) << trace;
  EXPECT_NE(trace.find(" on the mutex declared at "), std::string::npos) << trace;
  EXPECT_EQ(run.preemptions, 2u);
  // None has fewer: bound 1 passes, and iterative bounding finds it at 2.
  const auto lost = [] { return contend(2, std::make_shared<SleepingMutex<P>>(Wakeup::kLostWakeupRace)); };
  EXPECT_EQ(dfs(lost, 1).outcome, ExploreOutcome::kAllPassed);
  IterativeDfsStrategy iterative(3);
  const ExploreResult fewest = explore(lost, iterative, {});
  ASSERT_EQ(fewest.outcome, ExploreOutcome::kFailureFound);
  EXPECT_EQ(fewest.first_bad_run->preemptions, 2u);
  EXPECT_EQ(iterative.bound(), 2u);
}

TEST(RuntimeLocks, CheckThenSetRaceIsFoundAsAMutualExclusionViolation) {
  const ExploreResult r = dfs([] { return contend(2, std::make_shared<CheckThenSetLock<P>>()); }, 2);
  ASSERT_EQ(r.outcome, ExploreOutcome::kFailureFound);
  const RunResult& run = *r.first_bad_run;
  EXPECT_EQ(run.outcome, RunOutcome::kPropertyViolated);
  EXPECT_NE(run.detail.find("2 threads inside the critical section"), std::string::npos) << run.detail;
  // The trace names each step's operation and where it is.
  const std::string trace = format_trace(run);
  EXPECT_NE(trace.find("thread 1: load at "), std::string::npos) << trace;
  EXPECT_NE(trace.find("runtime_locks_test.cpp:"), std::string::npos) << trace;
}

RunResult replay(const std::function<Program()>& make, const std::string& schedule) {
  const ParsedSchedule parsed = parse_schedule(schedule);
  EXPECT_TRUE(parsed.error.empty()) << parsed.error;
  ReplayStrategy strategy(parsed.choices);
  EXPECT_EQ(strategy.begin_run(2), RunStart::kStarted);
  return run_program(make(), strategy, {});
}

void expect_same_steps(const RunResult& a, const RunResult& b) {
  ASSERT_EQ(a.trace.size(), b.trace.size());
  for (std::size_t i = 0; i < a.trace.size(); ++i) {
    EXPECT_EQ(a.trace[i].thread, b.trace[i].thread) << "step " << i;
    EXPECT_STREQ(a.trace[i].operation, b.trace[i].operation) << "step " << i;
    EXPECT_EQ(a.trace[i].where.line(), b.trace[i].where.line()) << "step " << i;
  }
}

TEST(RuntimeLocks, AFailureReplaysFromItsPrintedScheduleToTheSameFailure) {
  const std::function<Program()> makes[] = {
      [] { return contend(2, std::make_shared<SleepingMutex<P>>(Wakeup::kLostWakeupRace)); },
      [] { return contend(2, std::make_shared<CheckThenSetLock<P>>()); },
  };
  for (const auto& make : makes) {
    const ExploreResult found = dfs(make, 2);
    ASSERT_EQ(found.outcome, ExploreOutcome::kFailureFound);
    const RunResult again = replay(make, format_schedule(found.first_bad_run->schedule));
    EXPECT_EQ(again.outcome, found.first_bad_run->outcome);
    EXPECT_EQ(again.detail, found.first_bad_run->detail);
    expect_same_steps(again, *found.first_bad_run);
  }
  // A schedule that does not fit the program is reported, not followed.
  const RunResult off = replay(makes[0], "0 0 0 7");
  EXPECT_EQ(off.outcome, RunOutcome::kScheduleDiverged);
  EXPECT_NE(off.detail.find("not among those offered"), std::string::npos) << off.detail;
}

TEST(RuntimeLocks, RandomAndPctFindTheCheckThenSetRaceFromASeed) {
  const auto make = [] { return contend(2, std::make_shared<CheckThenSetLock<P>>()); };
  ExploreOptions options;
  options.max_runs = 200;
  RandomStrategy random(1);
  const ExploreResult by_random = explore(make, random, options);
  // Depth 3: one change point lets the second thread in between the first
  // one's check and set, a second one lets the first go on while the
  // second is inside.
  PctStrategy pct(1, 3, 10);
  const ExploreResult by_pct = explore(make, pct, options);
  EXPECT_EQ(by_pct.outcome, ExploreOutcome::kFailureFound);
  std::printf("found after %zu random runs, %zu pct runs\n", by_random.runs, by_pct.runs);
  // The same seed gives the same failing run.
  RandomStrategy random_again(1);
  const ExploreResult again = explore(make, random_again, options);
  ASSERT_EQ(again.outcome, ExploreOutcome::kFailureFound);
  EXPECT_EQ(again.runs, by_random.runs);
  EXPECT_EQ(again.first_bad_run->schedule, by_random.first_bad_run->schedule);
  EXPECT_EQ(again.strategy_run, by_random.strategy_run);
}

// --- allocation failures ------------------------------------------------------------

enum class Rollback : std::uint8_t { kUndoTheHold, kLeakTheHold };

// Takes a hold, then records the holder in a list (an allocation); if the
// allocation fails, kUndoTheHold gives the hold back before rethrowing.
template <typename Platform>
class RecordingLock {
 public:
  explicit RecordingLock(Rollback rollback) : rollback_(rollback) {}
  void lock() {
    holds_.fetch_add(1);
    try {
      std::lock_guard<typename Platform::Mutex> held(mutex_);
      holders_.push_back(Platform::thread_slot());
    } catch (...) {
      if (rollback_ == Rollback::kUndoTheHold) holds_.fetch_sub(1);
      throw;
    }
  }
  void unlock() { holds_.fetch_sub(1); }
  int holds() const { return holds_.load(); }

 private:
  Rollback rollback_;
  typename Platform::template Atomic<int> holds_;
  typename Platform::Mutex mutex_;
  std::vector<std::size_t> holders_;
};

Program recording(Rollback rollback) {
  auto lock = std::make_shared<RecordingLock<P>>(rollback);
  Program program;
  for (int t = 0; t < 2; ++t) {
    program.threads.emplace_back([lock] {
      try {
        const AllocationFailureScope scope;  // the harness's call into the lock
        lock->lock();
        lock->unlock();
      } catch (const std::bad_alloc&) {
        // the call failed cleanly (if the lock rolled back)
      }
    });
  }
  program.at_end = [lock]() -> std::optional<std::string> {
    if (lock->holds() != 0) return std::to_string(lock->holds()) + " holds left after every call returned";
    return std::nullopt;
  };
  return program;
}

TEST(RuntimeAllocation, AFailureThatLeaksAHoldIsFound) {
  if (!allocation_injection_linked()) GTEST_SKIP() << "this build cannot replace operator new (a sanitizer's runtime does)";
  const ExploreResult r = dfs([] { return recording(Rollback::kLeakTheHold); }, 0);
  ASSERT_EQ(r.outcome, ExploreOutcome::kFailureFound);
  EXPECT_EQ(r.first_bad_run->outcome, RunOutcome::kPropertyViolated);
  EXPECT_NE(r.first_bad_run->detail.find("1 holds left"), std::string::npos) << r.first_bad_run->detail;
  EXPECT_NE(format_trace(*r.first_bad_run).find("allocation fails"), std::string::npos);
  EXPECT_NE(format_schedule(r.first_bad_run->schedule).find('F'), std::string::npos);
  const RunResult again = replay([] { return recording(Rollback::kLeakTheHold); },
                                 format_schedule(r.first_bad_run->schedule));
  EXPECT_EQ(again.outcome, RunOutcome::kPropertyViolated);
}

TEST(RuntimeAllocation, TheRollbackPassesAndEveryAllocationIsTriedAsAFailure) {
  if (!allocation_injection_linked()) GTEST_SKIP() << "this build cannot replace operator new (a sanitizer's runtime does)";
  // Without preemptions the two threads run one after the other, each
  // allocating once (the list grows from capacity 0 to 1, then 1 to 2): with
  // one failure per run the schedules are none fails, the first fails, the
  // second fails, for each of the two orders: 6.
  const ExploreResult r = dfs([] { return recording(Rollback::kUndoTheHold); }, 0);
  EXPECT_EQ(r.outcome, ExploreOutcome::kAllPassed);
  EXPECT_EQ(r.runs, 6u);
  EXPECT_EQ(dfs([] { return recording(Rollback::kUndoTheHold); }, 2).outcome, ExploreOutcome::kAllPassed);
}

// Allocations outside a scope, or outside a run, never fail.
TEST(RuntimeAllocation, OnlyAllocationsInsideAScopeOnALogicalThreadAreChoices) {
  {
    const AllocationFailureScope scope;  // not a logical thread: no effect
    std::vector<int> v(100);
    EXPECT_EQ(v.size(), 100u);
  }
  const auto make = [] {
    Program program;
    program.threads.emplace_back([] { std::vector<int> v(10); });
    return program;
  };
  EXPECT_EQ(dfs(make, 0).runs, 1u);
}

}  // namespace
}  // namespace pathlock::sim::runtime
