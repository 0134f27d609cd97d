#include "pathlock/sim/explorer.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <numeric>
#include <queue>
#include <tuple>
#include <unordered_map>

#include "dot.hpp"
#include "pathlock/model/conflict.hpp"
#include "pathlock/model/error.hpp"

namespace pathlock::sim {

std::string_view to_string(Verdict verdict) noexcept {
  switch (verdict) {
    case Verdict::kSafeAndDeadlockFree: return "safe and deadlock-free";
    case Verdict::kSafetyViolation: return "safety violation";
    case Verdict::kDeadlock: return "deadlock";
    case Verdict::kIncomplete: return "incomplete (state limit reached)";
  }
  return "?";
}

// --- StepMachine ---------------------------------------------------------------

StepMachine::StepMachine(const Planner& planner, const Scenario& scenario) : planner_(planner), scenario_(scenario) {
  validate(scenario);
  // Lock indices in sorted path order, so that keys and reports do not depend
  // on the order plans were built in.
  std::map<std::string, std::uint32_t> index;
  std::vector<std::vector<impl::Plan>> plans(scenario.tasks.size());
  for (std::size_t t = 0; t < scenario.tasks.size(); ++t) {
    for (const auto& op : scenario.tasks[t]) {
      plans[t].push_back(planner.plan(op));
      if (plans[t].back().size() > 255) {
        throw model::InputError(model::InputProblem::kBadParameter,
                                fmt::format("{}: plan of {} has over 255 steps", scenario.name, op.to_string()));
      }
      for (const auto& step : plans[t].back()) index.emplace(step.lock.str(), 0);
    }
  }
  for (auto& [name, i] : index) {
    i = static_cast<std::uint32_t>(lock_names_.size());
    lock_names_.push_back(name);
  }
  tasks_.resize(scenario.tasks.size());
  for (std::size_t t = 0; t < scenario.tasks.size(); ++t) {
    for (std::size_t r = 0; r < scenario.tasks[t].size(); ++r) {
      std::vector<Step> steps;
      for (const auto& step : plans[t][r]) steps.push_back({index.at(step.lock.str()), step.mode});
      tasks_[t].plans.push_back(std::move(steps));
      tasks_[t].requests.push_back(scenario.tasks[t][r].request());
    }
    tasks_[t].symmetry_class = static_cast<std::uint32_t>(t);
    for (std::size_t u = 0; u < t; ++u) {
      if (scenario.tasks[u] == scenario.tasks[t]) {
        tasks_[t].symmetry_class = static_cast<std::uint32_t>(u);
        break;
      }
    }
  }
}

std::vector<std::pair<std::uint32_t, impl::ModeId>> StepMachine::plan_steps(std::uint32_t t,
                                                                          std::size_t request) const {
  std::vector<std::pair<std::uint32_t, impl::ModeId>> out;
  for (const auto& step : tasks_[t].plans[request]) out.emplace_back(step.lock, step.mode);
  return out;
}

StepMachine::State StepMachine::initial() const {
  State s;
  s.tasks.assign(tasks_.size(), Task{});
  s.locks.assign(lock_names_.size(), impl::LockQueue{});
  return s;
}

bool StepMachine::all_done(const State& s) const noexcept {
  return std::all_of(s.tasks.begin(), s.tasks.end(), [](const Task& t) { return t.phase == TaskPhase::kDone; });
}

bool StepMachine::any_enabled(const State& s) const noexcept {
  return std::any_of(s.tasks.begin(), s.tasks.end(), [](const Task& t) { return t.phase == TaskPhase::kRunning; });
}

StepMachine::Action StepMachine::next_action(const State& s, std::uint32_t t) const {
  const Task& task = s.tasks[t];
  const auto& plan = tasks_[t].plans[task.request];
  if (task.acquired < plan.size()) return {StepKind::kAcquire, plan[task.acquired].lock, plan[task.acquired].mode};
  const Step& step = plan[plan.size() - 1 - task.released];
  return {StepKind::kRelease, step.lock, step.mode};
}

StepMachine::Effect StepMachine::apply(State& s, std::uint32_t t) const {
  Effect effect;
  const Action a = next_action(s, t);
  Task& task = s.tasks[t];
  const auto plan_size = [&](std::uint32_t u) { return tasks_[u].plans[s.tasks[u].request].size(); };
  if (a.kind == StepKind::kAcquire) {
    effect.outcome = s.locks[a.lock].acquire(scheme(), t, a.mode);
    if (effect.outcome == impl::AcquireOutcome::kQueued) {
      task.phase = TaskPhase::kWaiting;
    } else if (++task.acquired == plan_size(t)) {
      effect.entered.push_back(t);
    }
    return effect;
  }
  std::vector<impl::LockEntry> granted;
  s.locks[a.lock].release(scheme(), t, granted);
  for (const auto& g : granted) {
    const auto u = static_cast<std::uint32_t>(g.task);
    effect.granted.push_back(u);
    Task& other = s.tasks[u];
    other.phase = TaskPhase::kRunning;
    if (++other.acquired == plan_size(u)) effect.entered.push_back(u);
  }
  if (++task.released == task.acquired) {
    task.acquired = 0;
    task.released = 0;
    if (++task.request == tasks_[t].plans.size()) task.phase = TaskPhase::kDone;
  }
  return effect;
}

std::optional<StepMachine::Violation> StepMachine::violation(const State& s, const Effect& e) const {
  for (const std::uint32_t t : e.entered) {
    const auto& mine = tasks_[t].requests[s.tasks[t].request];
    for (std::uint32_t u = 0; u < s.tasks.size(); ++u) {
      const Task& other = s.tasks[u];
      if (u == t || other.phase == TaskPhase::kDone) continue;
      const bool in_cs = other.released == 0 && other.acquired == tasks_[u].plans[other.request].size() &&
                         other.phase == TaskPhase::kRunning;
      if (in_cs && model::conflicts(mine, tasks_[u].requests[other.request])) return Violation{t, u};
    }
  }
  return std::nullopt;
}

bool StepMachine::independent(const State& s, std::uint32_t t, std::uint32_t u) const {
  const Action a = next_action(s, t);
  const Action b = next_action(s, u);
  if (a.lock != b.lock) return true;
  if (a.kind != StepKind::kAcquire || b.kind != StepKind::kAcquire) return false;
  // Both granted at once, in either order: they commute.
  impl::LockQueue q = s.locks[a.lock];
  return q.try_acquire(scheme(), t, a.mode) && q.try_acquire(scheme(), u, b.mode);
}

namespace {

struct CycleFound {
  std::size_t from;
  std::size_t to;
};

class BackEdgeVisitor : public boost::default_dfs_visitor {
 public:
  explicit BackEdgeVisitor(std::vector<std::size_t>& parent) : parent_(parent) {}
  template <typename Edge, typename Graph>
  void tree_edge(Edge e, const Graph& g) const {
    parent_[boost::target(e, g)] = boost::source(e, g);
  }
  template <typename Edge, typename Graph>
  void back_edge(Edge e, const Graph& g) const {
    throw CycleFound{boost::source(e, g), boost::target(e, g)};
  }

