#pragma once
// What a run of the transition system can show, and the one place that
// judges a transition's effect: every driver (the searches, the schedulers,
// the simulator) asks step_failure() after each step and stuck() when no
// task can move.

#include <optional>
#include <string_view>

#include "pathlock/sim/core/step_machine.hpp"

namespace pathlock::sim {

enum class Verdict {
  kSafeAndDeadlockFree,
  kSafetyViolation,  // conflicting requests in their critical sections at once
  kDeadlock,         // no task can move, some have not ended
  kBrokenInvariant,  // a lock queue broke one of its own invariants
  kUnfairOvertake,   // a grant overtook a waiter beyond the scheme's fairness promise
  kIncomplete,       // a search stopped at a limit before deciding
};
std::string_view to_string(Verdict verdict) noexcept;
inline bool is_failure(Verdict v) noexcept {
  return v == Verdict::kSafetyViolation || v == Verdict::kDeadlock || v == Verdict::kBrokenInvariant ||
         v == Verdict::kUnfairOvertake;
}

// kOff: judge neither safety nor fairness, only the lock's invariants (a
// search asked about deadlock alone, as SPIN's `pan -A` run is).
enum class SafetyCheck : std::uint8_t { kOn, kOff };

// The failure the effect of one step shows: a broken lock invariant first
// (the lock state can no longer be trusted), then safety, then fairness (an
// overtake beyond the scheme's promise; a kNone scheme never fails it).
inline std::optional<Verdict> step_failure(const StepMachine& m, const StepMachine::State& s,
                                           const StepMachine::Effect& e, SafetyCheck safety = SafetyCheck::kOn) {
  if (e.broken_invariant) return Verdict::kBrokenInvariant;
  if (safety == SafetyCheck::kOff) return std::nullopt;
  if (m.violation(s, e)) return Verdict::kSafetyViolation;
  if (!e.overtakes.empty() && m.unfair_overtake(e)) return Verdict::kUnfairOvertake;
  return std::nullopt;
}

}  // namespace pathlock::sim
