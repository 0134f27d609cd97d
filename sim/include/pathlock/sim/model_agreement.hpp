#pragma once
// Before a checker calls something a lock bug, the model's two formulations
// (model::conflicts and model::key_prefix::conflicts) must agree on the
// requests involved. Where they do not, the bug is in the model: it is
// reported as a model error, never as a safety violation of the lock.

#include <optional>
#include <span>
#include <string>

#include "pathlock/model/request.hpp"
#include "pathlock/sim/scenario.hpp"

namespace pathlock::sim {

using ConflictPredicate = bool (*)(const model::Request&, const model::Request&);

// For tests: stands in for model::conflicts as the primary formulation in
// the agreement checks (model_error, the static table's), so that a test can
// show a model that disagrees with itself is reported as such; nullptr
// restores model::conflicts. Set it before a check starts, not during one.
void set_primary_conflicts_for_testing(ConflictPredicate primary);
ConflictPredicate primary_conflicts_for_testing();

// "model error: model::conflicts says R{/a} and W{/ab} conflict; the
// key-prefix formulation says they do not", or nullopt if they agree.
std::optional<std::string> model_error(const model::Request& a, const model::Request& b);
// The first pair of requests of two different tasks of `s` on which the
// formulations disagree.
std::optional<std::string> scenario_model_error(const Scenario& s);

struct StaticAnalysis;
// What `pathlock check` reports as a model error: the static table's first
// disagreement (it judged every pair both ways), else one in the failing
// scenario, else one in the campaigns' scenarios (every pair of requests of
// two tasks, whether the runs found them together or not).
std::optional<std::string> model_error_of(const StaticAnalysis& analysis, const Scenario* failing,
                                          std::span<const Scenario> campaign_scenarios);

}  // namespace pathlock::sim
