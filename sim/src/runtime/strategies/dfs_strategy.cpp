#include "pathlock/sim/runtime/strategies/dfs_strategy.hpp"

#include <algorithm>

namespace pathlock::sim::runtime {

RunStart DfsStrategy::begin_run(std::size_t /*threads*/) {
  if (exhausted_) return RunStart::kExhausted;
  depth_ = 0;
  preemptions_ = 0;
  return RunStart::kStarted;
}

std::size_t DfsStrategy::choose(const ChoicePoint& point) {
  if (depth_ < path_.size()) {
    // Replaying the prefix: the program must offer what it offered before.
    const Node& node = path_[depth_];
    if (!std::equal(node.options.begin(), node.options.end(), point.options.begin(), point.options.end()) ||
        node.current != point.current) {
      return point.options.size();  // not deterministic: the run ends as diverged
    }
  } else {
    path_.push_back(Node{{point.options.begin(), point.options.end()}, point.current, point.continuation, 0,
                         preemptions_});
  }
  const Node& node = path_[depth_++];
  if (is_preemption(point, point.options[node.chosen])) ++preemptions_;
  return node.chosen;
}

void DfsStrategy::end_run() {
  ++runs_;
  path_.resize(depth_);  // a run that ended early has no points beyond
  while (!path_.empty()) {
    Node& node = path_.back();
    for (std::size_t j = node.chosen + 1; j < node.options.size(); ++j) {
      if (node.preemptions_before + (is_preemption(node.point(), node.options[j]) ? 1 : 0) <= bound_) {
        node.chosen = j;
        return;
      }
    }
    path_.pop_back();
  }
  exhausted_ = true;
}

std::string DfsStrategy::describe_run() const {
  return "dfs with at most " + std::to_string(bound_) + " preemptions, run " + std::to_string(runs_);
}

}  // namespace pathlock::sim::runtime
