// The scaling benchmark's striped peer plans each operation inside the timed
// loop (StripedSharedMutex::plan): its plan must lock each stripe once, in
// ascending order, exclusively where the written target falls.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <stdexcept>
#include <string>

#include "scaling_baselines.hpp"

namespace pathlock::bench {
namespace {

using Striped = StripedSharedMutex;

std::size_t stripe_of(const std::string& prefix) { return std::hash<std::string>{}(prefix) % Striped::kStripes; }

TEST(StripedPlan, LocksEachStripeOnceInAscendingOrder) {
  for (const Access access : {Access::kRead, Access::kWrite}) {
    const Operation op = make_operation("d1/d2/d3/o4", access);
    const Striped::Plan plan = Striped::plan(op);
    std::set<std::size_t> expected;
    for (const auto& prefix : op.prefixes) expected.insert(stripe_of(prefix));
    ASSERT_EQ(plan.size, expected.size());
    std::size_t i = 0;
    for (const std::size_t stripe : expected) EXPECT_EQ(plan.stripes[i++].first, stripe);
  }
}

TEST(StripedPlan, TheWrittenTargetsStripeIsExclusiveEvenWhenAnAncestorSharesIt) {
  // Find a target whose stripe is also an ancestor's: the shared stripe must
  // be taken once, exclusively.
  for (int i = 0; i < 10000; ++i) {
    const Operation op = make_operation("a/o" + std::to_string(i), Access::kWrite);
    const std::size_t target = stripe_of(op.prefixes.back());
    bool shared = false;
    for (std::size_t p = 0; p + 1 < op.prefixes.size(); ++p) shared = shared || stripe_of(op.prefixes[p]) == target;
    if (!shared) continue;
    const Striped::Plan plan = Striped::plan(op);
    for (std::size_t s = 0; s < plan.size; ++s) {
      EXPECT_EQ(plan.stripes[s].second, plan.stripes[s].first == target ? Access::kWrite : Access::kRead);
    }
    return;
  }
  FAIL() << "no target shares an ancestor's stripe among 10,000";
}

TEST(StripedPlan, AnOperationWithMorePrefixesThanItHoldsIsRefused) {
  std::string deep = "a";
  for (std::size_t i = 1; i < Striped::kMaxStripes; ++i) deep += "/a";
  EXPECT_THROW(Striped::plan(make_operation(deep, Access::kRead)), std::length_error);
}

}  // namespace
}  // namespace pathlock::bench
