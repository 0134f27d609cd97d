// The benchmark summaries' reporter (bench/summary_reporter.hpp,
// bench/shown_runs.hpp), run on real Google Benchmark cases made to stop:
// Google Benchmark leaves a stopped repetition out of its aggregates yet
// gives them the repetitions asked for, and under --benchmark_report_
// aggregates_only hides the stopped run. A summary must count what
// completed, list what stopped and never show it as a result.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include "summary_reporter.hpp"

namespace pathlock::bench {
namespace {

std::atomic<int> g_once_calls{0};

void register_stopping_cases() {
  // Its second repetition stops (a repetition is one call).
  benchmark::RegisterBenchmark("Stops/once", [](benchmark::State& st) {
    const int call = g_once_calls++;
    for (auto _ : st) {
      if (call == 1) st.SkipWithError("made to stop");
    }
  })->Iterations(2);
  benchmark::RegisterBenchmark("Stops/never", [](benchmark::State& st) {
    for (auto _ : st) benchmark::DoNotOptimize(st.iterations());
  })->Iterations(2);
  benchmark::RegisterBenchmark("Stops/always", [](benchmark::State& st) {
    for (auto _ : st) st.SkipWithError("always stops");
  })->Iterations(2);
}

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(SummaryReporterRun, CountsTheRepetitionsThatCompletedAndListsTheStoppedOnes) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "summary_reporter_test";
  std::filesystem::create_directories(dir);
  const std::string md = (dir / "summary.md").string();
  const std::string json = (dir / "runs.json").string();
  std::vector<std::string> args{"summary_reporter_test",
                                "--benchmark_filter=^Stops/",
                                "--benchmark_repetitions=5",
                                "--benchmark_report_aggregates_only=true",
                                "--benchmark_out=" + json,
                                "--benchmark_out_format=json",
                                "--benchmark_color=true",
                                "--summary=" + md};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  FigureTable seen;
  ::testing::internal::CaptureStdout();
  const int rc = run_with_summary(argc, argv.data(), register_stopping_cases, [&](const FigureTable& f, int) {
    seen = f;
    return std::string("the summary\n");
  });
  const std::string console = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 2) << "a run stopped: the program says so";

  ASSERT_EQ(seen.count("Stops/once/iterations:2"), 1U);
  EXPECT_EQ(seen.at("Stops/once/iterations:2").repetitions, 4) << "the median is of the four that completed";
  EXPECT_TRUE(seen.at("Stops/once/iterations:2").from_median);
  ASSERT_EQ(seen.count("Stops/never/iterations:2"), 1U);
  EXPECT_EQ(seen.at("Stops/never/iterations:2").repetitions, 5);
  EXPECT_EQ(seen.count("Stops/always/iterations:2"), 0U) << "no figure of a run that never completed";

