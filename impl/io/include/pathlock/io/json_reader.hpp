#pragma once
// Strict JSON reading for the project's input files (workloads, scenarios,
// scheme files): known keys only, typed, in range. Every error is an
// InputError(kBadParameter) "SOURCE: FIELD: why", naming the file and field.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <initializer_list>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "pathlock/model/error.hpp"

namespace pathlock::io::jsonio {

using nlohmann::json;

[[noreturn]] inline void fail(const std::string& source, const std::string& field, const std::string& why) {
  throw model::InputError(model::InputProblem::kBadParameter,
                   fmt::format("{}: {}{}{}", source, field, field.empty() ? "" : ": ", why));
}

// The text as JSON. Every nlohmann error is bad input: syntax errors, and
// numbers that overflow a double (1e999), which nlohmann reports as
// out_of_range rather than parse_error.
inline json parse_json(const std::string& text, const std::string& source) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    fail(source, "", fmt::format("not valid JSON: {}", e.what()));
  }
}

// Reads one JSON object strictly: known keys only, typed, in range.
class ObjectReader {
 public:
  ObjectReader(const json& j, std::string source, std::string prefix)
      : j_(j), source_(std::move(source)), prefix_(std::move(prefix)) {
    if (!j_.is_object()) fail(source_, prefix_.empty() ? "top level" : prefix_, "must be a JSON object");
  }
  ~ObjectReader() = default;
  ObjectReader(const ObjectReader&) = delete;
  ObjectReader& operator=(const ObjectReader&) = delete;

  // Throws if the object has a key not in `known`.
  void only(std::initializer_list<const char*> known) const {
    for (const auto& item : j_.items()) {
      const std::string key = item.key();
      if (std::none_of(known.begin(), known.end(), [&](const char* k) { return key == k; })) {
        std::string list;
        for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
        fail(source_, field(key), fmt::format("unknown field (known: {})", list));
      }
    }
  }
  bool has(const char* key) const { return j_.contains(key); }
  const json& raw(const char* key) const { return j_.at(key); }
  std::string field(const std::string& key) const { return prefix_.empty() ? key : prefix_ + "." + key; }

  void number(const char* key, double& out, double lo, double hi) const {
    if (!has(key)) return;
    const auto& v = j_.at(key);
    if (!v.is_number()) fail(source_, field(key), "must be a number");
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < lo || d > hi) {
      fail(source_, field(key), fmt::format("{} is out of range [{}, {}]", d, lo, hi));
    }
    out = d;
  }
  void integer(const char* key, int& out, int lo, int hi) const {
    if (!has(key)) return;
    const auto& v = j_.at(key);
    if (!v.is_number_integer()) fail(source_, field(key), "must be a whole number");
    const auto d = v.get<std::int64_t>();
    if (d < lo || d > hi) fail(source_, field(key), fmt::format("{} is out of range [{}, {}]", d, lo, hi));
    out = static_cast<int>(d);
  }
  void boolean(const char* key, bool& out) const {
    if (!has(key)) return;
    if (!j_.at(key).is_boolean()) fail(source_, field(key), "must be true or false");
    out = j_.at(key).get<bool>();
  }
  std::optional<std::string> string(const char* key) const {
    if (!has(key)) return std::nullopt;
    if (!j_.at(key).is_string()) fail(source_, field(key), "must be a string");
    return j_.at(key).get<std::string>();
  }

 private:
  const json& j_;
  std::string source_;
  std::string prefix_;
};

// The whole file as text; InputError "FILE: cannot read the WHAT file" if it
// cannot be read.
inline std::string read_file(const std::filesystem::path& file, const char* what) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw model::InputError(model::InputProblem::kBadParameter,
                            fmt::format("{}: cannot read the {} file", file.string(), what));
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace pathlock::io::jsonio
