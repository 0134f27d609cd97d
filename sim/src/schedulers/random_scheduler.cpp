#include "pathlock/sim/schedulers/random_scheduler.hpp"

namespace pathlock::sim {

void RandomScheduler::begin(std::uint64_t seed, std::size_t /*tasks*/, std::size_t /*steps*/) { rng_ = Rng(seed); }

std::uint32_t RandomScheduler::pick(std::span<const std::uint32_t> runnable, std::size_t /*step*/) {
  return runnable[rng_.below(runnable.size())];
}

}  // namespace pathlock::sim
