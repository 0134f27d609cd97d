// pathlock check on the acquisition order: the shipped custom orders pass
// when they are strict total orders and fail, with two paths that tie, when
// they are not; an order that claims totality and lies fails too.
#include <gtest/gtest.h>

#include <filesystem>

#include "pathlock/io/scheme_file.hpp"
#include "pathlock/sim/check.hpp"

namespace pathlock::sim {
namespace {

impl::Scheme shipped(const char* name) {
  return io::load_scheme_file(std::filesystem::path(PATHLOCK_SOURCE_DIR) / "sim" / "schemes" / name);
}

// The order check does not depend on the campaigns: keep them off.
CheckOptions quick() {
  CheckOptions o;
  o.family = FamilySize::kQuick;
  o.campaign_scenarios = 0;
  return o;
}

bool mentions(const CheckResult& r, const std::string& text) {
  for (const auto& f : r.findings) {
    if (f.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(CheckOrder, AStrictTotalCustomOrderPasses) {
  const CheckResult r = check_scheme(shipped("custom-order.json"), quick());
  EXPECT_EQ(r.verdict, CheckVerdict::kPass);
  EXPECT_TRUE(r.findings.empty()) << r.findings.front();
}

TEST(CheckOrder, ADepthOnlyCustomOrderFailsWithTwoPathsThatTie) {
  CheckResult r = check_scheme(shipped("custom-order-not-total.json"), quick());
  EXPECT_EQ(r.verdict, CheckVerdict::kFail);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings.front(), "order by-depth: not a strict total order (totality fails: /a and /ab compare equal)");
  // Its plans keep ties in request order, so the static table is safe: the
  // order check alone fails it.
  CheckOptions o = quick();
  o.family = FamilySize::kNone;
  r = check_scheme(shipped("custom-order-not-total.json"), o);
  EXPECT_TRUE(r.statics.safe());
  EXPECT_EQ(r.verdict, CheckVerdict::kFail);
  EXPECT_EQ(r.findings.size(), 1u);
}

// Same tie, but the order claims to be total: planning trusts the claim, so
// the check must not (the static table catches this one too).
std::strong_ordering depth_claiming_total(std::string_view a, std::string_view b) {
  return model::path_text_depth(a) <=> model::path_text_depth(b);
}

TEST(CheckOrder, AnOrderThatClaimsTotalityFalselyFails) {
  const impl::LockOrder liar("liar", "by depth, claiming to be total", &depth_claiming_total);
  const impl::Scheme s = impl::path_rwa_joined_scheme().with_order(liar, "liar");
  CheckOptions o = quick();
  o.family = FamilySize::kNone;  // the order check alone must fail it
  const CheckResult r = check_scheme(s, o);
  EXPECT_EQ(r.verdict, CheckVerdict::kFail);
  EXPECT_TRUE(mentions(r, "order liar: not a strict total order (totality fails: /a and /ab compare equal), "
                          "though it claims to be one"));
}

}  // namespace
}  // namespace pathlock::sim