  const std::string summary = read_all(md);
  EXPECT_EQ(summary.rfind("the summary\n", 0), 0U);
  EXPECT_NE(summary.find("- Stops/once/iterations:2: 1 of 5 repetitions stopped (made to stop)"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("- Stops/always/iterations:2: 5 of 5 repetitions stopped (always stops)"), std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("Stops/never"), std::string::npos) << summary;

  // The console and the file show the aggregates, as the flag asks, and
  // every run that stopped.
  EXPECT_NE(console.find("Stops/never/iterations:2_median"), std::string::npos) << console;
  EXPECT_EQ(console.find("Stops/never/iterations:2 "), std::string::npos) << console;
  EXPECT_NE(console.find("made to stop"), std::string::npos) << console;
  EXPECT_NE(console.find("\x1b["), std::string::npos) << "--benchmark_color=true is read before Google Benchmark "
                                                          "takes it out of argv";
  const auto runs = nlohmann::json::parse(read_all(json)).at("benchmarks");
  int never_repetitions = 0;
  int never_medians = 0;
  int stopped = 0;
  for (const auto& r : runs) {
    const std::string name = r.at("run_name");
    if (r.value("error_occurred", false)) ++stopped;
    if (name == "Stops/never/iterations:2") {
      if (r.at("run_type") == "iteration") ++never_repetitions;
      if (r.value("aggregate_name", "") == "median") ++never_medians;
    }
  }
  EXPECT_EQ(never_repetitions, 0);
  EXPECT_EQ(never_medians, 1);
  EXPECT_EQ(stopped, 6) << "once's one, always's five";
}

using BenchRun = benchmark::BenchmarkReporter::Run;

BenchRun repetition(bool stopped) {
  BenchRun r;
  r.run_type = BenchRun::RT_Iteration;
  r.repetitions = 5;
  r.error_occurred = stopped;
  return r;
}

TEST(ShownRuns, RepetitionsShowWhereNoAggregatesFollow) {
  const std::vector<BenchRun> most_completed{repetition(false), repetition(true), repetition(false)};
  EXPECT_EQ(runs_to_show(most_completed, RunsShown::kAggregatesOnly).size(), 1U) << "the stopped one";
  EXPECT_EQ(runs_to_show(most_completed, RunsShown::kEvery).size(), 3U);
  // One completed: Google Benchmark makes no aggregates of it.
  const std::vector<BenchRun> one_completed{repetition(false), repetition(true), repetition(true)};
  EXPECT_EQ(runs_to_show(one_completed, RunsShown::kAggregatesOnly).size(), 3U);
}

// A program's arguments after "p", as main() gets them.
struct Args {
  explicit Args(std::vector<std::string> a) : text(std::move(a)) {
    text.insert(text.begin(), "p");
    for (auto& t : text) argv.push_back(t.data());
    argc = static_cast<int>(argv.size());
  }
  Args(const Args&) = delete;  // argv points into text
  Args& operator=(const Args&) = delete;
  std::vector<std::string> text;
  std::vector<char*> argv;
  int argc = 0;
};

ShownRunsFlags flags_of(std::vector<std::string> args, int* left = nullptr) {
  Args a(std::move(args));
  const ShownRunsFlags f = take_shown_runs_flags(a.argc, a.argv.data());
  if (left != nullptr) *left = a.argc - 1;
  return f;
}

TEST(ShownRuns, FlagsAreTakenOutOfArgvAndReadAsGoogleBenchmarkReadsThem) {
  Args args({"--benchmark_report_aggregates_only", "--benchmark_filter=x", "--benchmark_out=f.json",
             "--benchmark_display_aggregates_only=false"});
  const ShownRunsFlags f = take_shown_runs_flags(args.argc, args.argv.data());
  ASSERT_EQ(args.argc, 3);
  EXPECT_EQ(std::string(args.argv[1]), "--benchmark_filter=x");
  EXPECT_EQ(std::string(args.argv[2]), "--benchmark_out=f.json");
  EXPECT_EQ(f.in_file, RunsShown::kAggregatesOnly);
  EXPECT_EQ(f.on_console, RunsShown::kAggregatesOnly) << "either flag asks it for the console";
  EXPECT_TRUE(f.writes_file);
  EXPECT_TRUE(f.error.empty());
  EXPECT_NE(make_file_reporter(f), nullptr);

  const ShownRunsFlags display = flags_of({"--benchmark_display_aggregates_only=yes"});
  EXPECT_EQ(display.on_console, RunsShown::kAggregatesOnly);
  EXPECT_EQ(display.in_file, RunsShown::kEvery);
  EXPECT_EQ(flags_of({"--benchmark_report_aggregates_only", "--benchmark_report_aggregates_only=fAlse"}).in_file,
            RunsShown::kEvery)
      << "the last one wins";

  const ShownRunsFlags g = flags_of({"--benchmark_out_format=xml", "--benchmark_report_aggregates_only=no"});
  EXPECT_EQ(g.error, "--benchmark_out_format takes json, console or csv, got 'xml'");
  EXPECT_EQ(g.in_file, RunsShown::kEvery);
  EXPECT_EQ(make_file_reporter(g), nullptr) << "no file asked for";
  EXPECT_TRUE(flags_of({"--benchmark_out_format=xml", "--benchmark_out_format=csv"}).error.empty());
}

TEST(SummaryFlag, IsTakenOutOfArgvAndANameIsRequired) {
  Args args({"--benchmark_filter=x", "--summary=out.md"});
  const SummaryFlag f = take_summary_flag(args.argc, args.argv.data());
  ASSERT_EQ(args.argc, 2);
  EXPECT_EQ(std::string(args.argv[1]), "--benchmark_filter=x");
  EXPECT_EQ(f.path, "out.md");
  EXPECT_TRUE(f.error.empty());

  Args bare({"--summary="});
  EXPECT_EQ(take_summary_flag(bare.argc, bare.argv.data()).error, "--summary= takes a file name, got none")
      << "not taken as no summary asked for";
}

// Found before the benchmarks run, so a typo does not cost a run's minutes;
// the probe leaves no file behind and an existing one as it was.
TEST(SummaryFlag, APathThatCannotTakeTheSummaryIsNamedBeforeAnyRun) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("pathlock_summary_flag_test." + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string missing_folder = (dir / "no-such-folder" / "s.md").string();
  EXPECT_EQ(summary_path_problem(missing_folder),
            "cannot write the summary to " + missing_folder + ": No such file or directory");
  EXPECT_EQ(summary_path_problem(dir.string()), "cannot write the summary to " + dir.string() + ": Is a directory");

  const std::filesystem::path fresh = dir / "fresh.md";
  EXPECT_EQ(summary_path_problem(fresh.string()), "");
  EXPECT_FALSE(std::filesystem::exists(fresh)) << "the probe removes the file it made";

  const std::filesystem::path kept = dir / "kept.md";
  std::ofstream(kept) << "last run's summary";
  EXPECT_EQ(summary_path_problem(kept.string()), "");
  std::ifstream in(kept);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "last run's summary");

