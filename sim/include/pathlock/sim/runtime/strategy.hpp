#pragma once
// How a run's choices are taken: one strategy per file, behind this one
// interface (as shuttle's schedulers are):
//   RandomStrategy  uniform among the threads that can step, seeded;
//   PctStrategy     probabilistic concurrency testing (the model checker's
//                   PctScheduler, adapted);
//   DfsStrategy     every schedule with at most k preemptions (iterative
//                   context bounding, as in CHESS), replaying prefixes;
//   ReplayStrategy  the choices of a printed schedule, in order.

#include <cstddef>
#include <string_view>

#include "pathlock/sim/runtime/choice.hpp"

namespace pathlock::sim::runtime {

enum class RunStart : std::uint8_t { kStarted, kExhausted };

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string_view name() const noexcept = 0;
  // Before a run of `threads` logical threads; kExhausted when this strategy
  // has no run left to offer (an exhaustive search that is complete).
  virtual RunStart begin_run(std::size_t threads) = 0;
  // The index into point.options of the choice to take.
  virtual std::size_t choose(const ChoicePoint& point) = 0;
  // After the run (finished or not).
  virtual void end_run() {}
  // Text that replays this strategy's current run from scratch when it has
  // one beyond the schedule (a seed); empty otherwise.
  virtual std::string describe_run() const { return {}; }
};

}  // namespace pathlock::sim::runtime
