#pragma once
// A Google Benchmark reporter that prints the console output as usual,
// keeps every run's figures (the median aggregate where there are
// repetitions, with their relative spread over the repetitions and the
// number that completed), and at the end writes a Markdown summary computed
// from them (to stdout, and to --summary=FILE if given): the tables the
// README quotes, so that no figure there is typed by hand. Runs that stopped
// with an error are listed under the summary, never shown as results
// (shown_runs.hpp).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "shown_runs.hpp"

namespace pathlock::bench {

struct Figures {
  double ns = 0;                             // real time per iteration, nanoseconds
  double cpu_ns = 0;                         // CPU time per iteration, nanoseconds
  std::map<std::string, double> counters;    // as reported (rates per second)
  // Each counter's relative spread over the repetitions (0.05 is 5%), where
  // the benchmark computes kRelativeMad; none without repetitions.
  std::map<std::string, double> counter_spread;
  // That the figures are the median of: those that completed (a repetition
  // that stopped with an error is not in the median).
  int repetitions = 1;
  bool from_median = false;
  double counter(const std::string& name, double missing = -1) const {
    auto it = counters.find(name);
    return it == counters.end() ? missing : it->second;
  }
  // 0 where the run had no repetitions.
  double spread(const std::string& name) const {
    auto it = counter_spread.find(name);
    return it == counter_spread.end() ? 0 : it->second;
  }
};

// A robust estimate of the coefficient of variation: 1.4826 x the median
// absolute deviation from the median, over the median (1.4826 makes it the
// standard deviation's estimate for a normal sample). One repetition that a
// virtual machine's neighbour slowed moves it little, where it can double
// a standard deviation of five. Registered with a benchmark as
// ComputeStatistics(kRelativeMad, relative_mad, kPercentage).
inline constexpr const char* kRelativeMad = "rmad";
inline double relative_mad(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const auto median_of = [](std::vector<double> x) {
    const std::size_t mid = x.size() / 2;
    std::nth_element(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(mid), x.end());
    const double upper = x[mid];
    if (x.size() % 2 == 1) return upper;
    return (*std::max_element(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(mid)) + upper) / 2;
  };
  const double median = median_of(v);
  if (median == 0) return 0;
  std::vector<double> deviations;
  deviations.reserve(v.size());
  for (const double x : v) deviations.push_back(std::abs(x - median));
  return 1.4826 * median_of(std::move(deviations)) / std::abs(median);
}

// Run name -> figures.
using FigureTable = std::map<std::string, Figures>;

// The processor's name as the kernel gives it (the first "model name" of
// /proc/cpuinfo), for a summary's heading: figures from two machines are
// not comparable. Empty where there is none.
inline std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string row; std::getline(in, row);) {
    if (row.rfind("model name", 0) != 0) continue;
    const auto colon = row.find(':');
    if (colon == std::string::npos) break;
    const auto start = row.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : row.substr(start);
  }
  return {};
}

// "2 CPUs", or "2 CPUs, AMD EPYC" where the processor is known.
inline std::string cpus_named(int cpus) {
  const std::string model = cpu_model();
  return std::to_string(cpus) + " CPUs" + (model.empty() ? "" : ", " + model);
}

