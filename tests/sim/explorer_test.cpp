// The model checker: verdicts on correct schemes and on deliberately broken
// variants, counterexamples that replay, and reductions that change counts
// but never verdicts.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "pathlock/io/scheme_file.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/sim/explorer.hpp"
#include "support/generators.hpp"
#include "support/scenarios.hpp"

namespace pathlock::sim {
namespace {

using impl::Scheme;
using impl::SchemeSpec;
using model::Path;
using testing::scenario_of;
using testing::scheme_variant;

ExploreResult run(const Scheme& scheme, const Scenario& scenario, ExploreOptions options = {}) {
  const SchemePlanner planner(scheme);
  return explore(planner, scenario, options);
}

const Scenario& opposite_copies() {
  static const Scenario s = scenario_of({{"copy /a /b"}, {"copy /b /a"}});
  return s;
}

TEST(Explorer, CorrectSchemesAreSafeAndDeadlockFree) {
  const auto family = {opposite_copies(), scenario_of({{"copy /a /a/b"}, {"write /a/c"}}),
                       scenario_of({{"write /a/x", "read /a"}, {"rename /a/x /b"}, {"copy /a /a/z"}}),
                       scenario_of({{"rename /a /b/c"}, {"rename /b /a/c"}, {"read /"}})};
  for (const auto* scheme : impl::builtin_schemes()) {
    if (scheme->name() == "path-rwa") continue;  // unsafe as written: below
    for (const auto& scenario : family) {
      const auto r = run(*scheme, scenario);
      EXPECT_EQ(r.verdict, Verdict::kSafeAndDeadlockFree) << scheme->name();
      EXPECT_FALSE(r.counterexample.has_value());
      EXPECT_GT(r.states, 1u);
    }
  }
}

TEST(Explorer, DesignNotesScheme4AsWrittenLetsACopyIntoItsSubtreeRunBesideAWrite) {
  const auto r = run(impl::path_rwa_scheme(), scenario_of({{"copy /a /a/b"}, {"write /a/c"}}));
  ASSERT_EQ(r.verdict, Verdict::kSafetyViolation);
  ASSERT_TRUE(r.counterexample.has_value());
  EXPECT_EQ(r.counterexample->kind, Verdict::kSafetyViolation);
  EXPECT_EQ(r.counterexample->trace.size(), 6u);  // the shortest: both plans, 3 steps each
  // The corrected variant is safe on the same scenario.
  EXPECT_EQ(run(impl::path_rwa_joined_scheme(), scenario_of({{"copy /a /a/b"}, {"write /a/c"}})).verdict,
            Verdict::kSafeAndDeadlockFree);
}

TEST(Explorer, AcquisitionInRequestOrderDeadlocks) {
  const Scheme s = scheme_variant(impl::path_rwa_joined_scheme(),
                                  [](SchemeSpec& spec) { spec.acquisition = impl::Acquisition::kRequestOrder; }, "req");
  const auto r = run(s, opposite_copies());
  ASSERT_EQ(r.verdict, Verdict::kDeadlock);
  ASSERT_TRUE(r.counterexample.has_value());
  EXPECT_EQ(r.counterexample->cycle.size(), 2u);
  EXPECT_NE(r.counterexample->dot.find("->"), std::string::npos);
  // Each task takes / and its read path, then queues for its write path: 6 steps.
  EXPECT_EQ(r.counterexample->trace.size(), 6u);
}

TEST(Explorer, AnOrderThatIsNotTotalDeadlocks) {
  const Scheme s = testing::depth_only_variant();
  const auto r = run(s, opposite_copies());
  EXPECT_EQ(r.verdict, Verdict::kDeadlock);
}

TEST(Explorer, PerRoleAcquisitionWithoutJoiningWaitsForItself) {
  const Scheme s = scheme_variant(impl::path_rwa_joined_scheme(),
                                  [](SchemeSpec& spec) { spec.joining = impl::ModeJoining::kPerRole; }, "per-role");
  const auto r = run(s, scenario_of({{"copy /a /a/b"}}));
  ASSERT_EQ(r.verdict, Verdict::kDeadlock);
  ASSERT_TRUE(r.counterexample.has_value());
  EXPECT_EQ(r.counterexample->cycle.size(), 1u);  // a self-loop: R(/a) held, WA(/a) wanted
}

TEST(Explorer, AnotherStrictTotalOrderIsAccepted) {
  for (const auto* order : impl::LockOrder::builtins()) {
    if (order->totality() != impl::Totality::kStrictTotal) continue;
    const Scheme s = impl::path_rwa_joined_scheme().with_order(*order, "reordered");
    for (const auto& scenario : {opposite_copies(), scenario_of({{"rename /a /b/c"}, {"rename /b /a/c"}})}) {
      EXPECT_EQ(run(s, scenario).verdict, Verdict::kSafeAndDeadlockFree) << order->name();
    }
  }
}

TEST(Explorer, CounterexamplesReplay) {
  const Scheme s = scheme_variant(impl::path_rwa_joined_scheme(),
                                  [](SchemeSpec& spec) { spec.acquisition = impl::Acquisition::kRequestOrder; }, "req");
  const SchemePlanner planner(s);
  const auto r = explore(planner, opposite_copies());
  ASSERT_TRUE(r.counterexample.has_value());
  const StepMachine m(planner, opposite_copies());
  const auto again = replay_schedule(m, r.counterexample->schedule);
  EXPECT_EQ(again.kind, Verdict::kDeadlock);
  EXPECT_EQ(again.summary, r.counterexample->summary);
}

TEST(Explorer, NaiveCountsOfTwoIndependentTasks) {
  // Two one-lock tasks on unrelated paths under global-rw's S: each task has
  // 2 steps (acquire, release), and S is shared, so every one of the C(4,2)
  // = 6 interleavings completes.
  const auto r = run(impl::global_rw_scheme(), scenario_of({{"read /a"}, {"read /b"}}),
                     ExploreOptions{.symmetry = false});
  ASSERT_TRUE(r.naive_interleavings.has_value());
  EXPECT_EQ(static_cast<int>(*r.naive_interleavings), 6);
  EXPECT_EQ(*r.naive_states, 9u);  // (0..2) x (0..2) steps taken
  // Sleep sets: every state still visited, fewer transitions.
  EXPECT_EQ(r.states, 9u);
  EXPECT_LT(r.transitions, *r.naive_transitions);
}

// Reductions never change a verdict; sleep sets never change the state count.
RC_GTEST_PROP(ExplorerProps, ReductionsPreserveVerdicts, ()) {
  const auto ops = *rc::gen::container<std::vector<model::Operation>>(
      *rc::gen::inRange<std::size_t>(2, 4), testing::gen_small_operation());
  Scenario s;
  for (const auto& op : ops) s.tasks.push_back({op});
  const std::vector<const impl::Scheme*> schemes{&impl::path_rwa_joined_scheme(), &impl::path_rwa_scheme(),
                                                 &impl::global_rw_scheme()};
  const auto& scheme = **rc::gen::elementOf(schemes);
  const auto full = run(scheme, s, ExploreOptions{.partial_order_reduction = false, .symmetry = false});
  const auto por = run(scheme, s, ExploreOptions{.partial_order_reduction = true, .symmetry = false});
  const auto both = run(scheme, s, ExploreOptions{});
  RC_ASSERT(full.verdict == por.verdict);
  RC_ASSERT(full.verdict == both.verdict);
  if (full.verdict == Verdict::kSafeAndDeadlockFree) {
    RC_ASSERT(por.states == full.states);
    RC_ASSERT(both.states <= full.states);
    RC_ASSERT(full.states == *full.naive_states);
  }
  // The verdict agrees with the static check for two single-request tasks.
  if (s.tasks.size() == 2 && scheme.name() != "path-rwa") RC_ASSERT(full.verdict == Verdict::kSafeAndDeadlockFree);
}

TEST(Scenario, BadFilesAreRejectedWithTheField) {
  const auto error_of = [](const std::string& text) {
    try {
      parse_scenario(text, "s.json", ".");
    } catch (const model::InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(error_of(R"({"tasks": [["copy /a"]]})").find("tasks[0][0]"), std::string::npos);
  EXPECT_NE(error_of(R"({"tasks": [["move /a /b"]]})").find("unknown operation"), std::string::npos);
  EXPECT_NE(error_of(R"({"tasks": [["read a//b"]]})").find("tasks[0][0]"), std::string::npos);
  EXPECT_NE(error_of(R"({"tasks": []})").find("1 to"), std::string::npos);
  EXPECT_NE(error_of(R"({"tasks": [[]]})").find("task 0"), std::string::npos);
  EXPECT_NE(error_of(R"({"tasks": [["read /a"]], "sheme": "x"})").find("unknown field"), std::string::npos);
  EXPECT_NE(error_of(R"({"tasks": [["read /a"]], "scheme": "x", "scheme_file": "y"})").find("not both"),
            std::string::npos);
  EXPECT_NE(error_of("{").find("not valid JSON"), std::string::npos);
  EXPECT_EQ(error_of(R"({"tasks": [["read /a", "copy /a /b"], ["write /"]]})"), "accepted");
}

TEST(Scenario, RoundTripsThroughJson) {
  const Scenario s = scenario_of({{"copy /a /b", "read /"}, {"delete /a/b"}});
  const Scenario back = parse_scenario(to_json(s).dump(), "round trip", ".");
  EXPECT_EQ(back.tasks, s.tasks);
}

}  // namespace
}  // namespace pathlock::sim
