#include "pathlock/sim/scenario.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "pathlock/impl/json_reader.hpp"
#include "pathlock/model/error.hpp"

namespace pathlock::sim {
namespace {

using impl::jsonio::fail;
using impl::jsonio::ObjectReader;
using nlohmann::json;

constexpr const char* kSchema = "pathlock.scenario/1";

}  // namespace

model::Operation parse_operation_text(const std::string& text, const std::string& where) {
  std::istringstream words(text);
  std::string op;
  words >> op;
  const auto kind = model::op_kind_from_string(op);
  if (!kind) {
    throw model::InputError(model::InputProblem::kBadOperation,
                            fmt::format("{}: \"{}\": unknown operation \"{}\" (read, write, delete, rename, copy)",
                                        where, text, op));
  }
  std::vector<model::Path> paths;
  for (std::string word; words >> word;) {
    try {
      paths.push_back(model::Path::parse(word));
    } catch (const model::InputError& e) {
      throw model::InputError(e.problem(), fmt::format("{}: \"{}\": {}", where, text, e.what()));
    }
  }
  try {
    return model::Operation::make(*kind, std::move(paths));
  } catch (const model::InputError& e) {
    throw model::InputError(e.problem(), fmt::format("{}: \"{}\": {}", where, text, e.what()));
  }
}

std::string operation_text(const model::Operation& op) {
  std::string out(model::to_string(op.kind));
  out += ' ' + op.source.str();
  if (op.target) out += ' ' + op.target->str();
  return out;
}

void validate(const Scenario& s) {
  const auto bad = [&](const std::string& why) {
    throw model::InputError(model::InputProblem::kBadParameter, fmt::format("scenario \"{}\": {}", s.name, why));
  };
  if (s.tasks.empty() || s.tasks.size() > kMaxScenarioTasks) {
    bad(fmt::format("has {} tasks; a scenario needs 1 to {}", s.tasks.size(), kMaxScenarioTasks));
  }
  for (std::size_t t = 0; t < s.tasks.size(); ++t) {
    if (s.tasks[t].empty() || s.tasks[t].size() > kMaxScenarioRequests) {
      bad(fmt::format("task {} has {} requests; a task needs 1 to {}", t, s.tasks[t].size(), kMaxScenarioRequests));
    }
  }
}

Scenario parse_scenario(const std::string& json_text, const std::string& source,
                        const std::filesystem::path& base_dir) {
  const json j = impl::jsonio::parse_json(json_text, source);
  ObjectReader r(j, source, "");
  r.only({"schema", "name", "scheme", "scheme_file", "order", "tasks"});
  const auto schema = r.string("schema");
  if (schema && *schema != kSchema) fail(source, "schema", fmt::format("\"{}\" is not \"{}\"", *schema, kSchema));
  Scenario s;
  s.name = r.string("name").value_or(s.name);
  s.scheme = r.string("scheme");
  if (const auto file = r.string("scheme_file")) {
    if (s.scheme) fail(source, "scheme_file", "give \"scheme\" or \"scheme_file\", not both");
    const std::filesystem::path p(*file);
    s.scheme_file = p.is_absolute() ? p : base_dir / p;
  }
  s.order = r.string("order");
  if (!r.has("tasks") || !r.raw("tasks").is_array()) {
    fail(source, "tasks", "must be an array of tasks, each an array of \"OP PATH [PATH]\" strings");
  }
  std::size_t t = 0;
  for (const auto& tj : r.raw("tasks")) {
    const std::string at = fmt::format("tasks[{}]", t++);
    if (!tj.is_array()) fail(source, at, "must be an array of \"OP PATH [PATH]\" strings");
    std::vector<model::Operation> ops;
    std::size_t i = 0;
    for (const auto& oj : tj) {
      const std::string field = fmt::format("{}[{}]", at, i++);
      if (!oj.is_string()) fail(source, field, "must be a string \"OP PATH [PATH]\"");
      try {
        ops.push_back(parse_operation_text(oj.get<std::string>(), field));
      } catch (const model::InputError& e) {
        fail(source, "", e.what());
      }
    }
    s.tasks.push_back(std::move(ops));
  }
  try {
    validate(s);
  } catch (const model::InputError& e) {
    fail(source, "", e.what());
  }
  return s;
}

Scenario load_scenario_file(const std::filesystem::path& file) {
  return parse_scenario(impl::jsonio::read_file(file, "scenario"), file.string(), file.parent_path());
}

nlohmann::json to_json(const Scenario& s) {
  json j;
  j["schema"] = kSchema;
  j["name"] = s.name;
  if (s.scheme) j["scheme"] = *s.scheme;
  if (s.scheme_file) j["scheme_file"] = s.scheme_file->string();
  if (s.order) j["order"] = *s.order;
  j["tasks"] = json::array();
  for (const auto& task : s.tasks) {
    json ops = json::array();
    for (const auto& op : task) ops.push_back(operation_text(op));
    j["tasks"].push_back(ops);
  }
  return j;
}

}  // namespace pathlock::sim
