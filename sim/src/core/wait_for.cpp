// The wait-for graph of a StepMachine state, read from the lock queues: a
// waiting task points to the tasks holding an incompatible mode and the
// incompatible waiters ahead of it (LockQueue::blockers). Nothing is stored,
// so grants, releases and withdrawals never leave an edge behind; a search
// reads only the queues it reaches.

#include <algorithm>
#include <limits>
#include <optional>

#include "pathlock/sim/core/step_machine.hpp"

namespace pathlock::sim {

void StepMachine::blockers(const State& s, std::uint32_t t, std::vector<std::uint32_t>& out) const {
  const std::size_t first = out.size();
  const Action a = next_action(s, t);
  thread_local std::vector<impl::TaskId> ids;
  ids.clear();
  s.locks[a.lock].blockers(scheme(), request_id(t, a.request), ids);
  for (const auto id : ids) out.push_back(task_of(id));
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
  out.erase(std::unique(out.begin() + static_cast<std::ptrdiff_t>(first), out.end()), out.end());
}

std::vector<std::uint32_t> StepMachine::wait_cycle_through(const State& s, std::uint32_t through) const {
  CycleScratch scratch;
  return wait_cycle_through(s, through, scratch);
}

// Breadth-first from `through` over waiting tasks, so the cycle found is a
// shortest one through it.
std::vector<std::uint32_t> StepMachine::wait_cycle_through(const State& s, std::uint32_t through,
                                                           CycleScratch& w) const {
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  if (s.tasks[through].phase != TaskPhase::kWaiting) return {};
  const std::size_t n = s.tasks.size();
  if (w.stamp.size() < n) {
    w.stamp.resize(n, 0);
    w.parent.resize(n, kNone);
  }
  if (w.locks.size() < s.locks.size()) w.locks.resize(s.locks.size());
  if (++w.epoch == 0) {  // wrapped: forget every old mark
    std::fill(w.stamp.begin(), w.stamp.end(), 0);
    for (auto& mark : w.locks) mark.epoch = 0;
    w.epoch = 1;
  }
  w.frontier.assign(1, through);
  w.stamp[through] = w.epoch;
  std::optional<std::uint32_t> closed_by;  // the task whose edge reaches `through`
  const auto reach = [&](std::uint32_t from, impl::TaskId id) {
    const std::uint32_t b = task_of(id);
    if (b == through) {
      if (!closed_by) closed_by = from;
      return;
    }
    if (w.stamp[b] == w.epoch) return;
    w.stamp[b] = w.epoch;
    w.parent[b] = from;
    w.next.push_back(b);
  };
  while (!w.frontier.empty() && !closed_by) {
    w.next.clear();
    for (const std::uint32_t v : w.frontier) {
      if (s.tasks[v].phase != TaskPhase::kWaiting) continue;  // a running holder waits for nobody
      const Action a = next_action(s, v);
      const impl::LockQueue& q = s.locks[a.lock];
      auto& mark = w.locks[a.lock];
      if (mark.epoch != w.epoch) mark = {w.epoch, 0, {}};
      const std::uint32_t bit = 1U << a.mode.index;
      if ((mark.holders_read & bit) == 0) {
        mark.holders_read |= bit;
        for (const auto& h : q.holders()) {
          if (!scheme().compatible(a.mode, h.mode)) reach(v, h.task);
        }
      }
      const impl::TaskId mine = request_id(v, a.request);
      const auto waiters = q.waiters();
      std::uint32_t position = 0;
      while (waiters[position].task != mine) ++position;
      auto& read = mark.waiters_read[a.mode.index];
      for (; read < position; ++read) {
        if (!scheme().compatible(a.mode, waiters[read].mode)) reach(v, waiters[read].task);
      }
      if (closed_by) break;
    }
    std::swap(w.frontier, w.next);
  }
  if (!closed_by) return {};
  std::vector<std::uint32_t> cycle{*closed_by};
  while (cycle.back() != through) cycle.push_back(w.parent[cycle.back()]);
  std::reverse(cycle.begin(), cycle.end());  // through -> ... -> closed_by -> through
  return cycle;
}

std::vector<std::uint32_t> StepMachine::wait_cycle(const State& s) const {
  CycleScratch scratch;
  for (std::uint32_t t = 0; t < s.tasks.size(); ++t) {
    auto cycle = wait_cycle_through(s, t, scratch);
    if (!cycle.empty()) return cycle;
  }
  return {};
}

}  // namespace pathlock::sim
