// Breadth-first search: the shortest schedule to a failure.

#include <algorithm>
#include <unordered_map>

#include "pathlock/sim/explorer.hpp"

namespace pathlock::sim {

std::optional<std::vector<std::uint32_t>> shortest_failure(const StepMachine& m, std::uint64_t limit) {
  struct Node {
    StepMachine::State state;
    std::size_t parent;
    std::uint32_t task;
  };
  std::vector<Node> nodes;
  std::unordered_map<std::string, std::size_t> seen;  // never iterated
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
      StepMachine::State child = nodes[head].state;
      const auto effect = m.apply(child, t);
      if (step_failure(m, child, effect)) {
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

}  // namespace pathlock::sim
