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
//   "invalid_keys": "fail",                // or "skip": keys S3 accepts but the
//                                          // model rejects (a//b, /a) stop the
//                                          // run, or are left out with a warning
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
// What a bucket listing's keys that are not model paths do to the run.
enum class InvalidKeys { kFail, kSkip };
std::optional<InvalidKeys> invalid_keys_from_string(const std::string& text);
const char* to_string(InvalidKeys policy);
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
  InvalidKeys invalid_keys = InvalidKeys::kFail;
  std::uint64_t skipped_keys = 0;  // set by whoever read the listing under kSkip, for the report
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

// Size limits, checked before anything is allocated, so that no accepted
// workload exhausts memory. A task costs about 260 bytes resident in its
// schedule and the run that replays it (measured: 100,000 tasks took 20 MB
// more than 20,000), rounded up to kBytesPerTask; the campaign draws every
// sweep level's schedule first, so its sweep tasks in all are capped by
// kMaxSweepTasks. A closed loop's run time grows faster than tasks x clients
// under contention (2,000 tasks: 2.5 s with 250 clients, 22 s with 1,000), so
// the product is capped too. Each path of a bucket listing (keys and their
// folders) costs about 200 bytes (measured: 348,360 paths took 48 MB more than
// 100,099), rounded up to kBytesPerListedPath.
inline constexpr int kMaxTasks = 10'000'000;
inline constexpr int kMaxClients = 100'000;
inline constexpr std::uint64_t kMaxTaskClientProduct = 100'000'000;
inline constexpr std::uint64_t kBytesPerTask = 512;
inline constexpr std::uint64_t kWorkloadMemoryBudget = std::uint64_t{4} << 30;
inline constexpr std::uint64_t kMaxSweepTasks = kWorkloadMemoryBudget / kBytesPerTask;
inline constexpr std::uint64_t kMaxListedPaths = 2'000'000;
inline constexpr std::uint64_t kBytesPerListedPath = 512;

// Parses a workload; `base_dir` resolves a relative keys_file. Throws
// InputError naming `source` and the offending field.
WorkloadSpec parse_workload(const std::string& json_text, const std::string& source,
                            const std::filesystem::path& base_dir);
WorkloadSpec load_workload_file(const std::filesystem::path& file);
nlohmann::json to_json(const WorkloadSpec& spec);
// Checks ranges; parse_workload calls it too. Throws InputError.
void validate(const WorkloadSpec& spec);

// A bucket listing read as paths.
struct BadKey {
  std::size_t line = 0;  // 1-based
  std::string key;
  std::string why;
};
inline constexpr std::size_t kMaxReportedBadKeys = 10;
struct KeyListing {
  std::vector<model::Path> paths;  // the keys and all their folders, the root included, sorted
  std::uint64_t keys = 0;          // lines that hold a key
  std::uint64_t bad_keys = 0;      // of which the model rejects
  std::vector<BadKey> first_bad;   // the first kMaxReportedBadKeys of them
};
// "FILE: N of M keys are not paths ...", then "FILE:LINE: why (key "...")"
// for each of the first ones, for an error or a warning.
std::string describe_bad_keys(const KeyListing& listing, const std::filesystem::path& file);
// Reads every line; under kFail any bad key throws InputError naming the
// first kMaxReportedBadKeys with their line numbers, under kSkip they are
// counted and left out. Throws InputError if the file cannot be read, holds
// no good key, or more than kMaxListedPaths paths.
KeyListing read_key_listing(const std::filesystem::path& file, InvalidKeys policy);

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
