// The committed `pathlock check` report in reports/generated/check, and the
// committed SPIN table, against today's code.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>

#include "pathlock/io/scheme_file.hpp"
#include "pathlock/reports/check.hpp"
#include "pathlock/sim/explorer.hpp"
#include "support/check_markdown.hpp"
#include "support/files.hpp"

namespace pathlock::reports {
namespace {

using testing::expect_markdown_matches_json;
using testing::json_statuses;
using testing::slurp;

// The family figures of `parts` for one scheme, explored afresh the way check
// explores them; and the first failing scenario among them.
struct FreshFamily {
  std::map<std::string, std::array<std::uint64_t, 6>> parts;  // scenarios, states, transitions, violations, deadlocks, incomplete
  std::optional<sim::Scenario> first_failure;
};

FreshFamily explore_parts(const impl::Scheme& scheme, const std::vector<sim::FamilyPart>& parts,
                          std::uint64_t max_states) {
  FreshFamily out;
  const sim::SchemePlanner planner(scheme);
  sim::ExploreOptions eo;
  eo.count_naive = false;
  eo.shortest_counterexample = false;
  eo.max_states = max_states;
  for (const auto& fs : sim::scenario_family(sim::FamilySize::kFull)) {
    if (std::find(parts.begin(), parts.end(), fs.part) == parts.end()) continue;
    const auto er = sim::explore(planner, fs.scenario, eo);
    auto& f = out.parts[std::string(sim::to_string(fs.part))];
    f[0] += 1;
    f[1] += er.states;
    f[2] += er.transitions;
    f[3] += er.verdict == sim::Verdict::kSafetyViolation;
    f[4] += er.verdict == sim::Verdict::kDeadlock;
    f[5] += er.verdict == sim::Verdict::kIncomplete;
    const bool failed = er.verdict == sim::Verdict::kSafetyViolation || er.verdict == sim::Verdict::kDeadlock;
    if (failed && !out.first_failure) out.first_failure = fs.scenario;
  }
  return out;
}

// reports/generated/check holds `check` on every built-in and every shipped
// scheme file (scripts/regen-reports.sh). The full rerun is a minute of CPU
// time, so this test recomputes a documented subset at the committed
// options and compares it field by field:
//   - the static table: every figure and its status;
//   - every campaign: runs, failures, bounds, status, first failure (a check
//     with the committed seed, scenarios and runs, and no family);
//   - the family parts singles, pairs and sequences of every scheme, and
//     triples of the schemes whose committed triples have at most 2 million
//     states (the global locks): every count and status, and the first
//     failing scenario when the counterexample was found there;
//   - a counterexample found by a campaign: the whole counterexample;
//   - every counterexample replays to the failure it states;
//   - the verdict follows from the row statuses, and the Markdown says what
//     the JSON says (verdicts, statuses, counts).
TEST(CheckReport, CommittedReportIsCurrent) {
  const std::filesystem::path dir = std::filesystem::path(PATHLOCK_SOURCE_DIR) / "reports/generated/check";
  const char* hint = "regenerate with: bash scripts/regen-reports.sh";
  const auto j = nlohmann::json::parse(slurp(dir / "check.json"));
  ASSERT_EQ(j["schema"], kCheckSchema) << hint;
  EXPECT_EQ(j["thresholds"]["weak_miss_bound"], sim::kWeakMissBound) << hint;
  EXPECT_EQ(j["thresholds"]["min_random_runs_per_scenario"], sim::kMinRandomRunsPerScenario) << hint;
  const sim::CheckOptions defaults;
  ASSERT_EQ(j["schemes"].size(), impl::builtin_schemes().size() + 4) << hint;
  for (const auto& entry : j["schemes"]) {
    const impl::Scheme scheme = io::scheme_from_json(entry["scheme"], "check.json");
    SCOPED_TRACE(scheme.name());
    const auto& jo = entry["options"];
    EXPECT_EQ(jo["family"], "full") << hint;
    EXPECT_EQ(jo["seed"], defaults.seed) << hint;
    EXPECT_EQ(jo["runs_per_scenario"], defaults.runs_per_scenario) << hint;
    EXPECT_EQ(jo["campaign_scenarios"], defaults.campaign_scenarios) << hint;
    sim::CheckOptions o;
    o.family = sim::FamilySize::kNone;
    o.seed = jo["seed"];
    o.campaign_scenarios = jo["campaign_scenarios"];
    o.runs_per_scenario = jo["runs_per_scenario"];
    o.pct_depths = jo["pct_depths"].get<std::vector<std::size_t>>();
    o.max_states = jo["max_states"];
    const auto now = sim::check_scheme(scheme, o);

    const auto& st = entry["static"];
    EXPECT_EQ(st["pairs"], now.statics.pairs) << hint;
    EXPECT_EQ(st["conflicting_pairs"], now.statics.conflicting_pairs) << hint;
    EXPECT_EQ(st["unsafe_pairs"], now.statics.unsafe_pairs) << hint;
    EXPECT_EQ(st["over_blocked_pairs"], now.statics.over_blocked_pairs) << hint;
    EXPECT_EQ(st["score8"][0], now.statics.score8.achieved) << hint;
    EXPECT_EQ(st["score4"][0], now.statics.score4.achieved) << hint;
    EXPECT_EQ(st["status"], std::string(sim::to_string(now.static_status))) << hint;

    ASSERT_EQ(entry["campaigns"].size(), now.campaigns.size()) << hint;
    for (std::size_t i = 0; i < now.campaigns.size(); ++i) {
      const auto& c = entry["campaigns"][i];
      const auto& f = now.campaigns[i];
      SCOPED_TRACE(f.scheduler);
      EXPECT_EQ(c["scheduler"], f.scheduler) << hint;
      EXPECT_EQ(c["runs"], f.runs) << hint;
      EXPECT_EQ(c["scenarios"], now.campaign_scenarios.size()) << hint;
      EXPECT_EQ(c["failing_runs"], f.failing_runs) << hint;
      EXPECT_EQ(c["violations"], f.violations) << hint;
      EXPECT_EQ(c["deadlocks"], f.deadlocks) << hint;
      EXPECT_EQ(c["scenarios_failed"], f.scenarios_failed) << hint;
      EXPECT_EQ(c["status"], std::string(sim::to_string(f.status))) << hint;
      if (f.depth) {
        EXPECT_DOUBLE_EQ(c["min_bound"].get<double>(), f.min_bound) << hint;
        EXPECT_DOUBLE_EQ(c["max_bound"].get<double>(), f.max_bound) << hint;
        EXPECT_DOUBLE_EQ(c["worst_miss"].get<double>(), f.worst_miss) << hint;
      }
      EXPECT_EQ(c.contains("first_failure"), f.first_failure.has_value()) << hint;
      if (f.first_failure && c.contains("first_failure")) {
        EXPECT_EQ(c["first_failure"]["run_seed"], f.first_failure->run_seed) << hint;
        EXPECT_EQ(c["first_failure"]["schedule"].get<std::vector<std::uint32_t>>(), f.first_failure->schedule) << hint;
      }
    }

    std::vector<sim::FamilyPart> parts{sim::FamilyPart::kSingles, sim::FamilyPart::kPairs, sim::FamilyPart::kSequences};
    for (const auto& p : entry["family"]) {
      if (p["part"] == "triples" && p["states"].get<std::uint64_t>() <= 2'000'000) {
        parts.push_back(sim::FamilyPart::kTriples);
      }
    }
    const FreshFamily fresh = explore_parts(scheme, parts, o.max_states);
    for (const auto& p : entry["family"]) {
      const auto it = fresh.parts.find(p["part"].get<std::string>());
      if (it == fresh.parts.end()) continue;
      SCOPED_TRACE(it->first);
      const auto& f = it->second;
      EXPECT_EQ(p["scenarios"], f[0]) << hint;
      EXPECT_EQ(p["states"], f[1]) << hint;
      EXPECT_EQ(p["transitions"], f[2]) << hint;
      EXPECT_EQ(p["violations"], f[3]) << hint;
      EXPECT_EQ(p["deadlocks"], f[4]) << hint;
      EXPECT_EQ(p["incomplete"], f[5]) << hint;
      EXPECT_EQ(p["status"], f[3] + f[4] > 0 ? "fail" : f[5] > 0 ? "incomplete" : "pass") << hint;
    }

    // The verdict follows from the rows: any failure fails; else an
    // incomplete row, or no family part or campaign passing, is inconclusive.
    const auto statuses = json_statuses(entry);
    const bool fails = std::count(statuses.begin(), statuses.end(), "fail") > 0;
    const bool incomplete = std::count(statuses.begin(), statuses.end(), "incomplete") > 0;
    const bool dynamic_pass = std::count(statuses.begin() + 1, statuses.end(), "pass") > 0;
    EXPECT_EQ(entry["verdict"], fails ? "fail" : incomplete || !dynamic_pass ? "inconclusive" : "pass") << hint;

    if (!entry.contains("counterexample")) continue;
    const auto& c = entry["counterexample"];
    const std::string found_by = c["found_by"];
    if (found_by.find("campaign") != std::string::npos) {
      ASSERT_TRUE(now.counterexample.has_value()) << hint;
      EXPECT_EQ(c["found_by"], now.counterexample->found_by) << hint;
      EXPECT_EQ(c["scenario"], sim::to_json(now.counterexample->scenario)) << hint;
      EXPECT_EQ(c["schedule"].get<std::vector<std::uint32_t>>(), now.counterexample->trace.schedule) << hint;
    } else if (found_by.starts_with("family (")) {
      const std::string part = found_by.substr(8, found_by.size() - 9);
      if (fresh.parts.count(part) && fresh.first_failure) {
        EXPECT_EQ(c["original"]["tasks"], sim::to_json(*fresh.first_failure)["tasks"]) << hint;
      }
    }
    const auto file = dir / (file_slug(scheme.name()) + ".counterexample.json");
    const sim::Scenario scenario = sim::load_scenario_file(file);
    ASSERT_TRUE(scenario.scheme_file.has_value());
    const impl::Scheme loaded = io::load_scheme_file(*scenario.scheme_file);
    const sim::SchemePlanner planner(loaded);
    const sim::StepMachine m(planner, scenario);
    const auto replayed = sim::replay_schedule(m, c["schedule"].get<std::vector<std::uint32_t>>());
    EXPECT_EQ(std::string(sim::to_string(replayed.kind)), c["kind"]) << hint;
    EXPECT_EQ(replayed.summary, c["summary"]) << hint;
  }
  expect_markdown_matches_json(slurp(dir / "check.md"), j);
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
    const impl::Scheme s = io::load_scheme_file(f.path());
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
