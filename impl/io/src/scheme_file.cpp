#include "pathlock/io/scheme_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "pathlock/io/json_reader.hpp"
#include "pathlock/io/order_file.hpp"

namespace pathlock::io {
// The readers build the lock's own types.
using namespace pathlock::impl;  // NOLINT(google-build-using-namespace)

namespace {

using jsonio::fail;
using jsonio::ObjectReader;
using nlohmann::json;

constexpr const char* kSchema = "pathlock.scheme/1";
constexpr std::array<const char*, kRoleCount> kRoleKeys{"write_target", "read_target", "write_ancestor",
                                                        "read_ancestor"};  // Role order

constexpr const char* kRequestOrder = "request";

std::string_view joining_name(ModeJoining j) { return j == ModeJoining::kJoin ? "join" : "per-role"; }

std::string_view fairness_name(Fairness f) {
  switch (f) {
    case Fairness::kFifo: return "fifo";
    case Fairness::kBoundedBypass: return "bounded-bypass";
    case Fairness::kNone: return "none";
  }
  return "?";
}

// "fairness": {"promise": "fifo" | "bounded-bypass" | "none", "bound": k};
// the bound goes with bounded-bypass only, and is required there.
void read_fairness(const ObjectReader& r, const std::string& source, SchemeSpec& spec) {
  if (!r.has("fairness")) return;
  ObjectReader f(r.raw("fairness"), source, "fairness");
  f.only({"promise", "bound"});
  const auto promise = f.string("promise");
  if (!promise) fail(source, "fairness.promise", "is missing (\"fifo\", \"bounded-bypass\" or \"none\")");
  if (*promise == "fifo") {
    spec.fairness = Fairness::kFifo;
  } else if (*promise == "bounded-bypass") {
    spec.fairness = Fairness::kBoundedBypass;
  } else if (*promise == "none") {
    spec.fairness = Fairness::kNone;
  } else {
    fail(source, "fairness.promise",
         fmt::format("\"{}\" is not \"fifo\", \"bounded-bypass\" or \"none\"", *promise));
  }
  if (spec.fairness != Fairness::kBoundedBypass) {
    if (f.has("bound")) fail(source, "fairness.bound", fmt::format("goes only with \"bounded-bypass\", not \"{}\"", *promise));
    return;
  }
  if (!f.has("bound")) fail(source, "fairness.bound", "is missing: the most overtakes one wait may suffer");
  int bound = 0;
  f.integer("bound", bound, 1, static_cast<int>(kMaxBypassBound));
  spec.bypass_bound = static_cast<std::uint32_t>(bound);
}

}  // namespace

nlohmann::json scheme_to_json(const Scheme& scheme) {
  const SchemeSpec& s = scheme.spec();
  json j;
  j["schema"] = kSchema;
  j["name"] = s.name;
  j["title"] = s.title;
  j["description"] = s.description;
  j["granularity"] = s.granularity == Granularity::kGlobal ? "global" : "per-path";
  j["modes"] = json::array();
  for (const auto& m : s.modes) j["modes"].push_back({{"name", m.name}, {"meaning", m.meaning}});
  j["compatible"] = json::object();
  for (std::uint8_t a = 0; a < scheme.mode_count(); ++a) {
    json with = json::array();
    for (std::uint8_t b = 0; b < scheme.mode_count(); ++b) {
      if (scheme.compatible(ModeId{a}, ModeId{b})) with.push_back(scheme.mode_name(ModeId{b}));
    }
    j["compatible"][scheme.mode_name(ModeId{a})] = with;
  }
  for (std::size_t r = 0; r < kRoleCount; ++r) j["roles"][kRoleKeys[r]] = scheme.mode_name(s.role_modes[r]);
  j["join"] = json::array();
  for (std::uint8_t a = 0; a < scheme.mode_count(); ++a) {
    json row = json::array();
    for (std::uint8_t b = 0; b < scheme.mode_count(); ++b) row.push_back(scheme.mode_name(scheme.join(ModeId{a}, ModeId{b})));
    j["join"].push_back(row);
  }
  json order = s.order.name();
  if (s.acquisition == Acquisition::kRequestOrder) {
    order = kRequestOrder;
  } else if (s.order.definition() == OrderDefinition::kKeys) {
    order = keyed_order_to_json(s.order);
  }
  j["acquisition"] = {{"order", std::move(order)}, {"joining", joining_name(s.joining)}};
  j["fairness"] = {{"promise", fairness_name(s.fairness)}};
  if (s.fairness == Fairness::kBoundedBypass) j["fairness"]["bound"] = s.bypass_bound;
  return j;
}

Scheme scheme_from_json(const nlohmann::json& j, const std::string& source) {
  ObjectReader r(j, source, "");
  r.only({"schema", "name", "title", "description", "granularity", "modes", "compatible", "roles", "join",
          "acquisition", "fairness"});
  const auto schema = r.string("schema");
  if (schema && *schema != kSchema) fail(source, "schema", fmt::format("\"{}\" is not \"{}\"", *schema, kSchema));
  SchemeSpec spec;
  const auto name = r.string("name");
  if (!name || name->empty()) fail(source, "name", "is missing or empty");
  spec.name = *name;
  spec.title = r.string("title").value_or(*name);
  spec.description = r.string("description").value_or("");
  const auto granularity = r.string("granularity").value_or("per-path");
  if (granularity == "per-path") {
    spec.granularity = Granularity::kPerPath;
  } else if (granularity == "global") {
    spec.granularity = Granularity::kGlobal;
  } else {
    fail(source, "granularity", fmt::format("\"{}\" is not \"per-path\" or \"global\"", granularity));
  }

  // Modes, and lookup by name.
  if (!r.has("modes") || !r.raw("modes").is_array() || r.raw("modes").empty()) {
    fail(source, "modes", "must be a non-empty array of {\"name\": ..., \"meaning\": ...}");
  }
  if (r.raw("modes").size() > kMaxModes) {
    fail(source, "modes", fmt::format("has {} modes; at most {}", r.raw("modes").size(), kMaxModes));
  }
  std::size_t index = 0;
  for (const auto& mj : r.raw("modes")) {
    const std::string at = fmt::format("modes[{}]", index++);
    ObjectReader m(mj, source, at);
    m.only({"name", "meaning"});
    const auto mode_name = m.string("name");
    if (!mode_name || mode_name->empty()) fail(source, at + ".name", "is missing or empty");
    spec.modes.push_back({*mode_name, m.string("meaning").value_or("")});
  }
  const std::size_t n = spec.modes.size();
  const auto mode_id = [&](const json& v, const std::string& at) {
    if (!v.is_string()) fail(source, at, "must be a mode name");
    const auto text = v.get<std::string>();
    for (std::size_t i = 0; i < n; ++i) {
      if (spec.modes[i].name == text) return ModeId{static_cast<std::uint8_t>(i)};
    }
    fail(source, at, fmt::format("\"{}\" is not one of the modes", text));
  };

  // Compatibility, from per-mode lists.
  spec.compatibility.assign(n, std::vector<Compatibility>(n, Compatibility::kIncompatible));
  if (!r.has("compatible")) fail(source, "compatible", "is missing");
  ObjectReader c(r.raw("compatible"), source, "compatible");
  for (const auto& item : r.raw("compatible").items()) {
    const std::string at = "compatible." + item.key();
    const ModeId a = mode_id(json(item.key()), at);
    if (!item.value().is_array()) fail(source, at, "must be an array of mode names");
    for (const auto& b : item.value()) {
      spec.compatibility[a.index][mode_id(b, at).index] = Compatibility::kCompatible;
    }
  }

  // Roles.
  if (!r.has("roles")) fail(source, "roles", "is missing");
  ObjectReader roles(r.raw("roles"), source, "roles");
  roles.only({"write_target", "read_target", "write_ancestor", "read_ancestor"});
  for (std::size_t i = 0; i < kRoleCount; ++i) {
    if (!roles.has(kRoleKeys[i])) fail(source, std::string("roles.") + kRoleKeys[i], "is missing");
    spec.role_modes[i] = mode_id(roles.raw(kRoleKeys[i]), std::string("roles.") + kRoleKeys[i]);
  }

  // Join table.
  if (!r.has("join") || !r.raw("join").is_array() || r.raw("join").size() != n) {
    fail(source, "join", fmt::format("must be {} rows of {} mode names (modes x modes)", n, n));
  }
  for (std::size_t a = 0; a < n; ++a) {
    const json& row = r.raw("join")[a];
    const std::string at = fmt::format("join[{}]", a);
    if (!row.is_array() || row.size() != n) fail(source, at, fmt::format("must be a row of {} mode names", n));
    std::vector<ModeId> out;
    for (std::size_t b = 0; b < n; ++b) out.push_back(mode_id(row[b], fmt::format("{}[{}]", at, b)));
    spec.join.push_back(std::move(out));
  }

  // Acquisition.
  if (r.has("acquisition")) {
    ObjectReader acq(r.raw("acquisition"), source, "acquisition");
    acq.only({"order", "joining"});
    const bool keyed = acq.has("order") && acq.raw("order").is_object();
    const auto order =
        keyed ? std::string() : acq.string("order").value_or(LockOrder::ancestor_first().name());
    if (keyed) {
      spec.order = keyed_order_from_json(acq.raw("order"), source, "acquisition.order");
    } else if (order == kRequestOrder) {
      spec.acquisition = Acquisition::kRequestOrder;
    } else if (const LockOrder* o = LockOrder::find(order)) {
      spec.order = *o;
    } else {
      std::string known;
      for (const auto* o2 : LockOrder::builtins()) known += o2->name() + ", ";
      fail(source, "acquisition.order", fmt::format("unknown order \"{}\" (known: {}{}; or define one: "
                                                       "{{\"name\": ..., \"keys\": [...]}})",
                                                       order, known, kRequestOrder));
    }
    const auto joining = acq.string("joining").value_or("join");
    if (joining == "join") {
      spec.joining = ModeJoining::kJoin;
    } else if (joining == "per-role") {
      spec.joining = ModeJoining::kPerRole;
    } else {
      fail(source, "acquisition.joining", fmt::format("\"{}\" is not \"join\" or \"per-role\"", joining));
    }
  }
  read_fairness(r, source, spec);
  try {
    return Scheme(std::move(spec));
  } catch (const model::InputError& e) {
    fail(source, "", e.what());
  }
}

Scheme parse_scheme(const std::string& json_text, const std::string& source) {
  return scheme_from_json(jsonio::parse_json(json_text, source), source);
}

Scheme load_scheme_file(const std::filesystem::path& file) {
  return parse_scheme(jsonio::read_file(file, "scheme"), file.string());
}

}  // namespace pathlock::io
