#pragma once
// The explorer's reduced exhaustive search (see explorer.hpp). Internal.

#include "pathlock/sim/explorer.hpp"

namespace pathlock::sim::search {

// Fills result.verdict, states, transitions, bytes and stopped_by.
void depth_first(const StepMachine& machine, const ExploreOptions& options, ExploreResult& result);

}  // namespace pathlock::sim::search