 private:
  std::vector<std::size_t>& parent_;
};

}  // namespace

std::vector<std::uint32_t> StepMachine::wait_cycle(const State& s) const {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  Graph g(s.tasks.size());
  std::vector<impl::TaskId> blockers;
  for (std::uint32_t t = 0; t < s.tasks.size(); ++t) {
    if (s.tasks[t].phase != TaskPhase::kWaiting) continue;
    blockers.clear();
    s.locks[next_action(s, t).lock].blockers(scheme(), t, blockers);
    for (const auto b : blockers) boost::add_edge(t, static_cast<std::size_t>(b), g);
  }
  std::vector<std::size_t> parent(s.tasks.size());
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  try {
    boost::depth_first_search(g, boost::visitor(BackEdgeVisitor(parent)));
  } catch (const CycleFound& found) {
    // found.to is an ancestor of found.from in the DFS tree: walk up.
    std::vector<std::uint32_t> cycle{static_cast<std::uint32_t>(found.from)};
    while (cycle.back() != found.to) cycle.push_back(static_cast<std::uint32_t>(parent[cycle.back()]));
    std::reverse(cycle.begin(), cycle.end());  // to -> ... -> from, and from waits for to
    return cycle;
  }
  return {};
}

std::string StepMachine::key(const State& s, bool symmetry, std::vector<std::uint8_t>* perm) const {
  const std::size_t n = s.tasks.size();
  // Where each task waits: (lock, position in its queue), for the signature.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> waits(n, {0xFFFFFFFFU, 0});
  for (std::uint32_t l = 0; l < s.locks.size(); ++l) {
    const auto w = s.locks[l].waiters();
    for (std::uint32_t i = 0; i < w.size(); ++i) waits[w[i].task] = {l, i};
  }
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0U);
  if (symmetry) {
    const auto sig = [&](std::uint32_t t) {
      const Task& k = s.tasks[t];
      return std::make_tuple(tasks_[t].symmetry_class, k.request, k.acquired, k.released, k.phase, waits[t]);
    };
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return sig(a) < sig(b); });
  }
  std::vector<std::uint8_t> pos(n);
  for (std::uint32_t i = 0; i < n; ++i) pos[order[i]] = static_cast<std::uint8_t>(i);
  std::string out;
  out.reserve(n * 4 + s.locks.size() * 2);
  for (const std::uint32_t t : order) {
    const Task& k = s.tasks[t];
    out.push_back(static_cast<char>(k.request));
    out.push_back(static_cast<char>(k.acquired));
    out.push_back(static_cast<char>(k.released));
    out.push_back(static_cast<char>(k.phase));
  }
  // Holders follow from the task states; only the queues' order is extra.
  for (const auto& q : s.locks) {
    for (const auto& w : q.waiters()) out.push_back(static_cast<char>(pos[w.task]));
    out.push_back(static_cast<char>(0xFF));
  }
  if (perm != nullptr) *perm = std::move(pos);
  return out;
}

