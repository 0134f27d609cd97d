#pragma once
// PctStrategy: probabilistic concurrency testing with bug depth d, the model
// checker's PctScheduler (pathlock/sim/schedulers/pct_scheduler.hpp)
// adapted: its priorities pick among the threads that can step; the other
// choices are drawn as RandomStrategy draws them. `steps` is the expected
// number of thread choices per run (PCT's k).

#include <cstdint>

#include "pathlock/sim/rng.hpp"
#include "pathlock/sim/runtime/strategy.hpp"
#include "pathlock/sim/schedulers/pct_scheduler.hpp"

namespace pathlock::sim::runtime {

class PctStrategy final : public Strategy {
 public:
  PctStrategy(std::uint64_t seed, std::size_t depth, std::size_t steps)
      : seed_(seed), steps_(steps), pct_(depth) {}
  std::string_view name() const noexcept override { return "pct"; }
  RunStart begin_run(std::size_t threads) override;
  std::size_t choose(const ChoicePoint& point) override;
  std::string describe_run() const override;

 private:
  std::uint64_t seed_;
  std::size_t steps_;
  PctScheduler pct_;
  std::uint64_t runs_ = 0;
  std::size_t thread_choices_ = 0;
  Rng rng_{0};
  std::vector<std::uint32_t> runnable_;
};

}  // namespace pathlock::sim::runtime
