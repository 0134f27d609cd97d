#pragma once
// A deterministic discrete-event simulator of tasks taking lock plans: the
// timed driver of the one transition system (core/step_machine.hpp).
//
// Virtual time, an event queue ordered by (time, sequence number), no wall
// clock, no iteration over unordered containers: a schedule and a planner
// give one result, always. Each task arrives, takes its plan's acquire steps
// through the machine (impl::LockQueue, the production grant and queue
// logic), holds all its locks for its sampled time, and then takes its k
// release steps at one instant.
//
// While it runs it checks, with the machine's own judges:
//   safety    at every completed acquisition, the new holder against every
//             task that holds its whole plan, by model::conflicts (never by
//             impl's tables); a violation stops the run;
//   deadlock  whenever a task that holds locks starts waiting, the wait-for
//             graph (read from the queues) is searched for a cycle through
//             it, the only kind a new wait can close; a cycle stops the run;
//   invariants  optionally, LockQueue's invariants on every lock a step
//             touches;
// and records the observed concurrency table (every wait attributed to the
// pair categories of waiter and blocker), latencies, waits, bypasses and the
// lock-table size.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pathlock/model/category.hpp"
#include "pathlock/sim/planner.hpp"
#include "pathlock/sim/workload.hpp"

namespace pathlock::sim {

// kUnfairOvertake: a grant overtook a waiter beyond the scheme's fairness
// promise (Scheme::fairness(); a kNone scheme's overtakes are measured only).
enum class RunOutcome { kCompleted, kSafetyViolation, kDeadlock, kBrokenInvariant, kUnfairOvertake };
std::string_view to_string(RunOutcome outcome) noexcept;

struct Percentiles {
  double p50 = 0;
  double p99 = 0;
  double max = 0;
};
// Nearest-rank percentiles; zeros for an empty sample.
Percentiles percentiles(std::vector<double> sample);

// One task as a report shows it.
struct TaskView {
  std::uint32_t task = 0;
  std::uint32_t client = 0;
  std::string operation;  // "copy(/a, /a/b)"
  std::string plan;       // "WA(/) RWA(/a) W(/a/b)"
  std::string held;       // the locks it holds now
  std::string waiting_for;  // "R(/a)" or empty
};

struct SafetyViolation {
  TaskView first;   // the task that just completed its acquisition
  TaskView second;  // a task holding its whole plan that conflicts with it
  std::string why;  // the model's conflict witness
  std::vector<std::string> lock_states;  // the locks both plans name, with holders and waiters
};

// A grant that overtook a waiter beyond the promise: `by` was granted
// `by_lock` while `waiter`, queued there earlier in an incompatible mode,
// still waits.
struct OvertakeReport {
  TaskView waiter;
  TaskView by;
  std::string by_lock;       // "R(/a)": the grant
  std::string waiter_lock;   // "W(/a)": what the waiter waits for
  std::uint32_t count = 0;   // the waiter's overtakes in this wait, this one included
  std::string promised;      // Scheme::fairness_text()
};

struct DeadlockReport {
  std::vector<TaskView> cycle;  // each waits for the next; the last for the first
  std::string dot;              // Graphviz picture of the cycle
};

struct CategoryObservation {
  std::uint64_t waits = 0;       // waits of a single-path task on a single-path blocker
  std::uint64_t concurrent = 0;  // pairs of single-path tasks seen holding together
  std::optional<std::string> witness;  // the first wait, "read(/a) waited for write(/a/b)"
};

struct RunMetrics {
  std::uint64_t tasks_completed = 0;
  std::uint64_t events = 0;
  double makespan = 0;    // first arrival to last release
  double throughput = 0;  // completed tasks per unit of virtual time
  Percentiles latency;    // arrival to release
  Percentiles wait;       // arrival to holding the whole plan, less lock-step time
  std::uint64_t lock_requests = 0;  // acquire calls on the lock table
  std::uint64_t waits = 0;          // lock requests that queued
  std::uint64_t bypasses = 0;       // grants to a later request over a queued one
  std::uint64_t max_bypassed = 0;   // the most bypasses any one wait suffered
  // Overtakes: bypasses by a grant incompatible with the waiter's mode, judged
  // by the step machine on its own arrival record (step_machine.hpp).
  std::uint64_t overtakes = 0;
  std::uint64_t max_overtaken = 0;  // the most overtakes any one wait suffered
  std::size_t max_lock_table = 0;   // most locks in use (held or waited for) at once
  std::size_t distinct_locks = 0;
};

struct RunResult {
  RunOutcome outcome = RunOutcome::kCompleted;
  RunMetrics metrics;
  std::array<CategoryObservation, model::kCategoryCount> observed{};
  std::optional<SafetyViolation> violation;
  std::optional<DeadlockReport> deadlock;
  std::optional<OvertakeReport> overtake;
  std::optional<std::string> broken_invariant;
  std::vector<std::string> trace;  // the last events before a failure, oldest first
  // For a failed run: the prefix of the schedule that reproduces it.
  std::optional<Schedule> replay;
};

enum class InvariantChecks : std::uint8_t { kOff, kEveryStep };

struct SimOptions {
  std::size_t trace_events = 64;  // how many events a failure report shows
  InvariantChecks invariants = InvariantChecks::kOff;  // each check costs O(queue)
  // Called with the run's completed-task count every `progress_every` tasks,
  // so a caller can show progress through a long run (0: never).
  std::function<void(std::uint64_t tasks_completed)> progress{};
  std::uint64_t progress_every = 1024;
};

// Runs schedules against one planner. Plans are cached per distinct
// operation and buffers are reused, so repeated short runs are cheap; every
// run gives exactly what a fresh Simulator would.
class Simulator {
 public:
  // REQUIRES: `planner` outlives the Simulator.
  explicit Simulator(const Planner& planner, SimOptions options = {});
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // The result stays valid until the next run.
  const RunResult& run(const Schedule& schedule);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

RunResult simulate(const Planner& planner, const Schedule& schedule, const SimOptions& options = {});

// The oracle admission policy on the same schedule: a request starts as soon
// as it conflicts (model::conflicts) with no running request and no earlier
// waiting one; FIFO among conflicting requests. No locks, no lock-step time.
RunMetrics simulate_oracle(const Schedule& schedule);

}  // namespace pathlock::sim
