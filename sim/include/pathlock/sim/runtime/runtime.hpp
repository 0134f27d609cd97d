#pragma once
// The deterministic runtime: runs N logical threads of real code one step at
// a time, as folly's DeterministicSchedule does.
//
// Each logical thread is a real OS thread (so thread_local stays per logical
// thread), but only the one holding the baton runs; it passes the baton at
// every scheduling point (every operation of DeterministicPlatform: atomics,
// locks, waits, notifies, stop requests, pause/yield), where a Strategy picks
// who takes the next step. Between two points a thread runs alone, so a run
// is a sequence of steps, each (thread, operation, file:line), and is
// reproducible from its schedule. Interleavings are explored under
// sequential consistency: memory orders are accepted and ignored.
//
// A run ends when every thread has finished, or with a failure: no thread can
// step and not all finished (a deadlock, with who waits on what), the step
// bound is hit (a livelock or a run too long, never a pass), a property
// checked after every step or at the end is violated, or an exception
// escapes a thread. After a failure the threads that did not finish stay
// parked for the rest of the process (there is no safe way to unwind code
// stopped inside a noexcept function); a failure normally ends a search.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include "pathlock/sim/runtime/where.hpp"
#include <string>
#include <vector>

#include "pathlock/impl/platform.hpp"
#include "pathlock/sim/runtime/choice.hpp"
#include "pathlock/sim/runtime/strategy.hpp"

namespace pathlock::sim::runtime {

enum class RunOutcome : std::uint8_t {
  kFinished,           // every thread finished and every property held
  kDeadlock,           // no thread could step, not all had finished
  kStepBoundHit,       // inconclusive: a livelock or a run longer than the bound
  kPropertyViolated,   // a check after a step or at the end failed
  kThreadThrew,        // an exception escaped a thread's body
  kScheduleDiverged,   // a replayed choice was not offered (program changed)
};
std::string_view outcome_name(RunOutcome outcome) noexcept;
bool is_failure(RunOutcome outcome) noexcept;  // not kFinished, not kStepBoundHit

// A violated property's description, or nothing when it holds.
using Property = std::function<std::optional<std::string>()>;

// One fact the lock under test tells its platform (impl::LockEvent).
struct LockObservation {
  impl::LockEvent event;
  std::string_view lock;  // valid during the call only
  impl::TaskId task;
  impl::ModeId mode;
};
// Sees every observation, inside the step that made it true; runs as the
// runtime's own code (no scheduling point, no allocation failure).
using LockObserver = std::function<void(const LockObservation&)>;

// What one run executes; built afresh for every run (its state too).
struct Program {
  std::vector<std::function<void()>> threads;
  Property after_each_step;  // optional; runs between steps, no scheduling inside
  Property at_end;           // optional; runs once all threads finished
  LockObserver observe_lock; // optional
};

struct RunOptions {
  std::size_t max_steps = 20000;
  std::size_t allocation_failures = 1;  // failures the strategy may inject per run
};

struct TraceStep {
  std::uint32_t thread = 0;
  const char* operation = "";
  Where where{};
  const char* object = "";  // the lock or condition variable, if any
  Where object_declared{};
};

struct RunResult {
  RunOutcome outcome = RunOutcome::kFinished;
  std::string detail;               // the failure, who waits on what
  std::vector<Choice> schedule;     // replays the run (ReplayStrategy)
  std::vector<TraceStep> trace;     // every step taken
  std::size_t preemptions = 0;
};

// The steps of a run as lines "step N: thread T: OPERATION at FILE:LINE",
// with " on the OBJECT declared at FILE:LINE" for a lock or condition
// variable (taken through std::unique_lock, the call's own line is in the
// standard library's header).
std::string format_trace(const RunResult& result);

// One run of `program` with choices from `strategy` (begin_run must have
// said kStarted). REQUIRES: 1..kMaxThreads threads; called outside any run.
RunResult run_program(Program program, Strategy& strategy, const RunOptions& options);

enum class ExploreOutcome : std::uint8_t {
  kAllPassed,      // the strategy was exhausted (DFS) with no failure
  kRunLimitHit,    // max_runs runs passed; the strategy had more
  kFailureFound,
  kInconclusive,   // a run hit the step bound
};
std::string_view outcome_name(ExploreOutcome outcome) noexcept;

struct ExploreOptions {
  RunOptions run;
  std::size_t max_runs = 100000;
  std::function<void(const RunResult&)> on_run;  // optional: sees every run (statistics)
};

struct ExploreResult {
  ExploreOutcome outcome = ExploreOutcome::kAllPassed;
  std::size_t runs = 0;
  std::optional<RunResult> first_bad_run;  // the failure or the run that hit the bound
  std::string strategy_run;                 // strategy's description of that run
};

// Runs programs from `make` under `strategy` until it is exhausted, a run
// fails or hits the step bound, or max_runs runs passed.
ExploreResult explore(const std::function<Program()>& make, Strategy& strategy, const ExploreOptions& options);

namespace detail {

// One scheduling point's operation: what it is and where, and, when it may
// have to wait, the condition that lets it step (*wait_word == wait_value).
struct Operation {
  const char* what = "";
  Where where{};
  const std::uint32_t* wait_word = nullptr;
  std::uint32_t wait_value = 0;
  const char* object = "";  // the lock or condition variable it is on, if any
  Where object_declared{};   // where that object was declared
  std::optional<std::chrono::nanoseconds> deadline{};  // a timed wait's, virtual time
  bool yields = false;                   // pause()/yield(): switching away is free
};

class Executor;

// The run the calling OS thread is a logical thread of, or null outside a
// run and inside the runtime's own code (where operations are direct).
Executor* active_executor() noexcept;
// A scheduling point: returns when `op` is the step the strategy chose.
void step(Executor& executor, const Operation& op);
// Shared state changed (wakes spinners that yielded on the old state).
void wrote(Executor& executor) noexcept;
std::uint32_t thread_index(const Executor& executor) noexcept;
std::chrono::nanoseconds clock_now(const Executor& executor) noexcept;
std::uint64_t next_task_id(Executor& executor) noexcept;
// Passes `seen` to the run's observer, if it has one.
void observe_lock(Executor& executor, const LockObservation& seen);
// For a condition variable: clear the calling thread's wake flag (a wait
// ends when it is 1) and return it; whether the wait ended by a deadline.
std::uint32_t* arm_wake(Executor& executor) noexcept;
std::uint32_t* wake_word(Executor& executor, std::uint32_t thread) noexcept;
bool timed_out(const Executor& executor) noexcept;

// RAII: the runtime's own code, where operations do not schedule and
// allocations are never failed.
class RuntimeSection {
 public:
  RuntimeSection() noexcept;
  ~RuntimeSection();
  RuntimeSection(const RuntimeSection&) = delete;
  RuntimeSection& operator=(const RuntimeSection&) = delete;
};

}  // namespace detail
}  // namespace pathlock::sim::runtime
