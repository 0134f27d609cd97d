#pragma once
// The one lock-step transition system every checker drives: the explorer's
// searches, the random and PCT schedulers, the discrete-event simulator and
// (re-expressed independently) the Promela model.
//
// Tasks. Each task runs a program over its requests. A request is acquired
// one plan step at a time, shallowest lock first as its scheme orders them,
// through impl::LockQueue (the grant and queue logic the production lock
// runs), then held (its critical section), then released one step at a time,
// last acquired first, as PathLock::Guard does. By default a request is
// released before the next one is taken; a request marked "release at end" is
// held while the task takes its later requests (nesting) and released when
// the task ends, last taken first.
//
// Transitions, one per enabled task (so a schedule is a list of tasks):
//   acquire   the next plan step: granted, or queued (the task then waits);
//   try       a try-acquire step: granted, or refused, which starts a rollback;
//   withdraw  a waiting request that may be withdrawn (a timeout or a
//             cancellation: LockQueue::cancel) gives up, then rolls back;
//   rollback  releases one step the failed request holds; with the last one
//             the request is abandoned and the task moves on without it;
//   release   one step of a held request.
// A release or a withdrawal may grant waiters; they continue from there.
//
// Properties, on the effect of every transition:
//   safety      two tasks in critical sections of conflicting requests
//               (model::conflicts, the oracle; never impl's tables);
//   invariants  LockQueue::check_invariants on every lock the step touched;
//   fairness    every grant judged against the scheme's promise
//               (Scheme::fairness()): a grant of mode m on lock L to request r
//               overtakes waiter w iff w still waits on L, w queued on L
//               before r did (a grant at enqueue: every current waiter), and
//               m and w's mode are incompatible. Judged on the machine's own
//               record of arrival order (State::arrivals), never LockQueue's
//               bookkeeping, which is what it checks (proofs/fairness.md);
//   deadlock    a state where no task can move and some have not ended (the
//               drivers' test), with its wait-for cycle: each waiting task
//               points to its incompatible holders and incompatible waiters
//               ahead (LockQueue::blockers). The edges are read from the
//               queues, never stored, so nothing goes stale; a cycle closed by
//               a new wait must pass through the new waiter, so the
//               incremental check searches from it alone.
//
// Holders and waiters in the queues are "request ids": task * kRequestSlots
// + request, so a task holding one request while it waits for another is two
// entries, and a task waiting for its own earlier request is a self-loop.
//
// Deterministic: no clocks, no iteration over unordered containers.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <span>
#include <string>
#include <vector>

#include "pathlock/impl/lock_queue.hpp"
#include "pathlock/model/lineage_filter.hpp"
#include "pathlock/sim/core/task_planners.hpp"
#include "pathlock/sim/planner.hpp"
#include "pathlock/sim/scenario.hpp"

