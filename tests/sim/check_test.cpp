// pathlock check and its parts: the shrinker, the evidence rows' power and
// the verdicts on the correct schemes and on the broken variants (the
// schedulers and the fewest-preemption search: schedulers_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>

#include "pathlock/model/error.hpp"
#include "pathlock/sim/check.hpp"
#include "pathlock/sim/scheduler.hpp"
#include "pathlock/sim/shrink.hpp"
#include "support/scenarios.hpp"

namespace pathlock::sim {
namespace {

using impl::Scheme;
using testing::scenario_of;

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

TEST(Check, RejectsDesignNotesScheme4AsWrittenWithATwoTaskViolation) {
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
