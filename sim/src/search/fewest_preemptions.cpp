// A failing schedule with the fewest preemptions, then the fewest steps.

#include <algorithm>
#include <queue>
#include <tuple>
#include <unordered_map>

#include "pathlock/sim/explorer.hpp"

namespace pathlock::sim {

std::optional<std::vector<std::uint32_t>> fewest_preemptions_failure(const StepMachine& m, std::uint64_t limit) {
  // Dijkstra over (state, last task moved), cost (preemptions, steps): a step
  // by a task other than the last one, while the last one could still make
  // progress, costs a preemption. A failure is a node of its own, so that the
  // first one popped is the cheapest.
  using Cost = std::pair<std::size_t, std::size_t>;  // (preemptions, steps)
  struct Node {
    StepMachine::State state;
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
  // Key -> cheapest cost; a node-based map, so pointers to its values stay valid. Never iterated.
  std::unordered_map<std::string, Cost> best;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  const auto key_of = [&](const StepMachine::State& s, std::uint32_t last) {
    std::string k = m.key(s, false);
    k.push_back(static_cast<char>(last == kNone ? 0xFF : last));
    return k;
  };
  {
    StepMachine::State start = m.initial();
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
          e.preemptions + (last != kNone && last != t && m.can_progress(nodes[e.node].state, last) ? 1 : 0);
      StepMachine::State child = nodes[e.node].state;
      const auto effect = m.apply(child, t);
      const Cost c{preemptions, e.steps + 1};
      const Cost* known = nullptr;
      if (!step_failure(m, child, effect)) {
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

}  // namespace pathlock::sim
