#include "pathlock/sim/simulator.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <queue>
#include <sstream>
#include <unordered_map>

#include "pathlock/impl/lock_queue.hpp"
#include "dot.hpp"
#include "pathlock/model/conflict.hpp"

namespace pathlock::sim {

std::string_view to_string(RunOutcome outcome) noexcept {
  switch (outcome) {
    case RunOutcome::kCompleted: return "completed";
    case RunOutcome::kSafetyViolation: return "safety violation";
    case RunOutcome::kDeadlock: return "deadlock";
  }
  return "?";
}

namespace {
// Sorts `sample` in place.
Percentiles percentiles_in_place(std::vector<double>& sample) {
  if (sample.empty()) return {};
  std::sort(sample.begin(), sample.end());
  const auto rank = [&](double q) {
    auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sample.size())));
    return sample[std::min(sample.size() - 1, k == 0 ? 0 : k - 1)];
  };
  return {rank(0.50), rank(0.99), sample.back()};
}
}  // namespace

Percentiles percentiles(std::vector<double> sample) { return percentiles_in_place(sample); }

namespace {

using impl::LockEntry;
using impl::TaskId;  // a slot: reused once its task is done, so the graph stays small
using WaitForGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

struct CompiledStep {
  std::uint32_t lock;
  impl::ModeId mode;
};

struct OperationHash {
  std::size_t operator()(const model::Operation& op) const noexcept {
    std::size_t h = std::hash<model::Path>{}(op.source) * 31 + static_cast<std::size_t>(op.kind);
    if (op.target) h = h * 1000003 ^ std::hash<model::Path>{}(*op.target);
    return h;
  }
};

struct CompiledPlan {
  impl::Plan plan;
  std::vector<CompiledStep> steps;
  model::Request request;
};

enum class TaskState { kPending, kAcquiring, kWaiting, kHolding, kDone };
enum class EventKind { kArrive, kStep, kRelease };

struct Event {
  double time;
  std::uint64_t seq;
  EventKind kind;
  std::uint32_t task;
  friend bool operator>(const Event& a, const Event& b) {
    return a.time != b.time ? a.time > b.time : a.seq > b.seq;
  }
};

// What the trace keeps of an event; formatted only when a run fails.
enum class TraceKind { kArrive, kGrant, kQueue, kHoldAll, kRelease };
struct TraceRecord {
  double time;
  TraceKind kind;
  std::uint32_t task;
  std::uint32_t lock;
  impl::ModeId mode;
};

struct Task {
  const TaskScript* script = nullptr;
  const CompiledPlan* plan = nullptr;
  TaskState state = TaskState::kPending;
  TaskId slot = 0;
  std::size_t next_step = 0;
  double arrival = 0;
  double acquired = 0;
  std::uint64_t bypassed = 0;  // during its current wait
  bool arrived = false;
};

// Thrown by the cycle search when it closes a cycle.
struct CycleFound {
  TaskId last;
};

class CycleVisitor : public boost::default_dfs_visitor {
 public:
  CycleVisitor(TaskId start, std::vector<TaskId>& pred, std::vector<TaskId>& discovered)
      : start_(start), pred_(pred), discovered_(discovered) {}
  void discover_vertex(TaskId v, const WaitForGraph&) const { discovered_.push_back(v); }
  void tree_edge(WaitForGraph::edge_descriptor e, const WaitForGraph& g) const {
    pred_[boost::target(e, g)] = static_cast<TaskId>(boost::source(e, g));
  }
  void examine_edge(WaitForGraph::edge_descriptor e, const WaitForGraph& g) const {
    if (boost::target(e, g) == start_) throw CycleFound{static_cast<TaskId>(boost::source(e, g))};
  }

 private:
  TaskId start_;
  std::vector<TaskId>& pred_;
  std::vector<TaskId>& discovered_;
};

}  // namespace

