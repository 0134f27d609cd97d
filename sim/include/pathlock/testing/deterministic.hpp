#pragma once
// PathLock with any scheme, checked on the deterministic runtime: the code
// that ships, one step at a time (pathlock check-lock's engine), on
// scenarios drawn from gen_scenario. Each scenario runs every schedule with
// up to `preemptions` preemptions, then PCT runs beyond; a failure (safety,
// FIFO per lock, the lock's invariants, a deadlock, liveness) replays
// exactly from its schedule. A failing scenario is shrunk like check_lock's
// (the shrink tree, then tasks and operations anywhere); every run of it is
// deterministic, so the shrinking is exact.
//
// Where check_lock runs any lock on real threads, this runs a lock written
// on the runtime's platform, and finds interleavings that real threads hit
// once in millions of runs (a deadlock of two requests taking their paths in
// opposite orders):
//   check_path_lock_deterministic(scheme)  BasicPathLock, with every property
//                                          of pathlock check-lock
//   check_lock_deterministic(make_lock)    a lock of your own, templated on
//                                          a Platform (impl/platform.hpp) and
//                                          made on DeterministicPlatform:
//                                          safety, deadlock, liveness,
//                                          exceptions
//
//   template <typename P> class MyLock { ... P::Mutex, P::Atomic<int> ... };
//   auto result = check_lock_deterministic([] { return MyLockAdapter<DeterministicPlatform>(); });

#include <chrono>
#include <cstdint>
#include <string>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/sim/runtime/platform.hpp"
#include "pathlock/sim/runtime/runtime.hpp"
#include "pathlock/sim/runtime/strategies/iterative_dfs_strategy.hpp"
#include "pathlock/sim/runtime/strategies/pct_strategy.hpp"
#include "pathlock/sim/runtime/strategies/replay_strategy.hpp"
#include "pathlock/testing/check.hpp"
#include "pathlock/testing/generators.hpp"
#include "pathlock/testing/shadow.hpp"

namespace pathlock::testing {

enum class DeterministicVerdict : std::uint8_t {
  kPassed,        // every scenario passed within its bound
  kFailed,        // a property broke: `schedule` replays it
  kInconclusive,  // a run hit its step bound, or the run limit cut a search at bound 0
};

// The defaults size a search of seconds: 400 two-task scenarios (a bug
// between two requests needs no third), every schedule with at most one
// preemption, then 10 PCT runs each. Raise shape.max_tasks, preemptions and
// pct_runs for deeper searches.
inline ScenarioShape two_task_shape() {
  ScenarioShape shape;
  shape.max_tasks = 2;
  return shape;
}

struct DeterministicOptions {
  std::uint64_t seed = 0;   // 0: a random seed, printed in the report
  int scenarios = 400;      // 1..100,000
  std::size_t preemptions = 1;  // 0..8
  std::size_t pct_runs = 10;
  std::size_t max_runs = 20000;  // per scenario, for the bounded search
  std::chrono::seconds time_budget{60};
  ScenarioShape shape = two_task_shape();  // at most 4 tasks of 3 operations (the runtime's programs)
  PathShape paths;
};

struct DeterministicResult {
  DeterministicVerdict verdict = DeterministicVerdict::kPassed;
  bool stopped_by_time_budget = false;
  std::uint64_t seed = 0;
  Scenario scenario;     // the minimal failing one
  std::string failure;   // what broke
  std::string trace;     // the failing run, step by step
  std::string schedule;  // replays it
  int scenarios_run = 0;
  int shrink_steps = 0;
  double seconds = 0;
  std::string replay_function;  // "pathlock::testing::replay_...(lock, " for the report's replay line