namespace pathlock::sim {

enum class TaskPhase : std::uint8_t {
  kRunning,      // its next step is an acquire, try or release
  kWaiting,      // queued for a lock
  kRollingBack,  // releasing what a failed or withdrawn request held
  kDone,
};
enum class StepKind : std::uint8_t { kAcquire, kTry, kWithdraw, kRollback, kRelease };
std::string_view to_string(StepKind kind) noexcept;  // "acquire", "try", ...

inline constexpr std::uint64_t kRequestSlots = 32;  // >= kMaxScenarioRequests
inline constexpr impl::TaskId request_id(std::uint32_t task, std::uint32_t request) noexcept {
  return impl::TaskId{task} * kRequestSlots + request;
}
inline constexpr std::uint32_t task_of(impl::TaskId id) noexcept { return static_cast<std::uint32_t>(id / kRequestSlots); }
inline constexpr std::uint32_t request_of(impl::TaskId id) noexcept {
  return static_cast<std::uint32_t>(id % kRequestSlots);
}

// A plan compiled against a lock table: lock indices and modes.
struct CompiledStep {
  std::uint32_t lock;
  impl::ModeId mode;
};
struct CompiledPlan {
  model::Operation op;
  model::Request request;
  impl::Plan plan;
  std::vector<CompiledStep> steps;
  model::LineageFilter filter;  // a cheap pre-test for model::conflicts
};

// Which way a program segment walks a request's plan.
enum class Direction : std::uint8_t { kAcquire, kRelease };
struct Segment {
  std::uint8_t request;
  Direction direction;
  friend bool operator==(const Segment&, const Segment&) = default;
};

struct TaskRequest {
  const CompiledPlan* plan = nullptr;
  AcquireStyle acquire = AcquireStyle::kBlocking;
  WithdrawStyle withdraw = WithdrawStyle::kNever;
};

// What a segment's steps are, resolved from its request once, so that a
// step reads one record instead of following program, request and plan.
struct SegmentSteps {
  const CompiledStep* steps = nullptr;  // the request's plan, in acquisition order
  std::uint32_t size = 0;
  std::uint8_t request = 0;
  Direction direction = Direction::kAcquire;
  StepKind acquire = StepKind::kAcquire;  // kTry for a try-acquire request
  WithdrawStyle withdraw = WithdrawStyle::kNever;
};

// A task's program: its requests and the order its segments run in.
struct TaskProgram {
  std::vector<TaskRequest> requests;
  std::vector<Segment> segments;
  std::vector<SegmentSteps> resolved;  // by segment; derived from the two above
  std::uint32_t symmetry_class = 0;    // the first task with the same program
};

class StepMachine {
 public:
  struct Task {
    std::uint8_t segment = 0;   // index into the program's segments
    std::uint8_t step = 0;      // steps of the segment done; rolling back: steps still held
    TaskPhase phase = TaskPhase::kRunning;
    std::uint32_t abandoned = 0;  // bit r: request r failed or was withdrawn
    friend bool operator==(const Task&, const Task&) = default;
  };
  struct Holding {
    std::uint32_t task;
    std::uint32_t request;
    friend bool operator==(const Holding&, const Holding&) = default;
  };
  // A waiting request, as the machine saw it queue: its own record of
  // arrival order, kept apart from LockQueue's so that fairness is judged
  // independently of the queue under test.
  struct Arrival {
    std::uint32_t lock;
    impl::TaskId request;    // request_id(task, request)
    impl::ModeId mode;
    std::uint32_t stamp;     // when it queued: increasing within a run
    std::uint32_t overtakes; // incompatible grants past it on its lock, this wait
    friend bool operator==(const Arrival&, const Arrival&) = default;
  };
  struct State {
    std::vector<Task> tasks;
    std::vector<impl::LockQueue> locks;  // by lock index
    std::vector<Holding> in_critical;    // requests wholly held: derived, kept for speed
    std::vector<Arrival> arrivals;       // every waiting request, in stamp order
    std::uint32_t next_stamp = 0;
  };
  struct Action {
    StepKind kind;
    std::uint32_t lock;
    impl::ModeId mode;
    std::uint32_t request;
  };
  enum class StepOutcome : std::uint8_t { kGranted, kQueued, kRefused, kWithdrawn, kReleased };
  // A grant of `by_mode` on `lock` to `by` past `waiter`, queued there
  // earlier in an incompatible mode (see "fairness" above).
  struct Overtake {
    std::uint32_t lock;
    std::uint32_t waiter;
    std::uint32_t waiter_request;
    impl::ModeId waiter_mode;
    std::uint32_t by;
    std::uint32_t by_request;
    impl::ModeId by_mode;
    std::uint32_t count;  // the waiter's overtakes in this wait, this one included
  };
  // What a transition did.
  struct Effect {
    StepOutcome outcome = StepOutcome::kGranted;
    std::vector<std::uint32_t> granted;  // tasks a release or withdrawal granted
    std::vector<Holding> entered;        // requests now wholly held
    std::optional<std::string> broken_invariant;  // of a lock the step touched
    std::vector<impl::LockEntry> lock_granted;    // scratch: what the lock queue granted
    std::vector<Overtake> overtakes;              // every overtake of this step, kept or not
  };
  struct Violation {
    std::uint32_t first;   // entered its critical section
    std::uint32_t second;  // was in its own, with a conflicting request
    std::uint32_t first_request = 0;
    std::uint32_t second_request = 0;
  };

