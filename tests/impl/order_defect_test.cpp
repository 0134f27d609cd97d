// find_order_defect: silent on strict total orders, and for each property of
// one that fails, names the property and the paths that show it.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <chrono>

#include "order_generators.hpp"
#include "pathlock/impl/order_defect.hpp"
#include "pathlock/model/error.hpp"

namespace pathlock::impl {
namespace {

using model::Path;
using testing::gen_order_keys;
using testing::TieBreak;

Path P(const char* text) { return Path::parse(text); }

const std::vector<Path>& sample() {
  static const std::vector<Path> paths{P("/"), P("/a"), P("/a/b"), P("/a/b/c"), P("/a/c"), P("/ab"), P("/b")};
  return paths;
}

std::vector<std::string> texts(const std::vector<Path>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) out.push_back(p.str());
  return out;
}

TEST(OrderDefect, StrictTotalBuiltinsHaveNone) {
  for (const auto* o : LockOrder::builtins()) {
    if (o->totality() != Totality::kStrictTotal) continue;
    EXPECT_FALSE(find_order_defect(*o, sample())) << o->name();
  }
  EXPECT_FALSE(find_order_defect(LockOrder::ancestor_first(), {}));
}

TEST(OrderDefect, DepthOnlyKeysAreNotTotalAndTheFinderSaysWhichPathsTie) {
  for (const LockOrder& o : {LockOrder::from_keys("depth", {OrderKey::depth(Direction::kAscending)})}) {
    const auto d = find_order_defect(o, sample());
    ASSERT_TRUE(d) << o.name();
    EXPECT_EQ(d->property, OrderProperty::kTotal);
    EXPECT_EQ(texts(d->witness), (std::vector<std::string>{"/a", "/ab"}));
    EXPECT_EQ(d->explanation, "/a and /ab compare equal");
  }
}

// Deliberately broken comparison functions, one per property.
std::strong_ordering reflexive_on_b(std::string_view a, std::string_view b) {
  if (a == "/b" && b == "/b") return std::strong_ordering::less;
  return model::compare_path_text(a, b);
}
std::strong_ordering always_less(std::string_view a, std::string_view b) {
  return a == b ? std::strong_ordering::equal : std::strong_ordering::less;
}
// Rock, paper, scissors on /a, /b, /c: /a < /b < /c < /a.
std::strong_ordering cyclic(std::string_view a, std::string_view b) {
  const auto rank = [](std::string_view t) { return t == "/a" ? 0 : t == "/b" ? 1 : t == "/c" ? 2 : 3; };
  const int x = rank(a);
  const int y = rank(b);
  if (x == 3 || y == 3 || x == y) return model::compare_path_text(a, b);
  return (y - x + 3) % 3 == 1 ? std::strong_ordering::less : std::strong_ordering::greater;
}

TEST(OrderDefect, EachBrokenPropertyIsNamedWithItsWitness) {
  const LockOrder reflexive("reflexive", "", &reflexive_on_b);
  auto d = find_order_defect(reflexive, sample());
  ASSERT_TRUE(d);
  EXPECT_EQ(d->property, OrderProperty::kIrreflexive);
  EXPECT_EQ(texts(d->witness), std::vector<std::string>{"/b"});

  const LockOrder asymmetric("asymmetric", "", &always_less);
  d = find_order_defect(asymmetric, sample());
  ASSERT_TRUE(d);
  EXPECT_EQ(d->property, OrderProperty::kAntisymmetric);
  EXPECT_EQ(texts(d->witness), (std::vector<std::string>{"/", "/a"}));
  EXPECT_EQ(d->explanation, "/ compares less to /a, but /a compares less to /");

  const LockOrder cycle("cyclic", "", &cyclic);
  const std::vector<Path> paths{P("/"), P("/c"), P("/a"), P("/x"), P("/b")};
  d = find_order_defect(cycle, paths);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->property, OrderProperty::kTransitive);
  ASSERT_EQ(d->witness.size(), 3u);
  // Whichever rotation is reported, it is a cycle.
  EXPECT_TRUE(cycle.less(d->witness[0], d->witness[1]));
  EXPECT_TRUE(cycle.less(d->witness[1], d->witness[2]));
  EXPECT_TRUE(cycle.less(d->witness[2], d->witness[0]));
  EXPECT_FALSE(find_order_defect(cycle, std::vector<Path>{P("/a"), P("/b"), P("/x")}));
}

TEST(OrderDefect, DuplicatesAreOnePathAndTheSizeIsBounded) {
  EXPECT_FALSE(find_order_defect(LockOrder::from_keys("depth-only", {OrderKey::depth(Direction::kAscending)}), std::vector<Path>{P("/a"), P("/a"), P("/a/b")}));
  std::vector<Path> many;
  for (std::size_t i = 0; i <= kMaxOrderCheckPaths; ++i) many.push_back(Path::root().child(std::to_string(i)));
  try {
    find_order_defect(LockOrder::ancestor_first(), many);
    FAIL() << "accepted " << many.size() << " paths";
  } catch (const model::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("4097 distinct paths; at most 4096"), std::string::npos) << e.what();
  }
}

TEST(OrderDefect, TwoThousandPathsAreChecked) {
  std::vector<Path> paths;
  for (int i = 0; i < 32; ++i) {
    const Path top = Path::root().child(std::to_string(i));
    for (int j = 0; j < 63; ++j) paths.push_back(top.child(std::to_string(j)));
    paths.push_back(top);
  }
  ASSERT_EQ(paths.size(), kMaxOrderCheckPaths / 2);
  const auto order = LockOrder::from_keys(
      "mine", {OrderKey::depth(Direction::kDescending), OrderKey::rank({P("/7"), P("/3")}, Unranked::kAfter),
               OrderKey::components(Direction::kAscending)});
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(find_order_defect(order, paths));
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("seconds", std::to_string(seconds));
}

RC_GTEST_PROP(OrderDefectProps, KeysWithATieBreakHaveNoDefect, (const std::vector<Path>& paths)) {
  const auto order = LockOrder::from_keys("random", *gen_order_keys(TieBreak::kComponents));
  RC_ASSERT(!find_order_defect(order, paths));
}

// Orders by keys are strict weak orders, so a defect is a tie, and there is
// one iff two distinct paths compare equal.
RC_GTEST_PROP(OrderDefectProps, KeysWithoutATieBreakFailExactlyWhereTwoPathsTie, (const std::vector<Path>& paths)) {
  const auto order = LockOrder::from_keys("random", *gen_order_keys(TieBreak::kNone));
  bool tie = false;
  for (const auto& a : paths) {
    for (const auto& b : paths) tie = tie || (a != b && order.compare(a, b) == 0);
  }
  const auto d = find_order_defect(order, paths);
  RC_ASSERT(d.has_value() == tie);
  if (!d) return;
  RC_ASSERT(d->property == OrderProperty::kTotal);
  RC_ASSERT(d->witness.size() == 2u);
  RC_ASSERT(d->witness[0] != d->witness[1]);
  RC_ASSERT(std::is_eq(order.compare(d->witness[0], d->witness[1])));
}

}  // namespace
}  // namespace pathlock::impl
