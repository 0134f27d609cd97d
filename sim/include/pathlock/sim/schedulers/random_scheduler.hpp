#pragma once
// RandomScheduler: at every step, a task drawn uniformly from the runnable
// ones (the project's Rng, so a seed replays on any standard library).
//
// Good at shallow bugs that many interleavings reach; for a bug that needs a
// few specific orderings among many steps, PctScheduler's guarantee is better.

#include <optional>

#include "pathlock/sim/rng.hpp"
#include "pathlock/sim/scheduler.hpp"

namespace pathlock::sim {

class RandomScheduler final : public Scheduler {
 public:
  std::string_view name() const noexcept override { return "random"; }
  void begin(std::uint64_t seed, std::size_t tasks, std::size_t steps) override;
  std::uint32_t pick(std::span<const std::uint32_t> runnable, std::size_t step) override;

 private:
  Rng rng_{0};
};

}  // namespace pathlock::sim
