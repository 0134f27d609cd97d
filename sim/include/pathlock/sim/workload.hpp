#pragma once
// Workloads: what the simulated clients do, and the schedules drawn from them.
//
// A workload file is JSON; every field is optional and defaults as below.
// Unknown fields, wrong types and out-of-range values are rejected with an
// InputError that names the field.
//
// {
//   "name": "default",
//   "tree": {"depth": 4, "fanout": 4},     // a generated tree, or instead:
//   "keys_file": "listing.txt",            // S3 keys, one per line (relative
//                                          // paths are relative to the workload
//                                          // file); their folders are the paths
//   "include_root": false,                 // may requests name the root "/"?
//   "mix": {"read": 0.6, "write": 0.3, "delete": 0.1, "rename": 0, "copy": 0},
//   "zipf": 1.0,                           // skew over folders ranked shallow
//                                          // first (hot near the root); 0 = uniform
//   "load": {"mode": "closed", "clients": 8, "think_time": 0.0},
//        or {"mode": "open", "arrival_rate": 4.0},
//   "hold": {"distribution": "exponential", "mean": 1.0},   // or "fixed", "uniform" (0..2*mean)
//   "lock_step_time": 0.0,                 // virtual time to take one lock
//   "tasks": 2000                          // requests in all
// }

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pathlock/model/request.hpp"
#include "pathlock/sim/rng.hpp"
#include "pathlock/sim/tree.hpp"

namespace pathlock::sim {

enum class LoadMode { kClosed, kOpen };
enum class HoldDistribution { kFixed, kExponential, kUniform };

struct OperationMix {
  double read = 0.6;
  double write = 0.3;
  double remove = 0.1;
  double rename = 0.0;
  double copy = 0.0;
  bool single_path_only() const noexcept { return rename == 0 && copy == 0; }
};

struct WorkloadSpec {
  std::string name = "default";
  TreeSpec tree{4, 4};
  std::optional<std::filesystem::path> keys_file;
  bool include_root = false;
  OperationMix mix;
  double zipf = 1.0;
  LoadMode load = LoadMode::kClosed;
  int clients = 8;
  double think_time = 0.0;
  double arrival_rate = 4.0;
  HoldDistribution hold = HoldDistribution::kExponential;
  double hold_mean = 1.0;
  double lock_step_time = 0.0;
  int tasks = 2000;
};

inline constexpr int kMaxTasks = 10'000'000;
inline constexpr int kMaxClients = 100'000;

// Parses a workload; `base_dir` resolves a relative keys_file. Throws
// InputError naming `source` and the offending field.
WorkloadSpec parse_workload(const std::string& json_text, const std::string& source,
                            const std::filesystem::path& base_dir);
WorkloadSpec load_workload_file(const std::filesystem::path& file);
nlohmann::json to_json(const WorkloadSpec& spec);
// Checks ranges; parse_workload calls it too. Throws InputError.
void validate(const WorkloadSpec& spec);

// The paths requests may name, sorted shallow first (the Zipf rank order).
// From the generated tree, or the keys file's keys and all their folders.
std::vector<model::Path> workload_paths(const WorkloadSpec& spec);

// One request as the clients will issue it.
struct TaskScript {
  std::uint32_t id = 0;      // its index in the full schedule: reports name tasks by it
  std::uint32_t client = 0;  // closed loop: the client; open loop: 0
  model::Operation op;
  double gap = 0;   // closed: think time before it; open: time since the previous arrival
  double hold = 0;  // how long it holds its locks once it has them all
};

// Everything a run needs besides the scheme: the same schedule is run
// against every scheme and the oracle, so they see the same arrivals.
struct Schedule {
  LoadMode load = LoadMode::kClosed;
  std::uint32_t clients = 1;
  double lock_step_time = 0;
  std::vector<TaskScript> tasks;  // in issue order per client (closed) or arrival order (open)
};

Schedule generate_schedule(const WorkloadSpec& spec, const std::vector<model::Path>& paths,
                           std::uint64_t seed);

// Replay files ("pathlock.replay/1"): a schedule, the scheme's name, the seed
// it was drawn from and the outcome it produced.
nlohmann::json schedule_to_json(const Schedule& schedule);
Schedule schedule_from_json(const nlohmann::json& j, const std::string& source);

}  // namespace pathlock::sim
