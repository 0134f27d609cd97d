// pathlock: the command-line program.
//
//   pathlock [simulate] [options]  the simulation campaign (the main job)
//   pathlock replay FILE           rerun a failed run from its replay file
//   pathlock schemes               the built-in schemes, one per line, name first
//   pathlock tables [options]      compute every scheme's concurrency table
//   pathlock plan OP PATH [PATH]   show the lock plan of one operation
//   pathlock explore SCENARIO      every interleaving of a bounded scenario
//   pathlock check [--scheme ...]  one verdict on a scheme, with a minimal counterexample
//   pathlock promela SCENARIO      the scenario as a Promela model for SPIN
//   pathlock crosscheck ...        SPIN's verdicts against the explorer's
//
// Exit status: 0 success; 1 an I/O failure; 2 bad input (flags, paths, keys,
// files); 3 a safety violation or deadlock where --strict asked for none, or
// a replayed run that fails, or an explored scenario that fails; 4 an
// exploration cut short by its state limit. CLI11's own parse errors use its
// non-zero codes.

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "terminal.hpp"
#include "pathlock/impl/plan.hpp"
#include "pathlock/impl/scheme_file.hpp"
#include "pathlock/impl/scheme.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/model/request.hpp"
#include "pathlock/reports/simulate.hpp"
#include "pathlock/reports/tables.hpp"
#include "pathlock/sim/static_table.hpp"

namespace {

using pathlock::model::InputError;
using pathlock::model::InputProblem;

using pathlock::cli::kExitBadInput;
using pathlock::cli::kExitIo;
using pathlock::cli::kExitUnsafe;
using pathlock::cli::ProgressBar;
using pathlock::cli::color_for;

std::string scheme_names() {
  std::string out;
  for (const auto* s : pathlock::impl::builtin_schemes()) out += (out.empty() ? "" : ", ") + s->name();
  return out;
}

std::vector<const pathlock::impl::Scheme*> select_schemes(const std::vector<std::string>& names) {
  if (names.empty()) {
    auto all = pathlock::impl::builtin_schemes();
    return {all.begin(), all.end()};
  }
  std::vector<const pathlock::impl::Scheme*> out;
  for (const auto& name : names) {
    const auto* s = pathlock::impl::find_builtin_scheme(name);
    if (!s) {
      throw InputError(InputProblem::kBadParameter,
                       fmt::format("unknown scheme \"{}\"; the schemes are: {}", name, scheme_names()));
    }
    out.push_back(s);
  }
  return out;
}

// An argument starting with '/' is a path; anything else is an S3 key.
pathlock::model::Path parse_location(const std::string& text) {
  if (!text.empty() && text.front() == '/') return pathlock::model::Path::parse(text);
  return pathlock::model::Path::from_key(text);
}

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


struct SimulateOptions {
  std::uint64_t seed = 1;
  std::string workload;
  std::vector<double> levels;
  int tasks = 0;
  std::vector<std::string> schemes;
  std::string out = "pathlock-report/simulate";
  bool no_plots = false;
  std::string color = "auto";
  bool strict = false;
};

int run_simulate(const SimulateOptions& o) {
  auto spec = pathlock::sim::default_campaign();
  spec.seed = o.seed;
  if (!o.workload.empty()) {
    spec.sweep = pathlock::sim::load_workload_file(o.workload);
    if (spec.sweep.load == pathlock::sim::LoadMode::kOpen && o.levels.empty()) {
      spec.levels.clear();
      for (double f : {0.25, 0.5, 1.0, 2.0, 4.0}) spec.levels.push_back(spec.sweep.arrival_rate * f);
    }
  }
  if (!o.levels.empty()) spec.levels = o.levels;
  if (o.tasks > 0) {
    for (auto* w : {&spec.sweep, &spec.probe, &spec.multipath}) w->tasks = o.tasks;
  }
  const auto schemes = select_schemes(o.schemes);
  spec.schemes.assign(schemes.begin(), schemes.end());
  std::cout << "pathlock simulate: seed " << spec.seed << " (replay the campaign with --seed " << spec.seed << ")\n";
  pathlock::sim::CampaignResult result;
  {
    ProgressBar bar("runs");
    result = pathlock::sim::run_campaign(spec, [&](std::size_t done, std::size_t total) { bar.update(done, total); });
  }
  const auto plots = o.no_plots ? pathlock::reports::Plots::kSkip : pathlock::reports::Plots::kDraw;
  std::cout << pathlock::reports::render_terminal(pathlock::reports::simulate_document(result, !o.no_plots),
                                                  color_for(o.color));
  const auto files = pathlock::reports::write_simulate(result, o.out, plots);
  for (const auto& f : files) std::cout << "wrote " << f.string() << "\n";
  bool failed = false;
  for (const auto& sc : result.schemes) {
    if (const auto* f = sc.first_failure()) {
      failed = true;
      std::cout << "replay " << sc.scheme->name() << "'s " << pathlock::sim::to_string(f->result.outcome)
                << " with: pathlock replay " << (std::filesystem::path(o.out) / ("replay-" + sc.scheme->name() + ".json")).string()
                << "\n";
    }
  }
  return o.strict && failed ? kExitUnsafe : 0;
}

int run_replay(const std::string& file, const std::string& scheme_override) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(InputProblem::kBadParameter, fmt::format("cannot read replay file {}", file));
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    throw InputError(InputProblem::kBadParameter, fmt::format("{}: not valid JSON: {}", file, e.what()));
  }
  if (!j.is_object() || j.value("schema", "") != pathlock::reports::kReplaySchema) {
    throw InputError(InputProblem::kBadParameter,
                     fmt::format("{}: not a replay file (schema must be \"{}\")", file, pathlock::reports::kReplaySchema));
  }
  if (!j.contains("scheme") || !j["scheme"].is_string() || !j.contains("schedule")) {
    throw InputError(InputProblem::kBadParameter, fmt::format("{}: needs \"scheme\" and \"schedule\"", file));
  }
  const std::string name = scheme_override.empty() ? j["scheme"].get<std::string>() : scheme_override;
  const auto* scheme = select_schemes({name}).front();
  const auto schedule = pathlock::sim::schedule_from_json(j["schedule"], file);
  const auto run = pathlock::sim::simulate(pathlock::sim::SchemePlanner(*scheme), schedule);
  const std::string recorded = j.value("outcome", "");
  fmt::print("replay of {} ({} tasks, seed {}) under {}: {}\n", file, schedule.tasks.size(),
             j.value("seed", std::uint64_t{0}), scheme->name(), pathlock::sim::to_string(run.outcome));
  if (scheme_override.empty() && !recorded.empty()) {
    fmt::print("recorded outcome: {}; reproduced: {}\n", recorded, recorded == pathlock::sim::to_string(run.outcome) ? "yes" : "NO");
  }
  pathlock::reports::Document doc;
  pathlock::reports::failure_blocks(doc, run);
  std::cout << pathlock::reports::render_terminal(doc, pathlock::reports::Color::kNone);
  return run.outcome == pathlock::sim::RunOutcome::kCompleted ? 0 : kExitUnsafe;
}

