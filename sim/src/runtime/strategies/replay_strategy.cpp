#include "pathlock/sim/runtime/strategies/replay_strategy.hpp"

#include <algorithm>

namespace pathlock::sim::runtime {

RunStart ReplayStrategy::begin_run(std::size_t /*threads*/) {
  if (used_) return RunStart::kExhausted;
  used_ = true;
  next_ = 0;
  return RunStart::kStarted;
}

std::size_t ReplayStrategy::choose(const ChoicePoint& point) {
  if (next_ >= schedule_.size()) return 0;
  Choice wanted = schedule_[next_++];
  // The schedule text does not name the allocating thread: it is the current one.
  if (wanted.kind == ChoiceKind::kAllocate || wanted.kind == ChoiceKind::kFailAllocation) {
    wanted.thread = point.current;
  }
  const auto it = std::find(point.options.begin(), point.options.end(), wanted);
  return static_cast<std::size_t>(it - point.options.begin());  // size() when not offered
}

}  // namespace pathlock::sim::runtime
