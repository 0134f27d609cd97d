#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/model/error.hpp"
#include "support/generators.hpp"

namespace pathlock::impl {
namespace {

std::string grid_of(const Scheme& s) {
  std::string out;
  for (std::uint8_t a = 0; a < s.mode_count(); ++a) {
    for (std::uint8_t b = 0; b < s.mode_count(); ++b) out += s.compatible(ModeId{a}, ModeId{b}) ? '+' : '-';
    out += '|';
  }
  return out;
}

TEST(Scheme, BuiltinsAreTheDesignNotesSchemes) {
  std::vector<std::string> names;
  for (const auto* s : builtin_schemes()) names.push_back(s->name());
  EXPECT_EQ(names, (std::vector<std::string>{"global-mutex", "global-rw", "path-rw", "path-rwa",
                                             "path-rwa-joined"}));
  EXPECT_EQ(find_builtin_scheme("path-rw"), &path_rw_scheme());
  EXPECT_EQ(find_builtin_scheme("nope"), nullptr);
}

TEST(Scheme, Scheme4MatrixIsTheDesignNotes) {
  // proofs/design.md, scheme 4: rows and columns RA, R, WA, W.
  EXPECT_EQ(grid_of(path_rwa_scheme()), "+++-|++--|+-+-|----|");
  // Gray et al.'s IS, S, IX, SIX, X.
  EXPECT_EQ(grid_of(path_rwa_joined_scheme()), "++++-|++---|+-+--|+----|-----|");
  EXPECT_EQ(grid_of(path_rw_scheme()), "+-|--|");
  EXPECT_EQ(grid_of(global_mutex_scheme()), "-|");
}

TEST(Scheme, DesignNotesJoinLosesAConflict) {
  const auto defects = join_defects(path_rwa_scheme());
  ASSERT_EQ(defects.size(), 1u);
  const auto& s = path_rwa_scheme();
  EXPECT_EQ(s.mode_name(defects[0].left), "R");
  EXPECT_EQ(s.mode_name(defects[0].right), "WA");
  EXPECT_EQ(s.mode_name(defects[0].joined), "WA");
  EXPECT_EQ(s.mode_name(defects[0].operand), "R");
  EXPECT_EQ(s.mode_name(defects[0].witness), "WA");
  for (const auto* other : builtin_schemes()) {
    if (other != &s) {
      EXPECT_TRUE(join_defects(*other).empty()) << other->name();
    }
  }
}

// The property behind the corrected scheme's exactness (proofs/README.md): a
// joined mode conflicts with exactly what either operand conflicts with.
TEST(Scheme, JoinedSchemeJoinKeepsExactlyTheOperandsConflicts) {
  const auto& s = path_rwa_joined_scheme();
  for (std::uint8_t a = 0; a < s.mode_count(); ++a) {
    for (std::uint8_t b = 0; b < s.mode_count(); ++b) {
      for (std::uint8_t m = 0; m < s.mode_count(); ++m) {
        EXPECT_EQ(s.compatible(s.join(ModeId{a}, ModeId{b}), ModeId{m}),
                  s.compatible(ModeId{a}, ModeId{m}) && s.compatible(ModeId{b}, ModeId{m}))
            << s.mode_name(ModeId{a}) << " v " << s.mode_name(ModeId{b}) << " against "
            << s.mode_name(ModeId{m});
      }
    }
  }
}

// The other half of the exactness proof (proofs/safety-and-exactness.md,
// Lemma 3): two roles' modes are incompatible exactly when one role writes
// the path, or one writes below a path the other reads. These are the role
// pairs that make two requests conflict, and no others.
TEST(Scheme, JoinedSchemeRoleModesConflictExactlyWhereLineageDoes) {
  const auto& s = path_rwa_joined_scheme();
  for (const Role a : kAllRoles) {
    for (const Role b : kAllRoles) {
      const bool writes = a == Role::kWriteTarget || b == Role::kWriteTarget;
      const bool writes_below_a_read = (a == Role::kWriteAncestor && b == Role::kReadTarget) ||
                                       (b == Role::kWriteAncestor && a == Role::kReadTarget);
      EXPECT_EQ(!s.compatible(s.mode_for(a), s.mode_for(b)), writes || writes_below_a_read)
          << to_string(a) << " against " << to_string(b);
    }
  }
}

SchemeSpec small_spec() {
  SchemeSpec spec;
  spec.name = "test";
  spec.modes = {{"R", ""}, {"W", ""}};
  spec.compatibility = {{Compatibility::kCompatible, Compatibility::kIncompatible},
                        {Compatibility::kIncompatible, Compatibility::kIncompatible}};
  spec.join = {{ModeId{0}, ModeId{1}}, {ModeId{1}, ModeId{1}}};
  spec.role_modes = {ModeId{1}, ModeId{1}, ModeId{0}, ModeId{0}};
  return spec;
}

std::string rejection(const SchemeSpec& spec) {
  try {
    Scheme s(spec);
  } catch (const model::InputError& e) {
    EXPECT_EQ(e.problem(), model::InputProblem::kBadParameter);
    return e.what();
  }
  return "accepted";
}

TEST(Scheme, InvalidSpecsAreRejectedWithTheReason) {
  EXPECT_NO_THROW(Scheme{small_spec()});
  auto s = small_spec();
  s.compatibility[0][1] = Compatibility::kCompatible;
  EXPECT_NE(rejection(s).find("not symmetric"), std::string::npos);
  s = small_spec();
  s.join[0][1] = ModeId{0};
  EXPECT_NE(rejection(s).find("not commutative"), std::string::npos);
  s = small_spec();
  s.join[1][1] = ModeId{0};
  s.join[0][1] = s.join[1][0] = ModeId{0};
  EXPECT_NE(rejection(s).find("idempotent"), std::string::npos);
  s = small_spec();
  s.join[0][1] = s.join[1][0] = ModeId{7};
  EXPECT_NE(rejection(s).find("does not exist"), std::string::npos);
  s = small_spec();
  s.role_modes[2] = ModeId{5};
  EXPECT_NE(rejection(s).find("write ancestor"), std::string::npos);
  s = small_spec();
  s.modes[1].name = "R";
  EXPECT_NE(rejection(s).find("used twice"), std::string::npos);
  s = small_spec();
  s.modes.clear();
  EXPECT_NE(rejection(s).find("0 modes"), std::string::npos);
  s = small_spec();
  s.compatibility.pop_back();
  EXPECT_NE(rejection(s).find("1 rows for 2 modes"), std::string::npos);
}

TEST(Scheme, NonAssociativeJoinIsRejected) {
  SchemeSpec spec;
  spec.name = "rock-paper-scissors";
  spec.modes = {{"A", ""}, {"B", ""}, {"C", ""}};
  spec.compatibility.assign(3, std::vector<Compatibility>(3, Compatibility::kIncompatible));
  // A v B = B, B v C = C, C v A = A: commutative and idempotent, not associative.
  spec.join = {{ModeId{0}, ModeId{1}, ModeId{0}},
               {ModeId{1}, ModeId{1}, ModeId{2}},
               {ModeId{0}, ModeId{2}, ModeId{2}}};
  EXPECT_NE(rejection(spec).find("not associative"), std::string::npos);
}

TEST(Scheme, WithOrderChangesOnlyTheOrderAndName) {
  const Scheme deep = path_rwa_joined_scheme().with_order(LockOrder::deepest_first(), "deep");
  EXPECT_EQ(deep.name(), "deep");
  EXPECT_EQ(deep.order().name(), "deepest-first");
  EXPECT_EQ(grid_of(deep), grid_of(path_rwa_joined_scheme()));
}

RC_GTEST_PROP(LockOrderProps, BuiltinOrdersAreStrictTotalOrders,
              (const model::Path& a, const model::Path& b, const model::Path& c)) {
  for (const auto* order : LockOrder::builtins()) {
    if (order->totality() == Totality::kNotTotal) continue;
    RC_ASSERT((order->compare(a, b) == 0) == (a == b));
    RC_ASSERT(order->less(a, b) == (order->compare(b, a) > 0));
    if (order->less(a, b) && order->less(b, c)) RC_ASSERT(order->less(a, c));
  }
  if (a.is_proper_ancestor_of(b)) {
    RC_ASSERT(LockOrder::ancestor_first().less(a, b));
    RC_ASSERT(LockOrder::preorder().less(a, b));
    RC_ASSERT(LockOrder::deepest_first().less(b, a));
  }
}

TEST(LockOrder, DepthKeysAloneAreNotTotalAndSaySo) {
  const LockOrder o = LockOrder::from_keys("depth-only", {OrderKey::depth(Direction::kAscending)});
  EXPECT_EQ(o.totality(), Totality::kNotTotal);
  const auto a = model::Path::parse("/a");
  const auto b = model::Path::parse("/b");
  EXPECT_EQ(o.compare(a, b), std::strong_ordering::equal);  // a tie between distinct paths
  EXPECT_TRUE(o.less(a, model::Path::parse("/a/b")));
}

TEST(LockOrder, FindByName) {
  EXPECT_EQ(LockOrder::find("ancestor-first"), &LockOrder::ancestor_first());
  EXPECT_EQ(LockOrder::find("sideways"), nullptr);
  // The order that is not total is the verification kit's, not the lock's.
  EXPECT_EQ(LockOrder::find("depth-only"), nullptr);
}

}  // namespace
}  // namespace pathlock::impl
