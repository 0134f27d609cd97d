// PathLock refuses a defective scheme unless told otherwise: each defect is
// named in the error, the opt-in takes the scheme, and the sound built-ins
// are taken by default.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "pathlock/impl/scheme_admission.hpp"
#include "pathlock/path_lock.hpp"
#include "pathlock/sim/variants.hpp"

namespace pathlock {
namespace {

// The message of the constructor's std::invalid_argument ("" if it took the scheme).
std::string refusal(const impl::Scheme& scheme) {
  try {
    PathLock lock(scheme);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

void expect_refused_for(const impl::Scheme& scheme, const std::string& defect) {
  const std::string why = refusal(scheme);
  EXPECT_NE(why.find("\"" + scheme.name() + "\""), std::string::npos) << why;
  EXPECT_NE(why.find(defect), std::string::npos) << why;
  EXPECT_NE(why.find("SchemeAdmission::kAllowDefective"), std::string::npos) << why;
}

// By depth alone, yet claiming to be a strict total order: /a and /ab tie.
std::strong_ordering by_depth(std::string_view a, std::string_view b) {
  return std::count(a.begin(), a.end(), '/') <=> std::count(b.begin(), b.end(), '/');
}

TEST(SchemeAdmission, TheDefaultRequiresASoundScheme) {
  EXPECT_EQ(PathLockOptions{}.scheme_admission, SchemeAdmission::kRequireSound);
}

TEST(SchemeAdmission, EachDefectIsRefusedByName) {
  expect_refused_for(sim::request_order_variant(), "[request order] its locks are taken in request order");
  expect_refused_for(sim::per_role_variant(), "[per-role modes]");
  expect_refused_for(sim::depth_only_variant(),
                     "[order not total] the order \"depth-only\" is not a strict total order (totality fails: ");
  // The design notes' scheme 4 as written: R and WA join to WA, which admits
  // another WA although R conflicts with it.
  expect_refused_for(impl::path_rwa_scheme(), "[weak join] join(R, WA) = WA is compatible with WA, which R");
}

TEST(SchemeAdmission, AnOrderThatOnlyClaimsToBeTotalIsRefused) {
  const impl::LockOrder liar("depth-claims-total", "by depth, claiming a strict total order", &by_depth,
                             impl::Ancestry::kAncestorsFirst, impl::Totality::kStrictTotal);
  const impl::Scheme scheme = impl::path_rwa_joined_scheme().with_order(liar, "liar");
  expect_refused_for(scheme, "the order \"depth-claims-total\" is not a strict total order (totality fails: ");
}

TEST(SchemeAdmission, EveryDefectIsListed) {
  impl::SchemeSpec spec = impl::path_rwa_scheme().spec();
  spec.name = "everything-wrong";
  spec.joining = impl::ModeJoining::kPerRole;
  spec.order = sim::depth_only_order();
  const impl::Scheme scheme(std::move(spec));
  std::vector<impl::SchemeDefectKind> kinds;
  for (const auto& d : impl::scheme_defects(scheme)) kinds.push_back(d.kind);
  EXPECT_EQ(kinds, (std::vector{impl::SchemeDefectKind::kPerRoleModes, impl::SchemeDefectKind::kOrderNotTotal,
                                impl::SchemeDefectKind::kWeakJoin}));
  const std::string why = refusal(scheme);
  EXPECT_NE(why.find("[per-role modes]"), std::string::npos) << why;
  EXPECT_NE(why.find("[order not total]"), std::string::npos) << why;
  EXPECT_NE(why.find("[weak join]"), std::string::npos) << why;
}

TEST(SchemeAdmission, TheOptInTakesADefectiveScheme) {
  for (const impl::Scheme& scheme : {impl::path_rwa_scheme(), sim::depth_only_variant()}) {
    PathLock lock(scheme, PathLockOptions{.scheme_admission = SchemeAdmission::kAllowDefective});
    auto guard = lock.write(model::Path::parse("/a/b"));
    EXPECT_TRUE(guard.owns_lock()) << scheme.name();
  }
}

TEST(SchemeAdmission, TheSoundBuiltInsAreTakenAndPathRwaIsNot) {
  std::vector<std::string> refused;
  for (const impl::Scheme* scheme : impl::builtin_schemes()) {
    EXPECT_EQ(impl::scheme_defects(*scheme).empty(), refusal(*scheme).empty()) << scheme->name();
    if (!refusal(*scheme).empty()) refused.push_back(scheme->name());
  }
  EXPECT_EQ(refused, std::vector<std::string>{"path-rwa"});
  for (const impl::Scheme* scheme : {&impl::global_mutex_scheme(), &impl::global_rw_scheme(), &impl::path_rw_scheme(),
                                     &impl::path_rwa_joined_scheme()}) {
    PathLock lock(*scheme);
    EXPECT_TRUE(lock.try_acquire(model::read(model::Path::parse("/a")).request()).owns_lock()) << scheme->name();
  }
}

}  // namespace
}  // namespace pathlock
