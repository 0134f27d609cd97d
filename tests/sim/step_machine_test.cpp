// The one transition system: withdrawal, try-acquire, nesting and per-task
// orders, each explored exhaustively; the reductions never change a verdict
// on scenarios that use them; the incremental wait-for search agrees with a
// search from every waiter; a whole release segment in one call equals its
// steps.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <optional>

#include "pathlock/model/conflict.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/model/lineage_filter.hpp"
#include "pathlock/sim/core/task_planners.hpp"
#include "pathlock/sim/explorer.hpp"
#include "pathlock/sim/scheduler.hpp"
#include "pathlock/sim/schedulers/random_scheduler.hpp"
#include "support/generators.hpp"
#include "support/scenarios.hpp"

namespace pathlock::sim {
namespace {

Scenario parse(const std::string& text) { return parse_scenario(text, "test", "."); }


ExploreResult explore_with_task_schemes(const impl::Scheme& base, const Scenario& s, ExploreOptions o = {}) {
  const SchemePlanner planner(base);
  const TaskPlanners task_planners(base, s);
  const StepMachine m(planner, s, task_planners.planners());
  return explore(m, o);
}

const impl::Scheme& joined() { return impl::path_rwa_joined_scheme(); }

TEST(StepMachine, AWithdrawnWaiterLetsTheWaiterBehindItIn) {
  // T0 reads /a; T1's write queues behind it; T2's read queues behind T1
  // (FIFO: it is incompatible with the queued write). When T1 withdraws, the
  // queue is scanned again and T2 is granted at once.
  const Scenario s = parse(R"({"tasks": [["read /a"], [{"op": "write /a", "withdraw": "while-waiting"}], ["read /a"]]})");
  const SchemePlanner planner(joined());
  const StepMachine m(planner, s);
  auto state = m.initial();
  // Everyone takes what it can: T0 its two steps, T1 up to its queued W(/a), T2 up to its queued R(/a).
  for (std::uint32_t t : {0U, 0U, 1U, 1U, 2U, 2U}) m.apply(state, t);
  ASSERT_EQ(state.tasks[1].phase, TaskPhase::kWaiting);
  ASSERT_EQ(state.tasks[2].phase, TaskPhase::kWaiting);
  ASSERT_TRUE(m.enabled(state, 1));   // it may give up
  ASSERT_FALSE(m.enabled(state, 2));  // it may not
  const auto effect = m.apply(state, 1);
  EXPECT_EQ(effect.outcome, StepMachine::StepOutcome::kWithdrawn);
  EXPECT_EQ(effect.granted, std::vector<std::uint32_t>{2});
  EXPECT_FALSE(effect.broken_invariant.has_value());
  // T1 still holds WA(/) of its write plan: it rolls that back, then is done.
  EXPECT_EQ(state.tasks[1].phase, TaskPhase::kRollingBack);
  m.apply(state, 1);
  EXPECT_EQ(state.tasks[1].phase, TaskPhase::kDone);
  EXPECT_EQ(state.tasks[1].abandoned, 1U);
}

TEST(StepMachine, WithdrawalIsExploredAtEveryWaitAndStaysSafe) {
  const Scenario s = parse(R"({"tasks": [["write /a/b", "read /a"],
                                         [{"op": "copy /a /c", "withdraw": "while-waiting"}],
                                         [{"op": "write /a", "withdraw": "while-waiting"}]]})");
  for (const auto* scheme : impl::builtin_schemes()) {
    if (scheme->name() == "path-rwa") continue;
    const SchemePlanner planner(*scheme);
    const auto with = explore(planner, s);
    EXPECT_EQ(with.verdict, Verdict::kSafeAndDeadlockFree) << scheme->name();
    // The withdrawals add states: the same tasks without them have fewer.
    Scenario plain = s;
    for (auto& task : plain.tasks) {
      for (auto& r : task) r.withdraw = WithdrawStyle::kNever;
    }
    EXPECT_GT(with.states, explore(planner, plain).states) << scheme->name();
  }
}

TEST(StepMachine, ATryThatWouldQueueIsRefusedAndRolledBack) {
  const Scenario s = parse(R"({"tasks": [["write /a"], [{"op": "write /a/b", "acquire": "try"}]]})");
  const SchemePlanner planner(joined());
  const StepMachine m(planner, s);
  auto state = m.initial();
  m.apply(state, 0);  // WA(/)
  m.apply(state, 0);  // W(/a): T0 holds write(/a)
  m.apply(state, 1);  // WA(/): compatible
  const auto refused = m.apply(state, 1);  // WA(/a) against W(/a): refused, not queued
  EXPECT_EQ(refused.outcome, StepMachine::StepOutcome::kRefused);
  EXPECT_EQ(state.tasks[1].phase, TaskPhase::kRollingBack);
  EXPECT_TRUE(state.locks[m.lock_count() - 2].waiters().empty());
  m.apply(state, 1);  // releases WA(/)
  EXPECT_EQ(state.tasks[1].phase, TaskPhase::kDone);
  EXPECT_EQ(explore(planner, s).verdict, Verdict::kSafeAndDeadlockFree);
}

