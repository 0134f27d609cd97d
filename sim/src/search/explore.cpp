// explore(): the reduced search for a verdict, the unreduced counts, and the
// counterexample searches, in that order.

#include <fmt/format.h>

#include "dfs.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/sim/explorer.hpp"

namespace pathlock::sim {

std::string_view to_string(Verdict verdict) noexcept {
  switch (verdict) {
    case Verdict::kSafeAndDeadlockFree: return "safe and deadlock-free";
    case Verdict::kSafetyViolation: return "safety violation";
    case Verdict::kDeadlock: return "deadlock";
    case Verdict::kBrokenInvariant: return "broken lock invariant";
    case Verdict::kUnfairOvertake: return "unfair overtake";
    case Verdict::kIncomplete: return "incomplete (limit reached)";
  }
  return "?";
}

std::string_view to_string(SearchLimit limit) noexcept {
  switch (limit) {
    case SearchLimit::kNone: return "none";
    case SearchLimit::kStates: return "state limit";
    case SearchLimit::kMemory: return "memory limit";
  }
  return "?";
}

ExploreResult explore(const Planner& planner, const Scenario& scenario, const ExploreOptions& options) {
  const StepMachine m(planner, scenario);
  return explore(m, options);
}

ExploreResult explore(const StepMachine& m, const ExploreOptions& options) {
  ExploreResult result;
  // The search recurses once per step of a schedule: bound the longest one.
  const std::size_t longest = run_length(m);
  if (longest > kMaxScheduleLength) {
    throw model::InputError(model::InputProblem::kBadParameter,
                            fmt::format("a schedule may take {} steps; exhaustive exploration allows {}", longest,
                                        kMaxScheduleLength));
  }
  search::depth_first(m, options, result);
  if (options.count_naive) {
    if (const auto naive = count_unreduced(m, options.max_naive_states)) {
      result.naive_interleavings = naive->interleavings;
      result.naive_states = naive->states;
      result.naive_transitions = naive->transitions;
    }
  }
  // Counterexample searches look for any failure: only when every property counts.
  const bool all = options.check_safety && options.check_deadlock;
  if (all && is_failure(result.verdict)) {
    std::optional<std::vector<std::uint32_t>> schedule;
    if (options.shortest_counterexample) schedule = shortest_failure(m, options.max_states);
    if (!schedule) schedule = first_failure(m, options.max_states);
    if (schedule) result.counterexample = replay_schedule(m, *schedule);
  }
  return result;
}

}  // namespace pathlock::sim
