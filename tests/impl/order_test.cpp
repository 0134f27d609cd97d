// Orders defined by keys: the built-ins' data form agrees with their fast
// functions, keys mean what order.hpp says, promises are computed honestly,
// and bad key lists are rejected with the key named.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "order_generators.hpp"
#include "pathlock/impl/order.hpp"
#include "pathlock/model/error.hpp"

namespace pathlock::impl {
namespace {

using model::Path;
using testing::gen_order_keys;
using testing::TieBreak;

Path P(const char* text) { return Path::parse(text); }

std::string error_of(std::vector<OrderKey> keys, std::string name = "mine") {
  try {
    LockOrder::from_keys(std::move(name), std::move(keys));
  } catch (const model::InputError& e) {
    return e.what();
  }
  return "accepted";
}

RC_GTEST_PROP(OrderKeyProps, BuiltinsThroughTheirKeysCompareLikeTheirFunctions, (const Path& a, const Path& b)) {
  for (const auto* builtin : LockOrder::builtins()) {
    const auto keys = builtin->keys();
    const LockOrder data = LockOrder::from_keys("data-" + builtin->name(), {keys.begin(), keys.end()});
    const bool same = data.compare(a, b) == builtin->compare(a, b);
    RC_ASSERT(same);
  }
}

TEST(OrderKeys, BuiltinPromisesComputedFromTheirKeysAreTheDeclaredOnes) {
  const auto promises = [](const LockOrder& o) { return std::pair(o.ancestry(), o.totality()); };
  EXPECT_EQ(promises(LockOrder::ancestor_first()), std::pair(Ancestry::kAncestorsFirst, Totality::kStrictTotal));
  EXPECT_EQ(promises(LockOrder::preorder()), std::pair(Ancestry::kAncestorsFirst, Totality::kStrictTotal));
  EXPECT_EQ(promises(LockOrder::deepest_first()), std::pair(Ancestry::kUnspecified, Totality::kStrictTotal));
  EXPECT_EQ(promises(LockOrder::from_keys("depth-only", {OrderKey::depth(Direction::kAscending)})),
            std::pair(Ancestry::kAncestorsFirst, Totality::kNotTotal));
  for (const auto* o : LockOrder::builtins()) {
    EXPECT_EQ(o->definition(), OrderDefinition::kBuiltin);
    EXPECT_FALSE(o->keys().empty()) << o->name();
  }
}

TEST(OrderKeys, ComponentsCompareComponentListsNotRawText) {
  const auto up = LockOrder::from_keys("up", {OrderKey::components(Direction::kAscending)});
  // Raw text puts "/a-b" first ('-' < '/'); component lists put "a" first.
  EXPECT_LT(std::string("/a-b"), std::string("/a/b"));
  EXPECT_TRUE(up.less(P("/a/b"), P("/a-b")));
  EXPECT_TRUE(up.less(P("/a/b"), P("/ab")));
  EXPECT_TRUE(up.less(P("/a"), P("/a/b")));
  const auto down = LockOrder::from_keys("down", {OrderKey::components(Direction::kDescending)});
  EXPECT_TRUE(down.less(P("/a-b"), P("/a/b")));
  EXPECT_TRUE(down.less(P("/a/b"), P("/a")));
}

TEST(OrderKeys, RankPutsListedPathsInListOrderAndTheRestWhereAsked) {
  const auto after = LockOrder::from_keys(
      "after", {OrderKey::rank({P("/b"), P("/a")}, Unranked::kAfter), OrderKey::components(Direction::kAscending)});
  EXPECT_TRUE(after.less(P("/b"), P("/a")));
  EXPECT_TRUE(after.less(P("/a"), P("/")));     // the rest after the list
  EXPECT_TRUE(after.less(P("/c"), P("/d")));    // ... and ordered by the next key
  const auto before = LockOrder::from_keys(
      "before", {OrderKey::rank({P("/b"), P("/a")}, Unranked::kBefore), OrderKey::depth(Direction::kDescending)});
  EXPECT_TRUE(before.less(P("/"), P("/b")));
  EXPECT_TRUE(before.less(P("/c/d"), P("/c")));
  EXPECT_EQ(before.compare(P("/c"), P("/d")), std::strong_ordering::equal);  // no tie-break: not total
  EXPECT_EQ(before.totality(), Totality::kNotTotal);
  EXPECT_EQ(after.totality(), Totality::kStrictTotal);
  EXPECT_EQ(after.description(), "rank /b, /a (the rest after), then components ascending");
}

TEST(OrderKeys, AncestryIsPromisedOnlyWhereTheKeysProveIt) {
  const auto ancestry = [](std::vector<OrderKey> keys) { return ancestry_of(keys); };
  const auto up = OrderKey::components(Direction::kAscending);
  EXPECT_EQ(ancestry({OrderKey::depth(Direction::kAscending)}), Ancestry::kAncestorsFirst);
  EXPECT_EQ(ancestry({up}), Ancestry::kAncestorsFirst);
  EXPECT_EQ(ancestry({OrderKey::depth(Direction::kDescending), up}), Ancestry::kUnspecified);
  EXPECT_EQ(ancestry({OrderKey::components(Direction::kDescending)}), Ancestry::kUnspecified);
  // A rank list with every listed path's ancestors listed before it, the rest after.
  EXPECT_EQ(ancestry({OrderKey::rank({P("/"), P("/b"), P("/a"), P("/b/c")}, Unranked::kAfter), up}),
            Ancestry::kAncestorsFirst);
  EXPECT_EQ(ancestry({OrderKey::rank({P("/b")}, Unranked::kAfter), up}), Ancestry::kUnspecified);  // "/" unlisted
  EXPECT_EQ(ancestry({OrderKey::rank({P("/"), P("/b/c"), P("/b")}, Unranked::kAfter), up}), Ancestry::kUnspecified);
  EXPECT_EQ(ancestry({OrderKey::rank({P("/")}, Unranked::kBefore), up}), Ancestry::kUnspecified);
  EXPECT_EQ(ancestry({OrderKey::rank({P("/")}, Unranked::kAfter)}), Ancestry::kUnspecified);  // ties remain
}

// Planning skips sorting on this promise: it must hold wherever it is made.
RC_GTEST_PROP(OrderKeyProps, AKeyedOrderKeepsItsAncestryPromise, (const Path& p)) {
  const auto keys = *gen_order_keys(*rc::gen::element(TieBreak::kComponents, TieBreak::kNone));
  const auto order = LockOrder::from_keys("random", keys);
  RC_CLASSIFY(order.ancestry() == Ancestry::kAncestorsFirst);
  if (order.ancestry() != Ancestry::kAncestorsFirst) return;
  for (const auto& a : p.proper_ancestors()) RC_ASSERT(order.less(a, p));
}

RC_GTEST_PROP(OrderKeyProps, KeysWithAComponentsTieBreakAreAStrictTotalOrder,
              (const Path& a, const Path& b, const Path& c)) {
  const auto order = LockOrder::from_keys("random", *gen_order_keys(TieBreak::kComponents));
  RC_ASSERT(order.totality() == Totality::kStrictTotal);
  RC_ASSERT((order.compare(a, b) == 0) == (a == b));
  const bool mirrored = order.compare(a, b) == (0 <=> order.compare(b, a));
  RC_ASSERT(mirrored);
  if (order.less(a, b) && order.less(b, c)) RC_ASSERT(order.less(a, c));
}

TEST(OrderKeys, BadKeyListsNameTheKey) {
  const auto up = OrderKey::components(Direction::kAscending);
  EXPECT_NE(error_of({}).find("keys: is empty"), std::string::npos);
  EXPECT_NE(error_of(std::vector<OrderKey>(kMaxOrderKeys + 1, OrderKey::depth(Direction::kAscending)))
                .find("at most 16"),
            std::string::npos);
  EXPECT_NE(error_of({up, OrderKey::depth(Direction::kAscending)}).find("keys[1]: is never used"),
            std::string::npos);
  EXPECT_NE(error_of({OrderKey::rank({P("/a"), P("/b"), P("/a")}, Unranked::kAfter), up})
                .find("keys[0].paths[2]: \"/a\" is listed twice (also at keys[0].paths[0])"),
            std::string::npos);
  EXPECT_NE(error_of({OrderKey::rank({}, Unranked::kAfter), up}).find("keys[0].paths: is empty"),
            std::string::npos);
  EXPECT_NE(error_of({up}, "ancestor-first").find("built-in order's name"), std::string::npos);
  EXPECT_NE(error_of({up}, "").find("must not be empty"), std::string::npos);
  OrderKey descending_rank = OrderKey::rank({P("/a")}, Unranked::kAfter);
  descending_rank.direction = Direction::kDescending;
  EXPECT_NE(error_of({descending_rank, up}).find("keys[0]: a rank key has no direction"), std::string::npos);
  OrderKey depth_with_list = OrderKey::depth(Direction::kAscending);
  depth_with_list.ranked.push_back(P("/a"));
  EXPECT_NE(error_of({depth_with_list, up}).find("keys[0]: lists paths"), std::string::npos);
  EXPECT_EQ(error_of({OrderKey::depth(Direction::kDescending), up}), "accepted");
}

TEST(OrderKeys, EqualityIsByDefinition) {
  const std::vector<OrderKey> keys{OrderKey::depth(Direction::kDescending),
                                   OrderKey::components(Direction::kAscending)};
  EXPECT_TRUE(LockOrder::from_keys("x", keys) == LockOrder::from_keys("x", keys));
  EXPECT_FALSE(LockOrder::from_keys("x", keys) == LockOrder::from_keys("y", keys));
  EXPECT_FALSE(LockOrder::from_keys("x", keys) == LockOrder::from_keys("x", {keys.back()}));
  EXPECT_FALSE(LockOrder::from_keys("deep", keys) == LockOrder::deepest_first());  // same keys, not built in
}

}  // namespace
}  // namespace pathlock::impl
