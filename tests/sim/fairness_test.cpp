// Fairness: a scheme's promise about overtaking (impl::Fairness), carried by
// scheme files, and judged by the step machine on its own record of arrival
// order. The judgement is shown independent of LockQueue's bookkeeping by
// editing a queue behind the machine's back (a barging queue, as a bug in
// LockQueue would make it); the checkers' tests below pass on the FIFO queue
// and fail when LockQueue::acquire ignores its waiters.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <optional>

#include "pathlock/io/scheme_file.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/sim/campaign.hpp"
#include "pathlock/sim/check.hpp"
#include "pathlock/sim/core/properties.hpp"
#include "pathlock/sim/explorer.hpp"
#include "pathlock/sim/simulator.hpp"

namespace pathlock::sim {
namespace {

Scenario parse(const std::string& text) { return parse_scenario(text, "test", "."); }

// global-rw with another fairness promise.
impl::Scheme global_rw_promising(impl::Fairness fairness, std::uint32_t bound) {
  impl::SchemeSpec spec = impl::global_rw_scheme().spec();
  spec.name = "global-rw-promising";
  spec.fairness = fairness;
  spec.bypass_bound = bound;
  return impl::Scheme(std::move(spec));
}

// --- the promise in a scheme's definition ----------------------------------------

TEST(Fairness, EveryBuiltinSchemePromisesFifo) {
  for (const auto* s : impl::builtin_schemes()) {
    EXPECT_EQ(s->fairness(), impl::Fairness::kFifo) << s->name();
    EXPECT_EQ(s->bypass_bound(), 0U) << s->name();
    EXPECT_EQ(s->fairness_text(), "FIFO");
  }
}

TEST(Fairness, ASchemeFileCarriesItsPromiseAndExportsIt) {
  nlohmann::json j = io::scheme_to_json(impl::global_rw_scheme());
  EXPECT_EQ(j["fairness"], nlohmann::json({{"promise", "fifo"}}));
  j.erase("fairness");  // optional: FIFO by default
  EXPECT_EQ(io::scheme_from_json(j, "f.json").fairness(), impl::Fairness::kFifo);
  j["fairness"] = {{"promise", "bounded-bypass"}, {"bound", 3}};
  const impl::Scheme bounded = io::scheme_from_json(j, "f.json");
  EXPECT_EQ(bounded.fairness(), impl::Fairness::kBoundedBypass);
  EXPECT_EQ(bounded.bypass_bound(), 3U);
  EXPECT_EQ(bounded.fairness_text(), "bounded bypass (at most 3 overtakes per wait)");
  EXPECT_EQ(io::scheme_to_json(bounded)["fairness"], j["fairness"]);
  j["fairness"] = {{"promise", "none"}};
  EXPECT_EQ(io::scheme_from_json(j, "f.json").fairness(), impl::Fairness::kNone);
}

TEST(Fairness, ABadPromiseIsRejectedNamingTheFieldAndTheLimit) {
  const auto error_of = [](const nlohmann::json& fairness) {
    nlohmann::json j = io::scheme_to_json(impl::global_rw_scheme());
    j["fairness"] = fairness;
    try {
      io::scheme_from_json(j, "f.json");
    } catch (const model::InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(error_of({{"promise", "fair-ish"}}).find("fairness.promise"), std::string::npos);
  EXPECT_NE(error_of({{"bound", 2}}).find("fairness.promise: is missing"), std::string::npos);
  EXPECT_NE(error_of({{"promise", "bounded-bypass"}}).find("fairness.bound: is missing"), std::string::npos);
  EXPECT_NE(error_of({{"promise", "bounded-bypass"}, {"bound", 0}}).find("out of range [1, 100]"), std::string::npos);
  EXPECT_NE(error_of({{"promise", "bounded-bypass"}, {"bound", impl::kMaxBypassBound + 1}}).find("[1, 100]"),
            std::string::npos);
  EXPECT_NE(error_of({{"promise", "fifo"}, {"bound", 2}}).find("fairness.bound: goes only with"), std::string::npos);
  EXPECT_NE(error_of({{"promise", "fifo"}, {"extra", 1}}).find("unknown field"), std::string::npos);
  EXPECT_NE(error_of("fifo").find("fairness"), std::string::npos);
  // The same invariant when a spec is built in code.
  EXPECT_THROW(global_rw_promising(impl::Fairness::kBoundedBypass, 0), model::InputError);
  EXPECT_THROW(global_rw_promising(impl::Fairness::kFifo, 1), model::InputError);
}

// --- the step machine's own judgement ----------------------------------------------

// T0 reads, T1's write queues behind it, then T2 and T3 read. Returns the
// state after T0 holds and T1 waits.
struct ReadersAndAWriter {
  explicit ReadersAndAWriter(const impl::Scheme& scheme)
      : planner(scheme), m(planner, parse(R"({"tasks": [["read /a"], ["write /a"], ["read /a"], ["read /a"]]})")),
        s(m.initial()) {
    m.apply(s, 0);
    EXPECT_EQ(m.apply(s, 1).outcome, StepMachine::StepOutcome::kQueued);
  }
  // What a barging queue does: forgets its waiter, so the next reader is
  // granted. The machine's own arrival record still has T1 waiting.
  void barge() {
    std::vector<impl::LockEntry> granted;
    ASSERT_TRUE(s.locks[0].cancel(m.scheme(), request_id(1, 0), granted));
  }
  SchemePlanner planner;
  StepMachine m;
  StepMachine::State s;
};

TEST(FairnessJudgement, OnTheFifoQueueALaterReaderQueuesAndNothingOvertakes) {
  ReadersAndAWriter run(impl::global_rw_scheme());
  const auto e = run.m.apply(run.s, 2);
  EXPECT_EQ(e.outcome, StepMachine::StepOutcome::kQueued);
  EXPECT_TRUE(e.overtakes.empty());
  EXPECT_EQ(run.s.arrivals.size(), 2U);
}

TEST(FairnessJudgement, AGrantPastAnEarlierIncompatibleWaiterIsAnOvertakeWhateverTheQueueSays) {
  ReadersAndAWriter run(impl::global_rw_scheme());
  run.barge();
  const auto e = run.m.apply(run.s, 2);
  EXPECT_EQ(e.outcome, StepMachine::StepOutcome::kGranted);
  ASSERT_EQ(e.overtakes.size(), 1U);
  const auto& o = e.overtakes.front();
  EXPECT_EQ(o.lock, 0U);
  EXPECT_EQ(o.waiter, 1U);
  EXPECT_EQ(o.by, 2U);
  EXPECT_EQ(run.m.scheme().mode_name(o.waiter_mode), "X");
  EXPECT_EQ(run.m.scheme().mode_name(o.by_mode), "S");
  EXPECT_EQ(o.count, 1U);
  EXPECT_EQ(step_failure(run.m, run.s, e), Verdict::kUnfairOvertake);
}

TEST(FairnessJudgement, AGrantFromTheQueuePastAnEarlierWaiterIsAnOvertake) {
  // T0 holds X; T1 queues X, T2 queues S behind it. The queue is then
  // reordered behind the machine's back (T1 withdrawn and queued again, now
  // last), so T0's release grants T2 while T1, earlier by the machine's
  // record, still waits.
  const SchemePlanner planner(impl::global_rw_scheme());
  const StepMachine m(planner, parse(R"({"tasks": [["write /a"], ["write /a"], ["read /a"]]})"));
  auto s = m.initial();
  m.apply(s, 0);
  ASSERT_EQ(m.apply(s, 1).outcome, StepMachine::StepOutcome::kQueued);
  ASSERT_EQ(m.apply(s, 2).outcome, StepMachine::StepOutcome::kQueued);
  std::vector<impl::LockEntry> granted;
  ASSERT_TRUE(s.locks[0].cancel(m.scheme(), request_id(1, 0), granted));
  ASSERT_TRUE(granted.empty());
  ASSERT_EQ(s.locks[0].acquire(m.scheme(), request_id(1, 0), m.next_action(s, 1).mode), impl::AcquireOutcome::kQueued);
  const auto e = m.apply(s, 0);  // T0 releases
  EXPECT_EQ(e.granted, std::vector<std::uint32_t>{2});
  ASSERT_EQ(e.overtakes.size(), 1U);
  EXPECT_EQ(e.overtakes.front().waiter, 1U);
  EXPECT_EQ(e.overtakes.front().by, 2U);
  EXPECT_EQ(step_failure(m, s, e), Verdict::kUnfairOvertake);
}

TEST(FairnessJudgement, ABoundedBypassPromiseAllowsItsBoundAndNoMore) {
  const auto scheme = global_rw_promising(impl::Fairness::kBoundedBypass, 1);
  ReadersAndAWriter run(scheme);
  run.barge();
  const auto first = run.m.apply(run.s, 2);
  ASSERT_EQ(first.overtakes.size(), 1U);
  EXPECT_FALSE(step_failure(run.m, run.s, first).has_value());
  const auto second = run.m.apply(run.s, 3);
  ASSERT_EQ(second.overtakes.size(), 1U);
  EXPECT_EQ(second.overtakes.front().count, 2U);
  EXPECT_EQ(step_failure(run.m, run.s, second), Verdict::kUnfairOvertake);
}

TEST(FairnessJudgement, NoPromiseMeasuresOvertakesAndNeverFails) {
  const auto scheme = global_rw_promising(impl::Fairness::kNone, 0);
  ReadersAndAWriter run(scheme);
  run.barge();
  for (std::uint32_t t : {2U, 3U}) {
    const auto e = run.m.apply(run.s, t);
    ASSERT_EQ(e.overtakes.size(), 1U);
    EXPECT_EQ(e.overtakes.front().count, t - 1);  // measured: 1, then 2
    EXPECT_FALSE(step_failure(run.m, run.s, e).has_value());
  }
}

TEST(FairnessJudgement, TheArrivalRecordEntersTheStateKeyNormalised) {
  // Two waiters on two different locks, queued in either order: the stamps
  // differ, the state does not, and neither does its key.
  const SchemePlanner planner(impl::path_rw_scheme());
  const StepMachine m(planner, parse(R"({"tasks": [["write /a"], ["write /b"], ["write /a"], ["write /b"]]})"));
  const auto reach = [&](std::initializer_list<std::uint32_t> schedule) {
    auto s = m.initial();
    for (auto t : schedule) m.apply(s, t);
    return s;
  };
  const auto one = reach({0, 0, 1, 1, 2, 2, 3, 3});
  const auto other = reach({0, 0, 1, 1, 3, 3, 2, 2});
  ASSERT_EQ(one.arrivals.size(), 2U);
  EXPECT_NE(one.arrivals.front().request, other.arrivals.front().request);
  EXPECT_EQ(m.key(one, false), m.key(other, false));
}

TEST(FairnessJudgement, ALaterRequestCompatibleAtTheAncestorIsNoOvertake) {
  // proofs/fairness.md, "Why per lock": T1 write(/a/b) waits at /a; the later
  // T2 read(/a/b) passes /a (RA is compatible with T1's WA: a bypass) and
  // holds its plan first. Per lock, FIFO held.
  const SchemePlanner planner(impl::path_rwa_joined_scheme());
  const StepMachine m(planner, parse(R"({"tasks": [["read /a"], ["write /a/b"], ["read /a/b"]]})"));
  auto s = m.initial();
  for (std::uint32_t t : {0U, 0U, 1U, 1U, 2U, 2U, 2U}) {
    const auto e = m.apply(s, t);
    EXPECT_TRUE(e.overtakes.empty());
    EXPECT_FALSE(step_failure(m, s, e).has_value());
  }
  EXPECT_EQ(s.tasks[1].phase, TaskPhase::kWaiting);
  EXPECT_EQ(s.in_critical.back(), (StepMachine::Holding{2, 0}));
}

// --- the checkers, on the FIFO queue (each fails when LockQueue barges) ------------

TEST(FairnessCheckers, TheExplorerFindsNoOvertakeOfAQueuedWriterUnderAnyBuiltin) {
  const Scenario s = parse(R"({"tasks": [["read /a"], ["write /a"], ["read /a", "read /a/b"]]})");
  for (const auto* scheme : impl::builtin_schemes()) {
    const auto r = explore(SchemePlanner(*scheme), s);
    EXPECT_EQ(r.verdict, Verdict::kSafeAndDeadlockFree) << scheme->name();
    if (r.counterexample) ADD_FAILURE() << r.counterexample->summary;
  }
}

TEST(FairnessCheckers, CheckReportsTheFifoPromiseKept) {
  CheckOptions o;
  o.family = FamilySize::kQuick;
  o.campaign_scenarios = 6;
  o.runs_per_scenario = 20;
  const auto r = check_scheme(impl::global_rw_scheme(), o);
  EXPECT_EQ(r.verdict, CheckVerdict::kPass);
  EXPECT_EQ(fairness_failures(r), 0U);
  std::uint64_t states = 0;
  for (const auto& p : r.family) states += p.states;
  EXPECT_EQ(fairness_line(r), fmt::format("promised: FIFO · checked: no overtake beyond it in {} states and {} runs",
                                          states, 3 * o.campaign_scenarios * o.runs_per_scenario));
}

TEST(FairnessCheckers, TheSimulatorSeesBypassesButNoOvertakeUnderFifo) {
  const auto r = run_campaign(default_campaign());
  for (const auto& sc : r.schemes) {
    for (const auto& p : sc.sweep) {
      EXPECT_NE(p.outcome, RunOutcome::kUnfairOvertake) << sc.scheme->name();
      EXPECT_EQ(p.metrics.overtakes, 0U) << sc.scheme->name();
    }
    EXPECT_EQ(sc.sweep_and_probe.unfair_overtakes, 0U) << sc.scheme->name();
  }
  // Compatible grants past a waiter still happen and are counted as bypasses.
  std::uint64_t bypasses = 0;
  for (const auto& sc : r.schemes) {
    for (const auto& p : sc.sweep) bypasses += p.metrics.bypasses;
  }
  EXPECT_GT(bypasses, 0U);
}

}  // namespace
}  // namespace pathlock::sim
