#pragma once
// One call that tests a lock:
//
//   #include "pathlock/testing/check.hpp"
//
//   TEST(MyLock, PassesPathlockTesting) {
//     const auto result = pathlock::testing::check_lock([] { return MyLockAdapter(); });
//     EXPECT_TRUE(result.passed()) << result.report();
//   }
//
// check_lock draws scenarios from gen_scenario (RapidCheck, from the seed),
// runs each several times on real threads (thread_run.hpp) and judges every
// run by the model (safety; a hang: a deadlock or a lost wake-up; an
// exception), measuring FIFO inversions and over-blocking. A failing
// scenario is shrunk along RapidCheck's shrink tree (fewer tasks, fewer
// operations, simpler operations and paths) while it still fails the same
// way within its runs, then the schedule: whether it still fails with no
// pauses. The report prints the seed, the minimal scenario, what held or
// waited, and a line that replays it (check_scenario).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <type_traits>

#include <rapidcheck.h>

#include "pathlock/testing/generators.hpp"
#include "pathlock/testing/thread_run.hpp"

namespace pathlock::testing {

enum class Completeness : std::uint8_t {
  kComplete,            // every scenario asked for was run
  kStoppedByTimeBudget  // the time budget ended the search: fewer scenarios ran (the report says how many)
};

struct CheckOptions {
  std::uint64_t seed = 0;  // 0: a random seed, printed in the report
  int scenarios = 200;     // 1..1,000,000
  int runs_per_scenario = 20;  // 1..100,000
  std::chrono::milliseconds hang_timeout{1000};
  std::chrono::seconds time_budget{25};  // for the search; shrinking a failure is bounded separately
  ScenarioShape shape;
  PathShape paths;
};

struct CheckResult {
  Verdict verdict = Verdict::kPassed;
  Completeness completeness = Completeness::kComplete;
  std::uint64_t seed = 0;         // repeats the whole search (CheckOptions.seed)
  std::uint64_t replay_seed = 0;  // the failing scenario's runs (check_scenario's CheckOptions.seed)
  int replay_runs = 0;            // runs that replay the minimal failure in ~99% of tries (its runs_per_scenario)
  int measured_failures = 0;      // how often the minimal failure showed when its rate was measured:
  int measured_runs = 0;          //   measured_failures of measured_runs runs
  std::chrono::milliseconds hang_timeout{0};
  Scenario scenario;       // the minimal failing one (empty when passed)
  Pauses pauses = Pauses::kSeeded;
  RunOutcome outcome;      // of the minimal failing run
  int scenarios_run = 0;
  std::uint64_t runs = 0;
  std::uint64_t fifo_inversion_runs = 0;
  std::uint64_t over_blocking_runs = 0;
  int shrink_steps = 0;
  double seconds = 0;

  bool passed() const noexcept { return verdict == Verdict::kPassed; }
  explicit operator bool() const noexcept { return passed(); }
  // Multi-line: the verdict, the seed, the minimal scenario, what each task
  // held or waited for, the measurements and the replay line.
  std::string report() const;
};

// Throws std::invalid_argument naming a field outside its limit.
void validate(const CheckOptions& options);
std::uint64_t random_seed();

namespace detail {

template <typename F>
struct ScenarioRunner {
  F& make_lock;
  const CheckOptions& options;
  CheckResult& result;

