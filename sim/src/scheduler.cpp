#include "pathlock/sim/scheduler.hpp"

namespace pathlock::sim {

ScheduledRun run_scheduled(const StepMachine& m, Scheduler& scheduler, std::uint64_t seed) {
  ScheduledRun run;
  const std::size_t length = run_length(m);
  scheduler.begin(seed, m.task_count(), length);
  run.schedule.reserve(length);
  StepMachine::State s = m.initial();
  StepMachine::Effect effect;
  std::vector<std::uint32_t> runnable;
  runnable.reserve(m.task_count());
  for (;;) {
    runnable.clear();
    for (std::uint32_t t = 0; t < m.task_count(); ++t) {
      if (m.enabled(s, t)) runnable.push_back(t);
    }
    if (runnable.empty()) {
      run.verdict = m.all_done(s) ? Verdict::kSafeAndDeadlockFree : Verdict::kDeadlock;
      return run;
    }
    const std::uint32_t t = scheduler.pick(runnable, run.schedule.size());
    run.schedule.push_back(t);
    m.apply(s, t, effect, true);
    if (const auto failure = step_failure(m, s, effect)) {
      run.verdict = *failure;
      return run;
    }
  }
}

std::size_t count_preemptions(const StepMachine& m, const std::vector<std::uint32_t>& schedule) {
  std::size_t preemptions = 0;
  StepMachine::State s = m.initial();
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    const std::uint32_t t = schedule[i];
    if (i > 0 && schedule[i - 1] != t && m.can_progress(s, schedule[i - 1])) ++preemptions;
    if (t >= m.task_count() || !m.enabled(s, t)) break;
    m.apply(s, t, false);
  }
  return preemptions;
}

}  // namespace pathlock::sim
