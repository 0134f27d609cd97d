// The scaling benchmark's summary (bench/scaling_summary.hpp), on figures
// made up here: the README quotes its ratios and verdicts, so each must be
// the arithmetic it claims, and a target inside a run's spread must not be
// reported as met or missed.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "scaling_summary.hpp"

namespace pathlock::bench {
namespace {

std::string key(const std::string& lock, Workload w, int threads) {
  return lock + "/" + std::string(to_string(w)) + "/real_time/threads:" + std::to_string(threads);
}

const std::string kRecommended = "PathLock/path-rwa-joined";

// A run of `rate` acquisitions per second in total over `threads` threads,
// the median of `repetitions`, with the given relative spread over them.
Figures run_of(double rate, int threads, double spread, int repetitions = kMinRepetitions) {
  Figures f;
  f.counters["items_per_second"] = rate;
  f.ns = 1e9 * threads / rate;
  f.repetitions = repetitions;
  f.from_median = repetitions > 1;
  if (spread > 0) f.counter_spread["items_per_second"] = spread;
  return f;
}

// `lock`'s runs of `w` at 1 and 2 threads, with no spread.
void set_rates(FigureTable& figures, const std::string& lock, Workload w, double one_thread, double two_threads) {
  figures[key(lock, w, 1)] = run_of(one_thread, 1, 0);
  figures[key(lock, w, 2)] = run_of(two_threads, 2, 0);
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
  // No spread to judge by: far from the target, still no verdict.
  EXPECT_EQ(judge(9.0, Bound::kAtLeast, 1.6, 0, kMinRepetitions - 1), Verdict::kTooFewRepetitions);
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
  EXPECT_EQ(spread_text(0.002), " \u00b10.4%") << "a narrow band is not shown as none";
}

TEST(ScalingSummary, ScalingIsTheRatioOfTheRecommendedSchemesMedians) {
  FigureTable figures;
  set_rates(figures, kRecommended, Workload::kDisjoint, 10e6, 17e6);
  set_rates(figures, kRecommended, Workload::kMixed, 10e6, 15e6);
  const std::string s = summary_of(figures);
  EXPECT_EQ(line_of(s, "- scaling, disjoint:"), "- scaling, disjoint: 1.70x at 2 threads (target >= 1.6x): met");
  EXPECT_EQ(line_of(s, "- scaling, mixed:"), "- scaling, mixed: 1.50x at 2 threads (target >= 1.6x): NOT met");
  EXPECT_EQ(line_of(s, "- scaling, hot-read:"), "") << "no figures, no verdict";
}

// A summary of a run whose probes ranged from `from` to `to` (a move): it says
// so, and leaves the two-thread disjoint scaling (1.70x, met) undecided.
void expect_machine_moved(const std::string& summary, const std::string& from_to_ratio) {
  EXPECT_EQ(line_of(summary, "**The machine moved"),
            "**The machine moved during this run**: a cache line's trip ranged from " + from_to_ratio +
                "; more than 2x is a move), so its multi-thread figures come from different placements of its "
                "CPUs: no target is judged on them. Run it again.");
  EXPECT_EQ(line_of(summary, "- scaling, disjoint:"),
            "- scaling, disjoint: 1.70x at 2 threads (target >= 1.6x): undecided (the machine moved during this "
            "run)");
}

// The cache line's trip between two CPUs, probed before the first benchmark,
// during the run and after the last: a run that straddles a move of the
// machine (a host that placed the vCPUs elsewhere) judges nothing on its
// multi-thread figures; its one-thread ones still decide.
TEST(ScalingSummary, ARunDuringWhichTheMachineMovedJudgesNoMultiThreadTarget) {
  FigureTable figures;
  set_rates(figures, kRecommended, Workload::kDisjoint, 10e6, 17e6);
  figures[key("Baseline/std-mutex", Workload::kDisjoint, 1)] = run_of(100e6, 1, 0);

  const std::string steady = scaling_summary(figures, 2, {1, 2}, 7, WireProbes{31.5, 33, {32}});
  EXPECT_EQ(line_of(steady, "A cache line took"),
            "A cache line took 31.5 ns when this run began, 32.0 ns during it (1 probe) and 33.0 ns when it ended "
            "from one CPU's core to another's (half a ping-pong round trip between the same two CPUs, median of 5 "
            "rounds): every handoff between threads costs at least that. On a virtual machine it moves with the "
            "host's placement of the vCPUs, and the multi-thread figures with it.");
  EXPECT_EQ(line_of(steady, "**The machine moved"), "");
  EXPECT_EQ(line_of(steady, "- scaling, disjoint:"), "- scaling, disjoint: 1.70x at 2 threads (target >= 1.6x): met");

  const std::string moved = scaling_summary(figures, 2, {1, 2}, 7, WireProbes{32, 165, {32}});
  expect_machine_moved(moved, "32.0 to 165.0 ns (5.2x");
  EXPECT_EQ(line_of(moved, "- uncontended depth-4 write"),
            "- uncontended depth-4 write acquire+release: 100.0 ns, 10.00x a std::mutex lock+unlock (10.0 ns; "
            "target <= 4x): NOT met")
      << "one thread against one thread: no move between them";

  // Probes during the run only.
  EXPECT_EQ(line_of(scaling_summary(figures, 2, {1, 2}, 7, WireProbes{0, 0, {32, 31}}), "A cache line took"),
            "A cache line took 31.0 to 32.0 ns during this run (2 probes) from one CPU's core to another's (half a "
            "ping-pong round trip between the same two CPUs, median of 5 rounds): every handoff between threads "
            "costs at least that. On a virtual machine it moves with the host's placement of the vCPUs, and the "
            "multi-thread figures with it.");
  EXPECT_EQ(line_of(summary_of(figures), "A cache line took"), "") << "no probe, no sentence";
}

// Three probes can all miss a move: on the 2-vCPU VM, a run whose start,
// middle and end probes read 216 ns had its ticket lock at the fast
// placement's rate. The probes taken during the run (kProbesDuringRun, at
// points random interleaving picks) count as much as those two.
TEST(ScalingSummary, AMoveThatOnlyTheProbesDuringTheRunSawJudgesNoMultiThreadTarget) {
  FigureTable figures;
  set_rates(figures, kRecommended, Workload::kDisjoint, 10e6, 17e6);

  const std::string moved = scaling_summary(figures, 2, {1, 2}, 7, WireProbes{216, 212, {216.4, 27.1, 220}});
  EXPECT_EQ(line_of(moved, "A cache line took"),
            "A cache line took 216.0 ns when this run began, 27.1 to 220.0 ns during it (3 probes) and 212.0 ns "
            "when it ended from one CPU's core to another's (half a ping-pong round trip between the same two "
            "CPUs, median of 5 rounds): every handoff between threads costs at least that. On a virtual machine "
            "it moves with the host's placement of the vCPUs, and the multi-thread figures with it.");
  expect_machine_moved(moved, "27.1 to 220.0 ns (8.1x");

  const std::string steady = scaling_summary(figures, 2, {1, 2}, 7, WireProbes{27, 29.3, {26.9, 28, 26.9}});
  EXPECT_EQ(line_of(steady, "A cache line took 27.0 ns when this run began, 26.9 to 28.0 ns during it (3 probes)"
                            " and 29.3 ns when it ended")
                .empty(),
            false);
  EXPECT_EQ(line_of(steady, "**The machine moved"), "");
  EXPECT_EQ(line_of(steady, "- scaling, disjoint:"), "- scaling, disjoint: 1.70x at 2 threads (target >= 1.6x): met");
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
  set_rates(figures, kRecommended, Workload::kConflicting, 10e6, 6e6);
  EXPECT_EQ(line_of(summary_of(figures), "- no collapse, conflicting:"),
            "- no collapse, conflicting: 2 threads keep 60% of 1 thread (target >= 70%): NOT met");
}

// The line after the one that starts with `prefix` (empty if none).
std::string line_after(const std::string& summary, const std::string& prefix) {
  const std::string first = line_of(summary, prefix);
  if (first.empty()) return {};
  const std::size_t at = summary.find(first + "\n");
  if (at == std::string::npos) return {};  // the last line
  return line_of(summary.substr(at + first.size() + 1), "");
}

TEST(ScalingSummary, ScalingIsMeasuredAgainstAThreadThatSharesNothing) {
  FigureTable figures;
  set_rates(figures, kRecommended, Workload::kDisjoint, 10e6, 15e6);
  set_rates(figures, "Baseline/own-mutex", Workload::kDisjoint, 100e6, 150e6);
  set_rates(figures, kRecommended, Workload::kHotRead, 10e6, 15e6);
  set_rates(figures, "Baseline/own-mutex", Workload::kHotRead, 100e6, 190e6);
  set_rates(figures, kRecommended, Workload::kMixed, 10e6, 15e6);  // and no yardstick figures
  const std::string s = summary_of(figures);
  EXPECT_EQ(line_after(s, "- scaling, disjoint:"),
            "  - each thread locking a std::mutex of its own (nothing shared) scales 1.50x at 2 threads, and PathLock "
            "100% of that: that is how far this machine itself scales, so the target is beyond this machine in this run");
  EXPECT_EQ(line_after(s, "- scaling, hot-read:"),
            "  - each thread locking a std::mutex of its own (nothing shared) scales 1.90x at 2 threads, and PathLock "
            "79% of that: that is how far this machine itself scales, so the target is within reach in this run");
  ASSERT_FALSE(line_of(s, "- scaling, mixed:").empty());
  EXPECT_EQ(line_after(s, "- scaling, mixed:").rfind("  - each thread", 0), std::string::npos)
      << "no yardstick figures, no yardstick line";
  EXPECT_TRUE(line_after(summary_of({}), "- scaling, disjoint:").empty());
}

TEST(ScalingSummary, AThreadThatSharesNothingIsNotAPeer) {
  FigureTable figures;
  figures[key(kRecommended, Workload::kDisjoint, 2)] = run_of(40e6, 2, 0);
  figures[key("Baseline/striped-64", Workload::kDisjoint, 2)] = run_of(10e6, 2, 0);
  figures[key("Baseline/naive-map", Workload::kDisjoint, 2)] = run_of(1e6, 2, 0);
  figures[key("Baseline/absl-table", Workload::kDisjoint, 2)] = run_of(1e6, 2, 0);
  figures[key("Baseline/own-mutex", Workload::kDisjoint, 2)] = run_of(300e6, 2, 0);
  EXPECT_EQ(line_of(summary_of(figures), "- ahead of the peers, disjoint:"),
            "- ahead of the peers, disjoint: 4.00x 64-stripe table of std::shared_mutex at 2 threads (target >= 4x): "
            "met");
}

// Conflicting: PathLock at 10 M/s on 1 thread, 6 on 2; the ticket lock
// and the MCS lock at 40/50 M/s on 1 thread and the given rates on 2
// (0: not in the run). The yardstick line under its no-collapse target.
std::string no_collapse_yardstick(double ticket, double mcs) {
  FigureTable figures;
  set_rates(figures, kRecommended, Workload::kConflicting, 10e6, 6e6);
  if (ticket > 0) set_rates(figures, "Baseline/ticket-lock", Workload::kConflicting, 50e6, ticket);
  if (mcs > 0) set_rates(figures, "Baseline/mcs-lock", Workload::kConflicting, 40e6, mcs);
  return line_after(summary_of(figures), "- no collapse, conflicting:");
}

TEST(ScalingSummary, NoCollapseIsMeasuredAgainstTheFasterFifoHandoff) {
  EXPECT_EQ(no_collapse_yardstick(5e6, 0),
            "  - the faster FIFO handoff, a bare ticket lock, runs 5.00 M/s at 2 threads (no figure of the MCS queue "
            "lock in this run), 10% of its own 1-thread rate: a FIFO lock of PathLock's 1-thread cost that handed "
            "over as fast would keep 50%, so the target is out of reach of both bare FIFO locks in this run");
  // An MCS lock hands over faster at 2 threads than the ticket lock: the
  // target is within reach of a FIFO lock after all.
  EXPECT_EQ(no_collapse_yardstick(5e6, 8e6),
            "  - the faster FIFO handoff, a bare MCS queue lock, runs 8.00 M/s at 2 threads (the ticket lock runs "
            "5.00 M/s), 20% of its own 1-thread rate: a FIFO lock of PathLock's 1-thread cost that handed over as "
            "fast would keep 80%, so the target is within reach in this run");
  // A slower MCS lock is named beside the ticket lock, and judges nothing.
  EXPECT_EQ(no_collapse_yardstick(5e6, 4e6),
            "  - the faster FIFO handoff, a bare ticket lock, runs 5.00 M/s at 2 threads (the MCS queue lock runs "
            "4.00 M/s), 10% of its own 1-thread rate: a FIFO lock of PathLock's 1-thread cost that handed over as "
            "fast would keep 50%, so the target is out of reach of both bare FIFO locks in this run");
  // The MCS lock alone: the ticket lock's absence is said, not hidden.
  EXPECT_EQ(no_collapse_yardstick(0, 8e6),
            "  - the faster FIFO handoff, a bare MCS queue lock, runs 8.00 M/s at 2 threads (no figure of the ticket "
            "lock in this run), 20% of its own 1-thread rate: a FIFO lock of PathLock's 1-thread cost that handed "
            "over as fast would keep 80%, so the target is within reach in this run");
}

// Conflicting at 2 threads: PathLock at 20 M/s, the 64-stripe table at 8
// (the best peer, the abseil table at 1), the ticket lock at `ticket`, and
// the MCS lock at `mcs` unless it is 0.
FigureTable conflicting_against_peers(double ticket, double mcs = 0) {
  FigureTable figures;
  if (mcs > 0) figures[key("Baseline/mcs-lock", Workload::kConflicting, 2)] = run_of(mcs, 2, 0);
  figures[key(kRecommended, Workload::kConflicting, 2)] = run_of(20e6, 2, 0);
  figures[key("Baseline/naive-map", Workload::kConflicting, 2)] = run_of(2e6, 2, 0);
  figures[key("Baseline/striped-64", Workload::kConflicting, 2)] = run_of(8e6, 2, 0);
  figures[key("Baseline/absl-table", Workload::kConflicting, 2)] = run_of(1e6, 2, 0);
  figures[key("Baseline/ticket-lock", Workload::kConflicting, 2)] = run_of(ticket, 2, 0);
  return figures;
}

// Hot-read at 2 threads: PathLock at 40 M/s, the 64-stripe table at 8 (the
// best peer), the naive map at 2, one std::mutex at 100 and a ticket lock at 50
// (no peers), and the abseil table at 7 unless it is left out of the run.
enum class Abseil : std::uint8_t { kRan, kLeftOut };
FigureTable hot_read_against_peers(double mine_spread, double striped_spread, Abseil abseil) {
  FigureTable figures;
  figures[key(kRecommended, Workload::kHotRead, 2)] = run_of(40e6, 2, mine_spread);
  figures[key("Baseline/std-mutex", Workload::kHotRead, 2)] = run_of(100e6, 2, 0);
  figures[key("Baseline/naive-map", Workload::kHotRead, 2)] = run_of(2e6, 2, 0);
  figures[key("Baseline/striped-64", Workload::kHotRead, 2)] = run_of(8e6, 2, striped_spread);
  if (abseil == Abseil::kRan) figures[key("Baseline/absl-table", Workload::kHotRead, 2)] = run_of(7e6, 2, 0);
  figures[key("Baseline/ticket-lock", Workload::kHotRead, 2)] = run_of(50e6, 2, 0);
  return figures;
}

TEST(ScalingSummary, TheRecommendedSchemeIsComparedWithEachBaselineAtTheTopThreadCount) {
  FigureTable figures = hot_read_against_peers(0, 0, Abseil::kRan);
  figures[key(kRecommended, Workload::kDisjoint, 2)] = run_of(30e6, 2, 0);
  figures[key("Baseline/striped-64", Workload::kDisjoint, 2)] = run_of(12e6, 2, 0);
  // A one-thread figure is no top-thread-count figure: it is not compared.
  figures[key("Baseline/std-mutex", Workload::kDisjoint, 1)] = run_of(60e6, 1, 0);
  const std::string s = summary_of(figures);
  EXPECT_EQ(line_of(s, "PathLock path-rwa-joined over each baseline"),
            "PathLock path-rwa-joined over each baseline, both at 2 threads (above 1x, PathLock acquires faster; - "
            "where either has no figure in this run):");
  // The per-workload tables name the baselines too: their rows come first.
  const std::size_t at = s.find("over each baseline");
  ASSERT_NE(at, std::string::npos);
  const std::string table = s.substr(at);
  EXPECT_EQ(line_of(table, "| baseline |"), "| baseline | disjoint | hot-folder | hot-read | mixed | conflicting |");
  // 40 / 100, and no disjoint figure at 2 threads.
  EXPECT_EQ(line_of(table, "| std::mutex (one lock for every request) |"),
            "| std::mutex (one lock for every request) | - | - | 0.40x | - | - |");
  // 30 / 12 and 40 / 8.
  EXPECT_EQ(line_of(table, "| 64-stripe table of std::shared_mutex |"),
            "| 64-stripe table of std::shared_mutex | 2.50x | - | 5.00x | - | - |");
  EXPECT_EQ(line_of(table, "| abseil: 64 shards of flat_hash_map of absl::Mutex |"),
            "| abseil: 64 shards of flat_hash_map of absl::Mutex | - | - | 5.71x | - | - |");
  EXPECT_EQ(line_of(table, "| FIFO MCS queue lock (one lock; each waiter spins on its own line) |"),
            "| FIFO MCS queue lock (one lock; each waiter spins on its own line) | - | - | - | - | - |");
  // A std::mutex per thread is the machine's yardstick, not a lock to run
  // instead: no row, even with figures.
  figures[key("Baseline/own-mutex", Workload::kHotRead, 2)] = run_of(300e6, 2, 0);
  const std::string with_yardstick = summary_of(figures);
  EXPECT_EQ(line_of(with_yardstick.substr(with_yardstick.find("over each baseline")), "| a std::mutex per thread"), "");
}

TEST(ScalingSummary, PeersAreJudgedAgainstTheBestPerPathTableOnly) {
  // 40 / 8 = 5x (one lock for everything is no peer, however fast), spread
  // sqrt(1% + 4%) of squares: 2.2%, band 5 x (1 +- 4.5%).
  EXPECT_EQ(line_of(summary_of(hot_read_against_peers(0.01, 0.02, Abseil::kRan)), "- ahead of the peers, hot-read:"),
            "- ahead of the peers, hot-read: 5.00x \u00b14.5% 64-stripe table of std::shared_mutex at 2 threads "
            "(target >= 4x): met");
}

TEST(ScalingSummary, AheadOfThePeersWhereAllConflictIsMeasuredAgainstTheFasterFifoHandoff) {
  const std::string slow = summary_of(conflicting_against_peers(28e6));
  EXPECT_EQ(line_of(slow, "- ahead of the peers, conflicting:"),
            "- ahead of the peers, conflicting: 2.50x 64-stripe table of std::shared_mutex at 2 threads (target >= "
            "4x): NOT met");
  EXPECT_EQ(line_after(slow, "- ahead of the peers, conflicting:"),
            "  - the faster FIFO handoff, a bare ticket lock, runs 28.00 M/s at 2 threads (no figure of the MCS queue "
            "lock in this run), 3.50x the peer: a FIFO lock that hands over no faster gets no further ahead of it, "
            "so the target is out of reach of both bare FIFO locks in this run");
  EXPECT_EQ(line_after(summary_of(conflicting_against_peers(40e6)), "- ahead of the peers, conflicting:"),
            "  - the faster FIFO handoff, a bare ticket lock, runs 40.00 M/s at 2 threads (no figure of the MCS queue "
            "lock in this run), 5.00x the peer: a FIFO lock that hands over no faster gets no further ahead of it, "
            "so the target is within reach in this run");
  EXPECT_EQ(line_after(summary_of(conflicting_against_peers(28e6, 36e6)), "- ahead of the peers, conflicting:"),
            "  - the faster FIFO handoff, a bare MCS queue lock, runs 36.00 M/s at 2 threads (the ticket lock runs "
            "28.00 M/s), 4.50x the peer: a FIFO lock that hands over no faster gets no further ahead of it, so the "
            "target is within reach in this run");
  // Only where every pair conflicts.
  const std::string hot = summary_of(hot_read_against_peers(0, 0, Abseil::kRan));
  EXPECT_EQ(line_after(hot, "- ahead of the peers, hot-read:").rfind("  - ", 0), std::string::npos);
}

TEST(ScalingSummary, APeerTargetMissedWhereNothingConflictsSaysWhatOneThreadWouldHaveToCost) {
  // PathLock 20 M/s on 1 thread, 40 on 2 (2x); the 64-stripe table 12.5 on
  // 2: 3.2x. 4x is 50 M/s, 25 per thread at 2x scaling: 40 ns, against 50.
  FigureTable figures;
  set_rates(figures, kRecommended, Workload::kDisjoint, 20e6, 40e6);
  figures[key("Baseline/striped-64", Workload::kDisjoint, 2)] = run_of(12.5e6, 2, 0);
  figures[key("Baseline/naive-map", Workload::kDisjoint, 2)] = run_of(1e6, 2, 0);
  figures[key("Baseline/absl-table", Workload::kDisjoint, 2)] = run_of(1e6, 2, 0);
  const std::string summary = summary_of(figures);
  EXPECT_EQ(line_of(summary, "- ahead of the peers, disjoint:"),
            "- ahead of the peers, disjoint: 3.20x 64-stripe table of std::shared_mutex at 2 threads (target >= 4x): "
            "NOT met");
  EXPECT_EQ(line_after(summary, "- ahead of the peers, disjoint:"),
            "  - 4x the peer is 50.00 M/s at 2 threads: scaling as in this run (2.00x), one thread's acquire+release "
            "would take at most 40.0 ns; it takes 50.0 ns (1.25x that)");
  // Met: nothing to ask.
  figures[key("Baseline/striped-64", Workload::kDisjoint, 2)] = run_of(10e6, 2, 0);
  EXPECT_EQ(line_after(summary_of(figures), "- ahead of the peers, disjoint:").rfind("  - ", 0), std::string::npos);
}

TEST(ScalingSummary, APeerMissingFromTheRunLeavesThePeerTargetUndecided) {
  EXPECT_EQ(line_of(summary_of(hot_read_against_peers(0, 0, Abseil::kLeftOut)), "- ahead of the peers, hot-read:"),
            "- ahead of the peers, hot-read: 5.00x 64-stripe table of std::shared_mutex at 2 threads (target >= "
            "4x): undecided (no figure of abseil: 64 shards of flat_hash_map of absl::Mutex in this run)");
}

TEST(ScalingSummary, AFigureOfTooFewRepetitionsDecidesNothing) {
  FigureTable figures;
  figures[key(kRecommended, Workload::kDisjoint, 1)] = run_of(10e6, 1, 0, 1);
  figures[key(kRecommended, Workload::kDisjoint, 2)] = run_of(30e6, 2, 0);
  EXPECT_EQ(line_of(summary_of(figures), "- scaling, disjoint:"),
            "- scaling, disjoint: 3.00x at 2 threads (target >= 1.6x): undecided (fewer than 5 repetitions: no "
            "spread to judge by)");
}

TEST(ScalingSummary, UncontendedCostIsADepthFourWriteOverAStdMutex) {
  FigureTable figures;
  figures[key(kRecommended, Workload::kDisjoint, 1)] = run_of(20e6, 1, 0);  // 50 ns
  figures[key("Baseline/std-mutex", Workload::kDisjoint, 1)] = run_of(100e6, 1, 0);  // 10 ns
  const std::string s = summary_of(figures);
  EXPECT_EQ(line_of(s, "- uncontended depth-4 write"),
            "- uncontended depth-4 write acquire+release: 50.0 ns, 5.00x a std::mutex lock+unlock (10.0 ns; "
            "target <= 4x): NOT met");
  // The disjoint workload's write of /t0/folder/sub/object: the root, three
  // folders and the object; 50 / 5 = 10 ns a lock, 1x the mutex; 4 x 10 / 5 = 8.
  EXPECT_EQ(line_after(s, "- uncontended depth-4 write"),
            "  - its plan takes 5 locks (WA(/) WA(/t0) WA(/t0/folder) WA(/t0/folder/sub) W(/t0/folder/sub/object)): "
            "10.0 ns a lock, each 1.00x a std::mutex lock+unlock; the target leaves 8.0 ns a lock");
}

// What the reporter keeps of a benchmark's aggregates, whichever order they
// come in: the median's figures, the robust spread, the repetitions.
// Conflicting at 1, 2, 4 and 8 threads on 2 CPUs: PathLock, std::mutex and
// the bare FIFO locks, as the run gives them at 2x and 4x the CPUs.
FigureTable oversubscribed_run() {
  FigureTable figures;
  const std::pair<std::string, std::array<double, 4>> locks[] = {
      {kRecommended, {30e6, 27e6, 0.6e6, 0.2e6}},
      {"Baseline/std-mutex", {90e6, 33e6, 31e6, 30e6}},
      {"Baseline/ticket-lock", {200e6, 45e6, 0.1e6, 0.05e6}},
      {"Baseline/mcs-lock", {100e6, 16e6, 0.15e6, 0.04e6}},
  };
  for (const auto& [lock, rates] : locks) {
    const int threads[] = {1, 2, 4, 8};
    for (std::size_t i = 0; i < rates.size(); ++i) {
      figures[key(lock, Workload::kConflicting, threads[i])] = run_of(rates[i], threads[i], 0);
    }
  }
  return figures;
}

TEST(ScalingSummary, MoreThreadsThanCpusAreShownBesideTheFifoLocksAndStdMutex) {
  const std::string summary = scaling_summary(oversubscribed_run(), 2, {1, 2}, 7, {}, {4, 8});
  const std::size_t at = summary.find("**more threads than CPUs**, conflicting: every thread writes /hot/folder/sub/object");
  ASSERT_NE(at, std::string::npos) << summary;
  const std::string section = summary.substr(at);  // (the tables above have rows of the same locks)
  EXPECT_EQ(line_of(section, "| lock | 2T |"), "| lock | 2T | 4T | 8T |");
  EXPECT_EQ(line_of(section, "| PathLock path-rwa-joined |"), "| PathLock path-rwa-joined | 27.00 | 0.60 | 0.20 |");
  EXPECT_EQ(line_of(section, "| std::mutex"), "| std::mutex (one lock for every request) | 33.00 | 31.00 | 30.00 |");
  // The faster bare FIFO lock at each count: the MCS lock at 4, the ticket lock at 8.
  EXPECT_EQ(line_of(section, "- 4 threads on 2 CPUs:"),
            "- 4 threads on 2 CPUs: PathLock path-rwa-joined runs 0.60 M/s, 2.0% of its 1-thread rate; 4.00x a bare "
            "MCS queue lock (the faster bare FIFO lock here, 0.15 M/s), 0.02x std::mutex");
  EXPECT_EQ(line_of(section, "- 8 threads on 2 CPUs:"),
            "- 8 threads on 2 CPUs: PathLock path-rwa-joined runs 0.20 M/s, 0.7% of its 1-thread rate; 4.00x a bare "
            "ticket lock (the faster bare FIFO lock here, 0.05 M/s), 0.01x std::mutex");
}

TEST(ScalingSummary, ARunWithoutMoreThreadsThanCpusShowsNoSuchSection) {
  // None asked for, or asked for and filtered out of the run.
  EXPECT_EQ(scaling_summary(oversubscribed_run(), 2, {1, 2}, 7).find("more threads than CPUs"), std::string::npos);
  EXPECT_EQ(scaling_summary(oversubscribed_run(), 2, {1, 2}, 7, {}, {16}).find("more threads than CPUs"),
            std::string::npos);
}

TEST(SummaryReporter, KeepsTheMedianAndTheRobustSpreadOfEachRun) {
  using Run = benchmark::BenchmarkReporter::Run;
  const auto aggregate = [](const std::string& name, double value) {
    Run r;
    r.run_name.function_name = "PathLock/x";
    r.run_type = Run::RT_Aggregate;
    r.aggregate_name = name;
    r.aggregate_unit = name == "median" || name == "mean" ? benchmark::kTime : benchmark::kPercentage;
    r.repetitions = 5;
    r.iterations = 1;
    r.real_accumulated_time = 1e-7;
    r.cpu_accumulated_time = 1e-7;
    r.counters["items_per_second"] = benchmark::Counter(value);
    return r;
  };
  for (const bool spread_first : {true, false}) {
    FigureTable seen;
    SummaryReporter reporter("", [&](const FigureTable& figures, int) {
      seen = figures;
      return std::string();
    });
    std::ostringstream out;
    reporter.SetOutputStream(&out);
    reporter.SetErrorStream(&out);
    const Run spread = aggregate(kRelativeMad, 0.03);
    const std::vector<Run> others{aggregate("mean", 11e6), aggregate("median", 10e6), aggregate("cv", 0.5)};
    if (spread_first) reporter.ReportRuns({spread});
    reporter.ReportRuns(others);
    if (!spread_first) reporter.ReportRuns({spread});
    reporter.Finalize();
    ASSERT_EQ(seen.count("PathLock/x"), 1U);
    const Figures& f = seen.at("PathLock/x");
    EXPECT_DOUBLE_EQ(f.counter("items_per_second"), 10e6) << "the median's, not the mean's";
    EXPECT_DOUBLE_EQ(f.spread("items_per_second"), 0.03) << "the robust spread, not the coefficient of variation";
    EXPECT_EQ(f.repetitions, 5);
    EXPECT_NEAR(f.ns, 100, 1e-9);
  }
}

}  // namespace
}  // namespace pathlock::bench