inline std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  // summarize(figures, cpus) -> Markdown.
  using Summarize = std::function<std::string(const FigureTable&, int)>;
  SummaryReporter(std::string summary_path, Summarize summarize, RunsShown on_console = RunsShown::kEvery,
                  OutputOptions console = OO_Defaults)
      : ConsoleReporter(console),
        summary_path_(std::move(summary_path)),
        summarize_(std::move(summarize)),
        on_console_(on_console) {}

  bool ReportContext(const Context& context) override {
    cpus_ = context.cpu_info.num_cpus;
    return ConsoleReporter::ReportContext(context);
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    const std::vector<Run> shown = runs_to_show(runs, on_console_);
    if (!shown.empty()) ConsoleReporter::ReportRuns(shown);
    for (const auto& run : runs) {
      const std::string name = run.run_name.str();
      if (run.error_occurred) {
        Stopped& s = stopped_[name];
        ++s.runs;
        s.asked = std::max<std::int64_t>(s.asked, run.repetitions);
        if (s.message.empty()) s.message = run.error_message;
        continue;
      }
      if (run.run_type == Run::RT_Iteration) ++completed_[name];
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name == kRelativeMad) {
        Figures& f = figures_[name];
        for (const auto& [counter_name, counter] : run.counters) f.counter_spread[counter_name] = counter.value;
        continue;
      }
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.run_type == Run::RT_Aggregate && !median) continue;
      Figures& f = figures_[name];
      if (f.from_median && !median) continue;
      f.from_median = median;
      // Google Benchmark gives an aggregate the repetitions asked for, also
      // where some stopped: the count that completed, where the runs came.
      const auto done = completed_.find(name);
      f.repetitions = !median ? 1
                      : done != completed_.end()
                          ? static_cast<int>(std::min<std::int64_t>(done->second, run.repetitions))
                          : static_cast<int>(run.repetitions);
      f.ns = run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit) * 1e9;
      f.cpu_ns = run.GetAdjustedCPUTime() / benchmark::GetTimeUnitMultiplier(run.time_unit) * 1e9;
      for (const auto& [counter_name, counter] : run.counters) f.counters[counter_name] = counter.value;
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    const std::string text = summarize_(figures_, cpus_) + stopped_text();
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);  // before any error below, so that it comes after the summary, not inside it
    if (!summary_path_.empty()) {
      std::ofstream out(summary_path_);
      out << text;
      out.close();
      if (!out) {
        std::fprintf(stderr, "error: cannot write the summary to %s: %s\n", summary_path_.c_str(),
                     std::strerror(errno));
        summary_written_ = SummaryWritten::kFailed;
      }
    }
  }
  // Whether a run stopped with an error: its program exits non-zero.
  bool any_stopped() const { return !stopped_.empty(); }
  // Whether --summary=FILE could not be written at the end (a disk filled,
  // a folder removed during the run): its program exits non-zero.
  enum class SummaryWritten : std::uint8_t { kWrittenOrNotAsked, kFailed };
  SummaryWritten summary_written() const { return summary_written_; }

 private:
  struct Stopped {
    std::int64_t runs = 0;   // repetitions that stopped
    std::int64_t asked = 1;  // repetitions asked for
    std::string message;     // the first one's
  };
  // The runs that stopped, under the summary: none is in a figure above it.
  std::string stopped_text() const {
    if (stopped_.empty()) return {};
    std::string out =
        "\n**Stopped with an error** (left out of every figure above: a figure of fewer repetitions than asked is "
        "the median of those that completed, judged as of that many; one of none is not shown):\n";
    for (const auto& [name, s] : stopped_) {
      const auto done = completed_.find(name);
      const std::int64_t completed = done == completed_.end() ? 0 : done->second;
      out += "- " + name + ": " + std::to_string(s.runs) + " of " + std::to_string(std::max(s.asked, s.runs + completed)) +
             " repetitions stopped (" + s.message + ")\n";
    }
    return out;
  }

  std::string summary_path_;
  SummaryWritten summary_written_ = SummaryWritten::kWrittenOrNotAsked;
  Summarize summarize_;
  RunsShown on_console_;
  int cpus_ = 0;
  FigureTable figures_;
  std::map<std::string, std::int64_t> completed_;  // repetitions that completed, by run name
  std::map<std::string, Stopped> stopped_;
};

// Takes --summary=FILE out of argv (the rest is Google Benchmark's).
struct SummaryFlag {
  std::string path;   // empty: not given
  std::string error;  // not empty: the flag is unusable, and why
};
inline SummaryFlag take_summary_flag(int& argc, char** argv) {
  SummaryFlag flag;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--summary=")) {
      flag.path = arg.substr(std::string_view("--summary=").size());
      flag.error = flag.path.empty() ? "--summary= takes a file name, got none" : "";
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  return flag;
}