std::string StepMachine::task_label(std::uint32_t t) const { return fmt::format("T{}", t); }

const model::Operation& StepMachine::operation(std::uint32_t t, std::size_t request) const {
  return scenario_.tasks[t][request];
}

std::string StepMachine::request_text(const State& s, std::uint32_t t) const {
  const auto r = std::min<std::size_t>(s.tasks[t].request, scenario_.tasks[t].size() - 1);
  return scenario_.tasks[t][r].to_string();
}

std::string StepMachine::action_text(const Action& a) const {
  return fmt::format("{}({})", scheme().mode_name(a.mode), lock_names_[a.lock]);
}

std::string StepMachine::plan_text(std::uint32_t t, std::size_t request) const {
  std::string out;
  for (const auto& step : tasks_[t].plans[request]) {
    if (!out.empty()) out += ' ';
    out += action_text({StepKind::kAcquire, step.lock, step.mode});
  }
  return out;
}

// --- search --------------------------------------------------------------------

namespace {

using State = StepMachine::State;

std::string step_text(const StepMachine& m, const State& before, std::uint32_t t, const StepMachine::Effect& e) {
  const auto a = m.next_action(before, t);
  std::string out = fmt::format("{} {} {} for {}", m.task_label(t), a.kind == StepKind::kAcquire ? "acquire" : "release",
                                m.action_text(a), m.request_text(before, t));
  if (a.kind == StepKind::kAcquire) {
    out += e.outcome == impl::AcquireOutcome::kGranted ? ": granted" : ": queued";
  }
  for (const auto g : e.granted) out += fmt::format(", grants {}", m.task_label(g));
  for (const auto c : e.entered) out += fmt::format("; {} holds its whole plan", m.task_label(c));
  return out;
}

std::string witness_text(const model::Request& a, const model::Request& b) {
  const auto w = model::conflict_witness(a, b);
  if (!w) return "?";
  const auto access = [](model::Access x) { return x == model::Access::kWrite ? "writes" : "reads"; };
  return fmt::format("one {} {}, the other {} {}", access(w->first_access), w->first.str(), access(w->second_access),
                     w->second.str());
}

// Fills in the failure at the end of a trace (the state `s` after it).
void describe_failure(const StepMachine& m, const State& s, const std::optional<StepMachine::Violation>& v,
                      Counterexample& cx) {
  if (v) {
    cx.kind = Verdict::kSafetyViolation;
    cx.summary = fmt::format(
        "{} {} and {} {} hold their whole plans at once, but the requests conflict: {}.\n  {} plan: {}\n  {} plan: {}",
        m.task_label(v->first), m.request_text(s, v->first), m.task_label(v->second), m.request_text(s, v->second),
        witness_text(m.operation(v->first, s.tasks[v->first].request).request(),
                     m.operation(v->second, s.tasks[v->second].request).request()),
        m.task_label(v->first), m.plan_text(v->first, s.tasks[v->first].request), m.task_label(v->second),
        m.plan_text(v->second, s.tasks[v->second].request));
    return;
  }
  cx.kind = Verdict::kDeadlock;
  const auto cycle = m.wait_cycle(s);
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < cycle.size(); ++i) {
    const auto t = cycle[i];
    const auto next = cycle[(i + 1) % cycle.size()];
    cx.cycle.push_back(fmt::format("{} {} waits for {}, held or queued ahead by {}", m.task_label(t),
                                   m.request_text(s, t), m.action_text(m.next_action(s, t)), m.task_label(next)));
    labels.push_back(fmt::format("{} {}\\nwaits for {}", m.task_label(t), m.request_text(s, t),
                                 m.action_text(m.next_action(s, t))));
    cx.cycle_nodes.push_back({fmt::format("{} {}", m.task_label(t), m.request_text(s, t)),
                              m.action_text(m.next_action(s, t))});
  }
  cx.dot = cycle_dot(labels);
  cx.summary = cycle.size() == 1
                   ? fmt::format("deadlock: {} waits for a lock it holds itself", m.task_label(cycle.front()))
                   : fmt::format("deadlock: a wait-for cycle of {} tasks", cycle.size());
}