  // The first failing run of `scenario` among `runs` runs (default:
  // runs_per_scenario).
  std::optional<RunOutcome> fails(const Scenario& scenario, std::uint64_t seed, Pauses pauses, int runs = 0) {
    if (runs == 0) runs = options.runs_per_scenario;
    for (int i = 0; i < runs; ++i) {
      RunOutcome outcome =
          run_once(make_lock, scenario, seed + static_cast<std::uint64_t>(i), RunOptions{options.hang_timeout, pauses});
      ++result.runs;
      result.fifo_inversion_runs += outcome.fifo_inversions > 0;
      result.over_blocking_runs += outcome.over_blocked_samples > 0;
      if (outcome.failed()) return outcome;
    }
    return std::nullopt;
  }
};

// `scenario` without one of its tasks or operations, or with one path one
// level up.
std::vector<Scenario> smaller_scenarios(const Scenario& scenario);

// Runs a shrink candidate gets: several times the search's, since a smaller
// scenario on real threads may need more runs to show the same failure.
inline int shrink_runs(const CheckOptions& options) { return std::min(options.runs_per_scenario * 5, 100'000); }

// Runs a replay needs to show a failure seen in `failures` of `runs` runs with
// probability >= 99%: the least n with (1 - p)^n <= 0.01 for p = failures /
// runs, at least `floor`, at most runs_per_scenario's limit. On real threads
// the rate is all a replay can promise.
inline int replay_runs_for(int failures, int runs, int floor) {
  constexpr int kMaxRuns = 100'000;
  if (failures <= 0 || runs <= 0) return kMaxRuns;
  if (failures >= runs) return std::clamp(1, floor, kMaxRuns);
  const double p = static_cast<double>(failures) / static_cast<double>(runs);
  const double needed = std::ceil(std::log(0.01) / std::log1p(-p));
  return static_cast<int>(std::clamp(needed, static_cast<double>(floor), static_cast<double>(kMaxRuns)));
}

// Replaces `scenario` by a smaller one that `still_fails` (which keeps the
// candidate's outcome when it returns true) until none is, or `steps`
// reaches `max_steps`.
template <typename StillFails>
void shrink_anywhere(Scenario& scenario, int& steps, int max_steps, StillFails still_fails) {
  bool improved = true;
  while (improved && steps < max_steps) {
    improved = false;
    for (const Scenario& candidate : smaller_scenarios(scenario)) {
      if (still_fails(candidate)) {
        scenario = candidate;
        ++steps;
        improved = true;
        break;
      }
    }
  }
}

// The smallest scenario that `still_fails` (which keeps the candidate's
// outcome when it returns true): down RapidCheck's shrink tree, then
// shrink_anywhere (the tree drops tasks and operations from the end only).
inline constexpr int kMaxShrinkSteps = 200;
template <typename StillFails>
Scenario shrink_scenario(rc::Shrinkable<Scenario> failing, int& steps, StillFails still_fails) {
  bool improved = true;
  while (improved && steps < kMaxShrinkSteps) {
    improved = false;
    auto candidates = failing.shrinks();
    while (auto candidate = candidates.next()) {
      if (still_fails(candidate->value())) {
        failing = std::move(*candidate);
        ++steps;
        improved = true;
        break;
      }
    }
  }
  Scenario smallest = failing.value();
  shrink_anywhere(smallest, steps, kMaxShrinkSteps, still_fails);
  return smallest;
}

// Shrinks the failing scenario, then the schedule.
template <typename F>
void shrink(ScenarioRunner<F>& runner, rc::Shrinkable<Scenario> failing, std::uint64_t seed) {
  CheckResult& result = runner.result;
  const int runs = shrink_runs(runner.options);
  result.scenario = shrink_scenario(std::move(failing), result.shrink_steps, [&](const Scenario& candidate) {
    auto outcome = runner.fails(candidate, seed, Pauses::kSeeded, runs);
    if (!outcome || outcome->verdict != result.verdict) return false;
    result.outcome = std::move(*outcome);
    return true;
  });
  // Then the schedule: does it fail without pauses?
  if (auto outcome = runner.fails(result.scenario, seed, Pauses::kNone, runs);
      outcome && outcome->verdict == result.verdict) {
    result.pauses = Pauses::kNone;
    result.outcome = std::move(*outcome);
  }
}

// How often the minimal failure shows: runs of it until it failed the same way
// kFailuresToMeasure times (once for a hang, which leaks its threads and costs
// the hang timeout) or ten times the shrink's runs ran (a rare failure gets a
// long replay rather than a guess); sets the replay's run count from the rate.
template <typename F>
void measure_replay(ScenarioRunner<F>& runner, std::uint64_t seed) {
  constexpr int kFailuresToMeasure = 3;
  const int floor = shrink_runs(runner.options);
  const int runs = std::min(floor * 10, 100'000);
  CheckResult& result = runner.result;
  const int wanted = result.verdict == Verdict::kHang ? 1 : kFailuresToMeasure;
  int failures = 0;
  int done = 0;
  while (done < runs && failures < wanted) {
    const auto outcome = runner.fails(result.scenario, seed + static_cast<std::uint64_t>(done), result.pauses, 1);
    ++done;
    failures += outcome && outcome->verdict == result.verdict;
  }
  result.measured_failures = failures;
  result.measured_runs = done;
  result.replay_runs = replay_runs_for(std::max(failures, 1), done, floor);
}

}  // namespace detail

// Tests the lock that `make_lock()` returns (a fresh one per run; any type
// satisfying LockUnderTest, returned by value).
template <typename F>
  requires LockUnderTest<std::invoke_result_t<F&>>
CheckResult check_lock(F make_lock, CheckOptions options = {}) {
  validate(options);
  if (options.seed == 0) options.seed = random_seed();
  CheckResult result;
  result.seed = options.seed;
  result.hang_timeout = options.hang_timeout;
  detail::ScenarioRunner<F> runner{make_lock, options, result};
  const auto start = std::chrono::steady_clock::now();
  const auto generator = gen_scenario(options.shape, options.paths);
  const auto scenarios = static_cast<std::uint64_t>(options.scenarios);
  for (std::uint64_t i = 0; i < scenarios; ++i) {
    if (std::chrono::steady_clock::now() - start >= options.time_budget) {
      result.completeness = Completeness::kStoppedByTimeBudget;
      break;
    }
    const std::uint64_t scenario_seed = options.seed * std::uint64_t{1000003} + i;
    rc::Shrinkable<Scenario> drawn = generator(rc::Random(scenario_seed), rc::kNominalSize);
    ++result.scenarios_run;
    if (auto outcome = runner.fails(drawn.value(), scenario_seed, Pauses::kSeeded)) {
      result.verdict = outcome->verdict;
      result.scenario = drawn.value();
      result.outcome = std::move(*outcome);
      detail::shrink(runner, std::move(drawn), scenario_seed);
      result.replay_seed = scenario_seed;
      detail::measure_replay(runner, scenario_seed);
      break;
    }
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

// Replays one scenario (as a report prints it): runs_per_scenario runs from
// the seed, with the given pauses.
template <typename F>
  requires LockUnderTest<std::invoke_result_t<F&>>
CheckResult check_scenario(F make_lock, const Scenario& scenario, CheckOptions options = {},
                           Pauses pauses = Pauses::kSeeded) {
  validate(options);
  if (options.seed == 0) options.seed = random_seed();
  CheckResult result;
  result.seed = result.replay_seed = options.seed;
  result.replay_runs = options.runs_per_scenario;
  result.hang_timeout = options.hang_timeout;
  result.pauses = pauses;
  detail::ScenarioRunner<F> runner{make_lock, options, result};
  const auto start = std::chrono::steady_clock::now();
  result.scenarios_run = 1;
  if (auto outcome = runner.fails(scenario, options.seed, pauses)) {
    result.verdict = outcome->verdict;
    result.scenario = scenario;
    result.outcome = std::move(*outcome);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace pathlock::testing
