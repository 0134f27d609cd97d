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

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
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

// Google Benchmark's reading of a boolean flag's value: none is true.
inline bool flag_is_true(std::string_view v) {
  if (v.empty()) return true;
  for (std::string_view no : {"0", "f", "false", "n", "no", "off", "F", "FALSE", "False", "N", "NO", "No", "OFF", "Off"}) {
    if (v == no) return false;
  }
  return true;
}

// Takes --benchmark_report_aggregates_only and --benchmark_display_aggregates_only
// out of argv (the rest stays Google Benchmark's), and notes the file flags.
inline ShownRunsFlags take_shown_runs_flags(int& argc, char** argv) {
  ShownRunsFlags flags;
  const auto value_of = [](std::string_view arg, std::string_view name, std::string_view* value) {
    if (!arg.starts_with(name)) return false;
    const std::string_view rest = arg.substr(name.size());
    if (!rest.empty() && rest.front() != '=') return false;
    *value = rest.empty() ? rest : rest.substr(1);
    return true;
  };
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    std::string_view v;
    if (value_of(arg, "--benchmark_report_aggregates_only", &v)) {
      const RunsShown s = flag_is_true(v) ? RunsShown::kAggregatesOnly : RunsShown::kEvery;
      flags.on_console = s;
      flags.in_file = s;
      continue;
    }
    if (value_of(arg, "--benchmark_display_aggregates_only", &v)) {
      flags.on_console = flag_is_true(v) ? RunsShown::kAggregatesOnly : RunsShown::kEvery;
      continue;
    }
    if (value_of(arg, "--benchmark_out_format", &v)) {
      if (v != "json" && v != "console" && v != "csv") {
        flags.error = "--benchmark_out_format takes json, console or csv, got '" + std::string(v) + "'";
      }
      flags.out_format = std::string(v);
    } else if (value_of(arg, "--benchmark_out", &v)) {
      flags.writes_file = !v.empty();
    }
    argv[kept++] = argv[i];
  }
  argc = kept;
  return flags;
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
