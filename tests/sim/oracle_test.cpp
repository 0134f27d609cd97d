// The oracle admission policy against its recurrence (sim/oracle.hpp).
#include <gtest/gtest.h>

#include "pathlock/sim/oracle.hpp"

namespace pathlock::sim {
namespace {

WorkloadSpec contended_workload(LoadMode load) {
  WorkloadSpec w;
  w.name = "oracle";
  w.tree = {3, 2};
  w.include_root = true;
  w.mix = {0.3, 0.2, 0.1, 0.2, 0.2};
  w.zipf = 0.8;
  w.load = load;
  w.clients = 8;
  w.tasks = 3000;
  return w;
}

TEST(Oracle, ItsRunsAreWhatItsRecurrenceGives) {
  for (const LoadMode load : {LoadMode::kClosed, LoadMode::kOpen}) {
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
      const WorkloadSpec w = contended_workload(load);
      const Schedule schedule = generate_schedule(w, workload_paths(w), seed);
      OracleTrace trace;
      const RunMetrics m = simulate_oracle(schedule, &trace);
      EXPECT_EQ(m.tasks_completed, schedule.tasks.size());
      EXPECT_EQ(judge_oracle_run(schedule, trace), std::nullopt) << "seed " << seed;
      // The schedule is contended: some task waited, so the judge had something to judge.
      std::size_t waited = 0;
      for (std::size_t t = 0; t < trace.start.size(); ++t) waited += trace.start[t] > trace.arrival[t];
      EXPECT_GT(waited, 0U) << "seed " << seed;
    }
  }
}

// The judge sees each way the event loop can go wrong.
class OracleJudge : public ::testing::Test {
 protected:
  void SetUp() override {
    const WorkloadSpec w = contended_workload(LoadMode::kClosed);
    schedule_ = generate_schedule(w, workload_paths(w), 5);
    simulate_oracle(schedule_, &trace_);
    ASSERT_EQ(judge_oracle_run(schedule_, trace_), std::nullopt);
  }
  // The first task (in arrival order) that waited.
  std::uint32_t first_waiter() const {
    for (const std::uint32_t t : trace_.arrival_order) {
      if (trace_.start[t] > trace_.arrival[t]) return t;
    }
    return 0;
  }
  Schedule schedule_;
  OracleTrace trace_;
};

TEST_F(OracleJudge, ReportsATaskAdmittedWhileAConflictingOneRuns) {
  const std::uint32_t t = first_waiter();
  trace_.start[t] = trace_.arrival[t];
  trace_.end[t] = trace_.start[t] + schedule_.tasks[t].hold;
  const auto why = judge_oracle_run(schedule_, trace_);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("it conflicts with task"), std::string::npos) << *why;
}

TEST_F(OracleJudge, ReportsATaskThatWaitedForNothing) {
  std::uint32_t t = 0;
  for (const std::uint32_t u : trace_.arrival_order) {
    if (trace_.start[u] == trace_.arrival[u]) {
      t = u;
      break;
    }
  }
  trace_.start[t] += 0.5;
  const auto why = judge_oracle_run(schedule_, trace_);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find(std::to_string(schedule_.tasks[t].id)), std::string::npos) << *why;
}

TEST_F(OracleJudge, ReportsAMissingTaskAndAWrongArrival) {
  OracleTrace short_trace = trace_;
  short_trace.arrival_order.pop_back();
  EXPECT_TRUE(judge_oracle_run(schedule_, short_trace).has_value());
  trace_.arrival[trace_.arrival_order.front()] += 1.0;
  const auto why = judge_oracle_run(schedule_, trace_);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("load model"), std::string::npos) << *why;
}

}  // namespace
}  // namespace pathlock::sim
