#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <string_view>

#include "pathlock/reports/simulate.hpp"
#include "pathlock/sim/workload.hpp"

namespace pathlock::reports {
namespace {

using nlohmann::json;

json percentiles_json(const sim::Percentiles& p) { return {{"p50", p.p50}, {"p99", p.p99}, {"max", p.max}}; }

json metrics_json(const sim::RunMetrics& m) {
  return {{"tasks_completed", m.tasks_completed}, {"events", m.events}, {"makespan", m.makespan},
          {"throughput", m.throughput}, {"latency", percentiles_json(m.latency)},
          {"wait", percentiles_json(m.wait)}, {"lock_requests", m.lock_requests}, {"waits", m.waits}, {"bypasses", m.bypasses},
          {"max_bypassed", m.max_bypassed}, {"overtakes", m.overtakes}, {"max_overtaken", m.max_overtaken},
          {"max_lock_table", m.max_lock_table},
          {"distinct_locks", m.distinct_locks}};
}

// What every run of a scheme (sweep, probe, multipath; a stopped run's
// overtakes happened too) observed of overtaking, and whether it kept the promise.
struct ObservedOvertakes {
  std::uint64_t total = 0;
  std::uint64_t most = 0;  // of one wait
  std::string_view status = "kept";  // "kept", "broken", "not judged"
};
ObservedOvertakes observed_overtakes(const sim::SchemeCampaign& sc) {
  ObservedOvertakes o;
  const auto add = [&](const sim::RunMetrics& m) {
    o.total += m.overtakes;
    o.most = std::max(o.most, m.max_overtaken);
  };
  for (const auto& p : sc.sweep) add(p.metrics);
  for (const sim::NamedRun* run : {&sc.probe, &sc.multipath}) add(run->result.metrics);
  const auto& s = *sc.scheme;
  if (s.fairness() == impl::Fairness::kNone) {
    o.status = "not judged";
  } else if (!s.keeps_fairness(static_cast<std::uint32_t>(std::min<std::uint64_t>(o.most, UINT32_MAX)))) {
    o.status = "broken";
  }
  return o;
}

json task_json(const sim::TaskView& t) {
  return {{"task", t.task}, {"client", t.client}, {"operation", t.operation}, {"plan", t.plan},
          {"held", t.held}, {"waiting_for", t.waiting_for}};
}

json run_json(const sim::NamedRun& run) {
  const auto& r = run.result;
  json j{{"workload", run.workload}, {"seed", run.seed}, {"outcome", sim::to_string(r.outcome)},
         {"status", sim::to_string(sim::run_status(r.outcome))},
         {"performance", sim::to_string(sim::performance_validity(r.outcome))},
         {"tasks_scheduled", run.tasks_scheduled}, {"metrics", metrics_json(r.metrics)}, {"violation", nullptr}, {"deadlock", nullptr},
         {"overtake", nullptr}, {"trace", r.trace}};
  if (r.overtake) {
    const auto& o = *r.overtake;
    j["overtake"] = {{"waiter", task_json(o.waiter)}, {"by", task_json(o.by)},           {"granted", o.by_lock},
                     {"waiting_for", o.waiter_lock},  {"overtakes_of_this_wait", o.count}, {"promised", o.promised}};
  }
  if (r.violation) {
    j["violation"] = {{"first", task_json(r.violation->first)}, {"second", task_json(r.violation->second)},
                      {"why", r.violation->why}, {"lock_states", r.violation->lock_states}};
  }
  if (r.deadlock) {
    json cycle = json::array();
    for (const auto& t : r.deadlock->cycle) cycle.push_back(task_json(t));
    j["deadlock"] = {{"cycle", cycle}, {"dot", r.deadlock->dot}};
  }
  return j;
}

std::string level_name(const sim::CampaignSpec& spec) {
  return spec.sweep.load == sim::LoadMode::kClosed ? "clients" : "arrival rate";
}

std::string num(double v) { return fmt::format("{:.3g}", v); }

std::size_t reference_index(const sim::CampaignSpec& spec) {
  for (std::size_t i = 0; i < spec.levels.size(); ++i) {
    if (spec.levels[i] == 8) return i;
  }
  return spec.levels.size() - 1;
}

std::string describe(const sim::WorkloadSpec& w) {
  const std::string shape = w.keys_file ? fmt::format("keys from {}", w.keys_file->string())
                                        : fmt::format("a tree of depth {} and fanout {}", w.tree.depth, w.tree.fanout);
  const std::string load = w.load == sim::LoadMode::kClosed
                               ? fmt::format("{} closed-loop clients", w.clients)
                               : fmt::format("open-loop arrivals at rate {}", w.arrival_rate);
  return fmt::format("{}: {}; mix read {} / write {} / delete {} / rename {} / copy {}; Zipf {} over folders, "
                     "shallow first; {}; mean hold {}; {} tasks",
                     w.name, shape, w.mix.read, w.mix.write, w.mix.remove, w.mix.rename, w.mix.copy, w.zipf,
                     load, w.hold_mean, w.tasks);
}

json tally_json(const sim::RunTally& t) {
  return {{"completed", t.completed}, {"safety_violations", t.safety_violations}, {"deadlocks", t.deadlocks},
          {"broken_invariants", t.broken_invariants}, {"unfair_overtakes", t.unfair_overtakes},
          {"inconclusive", t.inconclusive}};
}

// What the sweep-and-probe column counts: "single-path runs" only when both
// workloads are single-path.
std::string sweep_and_probe_name(const sim::CampaignSpec& spec) {
  return sim::is_single_path(spec.sweep) && sim::is_single_path(spec.probe) ? "single-path runs (sweep, probe)"
                                                                             : "sweep and probe runs";
}

std::string tally_text(const sim::RunTally& t) {
  std::vector<std::string> parts{fmt::format("{} of {} completed", t.completed, t.runs())};
  if (t.safety_violations) parts.push_back(fmt::format("{} stopped by a safety violation", t.safety_violations));
  if (t.deadlocks) parts.push_back(fmt::format("{} stopped by a deadlock", t.deadlocks));
  if (t.broken_invariants) {
    parts.push_back(fmt::format("{} stopped by a broken lock invariant", t.broken_invariants));
  }
  if (t.unfair_overtakes) {
    parts.push_back(fmt::format("{} stopped by an overtake beyond the fairness promise", t.unfair_overtakes));
  }
  if (t.inconclusive) parts.push_back(fmt::format("{} inconclusive", t.inconclusive));
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string point_text(const sim::SweepPoint& p) {
  return describe_run(p.outcome, p.metrics.tasks_completed, p.tasks_scheduled);
}

bool valid(const sim::SweepPoint& p) {
  return sim::performance_validity(p.outcome) == sim::PerformanceValidity::kValid;
}

constexpr const char* kNotMeasured = "—";

// "FIFO · 0": the promise beside the most overtakes one wait suffered in any run.
Cell fairness_cell(const sim::SchemeCampaign& sc) {
  const auto o = observed_overtakes(sc);
  return {fmt::format("{} · {}", sc.scheme->fairness_text(), o.most),
          o.status == "broken" ? CellStyle::kBlock : CellStyle::kPlain};
}

}  // namespace

std::string describe_run(sim::RunOutcome outcome, std::uint64_t tasks_completed, std::uint64_t tasks_scheduled) {
  switch (sim::run_status(outcome)) {
    case sim::RunStatus::kCompleted: return "completed";
    case sim::RunStatus::kStopped:
      return fmt::format("stopped: {} after {}/{} tasks", sim::to_string(outcome), tasks_completed, tasks_scheduled);
    case sim::RunStatus::kInconclusive:
      return fmt::format("inconclusive: {} after {}/{} tasks", sim::to_string(outcome), tasks_completed, tasks_scheduled);
  }
  return std::string(sim::to_string(outcome));
}

std::filesystem::path replay_path(const std::filesystem::path& out_dir, const std::string& scheme) {
  return out_dir / ("replay-" + scheme + ".json");
}

std::string replay_command(const std::filesystem::path& out_dir, const std::string& scheme) {
  const std::string path = replay_path(out_dir, scheme).string();
  const bool plain = std::all_of(path.begin(), path.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || std::string_view("._/-+").find(c) != std::string_view::npos;
  });
  std::string quoted = "'";
  for (char c : path) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return "pathlock replay " + (plain ? path : quoted + "'");
}

json replay_json(const std::string& scheme, const sim::NamedRun& run) {
  return {{"schema", kReplaySchema}, {"scheme", scheme}, {"workload", run.workload}, {"seed", run.seed},
          {"outcome", sim::to_string(run.result.outcome)},
          {"schedule", sim::schedule_to_json(*run.result.replay)}};
}

namespace {
// The promise beside what every run observed.
json fairness_json(const sim::SchemeCampaign& sc) {
  const auto o = observed_overtakes(sc);
  const auto& s = *sc.scheme;
  return {{"promise", std::string(impl::to_string(s.fairness()))},
          {"bound", s.bypass_bound()},
          {"promised", s.fairness_text()},
          {"overtakes", o.total},
          {"max_overtaken", o.most},
          {"status", std::string(o.status)}};
}
}  // namespace

json simulate_json(const sim::CampaignResult& r) {
  json oracle = json::array();
  for (const auto& p : r.oracle) {
    oracle.push_back({{"level", p.level}, {"seed", p.seed}, {"tasks_scheduled", p.tasks_scheduled},
                      {"metrics", metrics_json(p.metrics)}});
  }
  json schemes = json::array();
  for (std::size_t s = 0; s < r.schemes.size(); ++s) {
    const auto& sc = r.schemes[s];
    json cats = json::array();
    for (std::size_t c = 0; c < model::kCategoryCount; ++c) {
      const auto& info = model::all_categories()[c];
      const auto& probe = sc.probe.result.observed[c];
      cats.push_back({{"number", info.number}, {"static", model::to_string(r.statics.schemes[s].verdicts[c])},
                      {"observed", model::to_string(sc.observed[c])}, {"probe_waits", probe.waits},
                      {"probe_concurrent", probe.concurrent},
                      {"witness", probe.witness ? json(*probe.witness) : json(nullptr)}});
    }
    json sweep = json::array();
    for (const auto& p : sc.sweep) {
      sweep.push_back({{"level", p.level}, {"seed", p.seed}, {"outcome", sim::to_string(p.outcome)},
                       {"status", sim::to_string(sim::run_status(p.outcome))},
                       {"performance", sim::to_string(sim::performance_validity(p.outcome))},
                       {"tasks_scheduled", p.tasks_scheduled}, {"metrics", metrics_json(p.metrics)},
                       {"efficiency", p.efficiency}});
    }
    const auto* failure = sc.first_failure();
    schemes.push_back({{"name", sc.scheme->name()},
                       {"sweep_and_probe_runs", tally_json(sc.sweep_and_probe)},
                       {"observed_matches_static", sc.observed_matches_static},
                       {"categories", cats},
                       {"sweep", sweep},
                       {"probe", run_json(sc.probe)},
                       {"multipath", run_json(sc.multipath)},
                       {"fairness", fairness_json(sc)},
                       {"replay_file", failure ? json(replay_path("", sc.scheme->name()).string()) : json(nullptr)}});
  }
  json levels = json::array();
  for (double l : r.spec.levels) levels.push_back(l);
  return {{"schema", kSimulateSchema},
          {"seed", r.spec.seed},
          {"workloads", {{"sweep", sim::to_json(r.spec.sweep)}, {"levels", levels},
                         {"level_meaning", level_name(r.spec)}, {"probe", sim::to_json(r.spec.probe)},
                         {"multipath", sim::to_json(r.spec.multipath)}}},
          {"oracle", oracle},
          {"schemes", schemes}};
}

Table simulate_summary(const sim::CampaignResult& r) {
  const std::size_t ref = reference_index(r.spec);
  const std::string at = fmt::format("@{} {}", num(r.spec.levels[ref]), level_name(r.spec));
  Table t{{"scheme", sweep_and_probe_name(r.spec), "observed = static", "throughput " + at, "p99 latency " + at,
           "efficiency " + at, "longest wait (sweep)", "most bypasses of one wait (sweep)",
           "fairness promised · most overtakes of one wait", "most locks in use (sweep)", "multipath run"},
          {}};
  for (const auto& sc : r.schemes) {
    // Performance figures come from completed runs only.
    std::optional<double> longest;
    std::uint64_t bypassed = 0;
    std::size_t table = 0;
    std::size_t measured = 0;
    for (const auto& p : sc.sweep) {
      if (!valid(p)) continue;
      ++measured;
      longest = std::max(longest.value_or(0), p.metrics.wait.max);
      bypassed = std::max(bypassed, p.metrics.max_bypassed);
      table = std::max(table, p.metrics.max_lock_table);
    }
    // A maximum over some of the levels says so.
    const std::string over =
        measured == sc.sweep.size() ? "" : fmt::format(" ({} of {} levels)", measured, sc.sweep.size());
    const auto max_cell = [&](const std::string& value) { return Cell{longest ? value + over : kNotMeasured}; };
    const auto& point = sc.sweep[ref];
    const auto& m = point.metrics;
    const bool all_completed = sc.sweep_and_probe.completed == sc.sweep_and_probe.runs();
    const auto& mp = sc.multipath;
    const bool mp_ok = mp.result.outcome == sim::RunOutcome::kCompleted;
    t.rows.push_back({{sc.scheme->name(), CellStyle::kHeader},
                      {tally_text(sc.sweep_and_probe), all_completed ? CellStyle::kPlain : CellStyle::kBlock},
                      {sc.observed_matches_static ? "yes" : "NO", sc.observed_matches_static ? CellStyle::kPlain : CellStyle::kBlock},
                      valid(point) ? Cell{num(m.throughput)} : Cell{point_text(point), CellStyle::kBlock},
                      {valid(point) ? num(m.latency.p99) : kNotMeasured},
                      {valid(point) ? num(point.efficiency) : kNotMeasured},
                      max_cell(num(longest.value_or(0))), max_cell(std::to_string(bypassed)), fairness_cell(sc),
                      max_cell(std::to_string(table)),
                      {describe_run(mp.result.outcome, mp.result.metrics.tasks_completed, mp.tasks_scheduled),
                       mp_ok ? CellStyle::kPlain : CellStyle::kBlock}});
  }
  return t;
}

void failure_blocks(Document& doc, const sim::RunResult& run) {
  if (run.violation) {
    const auto& v = *run.violation;
    doc.code(fmt::format("T{} {}  plan: {}\nT{} {}  plan: {}\nwhy: {}\nlocks:\n  {}", v.first.task,
                         v.first.operation, v.first.plan, v.second.task, v.second.operation, v.second.plan,
                         v.why, fmt::join(v.lock_states, "\n  ")));
  }
  if (run.overtake) {
    const auto& o = *run.overtake;
    doc.code(fmt::format("T{} {} was granted {} while T{} {}, queued earlier for {}, still waits: overtake {} of "
                         "this wait; the scheme promises {}\nT{} plan: {}\nT{} plan: {}",
                         o.by.task, o.by.operation, o.by_lock, o.waiter.task, o.waiter.operation, o.waiter_lock,
                         o.count, o.promised, o.by.task, o.by.plan, o.waiter.task, o.waiter.plan));
  }
  if (run.deadlock) {
    std::string cycle;
    for (const auto& t : run.deadlock->cycle) {
      cycle += fmt::format("T{} {}: holds {}; waits for {}\n", t.task, t.operation, t.held.empty() ? "nothing" : t.held,
                           t.waiting_for);
    }
    doc.code(cycle);
    doc.paragraph("The wait-for cycle (Graphviz):");
    doc.code(run.deadlock->dot);
  }
  if (!run.trace.empty()) {
    doc.paragraph("The events that led there:");
    doc.code(fmt::format("{}", fmt::join(run.trace, "\n")));
  }
}

namespace {

Table sweep_table(const sim::CampaignSpec& spec, const sim::SchemeCampaign& sc) {
  Table sweep{{level_name(spec), "outcome", "throughput", "efficiency", "p50 latency", "p99 latency", "max latency",
               "p99 wait", "longest wait", "waits", "bypasses", "most bypasses of one wait", "overtakes",
               "most overtakes of one wait", "most locks in use"},
              {}};
  for (const auto& p : sc.sweep) {
    const auto& m = p.metrics;
    if (!valid(p)) {
      std::vector<Cell> row{{num(p.level)}, {point_text(p), CellStyle::kBlock}};
      row.resize(sweep.header.size(), Cell{kNotMeasured});
      sweep.rows.push_back(std::move(row));
      continue;
    }
    sweep.rows.push_back({{num(p.level)}, {point_text(p)}, {num(m.throughput)}, {num(p.efficiency)},
                          {num(m.latency.p50)}, {num(m.latency.p99)}, {num(m.latency.max)}, {num(m.wait.p99)},
                          {num(m.wait.max)}, {std::to_string(m.waits)}, {std::to_string(m.bypasses)},
                          {std::to_string(m.max_bypassed)}, {std::to_string(m.overtakes)},
                          {std::to_string(m.max_overtaken)}, {std::to_string(m.max_lock_table)}});
  }
  return sweep;
}

Table categories_table(const sim::CampaignResult& r, std::size_t s) {
  const auto& sc = r.schemes[s];
  Table cats{{"#", "pair", "related", "static", "observed", "probe waits", "probe held together", "first wait"}, {}};
  for (std::size_t c = 0; c < model::kCategoryCount; ++c) {
    const auto& info = model::all_categories()[c];
    const auto& o = sc.probe.result.observed[c];
    const auto cell = [](model::Verdict v) { return v == model::Verdict::kAllows ? allow_cell() : block_cell(); };
    cats.rows.push_back({{std::to_string(info.number)},
                         {fmt::format("{}, {}", model::to_string(info.first), model::to_string(info.second))},
                         {info.relation == model::Relation::kRelated ? "yes" : "no"},
                         cell(r.statics.schemes[s].verdicts[c]), cell(sc.observed[c]),
                         {std::to_string(o.waits)}, {std::to_string(o.concurrent)}, {o.witness.value_or("")}});
  }
  return cats;
}

}  // namespace

Document simulate_document(const sim::CampaignResult& r, Plots plots, const std::filesystem::path& out_dir) {
  Document doc;
  doc.heading(1, "pathlock: simulation campaign");
  doc.paragraph(fmt::format(
      "Seed {} (rerun with --seed {}). Every scheme ran the same schedules; the oracle admits a request as soon as "
      "it conflicts with no running request, FIFO among conflicting ones, and efficiency is a scheme's throughput "
      "over the oracle's on the same schedule. Times are in units of the mean hold time. Only completed runs "
      "measured performance: a run stopped by a safety violation or a deadlock ran part of its schedule, so the "
      "tables show where it stopped instead of its numbers, and the plots leave it out.",
      r.spec.seed, r.spec.seed));
  doc.paragraph("Workloads. " + describe(at_level(r.spec.sweep, r.spec.levels.front())) + fmt::format(
                    " (swept over {}: {}). ", level_name(r.spec), fmt::join(r.spec.levels, ", ")) +
                describe(r.spec.probe) + ". " + describe(r.spec.multipath) + ".");
  doc.heading(2, "Summary");
  doc.table(simulate_summary(r));
  for (const auto& sc : r.schemes) {
    if (const auto* f = sc.first_failure()) {
      doc.alert(fmt::format("{}: {} on workload {} (seed {}). Replay{}: {}", sc.scheme->name(),
                            describe_run(f->result.outcome, f->result.metrics.tasks_completed, f->tasks_scheduled),
                            f->workload, f->seed, out_dir.empty() ? " (from this report's folder)" : "",
                            replay_command(out_dir, sc.scheme->name())));
    }
  }
  if (plots == Plots::kDraw) {
    doc.image("throughput.svg", "throughput against " + level_name(r.spec) + " (completed runs)");
    doc.image("p99.svg", "p99 latency against " + level_name(r.spec) + " (completed runs)");
    doc.image("efficiency.svg", "concurrency efficiency against " + level_name(r.spec) + " (completed runs)");
  }
  Table oracle{{level_name(r.spec), "seed", "throughput", "p50 latency", "p99 latency", "max latency"}, {}};
  for (const auto& p : r.oracle) {
    oracle.rows.push_back({{num(p.level)}, {std::to_string(p.seed)}, {num(p.metrics.throughput)},
                           {num(p.metrics.latency.p50)}, {num(p.metrics.latency.p99)}, {num(p.metrics.latency.max)}});
  }
  doc.heading(2, "Oracle");
  doc.table(oracle);
  for (std::size_t s = 0; s < r.schemes.size(); ++s) {
    const auto& sc = r.schemes[s];
    doc.heading(2, sc.scheme->name() + ": " + sc.scheme->title());
    doc.table(sweep_table(r.spec, sc));
    doc.heading(3, "Observed concurrency table");
    doc.table(categories_table(r, s));
    doc.paragraph(sc.observed_matches_static ? "The observed table equals the static one."
                                             : "The observed table DIFFERS from the static one.");
    for (const sim::NamedRun* run : {&sc.probe, &sc.multipath}) {
      const auto& m = run->result.metrics;
      doc.paragraph(fmt::format("Workload {} (seed {}): {}; {} of {} tasks completed, {} events.", run->workload,
                                run->seed, describe_run(run->result.outcome, m.tasks_completed, run->tasks_scheduled),
                                m.tasks_completed, run->tasks_scheduled, m.events));
      if (run->result.outcome != sim::RunOutcome::kCompleted) failure_blocks(doc, run->result);
    }
    if (sc.sweep_failure) failure_blocks(doc, sc.sweep_failure->result);
  }
  return doc;
}

std::vector<std::filesystem::path> write_simulate(const sim::CampaignResult& r, const std::filesystem::path& dir,
                                                  Plots plots) {
  ReportFolder folder(dir);
  remove_earlier_simulate_outputs(dir);
  const auto write = [&](const std::string& name, const std::string& text) { folder.write(name, text); };
  for (const auto& sc : r.schemes) {
    if (const auto* f = sc.first_failure()) {
      write(replay_path("", sc.scheme->name()).string(), replay_json(sc.scheme->name(), *f).dump(2) + "\n");
    }
  }
  Document doc = simulate_document(r, plots, {});
  if (plots == Plots::kDraw) {
    write("sweep-oracle.dat", sweep_data(r.oracle));
    for (const auto& sc : r.schemes) write("sweep-" + sc.scheme->name() + ".dat", sweep_data(sc.sweep));
    run_gnuplot(dir, plot_script(r));
    for (const char* f : {"plots.gp", "throughput.svg", "p99.svg", "efficiency.svg"}) folder.add(f);
    embed_svg_images(doc, dir);
  }
  write("simulate.md", render_markdown(doc));
  write("simulate.html", render_html(doc, "pathlock: simulation campaign"));
  write("simulate.json", simulate_json(r).dump(2) + "\n");
  return folder.files();
}

}  // namespace pathlock::reports
