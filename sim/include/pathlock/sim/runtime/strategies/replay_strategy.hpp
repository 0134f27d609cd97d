#pragma once
// ReplayStrategy: one run taking a printed schedule's choices in order (and
// the default choice after the last). A choice that is not offered where
// the schedule puts it ends the run as kScheduleDiverged.

#include <vector>

#include "pathlock/sim/runtime/strategy.hpp"

namespace pathlock::sim::runtime {

class ReplayStrategy final : public Strategy {
 public:
  explicit ReplayStrategy(std::vector<Choice> schedule) : schedule_(std::move(schedule)) {}
  std::string_view name() const noexcept override { return "replay"; }
  RunStart begin_run(std::size_t threads) override;
  std::size_t choose(const ChoicePoint& point) override;

 private:
  std::vector<Choice> schedule_;
  std::size_t next_ = 0;
  bool used_ = false;
};

}  // namespace pathlock::sim::runtime
