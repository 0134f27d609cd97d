#include "pathlock/sim/scenario.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "pathlock/io/json_reader.hpp"
#include "pathlock/model/error.hpp"

namespace pathlock::sim {
namespace {

using io::jsonio::fail;
using io::jsonio::ObjectReader;
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

std::string_view to_string(AcquireStyle style) noexcept {
  return style == AcquireStyle::kTry ? "try" : "blocking";
}
std::string_view to_string(WithdrawStyle style) noexcept {
  return style == WithdrawStyle::kWhileWaiting ? "while-waiting" : "never";
}
std::string_view to_string(ReleaseStyle style) noexcept {
  return style == ReleaseStyle::kAtEnd ? "at-end" : "before-next";
}

std::vector<ScenarioTask> plain_tasks(const std::vector<std::vector<model::Operation>>& tasks) {
  std::vector<ScenarioTask> out;
  out.reserve(tasks.size());
  for (const auto& ops : tasks) out.emplace_back(ops.begin(), ops.end());
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
    for (const auto& r : s.tasks[t]) {
      if (!(r.scheme == s.tasks[t].front().scheme)) bad(fmt::format("task {}: its requests name different schemes", t));
    }
  }
}

namespace {

template <typename Enum>
Enum read_style(const ObjectReader& r, const char* key, const std::string& source, const std::string& field,
                std::initializer_list<Enum> choices) {
  const auto text = r.string(key);
  if (!text) return *choices.begin();
  std::string known;
  for (const Enum e : choices) {
    if (to_string(e) == *text) return e;
    known += fmt::format("{}\"{}\"", known.empty() ? "" : ", ", to_string(e));
  }
  fail(source, fmt::format("{}.{}", field, key), fmt::format("\"{}\" is not one of {}", *text, known));
}

ScenarioRequest parse_request(const json& j, const std::string& source, const std::string& field) {
  constexpr const char* kShape = "must be a string \"OP PATH [PATH]\" or an object {\"op\", \"acquire\", \"withdraw\", \"release\"}";
  const auto op = [&](const std::string& text, const std::string& where) {
    try {
      return parse_operation_text(text, where);
    } catch (const model::InputError& e) {
      fail(source, "", e.what());
    }
  };
  if (j.is_string()) return ScenarioRequest(op(j.get<std::string>(), field));
  if (!j.is_object()) fail(source, field, kShape);
  ObjectReader r(j, source, field);
  r.only({"op", "acquire", "withdraw", "release"});
  const auto text = r.string("op");
  if (!text) fail(source, field + ".op", "is required: \"OP PATH [PATH]\"");
  ScenarioRequest req(op(*text, field + ".op"));
  req.acquire = read_style(r, "acquire", source, field, {AcquireStyle::kBlocking, AcquireStyle::kTry});
  req.withdraw = read_style(r, "withdraw", source, field, {WithdrawStyle::kNever, WithdrawStyle::kWhileWaiting});
  req.release = read_style(r, "release", source, field, {ReleaseStyle::kBeforeNext, ReleaseStyle::kAtEnd});
  return req;
}

std::optional<std::filesystem::path> resolve_file(const std::optional<std::string>& file,
                                                  const std::filesystem::path& base_dir) {
  if (!file) return std::nullopt;
  const std::filesystem::path p(*file);
  return p.is_absolute() ? p : base_dir / p;
}

ScenarioTask parse_task(const json& tj, const std::string& source, const std::string& at,
                        const std::filesystem::path& base_dir) {
  constexpr const char* kShape = "must be an array of requests, or an object {\"requests\", \"scheme\", \"scheme_file\", \"order\"}";
  const json* requests = &tj;
  SchemeChoice choice;
  if (tj.is_object()) {
    ObjectReader r(tj, source, at);
    r.only({"requests", "scheme", "scheme_file", "order"});
    choice.scheme = r.string("scheme");
    choice.scheme_file = resolve_file(r.string("scheme_file"), base_dir);
    if (choice.scheme && choice.scheme_file) fail(source, at, "give \"scheme\" or \"scheme_file\", not both");
    choice.order = r.string("order");
    if (!r.has("requests")) fail(source, at + ".requests", "is required");
    requests = &r.raw("requests");
  }
  if (!requests->is_array()) fail(source, at, kShape);
  ScenarioTask task;
  std::size_t i = 0;
  for (const auto& oj : *requests) {
    task.push_back(parse_request(oj, source, fmt::format("{}[{}]", at, i++)));
    task.back().scheme = choice;
  }
  return task;
}

}  // namespace

Scenario parse_scenario(const std::string& json_text, const std::string& source,
                        const std::filesystem::path& base_dir) {
  const json j = io::jsonio::parse_json(json_text, source);
  ObjectReader r(j, source, "");
  r.only({"schema", "name", "scheme", "scheme_file", "order", "tasks"});
  const auto schema = r.string("schema");
  if (schema && *schema != kSchema) fail(source, "schema", fmt::format("\"{}\" is not \"{}\"", *schema, kSchema));
  Scenario s;
  s.name = r.string("name").value_or(s.name);
  s.scheme = r.string("scheme");
  s.scheme_file = resolve_file(r.string("scheme_file"), base_dir);
  if (s.scheme && s.scheme_file) fail(source, "scheme_file", "give \"scheme\" or \"scheme_file\", not both");
  s.order = r.string("order");
  if (!r.has("tasks") || !r.raw("tasks").is_array()) {
    fail(source, "tasks", "must be an array of tasks, each an array of \"OP PATH [PATH]\" strings");
  }
  std::size_t t = 0;
  for (const auto& tj : r.raw("tasks")) {
    s.tasks.push_back(parse_task(tj, source, fmt::format("tasks[{}]", t++), base_dir));
  }
  try {
    validate(s);
  } catch (const model::InputError& e) {
    fail(source, "", e.what());
  }
  return s;
}

Scenario load_scenario_file(const std::filesystem::path& file) {
  return parse_scenario(io::jsonio::read_file(file, "scenario"), file.string(), file.parent_path());
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
    json requests = json::array();
    for (const auto& r : task) {
      if (r.acquire == AcquireStyle::kBlocking && r.withdraw == WithdrawStyle::kNever &&
          r.release == ReleaseStyle::kBeforeNext) {
        requests.push_back(operation_text(r));
        continue;
      }
      json rj{{"op", operation_text(r)}};
      if (r.acquire != AcquireStyle::kBlocking) rj["acquire"] = to_string(r.acquire);
      if (r.withdraw != WithdrawStyle::kNever) rj["withdraw"] = to_string(r.withdraw);
      if (r.release != ReleaseStyle::kBeforeNext) rj["release"] = to_string(r.release);
      requests.push_back(std::move(rj));
    }
    const SchemeChoice& choice = task.empty() ? SchemeChoice{} : task.front().scheme;
    if (choice.empty()) {
      j["tasks"].push_back(std::move(requests));
      continue;
    }
    json tj{{"requests", std::move(requests)}};
    if (choice.scheme) tj["scheme"] = *choice.scheme;
    if (choice.scheme_file) tj["scheme_file"] = choice.scheme_file->string();
    if (choice.order) tj["order"] = *choice.order;
    j["tasks"].push_back(std::move(tj));
  }
  return j;
}

}  // namespace pathlock::sim