  bool passed() const noexcept { return verdict == DeterministicVerdict::kPassed; }
  explicit operator bool() const noexcept { return passed(); }
  std::string report() const;
};

// The platform a lock under check_lock_deterministic is made on.
using DeterministicPlatform = sim::runtime::DeterministicPlatform;

// Throws std::invalid_argument naming an option outside its limit.
void validate(const DeterministicOptions& options);

namespace detail {

// One scenario's verdict on the runtime.
struct CaseOutcome {
  DeterministicVerdict verdict = DeterministicVerdict::kPassed;
  std::string failure;
  std::string trace;
  std::string schedule;
};

// Draws scenarios, runs each with `run_case`, and shrinks the first that
// fails (exactly: every run is deterministic).
DeterministicResult deterministic_search(const DeterministicOptions& options,
                                         const std::function<CaseOutcome(const Scenario&)>& run_case);

CaseOutcome case_outcome(const sim::runtime::ExploreResult& explored);
sim::runtime::RunOptions deterministic_run_options();
std::vector<sim::runtime::Choice> parse_schedule_or_throw(const std::string& schedule);

// The program of one run: a logical thread per task taking its operations
// in turn, every grant judged by the Shadow.
template <typename F>
sim::runtime::Program scenario_program(F& make_lock, const Scenario& scenario) {
  using Lock = std::invoke_result_t<F&>;
  struct State {
    State(F& make, const Scenario& s) : lock(make()), shadow(s), tasks(s.tasks) {}
    Lock lock;
    Shadow shadow;
    std::vector<std::vector<model::Operation>> tasks;
  };
  auto state = std::make_shared<State>(make_lock, scenario);
  sim::runtime::Program program;
  for (std::size_t t = 0; t < scenario.tasks.size(); ++t) {
    program.threads.push_back([state, t] {
      for (std::size_t i = 0; i < state->tasks[t].size(); ++i) {
        const int id = state->shadow.operation_id(t, i);
        state->shadow.arrive(t, id);
        auto handle = state->lock.acquire(state->shadow.request(id));
        state->shadow.grant(t, id);
        // A scheduling point while holding: another task may be granted
        // inside this hold (the shadow's own atomics are not points).
        DeterministicPlatform::yield();
        state->shadow.release(t);
        state->lock.release(std::move(handle));
      }
    });
  }
  program.after_each_step = [state]() -> std::optional<std::string> {
    if (state->shadow.verdict() == Verdict::kPassed) return std::nullopt;
    return state->shadow.detail();
  };
  program.at_end = [state]() -> std::optional<std::string> {
    state->shadow.check_intervals();
    if (state->shadow.verdict() == Verdict::kPassed) return std::nullopt;
    return state->shadow.detail();
  };
  return program;
}

}  // namespace detail

// A lock of your own, made on DeterministicPlatform by `make_lock()` (a
// fresh one per run), on generated scenarios: every schedule up to
// options.preemptions preemptions, then options.pct_runs PCT runs.
template <typename F>
  requires LockUnderTest<std::invoke_result_t<F&>>
DeterministicResult check_lock_deterministic(F make_lock, DeterministicOptions options = {}) {
  validate(options);
  if (options.seed == 0) options.seed = random_seed();
  return detail::deterministic_search(options, [&](const Scenario& scenario) {
    const auto make = [&] { return detail::scenario_program(make_lock, scenario); };
    sim::runtime::IterativeDfsStrategy bounded(options.preemptions);
    auto explored = sim::runtime::explore(make, bounded,
                                          {.run = detail::deterministic_run_options(), .max_runs = options.max_runs,
                                           .on_run = {}});
    if (explored.outcome == sim::runtime::ExploreOutcome::kFailureFound ||
        explored.outcome == sim::runtime::ExploreOutcome::kInconclusive || options.pct_runs == 0) {
      return detail::case_outcome(explored);
    }
    sim::runtime::PctStrategy pct(options.seed, 3, 200);
    return detail::case_outcome(sim::runtime::explore(
        make, pct, {.run = detail::deterministic_run_options(), .max_runs = options.pct_runs, .on_run = {}}));
  });
}

// Replays one run of a report's scenario and schedule.
template <typename F>
  requires LockUnderTest<std::invoke_result_t<F&>>
DeterministicResult replay_lock_deterministic(F make_lock, const Scenario& scenario, const std::string& schedule) {
  sim::runtime::ReplayStrategy replay(detail::parse_schedule_or_throw(schedule));
  replay.begin_run(0);
  const auto run = sim::runtime::run_program(detail::scenario_program(make_lock, scenario), replay,
                                             detail::deterministic_run_options());
  DeterministicResult result;
  result.scenario = scenario;
  result.scenarios_run = 1;
  result.schedule = schedule;
  result.replay_function = "pathlock::testing::replay_lock_deterministic(make_lock, ";
  if (sim::runtime::is_failure(run.outcome) || run.outcome == sim::runtime::RunOutcome::kStepBoundHit) {
    result.verdict = run.outcome == sim::runtime::RunOutcome::kStepBoundHit ? DeterministicVerdict::kInconclusive
                                                                           : DeterministicVerdict::kFailed;
    result.failure = std::string(sim::runtime::outcome_name(run.outcome)) + ": " + run.detail;
    result.trace = sim::runtime::format_trace(run);
  }
  return result;
}

// `scheme` must outlive the call. Throws std::invalid_argument naming an
// option outside its limit.
DeterministicResult check_path_lock_deterministic(const impl::Scheme& scheme, DeterministicOptions options = {});

// Replays one run of `scenario` from its schedule (as a report prints it):
// kFailed with the same failure and trace if it still fails.
DeterministicResult replay_path_lock_deterministic(const impl::Scheme& scheme, const Scenario& scenario,
                                                   const std::string& schedule);

}  // namespace pathlock::testing
