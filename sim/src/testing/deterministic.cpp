#include "pathlock/testing/deterministic.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "pathlock/sim/lockcheck/check_lock.hpp"
#include "pathlock/sim/runtime/choice.hpp"

namespace pathlock::testing {

namespace {

namespace lc = sim::lockcheck;

lc::LockProgram program_of(const Scenario& scenario) {
  lc::LockProgram program;
  program.name = "scenario";
  program.purpose = scenario.to_string();
  for (const auto& task : scenario.tasks) {
    auto& thread = program.threads.emplace_back();
    for (const auto& op : task) {
      thread.calls.push_back(lc::LockCall{op, lc::WaitStyle::kBlocking, lc::AfterGrant::kReleaseBeforeNext});
    }
  }
  return program;
}

detail::CaseOutcome outcome_of(const lc::CaseResult& result) {
  detail::CaseOutcome outcome;
  if (result.verdict == lc::CaseVerdict::kFail || result.verdict == lc::CaseVerdict::kInconclusive) {
    outcome.verdict = result.verdict == lc::CaseVerdict::kFail ? DeterministicVerdict::kFailed
                                                               : DeterministicVerdict::kInconclusive;
    outcome.failure = result.failure;
    outcome.trace = result.trace;
    outcome.schedule = result.schedule;
  }
  return outcome;
}

const char* const kPathLockReplay = "pathlock::testing::replay_path_lock_deterministic(scheme, ";
const char* const kLockReplay = "pathlock::testing::replay_lock_deterministic(make_lock, ";

}  // namespace

void validate(const DeterministicOptions& options) {
  if (options.scenarios < 1 || options.scenarios > 100'000) {
    throw std::invalid_argument(fmt::format("DeterministicOptions.scenarios {} is outside 1..100,000", options.scenarios));
  }
  if (options.shape.max_tasks > static_cast<int>(lc::kMaxLockThreads) ||
      options.shape.max_operations > static_cast<int>(lc::kMaxCallsPerThread)) {
    throw std::invalid_argument(fmt::format(
        "DeterministicOptions.shape: at most {} tasks of {} operations on the deterministic runtime (got {} of {})",
        lc::kMaxLockThreads, lc::kMaxCallsPerThread, options.shape.max_tasks, options.shape.max_operations));
  }
  if (options.preemptions > 8) {
    throw std::invalid_argument(fmt::format("DeterministicOptions.preemptions {} is outside 0..8", options.preemptions));
  }
  if (options.max_runs < 1 || options.max_runs > 10'000'000) {
    throw std::invalid_argument(fmt::format("DeterministicOptions.max_runs {} is outside 1..10,000,000", options.max_runs));
  }
  if (options.time_budget.count() < 1 || options.time_budget.count() > 86'400) {
    throw std::invalid_argument(
        fmt::format("DeterministicOptions.time_budget {} s is outside 1 s..1 day", options.time_budget.count()));
  }
  testing::validate(options.shape);
  testing::validate(options.paths);
}

namespace detail {

sim::runtime::RunOptions deterministic_run_options() {
  sim::runtime::RunOptions options;
  options.allocation_failures = 0;
  return options;
}

CaseOutcome case_outcome(const sim::runtime::ExploreResult& explored) {
  CaseOutcome outcome;
  if (explored.outcome != sim::runtime::ExploreOutcome::kFailureFound &&
      explored.outcome != sim::runtime::ExploreOutcome::kInconclusive) {
    return outcome;
  }
  outcome.verdict = explored.outcome == sim::runtime::ExploreOutcome::kFailureFound ? DeterministicVerdict::kFailed
                                                                                    : DeterministicVerdict::kInconclusive;
  if (explored.first_bad_run) {
    const auto& run = *explored.first_bad_run;
    outcome.failure = std::string(sim::runtime::outcome_name(run.outcome)) + ": " + run.detail;
    outcome.trace = sim::runtime::format_trace(run);
    outcome.schedule = sim::runtime::format_schedule(run.schedule);
  }
  return outcome;
}

std::vector<sim::runtime::Choice> parse_schedule_or_throw(const std::string& schedule) {
  const sim::runtime::ParsedSchedule parsed = sim::runtime::parse_schedule(schedule);
  if (!parsed.error.empty()) throw std::invalid_argument("bad schedule: " + parsed.error);
  return parsed.choices;
}

DeterministicResult deterministic_search(const DeterministicOptions& options,
                                         const std::function<CaseOutcome(const Scenario&)>& run_case) {
  DeterministicResult result;
  result.seed = options.seed;
  const auto start = std::chrono::steady_clock::now();
  const auto generator = gen_scenario(options.shape, options.paths);
  const auto scenarios = static_cast<std::uint64_t>(options.scenarios);
  for (std::uint64_t i = 0; i < scenarios; ++i) {
    if (std::chrono::steady_clock::now() - start >= options.time_budget) {
      result.stopped_by_time_budget = true;
      break;
    }
    rc::Shrinkable<Scenario> drawn = generator(rc::Random(options.seed * std::uint64_t{1000003} + i), rc::kNominalSize);
    ++result.scenarios_run;
    CaseOutcome found = run_case(drawn.value());
    if (found.verdict == DeterministicVerdict::kPassed) continue;
    const DeterministicVerdict kind = found.verdict;
    result.scenario = shrink_scenario(std::move(drawn), result.shrink_steps, [&](const Scenario& candidate) {
      CaseOutcome smaller = run_case(candidate);
      if (smaller.verdict != kind) return false;
      found = std::move(smaller);
      return true;
    });
    result.verdict = kind;
    result.failure = found.failure;
    result.trace = found.trace;
    result.schedule = found.schedule;
    break;
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.replay_function = kLockReplay;
  return result;
}

}  // namespace detail

DeterministicResult check_path_lock_deterministic(const impl::Scheme& scheme, DeterministicOptions options) {
  validate(options);
  if (options.seed == 0) options.seed = random_seed();
  lc::CheckLockOptions check;
  check.preemptions = options.preemptions;
  check.pct_runs = options.pct_runs;
  check.max_runs = options.max_runs;
  check.seed = options.seed;
  check.allocation_failures = lc::AllocationFailures::kOff;
  DeterministicResult result = detail::deterministic_search(options, [&](const Scenario& scenario) {
    return outcome_of(lc::check_case(scheme, program_of(scenario), lc::LockSetting{}, check));
  });
  result.replay_function = kPathLockReplay;
  return result;
}

DeterministicResult replay_path_lock_deterministic(const impl::Scheme& scheme, const Scenario& scenario,
                                                   const std::string& schedule) {
  lc::CheckLockOptions options;
  options.allocation_failures = lc::AllocationFailures::kOff;
  const detail::CaseOutcome run =
      outcome_of(lc::replay_case(scheme, program_of(scenario), lc::LockSetting{}, schedule, options));
  DeterministicResult result;
  result.scenario = scenario;
  result.scenarios_run = 1;
  result.schedule = schedule;
  result.verdict = run.verdict;
  result.failure = run.failure;
  result.trace = run.trace;
  result.replay_function = kPathLockReplay;
  return result;
}

std::string DeterministicResult::report() const {
  const std::string searched =
      fmt::format("{} scenario(s) in {:.2f} s{}", scenarios_run, seconds,
                  stopped_by_time_budget ? " (stopped by the time budget: fewer than asked)" : "");
  if (passed()) return fmt::format("passed: {}; seed {}\n", searched, seed);
  std::string text = fmt::format("{}: {}\n", verdict == DeterministicVerdict::kFailed ? "failed" : "inconclusive", failure);
  text += fmt::format("  scenario: {}\n", scenario.to_string());
  text += fmt::format("  found after {}; {} shrink step(s)\n", searched, shrink_steps);
  if (!trace.empty()) text += fmt::format("  the failing run, step by step:\n{}\n", trace);
  text += fmt::format("seed {}\n", seed);
  text += fmt::format("replay: {}pathlock::testing::Scenario::parse(\"{}\"), \"{}\")\n", replay_function,
                      scenario.to_string(), schedule);
  return text;
}

}  // namespace pathlock::testing
