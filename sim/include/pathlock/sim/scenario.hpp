#pragma once
// Bounded scenarios for the model checker (`pathlock explore`): a few tasks,
// each a list of requests it issues one after another, under one scheme.
//
// Scenario files are JSON ("pathlock.scenario/1"):
//
// {
//   "schema": "pathlock.scenario/1",
//   "name": "opposite copies",
//   "scheme": "path-rwa-joined",      // a built-in scheme, or instead
//   "scheme_file": "my-scheme.json",  // a scheme file (relative to this file)
//   "order": "deepest-first",         // optional: replace the scheme's order
//   "tasks": [
//     ["copy /a /b", "read /a"],      // task 0: "OP PATH [PATH]" per request
//     ["copy /b /a"]                  // task 1; OP is read, write, delete,
//   ]                                 // rename or copy; paths are "/..." paths
// }
//
// Limits: 1..kMaxScenarioTasks tasks, 1..kMaxScenarioRequests requests each.
// Unknown fields, bad operations and bad paths are rejected with an
// InputError naming the file and the field.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pathlock/model/request.hpp"

namespace pathlock::sim {

inline constexpr std::size_t kMaxScenarioTasks = 16;
inline constexpr std::size_t kMaxScenarioRequests = 32;

struct Scenario {
  std::string name = "scenario";
  std::optional<std::string> scheme;                   // a built-in scheme's name
  std::optional<std::filesystem::path> scheme_file;    // resolved against the scenario's folder
  std::optional<std::string> order;                    // a built-in order's name
  std::vector<std::vector<model::Operation>> tasks;
};

// "copy /a /b" <-> Operation. Throws InputError naming `where`.
model::Operation parse_operation_text(const std::string& text, const std::string& where);
std::string operation_text(const model::Operation& op);

Scenario parse_scenario(const std::string& json_text, const std::string& source,
                        const std::filesystem::path& base_dir);
Scenario load_scenario_file(const std::filesystem::path& file);
nlohmann::json to_json(const Scenario& scenario);
// Checks the limits; parse_scenario calls it. Throws InputError.
void validate(const Scenario& scenario);

}  // namespace pathlock::sim
