#pragma once
// IterativeDfsStrategy: DfsStrategy with bound 0, then 1, ... up to
// `max_bound` (CHESS's iterative context bounding), so that the first
// failure found is one with the fewest preemptions. Stateless, like
// DfsStrategy: the search at bound b runs again the schedules of bound
// b - 1 (they are the cheap ones: far fewer than the new ones).

#include <cstddef>
#include <optional>

#include "pathlock/sim/runtime/strategies/dfs_strategy.hpp"

namespace pathlock::sim::runtime {

class IterativeDfsStrategy final : public Strategy {
 public:
  explicit IterativeDfsStrategy(std::size_t max_bound) : max_bound_(max_bound), dfs_(0) {}
  std::string_view name() const noexcept override { return "iterative-dfs"; }
  RunStart begin_run(std::size_t threads) override;
  std::size_t choose(const ChoicePoint& point) override { return dfs_.choose(point); }
  void end_run() override { dfs_.end_run(); }
  std::string describe_run() const override { return dfs_.describe_run(); }
  std::size_t bound() const noexcept { return bound_; }

 private:
  std::size_t max_bound_;
  std::size_t bound_ = 0;
  DfsStrategy dfs_;
};

}  // namespace pathlock::sim::runtime