  // A link to a file not yet written: the link is the user's, and stays.
  const std::filesystem::path link = dir / "link.md";
  std::filesystem::create_symlink(dir / "target.md", link);
  EXPECT_EQ(summary_path_problem(link.string()), "");
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  std::filesystem::remove_all(dir);
}

TEST(ShownRuns, BooleanValuesReadAsGoogleBenchmarkReadsThem) {
  for (const char* no : {"0", "f", "N", "-", "false", "FALSE", "No", "oFF"}) EXPECT_FALSE(flag_is_true(no)) << no;
  for (const char* yes : {"", "1", "t", "y", "x", "true", "yes", "on", "anything"}) EXPECT_TRUE(flag_is_true(yes)) << yes;
}

TEST(ShownRuns, GoogleBenchmarkGetsBothAggregatesOnlyFlagsOff) {
  std::vector<std::string> args{"p", "--benchmark_filter=x"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  const std::vector<char*> out = with_aggregates_only_off(2, argv.data());
  ASSERT_EQ(out.size(), 5U);
  EXPECT_EQ(std::string(out[1]), "--benchmark_filter=x");
  EXPECT_EQ(std::string(out[2]), "--benchmark_report_aggregates_only=false");
  EXPECT_EQ(std::string(out[3]), "--benchmark_display_aggregates_only=false");
  EXPECT_EQ(out[4], nullptr);
}

// Google Benchmark sets its own console reporter's options from the flags
// but leaves a program's reporter as made: the summary's reporter reads them.
TEST(ConsoleOptions, ColourAndColumnsFollowTheFlags) {
  const auto options_of = [](std::vector<std::string> args) {
    args.insert(args.begin(), "p");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    return console_options(static_cast<int>(argv.size()), argv.data());
  };
  using C = benchmark::ConsoleReporter;
  EXPECT_EQ(options_of({"--benchmark_color=false"}), C::OO_None);
  EXPECT_EQ(options_of({"--benchmark_color=true"}), C::OO_Color);
  EXPECT_EQ(options_of({"--benchmark_color=no", "--benchmark_counters_tabular=true"}), C::OO_Tabular);
  EXPECT_EQ(options_of({"--benchmark_color=yes", "--benchmark_counters_tabular"}), C::OO_ColorTabular);
  EXPECT_EQ(options_of({"--benchmark_color=true", "--benchmark_color=false"}), C::OO_None) << "the last one wins";
  if (isatty(STDOUT_FILENO) == 0) {
    EXPECT_EQ(options_of({}), C::OO_None) << "no colour by default into a file or a pipe";
  }
}

}  // namespace
}  // namespace pathlock::bench
