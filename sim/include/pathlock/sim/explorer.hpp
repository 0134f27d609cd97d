#pragma once
// The model checker: every interleaving of a bounded scenario's lock steps.
//
// The transition system (StepMachine): each task runs its requests one after
// another; for each request it acquires its plan's steps one at a time
// (impl::LockQueue::acquire: granted, or queued until a release grants it),
// is then in its critical section, and releases the steps last-acquired
// first, one transition each, as PathLock::Guard does. Plans come from the
// Planner (impl's own planning), lock state from impl::LockQueue: what is
// checked is what production runs.
//
// Properties, checked on every reachable state:
//   safety    two tasks in their critical sections never have conflicting
//             requests (model::conflicts, the oracle, never impl's tables);
//   deadlock  a state where no task can move but some are not done; the
//             wait-for graph (Boost.Graph: each waiter to its incompatible
//             holders and incompatible waiters ahead) has a cycle there.
//
// Search: depth-first with state hashing; sleep sets over a state-dependent
// independence relation (steps on different locks commute, and so do two
// acquisitions of one lock that are both granted at once in compatible
// modes), with Godefroid's rule for revisited states so that every reachable
// state is still visited; optional symmetry reduction over tasks with
// identical request lists (states are stored in a canonical task order).
// A failure is reported with the shortest trace (breadth-first search).
//
// Deterministic: no clocks, no iteration over unordered containers.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pathlock/impl/lock_queue.hpp"
#include "pathlock/sim/planner.hpp"
#include "pathlock/sim/scenario.hpp"

namespace pathlock::sim {

enum class TaskPhase : std::uint8_t { kRunning, kWaiting, kDone };
enum class StepKind : std::uint8_t { kAcquire, kRelease };

class StepMachine {
 public:
  struct Task {
    std::uint8_t request = 0;   // index into the task's requests
    std::uint8_t acquired = 0;  // steps of the current plan held (or being released)
    std::uint8_t released = 0;  // of those, released
    TaskPhase phase = TaskPhase::kRunning;
    friend bool operator==(const Task&, const Task&) = default;
  };
  struct State {
    std::vector<Task> tasks;
    std::vector<impl::LockQueue> locks;  // by lock index
  };
  struct Action {
    StepKind kind;
    std::uint32_t lock;
    impl::ModeId mode;
  };
  // What a transition did.
  struct Effect {
    impl::AcquireOutcome outcome = impl::AcquireOutcome::kGranted;  // acquire only
    std::vector<std::uint32_t> granted;     // tasks a release granted
    std::vector<std::uint32_t> entered;     // tasks now in their critical section
  };
  struct Violation {
    std::uint32_t first;   // entered its critical section
    std::uint32_t second;  // was in its own, with a conflicting request
  };

  // REQUIRES: `planner` and `scenario` outlive the machine. Throws
  // InputError if a plan step names more than 255 steps.
  StepMachine(const Planner& planner, const Scenario& scenario);

  State initial() const;
  std::size_t task_count() const noexcept { return tasks_.size(); }
  bool enabled(const State& s, std::uint32_t t) const noexcept { return s.tasks[t].phase == TaskPhase::kRunning; }
  bool all_done(const State& s) const noexcept;
  bool any_enabled(const State& s) const noexcept;
  // No task can move, yet not all are done: a deadlock.
  bool stuck(const State& s) const noexcept { return !any_enabled(s) && !all_done(s); }
  Action next_action(const State& s, std::uint32_t t) const;
  Effect apply(State& s, std::uint32_t t) const;
  std::optional<Violation> violation(const State& s, const Effect& e) const;
  // Whether t's and u's next steps commute in s (both enabled, t != u).
  bool independent(const State& s, std::uint32_t t, std::uint32_t u) const;
  // A cycle in the wait-for graph, each task waiting for the next; empty if none.
  std::vector<std::uint32_t> wait_cycle(const State& s) const;
  // The state as bytes; with `symmetry`, in canonical task order, and
  // perm[t] = t's canonical position.
  std::string key(const State& s, bool symmetry, std::vector<std::uint8_t>* perm = nullptr) const;

