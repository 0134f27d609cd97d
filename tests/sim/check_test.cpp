// pathlock check and its parts: the schedulers (random, PCT), the
// fewest-preemption search, the shrinker, and the verdicts on the correct
// schemes and on the broken variants issue 4 names.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <functional>

#include "pathlock/model/error.hpp"
#include "pathlock/sim/check.hpp"
#include "pathlock/sim/scheduler.hpp"
#include "pathlock/sim/schedulers/pct_scheduler.hpp"
#include "pathlock/sim/schedulers/random_scheduler.hpp"
#include "pathlock/sim/shrink.hpp"
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

// Small enough for tests, large enough to find every flaw below.
CheckOptions quick() {
  CheckOptions o;
  o.family = FamilySize::kQuick;
  o.campaign_scenarios = 6;
  o.runs_per_scenario = 20;
  return o;
}

Verdict replayed(const Scheme& scheme, const Scenario& scenario, const std::vector<std::uint32_t>& schedule) {
  const SchemePlanner planner(scheme);
  const StepMachine m(planner, scenario);
  return replay_schedule(m, schedule).kind;
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
    scenario.tasks.push_back(std::move(requests));
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

// --- shrinking ---------------------------------------------------------------------

TEST(Shrink, KeepsOnlyTheTasksAndRequestsTheFailureNeedsAndIsOneMinimalOrSaysWhyNot) {
  const Scheme s = testing::request_order_variant();
  const SchemePlanner planner(s);
  const auto deadlocks = [&](const Scenario& c) {
    ExploreOptions o;
    o.count_naive = false;
    o.shortest_counterexample = false;
    return explore(planner, c, o).verdict == Verdict::kDeadlock;
  };
  const Scenario big = scenario_of({{"read /c", "copy /a/x /b/y"}, {"write /d"}, {"copy /b/y /a/x", "read /e"},
                                    {"read /e"}});
  ASSERT_TRUE(deadlocks(big));
  const auto shrunk = shrink_scenario(big, deadlocks);
  EXPECT_TRUE(deadlocks(shrunk.scenario));
  EXPECT_EQ(shrunk.scenario.tasks.size(), 2u);
  for (const auto& task : shrunk.scenario.tasks) EXPECT_EQ(task.size(), 1u);
  // Paths shrink toward the root (never to it): /a/x becomes /a.
  EXPECT_EQ(shrunk.scenario.tasks[0][0].to_string(), "copy(/a, /b)");
  // 1-minimal: no single shrinking step of the result still fails.
  auto candidates = scenario_shrinks(shrunk.scenario);
  std::size_t tried = 0;
  while (auto c = candidates.next()) {
    ++tried;
    EXPECT_FALSE(deadlocks(*c)) << to_json(*c).dump();
  }
  EXPECT_GT(tried, 0u);
  EXPECT_EQ(shrunk.stop, ShrinkStop::kOneMinimal);
  EXPECT_EQ(shrunk.final_candidates, tried);
  // Cut short by the try limit, it says so.
  const auto cut = shrink_scenario(big, deadlocks, 2);
  EXPECT_EQ(cut.stop, ShrinkStop::kTryLimit);
  EXPECT_EQ(cut.tried, 2u);
  EXPECT_EQ(cut.final_candidates, 0u);
}

// --- check verdicts ----------------------------------------------------------------

TEST(Check, PassesEveryCorrectBuiltInSchemeAndAnotherStrictTotalOrder) {
  std::vector<Scheme> schemes;
  for (const char* name : {"global-mutex", "global-rw", "path-rw", "path-rwa-joined"}) {
    schemes.push_back(*impl::find_builtin_scheme(name));
  }
  schemes.push_back(impl::path_rwa_joined_scheme().with_order(impl::LockOrder::deepest_first(), "deepest-first"));
  for (const auto& s : schemes) {
    const auto r = check_scheme(s, quick());
    EXPECT_EQ(r.verdict, CheckVerdict::kPass) << s.name() << ": " << (r.findings.empty() ? "" : r.findings[0]);
    EXPECT_FALSE(r.counterexample.has_value()) << s.name();
    std::uint64_t explored = 0;
    for (const auto& p : r.family) explored += p.scenarios;
    EXPECT_EQ(explored, scenario_family(FamilySize::kQuick).size());
    for (const auto& c : r.campaigns) EXPECT_EQ(c.runs, 6u * 20u) << c.scheduler;
  }
}

void expect_minimal_deadlock(const Scheme& s, std::size_t tasks, std::size_t preemptions) {
  const auto r = check_scheme(s, quick());
  ASSERT_EQ(r.verdict, CheckVerdict::kFail) << s.name();
  ASSERT_TRUE(r.counterexample.has_value());
  const auto& c = *r.counterexample;
  EXPECT_EQ(c.trace.kind, Verdict::kDeadlock) << c.trace.summary;
  EXPECT_EQ(c.scenario.tasks.size(), tasks) << to_json(c.scenario).dump();
  for (const auto& task : c.scenario.tasks) EXPECT_EQ(task.size(), 1u) << to_json(c.scenario).dump();
  EXPECT_EQ(c.preemptions, preemptions);
  EXPECT_FALSE(c.trace.cycle.empty());
  EXPECT_EQ(replayed(s, c.scenario, c.trace.schedule), Verdict::kDeadlock);
}

TEST(Check, RejectsAcquisitionInRequestOrderWithATwoTaskDeadlock) {
  expect_minimal_deadlock(testing::request_order_variant(), 2, 1);
}

TEST(Check, RejectsAnOrderThatIsNotTotal) { expect_minimal_deadlock(testing::depth_only_variant(), 2, 1); }

TEST(Check, RejectsPerRoleAcquisitionWithoutJoiningWithASelfDeadlock) {
  expect_minimal_deadlock(testing::per_role_variant(), 1, 0);
}

TEST(Check, RejectsSeed000Scheme4AsWrittenWithATwoTaskViolation) {
  const auto r = check_scheme(*impl::find_builtin_scheme("path-rwa"), quick());
  ASSERT_EQ(r.verdict, CheckVerdict::kFail);
  EXPECT_GT(r.statics.unsafe_pairs, 0u);
  ASSERT_TRUE(r.counterexample.has_value());
  const auto& c = *r.counterexample;
  EXPECT_EQ(c.trace.kind, Verdict::kSafetyViolation);
  EXPECT_EQ(c.scenario.tasks.size(), 2u);
  // The flaw: a request that reads a proper ancestor of a path the other writes.
  EXPECT_EQ(replayed(*impl::find_builtin_scheme("path-rwa"), c.scenario, c.trace.schedule), Verdict::kSafetyViolation);
  EXPECT_EQ(replayed(*impl::find_builtin_scheme("path-rwa-joined"), c.scenario, c.trace.schedule),
            Verdict::kSafeAndDeadlockFree);
}

TEST(Check, ACampaignFailureIsShrunkAndItsScheduleHasFewerPreemptions) {
  CheckOptions o = quick();
  o.family = FamilySize::kNone;  // only the campaigns can find it
  o.campaign_scenarios = 20;
  const auto r = check_scheme(testing::request_order_variant(), o);
  ASSERT_EQ(r.verdict, CheckVerdict::kFail);
  ASSERT_TRUE(r.counterexample.has_value());
  const auto& c = *r.counterexample;
  EXPECT_NE(c.found_by.find("campaign"), std::string::npos) << c.found_by;
  EXPECT_GE(c.original.tasks.size(), 3u);
  EXPECT_EQ(c.scenario.tasks.size(), 2u) << to_json(c.scenario).dump();
  ASSERT_TRUE(c.original_preemptions.has_value());
  EXPECT_LE(c.preemptions, *c.original_preemptions);
  EXPECT_EQ(c.preemptions, 1u);
}

TEST(Check, IsDeterministicForASeed) {
  CheckOptions o = quick();
  o.family = FamilySize::kNone;
  const auto a = check_scheme(testing::request_order_variant(), o);
  const auto b = check_scheme(testing::request_order_variant(), o);
  ASSERT_EQ(a.campaigns.size(), b.campaigns.size());
  for (std::size_t i = 0; i < a.campaigns.size(); ++i) EXPECT_EQ(a.campaigns[i].failing_runs, b.campaigns[i].failing_runs);
  ASSERT_TRUE(a.counterexample && b.counterexample);
  EXPECT_EQ(a.counterexample->trace.schedule, b.counterexample->trace.schedule);
  o.seed = 2;
  const auto c = check_scheme(testing::request_order_variant(), o);
  EXPECT_NE(to_json(c.campaign_scenarios[0]).dump(), to_json(a.campaign_scenarios[0]).dump());
}

TEST(Check, IsInconclusiveWithoutEvidenceWithPower) {
  CheckOptions o = quick();
  o.family = FamilySize::kNone;
  o.campaign_scenarios = 0;
  o.runs_per_scenario = 0;
  // A scheme known to deadlock: no evidence means no pass, not a pass.
  const auto none = check_scheme(testing::request_order_variant(), o);
  EXPECT_EQ(none.verdict, CheckVerdict::kInconclusive);
  EXPECT_EQ(none.static_status, EvidenceStatus::kPass);  // safety of pairs alone is no pass
  for (const auto& p : none.family) EXPECT_EQ(p.status, EvidenceStatus::kNoPower);
  for (const auto& c : none.campaigns) EXPECT_EQ(c.status, EvidenceStatus::kNoPower) << c.scheduler;
  // A few runs of a correct scheme: weak, still no pass.
  o.campaign_scenarios = 2;
  o.runs_per_scenario = kMinRandomRunsPerScenario - 1;
  const auto weak = check_scheme(impl::path_rwa_joined_scheme(), o);
  EXPECT_EQ(weak.verdict, CheckVerdict::kInconclusive);
  for (const auto& c : weak.campaigns) {
    EXPECT_EQ(c.status, EvidenceStatus::kWeak) << c.scheduler;
    if (c.depth) {
      EXPECT_GT(c.worst_miss, kWeakMissBound) << c.scheduler;
    }
  }
  // Enough runs for random and for PCT at depth 1 (bound 1/n): a pass.
  o.runs_per_scenario = kMinRandomRunsPerScenario;
  o.pct_depths = {1, 3};
  const auto enough = check_scheme(impl::path_rwa_joined_scheme(), o);
  EXPECT_EQ(enough.verdict, CheckVerdict::kPass);
  EXPECT_EQ(enough.campaigns[0].status, EvidenceStatus::kPass);
  EXPECT_EQ(enough.campaigns[1].status, EvidenceStatus::kPass);
  EXPECT_LE(enough.campaigns[1].worst_miss, kWeakMissBound);
  EXPECT_EQ(enough.campaigns[2].status, EvidenceStatus::kWeak);  // depth 3 over these runs
}

TEST(Check, AFailureFoundWithLittlePowerIsStillAFailure) {
  CheckOptions o = quick();
  o.family = FamilySize::kNone;
  o.campaign_scenarios = 20;
  o.runs_per_scenario = 5;  // weak, but a deadlock found is found
  const auto r = check_scheme(testing::request_order_variant(), o);
  EXPECT_EQ(r.verdict, CheckVerdict::kFail);
  ASSERT_TRUE(r.counterexample.has_value());
  const bool some_row_failed = std::any_of(r.campaigns.begin(), r.campaigns.end(),
                                           [](const auto& c) { return c.status == EvidenceStatus::kFail; });
  EXPECT_TRUE(some_row_failed);
}

TEST(Check, TheCounterexampleSaysItIsOneMinimal) {
  const auto r = check_scheme(testing::request_order_variant(), quick());
  ASSERT_TRUE(r.counterexample.has_value());
  const auto& c = *r.counterexample;
  EXPECT_EQ(c.shrink_stop, ShrinkStop::kOneMinimal);
  std::size_t candidates = 0;
  for (auto seq = scenario_shrinks(c.scenario); seq.next();) ++candidates;
  EXPECT_EQ(c.final_candidates, candidates);
  EXPECT_LT(c.shrink_tried, c.shrink_limit);
}

TEST(Check, RejectsOptionsOutOfRange) {
  const auto rejects = [](void (*edit)(CheckOptions&), const char* needle) {
    CheckOptions o = quick();
    edit(o);
    try {
      validate(o);
      ADD_FAILURE() << "accepted: " << needle;
    } catch (const model::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  rejects([](CheckOptions& o) { o.pct_depths = {0}; }, "PCT depth 0");
  rejects([](CheckOptions& o) { o.campaign.min_tasks = 5, o.campaign.max_tasks = 2; }, "campaign tasks 5..2");
  rejects([](CheckOptions& o) { o.campaign.max_requests = 0; }, "requests per task 0");
  rejects([](CheckOptions& o) { o.max_states = 0; }, "state limit");
  rejects([](CheckOptions& o) { o.jobs = kMaxCheckJobs + 1; }, "jobs");
}

TEST(Family, IsSmallestFirstAndCoversCopiesIntoAndOutOfTheirOwnSubtree) {
  const auto family = scenario_family(FamilySize::kFull);
  std::size_t last_tasks = 1;
  bool into = false;
  bool out_of = false;
  for (const auto& f : family) {
    EXPECT_GE(f.scenario.tasks.size(), last_tasks);
    last_tasks = f.scenario.tasks.size();
    EXPECT_NO_THROW(validate(f.scenario));
    for (const auto& task : f.scenario.tasks) {
      for (const auto& op : task) {
        if (op.kind != model::OpKind::kCopy || !op.target) continue;
        into = into || op.source.is_proper_ancestor_of(*op.target);
        out_of = out_of || op.target->is_proper_ancestor_of(op.source);
      }
    }
  }
  EXPECT_TRUE(into);
  EXPECT_TRUE(out_of);
  EXPECT_EQ(last_tasks, 3u);
  EXPECT_TRUE(scenario_family(FamilySize::kNone).empty());
}

}  // namespace
}  // namespace pathlock::sim