  // The explorer's machine: the scenario's tasks, planned by `planner`, or by
  // a task's own scheme choice: through `task_planners` (one per task, null
  // for the default) if given, else resolved here against planner.scheme(). Lock indices follow sorted lock names, so keys and
  // reports do not depend on plan order.
  // REQUIRES: `planner` and every task planner outlive the machine.
  // Throws InputError if the scenario is out of its limits or a plan has over
  // 255 steps.
  StepMachine(const Planner& planner, const Scenario& scenario,
              std::span<const Planner* const> task_planners = {});
  // An empty machine for the simulator, which adds tasks run by run.
  explicit StepMachine(const Planner& planner);
  ~StepMachine();
  StepMachine(const StepMachine&) = delete;
  StepMachine& operator=(const StepMachine&) = delete;

  // --- the simulator's task loading (plans cached per operation) -------------
  void clear_tasks();
  // Appends a one-request task; returns its index.
  std::uint32_t add_task(const model::Operation& op);
  const CompiledPlan& compiled(const model::Operation& op);

  // --- the transition system --------------------------------------------------
  State initial() const;
  // Back to the initial state, keeping buffers (the simulator's runs).
  void reset(State& s) const;
  // The same when every lock is known to be idle (after a completed run).
  void reset_tasks(State& s) const;
  std::size_t task_count() const noexcept { return active_tasks_; }
  bool enabled(const State& s, std::uint32_t t) const noexcept {
    const Task& k = s.tasks[t];
    return k.phase == TaskPhase::kRunning || k.phase == TaskPhase::kRollingBack ||
           (k.phase == TaskPhase::kWaiting && programs_[t].resolved[k.segment].withdraw == WithdrawStyle::kWhileWaiting);
  }
  // Enabled for progress, not merely to give up: preemption counts use this.
  bool can_progress(const State& s, std::uint32_t t) const noexcept {
    return s.tasks[t].phase == TaskPhase::kRunning || s.tasks[t].phase == TaskPhase::kRollingBack;
  }
  bool all_done(const State& s) const noexcept;
  bool any_enabled(const State& s) const noexcept;
  // No task can move, yet not all are done: a deadlock.
  bool stuck(const State& s) const noexcept { return !any_enabled(s) && !all_done(s); }
  // REQUIRES: enabled(s, t).
  Action next_action(const State& s, std::uint32_t t) const {
    const Task& k = s.tasks[t];
    const SegmentSteps& seg = programs_[t].resolved[k.segment];
    const auto at = [&](StepKind kind, std::size_t i) {
      return Action{kind, seg.steps[i].lock, seg.steps[i].mode, seg.request};
    };
    if (k.phase == TaskPhase::kWaiting) return at(StepKind::kWithdraw, k.step);
    if (k.phase == TaskPhase::kRollingBack) return at(StepKind::kRollback, k.step - 1U);
    if (seg.direction == Direction::kAcquire) return at(seg.acquire, k.step);
    return at(StepKind::kRelease, seg.size - 1U - k.step);
  }
  // REQUIRES: enabled(s, t). `check_invariants`: run LockQueue's on the
  // touched lock and report into the effect.
  Effect apply(State& s, std::uint32_t t, bool check_invariants = true) const;
  // Same, reusing `effect`'s buffers (the simulator's hot path).
  void apply(State& s, std::uint32_t t, Effect& effect, bool check_invariants) const;
  // Same, with `action` == next_action(s, t) already in hand.
  // The commonest steps, a blocking acquire and a release, are taken
  // inline: the simulator's and the searches' inner loops.
  void apply(State& s, std::uint32_t t, const Action& action, Effect& effect, bool check_invariants) const {
    effect.granted.clear();
    effect.entered.clear();
    effect.broken_invariant.reset();
    effect.overtakes.clear();
    Task& k = s.tasks[t];
    const SegmentSteps& seg = programs_[t].resolved[k.segment];  // the action is on the current segment
    if (action.kind == StepKind::kAcquire) {
      const impl::TaskId id = request_id(t, action.request);
      if (s.locks[action.lock].acquire(scheme_, id, action.mode) == impl::AcquireOutcome::kQueued) {
        effect.outcome = StepOutcome::kQueued;
        k.phase = TaskPhase::kWaiting;
        s.arrivals.push_back({action.lock, id, action.mode, s.next_stamp++, 0});
      } else {
        effect.outcome = StepOutcome::kGranted;
        if (!s.arrivals.empty()) judge_grant(s, action.lock, {id, action.mode}, kNoStamp, effect);
        if (++k.step == seg.size) finish_segment(s, t, effect);
      }
    } else if (action.kind == StepKind::kRelease) {
      effect.outcome = StepOutcome::kReleased;
      if (k.step == 0) leave_critical(s, t, action.request);  // the critical section ends with the first release
      release_lock(s, action.lock, request_id(t, action.request), effect);
      if (++k.step == seg.size) {
        ++k.segment;
        move_on(s, t);
      }
    } else {
      apply_other(s, t, action, effect);
    }
    if (check_invariants) check_lock(s, action.lock, effect);
  }
  // Every remaining step of t's current release segment, one lock at a time
  // exactly as apply() takes them (same order, same grants, same checks),
  // with one effect reset and one segment lookup: the simulator releases a
  // whole request at one instant. `before(lock)` runs before each step;
  // `after(lock)` after it, with e.lock_granted that step's grants.
  // e.granted and e.entered gather over all the steps. Stops after a step
  // that breaks an invariant, before its `after`.
  // REQUIRES: t is running (kRunning) a release segment.
  template <class Before, class After>
  void release_segment(State& s, std::uint32_t t, Effect& e, bool check_invariants, Before&& before,
                       After&& after) const {
    e.granted.clear();
    e.entered.clear();
    e.broken_invariant.reset();
    e.overtakes.clear();
    e.outcome = StepOutcome::kReleased;
    Task& k = s.tasks[t];
    const SegmentSteps& seg = programs_[t].resolved[k.segment];
    const impl::TaskId id = request_id(t, seg.request);
    if (k.step == 0) leave_critical(s, t, seg.request);  // the critical section ends with the first release
    for (;;) {
      const std::uint32_t lock = seg.steps[seg.size - 1U - k.step].lock;
      before(lock);
      release_lock(s, lock, id, e);
      const bool last = ++k.step == seg.size;
      if (last) {
        ++k.segment;
        move_on(s, t);
      }
      if (check_invariants) {
        check_lock(s, lock, e);
        if (e.broken_invariant) return;
      }
      after(lock);
      if (last) return;
    }
  }
  std::optional<Violation> violation(const State& s, const Effect& e) const;
  // The first overtake of the step beyond the scheme's fairness promise.
  std::optional<Overtake> unfair_overtake(const Effect& e) const;
  // Whether t's and u's next steps commute in s (both enabled, t != u).
  bool independent(const State& s, std::uint32_t t, std::uint32_t u) const;
  // Whether some lock task t holds (any request) has a waiter queued in a
  // mode incompatible with t's: only then can a wait of t close a cycle.
  bool has_incompatible_waiters(const State& s, std::uint32_t t) const noexcept;

