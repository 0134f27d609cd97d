#include "pathlock/reports/check.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pathlock/io/scheme_file.hpp"
#include "pathlock/reports/simulate.hpp"
#include "pathlock/sim/schedulers/pct_scheduler.hpp"

namespace pathlock::reports {
namespace {

std::string tasks_text(const sim::Scenario& s) {
  std::vector<std::string> parts;
  for (std::size_t t = 0; t < s.tasks.size(); ++t) {
    std::vector<std::string> ops;
    for (const auto& op : s.tasks[t]) ops.push_back(op.to_string());
    parts.push_back(fmt::format("T{}: {}", t, fmt::join(ops, " then ")));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::size_t request_count(const sim::Scenario& s) {
  std::size_t n = 0;
  for (const auto& t : s.tasks) n += t.size();
  return n;
}

std::string size_text(const sim::Scenario& s) {
  const auto plural = [](std::size_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); };
  return plural(s.tasks.size(), "task") + " and " + plural(request_count(s), "request");
}

Cell verdict_cell(sim::CheckVerdict v) {
  switch (v) {
    case sim::CheckVerdict::kPass: return {"✓ pass", CellStyle::kAllow};
    case sim::CheckVerdict::kFail: return {"✗ fail", CellStyle::kBlock};
    case sim::CheckVerdict::kInconclusive: return {"? inconclusive", CellStyle::kPlain};
  }
  return {"?", CellStyle::kPlain};
}

Cell count_cell(std::uint64_t failures) {
  return failures == 0 ? Cell{"0", CellStyle::kAllow} : Cell{fmt::format("{}", failures), CellStyle::kBlock};
}

std::uint64_t family_failures(const sim::CheckResult& r) {
  std::uint64_t n = 0;
  for (const auto& p : r.family) n += p.violations + p.deadlocks + p.overtakes;
  return n;
}

std::uint64_t family_scenarios(const sim::CheckResult& r) {
  std::uint64_t n = 0;
  for (const auto& p : r.family) n += p.scenarios;
  return n;
}

// "random 3, pct (d=2) 0, ...": failing runs per scheduler.
Cell campaigns_cell(const sim::CheckResult& r) {
  std::vector<std::string> parts;
  std::uint64_t total = 0;
  for (const auto& c : r.campaigns) {
    parts.push_back(fmt::format("{} {}", c.scheduler, c.failing_runs));
    total += c.failing_runs;
  }
  return {fmt::format("{}", fmt::join(parts, ", ")), total ? CellStyle::kBlock : CellStyle::kAllow};
}

// "FIFO: kept", "bounded bypass (...): 3 overtook", "none (measured only)".
Cell fairness_cell(const sim::CheckResult& r) {
  if (r.fairness == impl::Fairness::kNone) return {r.fairness_promise, CellStyle::kPlain};
  const auto failures = sim::fairness_failures(r);
  if (failures == 0) return {r.fairness_promise + ": kept", CellStyle::kAllow};
  return {fmt::format("{}: {} overtook", r.fairness_promise, failures), CellStyle::kBlock};
}

std::string bound_text(double p) { return fmt::format("{:.3g}", p); }

std::string counterexample_line(const sim::CheckResult& r) {
  if (!r.counterexample) return "";
  const auto& c = *r.counterexample;
  return fmt::format("{}: {}", sim::to_string(c.trace.kind), tasks_text(c.scenario));
}

std::string schedule_text(const std::vector<std::uint32_t>& schedule) {
  return fmt::format("{}", fmt::join(schedule, ","));
}

std::string scheme_line(const impl::Scheme& s) {
  return fmt::format("order {}, acquisition {}, modes {}", s.order().name(), impl::to_string(s.acquisition()),
                     impl::to_string(s.joining()));
}

Cell status_cell(sim::EvidenceStatus status) {
  switch (status) {
    case sim::EvidenceStatus::kPass: return {"✓ pass", CellStyle::kAllow};
    case sim::EvidenceStatus::kFail: return {"✗ fail", CellStyle::kBlock};
    case sim::EvidenceStatus::kIncomplete: return {"? incomplete", CellStyle::kPlain};
    case sim::EvidenceStatus::kWeak: return {"~ weak", CellStyle::kPlain};
    case sim::EvidenceStatus::kNoPower: return {"– no power", CellStyle::kPlain};
  }
  return {"?", CellStyle::kPlain};
}

// "6 pass, 1 weak": the rows of each status, in the enum's order.
std::string evidence_text(const sim::CheckResult& r) {
  std::vector<sim::EvidenceStatus> rows{r.static_status};
  for (const auto& p : r.family) {
    if (p.scenarios > 0) rows.push_back(p.status);
  }
  if (family_scenarios(r) == 0) rows.push_back(sim::EvidenceStatus::kNoPower);  // the family, not run
  for (const auto& c : r.campaigns) rows.push_back(c.status);
  std::vector<std::string> parts;
  for (const auto status : {sim::EvidenceStatus::kPass, sim::EvidenceStatus::kFail, sim::EvidenceStatus::kIncomplete,
                            sim::EvidenceStatus::kWeak, sim::EvidenceStatus::kNoPower}) {
    const auto n = std::count(rows.begin(), rows.end(), status);
    if (n > 0) parts.push_back(fmt::format("{} {}", n, sim::to_string(status)));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string campaign_power(const sim::CheckResult& r, const sim::SchedulerCampaign& c) {
  const auto& o = r.options;
  std::string text = fmt::format("{} runs over {} scenarios ({} each)", c.runs, r.campaign_scenarios.size(),
                                 o.runs_per_scenario);
  if (c.depth == 0) {
    return text + fmt::format("; no detection bound (weak below {} runs per scenario)", sim::kMinRandomRunsPerScenario);
  }
  return text + fmt::format("; per-run bound {}..{}; all runs of the worst scenario miss a depth-{} bug with "
                            "probability ≤ {} (weak above {})",
                            bound_text(c.min_bound), bound_text(c.max_bound), c.depth, bound_text(c.worst_miss),
                            bound_text(sim::kWeakMissBound));
}

std::string shrink_text(const sim::MinimalCounterexample& c) {
  std::string text;
  if (c.shrink_stop == sim::ShrinkStop::kOneMinimal) {
    text = fmt::format("It is 1-minimal: each of its {} candidates (one task or one request removed, or one request "
                       "simplified) was tried and fails no more.",
                       c.final_candidates);
  } else {
    text = fmt::format("Shrinking stopped at its limit of {} candidates, so the result may not be 1-minimal.",
                       c.shrink_limit);
  }
  if (c.sampled_rejections > 0) {
    text += fmt::format(" {} rejected candidates passed the state limit and were judged by the campaigns' schedulers, "
                        "not exhaustively.",
                        c.sampled_rejections);
  }
  return text;
}

void scheme_section(Document& doc, const CheckedScheme& cs, Pictures pictures) {
  const auto& r = *cs.result;
  const auto& o = r.options;
  doc.heading(2, fmt::format("{}: {}", r.scheme, sim::to_string(r.verdict)));
  doc.paragraph(fmt::format("Scheme {} ({}).", r.scheme, scheme_line(*cs.scheme)));
  Table t;
  t.header = {"evidence", "scope", "power", "failures", "result"};
  const auto& st = r.statics;
  t.rows.push_back({{"static table"},
                    {fmt::format("every operation pair, tree depth {} fanout {}; safety only", o.static_tree.depth,
                                 o.static_tree.fanout)},
                    {fmt::format("{} pairs; score {}/{}, {} over-blocked", st.pairs, st.score8.achieved,
                                 st.score8.possible, st.over_blocked_pairs)},
                    count_cell(st.unsafe_pairs),
                    status_cell(r.static_status)});
  if (family_scenarios(r) == 0) {
    t.rows.push_back({{"family"}, {"not explored (--family none)"}, {"0 scenarios"}, count_cell(0),
                      status_cell(sim::EvidenceStatus::kNoPower)});
  }
  for (const auto& p : r.family) {
    if (p.scenarios == 0) continue;
    t.rows.push_back({{fmt::format("family: {}", sim::to_string(p.part))},
                      {fmt::format("every interleaving, {} family", sim::to_string(o.family))},
                      {fmt::format("{} scenarios, {} states, {} transitions{}", p.scenarios, p.states, p.transitions,
                                   p.incomplete ? fmt::format(", {} over the state limit", p.incomplete) : "")},
                      count_cell(p.violations + p.deadlocks + p.overtakes),
                      status_cell(p.status)});
  }
  for (const auto& c : r.campaigns) {
    t.rows.push_back({{"campaign: " + c.scheduler},
                      {fmt::format("{}-{} tasks, 1-{} requests, seed {}", o.campaign.min_tasks, o.campaign.max_tasks,
                                   o.campaign.max_requests, o.seed)},
                      {campaign_power(r, c)},
                      count_cell(c.failing_runs),
                      status_cell(c.status)});
  }
  doc.table(std::move(t));
  doc.paragraph(fmt::format("Fairness (no grant overtakes a waiter queued earlier in an incompatible mode beyond the "
                            "promise; judged on every grant of the family and campaign runs): {}.",
                            sim::fairness_line(r)));
  for (const auto& f : r.findings) doc.alert(f);
  if (!r.counterexample) return;
  const auto& c = *r.counterexample;
  doc.heading(3, "Minimal counterexample");
  doc.paragraph(fmt::format(
      "Found by {} in a scenario of {} ({}); shrunk with RapidCheck's shrink library in {} steps ({} candidates "
      "judged) to {}. {} The schedule is the failing one with the fewest preemptions: {}{}, {} steps.",
      c.found_by, size_text(c.original), tasks_text(c.original), c.shrink_steps, c.shrink_tried,
      size_text(c.scenario), shrink_text(c), c.preemptions,
      c.original_preemptions ? fmt::format(" (the run that found it had {})", *c.original_preemptions) : "",
      c.trace.trace.size()));
  std::string trace = tasks_text(c.scenario) + "\n\n";
  for (std::size_t i = 0; i < c.trace.trace.size(); ++i) trace += fmt::format("{:>3}. {}\n", i + 1, c.trace.trace[i].text);
  trace += c.trace.summary + "\n";
  for (const auto& line : c.trace.cycle) trace += "  " + line + "\n";
  doc.code(trace);
  if (pictures == Pictures::kDraw && !c.trace.cycle_nodes.empty()) {
    doc.image(file_slug(r.scheme) + ".cycle.svg", fmt::format("{}: the wait-for cycle", r.scheme));
  }
  doc.paragraph(fmt::format("Schedule (task per step): {}", schedule_text(c.trace.schedule)));
}

}  // namespace

std::string file_slug(const std::string& name) {
  std::string out;
  for (char ch : name) {
    const bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
                      ch == '_' || ch == '.';
    out += keep ? ch : '-';
  }
  return out.empty() ? "scheme" : out;
}

std::string replay_command(const sim::CheckResult& r, const std::filesystem::path& dir) {
  if (!r.counterexample) return "";
  return fmt::format("pathlock explore {} --schedule {}",
                     (dir / (file_slug(r.scheme) + ".counterexample.json")).string(),
                     schedule_text(r.counterexample->trace.schedule));
}

Document check_document(std::span<const CheckedScheme> checked, Pictures pictures) {
  Document doc;
  doc.heading(1, "pathlock check");
  if (!checked.empty()) {
    const auto& o = checked.front().result->options;
    const std::string family =
        o.family == sim::FamilySize::kNone
            ? std::string("by no family of scenarios (--family none)")
            : fmt::format("by every interleaving of every scenario of the {} family (1-3 tasks over {} paths, rename "
                          "and copy into and out of their own subtree included)",
                          sim::to_string(o.family), sim::family_paths(o.family).size());
    doc.paragraph(fmt::format(
        "Each scheme is judged by its static table, {}, and by random and PCT campaigns of {} scenarios × {} runs "
        "each (seed {}; rerun with --seed {}). A failure's scenario is shrunk and its schedule reduced to the fewest "
        "preemptions.",
        family, o.campaign_scenarios, o.runs_per_scenario, o.seed, o.seed));
    doc.paragraph(fmt::format(
        "Each row of evidence states its power. A row that searched nothing has no power; a PCT campaign whose bound "
        "on missing a depth-d bug in every run of its worst scenario is above {}, or a random campaign (no bound) "
        "of fewer than {} runs per scenario, is weak. Neither counts as a pass. A scheme passes only if some family "
        "part or campaign passed with power (the static table judges safety of pairs and cannot see a deadlock); "
        "otherwise, with no failure, it is inconclusive.",
        bound_text(sim::kWeakMissBound), sim::kMinRandomRunsPerScenario));
  }
  Table t;
  t.header = {"scheme", "verdict", "evidence", "score", "unsafe pairs", "family failures", "failing runs",
              "fairness", "minimal counterexample"};
  for (const auto& cs : checked) {
    const auto& r = *cs.result;
    t.rows.push_back({{r.scheme, CellStyle::kHeader},
                      verdict_cell(r.verdict),
                      {evidence_text(r)},
                      {fmt::format("{}/{}", r.statics.score8.achieved, r.statics.score8.possible)},
                      count_cell(r.statics.unsafe_pairs),
                      {fmt::format("{} of {}", family_failures(r), family_scenarios(r)),
                       family_failures(r) ? CellStyle::kBlock : CellStyle::kAllow},
                      campaigns_cell(r),
                      fairness_cell(r),
                      {counterexample_line(r)}});
  }
  doc.table(std::move(t));
  for (const auto& cs : checked) scheme_section(doc, cs, pictures);
  return doc;
}

nlohmann::json check_json(std::span<const CheckedScheme> checked) {
  nlohmann::json j;
  j["schema"] = kCheckSchema;
  j["thresholds"] = {{"weak_miss_bound", sim::kWeakMissBound},
                     {"min_random_runs_per_scenario", sim::kMinRandomRunsPerScenario}};
  j["schemes"] = nlohmann::json::array();
  for (const auto& cs : checked) {
    const auto& r = *cs.result;
    const auto& o = r.options;
    nlohmann::json s;
    s["scheme"] = io::scheme_to_json(*cs.scheme);
    s["verdict"] = std::string(sim::to_string(r.verdict));
    s["findings"] = r.findings;
    if (r.model_error) s["model_error"] = *r.model_error;  // the model disagrees with itself: not the scheme's bug
    s["fairness"] = {{"promise", std::string(impl::to_string(r.fairness))},
                     {"bound", r.bypass_bound},
                     {"promised", r.fairness_promise},
                     {"status", r.fairness == impl::Fairness::kNone ? "not judged"
                                : sim::fairness_failures(r) == 0        ? "kept"
                                                                        : "broken"},
                     {"failures", sim::fairness_failures(r)},
                     {"summary", sim::fairness_line(r)}};
    s["options"] = {{"family", std::string(sim::to_string(o.family))},
                    {"seed", o.seed},
                    {"campaign_scenarios", o.campaign_scenarios},
                    {"runs_per_scenario", o.runs_per_scenario},
                    {"pct_depths", o.pct_depths},
                    {"max_states", o.max_states}};
    s["static"] = {{"pairs", r.statics.pairs},
                   {"conflicting_pairs", r.statics.conflicting_pairs},
                   {"unsafe_pairs", r.statics.unsafe_pairs},
                   {"over_blocked_pairs", r.statics.over_blocked_pairs},
                   {"score8", {r.statics.score8.achieved, r.statics.score8.possible}},
                   {"score4", {r.statics.score4.achieved, r.statics.score4.possible}},
                   {"status", std::string(sim::to_string(r.static_status))}};
    s["family"] = nlohmann::json::array();
    for (const auto& p : r.family) {
      s["family"].push_back({{"part", std::string(sim::to_string(p.part))},
                             {"scenarios", p.scenarios},
                             {"states", p.states},
                             {"transitions", p.transitions},
                             {"violations", p.violations},
                             {"deadlocks", p.deadlocks},
                             {"overtakes", p.overtakes},
                             {"incomplete", p.incomplete},
                             {"status", std::string(sim::to_string(p.status))}});
    }
    s["campaigns"] = nlohmann::json::array();
    for (const auto& c : r.campaigns) {
      nlohmann::json cj = {{"scheduler", c.scheduler},     {"runs", c.runs},
                           {"failing_runs", c.failing_runs}, {"violations", c.violations},
                           {"deadlocks", c.deadlocks},     {"overtakes", c.overtakes},
                           {"scenarios_failed", c.scenarios_failed},
                           {"scenarios", r.campaign_scenarios.size()},
                           {"status", std::string(sim::to_string(c.status))}};
      if (c.depth) {
        cj["depth"] = c.depth;
        cj["min_bound"] = c.min_bound;
        cj["max_bound"] = c.max_bound;
        cj["worst_miss"] = c.worst_miss;
      }
      if (c.first_failure) {
        cj["first_failure"] = {{"scenario", sim::to_json(r.campaign_scenarios[c.first_failure->scenario])},
                               {"run_seed", c.first_failure->run_seed},
                               {"kind", std::string(sim::to_string(c.first_failure->kind))},
                               {"schedule", c.first_failure->schedule}};
      }
      s["campaigns"].push_back(std::move(cj));
    }
    if (r.counterexample) {
      const auto& c = *r.counterexample;
      s["counterexample"] = {{"found_by", c.found_by},
                             {"original", sim::to_json(c.original)},
                             {"scenario", sim::to_json(c.scenario)},
                             {"shrink_steps", c.shrink_steps},
                             {"shrink_tried", c.shrink_tried},
                             {"shrink", {{"stop", std::string(sim::to_string(c.shrink_stop))},
                                         {"limit", c.shrink_limit},
                                         {"final_candidates", c.final_candidates},
                                         {"sampled_rejections", c.sampled_rejections}}},
                             {"preemptions", c.preemptions},
                             {"kind", std::string(sim::to_string(c.trace.kind))},
                             {"schedule", c.trace.schedule},
                             {"summary", c.trace.summary},
                             {"cycle", c.trace.cycle},
                             {"dot", c.trace.dot}};
      auto& trace = s["counterexample"]["trace"] = nlohmann::json::array();
      for (const auto& step : c.trace.trace) trace.push_back(step.text);
      if (c.original_preemptions) s["counterexample"]["original_preemptions"] = *c.original_preemptions;
    }
    j["schemes"].push_back(std::move(s));
  }
  return j;
}

std::vector<std::filesystem::path> write_check(std::span<const CheckedScheme> checked,
                                               const std::filesystem::path& dir) {
  ReportFolder folder(dir);
  const auto write = [&](const std::string& name, const std::string& text) { folder.write(name, text); };
  for (const auto& cs : checked) {
    const auto& r = *cs.result;
    if (!r.counterexample) continue;
    const std::string slug = file_slug(r.scheme);
    write(slug + ".scheme.json", io::scheme_to_json(*cs.scheme).dump(2) + "\n");
    sim::Scenario scenario = r.counterexample->scenario;
    scenario.name = fmt::format("minimal counterexample for {}", r.scheme);
    scenario.scheme.reset();
    scenario.order.reset();
    scenario.scheme_file = slug + ".scheme.json";
    write(slug + ".counterexample.json", sim::to_json(scenario).dump(2) + "\n");
    if (!r.counterexample->trace.dot.empty()) write(slug + ".cycle.dot", r.counterexample->trace.dot);
    if (!r.counterexample->trace.cycle_nodes.empty()) {
      write(slug + ".cycle.svg", cycle_svg(r.counterexample->trace.cycle_nodes));
    }
  }
  Document doc = check_document(checked, Pictures::kDraw);
  embed_svg_images(doc, dir);
  write("check.md", render_markdown(doc));
  write("check.html", render_html(doc, "pathlock check"));
  write("check.json", check_json(checked).dump(2) + "\n");
  return folder.files();
}

}  // namespace pathlock::reports
