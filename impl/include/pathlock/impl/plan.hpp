#pragma once
// Lock plans: the (lock, mode) steps a request acquires, in order.
//
// Invariants of every plan built by plan_for (tested):
//   steps are strictly increasing in scheme.order()   (each lock once)
//   a global scheme's plan has exactly one step, on the root path's slot
//   mode(p) = join of the role modes of p's roles     (see scheme.hpp)

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/model/request.hpp"

namespace pathlock::impl {

struct LockStep {
  model::Path lock;  // for a global scheme, the root path stands for the one lock
  ModeId mode;
  friend bool operator==(const LockStep&, const LockStep&) = default;
};

class Plan {
 public:
  Plan() = default;
  explicit Plan(std::vector<LockStep> steps) : steps_(std::move(steps)) {}
  std::span<const LockStep> steps() const noexcept { return steps_; }
  std::size_t size() const noexcept { return steps_.size(); }
  auto begin() const noexcept { return steps_.begin(); }
  auto end() const noexcept { return steps_.end(); }
  friend bool operator==(const Plan&, const Plan&) = default;

 private:
  std::vector<LockStep> steps_;
};

Plan plan_for(const Scheme& scheme, const model::Request& request);

// "RA(/) WA(/a) W(/a/b)".
std::string to_string(const Scheme& scheme, const Plan& plan);

// A lock that two plans take in incompatible modes.
struct PlanConflict {
  model::Path lock;
  ModeId first;   // the first plan's mode
  ModeId second;  // the second plan's mode
};

// The first lock, in the scheme's order, that both plans take in incompatible
// modes: the plans cannot be held together. nullopt if they can.
// REQUIRES: both plans were built by plan_for for `scheme`.
std::optional<PlanConflict> plans_conflict(const Scheme& scheme, const Plan& a, const Plan& b);

}  // namespace pathlock::impl