  // A cycle in the wait-for graph, each task waiting for the next; empty if
  // none. From every waiting task, or only cycles through `through`.
  std::vector<std::uint32_t> wait_cycle(const State& s) const;
  std::vector<std::uint32_t> wait_cycle_through(const State& s, std::uint32_t through) const;
  // Buffers for repeated searches (the simulator searches on every wait).
  struct CycleScratch {
    // Per lock, what one search has already read of its queue: a waiter
    // whose mode m was read up to position p reaches nothing new from a
    // position <= p, so each queue is read once per mode per search.
    struct LockMark {
      std::uint32_t epoch = 0;
      std::uint32_t holders_read = 0;  // bit m: holders read for mode m
      std::array<std::uint32_t, impl::kMaxModes> waiters_read{};
    };
    std::vector<std::uint32_t> parent;
    std::vector<std::uint32_t> stamp;
    std::vector<LockMark> locks;
    std::vector<std::uint32_t> frontier;
    std::vector<std::uint32_t> next;
    std::uint32_t epoch = 0;
  };
  std::vector<std::uint32_t> wait_cycle_through(const State& s, std::uint32_t through, CycleScratch& scratch) const;
  // The tasks a waiting task waits for, appended to `out` (duplicates removed).
  void blockers(const State& s, std::uint32_t t, std::vector<std::uint32_t>& out) const;

