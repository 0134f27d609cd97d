#pragma once
// `check-lock`: the real PathLock (BasicPathLock on the deterministic
// runtime's platform: the code that ships, one step at a time) run on the
// lock programs (program.hpp) under each point of the lock's option space.
//
// Each case (program x setting) is explored exhaustively up to a preemption
// bound (iterative context bounding: every schedule with 0, then 1, ...
// preemptions), then by PCT runs beyond it. When the run limit cuts the
// search at bound k, the case passes within bound k - 1 and says so; cut at
// bound 0, it is inconclusive. The choices include timeouts,
// stop requests (a stopper thread of its own) and, when enabled, one
// injected allocation failure per run inside any lock call.
//
// Properties:
//   safety       no two threads hold conflicting requests at once, judged by
//                the model's conflict predicate on the requests whose
//                acquires returned kGranted (the grant ledger), after every
//                step;
//   fifo         per lock, no grant overtakes a conflicting request queued
//                there earlier (beyond the scheme's promise), judged by
//                the FIFO ledger (fifo_ledger.hpp) from the lock's reports,
//                at every grant; at the end no reported waiter is left;
//   invariants   BasicPathLock::check_invariants() whenever no thread is
//                inside a lock call, and at the end;
//   deadlock     no state where no thread can step; for a program with
//                nested acquisitions the model (the explorer on the same
//                requests) says whether a deadlock is possible, and a
//                deadlock it predicts is the expected outcome, not a failure;
//   liveness     at the end: every call returned, active_locks() is 0 and
//                idle_locks() is within the bound;
//   exceptions   a call that threw std::bad_alloc holds nothing (it returned
//                no guard), and the properties above still hold afterwards.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/sim/lockcheck/program.hpp"

namespace pathlock::sim::lockcheck {

enum class CaseVerdict : std::uint8_t {
  kPass,            // every run explored passed
  kExpectedDeadlock,// a nested program deadlocked as the model predicts
  kFail,            // a property broke: the failure replays
  kInconclusive,    // a run hit the step bound, or the run limit cut the search at bound 0
};
std::string_view to_string(CaseVerdict verdict) noexcept;

enum class AllocationFailures : std::uint8_t { kOff, kOnePerRun };

struct CheckLockOptions {
  std::size_t preemptions = 2;      // exhaustive up to this bound
  std::size_t pct_runs = 50;        // PCT runs per case beyond the bound
  std::size_t pct_depth = 3;
  std::uint64_t seed = 1;
  std::size_t max_runs = 100000;    // per case, for the bounded search
  std::size_t max_steps = 20000;    // per run
  AllocationFailures allocation_failures = AllocationFailures::kOnePerRun;
};

struct CaseResult {
  std::string program;   // its name
  std::string text;      // describe(program)
  LockSetting setting;
  CaseVerdict verdict = CaseVerdict::kPass;
  bool model_predicts_deadlock = false;
  std::size_t bounded_runs = 0;     // runs of the preemption-bounded search
  bool bounded_complete = false;    // every schedule within the bound asked for was run
  // Every schedule with at most this many preemptions was run (the search
  // goes bound by bound; the run limit may cut the last one short).
  std::optional<std::size_t> complete_to_bound;
  std::size_t pct_runs = 0;
  std::string failure;   // what broke (kFail, kInconclusive)
  std::string trace;     // the failing run, step by step (thread, operation, file:line)
  std::string schedule;  // replays it (with the same program, setting and scheme)
};

// One case. `scheme` must outlive the call.
CaseResult check_case(const impl::Scheme& scheme, const LockProgram& program, const LockSetting& setting,
                      const CheckLockOptions& options);

// Replays one run from its schedule text; the verdict is kFail if it fails.
CaseResult replay_case(const impl::Scheme& scheme, const LockProgram& program, const LockSetting& setting,
                       const std::string& schedule, const CheckLockOptions& options);

}  // namespace pathlock::sim::lockcheck
