#pragma once
// RandomStrategy: at every point a thread drawn uniformly among those that
// can step; a waiting thread's deadline passes with probability 1/16 when
// others can step (always when none can); an allocation fails with
// probability 1/8 (within the run's budget). Run r draws from
// derive_seed(seed, r), so a seed replays every run.

#include <cstdint>
#include <optional>

#include "pathlock/sim/rng.hpp"
#include "pathlock/sim/runtime/strategy.hpp"

namespace pathlock::sim::runtime {

class RandomStrategy final : public Strategy {
 public:
  explicit RandomStrategy(std::uint64_t seed) : seed_(seed) {}
  std::string_view name() const noexcept override { return "random"; }
  RunStart begin_run(std::size_t threads) override;
  std::size_t choose(const ChoicePoint& point) override;
  std::string describe_run() const override;

 private:
  std::uint64_t seed_;
  std::uint64_t runs_ = 0;
  Rng rng_{0};
};

// The choices other than "which thread", drawn the same way by the random
// strategies: an allocation failure 1 in 8, a deadline passing while
// others can step 1 in 16. Returns the index taken, or nothing when the
// point is a plain "which thread" among kRun choices only.
std::optional<std::size_t> draw_non_thread_choice(const ChoicePoint& point, Rng& rng);

}  // namespace pathlock::sim::runtime
