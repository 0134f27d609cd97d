// The discrete-event simulator: the timed driver of the step machine.

#include "pathlock/sim/simulator.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "metrics.hpp"
#include "pathlock/model/category.hpp"
#include "pathlock/model/conflict.hpp"
#include "pathlock/sim/core/properties.hpp"
#include "run_report.hpp"

namespace pathlock::sim {

namespace {

enum class EventKind : std::uint8_t { kArrive, kStep, kRelease };

struct Event {
  double time;
  std::uint64_t seq;
  EventKind kind;
  std::uint32_t task;
  friend bool operator>(const Event& a, const Event& b) { return a.time != b.time ? a.time > b.time : a.seq > b.seq; }
};

}  // namespace

class Simulator::Impl {
 public:
  Impl(const Planner& planner, const SimOptions& options)
      : options_(options), machine_(planner), report_(machine_, options_) {}

  const RunResult& go(const Schedule& schedule) {
    schedule_ = &schedule;
    load();
    start_arrivals();
    while (!events_.empty() && result_.outcome == RunOutcome::kCompleted) {
      std::pop_heap(events_.begin(), events_.end(), std::greater<>{});
      const Event e = events_.back();
      events_.pop_back();
      now_ = e.time;
      ++result_.metrics.events;
      switch (e.kind) {
        case EventKind::kArrive: arrive(e.task); break;
        case EventKind::kStep: acquire_steps(e.task); break;
        case EventKind::kRelease: release(e.task); break;
      }
    }
    metrics_.finish(result_, last_release_);
    if (result_.outcome != RunOutcome::kCompleted) report_.finish_failed(schedule, arrived_, result_);
    return result_;
  }

 private:
  // --- setup -------------------------------------------------------------------
  void load() {
    machine_.clear_tasks();
    // Distinct locks, by marking each lock with this run's number (no sort).
    if (++run_mark_ == 0) {  // wrapped: forget every old mark
      std::fill(lock_mark_.begin(), lock_mark_.end(), 0);
      run_mark_ = 1;
    }
    std::size_t distinct = 0;
    for (const auto& script : schedule_->tasks) {
      const std::uint32_t t = machine_.add_task(script.op);
      if (lock_mark_.size() < machine_.lock_count()) lock_mark_.resize(machine_.lock_count(), 0);
      for (const auto& step : machine_.task_request(t, 0).plan->steps) {
        if (lock_mark_[step.lock] != run_mark_) {
          lock_mark_[step.lock] = run_mark_;
          ++distinct;
        }
      }
    }
    // After a completed run every lock is idle again: only a stopped run
    // leaves queues to clear (a reset walks every lock ever seen).
    if (result_.outcome == RunOutcome::kCompleted) {
      machine_.reset_tasks(state_);
    } else {
      machine_.reset(state_);
    }
    events_.clear();
    result_.outcome = RunOutcome::kCompleted;
    metrics_.reset(schedule_->tasks.size(), result_);
    result_.violation.reset();
    result_.deadlock.reset();
    result_.overtake.reset();
    result_.broken_invariant.reset();
    result_.trace.clear();
    result_.replay.reset();
    report_.reset();
    arrived_.assign(schedule_->tasks.size(), 0);
    arrival_.resize(schedule_->tasks.size());
    seq_ = 0;
    now_ = 0;
    last_release_ = 0;
    result_.metrics.distinct_locks = distinct;
  }

  void push(double time, EventKind kind, std::uint32_t task) {
    events_.push_back({time, seq_++, kind, task});
    std::push_heap(events_.begin(), events_.end(), std::greater<>{});
  }

  void start_arrivals() {
    if (schedule_->tasks.empty()) return;
    if (schedule_->load == LoadMode::kClosed) {
      per_client_.resize(std::max<std::size_t>(per_client_.size(), schedule_->clients));
      for (auto& c : per_client_) c.clear();
      for (std::uint32_t i = 0; i < schedule_->tasks.size(); ++i) per_client_[schedule_->tasks[i].client].push_back(i);
      next_of_client_.assign(schedule_->clients, 0);
      for (std::uint32_t c = 0; c < schedule_->clients; ++c) next_of_client(c, 0.0);
    } else {
      push(schedule_->tasks[0].gap, EventKind::kArrive, 0);
    }
  }