// The canonical nesting deadlock: a thread holding read(/a/x) asks for
// read(/a/y) while a writer of /a is queued between them. FIFO queues the
// second read behind the writer, which waits for the first read.
constexpr const char* kNestedReads =
    R"({"tasks": [[{"op": "read /a/x", "release": "at-end"}, "read /a/y"], ["write /a"]]})";

TEST(StepMachine, CompatibleNestingBehindAQueuedWriterDeadlocks) {
  for (const char* name : {"path-rw", "path-rwa-joined"}) {
    const SchemePlanner planner(*impl::find_builtin_scheme(name));
    const auto r = explore(planner, parse(kNestedReads));
    ASSERT_EQ(r.verdict, Verdict::kDeadlock) << name;
    ASSERT_TRUE(r.counterexample.has_value());
    EXPECT_EQ(r.counterexample->cycle.size(), 2u) << r.counterexample->summary;
  }
  // Without nesting the same requests are deadlock-free.
  const SchemePlanner planner(joined());
  EXPECT_EQ(explore(planner, parse(R"({"tasks": [["read /a/x", "read /a/y"], ["write /a"]]})")).verdict,
            Verdict::kSafeAndDeadlockFree);
  // Nesting with a try-acquire inside cannot deadlock: the try is refused instead.
  EXPECT_EQ(explore(planner, parse(R"({"tasks": [[{"op": "read /a/x", "release": "at-end"},
                                                   {"op": "read /a/y", "acquire": "try"}], ["write /a"]]})"))
                .verdict,
            Verdict::kSafeAndDeadlockFree);
  // Nor with a withdrawable inner request: the task can give up.
  EXPECT_EQ(explore(planner, parse(R"({"tasks": [[{"op": "read /a/x", "release": "at-end"},
                                                   {"op": "read /a/y", "withdraw": "while-waiting"}], ["write /a"]]})"))
                .verdict,
            Verdict::kSafeAndDeadlockFree);
}

TEST(StepMachine, MixedOrdersOnTwoLineagesDeadlockWithAShortTrace) {
  // Service A locks ancestors first, service B deepest first; each request
  // spans two lineages (/a and /b), which they take in opposite orders.
  const Scenario s = parse(R"({"tasks": [["copy /a /b/x"],
                                         {"order": "deepest-first", "requests": ["copy /b/x /a/q"]}]})");
  const auto r = explore_with_task_schemes(joined(), s);
  ASSERT_EQ(r.verdict, Verdict::kDeadlock);
  ASSERT_TRUE(r.counterexample.has_value());
  EXPECT_EQ(r.counterexample->cycle.size(), 2u);
  // The shortest trace: every step of it is needed (breadth-first search).
  const auto again = explore_with_task_schemes(joined(), s, ExploreOptions{.shortest_counterexample = false});
  ASSERT_TRUE(again.counterexample.has_value());
  EXPECT_LE(r.counterexample->trace.size(), again.counterexample->trace.size());
  // Either order alone is deadlock-free.
  for (const char* order : {"ancestor-first", "deepest-first"}) {
    Scenario same = s;
    for (auto& task : same.tasks) {
      for (auto& req : task) req.scheme.order = order;
    }
    EXPECT_EQ(explore_with_task_schemes(joined(), same).verdict, Verdict::kSafeAndDeadlockFree) << order;
  }
}

TEST(StepMachine, MixedOrdersOnSinglePathRequestsPass) {
  const Scenario s = parse(R"({"tasks": [["write /a", "read /a/b"],
                                         {"order": "deepest-first", "requests": ["read /a/b", "write /a/c"]},
                                         {"order": "deepest-first", "requests": ["delete /a/b/c"]}]})");
  EXPECT_EQ(explore_with_task_schemes(joined(), s).verdict, Verdict::kSafeAndDeadlockFree);
}

TEST(StepMachine, ATaskSchemeWithOtherModesIsRejected) {
  const Scenario s = parse(R"({"tasks": [["write /a"], {"scheme": "global-rw", "requests": ["read /a"]}]})");
  EXPECT_THROW(TaskPlanners(joined(), s), model::InputError);
  const Scenario unknown = parse(R"({"tasks": [["write /a"], {"order": "sideways", "requests": ["read /a"]}]})");
  EXPECT_THROW(TaskPlanners(joined(), unknown), model::InputError);
}

