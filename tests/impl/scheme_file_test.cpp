// Scheme files: every built-in exports and loads back identical, variants
// survive the trip, and bad files are rejected with the field named.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "pathlock/impl/plan.hpp"
#include "pathlock/impl/scheme_file.hpp"
#include "pathlock/model/error.hpp"
#include "support/generators.hpp"

namespace pathlock::impl {
namespace {

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
  EXPECT_EQ(a.order().name(), b.order().name());
  EXPECT_EQ(a.acquisition(), b.acquisition());
  EXPECT_EQ(a.joining(), b.joining());
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
  out.push_back(path_rwa_joined_scheme().with_order(LockOrder::depth_only(), "depth-only"));
  out.push_back(path_rw_scheme().with_order(LockOrder::deepest_first(), "deepest"));
  return out;
}

TEST(SchemeFile, EverySchemeRoundTrips) {
  for (const auto& s : exported_and_variants()) {
    const Scheme back = parse_scheme(scheme_to_json(s).dump(2), "round trip");
    expect_same(s, back);
  }
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

}  // namespace
}  // namespace pathlock::impl
