#pragma once
// How the simulator tells a failed run: the last events (a ring buffer,
// formatted only when a run fails), the tasks and lock queues involved, and
// the replayable schedule prefix. Internal.

#include <cstdint>
#include <vector>

#include "pathlock/model/conflict.hpp"
#include "pathlock/sim/core/step_machine.hpp"
#include "pathlock/sim/simulator.hpp"

namespace pathlock::sim::des {

enum class TraceKind : std::uint8_t { kArrive, kGrant, kQueue, kHoldAll, kRelease };

class RunReport {
 public:
  RunReport(const StepMachine& machine, const SimOptions& options) : m_(machine), options_(options) {}

  void reset();
  void record(double time, TraceKind kind, std::uint32_t task, std::uint32_t lock = 0, impl::ModeId mode = {}) {
    if (options_.trace_events == 0) return;
    if (trace_.size() < options_.trace_events) {
      trace_.push_back({time, kind, task, lock, mode});
    } else {
      trace_[next_] = {time, kind, task, lock, mode};
    }
    if (++next_ == options_.trace_events) next_ = 0;  // a ring: no division per event
  }

  TaskView view(const StepMachine::State& s, const Schedule& schedule, std::uint32_t t) const;
  SafetyViolation violation(const StepMachine::State& s, const Schedule& schedule, std::uint32_t a, std::uint32_t b,
                            const model::ConflictWitness& why) const;
  OvertakeReport overtake(const StepMachine::State& s, const Schedule& schedule, const StepMachine::Overtake& o) const;
  DeadlockReport deadlock(const StepMachine::State& s, const Schedule& schedule,
                          const std::vector<std::uint32_t>& cycle) const;
  // The trace, oldest first, and the schedule prefix of the tasks that arrived.
  void finish_failed(const Schedule& schedule, const std::vector<std::uint8_t>& arrived, RunResult& r) const;

 private:
  struct Record {
    double time;
    TraceKind kind;
    std::uint32_t task;
    std::uint32_t lock;
    impl::ModeId mode;
  };
  std::string lock_text(std::uint32_t lock, impl::ModeId mode) const;
  std::string queue_text(const StepMachine::State& s, const Schedule& schedule, std::uint32_t lock) const;

  const StepMachine& m_;
  const SimOptions& options_;
  std::vector<Record> trace_;
  std::size_t next_ = 0;
};

}  // namespace pathlock::sim::des