TEST(Scenario, RequestStylesAndTaskSchemesRoundTrip) {
  const Scenario s = parse(kNestedReads);
  EXPECT_EQ(s.tasks[0][0].release, ReleaseStyle::kAtEnd);
  const Scenario styled = parse(R"({"tasks": [[{"op": "read /a", "acquire": "try", "withdraw": "while-waiting"}],
                                              {"order": "deepest-first", "requests": ["write /b"]}]})");
  const Scenario back = parse_scenario(to_json(styled).dump(), "round trip", ".");
  EXPECT_EQ(back.tasks, styled.tasks);
  EXPECT_THROW(parse(R"({"tasks": [[{"op": "read /a", "acquire": "maybe"}]]})"), model::InputError);
  EXPECT_THROW(parse(R"({"tasks": [[{"acquire": "try"}]]})"), model::InputError);
  EXPECT_THROW(parse(R"({"tasks": [{"order": "deepest-first"}]})"), model::InputError);
}

// --- properties -----------------------------------------------------------------

rc::Gen<ScenarioRequest> gen_styled_request() {
  return rc::gen::map(rc::gen::tuple(testing::gen_small_operation(), rc::gen::inRange(0, 6), rc::gen::inRange(0, 5),
                                     rc::gen::inRange(0, 3)),
                      [](const auto& t) {
                        ScenarioRequest r(std::get<0>(t));
                        if (std::get<1>(t) == 0) r.acquire = AcquireStyle::kTry;
                        if (std::get<2>(t) == 0) r.withdraw = WithdrawStyle::kWhileWaiting;
                        if (std::get<3>(t) == 0) r.release = ReleaseStyle::kAtEnd;
                        return r;
                      });
}

// Reductions never change a verdict, on scenarios that reach multi-request
// tasks, nesting, withdrawal and try-acquire, under schemes that deadlock too.
RC_GTEST_PROP(StepMachineProps, ReductionsPreserveVerdictsWithEveryKindOfStep, ()) {
  const auto tasks = *rc::gen::container<std::vector<ScenarioTask>>(
      *rc::gen::inRange<std::size_t>(2, 4),
      rc::gen::container<ScenarioTask>(*rc::gen::inRange<std::size_t>(1, 3), gen_styled_request()));
  Scenario s;
  s.tasks = tasks;
  static const impl::Scheme request_order = testing::request_order_variant();
  static const impl::Scheme per_role = testing::per_role_variant();
  const std::vector<const impl::Scheme*> schemes{&joined(), &impl::path_rwa_scheme(), &impl::global_rw_scheme(),
                                                 &request_order, &per_role};
  const auto& scheme = **rc::gen::elementOf(schemes);
  const SchemePlanner planner(scheme);
  ExploreOptions base;
  base.count_naive = false;
  base.shortest_counterexample = false;
  base.max_states = 200'000;
  ExploreOptions none = base;
  none.partial_order_reduction = false;
  none.symmetry = false;
  ExploreOptions por = base;
  por.symmetry = false;
  const auto full = explore(planner, s, none);
  RC_PRE(full.verdict != Verdict::kIncomplete);
  RC_TAG(to_string(full.verdict));
  const auto reduced_por = explore(planner, s, por);
  const auto both = explore(planner, s, base);
  RC_ASSERT(full.verdict == reduced_por.verdict);
  RC_ASSERT(full.verdict == both.verdict);
  if (full.verdict == Verdict::kSafeAndDeadlockFree) RC_ASSERT(reduced_por.states == full.states);
}

// 2 to 4 tasks of 1 or 2 requests in random styles; inside a property.
Scenario gen_styled_scenario() {
  Scenario s;
  s.tasks = *rc::gen::container<std::vector<ScenarioTask>>(
      *rc::gen::inRange<std::size_t>(2, 5),
      rc::gen::container<ScenarioTask>(*rc::gen::inRange<std::size_t>(1, 3), gen_styled_request()));
  return s;
}

// The scheduler's pick among the tasks enabled in `state`; none if none is.
std::optional<std::uint32_t> pick_enabled(const StepMachine& m, const StepMachine::State& state,
                                          RandomScheduler& scheduler, std::size_t step) {
  std::vector<std::uint32_t> runnable;
  for (std::uint32_t t = 0; t < m.task_count(); ++t) {
    if (m.enabled(state, t)) runnable.push_back(t);
  }
  if (runnable.empty()) return std::nullopt;
  return scheduler.pick(runnable, step);
}

