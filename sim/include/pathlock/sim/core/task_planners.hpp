#pragma once
// Planners for the scenario tasks that name a scheme or an order of their
// own, so that `check` and `explore` can put service A (one order) beside
// service B (another) on one lock table.

#include <memory>
#include <span>
#include <vector>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/sim/planner.hpp"
#include "pathlock/sim/scenario.hpp"

namespace pathlock::sim {

class TaskPlanners {
 public:
  // Resolves each task's scheme choice; `base` is the scenario's scheme.
  // Throws InputError for an unknown scheme or order, an unreadable scheme
  // file, or a scheme whose modes or compatibility differ from base's (the
  // tasks share lock queues, so they must agree on what may be held together).
  TaskPlanners(const impl::Scheme& base, const Scenario& scenario);
  // One per task; null where the task uses the scenario's planner.
  std::span<const Planner* const> planners() const noexcept { return per_task_; }
  bool any() const noexcept { return !owned_.empty(); }

 private:
  std::vector<std::unique_ptr<impl::Scheme>> schemes_;
  std::vector<std::unique_ptr<SchemePlanner>> owned_;
  std::vector<const Planner*> per_task_;
};

}  // namespace pathlock::sim