struct TablesOptions {
  int depth = 3;
  int fanout = 2;
  std::vector<std::string> schemes;
  std::string out = "pathlock-report/tables";
  bool no_files = false;
  std::string color = "auto";
  bool strict = false;
  std::uint64_t max_pairs = pathlock::sim::kDefaultMaxPairs;
};

int run_tables(const TablesOptions& o) {
  const auto schemes = select_schemes(o.schemes);
  pathlock::sim::StaticAnalysis analysis;
  {
    ProgressBar bar("pairs");
    analysis = pathlock::sim::analyze_static(
        schemes, {o.depth, o.fanout},
        [&](std::uint64_t done, std::uint64_t total) { bar.update(done, total); }, o.max_pairs);
  }
  std::cout << pathlock::reports::tables_terminal(analysis, color_for(o.color));
  if (!o.no_files) {
    for (const auto& f : pathlock::reports::write_tables(analysis, o.out)) {
      std::cout << "wrote " << f.string() << "\n";
    }
  }
  if (o.strict) {
    for (const auto& t : analysis.schemes) {
      if (!t.safe()) return kExitUnsafe;
    }
  }
  return 0;
}

// `schemes --export NAME`: the scheme as a scheme file, on stdout.
int run_export_scheme(const std::string& name) {
  const auto* s = pathlock::impl::find_builtin_scheme(name);
  if (s == nullptr) {
    throw InputError(InputProblem::kBadParameter,
                     fmt::format("unknown scheme \"{}\"; the schemes are: {}", name, scheme_names()));
  }
  fmt::print("{}\n", pathlock::impl::scheme_to_json(*s).dump(2));
  return 0;
}

int run_schemes() {
  for (const auto* s : pathlock::impl::builtin_schemes()) {
    std::string modes;
    for (std::size_t m = 0; m < s->mode_count(); ++m) {
      modes += (modes.empty() ? "" : ",") + s->mode_name(pathlock::impl::ModeId{static_cast<std::uint8_t>(m)});
    }
    fmt::print("{:<16} {:<9} modes {:<16} {}\n", s->name(), pathlock::impl::to_string(s->granularity()),
               modes, s->title());
  }
  return 0;
}

