// The scaling benchmark's summary (bench/scaling_summary.hpp), on figures
// made up here: the README quotes its ratios and verdicts, so each must be
// the arithmetic it claims, and a target inside a run's spread must not be
// reported as met or missed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scaling_summary.hpp"

namespace pathlock::bench {
namespace {

std::string key(const std::string& lock, Workload w, int threads) {
  return lock + "/" + std::string(to_string(w)) + "/real_time/threads:" + std::to_string(threads);
}

const std::string kRecommended = "PathLock/path-rwa-joined";

// A run of `rate` acquisitions per second in total over `threads` threads,
// with the given relative spread over its repetitions.
Figures run_of(double rate, int threads, double spread) {
  Figures f;
  f.counters["items_per_second"] = rate;
  f.ns = 1e9 * threads / rate;
  if (spread > 0) f.counter_spread["items_per_second"] = spread;
  return f;
}

std::string summary_of(const FigureTable& figures) { return scaling_summary(figures, 2, {1, 2}, 7); }

// The summary's line that starts with `prefix` (empty if none).
std::string line_of(const std::string& summary, const std::string& prefix) {
  for (std::size_t at = 0; at < summary.size();) {
    const std::size_t end = summary.find('\n', at);
    const std::string row = summary.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (row.rfind(prefix, 0) == 0) return row;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return {};
}

TEST(ScalingSummaryJudge, ABandWhollyOnOneSideDecides) {
  EXPECT_EQ(judge(1.7, Bound::kAtLeast, 1.6, 0), Verdict::kMet);
  EXPECT_EQ(judge(1.6, Bound::kAtLeast, 1.6, 0), Verdict::kMet);
  EXPECT_EQ(judge(1.5, Bound::kAtLeast, 1.6, 0), Verdict::kNotMet);
  EXPECT_EQ(judge(3.0, Bound::kAtMost, 4, 0), Verdict::kMet);
  EXPECT_EQ(judge(5.0, Bound::kAtMost, 4, 0), Verdict::kNotMet);
  // 2 x 1% either side of 1.7: [1.666, 1.734], above 1.6.
  EXPECT_EQ(judge(1.7, Bound::kAtLeast, 1.6, 0.01), Verdict::kMet);
  // 2 x 5% either side of 1.7: [1.53, 1.87], across 1.6.
  EXPECT_EQ(judge(1.7, Bound::kAtLeast, 1.6, 0.05), Verdict::kWithinSpread);
  EXPECT_EQ(judge(1.5, Bound::kAtLeast, 1.6, 0.05), Verdict::kWithinSpread);
  // [1.2, 1.4]: below 1.6 however it is read.
  EXPECT_EQ(judge(1.3, Bound::kAtLeast, 1.6, 0.0385), Verdict::kNotMet);
  EXPECT_EQ(judge(4.2, Bound::kAtMost, 4, 0.05), Verdict::kWithinSpread);
  EXPECT_EQ(judge(6.0, Bound::kAtMost, 4, 0.05), Verdict::kNotMet);
}

TEST(ScalingSummaryJudge, TheRobustSpreadIgnoresOneSlowRepetition) {
  // Median 10, absolute deviations {1, 0, 1, 0, 20}: their median is 1.
  EXPECT_DOUBLE_EQ(relative_mad({9, 10, 11, 10, 30}), 1.4826 * 1 / 10);
  EXPECT_DOUBLE_EQ(relative_mad({10, 10, 10, 10, 30}), 0);
  // An even count: the medians are of the middle two.
  EXPECT_DOUBLE_EQ(relative_mad({8, 12, 10, 10}), 1.4826 * 1 / 10);
  EXPECT_DOUBLE_EQ(relative_mad({5}), 0);
  EXPECT_DOUBLE_EQ(relative_mad({0, 0, 0}), 0);
}

TEST(ScalingSummaryJudge, SpreadsOfARatioCombine) {
  EXPECT_DOUBLE_EQ(ratio_spread(0.03, 0.04), 0.05);
  EXPECT_DOUBLE_EQ(ratio_spread(0, 0.02), 0.02);
  EXPECT_EQ(spread_text(0), "");
  EXPECT_EQ(spread_text(0.05), " \u00b110%");
}

TEST(ScalingSummary, ScalingIsTheRatioOfTheRecommendedSchemesMedians) {
  FigureTable figures;
  figures[key(kRecommended, Workload::kDisjoint, 1)] = run_of(10e6, 1, 0);
  figures[key(kRecommended, Workload::kDisjoint, 2)] = run_of(17e6, 2, 0);
  figures[key(kRecommended, Workload::kMixed, 1)] = run_of(10e6, 1, 0);
  figures[key(kRecommended, Workload::kMixed, 2)] = run_of(15e6, 2, 0);
  const std::string s = summary_of(figures);
  EXPECT_EQ(line_of(s, "- scaling, disjoint:"), "- scaling, disjoint: 1.70x at 2 threads (target >= 1.6x): met");
  EXPECT_EQ(line_of(s, "- scaling, mixed:"), "- scaling, mixed: 1.50x at 2 threads (target >= 1.6x): NOT met");
  EXPECT_EQ(line_of(s, "- scaling, hot-read:"), "") << "no figures, no verdict";
}

TEST(ScalingSummary, ATargetWithinTheRunsSpreadIsUndecided) {
  FigureTable figures;
  // Spreads of 3% and 4%: the ratio's is 5%, its band 1.70 x (1 +- 10%).
  figures[key(kRecommended, Workload::kDisjoint, 1)] = run_of(10e6, 1, 0.03);
  figures[key(kRecommended, Workload::kDisjoint, 2)] = run_of(17e6, 2, 0.04);
  const std::string s = summary_of(figures);
  EXPECT_EQ(line_of(s, "- scaling, disjoint:"),
            "- scaling, disjoint: 1.70x \u00b110% at 2 threads (target >= 1.6x): undecided (the target is within "
            "this run's spread)");
}

TEST(ScalingSummary, NoCollapseKeepsAShareOfOneThread) {
  FigureTable figures;
  figures[key(kRecommended, Workload::kConflicting, 1)] = run_of(10e6, 1, 0);
  figures[key(kRecommended, Workload::kConflicting, 2)] = run_of(6e6, 2, 0);
  EXPECT_EQ(line_of(summary_of(figures), "- no collapse, conflicting:"),
            "- no collapse, conflicting: 2 threads keep 60% of 1 thread (target >= 70%): NOT met");
}

TEST(ScalingSummary, PeersAreJudgedAgainstTheBestPerPathTableOnly) {
  FigureTable figures;
  figures[key(kRecommended, Workload::kHotRead, 2)] = run_of(40e6, 2, 0.01);
  // One lock for everything is no peer, however fast.
  figures[key("Baseline/std-mutex", Workload::kHotRead, 2)] = run_of(100e6, 2, 0);
  figures[key("Baseline/naive-map", Workload::kHotRead, 2)] = run_of(2e6, 2, 0);
  figures[key("Baseline/striped-64", Workload::kHotRead, 2)] = run_of(8e6, 2, 0.02);
  // 40 / 8 = 5x, spread sqrt(1% + 4%) of squares: 2.2%, band 5 x (1 +- 4.5%).
  EXPECT_EQ(line_of(summary_of(figures), "- ahead of the peers, hot-read:"),
            "- ahead of the peers, hot-read: 5.00x \u00b14% 64-stripe table of std::shared_mutex at 2 threads "
            "(target >= 4x): met");
}

TEST(ScalingSummary, UncontendedCostIsADepthFourWriteOverAStdMutex) {
  FigureTable figures;
  figures[key(kRecommended, Workload::kDisjoint, 1)] = run_of(20e6, 1, 0);  // 50 ns
  figures[key("Baseline/std-mutex", Workload::kDisjoint, 1)] = run_of(100e6, 1, 0);  // 10 ns
  EXPECT_EQ(line_of(summary_of(figures), "- uncontended depth-4 write"),
            "- uncontended depth-4 write acquire+release: 50.0 ns, 5.00x a std::mutex lock+unlock (10.0 ns; "
            "target <= 4x): NOT met");
}

}  // namespace
}  // namespace pathlock::bench
