#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/files.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
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
    EXPECT_EQ(sc.sweep_and_probe.completed, sc.sweep_and_probe.runs()) << sc.scheme->name();
    EXPECT_TRUE(sc.observed_matches_static) << sc.scheme->name();
    for (const auto& p : sc.sweep) {
      EXPECT_EQ(p.outcome, sim::RunOutcome::kCompleted);
      EXPECT_GT(p.metrics.throughput, 0);
      EXPECT_GT(p.efficiency, 0);
    }
    // The multi-path run fails only for path-rwa, as the static table
    // predicts (it is the one scheme with unsafe multi-path pairs).
    const bool unsafe = sc.scheme->name() == "path-rwa";
    EXPECT_EQ(sc.multipath.result.outcome,
              unsafe ? sim::RunOutcome::kSafetyViolation : sim::RunOutcome::kCompleted)
        << sc.scheme->name();
  }
}

TEST(Campaign, IdenticalSeedsGiveIdenticalReports) {
  const auto again = sim::run_campaign(small_campaign(1));
  EXPECT_EQ(simulate_json(again).dump(), simulate_json(campaign()).dump());
  EXPECT_EQ(render_markdown(simulate_document(again, Plots::kDraw, "out")),
            render_markdown(simulate_document(campaign(), Plots::kDraw, "out")));
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


// The text of README.md's section on the simulation campaign.
std::string readme_simulate_section() {
  const std::string readme = slurp(std::filesystem::path(PATHLOCK_SOURCE_DIR) / "README.md");
  const auto start = readme.find("## The main job: the simulation campaign");
  if (start == std::string::npos) return {};
  const auto end = readme.find("\n## ", start + 1);
  return readme.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// reports/generated/simulate holds the default campaign's report; README.md
// quotes its summary in the simulation section, and states in words what the
// summary shows. All of it must be what the code computes today.
TEST(SimulateReport, CommittedReportAndReadmeAreUpToDate) {
  const auto r = sim::run_campaign(sim::default_campaign());
  const std::filesystem::path src(PATHLOCK_SOURCE_DIR);
  const char* hint = "regenerate with: bash scripts/regen-reports.sh";
  const auto doc = simulate_document(r, Plots::kDraw, {});
  EXPECT_EQ(slurp(src / "reports/generated/simulate/simulate.md"), render_markdown(doc)) << hint;
  EXPECT_EQ(slurp(src / "reports/generated/simulate/simulate.json"), simulate_json(r).dump(2) + "\n") << hint;
  const std::string section = readme_simulate_section();
  Document summary;
  summary.table(simulate_summary(r));
  EXPECT_NE(section.find(render_markdown(summary)), std::string::npos)
      << "README.md's simulation section should quote:\n" << render_markdown(summary);
  // "Single-path runs: no violation and no deadlock for any scheme, and the
  // observed table equals the static one for all five."
  std::string prose = section;
  std::replace(prose.begin(), prose.end(), '\n', ' ');
  ASSERT_NE(prose.find("no violation and no deadlock for any scheme"), std::string::npos);
  ASSERT_NE(prose.find("equals the static one for all five"), std::string::npos);
  EXPECT_EQ(r.schemes.size(), 5u);
  for (const auto& sc : r.schemes) {
    EXPECT_EQ(sc.sweep_and_probe.completed, sc.sweep_and_probe.runs()) << sc.scheme->name();
    EXPECT_TRUE(sc.observed_matches_static) << sc.scheme->name();
  }
  // The replay example: the committed replay file's size and seed, and the
  // violation it reproduces.
  const auto& rwa = *std::find_if(r.schemes.begin(), r.schemes.end(),
                                  [](const auto& sc) { return sc.scheme->name() == "path-rwa"; });
  ASSERT_NE(rwa.first_failure(), nullptr);
  const auto& failed = *rwa.first_failure();
  const auto replay = nlohmann::json::parse(slurp(src / "reports/generated/simulate/replay-path-rwa.json"));
  EXPECT_NE(section.find(fmt::format("({} tasks, seed {}) under path-rwa: {}", replay["schedule"]["tasks"].size(),
                                     failed.seed, sim::to_string(failed.result.outcome))),
            std::string::npos);
  ASSERT_TRUE(failed.result.violation.has_value());
  const auto& v = *failed.result.violation;
  for (const auto& line : {fmt::format("T{} {}  plan: {}", v.first.task, v.first.operation, v.first.plan),
                           fmt::format("T{} {}  plan: {}", v.second.task, v.second.operation, v.second.plan),
                           "why: " + v.why}) {
    EXPECT_NE(section.find(line), std::string::npos) << line;
  }
  // "Efficiency can exceed 1" (and it does, for some completed run).
  ASSERT_NE(prose.find("Efficiency can exceed 1"), std::string::npos);
  bool above_one = false;
  for (const auto& sc : r.schemes) {
    for (const auto& p : sc.sweep) above_one = above_one || p.efficiency > 1;
  }
  EXPECT_TRUE(above_one);
}

// README.md says path-rwa and path-rwa-joined plan every single-path request
// alike, so their sweep rows agree by construction, not by measurement.
TEST(SimulateReport, PathRwaAndJoinedPlanSinglePathRequestsAlike) {
  std::string prose = readme_simulate_section();
  std::replace(prose.begin(), prose.end(), '\n', ' ');
  ASSERT_NE(prose.find("plans are identical by construction"), std::string::npos);
  const auto* rwa = impl::find_builtin_scheme("path-rwa");
  const auto* joined = impl::find_builtin_scheme("path-rwa-joined");
  ASSERT_TRUE(rwa && joined);
  const sim::SchemePlanner a(*rwa);
  const sim::SchemePlanner b(*joined);
  const auto spec = sim::default_campaign();
  ASSERT_TRUE(sim::is_single_path(spec.sweep));
  std::size_t compared = 0;
  for (const auto& path : sim::workload_paths(spec.sweep)) {
    for (const auto& op : {model::read(path), model::write(path), model::remove(path)}) {
      // Each scheme numbers its own modes: compare the plans as written.
      EXPECT_EQ(impl::to_string(*rwa, a.plan(op)), impl::to_string(*joined, b.plan(op))) << op.to_string();
      ++compared;
    }
  }
  EXPECT_GT(compared, 1000u);
  // The same seed gives the same schedules, so the sweeps agree to the last digit.
  std::map<std::string, nlohmann::json> sweeps;
  const auto j = simulate_json(campaign());
  for (const auto& sc : j["schemes"]) sweeps[sc["name"].get<std::string>()] = sc["sweep"];
  EXPECT_EQ(sweeps.at("path-rwa"), sweeps.at("path-rwa-joined"));
}

// A sweep of renames and copies: path-rwa stops on a safety violation.
const sim::CampaignResult& multipath_sweep() {
  static const sim::CampaignResult r = [] {
    auto spec = sim::default_campaign();
    spec.sweep.name = "renames";
    spec.sweep.mix = {0.4, 0.2, 0, 0.2, 0.2};
    for (auto* w : {&spec.sweep, &spec.probe, &spec.multipath}) w->tasks = 1500;
    spec.levels = {1, 8, 16};
    return sim::run_campaign(spec);
  }();
  return r;
}

const sim::SchemeCampaign& scheme_named(const sim::CampaignResult& r, const std::string& name) {
  return *std::find_if(r.schemes.begin(), r.schemes.end(), [&](const auto& sc) { return sc.scheme->name() == name; });
}

std::size_t column(const Table& t, const std::string& prefix) {
  for (std::size_t c = 0; c < t.header.size(); ++c) {
    if (t.header[c].starts_with(prefix)) return c;
  }
  ADD_FAILURE() << "no column " << prefix;
  return 0;
}

TEST(SimulateReport, StoppedRunsAreNeverShownAsPerformance) {
  const auto& r = multipath_sweep();
  const auto& rwa = scheme_named(r, "path-rwa");
  const auto& stopped = rwa.sweep[1];  // @8 clients: the summary's reference level
  ASSERT_EQ(stopped.level, 8);
  ASSERT_EQ(stopped.outcome, sim::RunOutcome::kSafetyViolation);
  ASSERT_LT(stopped.metrics.tasks_completed, stopped.tasks_scheduled);
  const std::string stop = fmt::format("stopped: safety violation after {}/1500 tasks", stopped.metrics.tasks_completed);

  const Table summary = simulate_summary(r);
  const auto row = std::find_if(summary.rows.begin(), summary.rows.end(),
                                [](const auto& cells) { return cells[0].text == "path-rwa"; });
  ASSERT_NE(row, summary.rows.end());
  EXPECT_EQ((*row)[column(summary, "throughput")].text, stop);
  EXPECT_EQ((*row)[column(summary, "p99 latency")].text, "—");
  EXPECT_EQ((*row)[column(summary, "efficiency")].text, "—");

  // The per-scheme table: the stop in place of the numbers.
  const std::string md = render_markdown(simulate_document(r, Plots::kSkip, "out"));
  EXPECT_NE(md.find("| 8 | " + stop + " | — | — |"), std::string::npos) << md;
  EXPECT_EQ(render_terminal(simulate_document(r, Plots::kSkip, "out"), Color::kNone).find(fmt::format(
                "{:.3g}", stopped.metrics.throughput)),
            std::string::npos);

  // The JSON keeps the metrics, marked.
  const auto j = simulate_json(r);
  for (const auto& s : j["schemes"]) {
    if (s["name"] != "path-rwa") continue;
    const auto& p = s["sweep"][1];
    EXPECT_EQ(p["status"], "stopped");
    EXPECT_EQ(p["performance"], "invalid");
    EXPECT_EQ(p["tasks_scheduled"], 1500);
    EXPECT_EQ(p["metrics"]["tasks_completed"], stopped.metrics.tasks_completed);
    EXPECT_EQ(s["sweep"][0]["performance"], rwa.sweep[0].outcome == sim::RunOutcome::kCompleted ? "valid" : "invalid");
  }
  // The plot data leave it out.
  const std::string data = sweep_data(rwa.sweep);
  EXPECT_EQ(data.find("\n8\t"), std::string::npos) << data;
  EXPECT_NE(data.find("# 8: " + stop), std::string::npos) << data;
}

TEST(SimulateReport, ColumnsSayWhatTheyCount) {
  const Table multi = simulate_summary(multipath_sweep());
  EXPECT_EQ(multi.header[1], "sweep and probe runs");
  for (const auto& h : multi.header) EXPECT_EQ(h.find("single-path"), std::string::npos) << h;
  const auto& rwa = scheme_named(multipath_sweep(), "path-rwa").sweep_and_probe;
  EXPECT_GT(rwa.safety_violations, 0u);
  EXPECT_EQ(rwa.runs(), 4u);  // three levels and the probe
  const Table single = simulate_summary(campaign());
  EXPECT_EQ(single.header[1], "single-path runs (sweep, probe)");
  EXPECT_EQ(single.rows[0][1].text, "4 of 4 completed");
}

TEST(SimulateReport, EveryPlotDrawsEachSchemeInItsOwnFixedStyle) {
  const std::string script = plot_script(multipath_sweep());
  // series name -> the styles it is drawn with, one per plot
  std::map<std::string, std::vector<std::string>> styles;
  const std::regex series("'sweep-[^']+\\.dat' using 1:\\d with linespoints (.*) title '([^']+)'");
  for (auto it = std::sregex_iterator(script.begin(), script.end(), series); it != std::sregex_iterator(); ++it) {
    styles[(*it)[2]].push_back((*it)[1]);
  }
  ASSERT_EQ(styles.size(), 6u) << script;  // the oracle and five schemes
  std::vector<std::string> distinct;
  for (const auto& [name, used] : styles) {
    EXPECT_EQ(used.size(), 3u) << name;  // every plot, the efficiency plot too
    for (const auto& style : used) EXPECT_EQ(style, plot_style(name)) << name;
    EXPECT_NE(plot_style(name).find("lc rgb"), std::string::npos);
    distinct.push_back(plot_style(name));
  }
  std::sort(distinct.begin(), distinct.end());
  EXPECT_EQ(std::unique(distinct.begin(), distinct.end()), distinct.end());
  EXPECT_EQ(plot_style("my-scheme"), plot_style("my-scheme"));
}

// A temporary folder, removed again.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name) : path(std::filesystem::temp_directory_path() / name) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

TEST(SimulateReport, HtmlIsOneFileWithThePlotsInline) {
  const TempDir dir("pathlock-simulate-html");
  write_simulate(campaign(), dir.path, Plots::kDraw);
  const std::string html = slurp(dir.path / "simulate.html");
  std::size_t svgs = 0;
  for (auto at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) ++svgs;
  EXPECT_EQ(svgs, 3u);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<?xml"), std::string::npos);
  // An image whose SVG was never read cannot make a self-contained page.
  Document doc;
  doc.image("missing.svg", "a plot");
  EXPECT_THROW(render_html(doc, "t"), std::runtime_error);
  EXPECT_THROW(embed_svg_images(doc, dir.path), std::runtime_error);
}

// The path after "pathlock replay " in a report's text.
std::string replay_hint_path(const std::string& text) {
  const std::string command = "pathlock replay ";
  const auto at = text.find(command);
  if (at == std::string::npos) return {};
  const auto start = at + command.size();
  return text.substr(start, text.find_first_of(" \n", start) - start);
}

TEST(SimulateReport, ReplayHintWorksFromTheCurrentDirectory) {
  const TempDir dir("pathlock-simulate-hint");
  const auto previous = std::filesystem::current_path();
  std::filesystem::current_path(dir.path);
  // What `simulate --out reports/out` prints, and writes.
  write_simulate(multipath_sweep(), "reports/out", Plots::kSkip);
  const std::string terminal = render_terminal(simulate_document(multipath_sweep(), Plots::kSkip, "reports/out"),
                                               Color::kNone);
  std::filesystem::current_path(previous);
  const std::string printed = replay_hint_path(terminal);
  EXPECT_EQ(printed, "reports/out/replay-path-rwa.json");
  EXPECT_EQ(nlohmann::json::parse(slurp(dir.path / printed)).at("schema"), kReplaySchema);
  // The report file names it from its own folder, and says so.
  const std::string md = slurp(dir.path / "reports/out/simulate.md");
  EXPECT_NE(md.find("Replay (from this report's folder): pathlock replay replay-path-rwa.json"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir.path / "reports/out" / replay_hint_path(md)));
  // Paths a shell would split are quoted.
  EXPECT_EQ(replay_command("my out", "x"), "pathlock replay 'my out/replay-x.json'");
  EXPECT_EQ(replay_command("it's", "x"), "pathlock replay 'it'\\''s/replay-x.json'");
}

TEST(SimulateReport, OutputsOfAnEarlierRunAreRemovedAndNothingElse) {
  const TempDir dir("pathlock-simulate-clean");
  // An earlier run with path-rwa failing and plots drawn ...
  write_simulate(multipath_sweep(), dir.path, Plots::kDraw);
  ASSERT_TRUE(std::filesystem::exists(dir.path / "replay-path-rwa.json"));
  // ... foreign files beside it, some with names like ours ...
  const std::vector<std::string> foreign{"notes.txt", "replay-mine.json", "sweep-mine.dat", "plot.svg"};
  for (const auto& f : foreign) write_text_file(dir.path / f, "{\"schema\": \"someone else's\"}\n");
  // ... and a run where nothing fails and no plots are drawn.
  auto spec = small_campaign(1);
  spec.schemes = {impl::find_builtin_scheme("path-rwa-joined")};
  const auto files = write_simulate(sim::run_campaign(spec), dir.path, Plots::kSkip);
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(dir.path)) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  std::vector<std::string> expected = foreign;
  for (const char* f : {"simulate.md", "simulate.html", "simulate.json"}) expected.push_back(f);
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(left, expected);
  EXPECT_EQ(files.size(), 3u);
}

TEST(CampaignProgress, CountsTasksThroughEachRun) {
  auto spec = small_campaign(3);
  spec.levels = {2};
  spec.schemes = {impl::find_builtin_scheme("path-rw")};
  std::vector<std::pair<std::uint64_t, std::uint64_t>> calls;
  sim::run_campaign(spec, [&](std::uint64_t done, std::uint64_t total) { calls.emplace_back(done, total); });
  // The oracle's sweep run, then the scheme's sweep, probe and multipath runs.
  const std::uint64_t total = 4 * 1500;
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls.back(), std::make_pair(total, total));
  std::uint64_t last = 0;
  std::size_t inside_a_run = 0;
  for (const auto& [done, all] : calls) {
    EXPECT_EQ(all, total);
    EXPECT_GE(done, last);
    last = done;
    if (done % 1500 != 0) ++inside_a_run;
  }
  EXPECT_GE(inside_a_run, 3u * 4);  // every 256 tasks of each scheme run
}

TEST(CampaignProgress, TheSimulatorReportsEveryNTasks) {
  const auto spec = small_campaign(1);
  const auto schedule = sim::generate_schedule(spec.sweep, sim::workload_paths(spec.sweep), 5);
  std::vector<std::uint64_t> seen;
  sim::SimOptions options;
  options.progress = [&](std::uint64_t done) { seen.push_back(done); };
  options.progress_every = 100;
  const sim::SchemePlanner planner(*impl::find_builtin_scheme("global-rw"));
  ASSERT_EQ(sim::simulate(planner, schedule, options).outcome, sim::RunOutcome::kCompleted);
  ASSERT_EQ(seen.size(), 15u);
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], 100 * (i + 1));
}

}  // namespace
}  // namespace pathlock::reports
