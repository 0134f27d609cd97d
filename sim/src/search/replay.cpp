// Replay: one given schedule, step by step, to its first failure.

#include <fmt/format.h>

#include "describe.hpp"
#include "pathlock/sim/explorer.hpp"

namespace pathlock::sim {

Counterexample replay_schedule(const StepMachine& m, const std::vector<std::uint32_t>& schedule) {
  Counterexample cx;
  cx.schedule = schedule;
  StepMachine::State s = m.initial();
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    const auto t = schedule[i];
    if (t >= m.task_count() || !m.enabled(s, t)) {
      cx.kind = Verdict::kSafeAndDeadlockFree;
      cx.bad_step = i;
      cx.summary = t >= m.task_count()
                       ? fmt::format("step {} names task {}, but the scenario has {} tasks", i + 1, t, m.task_count())
                       : fmt::format("step {} names {}, which cannot move there", i + 1, m.task_label(t));
      return cx;
    }
    const StepMachine::State before = s;
    const auto effect = m.apply(s, t);
    cx.trace.push_back({t, search::step_text(m, before, t, effect)});
    if (const auto failure = step_failure(m, s, effect)) {
      search::describe_failure(m, s, *failure, &effect, cx);
      return cx;
    }
  }
  if (m.stuck(s)) {
    search::describe_failure(m, s, Verdict::kDeadlock, nullptr, cx);
    return cx;
  }
  cx.kind = Verdict::kSafeAndDeadlockFree;
  cx.summary = "the schedule ends without a failure";
  return cx;
}

}  // namespace pathlock::sim
