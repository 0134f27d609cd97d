#include <gtest/gtest.h>

#include "support/files.hpp"

#include <fstream>
#include <sstream>

#include "pathlock/reports/simulate.hpp"

namespace pathlock::reports {
namespace {

using pathlock::testing::slurp;

sim::CampaignSpec small_campaign(std::uint64_t seed) {
  auto spec = sim::default_campaign();
  spec.seed = seed;
  for (auto* w : {&spec.sweep, &spec.probe, &spec.multipath}) w->tasks = 1500;
  spec.levels = {1, 4, 16};
  return spec;
}

const sim::CampaignResult& campaign() {
  static const sim::CampaignResult r = sim::run_campaign(small_campaign(1));
  return r;
}

TEST(Campaign, DefaultCampaignMeetsTheDoneCriteria) {
  // The defaults themselves, not a smaller copy.
  const auto r = sim::run_campaign(sim::default_campaign());
  ASSERT_EQ(r.schemes.size(), impl::builtin_schemes().size());
  for (const auto& sc : r.schemes) {
    EXPECT_EQ(sc.single_path_violations, 0u) << sc.scheme->name();
    EXPECT_EQ(sc.single_path_deadlocks, 0u) << sc.scheme->name();
    EXPECT_TRUE(sc.observed_matches_static) << sc.scheme->name();
    for (const auto& p : sc.sweep) {
      EXPECT_EQ(p.outcome, sim::RunOutcome::kCompleted);
      EXPECT_GT(p.metrics.throughput, 0);
      EXPECT_GT(p.efficiency, 0);
    }
    // The multi-path run fails only for seed 000's scheme 4, as the static
    // table predicts.
    const bool unsafe = sc.scheme->name() == "path-rwa";
    EXPECT_EQ(sc.multipath.result.outcome,
              unsafe ? sim::RunOutcome::kSafetyViolation : sim::RunOutcome::kCompleted)
        << sc.scheme->name();
  }
}

TEST(Campaign, IdenticalSeedsGiveIdenticalReports) {
  const auto again = sim::run_campaign(small_campaign(1));
  EXPECT_EQ(simulate_json(again).dump(), simulate_json(campaign()).dump());
  EXPECT_EQ(render_markdown(simulate_document(again, true)), render_markdown(simulate_document(campaign(), true)));
  const auto other = sim::run_campaign(small_campaign(2));
  EXPECT_NE(simulate_json(other).dump(), simulate_json(campaign()).dump());
}

TEST(Campaign, MoreClientsMeanMoreContentionForTheGlobalMutex) {
  const auto& mutex = campaign().schemes.front();
  ASSERT_EQ(mutex.scheme->name(), "global-mutex");
  EXPECT_DOUBLE_EQ(mutex.sweep.front().efficiency, 1.0);  // one client: nothing to contend with
  EXPECT_LT(mutex.sweep.back().efficiency, 0.5);
  EXPECT_GT(mutex.sweep.back().metrics.latency.p99, mutex.sweep.front().metrics.latency.p99);
}

TEST(SimulateReport, JsonHasEverySchemeRunAndItsSeed) {
  const auto j = simulate_json(campaign());
  EXPECT_EQ(j.at("schema"), kSimulateSchema);
  EXPECT_EQ(j.at("seed"), 1);
  EXPECT_EQ(j.at("oracle").size(), 3u);
  for (const auto& s : j.at("schemes")) {
    EXPECT_EQ(s.at("sweep").size(), 3u);
    EXPECT_EQ(s.at("categories").size(), 6u);
    for (const auto& p : s.at("sweep")) EXPECT_TRUE(p.at("seed").is_number_unsigned());
    const bool failed = s.at("multipath").at("outcome") != "completed";
    EXPECT_EQ(s.at("replay_file").is_string(), failed);
  }
}

TEST(SimulateReport, WritesReportsPlotsAndReplayFiles) {
  const auto dir = std::filesystem::temp_directory_path() / "pathlock-simulate-test";
  std::filesystem::remove_all(dir);
  const auto files = write_simulate(campaign(), dir, Plots::kDraw);
  for (const char* f : {"simulate.md", "simulate.html", "simulate.json", "throughput.svg", "p99.svg",
                        "efficiency.svg", "replay-path-rwa.json"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
  }
  std::ifstream svg(dir / "throughput.svg");
  std::stringstream ss;
  ss << svg.rdbuf();
  EXPECT_NE(ss.str().find("<svg"), std::string::npos);
  EXPECT_NE(ss.str().find("path-rwa-joined"), std::string::npos);  // a series per scheme
  std::ifstream replay(dir / "replay-path-rwa.json");
  const auto j = nlohmann::json::parse(replay);
  EXPECT_EQ(j.at("schema"), kReplaySchema);
  EXPECT_EQ(j.at("outcome"), "safety violation");
  std::filesystem::remove_all(dir);
}


// reports/generated/simulate holds the default campaign's report; README.md
// quotes its summary. Both must be what the code computes today.
TEST(SimulateReport, CommittedReportAndReadmeAreUpToDate) {
  const auto r = sim::run_campaign(sim::default_campaign());
  const std::filesystem::path src(PATHLOCK_SOURCE_DIR);
  const char* hint = "regenerate with: build/release/reports/pathlock simulate --out reports/generated/simulate";
  EXPECT_EQ(slurp(src / "reports/generated/simulate/simulate.md"), render_markdown(simulate_document(r, true))) << hint;
  EXPECT_EQ(slurp(src / "reports/generated/simulate/simulate.json"), simulate_json(r).dump(2) + "\n") << hint;
  Document summary;
  summary.table(simulate_summary(r));
  EXPECT_NE(slurp(src / "README.md").find(render_markdown(summary)), std::string::npos)
      << "README.md should quote:\n" << render_markdown(summary);
}

}  // namespace
}  // namespace pathlock::reports
