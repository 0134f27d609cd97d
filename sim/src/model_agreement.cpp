#include "pathlock/sim/model_agreement.hpp"

#include <fmt/format.h>

#include "pathlock/model/conflict.hpp"
#include "pathlock/model/key_prefix.hpp"
#include "pathlock/sim/static_table.hpp"

namespace pathlock::sim {
namespace {
ConflictPredicate primary_override = nullptr;
}  // namespace

void set_primary_conflicts_for_testing(ConflictPredicate primary) { primary_override = primary; }
ConflictPredicate primary_conflicts_for_testing() { return primary_override; }

std::optional<std::string> model_error(const model::Request& a, const model::Request& b) {
  const bool primary = primary_override != nullptr ? primary_override(a, b) : model::conflicts(a, b);
  const bool second = model::key_prefix::conflicts(a, b);
  if (primary == second) return std::nullopt;
  const auto says = [](bool c) { return c ? "conflict" : "do not conflict"; };
  return fmt::format("model error: model::conflicts says {} and {} {}; the key-prefix formulation says they {}",
                     a.to_string(), b.to_string(), says(primary), says(second));
}

std::optional<std::string> scenario_model_error(const Scenario& s) {
  for (std::size_t t = 0; t < s.tasks.size(); ++t) {
    for (std::size_t u = t + 1; u < s.tasks.size(); ++u) {
      for (const auto& x : s.tasks[t]) {
        for (const auto& y : s.tasks[u]) {
          if (auto e = model_error(x.request(), y.request())) return e;
        }
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> model_error_of(const StaticAnalysis& analysis, const Scenario* failing,
                                          std::span<const Scenario> campaign_scenarios) {
  if (analysis.first_model_disagreement) {
    return fmt::format("{} ({} of {} pairs of the static table disagree)", to_string(*analysis.first_model_disagreement),
                       analysis.model_disagreements, analysis.pairs);
  }
  if (failing != nullptr) {
    if (auto e = scenario_model_error(*failing)) return e;
  }
  for (const auto& s : campaign_scenarios) {
    if (auto e = scenario_model_error(s)) return e;
  }
  return std::nullopt;
}

}  // namespace pathlock::sim
