#include "pathlock/sim/runtime/strategies/iterative_dfs_strategy.hpp"

namespace pathlock::sim::runtime {

RunStart IterativeDfsStrategy::begin_run(std::size_t threads) {
  while (dfs_.begin_run(threads) == RunStart::kExhausted) {
    if (bound_ == max_bound_) return RunStart::kExhausted;
    dfs_ = DfsStrategy(++bound_);
  }
  return RunStart::kStarted;
}

}  // namespace pathlock::sim::runtime
