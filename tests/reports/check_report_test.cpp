// The `pathlock check` report: what it says, and that it says it whatever -j is.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <vector>

#include "pathlock/io/scheme_file.hpp"
#include "pathlock/reports/check.hpp"
#include "pathlock/sim/explorer.hpp"
#include "support/check_markdown.hpp"
#include "support/scenarios.hpp"

namespace pathlock::reports {
namespace {

using testing::expect_markdown_matches_json;

sim::CheckOptions quick() {
  sim::CheckOptions o;
  o.family = sim::FamilySize::kQuick;
  o.campaign_scenarios = 3;
  o.runs_per_scenario = 10;
  return o;
}

TEST(CheckReport, SaysTheVerdictTheEvidenceAndHowToReplay) {
  const impl::Scheme broken = testing::request_order_variant();
  const impl::Scheme& fine = impl::path_rwa_joined_scheme();
  const auto bad = sim::check_scheme(broken, quick());
  const auto good = sim::check_scheme(fine, quick());
  const std::vector<CheckedScheme> checked{{&broken, &bad}, {&fine, &good}};
  const std::string md = render_markdown(check_document(checked, Pictures::kDraw));
  EXPECT_NE(md.find("| **request-order** | ✗ fail |"), std::string::npos) << md;
  EXPECT_NE(md.find("| **path-rwa-joined** | ✓ pass |"), std::string::npos) << md;
  EXPECT_NE(md.find("### Minimal counterexample"), std::string::npos) << md;
  EXPECT_NE(md.find("fewest preemptions: 1"), std::string::npos) << md;
  EXPECT_NE(md.find("waits for"), std::string::npos) << md;
  EXPECT_NE(md.find("campaign: pct (d=2)"), std::string::npos) << md;
  const auto j = check_json(checked);
  EXPECT_EQ(j["schema"], kCheckSchema);
  EXPECT_EQ(j["schemes"][0]["verdict"], "fail");
  EXPECT_EQ(j["schemes"][0]["counterexample"]["schedule"].get<std::vector<std::uint32_t>>(),
            bad.counterexample->trace.schedule);
  EXPECT_FALSE(j["schemes"][1].contains("counterexample"));
  std::string schedule;
  for (const auto t : bad.counterexample->trace.schedule) schedule += (schedule.empty() ? "" : ",") + std::to_string(t);
  EXPECT_EQ(replay_command(bad, "out"), "pathlock explore out/request-order.counterexample.json --schedule " + schedule);
  EXPECT_EQ(replay_command(good, "out"), "");
  EXPECT_NE(md.find("![request-order: the wait-for cycle](request-order.cycle.svg)"), std::string::npos) << md;
  EXPECT_EQ(render_markdown(check_document(checked, Pictures::kSkip)).find(".svg"), std::string::npos);
  EXPECT_EQ(file_slug("path-rwa/deepest-first"), "path-rwa-deepest-first");
  // The picture names every task of the cycle and the lock each waits for.
  const std::string svg = cycle_svg(bad.counterexample->trace.cycle_nodes);
  ASSERT_EQ(bad.counterexample->trace.cycle_nodes.size(), 2u);
  for (const auto& node : bad.counterexample->trace.cycle_nodes) {
    EXPECT_NE(svg.find(">" + node.task + "<"), std::string::npos) << svg;
    EXPECT_NE(svg.find("waits for " + node.waits_for), std::string::npos) << svg;
  }
  std::size_t arrows = 0;
  for (auto at = svg.find("<line"); at != std::string::npos; at = svg.find("<line", at + 1)) ++arrows;
  EXPECT_EQ(arrows, 2u);

}

TEST(CheckReport, TheMarkdownStatesEachVerdictAndEachRowsPowerAsTheResultHasThem) {
  const impl::Scheme broken = testing::request_order_variant();
  const impl::Scheme& fine = impl::path_rwa_joined_scheme();
  const impl::Scheme& unjudged = *impl::find_builtin_scheme("global-rw");
  sim::CheckOptions nothing = quick();
  nothing.family = sim::FamilySize::kNone;
  nothing.campaign_scenarios = 0;
  const auto bad = sim::check_scheme(broken, quick());
  const auto good = sim::check_scheme(fine, quick());
  const auto empty = sim::check_scheme(unjudged, nothing);
  ASSERT_EQ(empty.verdict, sim::CheckVerdict::kInconclusive);
  const std::vector<CheckedScheme> checked{{&broken, &bad}, {&fine, &good}, {&unjudged, &empty}};
  const std::string md = render_markdown(check_document(checked, Pictures::kSkip));
  const auto j = check_json(checked);
  expect_markdown_matches_json(md, j);
  // And the JSON says what the results say.
  ASSERT_EQ(j["schemes"].size(), 3u);
  for (std::size_t i = 0; i < checked.size(); ++i) {
    const auto& r = *checked[i].result;
    const auto& s = j["schemes"][i];
    EXPECT_EQ(s["verdict"], std::string(sim::to_string(r.verdict)));
    EXPECT_EQ(s["static"]["status"], std::string(sim::to_string(r.static_status)));
    for (std::size_t p = 0; p < r.family.size(); ++p) {
      EXPECT_EQ(s["family"][p]["states"], r.family[p].states);
      EXPECT_EQ(s["family"][p]["status"], std::string(sim::to_string(r.family[p].status)));
    }
    for (std::size_t c = 0; c < r.campaigns.size(); ++c) {
      EXPECT_EQ(s["campaigns"][c]["runs"], r.campaigns[c].runs);
      EXPECT_EQ(s["campaigns"][c]["status"], std::string(sim::to_string(r.campaigns[c].status)));
    }
  }
  // The row with no power is never shown as a pass.
  EXPECT_NE(md.find("| family | not explored (--family none) | 0 scenarios | 0 | – no power |"), std::string::npos)
      << md;
}

TEST(CheckReport, IsTheSameWhateverTheNumberOfWorkerThreads) {
  const impl::Scheme broken = testing::request_order_variant();
  const impl::Scheme& unsafe = *impl::find_builtin_scheme("path-rwa");
  for (const impl::Scheme* scheme : {&broken, &unsafe}) {
    std::vector<std::string> dumps;
    for (const std::size_t jobs : {std::size_t{1}, std::size_t{2}, std::size_t{3}}) {
      sim::CheckOptions o = quick();
      o.campaign_scenarios = 8;
      o.jobs = jobs;
      const auto r = sim::check_scheme(*scheme, o);
      const CheckedScheme one[] = {{scheme, &r}};
      dumps.push_back(check_json(one).dump(1));
    }
    EXPECT_EQ(dumps[0], dumps[1]) << scheme->name();
    EXPECT_EQ(dumps[0], dumps[2]) << scheme->name();
  }
}

}  // namespace
}  // namespace pathlock::reports