// Why `path` cannot take the summary (empty if it can), found before the
// benchmarks run, not after minutes of them. A file this makes is removed
// again; one that is there (or a link to one) is opened to append, so it is
// left as it is. O_EXCL makes the "this made it" sure: it follows no link,
// and fails if another process made the file first.
inline std::string summary_path_problem(const std::string& path) {
  const int made = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (made >= 0) {
    close(made);
    unlink(path.c_str());
    return {};
  }
  if (errno == EEXIST) {
    const int there = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (there >= 0) {
      close(there);
      return {};
    }
  }
  return "cannot write the summary to " + path + ": " + std::strerror(errno);
}

// The console's options as Google Benchmark reads them for its own reporter
// (it leaves a program's own reporter as made): colour where
// --benchmark_color (or BENCHMARK_COLOR) says so, by default where stdout is
// a terminal; counters in columns under --benchmark_counters_tabular. Both
// flags stay in argv.
inline benchmark::ConsoleReporter::OutputOptions console_options(int argc, char** argv) {
  std::string color = flag_from_environment("BENCHMARK_COLOR", "auto");
  std::string tabular = flag_from_environment("BENCHMARK_COUNTERS_TABULAR", "false");
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (const auto v = flag_value(arg, "--benchmark_color")) color = std::string(*v);
    if (const auto v = flag_value(arg, "--benchmark_counters_tabular")) tabular = std::string(*v);
  }
  const char* term = std::getenv("TERM");
  const bool colored = color == "auto" ? isatty(STDOUT_FILENO) != 0 && term != nullptr &&
                                             std::string_view(term) != "" && std::string_view(term) != "dumb"
                                       : flag_is_true(color);
  int options = benchmark::ConsoleReporter::OO_None;
  if (colored) options |= benchmark::ConsoleReporter::OO_Color;
  if (flag_is_true(tabular)) options |= benchmark::ConsoleReporter::OO_Tabular;
  return static_cast<benchmark::ConsoleReporter::OutputOptions>(options);
}

// The main() of a benchmark with a summary: starts a thread before any
// timing (glibc skips atomic instructions until a process has created one,
// which makes single-threaded lock figures look about 3x too good), takes
// --summary=FILE and the flags that hide runs (shown_runs.hpp), registers
// the cases and runs them under SummaryReporter. Exits 1 on a bad flag (a
// --summary=FILE that cannot be written is one, found before any run), 2
// if a run stopped with an error (the summary is written all the same) or
// the summary could not be written at the end.
inline int run_with_summary(int argc, char** argv, void (*register_all)(), SummaryReporter::Summarize summarize) {
  std::thread([] {}).join();
  const SummaryFlag summary_flag = take_summary_flag(argc, argv);
  std::string summary_error = summary_flag.error;
  if (summary_error.empty() && !summary_flag.path.empty()) summary_error = summary_path_problem(summary_flag.path);
  if (!summary_error.empty()) {
    std::fprintf(stderr, "error: %s\n", summary_error.c_str());
    return 1;
  }
  const std::string& summary_path = summary_flag.path;
  const ShownRunsFlags shown = take_shown_runs_flags(argc, argv);
  if (!shown.error.empty()) {
    std::fprintf(stderr, "error: %s\n", shown.error.c_str());
    return 1;
  }
  std::vector<char*> args = with_aggregates_only_off(argc, argv);
  int count = static_cast<int>(args.size()) - 1;
  // Read before Google Benchmark takes its flags out of the arguments.
  const auto console = console_options(count, args.data());
  register_all();
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  SummaryReporter reporter(summary_path, std::move(summarize), shown.on_console, console);
  const std::unique_ptr<benchmark::BenchmarkReporter> file = make_file_reporter(shown);
  benchmark::RunSpecifiedBenchmarks(&reporter, file.get());
  benchmark::Shutdown();
  if (reporter.any_stopped()) {
    std::fprintf(stderr, "error: a run stopped with an error: its figures are left out (the summary lists it)\n");
    return 2;
  }
  if (reporter.summary_written() == SummaryReporter::SummaryWritten::kFailed) return 2;
  return 0;
}

}  // namespace pathlock::bench
