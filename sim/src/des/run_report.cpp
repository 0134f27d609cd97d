#include "run_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "../dot.hpp"

namespace pathlock::sim::des {

void RunReport::reset() {
  trace_.clear();
  next_ = 0;
}

std::string RunReport::lock_text(std::uint32_t lock, impl::ModeId mode) const {
  return fmt::format("{}({})", m_.scheme().mode_name(mode), m_.scheme().lock_label(m_.lock_path(lock)));
}

TaskView RunReport::view(const StepMachine::State& s, const Schedule& schedule, std::uint32_t t) const {
  const auto& k = s.tasks[t];
  const TaskScript& script = schedule.tasks[t];
  const auto& plan = *m_.task_request(t, 0).plan;
  TaskView v;
  v.task = script.id;
  v.client = script.client;
  v.operation = script.op.to_string();
  v.plan = impl::to_string(m_.scheme(), plan.plan);
  // Acquiring or waiting: `step` steps held; holding: all; releasing: the rest.
  const bool acquiring = k.phase != TaskPhase::kDone && m_.program(t).segments[k.segment].direction == Direction::kAcquire;
  const std::size_t held = acquiring ? k.step : (k.phase == TaskPhase::kDone ? 0 : plan.steps.size() - k.step);
  for (std::size_t i = 0; i < held; ++i) {
    v.held += (v.held.empty() ? "" : " ") + lock_text(plan.steps[i].lock, plan.steps[i].mode);
  }
  if (k.phase == TaskPhase::kWaiting) v.waiting_for = lock_text(plan.steps[k.step].lock, plan.steps[k.step].mode);
  return v;
}

std::string RunReport::queue_text(const StepMachine::State& s, const Schedule& schedule, std::uint32_t lock) const {
  const auto& q = s.locks[lock];
  std::string holders;
  std::string waiters;
  const auto id = [&](impl::TaskId rid) { return schedule.tasks[task_of(rid)].id; };
  for (const auto& h : q.holders()) {
    holders += fmt::format("{}{}:T{}", holders.empty() ? "" : " ", m_.scheme().mode_name(h.mode), id(h.task));
  }
  for (const auto& w : q.waiters()) {
    waiters += fmt::format("{}{}:T{}", waiters.empty() ? "" : " ", m_.scheme().mode_name(w.mode), id(w.task));
  }
  return fmt::format("{}: held by [{}], waiting [{}]", m_.scheme().lock_label(m_.lock_path(lock)), holders, waiters);
}

SafetyViolation RunReport::violation(const StepMachine::State& s, const Schedule& schedule, std::uint32_t a,
                                     std::uint32_t b, const model::ConflictWitness& why) const {
  const auto access = [](model::Access x) { return x == model::Access::kWrite ? "written" : "read"; };
  SafetyViolation v{view(s, schedule, a), view(s, schedule, b),
                    fmt::format("{} {} by T{} and {} {} by T{} are related", why.first.str(),
                                access(why.first_access), schedule.tasks[a].id, why.second.str(),
                                access(why.second_access), schedule.tasks[b].id),
                    {}};
  std::vector<std::uint32_t> named;
  for (const auto t : {a, b}) {
    for (const auto& step : m_.task_request(t, 0).plan->steps) named.push_back(step.lock);
  }
  const auto& order = m_.scheme().order();
  std::sort(named.begin(), named.end(), [&](auto x, auto y) { return order.less(m_.lock_path(x), m_.lock_path(y)); });
  named.erase(std::unique(named.begin(), named.end()), named.end());
  for (auto l : named) v.lock_states.push_back(queue_text(s, schedule, l));
  return v;
}

OvertakeReport RunReport::overtake(const StepMachine::State& s, const Schedule& schedule,
                                   const StepMachine::Overtake& o) const {
  return OvertakeReport{view(s, schedule, o.waiter), view(s, schedule, o.by), lock_text(o.lock, o.by_mode),
                        lock_text(o.lock, o.waiter_mode), o.count, m_.scheme().fairness_text()};
}

DeadlockReport RunReport::deadlock(const StepMachine::State& s, const Schedule& schedule,
                                   const std::vector<std::uint32_t>& cycle) const {
  DeadlockReport r;
  std::vector<std::string> labels;
  for (const auto t : cycle) {
    const TaskView v = view(s, schedule, t);
    labels.push_back(
        fmt::format("T{} {}\\nholds {}\\nwaits {}", v.task, v.operation, v.held.empty() ? "-" : v.held, v.waiting_for));
    r.cycle.push_back(v);
  }
  r.dot = cycle_dot(labels);
  return r;
}

void RunReport::finish_failed(const Schedule& schedule, const std::vector<std::uint8_t>& arrived, RunResult& r) const {
  const std::size_t n = trace_.size();
  const std::size_t start = n < options_.trace_events ? 0 : next_;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& e = trace_[(start + i) % n];
    const std::string what = [&]() -> std::string {
      switch (e.kind) {
        case TraceKind::kArrive: return fmt::format("arrives: {}", schedule.tasks[e.task].op.to_string());
        case TraceKind::kGrant: return fmt::format("gets {}", lock_text(e.lock, e.mode));
        case TraceKind::kQueue: return fmt::format("waits for {}", lock_text(e.lock, e.mode));
        case TraceKind::kHoldAll: return "holds its whole plan";
        case TraceKind::kRelease: return "releases everything";
      }
      return "?";
    }();
    r.trace.push_back(fmt::format("t={:.6f} T{} {}", e.time, schedule.tasks[e.task].id, what));
  }
  Schedule replay;
  replay.load = schedule.load;
  replay.clients = schedule.clients;
  replay.lock_step_time = schedule.lock_step_time;
  for (std::size_t t = 0; t < schedule.tasks.size(); ++t) {
    if (arrived[t] != 0) replay.tasks.push_back(schedule.tasks[t]);
  }
  r.replay = std::move(replay);
}

}  // namespace pathlock::sim::des
