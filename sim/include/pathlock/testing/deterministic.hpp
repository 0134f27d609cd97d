#pragma once
// PathLock with any scheme, checked on the deterministic runtime: the code
// that ships, one step at a time (pathlock check-lock's engine), on
// scenarios drawn from gen_scenario. Each scenario runs every schedule with
// up to `preemptions` preemptions, then PCT runs beyond; a failure (safety,
// FIFO per lock, the lock's invariants, a deadlock, liveness) replays
// exactly from its schedule. A failing scenario is shrunk like check_lock's
// (the shrink tree, then tasks and operations anywhere); every run of it is
// deterministic, so the shrinking is exact.
//
// Where check_lock runs any lock on real threads, this runs a lock written
// on the runtime's platform, here BasicPathLock, and finds interleavings
// that real threads hit once in millions of runs (a deadlock of two requests
// taking their paths in opposite orders).

#include <chrono>
#include <cstdint>
#include <string>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/testing/generators.hpp"

namespace pathlock::testing {

enum class DeterministicVerdict : std::uint8_t {
  kPassed,        // every scenario passed within its bound
  kFailed,        // a property broke: `schedule` replays it
  kInconclusive,  // a run hit its step bound, or the run limit cut a search at bound 0
};

struct DeterministicOptions {
  std::uint64_t seed = 0;   // 0: a random seed, printed in the report
  int scenarios = 100;      // 1..100,000
  std::size_t preemptions = 2;
  std::size_t pct_runs = 50;
  std::size_t max_runs = 20000;  // per scenario, for the bounded search
  std::chrono::seconds time_budget{25};
  ScenarioShape shape;      // at most 4 tasks of 3 operations (the runtime's programs)
  PathShape paths;
};

struct DeterministicResult {
  DeterministicVerdict verdict = DeterministicVerdict::kPassed;
  bool stopped_by_time_budget = false;
  std::uint64_t seed = 0;
  Scenario scenario;     // the minimal failing one
  std::string failure;   // what broke
  std::string trace;     // the failing run, step by step
  std::string schedule;  // replays it
  int scenarios_run = 0;
  int shrink_steps = 0;
  double seconds = 0;

  bool passed() const noexcept { return verdict == DeterministicVerdict::kPassed; }
  explicit operator bool() const noexcept { return passed(); }
  std::string report() const;
};

// `scheme` must outlive the call. Throws std::invalid_argument naming an
// option outside its limit.
DeterministicResult check_path_lock_deterministic(const impl::Scheme& scheme, DeterministicOptions options = {});

// Replays one run of `scenario` from its schedule (as a report prints it):
// kFailed with the same failure and trace if it still fails.
DeterministicResult replay_path_lock_deterministic(const impl::Scheme& scheme, const Scenario& scenario,
                                                   const std::string& schedule);

}  // namespace pathlock::testing
