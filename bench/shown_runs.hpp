#pragma once
// Which of a benchmark's runs each reporter shows, and what stopped.
//
// Google Benchmark (1.7) leaves a repetition that stopped with an error
// (State::SkipWithError) out of its aggregates, yet gives the aggregates the
// number of repetitions asked for; and under --benchmark_report_aggregates_only
// (or --benchmark_display_aggregates_only) it hands a reporter the aggregates
// alone, so the stopped repetition, its message and the count that completed
// never reach it: a median of four looks like a median of five, and nothing
// says one failed. So the programs with a summary take those two flags out of
// argv (take_shown_runs_flags) and apply them here instead: every reporter is
// handed every run, shows the aggregates where the flag asks (and every run
// that stopped, always), and the summary learns how many repetitions of each
// figure completed and why the others did not.

#include <benchmark/benchmark.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pathlock::bench {

enum class RunsShown : std::uint8_t { kEvery, kAggregatesOnly };

// The runs of one ReportRuns call a reporter shows. Google Benchmark reports
// a benchmark's repetitions in one call and, where at least two of several
// completed, its aggregates in the next; where fewer completed there are no
// aggregates, and the repetitions are shown instead, as its own flag does.
inline std::vector<benchmark::BenchmarkReporter::Run> runs_to_show(
    const std::vector<benchmark::BenchmarkReporter::Run>& runs, RunsShown shown) {
  using Run = benchmark::BenchmarkReporter::Run;
  if (shown == RunsShown::kEvery) return runs;
  std::size_t completed = 0;
  bool repeated = false;
  for (const Run& run : runs) {
    if (run.run_type != Run::RT_Iteration) continue;
    if (!run.error_occurred) ++completed;
    repeated = repeated || run.repetitions > 1;
  }
  const bool aggregates_follow = repeated && completed >= 2;
  std::vector<Run> out;
  for (const Run& run : runs) {
    if (run.run_type == Run::RT_Iteration && !run.error_occurred && aggregates_follow) continue;
    out.push_back(run);
  }
  return out;
}

// A reporter that shows `inner` what runs_to_show lets through: the file
// reporter (--benchmark_out) under --benchmark_report_aggregates_only.
class ShownRunsReporter : public benchmark::BenchmarkReporter {
 public:
  ShownRunsReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner, RunsShown shown)
      : inner_(std::move(inner)), shown_(shown) {}
  bool ReportContext(const Context& context) override {
    // Google Benchmark sets this reporter's streams (to the --benchmark_out
    // file) after making it: the inner one writes to them.
    inner_->SetOutputStream(&GetOutputStream());
    inner_->SetErrorStream(&GetErrorStream());
    return inner_->ReportContext(context);
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    const std::vector<Run> shown = runs_to_show(runs, shown_);
    if (!shown.empty()) inner_->ReportRuns(shown);
  }
  void Finalize() override { inner_->Finalize(); }

 private:
  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
  RunsShown shown_;
};

// What take_shown_runs_flags found.
struct ShownRunsFlags {
  RunsShown on_console = RunsShown::kEvery;
  RunsShown in_file = RunsShown::kEvery;
  std::string out_format = "json";  // --benchmark_out_format, left in argv
  bool writes_file = false;         // --benchmark_out given (left in argv)
  std::string error;                // a flag's bad value, named; empty if none
};

// The value of `arg` if it is flag `name` ("--name=value", or "--name" with
// an empty value); nothing if it is another flag (one `name` only begins).
inline std::optional<std::string_view> flag_value(std::string_view arg, std::string_view name) {
  if (!arg.starts_with(name)) return std::nullopt;
  const std::string_view rest = arg.substr(name.size());
  if (rest.empty()) return rest;
  if (rest.front() != '=') return std::nullopt;
  return rest.substr(1);
}

