// pathlock: the command-line program.
//
//   pathlock schemes               the built-in schemes, one per line, name first
//   pathlock tables [options]      compute every scheme's concurrency table
//   pathlock plan OP PATH [PATH]   show the lock plan of one operation
//
// Exit status: 0 success; 1 an I/O failure; 2 bad input (flags, paths, keys);
// 3 `tables --strict` found an unsafe scheme. CLI11's own parse errors use its
// non-zero codes.

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "pathlock/impl/plan.hpp"
#include "pathlock/impl/scheme.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/model/request.hpp"
#include "pathlock/reports/tables.hpp"
#include "pathlock/sim/static_table.hpp"

namespace {

using pathlock::model::InputError;
using pathlock::model::InputProblem;

constexpr int kExitIo = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitUnsafe = 3;

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

// A one-line progress bar on stderr, only when stderr is a terminal.
class ProgressBar {
 public:
  ProgressBar() : enabled_(isatty(STDERR_FILENO) != 0) {}
  ~ProgressBar() {
    if (enabled_ && shown_) std::fputs("\r\x1b[K", stderr);
  }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  void update(std::uint64_t done, std::uint64_t total) {
    if (!enabled_ || total == 0) return;
    const auto percent = static_cast<int>(done * 100 / total);
    if (percent == last_percent_) return;
    last_percent_ = percent;
    shown_ = true;
    const int filled = percent * 40 / 100;
    std::fprintf(stderr, "\r[%s%s] %3d%% of %llu pairs", std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(40 - filled), ' ').c_str(), percent,
                 static_cast<unsigned long long>(total));
    std::fflush(stderr);
  }

 private:
  bool enabled_;
  bool shown_ = false;
  int last_percent_ = -1;
};

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
    ProgressBar bar;
    analysis = pathlock::sim::analyze_static(
        schemes, {o.depth, o.fanout},
        [&](std::uint64_t done, std::uint64_t total) { bar.update(done, total); }, o.max_pairs);
  }
  const bool color = o.color == "always" || (o.color == "auto" && isatty(STDOUT_FILENO) != 0);
  std::cout << pathlock::reports::tables_terminal(
      analysis, color ? pathlock::reports::Color::kAnsi : pathlock::reports::Color::kNone);
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
               "With no subcommand, runs `tables` on the built-in defaults."};
  app.require_subcommand(0, 1);

  auto* schemes_cmd = app.add_subcommand("schemes", "List the built-in schemes, one per line, name first.");

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
      ->check(CLI::PositiveNumber)
      ->capture_default_str();

  std::vector<std::string> plan_schemes;
  std::vector<std::string> plan_words;
  auto* plan_cmd = app.add_subcommand(
      "plan", "Show the lock plan of one operation under each scheme, e.g. `pathlock plan copy /a /a/b`. "
              "Arguments starting with '/' are paths; others are S3 keys.");
  plan_cmd->add_option("--scheme", plan_schemes, "A scheme to show (repeatable; default: all)")
      ->allow_extra_args(false);
  plan_cmd->add_option("operation", plan_words, "read|write|delete|rename|copy, then its paths")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    if (*schemes_cmd) return run_schemes();
    if (*plan_cmd) return run_plan(plan_schemes, plan_words);
    return run_tables(tables);
  } catch (const InputError& e) {
    std::cerr << "pathlock: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "pathlock: error: " << e.what() << "\n";
    return kExitIo;
  }
}
