#pragma once
// Shrinking a failing scenario to a minimal one, with RapidCheck's shrink
// library (rc::shrink::removeChunks, rc::shrink::eachElement) supplying the
// candidates and a greedy loop taking the first that still fails:
//   1. drop tasks (chunks of them, largest first);
//   2. drop requests within a task;
//   3. simplify one request: copy(p, q) to read(p) or write(q), rename(p, q)
//      to write(p) or write(q); then a path to its parent (never to the root).
// The result is 1-minimal for these moves (no single candidate of it fails)
// unless the try limit stopped the search first; ShrinkResult says which.

#include <cstdint>
#include <functional>
#include <string_view>

#include <rapidcheck/Seq.h>

#include "pathlock/sim/scenario.hpp"

namespace pathlock::sim {

// The candidates one shrinking step tries, simplest first.
rc::Seq<Scenario> scenario_shrinks(const Scenario& scenario);

// How shrinking ended: 1-minimal (every candidate of the result, each
// removal of one task or request and each simplification of one request,
// was tried and did not fail), or stopped at the try limit.
enum class ShrinkStop { kOneMinimal, kTryLimit };
std::string_view to_string(ShrinkStop stop) noexcept;

struct ShrinkResult {
  Scenario scenario;
  std::size_t accepted = 0;  // shrinking steps taken
  std::size_t tried = 0;     // candidates judged
  ShrinkStop stop = ShrinkStop::kOneMinimal;
  std::size_t final_candidates = 0;  // kOneMinimal: the result's candidates, each tried and rejected
};

// REQUIRES: still_fails(scenario). Stops after `max_tries` candidates.
ShrinkResult shrink_scenario(Scenario scenario, const std::function<bool(const Scenario&)>& still_fails,
                             std::size_t max_tries = 5000);

}  // namespace pathlock::sim
