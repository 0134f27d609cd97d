#include "pathlock/io/order_file.hpp"

#include <fmt/format.h>

#include "pathlock/io/json_reader.hpp"
#include "pathlock/model/error.hpp"

namespace pathlock::io {
// The readers build the lock's own types.
using namespace pathlock::impl;  // NOLINT(google-build-using-namespace)

namespace {

using jsonio::fail;
using jsonio::ObjectReader;
using nlohmann::json;

constexpr const char* kRequestOrder = "request";  // scheme_file.cpp's keyword for request order

template <typename Enum, std::size_t N>
Enum one_of(const ObjectReader& r, const char* key, const std::array<Enum, N>& choices, const std::string& source) {
  const auto text = r.string(key);
  std::string known;
  for (const Enum e : choices) {
    if (text == to_string(e)) return e;
    known += fmt::format("{}\"{}\"", known.empty() ? "" : " or ", to_string(e));
  }
  if (!text) fail(source, r.field(key), fmt::format("is missing; give {}", known));
  fail(source, r.field(key), fmt::format("\"{}\" is not {}", *text, known));
}

constexpr std::array kKinds{OrderKeyKind::kDepth, OrderKeyKind::kComponents, OrderKeyKind::kRank};
constexpr std::array kDirections{Direction::kAscending, Direction::kDescending};
constexpr std::array kRests{Unranked::kBefore, Unranked::kAfter};

OrderKey key_from_json(const json& j, const std::string& source, const std::string& at) {
  ObjectReader r(j, source, at);
  OrderKey key;
  key.by = one_of(r, "by", kKinds, source);
  if (key.by != OrderKeyKind::kRank) {
    r.only({"by", "direction"});
    key.direction = one_of(r, "direction", kDirections, source);
    return key;
  }
  r.only({"by", "paths", "rest"});
  if (!r.has("paths") || !r.raw("paths").is_array()) fail(source, r.field("paths"), "must be an array of paths");
  const json& paths = r.raw("paths");
  if (paths.size() > kMaxRankedPaths) {
    fail(source, r.field("paths"), fmt::format("has {} paths; at most {}", paths.size(), kMaxRankedPaths));
  }
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const std::string field = fmt::format("{}[{}]", r.field("paths"), i);
    if (!paths[i].is_string()) fail(source, field, "must be a path such as \"/a/b\"");
    try {
      key.ranked.push_back(model::Path::parse(paths[i].get<std::string>()));
    } catch (const model::InputError& e) {
      fail(source, field, e.what());
    }
  }
  key.rest = one_of(r, "rest", kRests, source);
  return key;
}

}  // namespace

json keyed_order_to_json(const LockOrder& order) {
  json keys = json::array();
  for (const auto& k : order.keys()) {
    json key{{"by", to_string(k.by)}};
    if (k.by == OrderKeyKind::kRank) {
      key["paths"] = json::array();
      for (const auto& p : k.ranked) key["paths"].push_back(p.str());
      key["rest"] = to_string(k.rest);
    } else {
      key["direction"] = to_string(k.direction);
    }
    keys.push_back(std::move(key));
  }
  return {{"name", order.name()}, {"keys", std::move(keys)}};
}

LockOrder keyed_order_from_json(const json& j, const std::string& source, const std::string& field) {
  ObjectReader r(j, source, field);
  r.only({"name", "keys"});
  const auto name = r.string("name");
  if (!name || name->empty()) fail(source, r.field("name"), "is missing or empty");
  if (*name == kRequestOrder || LockOrder::find(*name) != nullptr) {
    fail(source, r.field("name"), fmt::format("\"{}\" is a built-in order's name; choose another", *name));
  }
  if (!r.has("keys") || !r.raw("keys").is_array()) fail(source, r.field("keys"), "must be an array of keys");
  if (r.raw("keys").size() > kMaxOrderKeys) {
    fail(source, r.field("keys"), fmt::format("has {} keys; at most {}", r.raw("keys").size(), kMaxOrderKeys));
  }
  std::vector<OrderKey> keys;
  for (std::size_t i = 0; i < r.raw("keys").size(); ++i) {
    keys.push_back(key_from_json(r.raw("keys")[i], source, fmt::format("{}[{}]", r.field("keys"), i)));
  }
  if (const auto problem = order_key_problem(keys)) fail(source, r.field(problem->field), problem->problem);
  return LockOrder::from_keys(*name, std::move(keys));
}

}  // namespace pathlock::io
