#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <fstream>

#include "pathlock/model/error.hpp"
#include "pathlock/sim/simulator.hpp"
#include "pathlock/sim/static_table.hpp"
#include "support/broken_planners.hpp"

namespace pathlock::sim {
namespace {

Schedule make_schedule(const WorkloadSpec& w, std::uint64_t seed) {
  return generate_schedule(w, workload_paths(w), seed);
}

WorkloadSpec single_path_workload(int clients = 8) {
  WorkloadSpec w;
  w.name = "single";
  w.tree = {3, 3};
  w.clients = clients;
  w.tasks = 3000;
  return w;
}

WorkloadSpec multi_path_workload() {
  WorkloadSpec w;
  w.name = "multi";
  w.tree = {3, 2};
  w.include_root = true;
  w.mix = {0.3, 0.2, 0.1, 0.2, 0.2};
  w.zipf = 0.5;
  w.clients = 8;
  w.tasks = 4000;
  return w;
}

TEST(Simulator, SinglePathWorkloadsAreSafeAndDeadlockFreeForEveryScheme) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const Schedule schedule = make_schedule(single_path_workload(), seed);
    for (const auto* scheme : impl::builtin_schemes()) {
      const RunResult r = simulate(SchemePlanner(*scheme), schedule);
      EXPECT_EQ(r.outcome, RunOutcome::kCompleted) << scheme->name() << " seed " << seed;
      EXPECT_EQ(r.metrics.tasks_completed, schedule.tasks.size());
      EXPECT_GT(r.metrics.throughput, 0);
    }
  }
}

TEST(Simulator, MultiPathWorkloadCatchesDesignNotesScheme4AndNothingElse) {
  const Schedule schedule = make_schedule(multi_path_workload(), 7);
  for (const auto* scheme : impl::builtin_schemes()) {
    const RunResult r = simulate(SchemePlanner(*scheme), schedule);
    if (scheme == &impl::path_rwa_scheme()) {
      ASSERT_EQ(r.outcome, RunOutcome::kSafetyViolation);
      ASSERT_TRUE(r.violation.has_value());
      EXPECT_FALSE(r.violation->lock_states.empty());
      EXPECT_FALSE(r.trace.empty());
    } else {
      EXPECT_EQ(r.outcome, RunOutcome::kCompleted) << scheme->name();
    }
  }
}

TEST(Simulator, BrokenVariantWithoutAncestorLocksIsCaught) {
  const testing::NoAncestorsPlanner broken(impl::path_rwa_joined_scheme());
  const RunResult r = simulate(broken, make_schedule(single_path_workload(), 1));
  ASSERT_EQ(r.outcome, RunOutcome::kSafetyViolation);
  EXPECT_NE(r.violation->why.find("are related"), std::string::npos);
  EXPECT_FALSE(r.violation->first.plan.empty());
}

TEST(Simulator, BrokenVariantInRequestOrderDeadlocks) {
  WorkloadSpec w = multi_path_workload();
  w.mix = {0, 0.2, 0, 0.8, 0};  // renames in both directions
  for (const auto* scheme : {&impl::path_rw_scheme(), &impl::path_rwa_joined_scheme()}) {
    const testing::RequestOrderPlanner broken(*scheme);
    const RunResult r = simulate(broken, make_schedule(w, 3));
    ASSERT_EQ(r.outcome, RunOutcome::kDeadlock) << scheme->name();
    ASSERT_TRUE(r.deadlock.has_value());
    EXPECT_GE(r.deadlock->cycle.size(), 1u);
    for (const auto& t : r.deadlock->cycle) EXPECT_FALSE(t.waiting_for.empty());
    EXPECT_NE(r.deadlock->dot.find("digraph"), std::string::npos);
    // The sorted plan of the same scheme on the same schedule is fine.
    EXPECT_EQ(simulate(SchemePlanner(*scheme), make_schedule(w, 3)).outcome, RunOutcome::kCompleted);
  }
}

TEST(Simulator, AFailureReplaysExactlyFromItsSchedulePrefix) {
  const Schedule schedule = make_schedule(multi_path_workload(), 7);
  const SchemePlanner planner(impl::path_rwa_scheme());
  const RunResult first = simulate(planner, schedule);
  ASSERT_EQ(first.outcome, RunOutcome::kSafetyViolation);
  ASSERT_TRUE(first.replay.has_value());
  EXPECT_LT(first.replay->tasks.size(), schedule.tasks.size());
  // Through JSON, as `pathlock replay` reads it.
  const Schedule again = schedule_from_json(schedule_to_json(*first.replay), "replay");
  const RunResult second = simulate(planner, again);
  ASSERT_EQ(second.outcome, first.outcome);
  EXPECT_EQ(second.violation->first.operation, first.violation->first.operation);
  EXPECT_EQ(second.violation->second.operation, first.violation->second.operation);
  EXPECT_EQ(second.trace, first.trace);
}

