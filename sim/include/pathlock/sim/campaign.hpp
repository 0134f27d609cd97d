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

struct SweepPoint {
  double level = 0;
  std::uint64_t seed = 0;
  RunOutcome outcome = RunOutcome::kCompleted;
  RunMetrics metrics;
  double efficiency = 0;  // throughput / the oracle's on the same schedule
};

struct NamedRun {
  std::string workload;
  std::uint64_t seed = 0;
  RunResult result;
};

struct SchemeCampaign {
  const impl::Scheme* scheme = nullptr;
  std::vector<SweepPoint> sweep;
  std::optional<NamedRun> sweep_failure;  // the first failed sweep run, kept whole
  NamedRun probe;
  NamedRun multipath;
  model::CategoryVerdicts observed{};  // from the probe and the sweep together
  bool observed_matches_static = false;
  // Failures of single-path runs (sweep and probe): must be zero.
  std::uint64_t single_path_violations = 0;
  std::uint64_t single_path_deadlocks = 0;
  // The first failed run of any workload, for the report and its replay file.
  const NamedRun* first_failure() const;
};

struct CampaignResult {
  CampaignSpec spec;
  std::vector<SweepPoint> oracle;  // per level
  StaticAnalysis statics;          // the schemes' static tables, for comparison
  std::vector<SchemeCampaign> schemes;
};

// Called after each run with (runs done, runs in all).
using CampaignProgress = std::function<void(std::size_t, std::size_t)>;

// Throws InputError if a workload is invalid.
CampaignResult run_campaign(const CampaignSpec& spec, const CampaignProgress& progress = {});

// The workload of one sweep level.
WorkloadSpec at_level(const WorkloadSpec& w, double level);

}  // namespace pathlock::sim