int run_plan(const std::vector<std::string>& schemes, const std::vector<std::string>& words) {
  if (words.empty()) throw InputError(InputProblem::kBadOperation, "no operation given");
  const auto kind = pathlock::model::op_kind_from_string(words[0]);
  if (!kind) {
    throw InputError(InputProblem::kBadOperation,
                     fmt::format("unknown operation \"{}\"; use read, write, delete, rename or copy", words[0]));
  }
  std::vector<pathlock::model::Path> paths;
  for (std::size_t i = 1; i < words.size(); ++i) paths.push_back(parse_location(words[i]));
  const auto op = pathlock::model::Operation::make(*kind, std::move(paths));
  const auto request = op.request();
  fmt::print("{}  {}\n", op.to_string(), request.to_string());
  for (const auto* s : select_schemes(schemes)) {
    fmt::print("  {:<16} {}\n", s->name(), pathlock::impl::to_string(*s, pathlock::impl::plan_for(*s, request)));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pathlock: hierarchical path locks for S3-style object stores, and the tools that check them.\n"
               "With no subcommand, runs `simulate` on the built-in defaults."};
  app.require_subcommand(0, 1);

  SimulateOptions simulate;
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
  simulate_cmd->add_option("--scheme", simulate.schemes, "A scheme to include (repeatable; default: all)")
      ->allow_extra_args(false);
  simulate_cmd->add_option("--out", simulate.out, "Folder for the reports, plots and replay files")->capture_default_str();
  simulate_cmd->add_flag("--no-plots", simulate.no_plots, "Do not draw plots (no gnuplot needed)");
  simulate_cmd->add_option("--color", simulate.color, "Colour the terminal tables")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  simulate_cmd->add_flag("--strict", simulate.strict, "Exit with status 3 if any run fails (violation or deadlock)");

  std::string replay_file;
  std::string replay_scheme;
  auto* replay_cmd = app.add_subcommand("replay", "Rerun a failed run exactly, from the replay file `simulate` wrote.");
  replay_cmd->add_option("file", replay_file, "A replay file (pathlock.replay/1)")->required()->check(CLI::ExistingFile);
  replay_cmd->add_option("--scheme", replay_scheme, "Replay the same schedule under another scheme");

  std::string export_scheme;
  auto* schemes_cmd = app.add_subcommand("schemes", "List the built-in schemes, one per line, name first.");
  schemes_cmd->add_option("--export", export_scheme,
                          "Print this built-in scheme as a scheme file (pathlock.scheme/1), to edit and load back");

  TablesOptions tables;
  auto* tables_cmd = app.add_subcommand(
      "tables", "Compute each scheme's concurrency table and scores from its lock plans, over every "
                "pair of operations on a generated tree; print them and write Markdown, HTML and JSON.");
  tables_cmd->add_option("--depth", tables.depth, "Levels of the generated tree below the root")
      ->check(CLI::Range(1, pathlock::sim::kMaxTreeDepth))
      ->capture_default_str();
  tables_cmd->add_option("--fanout", tables.fanout, "Children per folder in the generated tree")
      ->check(CLI::Range(1, pathlock::sim::kMaxTreeFanout))
      ->capture_default_str();
  tables_cmd->add_option("--scheme", tables.schemes, "A scheme to include (repeatable; default: all)")
      ->allow_extra_args(false);
  tables_cmd->add_option("--out", tables.out, "Folder for tables.md, tables.html and tables.json")
      ->capture_default_str();
  tables_cmd->add_flag("--no-files", tables.no_files, "Print only; write no files");
  tables_cmd->add_option("--color", tables.color, "Colour the terminal tables")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  tables_cmd->add_flag("--strict", tables.strict, "Exit with status 3 if any scheme is unsafe");
  tables_cmd->add_option("--max-pairs", tables.max_pairs, "Refuse trees with more request pairs than this")
      ->check(kWholeNumber)
      ->capture_default_str();

  std::vector<std::string> plan_schemes;
  std::vector<std::string> plan_words;
  auto* plan_cmd = app.add_subcommand(
      "plan", "Show the lock plan of one operation under each scheme, e.g. `pathlock plan copy /a /a/b`. "
              "Arguments starting with '/' are paths; others are S3 keys.");
  plan_cmd->add_option("--scheme", plan_schemes, "A scheme to show (repeatable; default: all)")
      ->allow_extra_args(false);
  plan_cmd->add_option("operation", plan_words, "read|write|delete|rename|copy, then its paths")->required();

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

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    if (*schemes_cmd) return export_scheme.empty() ? run_schemes() : run_export_scheme(export_scheme);
    if (*explore_cmd) return pathlock::cli::run_explore(explore);
    if (*check_cmd) return pathlock::cli::run_check(check);
    if (*promela_cmd) return pathlock::cli::run_promela(promela);
    if (*crosscheck_cmd) return pathlock::cli::run_crosscheck(crosscheck);
    if (*plan_cmd) return run_plan(plan_schemes, plan_words);
    if (*tables_cmd) return run_tables(tables);
    if (*replay_cmd) return run_replay(replay_file, replay_scheme);
    (void)simulate_cmd;
    return run_simulate(simulate);
  } catch (const InputError& e) {
    std::cerr << "pathlock: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "pathlock: error: " << e.what() << "\n";
    return kExitIo;
  }
}