TEST(Simulator, IdenticalSeedsGiveIdenticalRuns) {
  const auto w = single_path_workload();
  const RunResult a = simulate(SchemePlanner(impl::path_rw_scheme()), make_schedule(w, 11));
  const RunResult b = simulate(SchemePlanner(impl::path_rw_scheme()), make_schedule(w, 11));
  const RunResult c = simulate(SchemePlanner(impl::path_rw_scheme()), make_schedule(w, 12));
  EXPECT_EQ(a.metrics.events, b.metrics.events);
  EXPECT_EQ(a.metrics.makespan, b.metrics.makespan);
  EXPECT_EQ(a.metrics.latency.p99, b.metrics.latency.p99);
  EXPECT_EQ(a.metrics.bypasses, b.metrics.bypasses);
  EXPECT_NE(a.metrics.makespan, c.metrics.makespan);
}

TEST(Simulator, OneClientMeansNoContentionAndFullEfficiency) {
  const Schedule s = make_schedule(single_path_workload(1), 5);
  const RunMetrics oracle = simulate_oracle(s);
  for (const auto* scheme : impl::builtin_schemes()) {
    const RunResult r = simulate(SchemePlanner(*scheme), s);
    EXPECT_EQ(r.metrics.waits, 0u) << scheme->name();
    EXPECT_DOUBLE_EQ(r.metrics.throughput, oracle.throughput) << scheme->name();
  }
}

TEST(Simulator, ObservedTableAgreesWithTheStaticOne) {
  WorkloadSpec w;
  w.tree = {2, 2};
  w.zipf = 0;
  w.mix = {0.5, 0.5, 0, 0, 0};
  w.clients = 8;
  w.tasks = 4000;
  const Schedule s = make_schedule(w, 9);
  const auto statics = analyze_static(impl::builtin_schemes(), TreeSpec{});
  for (std::size_t i = 0; i < statics.schemes.size(); ++i) {
    const auto& t = statics.schemes[i];
    const RunResult r = simulate(SchemePlanner(*t.scheme), s);
    ASSERT_EQ(r.outcome, RunOutcome::kCompleted);
    for (std::size_t c = 0; c < model::kCategoryCount; ++c) {
      const bool observed_block = r.observed[c].waits > 0;
      EXPECT_EQ(observed_block, t.verdicts[c] == model::Verdict::kBlocks)
          << t.scheme->name() << " category " << c + 1;
    }
  }
}

TEST(Simulator, FifoBoundsBypassesUnderAReadHeavyLoad) {
  // Writers are never overtaken by a request incompatible with them.
  WorkloadSpec w;
  w.tree = {2, 2};
  w.mix = {0.95, 0.05, 0, 0, 0};
  w.clients = 16;
  w.tasks = 4000;
  const RunResult r = simulate(SchemePlanner(impl::global_rw_scheme()), make_schedule(w, 4));
  ASSERT_EQ(r.outcome, RunOutcome::kCompleted);
  EXPECT_EQ(r.metrics.max_bypassed, 0u);  // S never passes a queued X on one global lock
}

TEST(Workload, ParsesAndValidates) {
  const auto w = parse_workload(R"({"name": "w", "tree": {"depth": 2, "fanout": 3},
      "mix": {"read": 1, "copy": 1}, "load": {"mode": "open", "arrival_rate": 2.5},
      "hold": {"distribution": "fixed", "mean": 0.5}, "tasks": 10})", "w.json", ".");
  EXPECT_EQ(w.tree.depth, 2);
  EXPECT_EQ(w.load, LoadMode::kOpen);
  EXPECT_EQ(w.mix.copy, 1);
  EXPECT_EQ(w.mix.write, 0);
  EXPECT_EQ(parse_workload(to_json(w).dump(), "again", ".").tasks, 10);
}