// Google Benchmark's reading of a boolean flag's value (IsTruthyFlagValue):
// none is true; one character is false if it is 0, f, n or not a letter or
// digit; a longer one is false if it is false, no or off, in any case.
inline bool flag_is_true(std::string_view v) {
  if (v.empty()) return true;
  if (v.size() == 1) {
    const unsigned char c = static_cast<unsigned char>(v.front());
    return std::isalnum(c) != 0 && c != '0' && c != 'f' && c != 'F' && c != 'n' && c != 'N';
  }
  std::string lower(v);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower != "false" && lower != "no" && lower != "off";
}

// A flag's default from the environment, as Google Benchmark reads it
// (BENCHMARK_OUT for --benchmark_out, ...): `otherwise` where it is unset.
inline std::string flag_from_environment(const char* name, std::string otherwise) {
  const char* v = std::getenv(name);
  return v == nullptr ? otherwise : std::string(v);
}

// Takes --benchmark_report_aggregates_only and --benchmark_display_aggregates_only
// out of argv (the rest stays Google Benchmark's) and notes the file flags,
// each read as Google Benchmark does: the environment gives the default, the
// last flag wins, and the console shows aggregates only if either flag asks.
inline ShownRunsFlags take_shown_runs_flags(int& argc, char** argv) {
  bool report = flag_is_true(flag_from_environment("BENCHMARK_REPORT_AGGREGATES_ONLY", "false"));
  bool display = flag_is_true(flag_from_environment("BENCHMARK_DISPLAY_AGGREGATES_ONLY", "false"));
  std::string out = flag_from_environment("BENCHMARK_OUT", "");
  std::string format = flag_from_environment("BENCHMARK_OUT_FORMAT", "json");
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (const auto v = flag_value(arg, "--benchmark_report_aggregates_only")) {
      report = flag_is_true(*v);
      continue;
    }
    if (const auto v = flag_value(arg, "--benchmark_display_aggregates_only")) {
      display = flag_is_true(*v);
      continue;
    }
    if (const auto v = flag_value(arg, "--benchmark_out_format")) {
      format = std::string(*v);
    } else if (const auto o = flag_value(arg, "--benchmark_out")) {
      out = std::string(*o);
    }
    argv[kept++] = argv[i];
  }
  argc = kept;
  ShownRunsFlags flags;
  flags.on_console = report || display ? RunsShown::kAggregatesOnly : RunsShown::kEvery;
  flags.in_file = report ? RunsShown::kAggregatesOnly : RunsShown::kEvery;
  flags.writes_file = !out.empty();
  flags.out_format = format;
  if (format != "json" && format != "console" && format != "csv") {
    flags.error = "--benchmark_out_format takes json, console or csv, got '" + format + "'";
  }
  return flags;
}

// argv for Google Benchmark, with both aggregates-only flags off (the last
// flag wins, over the environment too): shown_runs applies them instead.
// The result ends with a null pointer, as argv does; its size less one is
// the argument count.
inline std::vector<char*> with_aggregates_only_off(int argc, char** argv) {
  static char report_off[] = "--benchmark_report_aggregates_only=false";
  static char display_off[] = "--benchmark_display_aggregates_only=false";
  std::vector<char*> args(argv, argv + argc);
  args.push_back(report_off);
  args.push_back(display_off);
  args.push_back(nullptr);
  return args;
}

// The file reporter for `flags`: nullptr where Google Benchmark's own does
// (no file, or every run shown in it).
inline std::unique_ptr<benchmark::BenchmarkReporter> make_file_reporter(const ShownRunsFlags& flags) {
  if (!flags.writes_file || flags.in_file == RunsShown::kEvery) return nullptr;
  std::unique_ptr<benchmark::BenchmarkReporter> inner;
  if (flags.out_format == "console") {
    inner = std::make_unique<benchmark::ConsoleReporter>(benchmark::ConsoleReporter::OO_None);
  } else if (flags.out_format == "csv") {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    inner = std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
  } else {
    inner = std::make_unique<benchmark::JSONReporter>();
  }
  return std::make_unique<ShownRunsReporter>(std::move(inner), flags.in_file);
}

}  // namespace pathlock::bench
