#pragma once
// The default simulation campaign: what `pathlock simulate` runs.
//
// For every scheme, on schedules drawn from one seed (the same schedules for
// every scheme and for the oracle, so all see the same arrivals):
//   sweep      a single-path workload at rising contention (closed-loop
//              clients, or the open-loop arrival rate), for throughput,
//              latency, waiting, bypasses, lock-table size and concurrency
//              efficiency against the oracle admission policy;
//   probe      a small uniform tree under heavy read/write contention, whose
//              observed concurrency table must equal the static one;
//   multipath  renames and copies (into and out of their own subtree too),
//              for safety and deadlock on multi-path requests.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pathlock/sim/simulator.hpp"
#include "pathlock/sim/static_table.hpp"

namespace pathlock::sim {

struct CampaignSpec {
  std::uint64_t seed = 1;
  WorkloadSpec sweep;
  std::vector<double> levels;  // clients (closed loop) or arrival rates (open loop)
  WorkloadSpec probe;
  WorkloadSpec multipath;
  std::vector<const impl::Scheme*> schemes;
};

// The built-in defaults.
CampaignSpec default_campaign();

// What a run's numbers are good for. Only a completed run measured
// performance; a run stopped by a violation or a deadlock, or one that ended
// inconclusively, ran only part of its schedule, so its throughput and
// latencies describe a prefix and must not be read as performance.
enum class RunStatus { kCompleted, kStopped, kInconclusive };
RunStatus run_status(RunOutcome outcome) noexcept;
std::string_view to_string(RunStatus status) noexcept;  // "completed", "stopped", "inconclusive"

enum class PerformanceValidity { kValid, kInvalid };
PerformanceValidity performance_validity(RunOutcome outcome) noexcept;
std::string_view to_string(PerformanceValidity validity) noexcept;  // "valid", "invalid"

// A workload with no renames and no copies: every request names one path.
bool is_single_path(const WorkloadSpec& w) noexcept;

struct SweepPoint {
  double level = 0;
  std::uint64_t seed = 0;
  RunOutcome outcome = RunOutcome::kCompleted;
  std::uint64_t tasks_scheduled = 0;
  RunMetrics metrics;     // of the tasks run; performance only if the run completed
  double efficiency = 0;  // throughput / the oracle's on the same schedule
};

struct NamedRun {
  std::string workload;
  std::uint64_t seed = 0;
  std::uint64_t tasks_scheduled = 0;
  RunResult result;
};

// Runs counted by status; stopped runs by why they stopped.
struct RunTally {
  std::uint64_t completed = 0;
  std::uint64_t safety_violations = 0;
  std::uint64_t deadlocks = 0;
  std::uint64_t broken_invariants = 0;
  std::uint64_t unfair_overtakes = 0;  // stopped by an overtake beyond the fairness promise
  std::uint64_t inconclusive = 0;
  void add(RunOutcome outcome) noexcept;
  std::uint64_t runs() const noexcept { return completed + stopped() + inconclusive; }
  std::uint64_t stopped() const noexcept {
    return safety_violations + deadlocks + broken_invariants + unfair_overtakes;
  }
};

struct SchemeCampaign {
  const impl::Scheme* scheme = nullptr;
  std::vector<SweepPoint> sweep;
  std::optional<NamedRun> sweep_failure;  // the first failed sweep run, kept whole
  NamedRun probe;
  NamedRun multipath;
  model::CategoryVerdicts observed{};  // from the probe and the sweep together
  bool observed_matches_static = false;
  // The sweep and probe runs (single-path with the default workloads).
  RunTally sweep_and_probe;
  // The first failed run of any workload, for the report and its replay file.
  const NamedRun* first_failure() const;
};

struct CampaignResult {
  CampaignSpec spec;
  std::vector<SweepPoint> oracle;  // per level
  // The oracle's first run that its recurrence contradicts (sim/oracle.hpp):
  // every efficiency is then measured against a wrong baseline.
  std::optional<std::string> oracle_broken;
  StaticAnalysis statics;          // the schemes' static tables, for comparison
  std::vector<SchemeCampaign> schemes;
};

// Called as the campaign works with (tasks simulated, tasks in all runs); a
// run that stops early counts its unrun tasks as done when it stops.
using CampaignProgress = std::function<void(std::uint64_t, std::uint64_t)>;

// Throws InputError if a workload is invalid.
CampaignResult run_campaign(const CampaignSpec& spec, const CampaignProgress& progress = {});

// The workload of one sweep level.
WorkloadSpec at_level(const WorkloadSpec& w, double level);

}  // namespace pathlock::sim
