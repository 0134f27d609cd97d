// The `pathlock check` report, and the committed one in reports/generated/check.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "pathlock/impl/scheme_file.hpp"
#include "pathlock/reports/check.hpp"
#include "pathlock/sim/explorer.hpp"
#include "support/files.hpp"
#include "support/scenarios.hpp"

namespace pathlock::reports {
namespace {

using testing::slurp;

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

// reports/generated/check holds `check` on every built-in and every shipped
// scheme file (scripts/regen-reports.sh). Rerunning the full check for all
// of them is a minute's work, so this test holds the committed report to
// what can be judged quickly: it was made with the default options, every
// scheme's verdict is what a quick check gives today, and every committed
// counterexample still replays to the failure it states.
TEST(CheckReport, CommittedReportIsCurrent) {
  const std::filesystem::path dir = std::filesystem::path(PATHLOCK_SOURCE_DIR) / "reports/generated/check";
  const char* hint = "regenerate with: bash scripts/regen-reports.sh";
  const auto j = nlohmann::json::parse(slurp(dir / "check.json"));
  ASSERT_EQ(j["schema"], kCheckSchema) << hint;
  const sim::CheckOptions defaults;
  ASSERT_EQ(j["schemes"].size(), impl::builtin_schemes().size() + 4) << hint;
  for (const auto& entry : j["schemes"]) {
    const impl::Scheme scheme = impl::scheme_from_json(entry["scheme"], "check.json");
    SCOPED_TRACE(scheme.name());
    EXPECT_EQ(entry["options"]["family"], "full") << hint;
    EXPECT_EQ(entry["options"]["seed"], defaults.seed) << hint;
    EXPECT_EQ(entry["options"]["runs_per_scenario"], defaults.runs_per_scenario) << hint;
    EXPECT_EQ(entry["options"]["campaign_scenarios"], defaults.campaign_scenarios) << hint;
    const auto now = sim::check_scheme(scheme, quick());
    EXPECT_EQ(entry["verdict"], std::string(sim::to_string(now.verdict))) << hint;
    if (!entry.contains("counterexample")) continue;
    const auto& c = entry["counterexample"];
    const auto file = dir / (file_slug(scheme.name()) + ".counterexample.json");
    const sim::Scenario scenario = sim::load_scenario_file(file);
    ASSERT_TRUE(scenario.scheme_file.has_value());
    const impl::Scheme loaded = impl::load_scheme_file(*scenario.scheme_file);
    const sim::SchemePlanner planner(loaded);
    const sim::StepMachine m(planner, scenario);
    const auto replayed = sim::replay_schedule(m, c["schedule"].get<std::vector<std::uint32_t>>());
    EXPECT_EQ(std::string(sim::to_string(replayed.kind)), c["kind"]) << hint;
    EXPECT_EQ(replayed.summary, c["summary"]) << hint;
  }
  // And the Markdown matches the JSON it was written with.
  EXPECT_NE(slurp(dir / "check.md").find("# pathlock check"), std::string::npos);
}

// proofs/spin-crosscheck.md comes from `pathlock crosscheck` (CTest's
// spin_crosscheck makes the same run). SPIN's columns need SPIN; this test
// holds the committed table to what the explorer says today: one row per
// shipped scenario and scheme, every row agreeing, and the explorer's verdict
// in each row the one it gives now.
TEST(CheckReport, CommittedSpinTableIsCurrent) {
  const std::filesystem::path src = PATHLOCK_SOURCE_DIR;
  const char* hint = "regenerate with: bash scripts/regen-reports.sh";
  std::map<std::string, impl::Scheme> schemes;
  for (const auto* s : impl::builtin_schemes()) schemes.emplace(s->name(), *s);
  std::size_t scheme_count = impl::builtin_schemes().size();
  for (const auto& f : std::filesystem::directory_iterator(src / "sim/schemes")) {
    const impl::Scheme s = impl::load_scheme_file(f.path());
    schemes.insert_or_assign(s.name(), s);
    ++scheme_count;
  }
  std::map<std::string, sim::Scenario> scenarios;
  for (const auto& f : std::filesystem::directory_iterator(src / "sim/scenarios")) {
    const sim::Scenario s = sim::load_scenario_file(f.path());
    scenarios.emplace(s.name, s);
  }
  const auto verdict = [](const impl::Scheme& scheme, const sim::Scenario& scenario) {
    const sim::SchemePlanner planner(scheme);
    bool fails[2];
    for (int safety = 0; safety < 2; ++safety) {
      sim::ExploreOptions o;
      o.count_naive = false;
      o.check_safety = safety == 1;
      o.check_deadlock = safety == 0;
      fails[safety] = sim::explore(planner, scenario, o).verdict != sim::Verdict::kSafeAndDeadlockFree;
    }
    if (fails[1] && fails[0]) return std::string("violation and deadlock");
    if (fails[1]) return std::string("safety violation");
    if (fails[0]) return std::string("deadlock");
    return std::string("safe and deadlock-free");
  };
  std::istringstream table(slurp(src / "proofs/spin-crosscheck.md"));
  std::size_t rows = 0;
  for (std::string line; std::getline(table, line);) {
    if (!line.starts_with("| **")) continue;
    std::vector<std::string> cells;
    for (std::size_t at = 2; at < line.size();) {
      const auto bar = line.find(" | ", at);
      cells.push_back(line.substr(at, (bar == std::string::npos ? line.size() - 2 : bar) - at));
      if (bar == std::string::npos) break;
      at = bar + 3;
    }
    ASSERT_GE(cells.size(), 5u) << line;
    const std::string scheme = cells[0].substr(2, cells[0].size() - 4);  // **name**
    ASSERT_TRUE(schemes.count(scheme)) << scheme << "; " << hint;
    ASSERT_TRUE(scenarios.count(cells[1])) << cells[1] << "; " << hint;
    EXPECT_EQ(cells[2], verdict(schemes.at(scheme), scenarios.at(cells[1]))) << line << "\n" << hint;
    EXPECT_EQ(cells[2], cells[3]) << line;
    EXPECT_EQ(cells[4], "✓") << line;
    ++rows;
  }
  EXPECT_EQ(rows, scheme_count * scenarios.size()) << hint;
}

}  // namespace
}  // namespace pathlock::reports