class Simulator::Impl {
 public:
  Impl(const Planner& planner, const SimOptions& options)
      : planner_(planner), scheme_(planner.scheme()), options_(options) {}

  const RunResult& go(const Schedule& schedule) {
    schedule_ = &schedule;
    reset();
    compile();
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
    finish();
    return result_;
  }

 private:
  // --- setup -----------------------------------------------------------------
  // Back to a fresh simulator's state, keeping caches and capacity.
  void reset() {
    const bool clean = result_.outcome == RunOutcome::kCompleted && events_.empty();
    if (!clean) {
      for (auto& q : locks_) q = impl::LockQueue{};
      for (std::size_t v = 0; v < slot_task_.size(); ++v) boost::clear_out_edges(v, graph_);
    }
    events_.clear();
    result_.outcome = RunOutcome::kCompleted;
    result_.metrics = RunMetrics{};
    result_.observed = {};
    result_.violation.reset();
    result_.deadlock.reset();
    result_.trace.clear();
    result_.replay.reset();
    seq_ = 0;
    now_ = 0;
    last_release_ = 0;
    active_locks_ = 0;
    // Slots are handed out 0, 1, 2, ... as by a fresh simulator.
    free_slots_.clear();
    for (std::size_t v = slot_task_.size(); v > 0; --v) free_slots_.push_back(static_cast<TaskId>(v - 1));
    full_holders_.clear();
    latencies_.clear();
    waits_.clear();
    trace_.clear();
    trace_next_ = 0;
    for (auto& c : per_client_) c.clear();
  }

  std::uint32_t intern(const model::Path& p) {
    auto [it, inserted] = lock_ids_.try_emplace(p, static_cast<std::uint32_t>(lock_paths_.size()));
    if (inserted) {
      lock_paths_.push_back(p);
      locks_.emplace_back();
    }
    return it->second;
  }

  void compile() {
    tasks_.assign(schedule_->tasks.size(), Task{});
    used_locks_.clear();
    for (std::size_t i = 0; i < schedule_->tasks.size(); ++i) {
      const auto& script = schedule_->tasks[i];
      auto it = plans_.find(script.op);
      if (it == plans_.end()) {
        CompiledPlan cp{planner_.plan(script.op), {}, script.op.request()};
        for (const auto& step : cp.plan) cp.steps.push_back({intern(step.lock), step.mode});
        it = plans_.emplace(script.op, std::move(cp)).first;
      }
      tasks_[i].script = &script;
      tasks_[i].plan = &it->second;
      for (const auto& step : it->second.steps) used_locks_.push_back(step.lock);
    }
    std::sort(used_locks_.begin(), used_locks_.end());
    result_.metrics.distinct_locks = static_cast<std::size_t>(
        std::unique(used_locks_.begin(), used_locks_.end()) - used_locks_.begin());
  }

  void push(double time, EventKind kind, std::uint32_t task) {
    events_.push_back({time, seq_++, kind, task});
    std::push_heap(events_.begin(), events_.end(), std::greater<>{});
  }

  void start_arrivals() {
    if (schedule_->tasks.empty()) return;
    if (schedule_->load == LoadMode::kClosed) {
      if (per_client_.size() < schedule_->clients) per_client_.resize(schedule_->clients);
      for (std::uint32_t i = 0; i < tasks_.size(); ++i) per_client_[tasks_[i].script->client].push_back(i);
      next_of_client_.assign(schedule_->clients, 0);
      for (std::uint32_t c = 0; c < schedule_->clients; ++c) schedule_next_of_client(c, 0.0);
    } else {
      push(tasks_[0].script->gap, EventKind::kArrive, 0);
    }
  }

  void schedule_next_of_client(std::uint32_t client, double after) {
    auto& k = next_of_client_[client];
    if (k >= per_client_[client].size()) return;
    const std::uint32_t t = per_client_[client][k++];
    push(after + tasks_[t].script->gap, EventKind::kArrive, t);
  }

