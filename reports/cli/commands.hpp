#pragma once
// Subcommands of the pathlock program that live outside main.cpp.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/sim/scenario.hpp"
#include "pathlock/sim/static_table.hpp"

namespace pathlock::cli {

// The exit status of every subcommand.
inline constexpr int kExitPass = 0;          // success; the scheme or run passes
inline constexpr int kExitIo = 1;            // a file, folder or program could not be read, written or run;
                                             // or memory ran out
inline constexpr int kExitBadInput = 2;      // flags, paths, keys or file contents the program refuses
inline constexpr int kExitUnsafe = 3;        // a violation, a deadlock, a replay that does not reproduce
inline constexpr int kExitInconclusive = 4;  // a limit was hit before a verdict
inline constexpr int kExitInternal = 70;     // a bug in pathlock (sysexits' EX_SOFTWARE)

// A run that stopped at a limit before it could judge: exit 4.
class Inconclusive : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// A file, folder or external program that failed: exit 1.
class IoFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// --- scheme resolution: every subcommand that takes a scheme goes through here.

inline constexpr const char* kRecommendedScheme = "path-rwa-joined";
enum class WhenNoneNamed { kEveryBuiltin, kRecommended };

// --scheme NAME (repeatable; "all": every built-in one), --scheme-file FILE
// (repeatable), --order NAME (replaces each scheme's order).
struct SchemeSelection {
  std::vector<std::string> names;
  std::vector<std::string> files;
  std::string order;
};
// Built-in schemes by name, then scheme files, in the order given; when
// neither names any, every built-in one or path-rwa-joined. Throws InputError
// naming an unknown scheme or order, or a bad scheme file.
std::vector<impl::Scheme> resolve_schemes(const SchemeSelection& selection, WhenNoneNamed when_none);
std::vector<impl::Scheme> schemes_named(const std::vector<std::string>& schemes,
                                        const std::vector<std::string>& scheme_files, const std::string& order);

// Exactly one scheme: a built-in name or a scheme file (not both), else
// `fallback_name`; then an order that replaces the scheme's.
struct SchemeChoice {
  std::string scheme;
  std::string scheme_file;
  std::string order;
};
impl::Scheme one_scheme(const SchemeChoice& choice, const std::string& fallback_name);
// The same, where an unset choice falls back on the scenario's own scheme
// (or scheme file) and order, else path-rwa-joined.
impl::Scheme scheme_for_scenario(const SchemeChoice& choice, const sim::Scenario& scenario);

// --- subcommands.

struct SimulateCliOptions {
  std::uint64_t seed = 1;
  std::string workload;
  std::string invalid_keys;  // fail | skip; empty: the workload's choice
  std::vector<double> levels;
  int tasks = 0;
  SchemeSelection schemes;
  std::string out = "pathlock-report/simulate";
  bool no_plots = false;
  std::string color = "auto";
  bool strict = false;
};
int run_simulate(const SimulateCliOptions& options);

struct ReplayCliOptions {
  std::string file;
  SchemeChoice choice;  // replaces the recorded scheme
};
int run_replay(const ReplayCliOptions& options);

struct TablesCliOptions {
  int depth = 3;
  int fanout = 2;
  SchemeSelection schemes;
  std::string out = "pathlock-report/tables";
  bool no_files = false;
  std::string color = "auto";
  bool strict = false;
  std::uint64_t max_pairs = sim::kDefaultMaxPairs;
};
int run_tables(const TablesCliOptions& options);

int run_schemes(const std::string& export_name);

struct PlanCliOptions {
  SchemeSelection schemes;
  std::vector<std::string> words;  // the operation, then its paths or keys
};
int run_plan(const PlanCliOptions& options);

struct ExploreCliOptions {
  std::string scenario_file;
  std::string scheme;       // a built-in name; overrides the scenario's
  std::string scheme_file;  // a scheme file; overrides the scenario's
  std::string order;        // a built-in order; overrides the scheme's
  bool no_por = false;
  bool no_symmetry = false;
  bool no_naive = false;
  std::uint64_t max_states = 20'000'000;
  std::uint64_t max_memory_mib = 4096;  // the visited set's estimated size
  std::string schedule;     // "0,1,1,0": replay this schedule instead of exploring
  std::string json_out;     // write the result as JSON here
  std::string dot_out;      // write the wait-for cycle here
};

int run_explore(const ExploreCliOptions& options);

struct CheckCliOptions {
  std::vector<std::string> schemes;       // built-in names; "all" for every one
  std::vector<std::string> scheme_files;  // scheme files
  std::string order;                      // a built-in order; overrides each scheme's
  std::string family = "full";            // none | quick | full
  std::uint64_t seed = 1;
  std::size_t scenarios = 50;             // campaign scenarios
  std::size_t runs = 200;                 // runs per scenario and scheduler
  std::vector<std::size_t> pct_depths = {2, 3};
  std::uint64_t max_states = 1'000'000;   // per family scenario
  std::size_t jobs = 0;                   // worker threads; 0: every hardware thread
  std::string out = "pathlock-report/check";
  bool no_files = false;
  std::string color = "auto";
};

int run_check(const CheckCliOptions& options);

struct PromelaCliOptions {
  std::string scenario_file;
  SchemeChoice choice;
  std::string out;  // the model's file; stdout if empty
};
int run_promela(const PromelaCliOptions& options);

struct CrosscheckCliOptions {
  std::vector<std::string> scenarios;     // scenario files
  std::vector<std::string> schemes;       // built-in names; "all"
  std::vector<std::string> scheme_files;
  std::string spin = "spin";
  std::string cc = "gcc";
  std::string work;                       // folder for models and pan; a temporary one if empty
  std::string out;                        // write the comparison table (Markdown) here
  std::uint64_t max_states = 2'000'000;
};
int run_crosscheck(const CrosscheckCliOptions& options);

struct CheckLockCliOptions {
  std::vector<std::string> schemes;       // built-in names; "all" for every one
  std::vector<std::string> scheme_files;
  std::string order;
  std::vector<std::string> programs;      // names; empty: every built-in one plus the random ones
  std::size_t random_programs = 8;        // drawn from --seed
  std::size_t threads = 3;                // most lock threads in a random program
  std::size_t calls = 2;                  // most calls per thread in a random program
  std::size_t preemptions = 2;
  std::size_t runs = 50;                  // PCT runs per case beyond the bound
  std::uint64_t seed = 1;
  std::size_t max_runs = 100000;          // bounded-search runs per case
  std::size_t max_steps = 20000;          // steps per run
  std::string gates = "both";             // on | off | both
  std::string shards = "both";            // 1 | 2 | both
  std::string max_idle = "both";          // 0 | 1 | both
  std::string allocation_failures = "on"; // on | off
  std::string schedule;                   // replay one run (one program, one setting)
  std::string json_out;
  bool fail_fast = false;                 // stop at the first failing case
  std::string part;                       // "K/N": every N-th case from the K-th; empty: every case
};
int run_check_lock(const CheckLockCliOptions& options);

struct CheckEtcdCliOptions {
  std::vector<std::string> variants;  // names; "all" (the default) for every one
  int clients = 2;                    // 1 to 3
  int requests = 2;                   // per client, 1 to 3
  int lease_expiries = 1;
  int duplicates = 1;
  int crashes = 1;
  int compactions = 1;
  std::uint64_t max_states = 2'000'000;  // per scenario
  std::string json_out;
};
int run_check_etcd(const CheckEtcdCliOptions& options);

}  // namespace pathlock::cli
