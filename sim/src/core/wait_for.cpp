// The wait-for graph of a StepMachine state, read from the lock queues: a
// waiting task points to the tasks holding an incompatible mode and the
// incompatible waiters ahead of it (LockQueue::blockers). Nothing is stored,
// so grants, releases and withdrawals never leave an edge behind; a search
// reads only the queues it reaches.

#include <algorithm>
#include <limits>

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
  if (++w.epoch == 0) {  // wrapped: forget every old mark
    std::fill(w.stamp.begin(), w.stamp.end(), 0);
    w.epoch = 1;
  }
  w.frontier.assign(1, through);
  w.stamp[through] = w.epoch;
  std::vector<std::uint32_t> out;
  while (!w.frontier.empty()) {
    w.next.clear();
    for (const std::uint32_t v : w.frontier) {
      if (s.tasks[v].phase != TaskPhase::kWaiting) continue;  // a running holder waits for nobody
      out.clear();
      blockers(s, v, out);
      for (const std::uint32_t b : out) {
        if (b == through) {  // closed: through -> ... -> v -> through
          std::vector<std::uint32_t> cycle{v};
          while (cycle.back() != through) cycle.push_back(w.parent[cycle.back()]);
          std::reverse(cycle.begin(), cycle.end());
          return cycle;
        }
        if (w.stamp[b] == w.epoch) continue;
        w.stamp[b] = w.epoch;
        w.parent[b] = v;
        w.next.push_back(b);
      }
    }
    std::swap(w.frontier, w.next);
  }
  return {};
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