  // --- the task life cycle ---------------------------------------------------
  TaskId take_slot(std::uint32_t task) {
    TaskId slot;
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
    } else {
      slot = static_cast<TaskId>(slot_task_.size());
      slot_task_.push_back(0);
      boost::add_vertex(graph_);
      pred_.push_back(0);
      colors_.push_back(boost::white_color);
    }
    slot_task_[slot] = task;
    return slot;
  }

  void arrive(std::uint32_t t) {
    Task& task = tasks_[t];
    task.arrived = true;
    task.arrival = now_;
    task.state = TaskState::kAcquiring;
    task.slot = take_slot(t);
    trace(TraceKind::kArrive, t, 0, {});
    if (schedule_->load == LoadMode::kOpen && t + 1 < tasks_.size()) {
      push(now_ + tasks_[t + 1].script->gap, EventKind::kArrive, t + 1);
    }
    acquire_steps(t);
  }

  void acquire_steps(std::uint32_t t) {
    Task& task = tasks_[t];
    const auto& steps = task.plan->steps;
    while (task.next_step < steps.size()) {
      const CompiledStep step = steps[task.next_step];
      impl::LockQueue& q = locks_[step.lock];
      if (q.idle()) {
        ++active_locks_;
        result_.metrics.max_lock_table = std::max(result_.metrics.max_lock_table, active_locks_);
      }
      const std::size_t queued_before = q.waiters().size();
      ++result_.metrics.lock_requests;
      if (q.acquire(scheme_, task.slot, step.mode) == impl::AcquireOutcome::kQueued) {
        trace(TraceKind::kQueue, t, step.lock, step.mode);
        start_waiting(t, step.lock);
        return;
      }
      trace(TraceKind::kGrant, t, step.lock, step.mode);
      if (queued_before > 0) {  // granted over everyone queued: all are bypassed
        for (const auto& w : q.waiters()) note_bypass(slot_task_[w.task]);
      }
      ++task.next_step;
      if (schedule_->lock_step_time > 0) {
        push(now_ + schedule_->lock_step_time, EventKind::kStep, t);
        return;
      }
    }
    hold_all(t);
  }

  void note_bypass(std::uint32_t waiter) {
    ++result_.metrics.bypasses;
    Task& w = tasks_[waiter];
    ++w.bypassed;
    result_.metrics.max_bypassed = std::max(result_.metrics.max_bypassed, w.bypassed);
  }

  void start_waiting(std::uint32_t t, std::uint32_t lock) {
    Task& task = tasks_[t];
    task.state = TaskState::kWaiting;
    task.bypassed = 0;
    ++result_.metrics.waits;
    set_wait_edges(task.slot, lock);
    // Attribute the wait to the pair categories of waiter and blockers.
    for (TaskId b : blockers_) {
      const Task& blocker = tasks_[slot_task_[b]];
      if (const auto cat = model::categorize(task.plan->request, blocker.plan->request)) {
        auto& obs = result_.observed[model::index_of(*cat)];
        if (obs.waits++ == 0) {
          obs.witness = fmt::format("{} waited for {}", task.script->op.to_string(), blocker.script->op.to_string());
        }
      }
    }
    find_cycle(task.slot);
  }

  // Sets the waiter's out-edges to its current blockers (left in blockers_).
  void set_wait_edges(TaskId slot, std::uint32_t lock) {
    boost::clear_out_edges(slot, graph_);
    blockers_.clear();
    locks_[lock].blockers(scheme_, slot, blockers_);
    std::sort(blockers_.begin(), blockers_.end());
    blockers_.erase(std::unique(blockers_.begin(), blockers_.end()), blockers_.end());
    for (TaskId b : blockers_) boost::add_edge(slot, b, graph_);
  }

  void find_cycle(TaskId start) {
    discovered_.clear();
    CycleVisitor visitor(start, pred_, discovered_);
    auto color = boost::make_iterator_property_map(colors_.begin(), boost::get(boost::vertex_index, graph_));
    try {
      boost::depth_first_visit(graph_, start, visitor, color);
    } catch (const CycleFound& found) {
      std::vector<TaskId> cycle{found.last};
      while (cycle.back() != start) cycle.push_back(pred_[cycle.back()]);
      std::reverse(cycle.begin(), cycle.end());  // start -> ... -> last -> start
      report_deadlock(cycle);
    }
    for (TaskId v : discovered_) colors_[v] = boost::white_color;
  }

  void hold_all(std::uint32_t t) {
    Task& task = tasks_[t];
    task.state = TaskState::kHolding;
    task.acquired = now_;
    trace(TraceKind::kHoldAll, t, 0, {});
    const double step_time = schedule_->lock_step_time * static_cast<double>(task.plan->steps.size());
    waits_.push_back(std::max(0.0, now_ - task.arrival - step_time));
    for (std::uint32_t other : full_holders_) {
      const Task& o = tasks_[other];
      if (auto why = model::conflict_witness(task.plan->request, o.plan->request)) {
        report_violation(t, other, *why);
        return;
      }
      if (const auto cat = model::categorize(task.plan->request, o.plan->request)) {
        ++result_.observed[model::index_of(*cat)].concurrent;
      }
    }
    full_holders_.push_back(t);
    push(now_ + task.script->hold, EventKind::kRelease, t);
  }

  void release(std::uint32_t t) {
    Task& task = tasks_[t];
    trace(TraceKind::kRelease, t, 0, {});
    granted_.clear();
    const auto& steps = task.plan->steps;
    for (auto s = steps.rbegin(); s != steps.rend(); ++s) {
      impl::LockQueue& q = locks_[s->lock];
      snapshot_.assign(q.waiters().begin(), q.waiters().end());
      const std::size_t first_granted = granted_.size();
      q.release(scheme_, task.slot, granted_);
      // Bypasses: each waiter still queued is bypassed by every waiter granted
      // from behind it.
      for (std::size_t g = first_granted; g < granted_.size(); ++g) {
        for (const auto& w : snapshot_) {
          if (w.task == granted_[g].task) break;
          if (std::any_of(q.waiters().begin(), q.waiters().end(), [&](const LockEntry& k) { return k.task == w.task; })) {
            note_bypass(slot_task_[w.task]);
          }
        }
      }
      for (std::size_t g = first_granted; g < granted_.size(); ++g) {
        trace(TraceKind::kGrant, slot_task_[granted_[g].task], s->lock, granted_[g].mode);
      }
      // Waiters left behind may have lost blockers.
      for (const auto& w : q.waiters()) set_wait_edges(w.task, s->lock);
      if (q.idle()) --active_locks_;
    }
    full_holders_.erase(std::find(full_holders_.begin(), full_holders_.end(), t));
    task.state = TaskState::kDone;
    latencies_.push_back(now_ - task.arrival);
    ++result_.metrics.tasks_completed;
    if (options_.progress && options_.progress_every != 0 &&
        result_.metrics.tasks_completed % options_.progress_every == 0) {
      options_.progress(result_.metrics.tasks_completed);
    }
    last_release_ = now_;
    boost::clear_out_edges(task.slot, graph_);
    free_slots_.push_back(task.slot);
    if (schedule_->load == LoadMode::kClosed) schedule_next_of_client(task.script->client, now_);
    // Continue the tasks just granted, in grant order. (Nothing below touches
    // granted_: only release() does, and it is not re-entered.)
    for (const auto& g : granted_) {
      const std::uint32_t gt = slot_task_[g.task];
      Task& waiter = tasks_[gt];
      boost::clear_out_edges(g.task, graph_);
      waiter.state = TaskState::kAcquiring;
      ++waiter.next_step;
      if (schedule_->lock_step_time > 0) {
        push(now_ + schedule_->lock_step_time, EventKind::kStep, gt);
      } else {
        acquire_steps(gt);
      }
      if (result_.outcome != RunOutcome::kCompleted) return;
    }
  }

  // --- reports -----------------------------------------------------------------
  void trace(TraceKind kind, std::uint32_t task, std::uint32_t lock, impl::ModeId mode) {
    if (options_.trace_events == 0) return;
    if (trace_.size() < options_.trace_events) {
      trace_.push_back({now_, kind, task, lock, mode});
    } else {
      trace_[trace_next_] = {now_, kind, task, lock, mode};
    }
    trace_next_ = (trace_next_ + 1) % options_.trace_events;
  }

  std::string lock_text(std::uint32_t lock, impl::ModeId mode) const {
    return fmt::format("{}({})", scheme_.mode_name(mode), scheme_.lock_label(lock_paths_[lock]));
  }

  TaskView view(std::uint32_t t) const {
    const Task& task = tasks_[t];
    TaskView v;
    v.task = task.script->id;
    v.client = task.script->client;
    v.operation = task.script->op.to_string();
    v.plan = impl::to_string(scheme_, task.plan->plan);
    const std::size_t held = task.state == TaskState::kHolding ? task.plan->steps.size() : task.next_step;
    for (std::size_t i = 0; i < held; ++i) {
      v.held += (v.held.empty() ? "" : " ") + lock_text(task.plan->steps[i].lock, task.plan->steps[i].mode);
    }
    if (task.state == TaskState::kWaiting) {
      const auto& s = task.plan->steps[task.next_step];
      v.waiting_for = lock_text(s.lock, s.mode);
    }
    return v;
  }

  std::string queue_text(std::uint32_t lock) const {
    const auto& q = locks_[lock];
    std::string holders;
    std::string waiters;
    const auto id = [&](TaskId slot) { return tasks_[slot_task_[slot]].script->id; };
    for (const auto& h : q.holders()) holders += fmt::format("{}{}:T{}", holders.empty() ? "" : " ", scheme_.mode_name(h.mode), id(h.task));
    for (const auto& w : q.waiters()) waiters += fmt::format("{}{}:T{}", waiters.empty() ? "" : " ", scheme_.mode_name(w.mode), id(w.task));
    return fmt::format("{}: held by [{}], waiting [{}]", scheme_.lock_label(lock_paths_[lock]), holders, waiters);
  }

  void report_violation(std::uint32_t a, std::uint32_t b, const model::ConflictWitness& why) {
    result_.outcome = RunOutcome::kSafetyViolation;
    SafetyViolation v{view(a), view(b),
                      fmt::format("{} {} by T{} and {} {} by T{} are related", why.first.str(),
                                  why.first_access == model::Access::kWrite ? "written" : "read",
                                  tasks_[a].script->id, why.second.str(),
                                  why.second_access == model::Access::kWrite ? "written" : "read",
                                  tasks_[b].script->id),
                      {}};
    std::vector<std::uint32_t> named;
    for (const auto& s : tasks_[a].plan->steps) named.push_back(s.lock);
    for (const auto& s : tasks_[b].plan->steps) named.push_back(s.lock);
    std::sort(named.begin(), named.end(), [&](auto x, auto y) { return scheme_.order().less(lock_paths_[x], lock_paths_[y]); });
    named.erase(std::unique(named.begin(), named.end()), named.end());
    for (auto l : named) v.lock_states.push_back(queue_text(l));
    result_.violation = std::move(v);
  }

  void report_deadlock(const std::vector<TaskId>& cycle) {
    result_.outcome = RunOutcome::kDeadlock;
    DeadlockReport r;
    std::vector<std::string> labels;
    for (TaskId slot : cycle) {
      const TaskView v = view(slot_task_[slot]);
      labels.push_back(fmt::format("T{} {}\\nholds {}\\nwaits {}", v.task, v.operation, v.held.empty() ? "-" : v.held, v.waiting_for));
      r.cycle.push_back(v);
    }
    r.dot = cycle_dot(labels);
    result_.deadlock = std::move(r);
  }

  void finish() {
    auto& m = result_.metrics;
    m.makespan = last_release_;
    m.throughput = m.makespan > 0 ? static_cast<double>(m.tasks_completed) / m.makespan : 0;
    m.latency = percentiles_in_place(latencies_);
    m.wait = percentiles_in_place(waits_);
    if (result_.outcome == RunOutcome::kCompleted) return;
    // The trace, oldest first.
    const std::size_t n = trace_.size();
    const std::size_t start = n < options_.trace_events ? 0 : trace_next_;
    for (std::size_t i = 0; i < n; ++i) {
      const auto& e = trace_[(start + i) % n];
      const std::string what = [&]() -> std::string {
        switch (e.kind) {
          case TraceKind::kArrive: return fmt::format("arrives: {}", tasks_[e.task].script->op.to_string());
          case TraceKind::kGrant: return fmt::format("gets {}", lock_text(e.lock, e.mode));
          case TraceKind::kQueue: return fmt::format("waits for {}", lock_text(e.lock, e.mode));
          case TraceKind::kHoldAll: return "holds its whole plan";
          case TraceKind::kRelease: return "releases everything";
        }
        return "?";
      }();
      result_.trace.push_back(fmt::format("t={:.6f} T{} {}", e.time, tasks_[e.task].script->id, what));
    }
    Schedule replay;
    replay.load = schedule_->load;
    replay.clients = schedule_->clients;
    replay.lock_step_time = schedule_->lock_step_time;
    for (const auto& t : tasks_) {
      if (t.arrived) replay.tasks.push_back(*t.script);
    }
    result_.replay = std::move(replay);
  }

  const Planner& planner_;
  const impl::Scheme& scheme_;
  const Schedule* schedule_ = nullptr;
  SimOptions options_;
  RunResult result_;

  std::vector<Task> tasks_;
  std::unordered_map<model::Operation, CompiledPlan, OperationHash> plans_;  // looked up, never iterated
  std::vector<std::uint32_t> used_locks_;
  std::unordered_map<model::Path, std::uint32_t> lock_ids_;   // looked up, never iterated
  std::vector<model::Path> lock_paths_;
  std::vector<impl::LockQueue> locks_;
  std::size_t active_locks_ = 0;

  std::vector<Event> events_;  // a min-heap on (time, seq)
  std::uint64_t seq_ = 0;
  double now_ = 0;
  double last_release_ = 0;
  std::vector<std::vector<std::uint32_t>> per_client_;
  std::vector<std::size_t> next_of_client_;

  std::vector<std::uint32_t> slot_task_;
  std::vector<TaskId> free_slots_;
  WaitForGraph graph_;
  std::vector<TaskId> pred_;
  std::vector<boost::default_color_type> colors_;
  std::vector<TaskId> discovered_;
  std::vector<TaskId> blockers_;
  std::vector<LockEntry> granted_;
  std::vector<LockEntry> snapshot_;
  std::vector<std::uint32_t> full_holders_;

  std::vector<double> latencies_;
  std::vector<double> waits_;
  std::vector<TraceRecord> trace_;
  std::size_t trace_next_ = 0;
};

Simulator::Simulator(const Planner& planner, SimOptions options)
    : impl_(std::make_unique<Impl>(planner, options)) {}
Simulator::~Simulator() = default;
const RunResult& Simulator::run(const Schedule& schedule) { return impl_->go(schedule); }

RunResult simulate(const Planner& planner, const Schedule& schedule, const SimOptions& options) {
  Simulator simulator(planner, options);
  return simulator.run(schedule);
}

}  // namespace pathlock::sim
