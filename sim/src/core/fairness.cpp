// Fairness, on the step machine's own record of arrival order: every grant
// judged against the waiters the machine saw queue, never LockQueue's
// waiter list (proofs/fairness.md).

#include <algorithm>

#include "pathlock/sim/core/step_machine.hpp"

namespace pathlock::sim {

void StepMachine::forget_arrival(State& s, impl::TaskId id) {
  const auto a = std::find_if(s.arrivals.begin(), s.arrivals.end(), [&](const Arrival& w) { return w.request == id; });
  if (a != s.arrivals.end()) s.arrivals.erase(a);  // keeps stamp order
}

void StepMachine::judge_grant(State& s, std::uint32_t lock, impl::LockEntry granted, std::uint32_t stamp,
                              Effect& e) const {
  for (Arrival& w : s.arrivals) {
    if (w.lock != lock || w.stamp >= stamp || scheme_.compatible(granted.mode, w.mode)) continue;
    ++w.overtakes;
    e.overtakes.push_back({lock, task_of(w.request), request_of(w.request), w.mode, task_of(granted.task),
                           request_of(granted.task), granted.mode, w.overtakes});
  }
}

void StepMachine::judge_queue_grants(State& s, std::uint32_t lock, Effect& e) const {
  // The whole batch leaves the waiters first: a grant is judged only against
  // requests that still wait after the step.
  constexpr std::uint32_t kGrantedNow = 0xFFFFFFFFU;  // no lock has this index
  for (const auto& g : e.lock_granted) {
    for (Arrival& a : s.arrivals) {
      if (a.request == g.task && a.lock == lock) {
        a.lock = kGrantedNow;
        break;
      }
    }
  }
  for (const auto& g : e.lock_granted) {
    // A grantee the machine never saw queue here counts as arriving now.
    std::uint32_t stamp = kNoStamp;
    for (const Arrival& a : s.arrivals) {
      if (a.lock == kGrantedNow && a.request == g.task) {
        stamp = a.stamp;
        break;
      }
    }
    judge_grant(s, lock, g, stamp, e);
  }
  std::erase_if(s.arrivals, [](const Arrival& a) { return a.lock == kGrantedNow; });
}

std::optional<StepMachine::Overtake> StepMachine::unfair_overtake(const Effect& e) const {
  for (const Overtake& o : e.overtakes) {
    if (!scheme_.keeps_fairness(o.count)) return o;
  }
  return std::nullopt;
}

}  // namespace pathlock::sim
