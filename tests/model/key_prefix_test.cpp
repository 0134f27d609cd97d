// The model against its second formulation (key_prefix.hpp), on inputs
// biased toward what breaks lineage, at kSpecCases cases each.

#include "pathlock/model/key_prefix.hpp"

#include <gtest/gtest.h>

#include "pathlock/model/category.hpp"
#include "pathlock/model/conflict.hpp"
#include "support/generators.hpp"
#include "support/rc_cases.hpp"

namespace pathlock::model::key_prefix {
inline void showValue(Lineage l, std::ostream& os) { os << to_string(l); }
}  // namespace pathlock::model::key_prefix

namespace pathlock::model {
namespace {

// Enough cases that a raw-string-prefix lineage or a conflict predicate that
// ignores access kinds is caught every time (seen: each such mutant fails
// these properties), in well under a second each.
constexpr int kSpecCases = 10'000;

Path P(std::string_view s) { return Path::parse(s); }

// The primary formulation's lineage, from its two predicates.
key_prefix::Lineage primary_lineage(const Path& p, const Path& q) {
  if (p == q) return key_prefix::Lineage::kEqual;
  if (p.is_proper_ancestor_of(q)) return key_prefix::Lineage::kAncestor;
  if (q.is_proper_ancestor_of(p)) return key_prefix::Lineage::kDescendant;
  return key_prefix::Lineage::kUnrelated;
}

TEST(KeyPrefix, RangesAreKeyPrefixesAtSlash) {
  const auto r = key_prefix::range_of(P("/a/b"));
  EXPECT_EQ(r.low, "a/b/");
  EXPECT_EQ(r.high, "a/b0");
  EXPECT_FALSE(key_prefix::range_of(Path::root()).high.has_value());
}

TEST(KeyPrefix, SiblingPrefixesAreUnrelated) {
  using key_prefix::Lineage;
  EXPECT_EQ(key_prefix::lineage(P("/a/b"), P("/a/bc")), Lineage::kUnrelated);
  EXPECT_EQ(key_prefix::lineage(P("/a/b"), P("/a/b_")), Lineage::kUnrelated);
  EXPECT_EQ(key_prefix::lineage(P("/a/b"), P("/a/b.")), Lineage::kUnrelated);  // '.' sorts just below '/'
  EXPECT_EQ(key_prefix::lineage(P("/a/b"), P("/a/b0")), Lineage::kUnrelated);  // '0' sorts just above '/'
  EXPECT_EQ(key_prefix::lineage(P("/a"), P("/ab")), Lineage::kUnrelated);
  EXPECT_EQ(key_prefix::lineage(P("/a"), P("/a/b")), Lineage::kAncestor);
  EXPECT_EQ(key_prefix::lineage(P("/a/b"), P("/a")), Lineage::kDescendant);
  EXPECT_EQ(key_prefix::lineage(Path::root(), P("/a")), Lineage::kAncestor);
  EXPECT_EQ(key_prefix::lineage(Path::root(), Path::root()), Lineage::kEqual);
  EXPECT_FALSE(key_prefix::conflicts(read(P("/a")).request(), write(P("/ab")).request()));
  EXPECT_TRUE(key_prefix::conflicts(read(P("/a")).request(), write(P("/a/b")).request()));
  EXPECT_FALSE(key_prefix::conflicts(read(P("/a")).request(), read(P("/a/b")).request()));
}

PATHLOCK_PROP(KeyPrefixProps, LineageAgrees, kSpecCases, ()) {
  const auto [p, q] = *testing::gen_near_pair();
  RC_ASSERT(primary_lineage(p, q) == key_prefix::lineage(p, q));
  RC_ASSERT(related(p, q) == key_prefix::related(p, q));
}

PATHLOCK_PROP(KeyPrefixProps, ConflictsAgree, kSpecCases, ()) {
  const auto [a, b] = *testing::gen_near_requests();
  RC_ASSERT(conflicts(a, b) == key_prefix::conflicts(a, b));
  RC_ASSERT(conflict_witness(a, b).has_value() == key_prefix::conflicts(a, b));
}

PATHLOCK_PROP(KeyPrefixProps, CategoriesAgree, kSpecCases, ()) {
  const auto [p, q] = *testing::gen_near_pair();
  const bool p_writes = *rc::gen::arbitrary<bool>();
  const bool q_writes = *rc::gen::arbitrary<bool>();
  const Request a = p_writes ? write(p).request() : read(p).request();
  const Request b = q_writes ? write(q).request() : read(q).request();
  const auto category = categorize(a, b);
  const auto number = key_prefix::category_number(a, b);
  RC_ASSERT(category.has_value() && number.has_value());
  RC_ASSERT(info(*category).number == *number);
  RC_ASSERT((info(*category).must == Requirement::kBlock) == key_prefix::category_must_block(*number));
  RC_ASSERT((info(*category).must == Requirement::kBlock) == conflicts(a, b));
}

}  // namespace
}  // namespace pathlock::model
