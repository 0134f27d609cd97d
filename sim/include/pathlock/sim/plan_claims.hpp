#pragma once
// What the static table checks before it takes a shortcut.
//
// For a scheme with canonical_plans() the table asks impl::plans_conflict,
// which merges two plans in the scheme's order. The merge is right only if
// what the scheme claims holds on the plans it merges:
//   order   the order is a strict total order on the tree's paths;
//   sorted  every plan is strictly increasing in that order;
//   once    every plan takes each lock once.
// A scheme whose code breaks one (an ordering bug behind an order that still
// claims to be strict and total) would make the merge miss shared locks and
// report pairs as unsafe that are not. So each claim is checked on the
// plans the table uses; a broken one is reported with its witness, and the
// table compares every pair of steps for that scheme instead (the general
// computation, which assumes nothing about order).
//
// A join weaker than one of its operands (impl::join_defects) is reported
// by the table on its own: it is the scheme's real behaviour (the lock takes
// the joined mode), not a shortcut of the table, so no other computation
// changes its pairs.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pathlock/impl/plan.hpp"
#include "pathlock/impl/scheme.hpp"
#include "pathlock/model/request.hpp"

namespace pathlock::sim {

enum class PlanClaim : std::uint8_t { kStrictTotalOrder, kStrictlyIncreasing, kEachLockOnce };
inline constexpr std::size_t kPlanClaimCount = 3;
std::string_view to_string(PlanClaim claim) noexcept;  // "the order is a strict total order", ...

enum class ClaimStatus : std::uint8_t { kHolds, kBroken, kNotClaimed };
std::string_view to_string(ClaimStatus status) noexcept;  // "holds", "broken", "not claimed"

// How the table judged a scheme's pairs.
enum class PairComputation : std::uint8_t {
  kMerge,          // impl::plans_conflict's merge of sorted plans: every claim held
  kEveryStepPair,  // every step of one plan against every step of the other
};
std::string_view to_string(PairComputation computation) noexcept;  // "merge of sorted plans", ...

struct ClaimWitness {
  std::optional<model::Operation> operation;  // the request whose plan breaks it
  std::optional<impl::Plan> plan;
  std::vector<model::Path> paths;  // the two steps out of order, the repeated lock, the order's witness
  std::string explanation;
};

struct ClaimResult {
  PlanClaim claim;
  ClaimStatus status = ClaimStatus::kNotClaimed;
  std::optional<ClaimWitness> witness;  // set iff broken
};

struct PlanClaims {
  std::vector<ClaimResult> claims;  // one per PlanClaim, in order
  PairComputation computation = PairComputation::kEveryStepPair;
  bool any_broken() const noexcept;
};

// Checks `scheme`'s claims on the tree's `paths` and on its plans of `ops`
// (plans[i] is the plan of ops[i]).
PlanClaims check_plan_claims(const impl::Scheme& scheme, std::span<const model::Path> paths,
                             std::span<const model::Operation> ops, std::span<const impl::Plan> plans);

// The general computation: the first step of `a` (in a's order) whose lock
// `b` takes in an incompatible mode.
std::optional<impl::PlanConflict> every_step_pair_conflict(const impl::Scheme& scheme, const impl::Plan& a,
                                                           const impl::Plan& b);

}  // namespace pathlock::sim
