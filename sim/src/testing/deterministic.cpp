#include "pathlock/testing/deterministic.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "pathlock/sim/lockcheck/check_lock.hpp"
#include "pathlock/testing/check.hpp"

namespace pathlock::testing {

namespace {

namespace lc = sim::lockcheck;

lc::LockProgram program_of(const Scenario& scenario) {
  lc::LockProgram program;
  program.name = "scenario";
  program.purpose = scenario.to_string();
  for (const auto& task : scenario.tasks) {
    auto& thread = program.threads.emplace_back();
    for (const auto& op : task) thread.calls.push_back(lc::LockCall{op, lc::WaitStyle::kBlocking, lc::AfterGrant::kReleaseBeforeNext});
  }
  return program;
}

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
  if (options.time_budget.count() < 1 || options.time_budget.count() > 86'400) {
    throw std::invalid_argument(
        fmt::format("DeterministicOptions.time_budget {} s is outside 1 s..1 day", options.time_budget.count()));
  }
  testing::validate(options.shape);
  testing::validate(options.paths);
}

struct Checker {
  const impl::Scheme& scheme;
  lc::CheckLockOptions options;
  lc::LockSetting setting;

  lc::CaseResult run(const Scenario& scenario) const {
    return lc::check_case(scheme, program_of(scenario), setting, options);
  }
};

bool failed(const lc::CaseResult& result) {
  return result.verdict == lc::CaseVerdict::kFail || result.verdict == lc::CaseVerdict::kInconclusive;
}

}  // namespace

DeterministicResult check_path_lock_deterministic(const impl::Scheme& scheme, DeterministicOptions options) {
  validate(options);
  if (options.seed == 0) options.seed = random_seed();
  DeterministicResult result;
  result.seed = options.seed;
  Checker checker{scheme, {}, {}};
  checker.options.preemptions = options.preemptions;
  checker.options.pct_runs = options.pct_runs;
  checker.options.max_runs = options.max_runs;
  checker.options.seed = options.seed;
  checker.options.allocation_failures = lc::AllocationFailures::kOff;

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
    lc::CaseResult found = checker.run(drawn.value());
    if (!failed(found)) continue;
    const lc::CaseVerdict kind = found.verdict;
    result.scenario = drawn.value();
    // The shrink tree, then tasks and operations anywhere.
    constexpr int kMaxShrinkSteps = 200;
    bool improved = true;
    while (improved && result.shrink_steps < kMaxShrinkSteps) {
      improved = false;
      auto candidates = drawn.shrinks();
      while (auto candidate = candidates.next()) {
        lc::CaseResult smaller = checker.run(candidate->value());
        if (smaller.verdict == kind) {
          drawn = std::move(*candidate);
          result.scenario = drawn.value();
          found = std::move(smaller);
          ++result.shrink_steps;
          improved = true;
          break;
        }
      }
    }
    detail::shrink_anywhere(result.scenario, result.shrink_steps, kMaxShrinkSteps, [&](const Scenario& candidate) {
      lc::CaseResult smaller = checker.run(candidate);
      if (smaller.verdict != kind) return false;
      found = std::move(smaller);
      return true;
    });
    result.verdict = kind == lc::CaseVerdict::kFail ? DeterministicVerdict::kFailed : DeterministicVerdict::kInconclusive;
    result.failure = found.failure;
    result.trace = found.trace;
    result.schedule = found.schedule;
    break;
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

DeterministicResult replay_path_lock_deterministic(const impl::Scheme& scheme, const Scenario& scenario,
                                                   const std::string& schedule) {
  lc::CheckLockOptions options;
  options.allocation_failures = lc::AllocationFailures::kOff;
  const lc::CaseResult run = lc::replay_case(scheme, program_of(scenario), lc::LockSetting{}, schedule, options);
  DeterministicResult result;
  result.scenario = scenario;
  result.scenarios_run = 1;
  result.schedule = schedule;
  if (run.verdict == lc::CaseVerdict::kFail || run.verdict == lc::CaseVerdict::kInconclusive) {
    result.verdict = run.verdict == lc::CaseVerdict::kFail ? DeterministicVerdict::kFailed : DeterministicVerdict::kInconclusive;
    result.failure = run.failure;
    result.trace = run.trace;
  }
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
  text += fmt::format(
      "replay: pathlock::testing::replay_path_lock_deterministic(scheme, pathlock::testing::Scenario::parse(\"{}\"), "
      "\"{}\")\n",
      scenario.to_string(), schedule);
  return text;
}

}  // namespace pathlock::testing
