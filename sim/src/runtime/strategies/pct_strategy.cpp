#include "pathlock/sim/runtime/strategies/pct_strategy.hpp"

#include <algorithm>

#include "pathlock/sim/runtime/strategies/random_strategy.hpp"

namespace pathlock::sim::runtime {

RunStart PctStrategy::begin_run(std::size_t threads) {
  const std::uint64_t run_seed = derive_seed(seed_, runs_++);
  pct_.begin(run_seed, threads, steps_);
  rng_ = Rng(derive_seed(run_seed, 1));
  thread_choices_ = 0;
  return RunStart::kStarted;
}

std::size_t PctStrategy::choose(const ChoicePoint& point) {
  if (auto other = draw_non_thread_choice(point, rng_)) return *other;
  runnable_.clear();
  for (const Choice& c : point.options) {
    if (c.kind == ChoiceKind::kRun) runnable_.push_back(c.thread);
  }
  std::sort(runnable_.begin(), runnable_.end());
  const std::uint32_t thread = pct_.pick(runnable_, thread_choices_++);
  const auto it = std::find(point.options.begin(), point.options.end(), Choice{ChoiceKind::kRun, thread});
  return static_cast<std::size_t>(it - point.options.begin());
}

std::string PctStrategy::describe_run() const {
  return "pct depth " + std::to_string(pct_.depth()) + " seed " + std::to_string(seed_) + " run " +
         std::to_string(runs_ - 1);
}

}  // namespace pathlock::sim::runtime
