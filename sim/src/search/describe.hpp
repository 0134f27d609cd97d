#pragma once
// Text for the searches' counterexamples: one step, and the failure a trace
// ends in. Internal to sim.

#include <optional>
#include <string>

#include "pathlock/sim/explorer.hpp"

namespace pathlock::sim::search {

// "T1 acquire W(/a) for write(/a): queued, grants T2; T2 holds write(/a)"
std::string step_text(const StepMachine& m, const StepMachine::State& before, std::uint32_t t,
                      const StepMachine::Effect& e);

// Fills in the failure at the end of a trace, `s` being the state after it.
void describe_failure(const StepMachine& m, const StepMachine::State& s, Verdict kind,
                      const StepMachine::Effect* last, Counterexample& cx);

}  // namespace pathlock::sim::search
