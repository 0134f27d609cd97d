#pragma once
// Schedulers: who moves next when the model checker cannot try everyone.
//
// A Scheduler drives the explorer's StepMachine (the same plans and the same
// impl::LockQueue code) one step at a time, choosing among the tasks that can
// move. One run is one schedule; a campaign is many runs from derived seeds.
// Each scheduler lives in its own file under sim/schedulers/ behind this one
// interface, as shuttle's do:
//   RandomScheduler  uniform among the runnable tasks at every step;
//   PctScheduler     probabilistic concurrency testing (Burckhardt et al.,
//                    ASPLOS 2010), with its detection-probability bound.
// A failing run carries its schedule, which `pathlock explore SCENARIO
// --schedule ...` replays step for step.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "pathlock/sim/explorer.hpp"  // StepMachine, Verdict

namespace pathlock::sim {

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual std::string_view name() const noexcept = 0;
  // A new run over `tasks` tasks, of at most `steps` steps, from `seed`.
  virtual void begin(std::uint64_t seed, std::size_t tasks, std::size_t steps) = 0;
  // The task that moves at step `step` (0-based).
  // REQUIRES: `runnable` is non-empty and ascending.
  virtual std::uint32_t pick(std::span<const std::uint32_t> runnable, std::size_t step) = 0;
};

struct ScheduledRun {
  Verdict verdict = Verdict::kSafeAndDeadlockFree;  // never kIncomplete
  std::vector<std::uint32_t> schedule;              // the task of each step taken
};

// One run to completion or to the first failure (a safety violation, or a
// state where no task can move and not all are done).
ScheduledRun run_scheduled(const StepMachine& machine, Scheduler& scheduler, std::uint64_t seed);

// Preemptions in a schedule: steps that switch away from a task that could
// still have moved (a switch from a waiting or finished task is free).
std::size_t count_preemptions(const StepMachine& machine, const std::vector<std::uint32_t>& schedule);

}  // namespace pathlock::sim