  // The state as bytes; with `symmetry`, in canonical task order, and
  // perm[t] = t's canonical position.
  std::string key(const State& s, bool symmetry, std::vector<std::uint8_t>* perm = nullptr) const;
  // The same into `out`, reusing buffers (a search builds one key per
  // state); afterwards scratch.pos is the permutation.
  struct KeyScratch {
    std::vector<std::uint32_t> order;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> signature;
    std::vector<std::uint8_t> pos;
  };
  void key(const State& s, bool symmetry, std::string& out, KeyScratch& scratch) const;

  // --- structure and text for reports ---------------------------------------
  std::uint32_t current_request(const Task& k, std::uint32_t t) const noexcept {
    return programs_[t].segments[k.segment].request;
  }
  const TaskRequest& task_request(std::uint32_t t, std::size_t r) const noexcept { return programs_[t].requests[r]; }
  std::string task_label(std::uint32_t t) const;                    // "T1"
  std::string request_text(const State& s, std::uint32_t t) const;  // "copy(/a, /b)"
  std::string action_text(const Action& a) const;                   // "W(/a)"
  std::string plan_text(std::uint32_t t, std::size_t request) const;
  std::size_t plan_size(std::uint32_t t, std::size_t r) const { return task_request(t, r).plan->steps.size(); }
  std::size_t request_count(std::uint32_t t) const { return programs_[t].requests.size(); }
  const TaskProgram& program(std::uint32_t t) const { return programs_[t]; }
  std::size_t lock_count() const noexcept { return lock_paths_.size(); }
  // The steps of a plan, in acquisition order: (lock index, mode).
  std::vector<std::pair<std::uint32_t, impl::ModeId>> plan_steps(std::uint32_t t, std::size_t request) const;
  std::string lock_name(std::uint32_t lock) const;
  const model::Path& lock_path(std::uint32_t lock) const { return lock_paths_[lock]; }
  const model::Operation& operation(std::uint32_t t, std::size_t r) const { return task_request(t, r).plan->op; }
  const impl::Scheme& scheme() const noexcept { return scheme_; }

 private:
  struct PlanCache;
  static void resolve(TaskProgram& program);
  // apply() for a try, a withdrawal and a rollback step.
  void apply_other(State& s, std::uint32_t t, const Action& a, Effect& e) const;
  void leave_critical(State& s, std::uint32_t t, std::uint32_t request) const;
  // LockQueue::check_invariants on `lock`, into the effect.
  void check_lock(const State& s, std::uint32_t lock, Effect& e) const;
  const CompiledPlan& compile(const Planner& planner, const model::Operation& op);
  std::uint32_t intern(const model::Path& p);
  void finish_segment(State& s, std::uint32_t t, Effect& e) const;
  void move_on(State& s, std::uint32_t t) const;  // skips abandoned requests' release segments
  void abandon(State& s, std::uint32_t t) const;
  void continue_granted(State& s, std::span<const impl::LockEntry> granted, Effect& e) const;
  void release_lock(State& s, std::uint32_t lock, impl::TaskId id, Effect& e) const;
  // Fairness: judges a grant of `granted` on `lock` against the waiters
  // still recorded there; `stamp` is when the grantee queued, kNoStamp for a
  // grant at enqueue (then every waiter queued before it).
  static constexpr std::uint32_t kNoStamp = 0xFFFFFFFFU;
  void judge_grant(State& s, std::uint32_t lock, impl::LockEntry granted, std::uint32_t stamp, Effect& e) const;
  // Drops `id`'s arrival record (a withdrawn waiter).
  static void forget_arrival(State& s, impl::TaskId id);
  // Judges the grants in e.lock_granted (from `lock`'s queue), and drops
  // their arrival records.
  void judge_queue_grants(State& s, std::uint32_t lock, Effect& e) const;

  const Planner& planner_;
  const impl::Scheme& scheme_;  // planner_.scheme(), without a virtual call per step
  std::unique_ptr<TaskPlanners> own_task_planners_;  // when the scenario names schemes and none were given
  std::unique_ptr<PlanCache> cache_;
  std::vector<TaskProgram> programs_;  // reused run after run: only the first active_tasks_ count
  std::size_t active_tasks_ = 0;
  std::vector<model::Path> lock_paths_;
};

// The longest schedule (every step of every request of every task) of a
// machine's tasks: no run takes more steps (a failed request takes fewer).
std::size_t run_length(const StepMachine& machine);

}  // namespace pathlock::sim
