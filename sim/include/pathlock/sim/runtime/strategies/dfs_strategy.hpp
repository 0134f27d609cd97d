#pragma once
// DfsStrategy: every schedule with at most `preemption_bound` preemptions,
// each once (context bounding, Musuvathi and Qadeer, "Iterative Context
// Bounding for Systematic Testing of Multithreaded Programs", PLDI 2007).
// Stateless: a run replays the previous run's choices up to the deepest
// point with an untried choice within the bound, takes it, and goes on with
// default choices (the current thread continues; allocations succeed).
// Every other choice kind (a timeout, an injected allocation failure) is
// explored the same way. Switching away from a thread that finished,
// blocked, or spins on state nothing changed since its last turn is free.

#include <cstddef>
#include <vector>

#include "pathlock/sim/runtime/strategy.hpp"

namespace pathlock::sim::runtime {

class DfsStrategy final : public Strategy {
 public:
  explicit DfsStrategy(std::size_t preemption_bound) : bound_(preemption_bound) {}
  std::string_view name() const noexcept override { return "dfs"; }
  RunStart begin_run(std::size_t threads) override;
  std::size_t choose(const ChoicePoint& point) override;
  void end_run() override;
  std::string describe_run() const override;

 private:
  struct Node {
    std::vector<Choice> options;
    std::uint32_t current;
    ContinuationMode continuation;
    std::size_t chosen;
    std::size_t preemptions_before;
    ChoicePoint point() const { return {options, current, continuation, 0}; }
  };
  std::size_t bound_;
  std::vector<Node> path_;  // the current run's choice points
  std::size_t depth_ = 0;   // the next point's index in path_
  std::size_t preemptions_ = 0;
  std::size_t runs_ = 0;
  bool exhausted_ = false;
};

}  // namespace pathlock::sim::runtime
