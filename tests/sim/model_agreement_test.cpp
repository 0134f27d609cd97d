// A model that disagrees with its second formulation is reported as a model
// error by `check` and by check-lock's ledger, never as a lock bug.

#include "pathlock/sim/model_agreement.hpp"

#include <gtest/gtest.h>

#include "pathlock/sim/check.hpp"
#include "pathlock/sim/lockcheck/ledger.hpp"

namespace pathlock::sim {
namespace {

model::Path P(std::string_view s) { return model::Path::parse(s); }

// The bug users found: lineage by raw string prefix, so /a is an "ancestor"
// of /ab.
bool raw_prefix_related(const model::Path& p, const model::Path& q) {
  return p.str().starts_with(q.str()) || q.str().starts_with(p.str());
}
bool raw_prefix_conflicts(const model::Request& a, const model::Request& b) {
  const auto any = [](const std::vector<model::Path>& xs, const std::vector<model::Path>& ys) {
    for (const auto& x : xs) {
      for (const auto& y : ys) {
        if (raw_prefix_related(x, y)) return true;
      }
    }
    return false;
  };
  return any(a.writes(), b.writes()) || any(a.writes(), b.reads()) || any(a.reads(), b.writes());
}

struct RawPrefixModel {
  RawPrefixModel() { set_primary_conflicts_for_testing(&raw_prefix_conflicts); }
  ~RawPrefixModel() { set_primary_conflicts_for_testing(nullptr); }
  RawPrefixModel(const RawPrefixModel&) = delete;
  RawPrefixModel& operator=(const RawPrefixModel&) = delete;
};

TEST(ModelAgreement, TheTwoFormulationsAgreeOnSiblingPrefixes) {
  EXPECT_EQ(model_error(model::read(P("/a")).request(), model::write(P("/ab")).request()), std::nullopt);
  const RawPrefixModel broken;
  const auto e = model_error(model::read(P("/a")).request(), model::write(P("/ab")).request());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(*e, "model error: model::conflicts says R{/a} and W{/ab} conflict; the key-prefix formulation says "
                "they do not conflict");
}

TEST(ModelAgreement, CheckReportsAModelErrorNotALockBug) {
  CheckOptions o;
  o.family = FamilySize::kNone;
  o.campaign_scenarios = 0;
  o.jobs = 1;
  const auto good = check_scheme(impl::path_rwa_joined_scheme(), o);
  EXPECT_EQ(good.model_error, std::nullopt);
  const RawPrefixModel broken;
  const auto r = check_scheme(impl::path_rwa_joined_scheme(), o);
  ASSERT_TRUE(r.model_error.has_value());
  EXPECT_EQ(r.verdict, CheckVerdict::kFail);
  EXPECT_FALSE(r.counterexample.has_value());
  ASSERT_FALSE(r.findings.empty());
  EXPECT_TRUE(r.findings.front().starts_with("model error: model::conflicts says ")) << r.findings.front();
  EXPECT_NE(r.findings.front().find("the key-prefix formulation says they do not conflict"), std::string::npos)
      << r.findings.front();
}

TEST(ModelAgreement, LedgerReportsAModelErrorNotBrokenMutualExclusion) {
  const auto read_a = model::read(P("/a")).request();
  const auto write_ab = model::write(P("/ab")).request();
  {
    lockcheck::GrantLedger ledger(2);
    EXPECT_EQ(ledger.granted(0, read_a), std::nullopt);
    EXPECT_EQ(ledger.granted(1, write_ab), std::nullopt);
  }
  const RawPrefixModel broken;
  lockcheck::GrantLedger ledger(2);
  EXPECT_EQ(ledger.granted(0, read_a), std::nullopt);
  const auto e = ledger.granted(1, write_ab);
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(e->starts_with("model error:")) << *e;
}

}  // namespace
}  // namespace pathlock::sim