class Search {
 public:
  Search(const StepMachine& m, const ExploreOptions& o, ExploreResult& r) : m_(m), o_(o), r_(r) {}

  // Returns false to stop (a failure, or the state limit).
  bool dfs(State& s, std::uint32_t sleep) {
    std::vector<std::uint8_t> perm;
    std::string k = m_.key(s, o_.symmetry, &perm);
    const std::uint32_t n = static_cast<std::uint32_t>(m_.task_count());
    const auto to_canonical = [&](std::uint32_t mask) {
      std::uint32_t out = 0;
      for (std::uint32_t t = 0; t < n; ++t) {
        if ((mask >> t) & 1U) out |= 1U << perm[t];
      }
      return out;
    };
    const auto from_canonical = [&](std::uint32_t mask) {
      std::uint32_t out = 0;
      for (std::uint32_t t = 0; t < n; ++t) {
        if ((mask >> perm[t]) & 1U) out |= 1U << t;
      }
      return out;
    };
    std::uint32_t todo = 0;
    for (std::uint32_t t = 0; t < n; ++t) {
      if (m_.enabled(s, t)) todo |= 1U << t;
    }
    const std::uint32_t sleep_c = to_canonical(sleep);
    auto it = visited_.find(k);
    if (it == visited_.end()) {
      if (++r_.states > o_.max_states) {
        r_.verdict = Verdict::kIncomplete;
        return false;
      }
      visited_.emplace(std::move(k), sleep_c);
      if (o_.check_deadlock && m_.stuck(s)) {
        r_.verdict = Verdict::kDeadlock;
        return false;
      }
      todo &= ~sleep;
    } else {
      // Godefroid: explore only what the earlier visit slept on and we do not.
      const std::uint32_t extra = it->second & ~sleep_c;
      if (extra == 0) return true;
      it->second &= sleep_c;
      todo &= from_canonical(extra);
    }
    std::uint32_t done = 0;
    for (std::uint32_t t = 0; t < n; ++t) {
      if (((todo >> t) & 1U) == 0) continue;
      State child = s;
      const auto effect = m_.apply(child, t);
      ++r_.transitions;
      if (o_.check_safety && m_.violation(child, effect)) {
        r_.verdict = Verdict::kSafetyViolation;
        return false;
      }
      std::uint32_t child_sleep = 0;
      if (o_.partial_order_reduction) {
        const std::uint32_t candidates = (sleep | done) & ~(1U << t);
        for (std::uint32_t u = 0; u < n; ++u) {
          if (((candidates >> u) & 1U) && m_.enabled(s, u) && m_.independent(s, t, u)) child_sleep |= 1U << u;
        }
      }
      if (!dfs(child, child_sleep)) return false;
      done |= 1U << t;
    }
    return true;
  }

 private:
  const StepMachine& m_;
  const ExploreOptions& o_;
  ExploreResult& r_;
  std::unordered_map<std::string, std::uint32_t> visited_;  // key -> sleep set (canonical)
};

// Counts distinct states and maximal schedules without any reduction.
class NaiveCount {
 public:
  NaiveCount(const StepMachine& m, std::uint64_t limit) : m_(m), limit_(limit) {}
  std::optional<long double> paths(State& s) {
    std::string k = m_.key(s, false);
    if (auto it = memo_.find(k); it != memo_.end()) return it->second;
    if (memo_.size() >= limit_) return std::nullopt;
    long double total = 0;
    bool any = false;
    for (std::uint32_t t = 0; t < m_.task_count(); ++t) {
      if (!m_.enabled(s, t)) continue;
      any = true;
      State child = s;
      m_.apply(child, t);
      ++transitions_;
      const auto sub = paths(child);
      if (!sub) return std::nullopt;
      total += *sub;
    }
    if (!any) total = 1;
    memo_.emplace(std::move(k), total);
    return total;
  }
  std::uint64_t states() const { return memo_.size(); }
  std::uint64_t transitions() const { return transitions_; }

