// The deterministic runtime's exploration: how many schedules context
// bounding visits, replay, bad input, the step bound, the strategies.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>

#include "pathlock/sim/runtime/platform.hpp"
#include "pathlock/sim/runtime/strategies/dfs_strategy.hpp"
#include "pathlock/sim/runtime/strategies/iterative_dfs_strategy.hpp"
#include "pathlock/sim/runtime/strategies/pct_strategy.hpp"
#include "pathlock/sim/runtime/strategies/random_strategy.hpp"
#include "pathlock/sim/runtime/strategies/replay_strategy.hpp"

namespace pathlock::sim::runtime {
namespace {

using P = DeterministicPlatform;

// `threads` threads, each storing into one shared atomic `stores` times.
Program stores(std::size_t threads, int stores_each) {
  auto x = std::make_shared<P::Atomic<int>>();
  Program program;
  for (std::size_t t = 0; t < threads; ++t) {
    program.threads.emplace_back([x, stores_each] {
      for (int i = 0; i < stores_each; ++i) x->store(i);
    });
  }
  return program;
}

std::size_t dfs_schedules(std::size_t threads, int stores_each, std::size_t bound) {
  DfsStrategy dfs(bound);
  const ExploreResult r = explore([&] { return stores(threads, stores_each); }, dfs, {});
  EXPECT_EQ(r.outcome, ExploreOutcome::kAllPassed);
  return r.runs;
}

// A thread of n operations takes n + 1 steps: its start (up to the first
// operation) and each operation (the last one runs to the thread's end).
// A switch after a step that leaves the thread able to go on is a
// preemption; a switch after its last step is free.
//
// Two threads of one store each (steps a1 a2, b1 b2): the 6 interleavings
// and their preemptions are a1a2b1b2 0, b1b2a1a2 0, a1b1b2a2 1, b1a1a2b2 1,
// a1b1a2b2 2, b1a1b2a2 2: so 2, 4, 6 schedules for bounds 0, 1, 2.
TEST(RuntimeDfs, OneStoreEachExploresTheHandCountedSchedules) {
  EXPECT_EQ(dfs_schedules(2, 1, 0), 2u);
  EXPECT_EQ(dfs_schedules(2, 1, 1), 4u);
  EXPECT_EQ(dfs_schedules(2, 1, 2), 6u);
}

// Two threads of two stores (3 steps each; C(6,3) = 20 interleavings). By
// which thread starts (x2): 0 preemptions, 1 schedule; 1 preemption, the
// first is cut after its step 1 or 2 and the other runs to its end: 2;
// 2 preemptions, cut after 1 or 2, the other cut after 1 or 2, then each
// runs to its end: 4. So 2, 2 + 4 = 6, 6 + 8 = 14.
TEST(RuntimeDfs, TwoStoresEachExploresTheHandCountedSchedules) {
  EXPECT_EQ(dfs_schedules(2, 2, 0), 2u);
  EXPECT_EQ(dfs_schedules(2, 2, 1), 6u);
  EXPECT_EQ(dfs_schedules(2, 2, 2), 14u);
  EXPECT_EQ(dfs_schedules(2, 2, 100), 20u);  // unbounded: every interleaving
}

// Bounds 0, 1, 2 in turn: 2 + 6 + 14 runs.
TEST(RuntimeDfs, IterativeBoundingRunsEachBoundInTurn) {
  IterativeDfsStrategy iterative(2);
  const ExploreResult r = explore([] { return stores(2, 2); }, iterative, {});
  EXPECT_EQ(r.outcome, ExploreOutcome::kAllPassed);
  EXPECT_EQ(r.runs, 2u + 6u + 14u);
  EXPECT_EQ(iterative.bound(), 2u);
}

// Three threads of one store: bound 0 runs them one after the other in
// any order, 3! = 6.
TEST(RuntimeDfs, ThreeThreadsWithoutPreemptionRunInEveryOrder) { EXPECT_EQ(dfs_schedules(3, 1, 0), 6u); }

TEST(RuntimeRun, RejectsThreadCountsOutsideTheLimitByName) {
  DfsStrategy dfs(0);
  ASSERT_EQ(dfs.begin_run(0), RunStart::kStarted);
  try {
    run_program(Program{}, dfs, {});
    FAIL() << "no threads accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("1 to 16 logical threads, not 0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(run_program(stores(kMaxThreads + 1, 1), dfs, {}), std::invalid_argument);
}

TEST(RuntimeSchedule, TextRoundTripsAndBadTokensAreNamed) {
  const ParsedSchedule ok = parse_schedule("0 1 T1 A F 15");
  ASSERT_TRUE(ok.error.empty()) << ok.error;
  EXPECT_EQ(format_schedule(ok.choices), "0 1 T1 A F 15");
  const ParsedSchedule bad = parse_schedule("0 x1");
  EXPECT_NE(bad.error.find("choice 1 'x1'"), std::string::npos) << bad.error;
  EXPECT_NE(parse_schedule("16").error.find("below 16"), std::string::npos);
}

// Two threads that spin (with yield) on a flag nobody sets: a livelock.
// The run stops at the step bound and says so; it is not a pass.
TEST(RuntimeRun, LivelockHitsTheStepBoundAndIsInconclusive) {
  const auto make = [] {
    auto flag = std::make_shared<P::Atomic<int>>();
    Program program;
    for (int t = 0; t < 2; ++t) {
      program.threads.emplace_back([flag] {
        while (flag->load() == 0) P::yield();
      });
    }
    return program;
  };
  DfsStrategy dfs(1);
  ExploreOptions options;
  options.run.max_steps = 500;
  const ExploreResult r = explore(make, dfs, options);
  EXPECT_EQ(r.outcome, ExploreOutcome::kInconclusive);
  ASSERT_TRUE(r.first_bad_run);
  EXPECT_EQ(r.first_bad_run->outcome, RunOutcome::kStepBoundHit);
  EXPECT_NE(r.first_bad_run->detail.find("500 steps"), std::string::npos);
}

// A spinner waits for a flag another thread sets after some work: the
// spinner is not picked again while the other can step, so exhaustive
// search with preemptions ends (and every schedule finishes).
TEST(RuntimeDfs, SpinningThreadsDoNotMakeTheSearchEndless) {
  const auto make = [] {
    auto flag = std::make_shared<P::Atomic<int>>();
    auto work = std::make_shared<P::Atomic<int>>();
    Program program;
    program.threads.emplace_back([flag] {
      while (flag->load() == 0) P::pause();
    });
    program.threads.emplace_back([flag, work] {
      for (int i = 0; i < 5; ++i) work->fetch_add(1);
      flag->store(1);
    });
    return program;
  };
  for (std::size_t bound = 0; bound <= 2; ++bound) {
    DfsStrategy dfs(bound);
    const ExploreResult r = explore(make, dfs, {});
    EXPECT_EQ(r.outcome, ExploreOutcome::kAllPassed) << "bound " << bound;
    std::printf("bound %zu: %zu schedules\n", bound, r.runs);
  }
}

// Thread ids and slots do not depend on the OS: the same in every run.
TEST(RuntimePlatform, TaskIdsAndSlotsAreFixedByTheLogicalThread) {
  const auto make = [](std::shared_ptr<std::vector<std::uint64_t>> seen) {
    Program program;
    for (int t = 0; t < 2; ++t) {
      program.threads.emplace_back([seen] {
        const std::uint64_t a = P::next_task_id();
        const std::uint64_t b = P::next_task_id();
        P::yield();
        seen->push_back(P::thread_slot());
        seen->push_back(a);
        seen->push_back(b);
      });
    }
    return program;
  };
  DfsStrategy dfs(0);
  auto seen = std::make_shared<std::vector<std::uint64_t>>();
  ASSERT_EQ(explore([&] { return make(seen); }, dfs, {}).outcome, ExploreOutcome::kAllPassed);
  // The first run runs thread 0 then thread 1.
  const std::vector<std::uint64_t> first(seen->begin(), seen->begin() + 6);
  EXPECT_EQ(first, (std::vector<std::uint64_t>{0, 1ULL << 32, (1ULL << 32) + 1, 1, 2ULL << 32, (2ULL << 32) + 1}));
}

}  // namespace
}  // namespace pathlock::sim::runtime
