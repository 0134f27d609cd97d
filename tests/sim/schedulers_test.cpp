// The campaigns' schedulers (uniform random, PCT) and the fewest-preemption
// search that `pathlock check` reduces a counterexample's schedule with.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <functional>

#include "pathlock/sim/scheduler.hpp"
#include "pathlock/sim/schedulers/pct_scheduler.hpp"
#include "pathlock/sim/schedulers/random_scheduler.hpp"
#include "support/generators.hpp"
#include "support/scenarios.hpp"

namespace pathlock::sim {
namespace {

using impl::Scheme;
using testing::scenario_of;

const Scenario& opposite_copies() {
  static const Scenario s = scenario_of({{"copy /a /b"}, {"copy /b /a"}});
  return s;
}

// --- schedulers ------------------------------------------------------------------

TEST(Pct, BoundIsOneOverNTimesKToTheDepthLessOne) {
  EXPECT_DOUBLE_EQ(pct_bound(2, 12, 1), 1.0 / 2);
  EXPECT_DOUBLE_EQ(pct_bound(2, 12, 2), 1.0 / 24);
  EXPECT_DOUBLE_EQ(pct_bound(3, 10, 3), 1.0 / 300);
  EXPECT_NEAR(miss_probability(0.5, 3), 0.125, 1e-12);
  EXPECT_NEAR(miss_probability(1e-9, 1000), 1 - 1e-6, 1e-9);  // no rounding to 1
}

TEST(Pct, DepthOneRunsEachTaskToTheEndWithoutPreemption) {
  const Scheme s = testing::request_order_variant();
  const SchemePlanner planner(s);
  const StepMachine m(planner, opposite_copies());
  PctScheduler pct(1);
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    const auto run = run_scheduled(m, pct, seed);
    EXPECT_EQ(run.verdict, Verdict::kSafeAndDeadlockFree) << seed;
    EXPECT_EQ(count_preemptions(m, run.schedule), 0u) << seed;
    EXPECT_EQ(run.schedule.size(), run_length(m));
  }
}

TEST(Pct, FindsADepthTwoDeadlockAtLeastAsOftenAsItsBound) {
  const Scheme s = testing::request_order_variant();
  const SchemePlanner planner(s);
  const StepMachine m(planner, opposite_copies());
  PctScheduler pct(2);
  constexpr std::uint64_t kRuns = 2000;
  std::uint64_t found = 0;
  for (std::uint64_t seed = 0; seed < kRuns; ++seed) found += run_scheduled(m, pct, seed).verdict == Verdict::kDeadlock;
  const double bound = pct_bound(m.task_count(), run_length(m), 2);
  EXPECT_GE(static_cast<double>(found) / kRuns, bound) << found << " of " << kRuns;
}

// A depth-2 deadlock at a late point: T0 writes six unrelated paths, then
// copies /a to /b; T1 copies /b to /a. Under acquisition in request order
// they deadlock only if each takes its first lock of the copy before the
// other's second: T1 must be held back until T0 reaches its copy, or be
// preempted at one step. PCT's one change point lands there with probability
// at least 1/(n k); a uniform random scheduler lets T1 run at each step with
// probability 1/2, so T1 almost always finishes first.
TEST(Pct, FindsALateDepthTwoDeadlockAtItsBoundWhereUniformRandomMissesIt) {
  const Scheme s = testing::request_order_variant();
  const SchemePlanner planner(s);
  const Scenario scenario = scenario_of({{"write /c", "write /d", "write /e", "write /f", "write /g", "write /h",
                                          "copy /a /b"},
                                         {"copy /b /a"}});
  const StepMachine m(planner, scenario);
  ASSERT_EQ(explore(planner, scenario).verdict, Verdict::kDeadlock);
  constexpr std::uint64_t kRuns = 4000;
  const auto hit_rate = [&](Scheduler& scheduler) {
    std::uint64_t found = 0;
    for (std::uint64_t seed = 0; seed < kRuns; ++seed) {
      found += run_scheduled(m, scheduler, seed).verdict == Verdict::kDeadlock;
    }
    return static_cast<double>(found) / kRuns;
  };
  PctScheduler pct(2);
  RandomScheduler random;
  const double bound = pct_bound(m.task_count(), run_length(m), 2);
  const double pct_rate = hit_rate(pct);
  const double random_rate = hit_rate(random);
  EXPECT_GE(pct_rate, bound);
  // Measurably apart: random finds it less than a tenth as often as the bound
  // promises PCT (its rate here is about 2^-(T0's steps before the copy)).
  EXPECT_LT(random_rate, bound / 10) << "random " << random_rate << ", bound " << bound;
  EXPECT_GT(pct_rate, random_rate);
}

TEST(Schedulers, ASeedReplaysItsRunAndAFailingScheduleReplaysItsFailure) {
  const Scheme s = testing::request_order_variant();
  const SchemePlanner planner(s);
  const Scenario scenario = scenario_of({{"copy /a /b", "write /c"}, {"copy /b /a"}, {"rename /c /a/b"}});
  const StepMachine m(planner, scenario);
  RandomScheduler random;
  PctScheduler pct(3);
  std::size_t failures = 0;
  for (Scheduler* scheduler : std::initializer_list<Scheduler*>{&random, &pct}) {
    for (std::uint64_t seed = 0; seed < 200; ++seed) {
      const auto a = run_scheduled(m, *scheduler, seed);
      const auto b = run_scheduled(m, *scheduler, seed);
      ASSERT_EQ(a.schedule, b.schedule) << scheduler->name() << " seed " << seed;
      ASSERT_EQ(a.verdict, b.verdict);
      EXPECT_EQ(replay_schedule(m, a.schedule).kind, a.verdict) << scheduler->name() << " seed " << seed;
      failures += a.verdict != Verdict::kSafeAndDeadlockFree;
    }
  }
  EXPECT_GT(failures, 0u);  // the scenario does deadlock, and the schedulers find it
}

// --- fewest preemptions ------------------------------------------------------------

// Iterative context bounding (CHESS): every schedule with at most c
// preemptions, for c = 0, 1, ..., max, without state caching; the least
// (preemptions, steps) of a failing one.
std::optional<std::pair<std::size_t, std::size_t>> bounded_fewest(const StepMachine& m, std::size_t max) {
  for (std::size_t bound = 0; bound <= max; ++bound) {
    std::optional<std::size_t> shortest;
    std::vector<std::uint32_t> path;
    std::function<void(const StepMachine::State&, std::size_t)> go = [&](const StepMachine::State& s,
                                                                          std::size_t used) {
      if (shortest && path.size() >= *shortest) return;
      if (m.stuck(s)) {
        shortest = path.size();
        return;
      }
      for (std::uint32_t t = 0; t < m.task_count(); ++t) {
        if (!m.enabled(s, t)) continue;
        const std::size_t cost = used + (!path.empty() && path.back() != t && m.enabled(s, path.back()) ? 1 : 0);
        if (cost > bound) continue;
        StepMachine::State child = s;
        const auto effect = m.apply(child, t);
        path.push_back(t);
        if (m.violation(child, effect)) {
          if (!shortest || path.size() < *shortest) shortest = path.size();
        } else {
          go(child, cost);
        }
        path.pop_back();
      }
    };
    go(m.initial(), 0);
    if (shortest) return std::pair{bound, *shortest};
  }
  return std::nullopt;
}

RC_GTEST_PROP(FewestPreemptions, AgreesWithIterativeContextBounding, ()) {
  const auto op = testing::gen_small_operation();
  Scenario scenario;
  const int tasks = *rc::gen::inRange(2, 4);
  for (int t = 0; t < tasks; ++t) {
    std::vector<model::Operation> requests{*op};
    if (tasks == 2 && *rc::gen::arbitrary<bool>()) requests.push_back(*op);  // bounds the enumeration
    scenario.tasks.emplace_back(requests.begin(), requests.end());
  }
  const int which = *rc::gen::inRange(0, 3);
  const Scheme s = which == 0   ? testing::request_order_variant()
                   : which == 1 ? testing::depth_only_variant()
                                : *impl::find_builtin_scheme("path-rwa");
  const SchemePlanner planner(s);
  const StepMachine m(planner, scenario);
  constexpr std::size_t kMaxBound = 3;
  const auto expected = bounded_fewest(m, kMaxBound);
  const auto schedule = fewest_preemptions_failure(m, 1'000'000);
  if (!expected) {
    // RC_ASSERT decomposes its expression and would not short-circuit `||`.
    const bool beyond_the_bound = !schedule || count_preemptions(m, *schedule) > kMaxBound;
    RC_ASSERT(beyond_the_bound);
    return;
  }
  RC_ASSERT(schedule.has_value());
  RC_ASSERT(count_preemptions(m, *schedule) == expected->first);
  RC_ASSERT(schedule->size() == expected->second);
  RC_ASSERT(replay_schedule(m, *schedule).kind != Verdict::kSafeAndDeadlockFree);
  RC_CLASSIFY(expected->first >= 2, "needs 2+ preemptions");
}

TEST(FewestPreemptions, CanBeFewerThanTheShortestTraceHas) {
  // Found by a search over random scenarios: breadth-first search's shortest
  // deadlock here switches tasks three times; one switch suffices.
  const Scheme s = testing::request_order_variant();
  const SchemePlanner planner(s);
  const Scenario scenario = scenario_of({{"copy /ab/ab /a"}, {"copy /a /a/ab/ab"}, {"rename /a/a /ab/ab", "rename /ab /"}});
  const StepMachine m(planner, scenario);
  const auto shortest = explore(planner, scenario).counterexample;
  ASSERT_TRUE(shortest.has_value());
  const auto fewest = fewest_preemptions_failure(m, 1'000'000);
  ASSERT_TRUE(fewest.has_value());
  const auto expected = bounded_fewest(m, 3);
  ASSERT_TRUE(expected.has_value());
  EXPECT_EQ(count_preemptions(m, *fewest), expected->first);
  EXPECT_EQ(fewest->size(), expected->second);
  EXPECT_LT(count_preemptions(m, *fewest), count_preemptions(m, shortest->schedule));
  EXPECT_EQ(replay_schedule(m, *fewest).kind, Verdict::kDeadlock);
}

}  // namespace
}  // namespace pathlock::sim