 private:
  const StepMachine& m_;
  std::uint64_t limit_;
  std::uint64_t transitions_ = 0;
  std::unordered_map<std::string, long double> memo_;
};

// Breadth-first: the shortest schedule to a failure.
std::optional<std::vector<std::uint32_t>> shortest_failure(const StepMachine& m, std::uint64_t limit) {
  struct Node {
    State state;
    std::size_t parent;
    std::uint32_t task;
  };
  std::vector<Node> nodes;
  std::unordered_map<std::string, std::size_t> seen;
  nodes.push_back({m.initial(), 0, 0});
  seen.emplace(m.key(nodes[0].state, false), 0);
  const auto path_to = [&](std::size_t i) {
    std::vector<std::uint32_t> out;
    for (; i != 0; i = nodes[i].parent) out.push_back(nodes[i].task);
    std::reverse(out.begin(), out.end());
    return out;
  };
  for (std::size_t head = 0; head < nodes.size(); ++head) {
    if (m.stuck(nodes[head].state)) return path_to(head);
    for (std::uint32_t t = 0; t < m.task_count(); ++t) {
      if (!m.enabled(nodes[head].state, t)) continue;
      State child = nodes[head].state;
      const auto effect = m.apply(child, t);
      if (m.violation(child, effect)) {
        auto path = path_to(head);
        path.push_back(t);
        return path;
      }
      std::string k = m.key(child, false);
      if (seen.count(k) != 0) continue;
      if (nodes.size() >= limit) return std::nullopt;
      seen.emplace(std::move(k), nodes.size());
      nodes.push_back({std::move(child), head, t});
    }
  }
  return std::nullopt;
}

// The schedule that the depth-first search stopped on: replays the first
// failure it found, for when breadth-first search is off or over its limit.
std::optional<std::vector<std::uint32_t>> first_failure(const StepMachine& m, std::uint64_t limit) {
  std::unordered_map<std::string, bool> seen;
  std::vector<std::uint32_t> path;
  std::uint64_t count = 0;
  std::function<bool(const State&)> go = [&](const State& s) -> bool {
    if (m.stuck(s)) return true;
    if (!seen.emplace(m.key(s, false), true).second || ++count > limit) return false;
    for (std::uint32_t t = 0; t < m.task_count(); ++t) {
      if (!m.enabled(s, t)) continue;
      State child = s;
      const auto effect = m.apply(child, t);
      path.push_back(t);
      if (m.violation(child, effect) || go(child)) return true;
      path.pop_back();
    }
    return false;
  };
  if (go(m.initial())) return path;
  return std::nullopt;
}

}  // namespace

std::size_t run_length(const StepMachine& m) {
  std::size_t steps = 0;
  for (std::uint32_t t = 0; t < m.task_count(); ++t) {
    for (std::size_t r = 0; r < m.request_count(t); ++r) steps += 2 * m.plan_size(t, r);
  }
  return steps;
}

