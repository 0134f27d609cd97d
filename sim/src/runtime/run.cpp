// run_program and explore: the runtime's entry points.
#include <memory>
#include <stdexcept>

#include "context.hpp"
#include "executor.hpp"

namespace pathlock::sim::runtime {

std::string_view outcome_name(RunOutcome outcome) noexcept {
  switch (outcome) {
    case RunOutcome::kFinished: return "finished";
    case RunOutcome::kDeadlock: return "deadlock";
    case RunOutcome::kStepBoundHit: return "step bound hit";
    case RunOutcome::kPropertyViolated: return "property violated";
    case RunOutcome::kThreadThrew: return "thread threw";
    case RunOutcome::kScheduleDiverged: return "schedule diverged";
  }
  return "?";
}

bool is_failure(RunOutcome outcome) noexcept {
  return outcome != RunOutcome::kFinished && outcome != RunOutcome::kStepBoundHit;
}

std::string_view outcome_name(ExploreOutcome outcome) noexcept {
  switch (outcome) {
    case ExploreOutcome::kAllPassed: return "all schedules passed";
    case ExploreOutcome::kRunLimitHit: return "run limit hit";
    case ExploreOutcome::kFailureFound: return "failure found";
    case ExploreOutcome::kInconclusive: return "inconclusive (step bound hit)";
  }
  return "?";
}

std::string format_trace(const RunResult& result) {
  std::string text;
  for (std::size_t i = 0; i < result.trace.size(); ++i) {
    const TraceStep& s = result.trace[i];
    text += "step " + std::to_string(i) + ": thread " + std::to_string(s.thread) + ": " + s.operation;
    if (s.where.line() != 0) text += std::string(" at ") + s.where.file_name() + ":" + std::to_string(s.where.line());
    if (*s.object != '\0') {
      text += std::string(" on the ") + s.object + " declared at " + s.object_declared.file_name() + ":" +
              std::to_string(s.object_declared.line());
    }
    text += '\n';
  }
  return text;
}

RunResult run_program(Program program, Strategy& strategy, const RunOptions& options) {
  if (program.threads.empty() || program.threads.size() > kMaxThreads) {
    throw std::invalid_argument("a run has 1 to " + std::to_string(kMaxThreads) + " logical threads, not " +
                                std::to_string(program.threads.size()));
  }
  if (detail::context().executor != nullptr) {
    throw std::logic_error("run_program is called from a logical thread of another run");
  }
  auto executor = std::make_shared<detail::Executor>(std::move(program), strategy, options);
  return detail::Executor::run(executor);
}

ExploreResult explore(const std::function<Program()>& make, Strategy& strategy, const ExploreOptions& options) {
  ExploreResult result;
  for (;;) {
    if (result.runs >= options.max_runs) {
      result.outcome = ExploreOutcome::kRunLimitHit;
      return result;
    }
    Program program = make();
    if (strategy.begin_run(program.threads.size()) == RunStart::kExhausted) {
      result.outcome = ExploreOutcome::kAllPassed;
      return result;
    }
    RunResult run = run_program(std::move(program), strategy, options.run);
    const std::string description = strategy.describe_run();
    strategy.end_run();
    ++result.runs;
    if (options.on_run) options.on_run(run);
    if (run.outcome == RunOutcome::kFinished) continue;
    result.outcome = is_failure(run.outcome) ? ExploreOutcome::kFailureFound : ExploreOutcome::kInconclusive;
    result.first_bad_run = std::move(run);
    result.strategy_run = description;
    return result;
  }
}

}  // namespace pathlock::sim::runtime