  // Text for reports.
  std::string task_label(std::uint32_t t) const;               // "T1"
  std::string request_text(const State& s, std::uint32_t t) const;  // "copy(/a, /b)"
  std::string action_text(const Action& a) const;               // "W(/a)"
  std::string plan_text(std::uint32_t t, std::size_t request) const;
  std::size_t plan_size(std::uint32_t t, std::size_t request) const { return tasks_[t].plans[request].size(); }
  std::size_t request_count(std::uint32_t t) const { return tasks_[t].plans.size(); }
  std::size_t lock_count() const noexcept { return lock_names_.size(); }
  // The steps of a plan, in acquisition order: (lock index, mode).
  std::vector<std::pair<std::uint32_t, impl::ModeId>> plan_steps(std::uint32_t t, std::size_t request) const;
  std::string lock_name(std::uint32_t lock) const { return lock_names_[lock]; }
  const model::Operation& operation(std::uint32_t t, std::size_t request) const;
  const impl::Scheme& scheme() const noexcept { return planner_.scheme(); }

 private:
  struct Step {
    std::uint32_t lock;
    impl::ModeId mode;
  };
  struct TaskPlans {
    std::vector<std::vector<Step>> plans;  // per request
    std::vector<model::Request> requests;
    std::uint32_t symmetry_class = 0;      // the first task with the same requests
  };
  const Planner& planner_;
  const Scenario& scenario_;
  std::vector<TaskPlans> tasks_;
  std::vector<std::string> lock_names_;  // sorted: lock indices are deterministic
};

// The longest schedule (acquire and release steps of every request of every
// task) that explore() accepts: the search recurses once per step.
inline constexpr std::size_t kMaxScheduleLength = 4096;

enum class Verdict { kSafeAndDeadlockFree, kSafetyViolation, kDeadlock, kIncomplete };
std::string_view to_string(Verdict verdict) noexcept;

struct ExploreOptions {
  bool partial_order_reduction = true;  // sleep sets
  bool symmetry = true;                 // over tasks with identical request lists
  std::uint64_t max_states = 20'000'000;  // beyond: kIncomplete
  bool count_naive = true;              // also explore without any reduction, counting interleavings
  std::uint64_t max_naive_states = 2'000'000;
  bool shortest_counterexample = true;  // breadth-first search for the shortest failing trace
  // Which properties count as failures: both by default; one alone answers
  // "is any state unsafe?" or "is any state deadlocked?" when a scenario has
  // both (the SPIN cross-check asks each question on its own). A
  // counterexample is built only when both are checked.
  bool check_safety = true;
  bool check_deadlock = true;
};

struct TraceStep {
  std::uint32_t task;
  std::string text;  // "T1 acquire W(/a): queued"
};

struct Counterexample {
  Verdict kind = Verdict::kSafetyViolation;
  std::vector<TraceStep> trace;
  std::vector<std::uint32_t> schedule;  // the task of each step: replays the trace
  std::string summary;                  // what went wrong, in one paragraph
  std::vector<std::string> cycle;       // deadlock: "T1 copy(/a, /b) waits for W(/b)", ...
  struct CycleNode {
    std::string task;       // "T1 copy(/a, /b)"
    std::string waits_for;  // "W(/b)", held or queued ahead by the next node
  };
  std::vector<CycleNode> cycle_nodes;   // deadlock: the same cycle, for pictures
  std::string dot;                      // deadlock: the wait-for cycle in Graphviz DOT
};

struct ExploreResult {
  Verdict verdict = Verdict::kSafeAndDeadlockFree;
  std::uint64_t states = 0;       // distinct (canonical) states visited
  std::uint64_t transitions = 0;  // transitions executed
  std::optional<std::uint64_t> naive_states;         // without any reduction
  std::optional<std::uint64_t> naive_transitions;
  std::optional<long double> naive_interleavings;    // maximal schedules, without reduction
  std::optional<Counterexample> counterexample;
};

ExploreResult explore(const Planner& planner, const Scenario& scenario, const ExploreOptions& options = {});

// The state graph without any reduction: distinct states, transitions, and
// maximal schedules (interleavings). nullopt past `max_states`.
struct UnreducedCounts {
  std::uint64_t states = 0;
  std::uint64_t transitions = 0;
  long double interleavings = 0;
};
std::optional<UnreducedCounts> count_unreduced(const StepMachine& machine, std::uint64_t max_states);

// The number of steps of any complete run: every acquire and every release
// of every request of every task.
std::size_t run_length(const StepMachine& machine);

// A failing schedule with the fewest preemptions (a switch away from a task
// that could still move), and among those the fewest steps; nullopt if no
// schedule fails or the search passes `max_nodes`. Without symmetry, so the
// schedule names real tasks.
std::optional<std::vector<std::uint32_t>> fewest_preemptions_failure(const StepMachine& machine,
                                                                     std::uint64_t max_nodes);

// Runs a schedule (task per step) from the initial state; stops at the first
// failure. For replaying and reducing counterexamples.
Counterexample replay_schedule(const StepMachine& machine, const std::vector<std::uint32_t>& schedule);

}  // namespace pathlock::sim
