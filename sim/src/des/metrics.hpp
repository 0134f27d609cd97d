#pragma once
// What the simulator measures, apart from how it runs: latencies, waits,
// bypasses, the lock-table size and the observed concurrency table. Internal.

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "pathlock/impl/lock_queue.hpp"
#include "pathlock/sim/core/step_machine.hpp"
#include "pathlock/sim/simulator.hpp"

namespace pathlock::sim::des {

class Metrics {
 public:
  // Back to zero, keeping buffers.
  void reset(std::size_t tasks, RunResult& result);

  void lock_request(RunResult& r, bool lock_was_idle) {
    ++r.metrics.lock_requests;
    if (lock_was_idle) {
      ++active_locks_;
      r.metrics.max_lock_table = std::max(r.metrics.max_lock_table, active_locks_);
    }
  }
  void lock_idle(bool now_idle) {
    if (now_idle) --active_locks_;
  }
  // A request granted over `queued` waiters: each of them is bypassed.
  void granted_over(RunResult& r, std::span<const impl::LockEntry> queued) {
    for (const auto& w : queued) bypass(r, task_of(w.task));
  }
  // After a release step: each waiter still queued is bypassed by every
  // waiter granted from behind it. `before` is the queue before the step.
  void granted_from_queue(RunResult& r, std::span<const impl::LockEntry> before,
                          std::span<const impl::LockEntry> granted, std::span<const impl::LockEntry> after);
  // Overtakes of one step, as the step machine judged them.
  void overtaken(RunResult& r, std::span<const StepMachine::Overtake> overtakes) {
    for (const auto& o : overtakes) {
      ++r.metrics.overtakes;
      r.metrics.max_overtaken = std::max<std::uint64_t>(r.metrics.max_overtaken, o.count);
    }
  }
  void started_waiting(RunResult& r, std::uint32_t task) {
    ++r.metrics.waits;
    bypassed_[task] = 0;
  }
  void waited(double wait) { waits_.push_back(wait); }
  void completed(RunResult& r, double latency) {
    latencies_.push_back(latency);
    ++r.metrics.tasks_completed;
  }
  // Percentiles, makespan and throughput.
  void finish(RunResult& r, double makespan);

 private:
  void bypass(RunResult& r, std::uint32_t task) {
    ++r.metrics.bypasses;
    r.metrics.max_bypassed = std::max(r.metrics.max_bypassed, ++bypassed_[task]);
  }

  std::vector<std::uint64_t> bypassed_;  // per task, during its current wait
  std::vector<double> latencies_;
  std::vector<double> waits_;
  std::size_t active_locks_ = 0;
};

}  // namespace pathlock::sim::des
