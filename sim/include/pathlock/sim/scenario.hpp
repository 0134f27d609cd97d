#pragma once
// Bounded scenarios for the model checker (`pathlock explore`): a few tasks,
// each a list of requests it issues one after another.
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
//     {"order": "deepest-first",      // task 1, with a scheme or order of its own
//      "requests": [                  // (a service that locks differently)
//        {"op": "read /a/x", "release": "at-end"},   // held while the next ones
//        {"op": "read /a/y", "withdraw": "while-waiting"},  // may time out
//        {"op": "write /b", "acquire": "try"}        // try-acquire: all or nothing
//      ]}
//   ]
// }
//
// A request string is "OP PATH [PATH]": OP is read, write, delete, rename or
// copy; paths are "/..." paths. Request options, each an enum:
//   "acquire":  "blocking" (default) or "try": a lock that would queue makes
//               the request fail; the task releases what the request holds
//               (one step per lock) and moves on without it;
//   "withdraw": "never" (default) or "while-waiting": while queued the task
//               may give up at any point (a timeout or a cancellation), then
//               releases what the request holds and moves on;
//   "release":  "before-next" (default) or "at-end": the request stays held
//               while the task takes its later requests (nesting, as a thread
//               holding a Guard may), and is released when the task ends,
//               last taken first.
// A task object may name "scheme", "scheme_file" or "order": its requests are
// planned by that scheme (which must have the scenario scheme's modes and
// compatibility, since the tasks share one lock table).
//
// Limits: 1..kMaxScenarioTasks tasks, 1..kMaxScenarioRequests requests each.
// Unknown fields, bad operations and bad paths are rejected with an
// InputError naming the file and the field.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pathlock/model/request.hpp"

namespace pathlock::sim {

inline constexpr std::size_t kMaxScenarioTasks = 16;
inline constexpr std::size_t kMaxScenarioRequests = 32;

enum class AcquireStyle : std::uint8_t { kBlocking, kTry };
enum class WithdrawStyle : std::uint8_t { kNever, kWhileWaiting };
enum class ReleaseStyle : std::uint8_t { kBeforeNext, kAtEnd };
std::string_view to_string(AcquireStyle style) noexcept;   // "blocking", "try"
std::string_view to_string(WithdrawStyle style) noexcept;  // "never", "while-waiting"
std::string_view to_string(ReleaseStyle style) noexcept;   // "before-next", "at-end"

// Which scheme plans a task's requests; all empty: the scenario's.
struct SchemeChoice {
  std::optional<std::string> scheme;                 // a built-in scheme's name
  std::optional<std::filesystem::path> scheme_file;  // resolved against the scenario's folder
  std::optional<std::string> order;                  // a built-in order's name
  bool empty() const noexcept { return !scheme && !scheme_file && !order; }
  friend bool operator==(const SchemeChoice&, const SchemeChoice&) = default;
};

// One request of a scenario task: the operation and how the task takes it.
struct ScenarioRequest : model::Operation {
  AcquireStyle acquire = AcquireStyle::kBlocking;
  WithdrawStyle withdraw = WithdrawStyle::kNever;
  ReleaseStyle release = ReleaseStyle::kBeforeNext;
  SchemeChoice scheme;  // the same for every request of a task

  ScenarioRequest() = default;
  ScenarioRequest(model::Operation op) : model::Operation(std::move(op)) {}  // NOLINT: implicit by design
  const model::Operation& operation() const noexcept { return *this; }
  bool plain() const noexcept {
    return acquire == AcquireStyle::kBlocking && withdraw == WithdrawStyle::kNever &&
           release == ReleaseStyle::kBeforeNext && scheme.empty();
  }
  friend bool operator==(const ScenarioRequest&, const ScenarioRequest&) = default;
};

using ScenarioTask = std::vector<ScenarioRequest>;

// Plain tasks from operations: every request blocking, never withdrawn,
// released before the next.
std::vector<ScenarioTask> plain_tasks(const std::vector<std::vector<model::Operation>>& tasks);

struct Scenario {
  std::string name = "scenario";
  std::optional<std::string> scheme;                   // a built-in scheme's name
  std::optional<std::filesystem::path> scheme_file;    // resolved against the scenario's folder
  std::optional<std::string> order;                    // a built-in order's name
  std::vector<ScenarioTask> tasks;
};

// "copy /a /b" <-> Operation. Throws InputError naming `where`.
model::Operation parse_operation_text(const std::string& text, const std::string& where);
std::string operation_text(const model::Operation& op);

Scenario parse_scenario(const std::string& json_text, const std::string& source,
                        const std::filesystem::path& base_dir);
Scenario load_scenario_file(const std::filesystem::path& file);
nlohmann::json to_json(const Scenario& scenario);
// Checks the limits and that a task's requests share one scheme choice;
// parse_scenario calls it. Throws InputError.
void validate(const Scenario& scenario);

}  // namespace pathlock::sim
