// pathlock: the command-line program.
//
//   pathlock [simulate] [options]  the simulation campaign (the main job)
//   pathlock replay FILE           rerun a failed run from its replay file
//   pathlock schemes               the built-in schemes, one per line, name first
//   pathlock tables [options]      compute every scheme's concurrency table
//   pathlock plan OP PATH [PATH]   show the lock plan of one operation
//   pathlock explore SCENARIO      every interleaving of a bounded scenario
//   pathlock check-lock            the lock that ships, under a deterministic scheduler
//   pathlock check [--scheme ...]  one verdict on a scheme, with a minimal counterexample
//   pathlock promela SCENARIO      the scenario as a Promela model for SPIN
//   pathlock crosscheck ...        SPIN's verdicts against the explorer's
//   pathlock check-etcd            the etcd lock's protocol, exhaustively, under faults
//
// Exit status, the same for every subcommand: 0 pass; 1 a file, folder or
// program that could not be read, written or run, or memory exhausted; 2 bad
// input (flags included); 3 fail (a violation, a deadlock, a replay that does
// not reproduce, a --strict failure, a disagreement); 4 inconclusive (a limit
// hit before a verdict); 70 a bug in pathlock.

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pathlock/version.hpp"
#include "commands.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/sim/static_table.hpp"
#include "pathlock/sim/workload.hpp"

namespace {

using pathlock::model::InputError;

using pathlock::cli::kExitBadInput;
using pathlock::cli::kExitInconclusive;
using pathlock::cli::kExitInternal;
using pathlock::cli::kExitIo;

// Unsigned 64-bit flags: CLI11 would otherwise wrap "-4" around silently.
const CLI::Validator kWholeNumber(
    [](std::string& text) -> std::string {
      if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos) {
        return "must be a whole number from 0 to 18446744073709551615, not \"" + text + "\"";
      }
      if (text.size() == 20 && text > "18446744073709551615") return "is larger than 18446744073709551615";
      return {};
    },
    "UINT64");

// --scheme (repeatable) and --scheme-file (repeatable), for the subcommands
// that run several schemes.
void add_scheme_options(CLI::App* cmd, pathlock::cli::SchemeSelection& selection, const char* when_none) {
  cmd->add_option("--scheme", selection.names,
                  std::string("A built-in scheme, or all (repeatable; default: ") + when_none + ")")
      ->allow_extra_args(false);
  cmd->add_option("--scheme-file", selection.files, "A scheme file (pathlock.scheme/1; repeatable)")
      ->allow_extra_args(false)
      ->check(CLI::ExistingFile);
}

