// Scheme files: every built-in exports and loads back identical, variants
// survive the trip, and bad files are rejected with the field named.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "pathlock/impl/plan.hpp"
#include "pathlock/io/scheme_file.hpp"
#include "pathlock/model/error.hpp"
#include "impl/order_generators.hpp"
#include "support/generators.hpp"

namespace pathlock::impl {
namespace {

using io::load_scheme_file;
using io::parse_scheme;
using io::scheme_from_json;
using io::scheme_to_json;

void expect_same(const Scheme& a, const Scheme& b) {
  EXPECT_EQ(a.name(), b.name());
  EXPECT_EQ(a.granularity(), b.granularity());
  ASSERT_EQ(a.mode_count(), b.mode_count());
  for (std::uint8_t x = 0; x < a.mode_count(); ++x) {
    EXPECT_EQ(a.mode_name(ModeId{x}), b.mode_name(ModeId{x}));
    for (std::uint8_t y = 0; y < a.mode_count(); ++y) {
      EXPECT_EQ(a.compatible(ModeId{x}, ModeId{y}), b.compatible(ModeId{x}, ModeId{y}));
      EXPECT_EQ(a.join(ModeId{x}, ModeId{y}), b.join(ModeId{x}, ModeId{y}));
    }
  }
  for (const Role role : kAllRoles) EXPECT_EQ(a.mode_for(role), b.mode_for(role));
  EXPECT_TRUE(a.order() == b.order()) << a.order().name() << " vs " << b.order().name();
  EXPECT_EQ(a.acquisition(), b.acquisition());
  EXPECT_EQ(a.joining(), b.joining());
}

const LockOrder& custom_order() {
  static const LockOrder order = LockOrder::from_keys(
      "mine", {OrderKey::depth(Direction::kDescending),
               OrderKey::rank({model::Path::parse("/b"), model::Path::parse("/a")}, Unranked::kAfter),
               OrderKey::components(Direction::kAscending)});
  return order;
}

std::vector<Scheme> exported_and_variants() {
  std::vector<Scheme> out;
  for (const auto* s : builtin_schemes()) out.push_back(*s);
  SchemeSpec req = path_rwa_joined_scheme().spec();
  req.name = "request-order";
  req.acquisition = Acquisition::kRequestOrder;
  out.emplace_back(req);
  SchemeSpec per_role = path_rwa_joined_scheme().spec();
  per_role.name = "per-role";
  per_role.joining = ModeJoining::kPerRole;
  out.emplace_back(per_role);
  out.push_back(path_rw_scheme().with_order(LockOrder::deepest_first(), "deepest"));
  out.push_back(path_rwa_joined_scheme().with_order(custom_order(), "custom"));
  out.push_back(path_rwa_joined_scheme().with_order(
      LockOrder::from_keys("by-depth", {OrderKey::depth(Direction::kAscending)}), "custom-not-total"));
  return out;
}

TEST(SchemeFile, EverySchemeRoundTrips) {
  for (const auto& s : exported_and_variants()) {
    const Scheme back = parse_scheme(scheme_to_json(s).dump(2), "round trip");
    expect_same(s, back);
  }
}

TEST(SchemeFile, ACustomOrderExportsAsItsKeysAndLoadsBackExactly) {
  const Scheme s = path_rwa_joined_scheme().with_order(custom_order(), "custom");
  const auto j = scheme_to_json(s);
  EXPECT_EQ(j["acquisition"]["order"], nlohmann::json::parse(R"({"name": "mine", "keys": [
      {"by": "depth", "direction": "descending"},
      {"by": "rank", "paths": ["/b", "/a"], "rest": "after"},
      {"by": "components", "direction": "ascending"}]})"));
  const Scheme back = scheme_from_json(j, "round trip");
  EXPECT_TRUE(back.order() == custom_order());
  EXPECT_EQ(back.order().definition(), OrderDefinition::kKeys);
  EXPECT_EQ(scheme_to_json(back), j);
  EXPECT_EQ(back.order().ancestry(), Ancestry::kUnspecified);
  EXPECT_TRUE(back.canonical_plans());
}

RC_GTEST_PROP(SchemeFileProps, EveryKeyedOrderRoundTripsExactly, ()) {
  const auto keys = *testing::gen_order_keys(*rc::gen::element(testing::TieBreak::kComponents,
                                                               testing::TieBreak::kNone));
  const Scheme s = path_rwa_joined_scheme().with_order(LockOrder::from_keys("random", keys), "random");
  const auto j = scheme_to_json(s);
  const Scheme back = parse_scheme(j.dump(), "round trip");
  RC_ASSERT(back.order() == s.order());
  RC_ASSERT(scheme_to_json(back) == j);
}

TEST(SchemeFile, TheShippedCustomOrdersLoad) {
  const auto dir = std::filesystem::path(PATHLOCK_SOURCE_DIR) / "sim" / "schemes";
  const Scheme total = load_scheme_file(dir / "custom-order.json");
  EXPECT_EQ(total.order().definition(), OrderDefinition::kKeys);
  EXPECT_EQ(total.order().totality(), Totality::kStrictTotal);
  const Scheme not_total = load_scheme_file(dir / "custom-order-not-total.json");
  EXPECT_EQ(not_total.order().totality(), Totality::kNotTotal);
  EXPECT_FALSE(not_total.canonical_plans());
}

RC_GTEST_PROP(SchemeFileProps, ALoadedSchemePlansLikeTheOriginal, (const model::Request& r)) {
  for (const auto& s : exported_and_variants()) {
    const Scheme back = scheme_from_json(scheme_to_json(s), "round trip");
    RC_ASSERT(plan_for(s, r) == plan_for(back, r));
  }
}

std::string error_of(const std::string& text) {
  try {
    parse_scheme(text, "f.json");
  } catch (const model::InputError& e) {
    return e.what();
  }
  return "accepted";
}

// A valid file, edited.
std::string edited(const char* key, nlohmann::json value) {
  auto j = scheme_to_json(path_rwa_joined_scheme());
  if (value.is_null()) {
    j.erase(key);
  } else {
    j[key] = std::move(value);
  }
  return j.dump();
}

TEST(SchemeFile, BadFilesNameTheProblem) {
  EXPECT_EQ(error_of(edited("name", nullptr)).find("f.json: name"), 0u);
  EXPECT_NE(error_of(edited("roles", nlohmann::json{{"write_target", "W"}})).find("roles.read_target"),
            std::string::npos);
  EXPECT_NE(error_of(edited("roles", nlohmann::json{{"write_target", "Z"}, {"read_target", "R"},
                                                     {"write_ancestor", "WA"}, {"read_ancestor", "RA"}}))
                .find("\"Z\" is not one of the modes"),
            std::string::npos);
  EXPECT_NE(error_of(edited("acquisition", nlohmann::json{{"order", "sideways"}})).find("acquisition.order"),
            std::string::npos);
  EXPECT_NE(error_of(edited("acquisition", nlohmann::json{{"joining", "maybe"}})).find("acquisition.joining"),
            std::string::npos);
  EXPECT_NE(error_of(edited("join", nlohmann::json::array())).find("join"), std::string::npos);
  EXPECT_NE(error_of(edited("granularity", "sometimes")).find("granularity"), std::string::npos);
  EXPECT_NE(error_of(edited("colour", "blue")).find("unknown field"), std::string::npos);
  // Asymmetric compatibility: R compatible with W, W not with R.
  auto j = scheme_to_json(path_rw_scheme());
  j["compatible"]["R"] = {"R", "W"};
  EXPECT_NE(error_of(j.dump()).find("symmetric"), std::string::npos);
  EXPECT_NE(error_of("[1, 2").find("not valid JSON"), std::string::npos);
  EXPECT_EQ(error_of(edited("title", "renamed")), "accepted");
}

TEST(SchemeFile, BadCustomOrdersNameTheField) {
  const auto order_error = [](const char* order) {
    return error_of(edited("acquisition", nlohmann::json{{"order", nlohmann::json::parse(order)}}));
  };
  const auto has = [](const std::string& error, const char* text) {
    return error.find(text) != std::string::npos ? ::testing::AssertionSuccess()
                                                 : ::testing::AssertionFailure() << error;
  };
  EXPECT_TRUE(has(order_error(R"({"name": "x", "keys": [{"by": "depth", "direction": "up"}]})"),
                  "f.json: acquisition.order.keys[0].direction: \"up\" is not \"ascending\" or \"descending\""));
  EXPECT_TRUE(has(order_error(R"({"name": "x", "keys": [{"by": "size", "direction": "ascending"}]})"),
                  "acquisition.order.keys[0].by: \"size\" is not \"depth\" or \"components\" or \"rank\""));
  EXPECT_TRUE(has(order_error(R"({"name": "x", "keys": [{"by": "depth"}]})"),
                  "acquisition.order.keys[0].direction: is missing"));
  EXPECT_TRUE(has(order_error(R"({"name": "x", "keys": [{"by": "depth", "direction": "ascending", "colour": 1}]})"),
                  "acquisition.order.keys[0].colour: unknown field"));
  EXPECT_TRUE(has(order_error(R"({"name": "x", "keys": [{"by": "rank", "paths": ["/a", "b"], "rest": "after"}]})"),
                  "acquisition.order.keys[0].paths[1]: "));
  EXPECT_TRUE(has(order_error(R"({"name": "x", "keys": [{"by": "rank", "paths": ["/a", "/a"], "rest": "after"}]})"),
                  "acquisition.order.keys[0].paths[1]: \"/a\" is listed twice"));
  EXPECT_TRUE(has(order_error(R"({"name": "x", "keys": [{"by": "rank", "paths": ["/a"], "rest": "last"}]})"),
                  "acquisition.order.keys[0].rest: \"last\" is not \"before\" or \"after\""));
  EXPECT_TRUE(has(order_error(R"({"name": "x", "keys": []})"), "acquisition.order.keys: is empty"));
  EXPECT_TRUE(has(order_error(R"({"name": "x"})"), "acquisition.order.keys: must be an array"));
  EXPECT_TRUE(has(order_error(R"({"name": "request", "keys": [{"by": "depth", "direction": "ascending"}]})"),
                  "acquisition.order.name: \"request\" is a built-in order's name"));
  EXPECT_TRUE(has(order_error(R"({"keys": [{"by": "depth", "direction": "ascending"}]})"),
                  "acquisition.order.name: is missing"));
  EXPECT_TRUE(has(order_error(R"({"name": "x", "keys": [{"by": "components", "direction": "ascending"},
                                                        {"by": "depth", "direction": "ascending"}]})"),
                  "acquisition.order.keys[1]: is never used"));
  EXPECT_EQ(order_error(R"({"name": "x", "keys": [{"by": "depth", "direction": "ascending"}]})"), "accepted");
}

}  // namespace
}  // namespace pathlock::impl