  void next_of_client(std::uint32_t client, double after) {
    auto& k = next_of_client_[client];
    if (k >= per_client_[client].size()) return;
    const std::uint32_t t = per_client_[client][k++];
    push(after + schedule_->tasks[t].gap, EventKind::kArrive, t);
  }

  // --- the task life cycle -----------------------------------------------------
  void arrive(std::uint32_t t) {
    arrived_[t] = 1;
    arrival_[t] = now_;
    report_.record(now_, des::TraceKind::kArrive, t);
    if (schedule_->load == LoadMode::kOpen && t + 1 < schedule_->tasks.size()) {
      push(now_ + schedule_->tasks[t + 1].gap, EventKind::kArrive, t + 1);
    }
    acquire_steps(t);
  }

  bool step(std::uint32_t t, const StepMachine::Action& a) {
    machine_.apply(state_, t, a, effect_, options_.invariants == InvariantChecks::kEveryStep);
    if (effect_.broken_invariant) {
      result_.outcome = RunOutcome::kBrokenInvariant;
      result_.broken_invariant = effect_.broken_invariant;
      return false;
    }
    return fair();
  }

  // Counts the step's overtakes; false (the run stops) if one breaks the
  // scheme's fairness promise.
  bool fair() {
    if (effect_.overtakes.empty()) return true;
    metrics_.overtaken(result_, effect_.overtakes);
    const auto unfair = machine_.unfair_overtake(effect_);
    if (!unfair) return true;
    result_.outcome = RunOutcome::kUnfairOvertake;
    result_.overtake = report_.overtake(state_, *schedule_, *unfair);
    return false;
  }

  // Acquire steps until the plan is held, the task waits, or a step takes time.
  void acquire_steps(std::uint32_t t) {
    for (;;) {
      const auto a = machine_.next_action(state_, t);
      const bool was_idle = state_.locks[a.lock].idle();
      const bool had_waiters = !state_.locks[a.lock].waiters().empty();
      metrics_.lock_request(result_, was_idle);
      if (!step(t, a)) return;
      if (effect_.outcome == StepMachine::StepOutcome::kQueued) {
        report_.record(now_, des::TraceKind::kQueue, t, a.lock, a.mode);
        start_waiting(t);
        return;
      }
      report_.record(now_, des::TraceKind::kGrant, t, a.lock, a.mode);
      // Granted over everyone queued (the queue is unchanged): all are bypassed.
      if (had_waiters) metrics_.granted_over(result_, state_.locks[a.lock].waiters());
      if (!effect_.entered.empty()) {
        hold_all(t);
        return;
      }
      if (schedule_->lock_step_time > 0) {
        push(now_ + schedule_->lock_step_time, EventKind::kStep, t);
        return;
      }
    }
  }

  void start_waiting(std::uint32_t t) {
    metrics_.started_waiting(result_, t);
    blockers_.clear();
    machine_.blockers(state_, t, blockers_);
    const auto& mine = machine_.task_request(t, 0).plan->request;
    for (const std::uint32_t b : blockers_) {
      if (const auto cat = model::categorize(mine, machine_.task_request(b, 0).plan->request)) {
        auto& obs = result_.observed[model::index_of(*cat)];
        if (obs.waits++ == 0) {
          obs.witness = fmt::format("{} waited for {}", schedule_->tasks[t].op.to_string(),
                                    schedule_->tasks[b].op.to_string());
        }
      }
    }
    // A cycle this wait closes passes through t, so t must be waited for.
    if (!machine_.has_incompatible_waiters(state_, t)) return;
    const auto cycle = machine_.wait_cycle_through(state_, t, cycle_scratch_);
    if (cycle.empty()) return;
    result_.outcome = RunOutcome::kDeadlock;
    result_.deadlock = report_.deadlock(state_, *schedule_, cycle);
  }

  void hold_all(std::uint32_t t) {
    report_.record(now_, des::TraceKind::kHoldAll, t);
    const double step_time =
        schedule_->lock_step_time * static_cast<double>(machine_.task_request(t, 0).plan->steps.size());
    metrics_.waited(std::max(0.0, now_ - arrival_[t] - step_time));
    const CompiledPlan& my_plan = *machine_.task_request(t, 0).plan;
    const auto& mine = my_plan.request;
    // Against the tasks that entered before it (in_critical keeps entry
    // order): each pair is judged and counted once, by its later member.
    for (const auto& other : state_.in_critical) {
      if (other.task == t) break;
      const CompiledPlan& their_plan = *machine_.task_request(other.task, 0).plan;
      const auto& theirs = their_plan.request;
      if (may_conflict(my_plan.filter, their_plan.filter) && model::conflicts(mine, theirs)) {  // the witness only when there is one: it builds paths
        result_.outcome = RunOutcome::kSafetyViolation;
        result_.violation = report_.violation(state_, *schedule_, t, other.task, *model::conflict_witness(mine, theirs));
        return;
      }
      if (const auto cat = model::categorize(mine, theirs)) ++result_.observed[model::index_of(*cat)].concurrent;
    }
    push(now_ + schedule_->tasks[t].hold, EventKind::kRelease, t);
  }

