#include "pathlock/sim/runtime/strategies/random_strategy.hpp"

#include <vector>

namespace pathlock::sim::runtime {

namespace {
constexpr std::uint64_t kAllocationFailsOneIn = 8;
constexpr std::uint64_t kDeadlinePassesOneIn = 16;
}  // namespace

std::optional<std::size_t> draw_non_thread_choice(const ChoicePoint& point, Rng& rng) {
  if (point.options[0].kind == ChoiceKind::kAllocate) return rng.below(kAllocationFailsOneIn) == 0 ? 1 : 0;
  std::size_t runs = 0;
  while (runs < point.options.size() && point.options[runs].kind == ChoiceKind::kRun) ++runs;
  const std::size_t timeouts = point.options.size() - runs;
  if (timeouts == 0) return std::nullopt;
  if (runs == 0 || rng.below(kDeadlinePassesOneIn) == 0) return runs + rng.below(timeouts);
  return std::nullopt;
}

RunStart RandomStrategy::begin_run(std::size_t /*threads*/) {
  rng_ = Rng(derive_seed(seed_, runs_++));
  return RunStart::kStarted;
}

std::size_t RandomStrategy::choose(const ChoicePoint& point) {
  if (auto other = draw_non_thread_choice(point, rng_)) return *other;
  std::size_t runs = 0;
  while (runs < point.options.size() && point.options[runs].kind == ChoiceKind::kRun) ++runs;
  return rng_.below(runs);
}

std::string RandomStrategy::describe_run() const {
  return "random seed " + std::to_string(seed_) + " run " + std::to_string(runs_ - 1);
}

}  // namespace pathlock::sim::runtime