// The exit status of the exception being handled, after saying what it was.
int report_exception() {
  const auto say = [](const char* what, const std::string& message) {
    std::cerr << "pathlock: " << what << ": " << message << "\n";
  };
  try {
    throw;
  } catch (const InputError& e) {
    say("error", e.what());
    return kExitBadInput;
  } catch (const nlohmann::json::exception& e) {
    say("error", std::string("bad JSON content: ") + e.what());
    return kExitBadInput;
  } catch (const pathlock::cli::Inconclusive& e) {
    say("inconclusive", e.what());
    return kExitInconclusive;
  } catch (const std::bad_alloc&) {
    // Inputs are bounded so that this does not happen on a 24 GiB machine;
    // if it does, the machine has less memory free than that.
    say("error", "out of memory; free some memory or use a smaller input");
    return kExitIo;
  } catch (const std::logic_error& e) {
    say("internal error (a bug in pathlock; please report it)", e.what());
    return kExitInternal;
  } catch (const std::exception& e) {
    // filesystem_error, ios_base::failure, and the runtime_errors of report
    // writers and external programs (SPIN, the C compiler, gnuplot).
    say("I/O error", e.what());
    return kExitIo;
  } catch (...) {
    say("internal error (a bug in pathlock; please report it)", "an unknown exception");
    return kExitInternal;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pathlock: hierarchical path locks for S3-style object stores, and the tools that check them.\n"
               "With no subcommand, runs `simulate` on the built-in defaults."};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", std::string("pathlock ") + PATHLOCK_VERSION);

  pathlock::cli::SimulateCliOptions simulate;
  auto* simulate_cmd = app.add_subcommand(
      "simulate", "Run the simulation campaign over every scheme: safety, deadlock, observed tables, throughput, "
                  "latency, waiting and efficiency against an oracle; print a summary and write Markdown, HTML, JSON "
                  "and plots.");
  simulate_cmd->add_option("--seed", simulate.seed, "Seed for every random choice (0 to 2^64-1)")
      ->check(kWholeNumber)
      ->capture_default_str();
  simulate_cmd->add_option("--workload", simulate.workload, "A workload JSON file for the sweep (see README)")
      ->check(CLI::ExistingFile);
  simulate_cmd->add_option("--levels", simulate.levels, "Sweep levels: clients (closed loop) or arrival rates (open)")
      ->delimiter(',')
      ->allow_extra_args(false);
  simulate_cmd->add_option("--tasks", simulate.tasks, "Tasks per run, for every workload")
      ->check(CLI::Range(1, pathlock::sim::kMaxTasks));
  simulate_cmd->add_option("--invalid-keys", simulate.invalid_keys,
                           "Keys of the workload's keys_file that the model rejects: fail (stop) or skip (leave "
                           "them out, with a warning; the report counts them). Default: the workload's choice, "
                           "else fail")
      ->check(CLI::IsMember({"fail", "skip"}));
  add_scheme_options(simulate_cmd, simulate.schemes, "all");
  simulate_cmd->add_option("--out", simulate.out, "Folder for the reports, plots and replay files")->capture_default_str();
  simulate_cmd->add_flag("--no-plots", simulate.no_plots, "Do not draw plots (no gnuplot needed)");
  simulate_cmd->add_option("--color", simulate.color, "Colour the terminal tables")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  simulate_cmd->add_flag("--strict", simulate.strict, "Exit with status 3 if any run fails (violation or deadlock)");

  pathlock::cli::ReplayCliOptions replay;
  auto* replay_cmd = app.add_subcommand(
      "replay", "Rerun a failed run exactly, from the replay file `simulate` wrote. Exit 3 if the run fails, or if it "
                "does not reproduce the recorded outcome.");
  replay_cmd->add_option("file", replay.file, "A replay file (pathlock.replay/1)")->required()->check(CLI::ExistingFile);
  replay_cmd->add_option("--scheme", replay.choice.scheme, "Replay the same schedule under this built-in scheme");
  replay_cmd->add_option("--scheme-file", replay.choice.scheme_file, "Replay the same schedule under a scheme file")
      ->check(CLI::ExistingFile);

  std::string export_scheme;
  auto* schemes_cmd = app.add_subcommand("schemes", "List the built-in schemes, one per line, name first.");
  schemes_cmd->add_option("--export", export_scheme,
                          "Print this built-in scheme as a scheme file (pathlock.scheme/1), to edit and load back");

  pathlock::cli::TablesCliOptions tables;
  auto* tables_cmd = app.add_subcommand(
      "tables", "Compute each scheme's concurrency table and scores from its lock plans, over every "
                "pair of operations on a generated tree; print them and write Markdown, HTML and JSON.");
  tables_cmd->add_option("--depth", tables.depth, "Levels of the generated tree below the root")
      ->check(CLI::Range(1, pathlock::sim::kMaxTreeDepth))
      ->capture_default_str();
  tables_cmd->add_option("--fanout", tables.fanout, "Children per folder in the generated tree")
      ->check(CLI::Range(1, pathlock::sim::kMaxTreeFanout))
      ->capture_default_str();
  add_scheme_options(tables_cmd, tables.schemes, "all");
  tables_cmd->add_option("--out", tables.out, "Folder for tables.md, tables.html and tables.json")
      ->capture_default_str();
  tables_cmd->add_flag("--no-files", tables.no_files, "Print only; write no files");
  tables_cmd->add_option("--color", tables.color, "Colour the terminal tables")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  tables_cmd->add_flag("--strict", tables.strict, "Exit with status 3 if any scheme is unsafe");
  tables_cmd->add_option("--max-pairs", tables.max_pairs,
                         "Refuse trees with more pairs of operations than this (checked before anything is "
                         "enumerated; trees with more operations than fit in memory are refused whatever this says)")
      ->check(kWholeNumber)
      ->capture_default_str();

  pathlock::cli::PlanCliOptions plan;
  auto* plan_cmd = app.add_subcommand(
      "plan", "Show the lock plan of one operation under each scheme, e.g. `pathlock plan copy /a /a/b`. "
              "Arguments starting with '/' are paths; others are S3 keys.");
  add_scheme_options(plan_cmd, plan.schemes, "all");
  plan_cmd->add_option("operation", plan.words, "read|write|delete|rename|copy, then its paths")->required();

  pathlock::cli::ExploreCliOptions explore;
  auto* explore_cmd = app.add_subcommand(
      "explore", "Model-check a bounded scenario: every interleaving of its tasks' lock steps, with state hashing, "
                 "sleep-set partial-order reduction and symmetry reduction. Prints the verdict, or the shortest "
                 "counterexample with its wait-for cycle.");
  explore_cmd->add_option("scenario", explore.scenario_file, "A scenario file (pathlock.scenario/1, see README)")
      ->required()
      ->check(CLI::ExistingFile);
  explore_cmd->add_option("--scheme", explore.scheme, "A built-in scheme (overrides the scenario's)");
  explore_cmd->add_option("--scheme-file", explore.scheme_file, "A scheme file (overrides the scenario's)")
      ->check(CLI::ExistingFile);
  explore_cmd->add_option("--order", explore.order, "A built-in acquisition order (overrides the scheme's)");
  explore_cmd->add_flag("--no-por", explore.no_por, "Turn partial-order reduction (sleep sets) off");
  explore_cmd->add_flag("--no-symmetry", explore.no_symmetry, "Turn symmetry reduction off");
  explore_cmd->add_flag("--no-naive", explore.no_naive, "Do not count the unreduced states and interleavings");
  explore_cmd->add_option("--max-states", explore.max_states, "Stop (exit 4) after this many states")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40))
      ->capture_default_str();
  explore_cmd->add_option("--max-memory", explore.max_memory_mib,
                          "Stop (exit 4) when the visited states take about this many MiB")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20))
      ->capture_default_str();
  explore_cmd->add_option("--schedule", explore.schedule,
                          "Replay one schedule instead: task numbers, comma-separated (as a counterexample prints)");
  explore_cmd->add_option("--json", explore.json_out, "Also write the result as JSON to this file");
  explore_cmd->add_option("--dot", explore.dot_out, "Write a deadlock's wait-for cycle (Graphviz DOT) to this file");

  pathlock::cli::CheckCliOptions check;
  auto* check_cmd = app.add_subcommand(
      "check", "Judge a scheme: its static table, every interleaving of a generated family of small scenarios "
               "(1-3 tasks, paths to depth 3, rename and copy into and out of their own subtree), and random and "
               "PCT campaigns on larger ones. On failure, prints a minimal counterexample: the scenario shrunk with "
               "RapidCheck, the schedule with the fewest preemptions. Exit 0 pass, 3 fail, 4 inconclusive.");
  check_cmd->add_option("--scheme", check.schemes, "A built-in scheme, or all (repeatable; default path-rwa-joined)")
      ->allow_extra_args(false);
  check_cmd->add_option("--scheme-file", check.scheme_files, "A scheme file (pathlock.scheme/1; repeatable)")
      ->allow_extra_args(false)
      ->check(CLI::ExistingFile);
  check_cmd->add_option("--order", check.order, "A built-in acquisition order, replacing each scheme's");
  check_cmd->add_option("--family", check.family, "The scenario family explored exhaustively (none: campaigns only)")
      ->check(CLI::IsMember({"none", "quick", "full"}))
      ->capture_default_str();
  check_cmd->add_option("--seed", check.seed, "Seed of the campaigns (0 to 2^64-1)")
      ->check(kWholeNumber)
      ->capture_default_str();
  check_cmd->add_option("--scenarios", check.scenarios, "Random scenarios per campaign")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  check_cmd->add_option("--runs", check.runs, "Runs per scenario and scheduler")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  check_cmd->add_option("--pct-depth", check.pct_depths, "Bug depths d for PCT campaigns, comma-separated")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::Range(1, 10))
      ->capture_default_str();
  check_cmd->add_option("--max-states", check.max_states, "State limit per family scenario (beyond it: exit 4)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40))
      ->capture_default_str();
  check_cmd->add_option("-j,--jobs", check.jobs, "Worker threads (0: every hardware thread); the result is the same "
                                                  "for any number")
      ->check(kWholeNumber)
      ->capture_default_str();
  check_cmd->add_option("--out", check.out, "Folder for check.md, check.html, check.json and counterexample files")
      ->capture_default_str();
  check_cmd->add_flag("--no-files", check.no_files, "Print only; write no files");
  check_cmd->add_option("--color", check.color, "Colour the terminal tables")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();

  pathlock::cli::CheckLockCliOptions check_lock;
  auto* check_lock_cmd = app.add_subcommand(
      "check-lock", "Check the lock that ships: PathLock's own code run one step at a time by a deterministic "
                    "scheduler, on small programs (2-4 threads; acquire, try, timeouts, stop requests, nesting) under "
                    "every lock option. Every schedule within a preemption bound, then PCT beyond it; every atomic, "
                    "lock, wait and allocation is a scheduling point. Exit 0 pass, 3 fail, 4 inconclusive.");
  check_lock_cmd->add_option("--scheme", check_lock.schemes, "A built-in scheme, or all (repeatable; default "
                                                             "path-rwa-joined)")
      ->allow_extra_args(false);
  check_lock_cmd->add_option("--scheme-file", check_lock.scheme_files, "A scheme file (repeatable)")
      ->allow_extra_args(false)
      ->check(CLI::ExistingFile);
  check_lock_cmd->add_option("--order", check_lock.order, "A built-in acquisition order, replacing each scheme's");
  check_lock_cmd->add_option("--program", check_lock.programs, "A program by name (repeatable; default: every "
                                                              "built-in one and the random ones)")
      ->allow_extra_args(false);
  check_lock_cmd->add_option("--random", check_lock.random_programs, "Random programs drawn from --seed")
      ->check(CLI::Range(0, 10000))
      ->capture_default_str();
  check_lock_cmd->add_option("--threads", check_lock.threads, "Most lock threads in a random program")
      ->check(CLI::Range(2, 4))
      ->capture_default_str();
  check_lock_cmd->add_option("--calls", check_lock.calls, "Most calls per thread in a random program")
      ->check(CLI::Range(1, 3))
      ->capture_default_str();
  check_lock_cmd->add_option("--preemptions", check_lock.preemptions, "Every schedule with at most this many "
                                                                      "preemptions is run")
      ->check(CLI::Range(0, 6))
      ->capture_default_str();
  check_lock_cmd->add_option("--runs", check_lock.runs, "PCT runs per case beyond the bound")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  check_lock_cmd->add_option("--seed", check_lock.seed, "Seed of the random programs and PCT (0 to 2^64-1)")
      ->check(kWholeNumber)
      ->capture_default_str();
  check_lock_cmd->add_option("--max-runs", check_lock.max_runs, "Bounded-search runs per case (beyond: exit 4)")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  check_lock_cmd->add_option("--max-steps", check_lock.max_steps, "Steps per run (beyond: exit 4)")
      ->check(CLI::Range(100, 10000000))
      ->capture_default_str();
  check_lock_cmd->add_option("--gates", check_lock.gates, "The lock's fast gates")
      ->check(CLI::IsMember({"on", "off", "both"}))
      ->capture_default_str();
  check_lock_cmd->add_option("--shards", check_lock.shards, "Shards of the lock table")
      ->check(CLI::IsMember({"1", "2", "both"}))
      ->capture_default_str();
  check_lock_cmd->add_option("--max-idle", check_lock.max_idle, "Idle entries kept per shard")
      ->check(CLI::IsMember({"0", "1", "both"}))
      ->capture_default_str();
  check_lock_cmd->add_option("--allocation-failures", check_lock.allocation_failures,
                             "Inject one allocation failure per run, at any allocation inside a lock call")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  check_lock_cmd->add_option("--schedule", check_lock.schedule, "Replay one run (as printed by a failure)");
  check_lock_cmd->add_option("--json", check_lock.json_out, "Also write the result as JSON to this file");
  check_lock_cmd->add_flag("--fail-fast", check_lock.fail_fast, "Stop at the first failing case");
  check_lock_cmd->add_option("--part", check_lock.part,
                             "K/N: run every N-th case from the K-th (1 <= K <= N <= 1000), so N processes split one "
                             "check");

  pathlock::cli::PromelaCliOptions promela;
  auto* promela_cmd = app.add_subcommand(
      "promela", "Print a bounded scenario as a Promela model for SPIN: the explorer's transition system, with the "
                 "lock semantics and the safety property written in Promela.");
  promela_cmd->add_option("scenario", promela.scenario_file, "A scenario file (pathlock.scenario/1)")
      ->required()
      ->check(CLI::ExistingFile);
  promela_cmd->add_option("--scheme", promela.choice.scheme, "A built-in scheme (overrides the scenario's)");
  promela_cmd->add_option("--scheme-file", promela.choice.scheme_file, "A scheme file (overrides the scenario's)")
      ->check(CLI::ExistingFile);
  promela_cmd->add_option("--order", promela.choice.order, "A built-in acquisition order (overrides the scheme's)");
  promela_cmd->add_option("--out", promela.out, "Write the model here instead of to stdout");

  pathlock::cli::CrosscheckCliOptions crosscheck;
  auto* crosscheck_cmd = app.add_subcommand(
      "crosscheck", "Run SPIN on the Promela model of each scenario under each scheme and compare its verdicts "
                    "(safety; deadlock) with the explorer's. Exit 3 on any disagreement.");
  crosscheck_cmd->add_option("--scenario", crosscheck.scenarios, "A scenario file (repeatable)")
      ->allow_extra_args(false)
      ->check(CLI::ExistingFile);
  crosscheck_cmd->add_option("--scheme", crosscheck.schemes, "A built-in scheme, or all (repeatable)")
      ->allow_extra_args(false);
  crosscheck_cmd->add_option("--scheme-file", crosscheck.scheme_files, "A scheme file (repeatable)")
      ->allow_extra_args(false)
      ->check(CLI::ExistingFile);
  crosscheck_cmd->add_option("--spin", crosscheck.spin, "The SPIN program")->capture_default_str();
  crosscheck_cmd->add_option("--cc", crosscheck.cc, "The C compiler for pan.c")->capture_default_str();
  crosscheck_cmd->add_option("--work", crosscheck.work, "Keep the models and pan programs in this folder");
  crosscheck_cmd->add_option("--out", crosscheck.out, "Write the comparison table (Markdown) here");
  crosscheck_cmd->add_option("--max-states", crosscheck.max_states, "The explorer's state limit per question")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40))
      ->capture_default_str();

  pathlock::cli::CheckEtcdCliOptions check_etcd;
  auto* check_etcd_cmd = app.add_subcommand(
      "check-etcd", "Check the etcd lock's protocol exhaustively under faults (lease expiry, duplicated requests, "
                    "crashes, compaction): the shipped design must pass, each naive variant must be caught with a "
                    "smallest counterexample. Exit 3 otherwise.");
  check_etcd_cmd->add_option("--variant", check_etcd.variants,
                             "shipped, unconfirmed-grant, unfenced-release, prefix-unsafe-keys, no-orphan-sweep, or "
                             "all (repeatable; default all)")
      ->allow_extra_args(false);
  check_etcd_cmd->add_option("--clients", check_etcd.clients, "Most clients per scenario")
      ->check(CLI::Range(1, 3))
      ->capture_default_str();
  check_etcd_cmd->add_option("--requests", check_etcd.requests, "Most requests per client")
      ->check(CLI::Range(1, 3))
      ->capture_default_str();
  check_etcd_cmd->add_option("--lease-expiries", check_etcd.lease_expiries, "Lease expiries per run")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  check_etcd_cmd->add_option("--duplicates", check_etcd.duplicates, "Requests applied twice per run")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  check_etcd_cmd->add_option("--crashes", check_etcd.crashes, "Client crashes per run")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  check_etcd_cmd->add_option("--compactions", check_etcd.compactions, "Watches cancelled by compaction per run")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  check_etcd_cmd->add_option("--max-states", check_etcd.max_states, "The state limit per scenario")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 32))
      ->capture_default_str();
  check_etcd_cmd->add_option("--json", check_etcd.json_out, "Also write the verdicts as JSON to this file");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every flag error is bad input.
    return app.exit(e) == 0 ? 0 : kExitBadInput;
  }

  try {
    if (*schemes_cmd) return pathlock::cli::run_schemes(export_scheme);
    if (*explore_cmd) return pathlock::cli::run_explore(explore);
    if (*check_cmd) return pathlock::cli::run_check(check);
    if (*check_lock_cmd) return pathlock::cli::run_check_lock(check_lock);
    if (*promela_cmd) return pathlock::cli::run_promela(promela);
    if (*crosscheck_cmd) return pathlock::cli::run_crosscheck(crosscheck);
    if (*check_etcd_cmd) return pathlock::cli::run_check_etcd(check_etcd);
    if (*plan_cmd) return pathlock::cli::run_plan(plan);
    if (*tables_cmd) return pathlock::cli::run_tables(tables);
    if (*replay_cmd) return pathlock::cli::run_replay(replay);
    (void)simulate_cmd;
    return pathlock::cli::run_simulate(simulate);
  } catch (...) {
    return report_exception();
  }
}