  // Every release step at this instant; then the tasks granted, in grant order.
  void release(std::uint32_t t) {
    report_.record(now_, des::TraceKind::kRelease, t);
    granted_.clear();
    bool had_waiters = false;  // of the lock being released: else the step grants nobody
    const auto before = [&](std::uint32_t lock) {
      const impl::LockQueue& q = state_.locks[lock];
      had_waiters = !q.waiters().empty();
      if (had_waiters) queued_.assign(q.waiters().begin(), q.waiters().end());
    };
    const auto after = [&](std::uint32_t lock) {
      const impl::LockQueue& q = state_.locks[lock];
      if (had_waiters) {
        metrics_.granted_from_queue(result_, queued_, effect_.lock_granted, q.waiters());
        for (const auto& g : effect_.lock_granted) {
          report_.record(now_, des::TraceKind::kGrant, task_of(g.task), lock, g.mode);
        }
      }
      metrics_.lock_idle(q.idle());
    };
    while (state_.tasks[t].phase != TaskPhase::kDone) {
      machine_.release_segment(state_, t, effect_, options_.invariants == InvariantChecks::kEveryStep, before, after);
      if (effect_.broken_invariant) {
        result_.outcome = RunOutcome::kBrokenInvariant;
        result_.broken_invariant = effect_.broken_invariant;
        return;
      }
      if (!fair()) return;
      granted_.insert(granted_.end(), effect_.granted.begin(), effect_.granted.end());
    }
    metrics_.completed(result_, now_ - arrival_[t]);
    last_release_ = now_;
    if (options_.progress && options_.progress_every != 0 &&
        result_.metrics.tasks_completed % options_.progress_every == 0) {
      options_.progress(result_.metrics.tasks_completed);
    }
    if (schedule_->load == LoadMode::kClosed) next_of_client(schedule_->tasks[t].client, now_);
    for (const std::uint32_t g : granted_) {
      if (machine_.program(g).segments[state_.tasks[g].segment].direction == Direction::kRelease) {
        hold_all(g);  // the grant completed its plan
      } else if (schedule_->lock_step_time > 0) {
        push(now_ + schedule_->lock_step_time, EventKind::kStep, g);
      } else {
        acquire_steps(g);
      }
      if (result_.outcome != RunOutcome::kCompleted) return;
    }
  }

  SimOptions options_;
  StepMachine machine_;
  des::RunReport report_;
  des::Metrics metrics_;
  StepMachine::State state_;
  StepMachine::Effect effect_;
  StepMachine::CycleScratch cycle_scratch_;
  const Schedule* schedule_ = nullptr;
  RunResult result_;

  std::vector<std::uint32_t> lock_mark_;  // by lock: the last run that used it
  std::uint32_t run_mark_ = 0;
  std::vector<Event> events_;  // a min-heap on (time, seq)
  std::uint64_t seq_ = 0;
  double now_ = 0;
  double last_release_ = 0;
  std::vector<std::vector<std::uint32_t>> per_client_;
  std::vector<std::size_t> next_of_client_;
  std::vector<std::uint8_t> arrived_;
  std::vector<double> arrival_;
  std::vector<impl::LockEntry> queued_;
  std::vector<std::uint32_t> blockers_;
  std::vector<std::uint32_t> granted_;
};

Simulator::Simulator(const Planner& planner, SimOptions options) : impl_(std::make_unique<Impl>(planner, options)) {}
Simulator::~Simulator() = default;
const RunResult& Simulator::run(const Schedule& schedule) { return impl_->go(schedule); }

RunResult simulate(const Planner& planner, const Schedule& schedule, const SimOptions& options) {
  Simulator simulator(planner, options);
  return simulator.run(schedule);
}

}  // namespace pathlock::sim