std::string workload_error(const std::string& text) {
  try {
    (void)parse_workload(text, "bad.json", ".");
  } catch (const model::InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(Workload, MalformedFilesGetErrorsThatNameTheField) {
  EXPECT_NE(workload_error("{").find("not valid JSON"), std::string::npos);
  EXPECT_NE(workload_error("[]").find("must be a JSON object"), std::string::npos);
  EXPECT_NE(workload_error(R"({"treee": 1})").find("treee: unknown field"), std::string::npos);
  EXPECT_NE(workload_error(R"({"tree": {"depth": 9}})").find("tree.depth: 9 is out of range"), std::string::npos);
  EXPECT_NE(workload_error(R"({"tree": {"depth": "3"}})").find("tree.depth: must be a whole number"), std::string::npos);
  EXPECT_NE(workload_error(R"({"mix": {"read": -1}})").find("mix.read"), std::string::npos);
  EXPECT_NE(workload_error(R"({"mix": {"read": 0}})").find("at least one weight"), std::string::npos);
  EXPECT_NE(workload_error(R"({"load": {"mode": "half"}})").find("load.mode"), std::string::npos);
  EXPECT_NE(workload_error(R"({"load": {"mode": "open", "clients": 3}})").find("only for mode \"closed\""), std::string::npos);
  EXPECT_NE(workload_error(R"({"hold": {"distribution": "pareto"}})").find("hold.distribution"), std::string::npos);
  EXPECT_NE(workload_error(R"({"tasks": 0})").find("tasks: 0 is out of range"), std::string::npos);
  EXPECT_NE(workload_error(R"({"tree": {}, "keys_file": "x"})").find("not both"), std::string::npos);
  EXPECT_NE(workload_error(R"({"zipf": 1e999})").find("number overflow"), std::string::npos);
  EXPECT_NE(workload_error(R"({"zipf": 11})").find("zipf: 11 is out of range"), std::string::npos);
}

TEST(Workload, KeysFileErrorsNameTheLine) {
  const auto dir = std::filesystem::temp_directory_path() / "pathlock-keys-test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "keys.txt") << "a/b/c\nphotos/2024/x.jpg\n\na//b\n";
  }
  WorkloadSpec w;
  w.keys_file = dir / "keys.txt";
  try {
    (void)workload_paths(w);
    FAIL();
  } catch (const model::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("keys.txt:4: key has an empty component"), std::string::npos) << e.what();
  }
  {
    std::ofstream(dir / "keys.txt") << "a/b/c\nphotos/2024/x.jpg\n";
  }
  const auto paths = workload_paths(w);
  // a, a/b, a/b/c, photos, photos/2024, photos/2024/x.jpg; shallow first
  ASSERT_EQ(paths.size(), 6u);
  EXPECT_EQ(paths[0].str(), "/a");
  EXPECT_EQ(paths.back().depth(), 3u);
  std::filesystem::remove_all(dir);
}

RC_GTEST_PROP(RngProps, BelowIsInRangeAndSeedsReplay, (std::uint64_t seed, std::uint32_t n)) {
  RC_PRE(n > 0u);
  Rng a(seed), b(seed);
  for (int i = 0; i < 20; ++i) {
    const auto x = a.below(n);
    RC_ASSERT(x < n);
    RC_ASSERT(x == b.below(n));
  }
}

TEST(Rng, ZipfFavoursLowRanks) {
  Rng rng(1);
  const auto z = zipf_distribution(10, 1.0);
  std::array<int, 10> counts{};
  for (int i = 0; i < 20000; ++i) ++counts[z(rng)];
  EXPECT_GT(counts[0], counts[1]);
  EXPECT_GT(counts[1], counts[9]);
  // P(0) = 1 / H(10) = 0.3414 for s = 1.
  EXPECT_NEAR(counts[0] / 20000.0, 0.3414, 0.02);
}

}  // namespace
}  // namespace pathlock::sim

namespace pathlock::sim {
namespace {

TEST(Simulator, AReusedSimulatorGivesWhatAFreshOneGives) {
  const SchemePlanner planner(impl::path_rwa_scheme());
  Simulator reused(planner);
  WorkloadSpec small = multi_path_workload();
  small.tasks = 50;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const Schedule s = make_schedule(seed % 2 ? small : multi_path_workload(), seed);
    const RunResult fresh = simulate(planner, s);
    const RunResult& again = reused.run(s);
    ASSERT_EQ(again.outcome, fresh.outcome) << seed;
    EXPECT_EQ(again.metrics.events, fresh.metrics.events) << seed;
    EXPECT_EQ(again.metrics.makespan, fresh.metrics.makespan) << seed;
    EXPECT_EQ(again.metrics.bypasses, fresh.metrics.bypasses) << seed;
    EXPECT_EQ(again.trace, fresh.trace) << seed;
  }
}

}  // namespace
}  // namespace pathlock::sim
