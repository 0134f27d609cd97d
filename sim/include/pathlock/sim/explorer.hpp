#pragma once
// The model checker: every interleaving of a bounded scenario's lock steps,
// over the one transition system (core/step_machine.hpp: acquire, try,
// withdraw, roll back and release steps through impl::LockQueue, with plans
// from impl's own planner), judged by core/properties.hpp.
//
// The searches are drivers of that system, one per file in sim/src/search/:
//   dfs.cpp                 depth-first with state hashing; sleep sets over a
//                           state-dependent independence relation (steps on
//                           different locks commute, and so do two
//                           acquisitions of one lock that are both granted at
//                           once), with Godefroid's rule for revisited states
//                           so that every reachable state is still visited;
//                           optional symmetry over tasks with identical
//                           programs (states stored in a canonical task order);
//   shortest.cpp            breadth-first: the shortest failing schedule;
//   first_failure.cpp       plain depth-first: the first failing schedule;
//   fewest_preemptions.cpp  Dijkstra on (preemptions, steps);
//   naive_count.cpp         the state graph without reduction;
//   replay.cpp              one given schedule, step by step;
// and the random and PCT schedulers (scheduler.hpp) drive single runs.
//
// Deterministic: no clocks, no iteration over unordered containers.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pathlock/sim/core/properties.hpp"
#include "pathlock/sim/core/step_machine.hpp"
#include "pathlock/sim/planner.hpp"
#include "pathlock/sim/scenario.hpp"

namespace pathlock::sim {

// The longest schedule (acquire and release steps of every request of every
// task) that explore() accepts: the search recurses once per step.
inline constexpr std::size_t kMaxScheduleLength = 4096;


// Why a search stopped before deciding.
enum class SearchLimit { kNone, kStates, kMemory };
std::string_view to_string(SearchLimit limit) noexcept;

struct ExploreProgress {
  std::uint64_t states = 0;
  std::uint64_t transitions = 0;
  std::uint64_t bytes = 0;  // estimated memory of the visited set
};

struct ExploreOptions {
  bool partial_order_reduction = true;  // sleep sets
  bool symmetry = true;                 // over tasks with identical request lists
  std::uint64_t max_states = 20'000'000;  // beyond: kIncomplete
  std::uint64_t max_memory = std::uint64_t{4} << 30;  // bytes of visited states; beyond: kIncomplete
  // Called every 65,536 states (a terminal shows it); empty: silent.
  std::function<void(const ExploreProgress&)> progress{};
  bool count_naive = true;              // also explore without any reduction, counting interleavings
  std::uint64_t max_naive_states = 2'000'000;
  bool shortest_counterexample = true;  // breadth-first search for the shortest failing trace
  // Which properties count as failures: both by default; one alone answers
  // "is any state unsafe?" or "is any state deadlocked?" when a scenario has
  // both (the SPIN cross-check asks each question on its own). A
  // counterexample is built only when both are checked. check_safety also
  // turns the fairness judgement (an overtake beyond the promise) on or off.
  bool check_safety = true;
  bool check_deadlock = true;
};

struct TraceStep {
  std::uint32_t task;
  std::string text;  // "T1 acquire W(/a): queued"
};

struct Counterexample {
  Verdict kind = Verdict::kSafetyViolation;
  std::vector<TraceStep> trace;
  std::vector<std::uint32_t> schedule;  // the task of each step: replays the trace
  std::string summary;                  // what went wrong, in one paragraph
  std::vector<std::string> cycle;       // deadlock: "T1 copy(/a, /b) waits for W(/b)", ...
  struct CycleNode {
    std::string task;       // "T1 copy(/a, /b)"
    std::string waits_for;  // "W(/b)", held or queued ahead by the next node
  };
  std::vector<CycleNode> cycle_nodes;   // deadlock: the same cycle, for pictures
  std::string dot;                      // deadlock: the wait-for cycle in Graphviz DOT
  std::optional<std::size_t> bad_step;  // replay: the step whose task could not move
};

struct ExploreResult {
  Verdict verdict = Verdict::kSafeAndDeadlockFree;
  std::uint64_t states = 0;       // distinct (canonical) states visited
  std::uint64_t transitions = 0;  // transitions executed
  std::uint64_t bytes = 0;        // estimated memory of the visited set at the end
  SearchLimit stopped_by = SearchLimit::kNone;
  std::optional<std::uint64_t> naive_states;         // without any reduction
  std::optional<std::uint64_t> naive_transitions;
  std::optional<long double> naive_interleavings;    // maximal schedules, without reduction
  std::optional<Counterexample> counterexample;
};

ExploreResult explore(const Planner& planner, const Scenario& scenario, const ExploreOptions& options = {});
// The same over a machine already built (per-task schemes, the CLI).
ExploreResult explore(const StepMachine& machine, const ExploreOptions& options = {});

// The state graph without any reduction: distinct states, transitions, and
// maximal schedules (interleavings). nullopt past `max_states`.
struct UnreducedCounts {
  std::uint64_t states = 0;
  std::uint64_t transitions = 0;
  long double interleavings = 0;
};
std::optional<UnreducedCounts> count_unreduced(const StepMachine& machine, std::uint64_t max_states);

// A failing schedule with the fewest preemptions (a switch away from a task
// that could still move), and among those the fewest steps; nullopt if no
// schedule fails or the search passes `max_nodes`. Without symmetry, so the
// schedule names real tasks.
std::optional<std::vector<std::uint32_t>> fewest_preemptions_failure(const StepMachine& machine,
                                                                     std::uint64_t max_nodes);

// Runs a schedule (task per step) from the initial state; stops at the first
// failure. For replaying and reducing counterexamples. A schedule that names
// a task that cannot move there is reported as such (kind
// kSafeAndDeadlockFree, `bad_step` set): callers treat it as bad input.
Counterexample replay_schedule(const StepMachine& machine, const std::vector<std::uint32_t>& schedule);

// The shortest failing schedule (breadth-first); nullopt if none within
// `max_states`.
std::optional<std::vector<std::uint32_t>> shortest_failure(const StepMachine& machine, std::uint64_t max_states);
// The first failing schedule a plain depth-first search meets.
std::optional<std::vector<std::uint32_t>> first_failure(const StepMachine& machine, std::uint64_t max_states);

}  // namespace pathlock::sim
