#include "pathlock/sim/plan_claims.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pathlock/impl/order_defect.hpp"

namespace pathlock::sim {

std::string_view to_string(PlanClaim claim) noexcept {
  switch (claim) {
    case PlanClaim::kStrictTotalOrder: return "the order is a strict total order";
    case PlanClaim::kStrictlyIncreasing: return "plans are strictly increasing in the order";
    case PlanClaim::kEachLockOnce: return "plans take each lock once";
  }
  return "?";
}

std::string_view to_string(ClaimStatus status) noexcept {
  switch (status) {
    case ClaimStatus::kHolds: return "holds";
    case ClaimStatus::kBroken: return "broken";
    case ClaimStatus::kNotClaimed: return "not claimed";
  }
  return "?";
}

std::string_view to_string(PairComputation computation) noexcept {
  switch (computation) {
    case PairComputation::kMerge: return "merge of sorted plans";
    case PairComputation::kEveryStepPair: return "every pair of steps";
  }
  return "?";
}

bool PlanClaims::any_broken() const noexcept {
  return std::any_of(claims.begin(), claims.end(), [](const auto& c) { return c.status == ClaimStatus::kBroken; });
}

namespace {

std::string order_result(std::strong_ordering c) { return c < 0 ? "comes before" : c > 0 ? "comes after" : "ties with"; }

std::optional<ClaimWitness> order_witness(const impl::LockOrder& order, std::span<const model::Path> paths) {
  std::vector<model::Path> some(paths.begin(), paths.end());
  if (some.size() > impl::kMaxOrderCheckPaths) some.resize(impl::kMaxOrderCheckPaths);
  const auto defect = impl::find_order_defect(order, some);
  if (!defect) return std::nullopt;
  return ClaimWitness{std::nullopt, std::nullopt, defect->witness,
                      fmt::format("order {}: {} fails: {}", order.name(), impl::to_string(defect->property),
                                  defect->explanation)};
}

// The first pair of adjacent steps out of order, and the first lock taken
// twice, in `plan`.
void check_plan(const impl::Scheme& scheme, const model::Operation& op, const impl::Plan& plan,
                ClaimResult& increasing, ClaimResult& once) {
  const auto steps = plan.steps();
  const impl::LockOrder& order = scheme.order();
  for (std::size_t k = 1; k < steps.size() && !increasing.witness; ++k) {
    const auto c = order.compare(steps[k - 1].lock, steps[k].lock);
    if (c < 0) continue;
    increasing.witness = ClaimWitness{
        op, plan, {steps[k - 1].lock, steps[k].lock},
        fmt::format("steps {} and {}: {} {} {} in order {}", k, k + 1, steps[k - 1].lock.str(),
                    order_result(c), steps[k].lock.str(), order.name())};
  }
  for (std::size_t k = 1; k < steps.size() && !once.witness; ++k) {
    for (std::size_t e = 0; e < k; ++e) {
      if (steps[e].lock != steps[k].lock) continue;
      once.witness = ClaimWitness{op, plan, {steps[k].lock},
                                  fmt::format("steps {} and {} both take {}", e + 1, k + 1, steps[k].lock.str())};
      break;
    }
  }
}

}  // namespace

PlanClaims check_plan_claims(const impl::Scheme& scheme, std::span<const model::Path> paths,
                             std::span<const model::Operation> ops, std::span<const impl::Plan> plans) {
  PlanClaims out;
  for (std::size_t c = 0; c < kPlanClaimCount; ++c) out.claims.push_back({static_cast<PlanClaim>(c), ClaimStatus::kNotClaimed, std::nullopt});
  // Only canonical plans claim anything; the table merges only those.
  if (!scheme.canonical_plans()) return out;
  auto& order = out.claims[static_cast<std::size_t>(PlanClaim::kStrictTotalOrder)];
  auto& increasing = out.claims[static_cast<std::size_t>(PlanClaim::kStrictlyIncreasing)];
  auto& once = out.claims[static_cast<std::size_t>(PlanClaim::kEachLockOnce)];
  if (scheme.granularity() == impl::Granularity::kPerPath) order.witness = order_witness(scheme.order(), paths);
  for (std::size_t i = 0; i < ops.size() && !(increasing.witness && once.witness); ++i) {
    check_plan(scheme, ops[i], plans[i], increasing, once);
  }
  for (auto& c : out.claims) c.status = c.witness ? ClaimStatus::kBroken : ClaimStatus::kHolds;
  out.computation = out.any_broken() ? PairComputation::kEveryStepPair : PairComputation::kMerge;
  return out;
}

std::optional<impl::PlanConflict> every_step_pair_conflict(const impl::Scheme& scheme, const impl::Plan& a,
                                                           const impl::Plan& b) {
  for (const auto& x : a) {
    for (const auto& y : b) {
      if (x.lock == y.lock && !scheme.compatible(x.mode, y.mode)) return impl::PlanConflict{x.lock, x.mode, y.mode};
    }
  }
  return std::nullopt;
}

}  // namespace pathlock::sim
