#include "pathlock/sim/core/step_machine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "pathlock/model/conflict.hpp"
#include "pathlock/model/error.hpp"

namespace pathlock::sim {

std::string_view to_string(StepKind kind) noexcept {
  switch (kind) {
    case StepKind::kAcquire: return "acquire";
    case StepKind::kTry: return "try";
    case StepKind::kWithdraw: return "withdraw";
    case StepKind::kRollback: return "roll back";
    case StepKind::kRelease: return "release";
  }
  return "?";
}

namespace {

struct OperationHash {
  std::size_t operator()(const model::Operation& op) const noexcept {
    std::size_t h = std::hash<model::Path>{}(op.source) * 31 + static_cast<std::size_t>(op.kind);
    if (op.target) h = h * 1000003 ^ std::hash<model::Path>{}(*op.target);
    return h;
  }
};

constexpr std::size_t kMaxPlanSteps = 255;  // a task's step counter is one byte

}  // namespace

struct StepMachine::PlanCache {
  // The simulator's plans, one per distinct operation under the machine's
  // planner; looked up, never iterated. Held in the nodes (one indirection
  // less per lookup): a node-based map never moves its elements.
  std::unordered_map<model::Operation, CompiledPlan, OperationHash> by_operation;
  std::unordered_map<model::Path, std::uint32_t> lock_ids;  // looked up, never iterated
  std::vector<std::unique_ptr<CompiledPlan>> owned;  // the explorer's, per task and request
};

StepMachine::StepMachine(const Planner& planner)
    : planner_(planner), scheme_(planner.scheme()), cache_(std::make_unique<PlanCache>()) {}
StepMachine::~StepMachine() = default;

std::uint32_t StepMachine::intern(const model::Path& p) {
  auto [it, inserted] = cache_->lock_ids.try_emplace(p, static_cast<std::uint32_t>(lock_paths_.size()));
  if (inserted) lock_paths_.push_back(p);
  return it->second;
}

namespace {

void check_plan_size(const impl::Plan& plan, const model::Operation& op) {
  if (plan.size() == 0 || plan.size() > kMaxPlanSteps) {
    throw model::InputError(model::InputProblem::kBadParameter,
                            fmt::format("the plan of {} has {} steps; the checker takes 1 to {}", op.to_string(),
                                        plan.size(), kMaxPlanSteps));
  }
}

std::vector<Segment> segments_for(const ScenarioTask& task) {
  std::vector<Segment> out;
  std::vector<std::uint8_t> held_to_end;
  for (std::size_t r = 0; r < task.size(); ++r) {
    const auto request = static_cast<std::uint8_t>(r);
    out.push_back({request, Direction::kAcquire});
    if (task[r].release == ReleaseStyle::kBeforeNext) {
      out.push_back({request, Direction::kRelease});
    } else {
      held_to_end.push_back(request);
    }
  }
  for (auto r = held_to_end.rbegin(); r != held_to_end.rend(); ++r) out.push_back({*r, Direction::kRelease});
  return out;
}

}  // namespace

StepMachine::StepMachine(const Planner& planner, const Scenario& scenario,
                         std::span<const Planner* const> task_planners)
    : StepMachine(planner) {
  validate(scenario);
  const bool names_schemes = std::any_of(scenario.tasks.begin(), scenario.tasks.end(),
                                         [](const ScenarioTask& t) { return !t.front().scheme.empty(); });
  if (task_planners.empty() && names_schemes) {
    own_task_planners_ = std::make_unique<TaskPlanners>(planner.scheme(), scenario);
    task_planners = own_task_planners_->planners();
  }
  if (!task_planners.empty() && task_planners.size() != scenario.tasks.size()) {
    throw model::InputError(model::InputProblem::kBadParameter,
                            fmt::format("{}: {} task planners for {} tasks", scenario.name, task_planners.size(),
                                        scenario.tasks.size()));
  }
  const auto planner_of = [&](std::size_t t) -> const Planner& {
    return task_planners.empty() || task_planners[t] == nullptr ? planner : *task_planners[t];
  };
  // Plan everything first, then number the locks in sorted name order.
  std::vector<std::vector<impl::Plan>> plans(scenario.tasks.size());
  std::map<std::string, model::Path> names;
  for (std::size_t t = 0; t < scenario.tasks.size(); ++t) {
    for (const auto& req : scenario.tasks[t]) {
      plans[t].push_back(planner_of(t).plan(req.operation()));
      check_plan_size(plans[t].back(), req.operation());
      for (const auto& step : plans[t].back()) names.emplace(step.lock.str(), step.lock);
    }
  }
  for (const auto& [name, path] : names) intern(path);
  programs_.resize(scenario.tasks.size());
  active_tasks_ = scenario.tasks.size();
  for (std::size_t t = 0; t < scenario.tasks.size(); ++t) {
    TaskProgram& program = programs_[t];
    for (std::size_t r = 0; r < scenario.tasks[t].size(); ++r) {
      const ScenarioRequest& req = scenario.tasks[t][r];
      auto compiled = std::make_unique<CompiledPlan>(
          CompiledPlan{req.operation(), req.operation().request(), std::move(plans[t][r]), {}, {}});
      compiled->filter = model::LineageFilter(compiled->request);
      for (const auto& step : compiled->plan) compiled->steps.push_back({intern(step.lock), step.mode});
      program.requests.push_back({compiled.get(), req.acquire, req.withdraw});
      cache_->owned.push_back(std::move(compiled));
    }
    program.segments = segments_for(scenario.tasks[t]);
    resolve(program);
    program.symmetry_class = static_cast<std::uint32_t>(t);
    for (std::size_t u = 0; u < t; ++u) {
      if (scenario.tasks[u] == scenario.tasks[t]) {
        program.symmetry_class = static_cast<std::uint32_t>(u);
        break;
      }
    }
  }
}

// --- the simulator's task loading ------------------------------------------------

void StepMachine::clear_tasks() { active_tasks_ = 0; }

const CompiledPlan& StepMachine::compiled(const model::Operation& op) {
  auto it = cache_->by_operation.find(op);
  if (it == cache_->by_operation.end()) {
    impl::Plan plan = planner_.plan(op);
    check_plan_size(plan, op);
    CompiledPlan cp{op, op.request(), std::move(plan), {}, {}};
    cp.filter = model::LineageFilter(cp.request);
    for (const auto& step : cp.plan) cp.steps.push_back({intern(step.lock), step.mode});
    it = cache_->by_operation.emplace(op, std::move(cp)).first;
  }
  return it->second;
}

std::uint32_t StepMachine::add_task(const model::Operation& op) {
  const CompiledPlan& plan = compiled(op);
  const auto t = static_cast<std::uint32_t>(active_tasks_++);
  if (t == programs_.size()) programs_.emplace_back();
  TaskProgram& program = programs_[t];  // reused run after run: no allocation once warm
  // What resolve() gives, written directly: this runs once per simulated task.
  program.requests.resize(1);
  program.requests[0] = TaskRequest{&plan, AcquireStyle::kBlocking, WithdrawStyle::kNever};
  program.segments.clear();
  program.segments.push_back({0, Direction::kAcquire});
  program.segments.push_back({0, Direction::kRelease});
  const auto size = static_cast<std::uint32_t>(plan.steps.size());
  program.resolved.clear();
  program.resolved.push_back({plan.steps.data(), size, 0, Direction::kAcquire, StepKind::kAcquire, WithdrawStyle::kNever});
  program.resolved.push_back({plan.steps.data(), size, 0, Direction::kRelease, StepKind::kAcquire, WithdrawStyle::kNever});
  program.symmetry_class = t;
  return t;
}

void StepMachine::resolve(TaskProgram& program) {
  program.resolved.resize(program.segments.size());
  for (std::size_t i = 0; i < program.segments.size(); ++i) {
    const Segment seg = program.segments[i];
    const TaskRequest& req = program.requests[seg.request];
    program.resolved[i] = {req.plan->steps.data(),
                           static_cast<std::uint32_t>(req.plan->steps.size()),
                           seg.request,
                           seg.direction,
                           req.acquire == AcquireStyle::kTry ? StepKind::kTry : StepKind::kAcquire,
                           req.withdraw};
  }
}

// --- the transition system ---------------------------------------------------------

StepMachine::State StepMachine::initial() const {
  State s;
  reset(s);
  return s;
}

void StepMachine::reset(State& s) const {
  for (auto& q : s.locks) {
    if (!q.idle()) q = impl::LockQueue{};
  }
  reset_tasks(s);
}

void StepMachine::reset_tasks(State& s) const {
  s.tasks.assign(task_count(), Task{});
  s.locks.resize(lock_paths_.size());
  s.in_critical.clear();
  s.arrivals.clear();
  s.next_stamp = 0;
}

std::size_t run_length(const StepMachine& m) {
  std::size_t steps = 0;
  for (std::uint32_t t = 0; t < m.task_count(); ++t) {
    for (std::size_t r = 0; r < m.request_count(t); ++r) steps += 2 * m.plan_size(t, r);
  }
  return steps;
}

bool StepMachine::all_done(const State& s) const noexcept {
  return std::all_of(s.tasks.begin(), s.tasks.end(), [](const Task& t) { return t.phase == TaskPhase::kDone; });
}

bool StepMachine::any_enabled(const State& s) const noexcept {
  for (std::uint32_t t = 0; t < task_count(); ++t) {
    if (enabled(s, t)) return true;
  }
  return false;
}

void StepMachine::move_on(State& s, std::uint32_t t) const {
  Task& k = s.tasks[t];
  const auto& segments = programs_[t].resolved;
  while (k.segment < segments.size() && segments[k.segment].direction == Direction::kRelease &&
         ((k.abandoned >> segments[k.segment].request) & 1U) != 0) {
    ++k.segment;
  }
  k.step = 0;
  if (k.segment == segments.size()) k.phase = TaskPhase::kDone;
}

void StepMachine::abandon(State& s, std::uint32_t t) const {
  Task& k = s.tasks[t];
  k.abandoned |= 1U << programs_[t].resolved[k.segment].request;
  k.phase = TaskPhase::kRunning;
  ++k.segment;
  move_on(s, t);
}

void StepMachine::finish_segment(State& s, std::uint32_t t, Effect& e) const {
  Task& k = s.tasks[t];
  const SegmentSteps& seg = programs_[t].resolved[k.segment];
  if (seg.direction == Direction::kAcquire) {
    e.entered.push_back({t, seg.request});
    s.in_critical.push_back({t, seg.request});
  }
  ++k.segment;
  move_on(s, t);
}

void StepMachine::continue_granted(State& s, std::span<const impl::LockEntry> granted, Effect& e) const {
  for (const auto& g : granted) {
    const std::uint32_t u = task_of(g.task);
    Task& other = s.tasks[u];
    other.phase = TaskPhase::kRunning;
    e.granted.push_back(u);
    if (++other.step == programs_[u].resolved[other.segment].size) finish_segment(s, u, e);
  }
}

void StepMachine::release_lock(State& s, std::uint32_t lock, impl::TaskId id, Effect& e) const {
  e.lock_granted.clear();
  // The queue's own list of the newly granted, not release(granted): that
  // one counts the grants ahead to reserve the list, and misses the inline
  // path of a lone holder leaving an empty queue (the commonest release).
  impl::LockQueue& q = s.locks[lock];
  const std::size_t count = q.release_granting(scheme(), id).count;
  if (count == 0) return;
  const auto fresh = q.last_granted(count);
  e.lock_granted.assign(fresh.begin(), fresh.end());
  judge_queue_grants(s, lock, e);
  continue_granted(s, e.lock_granted, e);
}

StepMachine::Effect StepMachine::apply(State& s, std::uint32_t t, bool check_invariants) const {
  Effect e;
  apply(s, t, e, check_invariants);
  return e;
}

void StepMachine::apply(State& s, std::uint32_t t, Effect& e, bool check_invariants) const {
  apply(s, t, next_action(s, t), e, check_invariants);
}

void StepMachine::apply_other(State& s, std::uint32_t t, const Action& a, Effect& e) const {
  Task& k = s.tasks[t];
  const impl::TaskId id = request_id(t, a.request);
  const std::uint32_t plan_size = programs_[t].resolved[k.segment].size;  // the action is on the current segment
  switch (a.kind) {
    case StepKind::kAcquire:
    case StepKind::kRelease:
      break;  // apply() takes these inline
    case StepKind::kTry:
      if (s.locks[a.lock].try_acquire(scheme(), id, a.mode)) {
        e.outcome = StepOutcome::kGranted;
        if (!s.arrivals.empty()) judge_grant(s, a.lock, {id, a.mode}, kNoStamp, e);
        if (++k.step == plan_size) finish_segment(s, t, e);
      } else {
        e.outcome = StepOutcome::kRefused;
        k.phase = TaskPhase::kRollingBack;
        if (k.step == 0) abandon(s, t);
      }
      break;
    case StepKind::kWithdraw:
      e.outcome = StepOutcome::kWithdrawn;
      e.lock_granted.clear();
      s.locks[a.lock].cancel(scheme(), id, e.lock_granted);
      k.phase = TaskPhase::kRollingBack;
      forget_arrival(s, id);
      judge_queue_grants(s, a.lock, e);
      continue_granted(s, e.lock_granted, e);
      if (k.step == 0) abandon(s, t);
      break;
    case StepKind::kRollback:
      e.outcome = StepOutcome::kReleased;
      release_lock(s, a.lock, id, e);
      if (--k.step == 0) abandon(s, t);
      break;
  }
}

void StepMachine::leave_critical(State& s, std::uint32_t t, std::uint32_t request) const {
  const Holding mine{t, request};
  s.in_critical.erase(std::find(s.in_critical.begin(), s.in_critical.end(), mine));
}

void StepMachine::check_lock(const State& s, std::uint32_t lock, Effect& e) const {
  std::string broken = s.locks[lock].check_invariants(scheme());
  if (!broken.empty()) e.broken_invariant = fmt::format("lock {}: {}", lock_name(lock), broken);
}

std::optional<StepMachine::Violation> StepMachine::violation(const State& s, const Effect& e) const {
  for (const Holding& mine : e.entered) {
    const auto& request = programs_[mine.task].requests[mine.request].plan->request;
    for (const Holding& other : s.in_critical) {
      if (other.task == mine.task) continue;
      if (model::conflicts(request, programs_[other.task].requests[other.request].plan->request)) {
        return Violation{mine.task, other.task, mine.request, other.request};
      }
    }
  }
  return std::nullopt;
}

bool StepMachine::independent(const State& s, std::uint32_t t, std::uint32_t u) const {
  const Action a = next_action(s, t);
  const Action b = next_action(s, u);
  if (a.lock != b.lock) return true;
  const auto takes = [](StepKind k) { return k == StepKind::kAcquire || k == StepKind::kTry; };
  if (!takes(a.kind) || !takes(b.kind)) return false;
  // Both granted at once, in either order: they commute. (As two
  // try_acquire calls on a copy of the queue would find, without the copy:
  // the first must suit every held and queued mode, the second those and
  // the first's; compatibility is symmetric, so the order does not matter.)
  const impl::LockQueue& q = s.locks[a.lock];
  const std::uint32_t taken = q.held_mask() | q.queued_mask();
  const auto suits = [&](impl::ModeId m, std::uint32_t modes) {
    for (std::uint8_t x = 0; modes != 0; ++x, modes >>= 1U) {
      if ((modes & 1U) != 0 && !scheme().compatible(m, impl::ModeId{x})) return false;
    }
    return true;
  };
  return suits(a.mode, taken) && suits(b.mode, taken | (1U << a.mode.index));
}

bool StepMachine::has_incompatible_waiters(const State& s, std::uint32_t t) const noexcept {
  const Task& k = s.tasks[t];
  if (k.phase == TaskPhase::kDone) return false;
  const auto waited_for = [&](const CompiledStep& step) {
    const std::uint32_t queued = s.locks[step.lock].queued_mask();
    for (std::uint8_t m = 0; m < scheme().mode_count(); ++m) {
      if (((queued >> m) & 1U) != 0 && !scheme().compatible(step.mode, impl::ModeId{m})) return true;
    }
    return false;
  };
  const TaskProgram& program = programs_[t];
  const auto& steps = program.requests[program.segments[k.segment].request].plan->steps;
  // The current request: a prefix while acquiring or rolling back, a suffix while releasing.
  const bool releasing = program.segments[k.segment].direction == Direction::kRelease && k.phase == TaskPhase::kRunning;
  const std::size_t to = releasing ? steps.size() - k.step : k.step;
  for (std::size_t i = 0; i < to; ++i) {
    if (waited_for(steps[i])) return true;
  }
  if (program.requests.size() == 1) return false;  // no other request of t can be held
  for (const Holding& h : s.in_critical) {
    if (h.task != t || h.request == program.segments[k.segment].request) continue;
    for (const auto& step : program.requests[h.request].plan->steps) {
      if (waited_for(step)) return true;
    }
  }
  return false;
}

}  // namespace pathlock::sim