std::optional<std::vector<std::uint32_t>> fewest_preemptions_failure(const StepMachine& m, std::uint64_t limit) {
  // Dijkstra over (state, last task moved), cost (preemptions, steps): a step
  // by a task other than the last one, while the last one could still move,
  // costs a preemption. A failure is a node of its own, so that the first
  // one popped is the cheapest.
  using Cost = std::pair<std::size_t, std::size_t>;  // (preemptions, steps)
  struct Node {
    State state;
    std::size_t parent;
    std::uint32_t task;  // the step that led here; kNone at the start
    const Cost* best;    // the cheapest known cost of this (state, task); nullptr for a failure
  };
  struct Entry {
    std::size_t preemptions;
    std::size_t steps;
    std::size_t node;  // insertion order breaks ties: deterministic
    bool operator>(const Entry& o) const {
      return std::tie(preemptions, steps, node) > std::tie(o.preemptions, o.steps, o.node);
    }
  };
  constexpr std::uint32_t kNone = ~0U;
  std::vector<Node> nodes;
  // Key -> cheapest cost; a node-based map, so pointers to its values stay valid.
  std::unordered_map<std::string, Cost> best;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  const auto key_of = [&](const State& s, std::uint32_t last) {
    std::string k = m.key(s, false);
    k.push_back(static_cast<char>(last == kNone ? 0xFF : last));
    return k;
  };
  {
    State start = m.initial();
    const auto it = best.emplace(key_of(start, kNone), Cost{0, 0}).first;
    nodes.push_back({std::move(start), 0, kNone, &it->second});
  }
  queue.push({0, 0, 0});
  while (!queue.empty()) {
    const Entry e = queue.top();
    queue.pop();
    if (nodes[e.node].best == nullptr || m.stuck(nodes[e.node].state)) {
      std::vector<std::uint32_t> out;
      for (std::size_t i = e.node; i != 0; i = nodes[i].parent) out.push_back(nodes[i].task);
      std::reverse(out.begin(), out.end());
      return out;
    }
    if (*nodes[e.node].best < Cost{e.preemptions, e.steps}) continue;  // a cheaper way here was found since
    const std::uint32_t last = nodes[e.node].task;
    for (std::uint32_t t = 0; t < m.task_count(); ++t) {
      if (!m.enabled(nodes[e.node].state, t)) continue;
      const std::size_t preemptions =
          e.preemptions + (last != kNone && last != t && m.enabled(nodes[e.node].state, last) ? 1 : 0);
      State child = nodes[e.node].state;
      const auto effect = m.apply(child, t);
      const Cost c{preemptions, e.steps + 1};
      const Cost* known = nullptr;
      if (!m.violation(child, effect)) {
        auto [it, inserted] = best.emplace(key_of(child, t), c);
        if (!inserted) {
          if (!(c < it->second)) continue;
          it->second = c;
        }
        known = &it->second;
      }
      if (nodes.size() >= limit) return std::nullopt;
      nodes.push_back({std::move(child), e.node, t, known});
      queue.push({c.first, c.second, nodes.size() - 1});
    }
  }
  return std::nullopt;
}

Counterexample replay_schedule(const StepMachine& m, const std::vector<std::uint32_t>& schedule) {
  Counterexample cx;
  cx.schedule = schedule;
  State s = m.initial();
  for (const auto t : schedule) {
    if (t >= m.task_count() || !m.enabled(s, t)) {
      cx.kind = Verdict::kSafeAndDeadlockFree;
      cx.summary = fmt::format("the schedule names {}, which cannot move here", m.task_label(t));
      return cx;
    }
    const State before = s;
    const auto effect = m.apply(s, t);
    cx.trace.push_back({t, step_text(m, before, t, effect)});
    if (const auto v = m.violation(s, effect)) {
      describe_failure(m, s, v, cx);
      return cx;
    }
  }
  if (m.stuck(s)) {
    describe_failure(m, s, std::nullopt, cx);
    return cx;
  }
  cx.kind = Verdict::kSafeAndDeadlockFree;
  cx.summary = "the schedule ends without a failure";
  return cx;
}

std::optional<UnreducedCounts> count_unreduced(const StepMachine& m, std::uint64_t max_states) {
  NaiveCount naive(m, max_states);
  State start = m.initial();
  const auto paths = naive.paths(start);
  if (!paths) return std::nullopt;
  return UnreducedCounts{naive.states(), naive.transitions(), *paths};
}

ExploreResult explore(const Planner& planner, const Scenario& scenario, const ExploreOptions& options) {
  const StepMachine m(planner, scenario);
  ExploreResult result;
  // The search recurses once per step of a schedule: bound the longest one.
  const std::size_t longest = run_length(m);
  if (longest > kMaxScheduleLength) {
    throw model::InputError(model::InputProblem::kBadParameter,
                            fmt::format("{}: a schedule may take {} steps; exhaustive exploration allows {}",
                                        scenario.name, longest, kMaxScheduleLength));
  }
  Search search(m, options, result);
  State s = m.initial();
  search.dfs(s, 0);
  if (options.count_naive) {
    if (const auto naive = count_unreduced(m, options.max_naive_states)) {
      result.naive_interleavings = naive->interleavings;
      result.naive_states = naive->states;
      result.naive_transitions = naive->transitions;
    }
  }
  // Counterexample searches look for either failure: only when both count.
  const bool both = options.check_safety && options.check_deadlock;
  if (both && (result.verdict == Verdict::kSafetyViolation || result.verdict == Verdict::kDeadlock)) {
    std::optional<std::vector<std::uint32_t>> schedule;
    if (options.shortest_counterexample) schedule = shortest_failure(m, options.max_states);
    if (!schedule) schedule = first_failure(m, options.max_states);
    if (schedule) result.counterexample = replay_schedule(m, *schedule);
  }
  return result;
}

}  // namespace pathlock::sim
