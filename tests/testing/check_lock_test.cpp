// pathlock::testing::check_lock on real targets: PathLock passes with every
// sound scheme; the broken schemes the project ships and the naive per-path
// table fail, each within 30 s, with a minimal scenario and a replay line.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <algorithm>
#include <cmath>
#include <utility>
#include <stdexcept>
#include <string>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/sim/variants.hpp"
#include "pathlock/testing/check.hpp"

namespace pathlock::testing {
namespace {

const impl::Scheme& builtin(const char* name) { return *impl::find_builtin_scheme(name); }

CheckOptions seeded(std::uint64_t seed) {
  CheckOptions options;
  options.seed = seed;
  return options;
}

CheckOptions quick(std::uint64_t seed) {
  CheckOptions options = seeded(seed);
  options.scenarios = 60;
  options.runs_per_scenario = 10;
  options.hang_timeout = std::chrono::milliseconds(500);
  return options;
}

class SoundScheme : public ::testing::TestWithParam<const char*> {};

TEST_P(SoundScheme, PathLockPasses) {
  const impl::Scheme& scheme = builtin(GetParam());
  const auto result = check_lock([&] { return PathLockAdapter(scheme); }, quick(3));
  EXPECT_TRUE(result.passed()) << result.report();
  EXPECT_EQ(result.completeness, Completeness::kComplete);
  EXPECT_EQ(result.scenarios_run, 60);
}

INSTANTIATE_TEST_SUITE_P(Builtins, SoundScheme,
                         ::testing::Values("global-mutex", "global-rw", "path-rw", "path-rwa-joined"));

TEST(CheckLock, BaselinesThatLockEverythingPass) {
  EXPECT_TRUE(check_lock([] { return GlobalMutexLock(); }, quick(4)).passed());
  EXPECT_TRUE(check_lock([] { return GlobalSharedMutexLock(); }, quick(4)).passed());
}

void expect_caught(const CheckResult& result, Verdict verdict) {
  EXPECT_EQ(result.verdict, verdict) << result.report();
#ifndef PATHLOCK_SANITIZED
  EXPECT_LT(result.seconds, 30.0) << result.report();  // the target, on 2 cores
#endif
  EXPECT_GE(result.scenario.tasks.size(), 1U);
  const std::string report = result.report();
  EXPECT_NE(report.find("seed " + std::to_string(result.seed)), std::string::npos) << report;
  EXPECT_NE(report.find("replay: pathlock::testing::check_scenario"), std::string::npos) << report;
  EXPECT_NE(report.find(result.scenario.to_string()), std::string::npos) << report;
}

TEST(CheckLock, CatchesTheDesignNotesSchemeFourAsWritten) {
  const auto result = check_lock([] { return PathLockAdapter(builtin("path-rwa")); }, seeded(5));
  expect_caught(result, Verdict::kSafetyViolation);
  EXPECT_EQ(result.scenario.tasks.size(), 2U) << result.report();
}

TEST(CheckLock, CatchesANaivePerPathTable) {
  const auto result = check_lock([] { return PerPathTableLock(); }, seeded(6));
  expect_caught(result, Verdict::kSafetyViolation);
  EXPECT_EQ(result.scenario.tasks.size(), 2U) << result.report();
}

// A deadlock of two requests that take their paths in opposite orders needs
// an interleaving that real threads hit rarely: deterministic_test.cpp
// catches every variant exactly. A task that waits for itself deadlocks
// whatever the interleaving.
TEST(CheckLock, CatchesASchemeWhoseRequestWaitsForItselfWithAHang) {
  const impl::Scheme scheme = sim::per_role_variant();
  CheckOptions options = seeded(7);
  options.hang_timeout = std::chrono::milliseconds(300);
  const auto result = check_lock([&] { return PathLockAdapter(scheme); }, options);
  expect_caught(result, Verdict::kHang);
  ASSERT_EQ(result.outcome.waits.size(), 1U) << result.report();
  EXPECT_NE(result.outcome.waits[0].find("nothing that conflicts with it holds"), std::string::npos)
      << result.report();
}

// On real threads the scenario replays, its interleaving may not (as the
// report says): the report's run count is measured to show the failure in
// ~99% of replays, so the test allows a few.
TEST(CheckLock, AFailureReplaysFromItsReport) {
  const auto found = check_lock([] { return PathLockAdapter(builtin("path-rwa")); }, seeded(8));
  ASSERT_FALSE(found.passed());
  EXPECT_GT(found.measured_runs, 0) << found.report();
  EXPECT_EQ(found.replay_runs, detail::replay_runs_for(std::max(found.measured_failures, 1), found.measured_runs,
                                                       detail::shrink_runs(CheckOptions{})))
      << found.report();
  EXPECT_NE(found.report().find(fmt::format("showed in {} of {} run(s)", found.measured_failures, found.measured_runs)),
            std::string::npos)
      << found.report();
  CheckOptions replay;
  replay.seed = found.replay_seed;
  replay.runs_per_scenario = found.replay_runs;
  replay.hang_timeout = found.hang_timeout;
  constexpr int kTries = 5;
  std::string last;
  for (int i = 0; i < kTries; ++i) {
    const auto again = check_scenario([] { return PathLockAdapter(builtin("path-rwa")); }, found.scenario, replay,
                                      found.pauses);
    if (again.verdict == Verdict::kSafetyViolation) return;
    last = again.report();
  }
  ADD_FAILURE() << "no replay of " << kTries << " showed the safety violation; the last:\n" << last;
}

// A failure seen in f of r runs shows in a replay of n runs with probability
// 1 - (1 - f/r)^n: the replay's n is the least that makes it 99%, within the
// run limits.
TEST(CheckLock, AReplayRunsEnoughTimesForTheMeasuredFailureRate) {
  using detail::replay_runs_for;
  EXPECT_EQ(replay_runs_for(3, 3, 100), 100);        // fails every run: the floor
  EXPECT_EQ(replay_runs_for(1, 100, 100), 459);      // the least n with 0.99^n <= 0.01
  EXPECT_EQ(replay_runs_for(3, 1000, 100), 1533);    // the least n with 0.997^n <= 0.01
  EXPECT_EQ(replay_runs_for(1, 90'000, 100), 100'000);  // capped at runs_per_scenario's limit
  EXPECT_EQ(replay_runs_for(0, 100, 100), 100'000);  // never seen: as many as allowed
  for (const auto& [failures, runs] : {std::pair{1, 7}, std::pair{2, 300}, std::pair{3, 41}, std::pair{1, 5000}}) {
    const int n = replay_runs_for(failures, runs, 1);
    const double miss = std::pow(1.0 - static_cast<double>(failures) / runs, n);
    EXPECT_LE(miss, 0.01) << failures << " of " << runs << ": " << n << " runs";
    const double miss_one_fewer = std::pow(1.0 - static_cast<double>(failures) / runs, n - 1);
    EXPECT_GT(miss_one_fewer, 0.01) << failures << " of " << runs << ": " << n << " runs is more than needed";
  }
}

TEST(CheckLock, RefusesOptionsOutsideTheirLimitsNamingThem) {
  const auto refused = [](auto edit) {
    CheckOptions options;
    edit(options);
    try {
      (void)check_lock([] { return GlobalMutexLock(); }, options);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refused([](CheckOptions& o) { o.scenarios = 0; }).find("scenarios 0 is outside"), std::string::npos);
  EXPECT_NE(refused([](CheckOptions& o) { o.runs_per_scenario = 0; }).find("runs_per_scenario 0"),
            std::string::npos);
  EXPECT_NE(refused([](CheckOptions& o) { o.hang_timeout = std::chrono::milliseconds(1); }).find("hang_timeout 1 ms"),
            std::string::npos);
  EXPECT_NE(refused([](CheckOptions& o) { o.shape.max_tasks = 0; }).find("ScenarioShape tasks"), std::string::npos);
}

}  // namespace
}  // namespace pathlock::testing