// The incremental search (from the new waiter only) finds a cycle whenever a
// search from every waiter does, on random runs of scenarios that deadlock.
RC_GTEST_PROP(StepMachineProps, IncrementalCycleSearchAgreesWithFullSearch, (std::uint64_t seed)) {
  const Scenario s = gen_styled_scenario();
  static const impl::Scheme request_order = testing::request_order_variant();
  const SchemePlanner planner(request_order);
  const StepMachine m(planner, s);
  RandomScheduler scheduler;
  scheduler.begin(seed, m.task_count(), run_length(m));
  auto state = m.initial();
  bool cycle_seen = false;
  for (std::size_t step = 0;; ++step) {
    const auto picked = pick_enabled(m, state, scheduler, step);
    if (!picked) break;
    const std::uint32_t t = *picked;
    const auto effect = m.apply(state, t);
    if (step_failure(m, state, effect)) break;
    if (effect.outcome != StepMachine::StepOutcome::kQueued) continue;
    const bool through = !m.wait_cycle_through(state, t).empty();
    if (through) RC_ASSERT(m.has_incompatible_waiters(state, t));
    // A new cycle passes through the new waiter; no cycle existed before it.
    RC_ASSERT(through == !m.wait_cycle(state).empty() || cycle_seen);
    cycle_seen = cycle_seen || through;
  }
  RC_TAG(cycle_seen ? "cycle" : "no cycle");
}

// release_segment (a whole request's release in one call, the simulator's)
// leaves the state, the grants and the requests entered exactly as apply()
// step by step does, lock by lock, on random runs of random scenarios.
RC_GTEST_PROP(StepMachineProps, ReleaseSegmentEqualsItsSteps, (std::uint64_t seed)) {
  const Scenario s = gen_styled_scenario();
  const SchemePlanner planner(joined());
  const StepMachine m(planner, s);
  RandomScheduler scheduler;
  scheduler.begin(seed, m.task_count(), run_length(m));
  auto state = m.initial();
  const auto queues = [](const StepMachine::State& x) {
    std::vector<std::vector<impl::LockEntry>> out;
    for (const auto& q : x.locks) {
      out.emplace_back(q.holders().begin(), q.holders().end());
      out.emplace_back(q.waiters().begin(), q.waiters().end());
    }
    return out;
  };
  bool compared = false;
  for (std::size_t step = 0;; ++step) {
    const auto picked = pick_enabled(m, state, scheduler, step);
    if (!picked) break;
    const std::uint32_t t = *picked;
    const StepMachine::Action a = m.next_action(state, t);
    if (a.kind == StepKind::kRelease && state.tasks[t].phase == TaskPhase::kRunning) {
      // Step by step until the segment is done, on a copy.
      auto stepped = state;
      const auto segment = stepped.tasks[t].segment;
      std::vector<std::uint32_t> locks;
      std::vector<std::vector<impl::LockEntry>> lock_grants;
      std::vector<std::uint32_t> granted;
      std::vector<StepMachine::Holding> entered;
      while (stepped.tasks[t].segment == segment && stepped.tasks[t].phase == TaskPhase::kRunning) {
        locks.push_back(m.next_action(stepped, t).lock);
        const auto e = m.apply(stepped, t);
        RC_ASSERT(!e.broken_invariant.has_value());
        lock_grants.emplace_back(e.lock_granted.begin(), e.lock_granted.end());
        granted.insert(granted.end(), e.granted.begin(), e.granted.end());
        entered.insert(entered.end(), e.entered.begin(), e.entered.end());
      }
      StepMachine::Effect e;
      std::vector<std::uint32_t> before_locks;
      std::vector<std::uint32_t> after_locks;
      std::vector<std::vector<impl::LockEntry>> after_grants;
      m.release_segment(state, t, e, true, [&](std::uint32_t lock) { before_locks.push_back(lock); },
                        [&](std::uint32_t lock) {
                          after_locks.push_back(lock);
                          after_grants.emplace_back(e.lock_granted.begin(), e.lock_granted.end());
                        });
      RC_ASSERT(!e.broken_invariant.has_value());
      RC_ASSERT(e.outcome == StepMachine::StepOutcome::kReleased);
      RC_ASSERT(before_locks == locks);
      RC_ASSERT(after_locks == locks);
      RC_ASSERT(after_grants == lock_grants);
      RC_ASSERT(e.granted == granted);
      RC_ASSERT(e.entered == entered);
      RC_ASSERT(state.tasks == stepped.tasks);
      RC_ASSERT(state.in_critical == stepped.in_critical);
      RC_ASSERT(queues(state) == queues(stepped));
      compared = true;
      continue;
    }
    const auto effect = m.apply(state, t);
    if (step_failure(m, state, effect)) break;
  }
  RC_TAG(compared ? "released" : "no release");
}

RC_GTEST_PROP(LineageFilterProps, NoMayConflictMeansNoConflict, (const model::Request& a, const model::Request& b)) {
  if (!may_conflict(model::LineageFilter(a), model::LineageFilter(b))) RC_ASSERT(!model::conflicts(a, b));
  if (model::conflicts(a, b)) RC_ASSERT(may_conflict(model::LineageFilter(a), model::LineageFilter(b)));
}

}  // namespace
}  // namespace pathlock::sim
