// The lock that ships (BasicPathLock on the deterministic runtime), searched
// exhaustively within a preemption bound: after every step no two
// conflicting requests are granted at once (judged by the model), and at
// the end no lock entry is active and no acquisition waiting. Each search
// also shows that it reached the waiter's spin and sleep phases.
#include <gtest/gtest.h>

#include "pathlock/sim/runtime/strategies/dfs_strategy.hpp"
#include "pathlock/sim/runtime/strategies/pct_strategy.hpp"
#include "pathlock/sim/runtime/strategies/random_strategy.hpp"
#include "pathlock/sim/runtime/strategies/replay_strategy.hpp"
#include "sim/runtime_path_lock_harness.hpp"

namespace pathlock::sim::runtime::testing {

Searched search(const char* what, const std::function<Program()>& make, std::size_t bound) {
  DfsStrategy dfs(bound);
  Searched s;
  ExploreOptions options;
  options.max_runs = 200'000;
  options.on_run = [&](const RunResult& run) { s.coverage.add(run); };
  const auto start = std::chrono::steady_clock::now();
  s.result = explore(make, dfs, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("PathLock, %s, <= %zu preemptions: %s, %zu schedules in %.2f s "
              "(longest %zu steps; a waiter spun in %zu, slept in %zu)\n",
              what, bound, std::string(outcome_name(s.result.outcome)).c_str(), s.result.runs, seconds,
              s.coverage.longest, s.coverage.spun, s.coverage.slept);
  return s;
}

std::string describe_failure(const ExploreResult& r) {
  if (!r.first_bad_run) return {};
  return r.first_bad_run->detail + "\nschedule: " + format_schedule(r.first_bad_run->schedule) + "\n" +
         format_trace(*r.first_bad_run);
}

namespace {

using model::Path;

model::Request write(const char* p) { return model::write(Path::parse(p)).request(); }
model::Request read(const char* p) { return model::read(Path::parse(p)).request(); }

void expect_passes_and_waits(const Searched& s) {
  EXPECT_EQ(s.result.outcome, ExploreOutcome::kAllPassed) << describe_failure(s.result);
  EXPECT_GT(s.coverage.spun, 0u);
  EXPECT_GT(s.coverage.slept, 0u);
}

// (Within one under a sanitizer: kTwoPreemptionsOrOneSanitized.)
TEST(RuntimePathLock, TwoConflictingWritesWithinTwoPreemptions) {
  expect_passes_and_waits(search("write /a, write /a/b", [] {
    return calls({acquire(write("/a")), acquire(write("/a/b"))});
  }, kTwoPreemptionsOrOneSanitized));
}

TEST(RuntimePathLock, TwoWritesAndAReaderWithinOnePreemption) {
#ifdef PATHLOCK_SANITIZED
  GTEST_SKIP() << "a 3-thread exhaustive search (~24,000 runs): the release build runs it; too slow under a sanitizer";
#endif
  expect_passes_and_waits(search("write /a, write /a/b, read /a/b", [] {
    return calls({acquire(write("/a")), acquire(write("/a/b")), acquire(read("/a/b"))});
  }, 1));
}

// Random and PCT runs of the lock pass too, and any run of the lock replays
// step for step from its schedule (the lock is deterministic under the
// runtime: its thread_local buffers are per logical thread, its ids come
// from the platform).
TEST(RuntimePathLock, SeededRunsPassAndReplayStepForStep) {
  const auto make = [] { return calls({acquire(write("/a")), acquire(write("/a/b")), acquire(read("/a/b"))}); };
  std::vector<RunResult> runs;
  ExploreOptions options;
  options.max_runs = 100;
  options.on_run = [&](const RunResult& run) {
    if (runs.size() < 3) runs.push_back(run);
  };
  RandomStrategy random(7);
  EXPECT_EQ(explore(make, random, options).outcome, ExploreOutcome::kRunLimitHit);
  PctStrategy pct(7, 3, 200);
  EXPECT_EQ(explore(make, pct, options).outcome, ExploreOutcome::kRunLimitHit);
  ASSERT_EQ(runs.size(), 3u);
  for (const RunResult& run : runs) {
    ReplayStrategy replay(run.schedule);
    ASSERT_EQ(replay.begin_run(3), RunStart::kStarted);
    const RunResult again = run_program(make(), replay, {});
    EXPECT_EQ(again.outcome, RunOutcome::kFinished);
    ASSERT_EQ(again.trace.size(), run.trace.size());
    for (std::size_t i = 0; i < run.trace.size(); ++i) {
      EXPECT_EQ(again.trace[i].thread, run.trace[i].thread) << "step " << i;
      EXPECT_EQ(again.trace[i].where.line(), run.trace[i].where.line()) << "step " << i;
    }
  }
}

// The same check on the same program catches a call that does not lock.
TEST(RuntimePathLock, TheCheckCatchesACallThatSkipsTheLock) {
  // Its guard is a grant of an unrelated free path, entered as /a/b's.
  const Call fake{write("/a/b"), [](Shared& s, const model::Request&) {
                    return s.lock.try_acquire(model::write(Path::parse("/z")).request());
                  }};
  DfsStrategy dfs(1);
  const ExploreResult r = explore([&] { return calls({acquire(write("/a")), fake}); }, dfs, {});
  ASSERT_EQ(r.outcome, ExploreOutcome::kFailureFound);
  EXPECT_NE(r.first_bad_run->detail.find("are granted at once"), std::string::npos) << r.first_bad_run->detail;
}

}  // namespace
}  // namespace pathlock::sim::runtime::testing
