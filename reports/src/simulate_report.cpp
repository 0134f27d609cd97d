#include <fmt/format.h>

#include <cmath>

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
          {"max_bypassed", m.max_bypassed}, {"max_lock_table", m.max_lock_table},
          {"distinct_locks", m.distinct_locks}};
}

json task_json(const sim::TaskView& t) {
  return {{"task", t.task}, {"client", t.client}, {"operation", t.operation}, {"plan", t.plan},
          {"held", t.held}, {"waiting_for", t.waiting_for}};
}

json run_json(const sim::NamedRun& run) {
  const auto& r = run.result;
  json j{{"workload", run.workload}, {"seed", run.seed}, {"outcome", sim::to_string(r.outcome)},
         {"metrics", metrics_json(r.metrics)}, {"violation", nullptr}, {"deadlock", nullptr},
         {"trace", r.trace}};
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

std::string replay_file_name(const impl::Scheme& s) { return "replay-" + s.name() + ".json"; }

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

}  // namespace

json replay_json(const std::string& scheme, const sim::NamedRun& run) {
  return {{"schema", kReplaySchema}, {"scheme", scheme}, {"workload", run.workload}, {"seed", run.seed},
          {"outcome", sim::to_string(run.result.outcome)},
          {"schedule", sim::schedule_to_json(*run.result.replay)}};
}

json simulate_json(const sim::CampaignResult& r) {
  json oracle = json::array();
  for (const auto& p : r.oracle) {
    oracle.push_back({{"level", p.level}, {"seed", p.seed}, {"metrics", metrics_json(p.metrics)}});
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
                       {"metrics", metrics_json(p.metrics)}, {"efficiency", p.efficiency}});
    }
    const auto* failure = sc.first_failure();
    schemes.push_back({{"name", sc.scheme->name()},
                       {"single_path_violations", sc.single_path_violations},
                       {"single_path_deadlocks", sc.single_path_deadlocks},
                       {"observed_matches_static", sc.observed_matches_static},
                       {"categories", cats},
                       {"sweep", sweep},
                       {"probe", run_json(sc.probe)},
                       {"multipath", run_json(sc.multipath)},
                       {"replay_file", failure ? json(replay_file_name(*sc.scheme)) : json(nullptr)}});
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
  Table t{{"scheme", "single-path violations", "deadlocks", "observed = static", "throughput " + at,
           "p99 latency " + at, "efficiency " + at, "longest wait", "max bypassed", "max lock table",
           "multipath run"},
          {}};
  for (const auto& sc : r.schemes) {
    double longest = 0;
    std::uint64_t bypassed = 0;
    std::size_t table = 0;
    for (const auto& p : sc.sweep) {
      longest = std::max(longest, p.metrics.wait.max);
      bypassed = std::max(bypassed, p.metrics.max_bypassed);
      table = std::max(table, p.metrics.max_lock_table);
    }
    const auto& m = sc.sweep[ref].metrics;
    const bool mp_ok = sc.multipath.result.outcome == sim::RunOutcome::kCompleted;
    t.rows.push_back({{sc.scheme->name(), CellStyle::kHeader},
                      {std::to_string(sc.single_path_violations), sc.single_path_violations ? CellStyle::kBlock : CellStyle::kPlain},
                      {std::to_string(sc.single_path_deadlocks), sc.single_path_deadlocks ? CellStyle::kBlock : CellStyle::kPlain},
                      {sc.observed_matches_static ? "yes" : "NO", sc.observed_matches_static ? CellStyle::kPlain : CellStyle::kBlock},
                      {num(m.throughput)},
                      {num(m.latency.p99)},
                      {num(sc.sweep[ref].efficiency)},
                      {num(longest)},
                      {std::to_string(bypassed)},
                      {std::to_string(table)},
                      {std::string(sim::to_string(sc.multipath.result.outcome)), mp_ok ? CellStyle::kPlain : CellStyle::kBlock}});
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

Document simulate_document(const sim::CampaignResult& r, bool with_plots) {
  Document doc;
  doc.heading(1, "pathlock: simulation campaign");
  doc.paragraph(fmt::format(
      "Seed {} (rerun with --seed {}). Every scheme ran the same schedules; the oracle admits a request as soon as "
      "it conflicts with no running request, FIFO among conflicting ones, and efficiency is a scheme's throughput "
      "over the oracle's on the same schedule. Times are in units of the mean hold time.",
      r.spec.seed, r.spec.seed));
  doc.paragraph("Workloads. " + describe(at_level(r.spec.sweep, r.spec.levels.front())) + fmt::format(
                    " (swept over {}: {}). ", level_name(r.spec), fmt::join(r.spec.levels, ", ")) +
                describe(r.spec.probe) + ". " + describe(r.spec.multipath) + ".");
  doc.heading(2, "Summary");
  doc.table(simulate_summary(r));
  for (const auto& sc : r.schemes) {
    if (const auto* f = sc.first_failure()) {
      doc.alert(fmt::format("{}: {} on workload {} (seed {}). Replay: pathlock replay {}", sc.scheme->name(),
                            sim::to_string(f->result.outcome), f->workload, f->seed, replay_file_name(*sc.scheme)));
    }
  }
  if (with_plots) {
    doc.image("throughput.svg", "throughput against " + level_name(r.spec));
    doc.image("p99.svg", "p99 latency against " + level_name(r.spec));
    doc.image("efficiency.svg", "concurrency efficiency against " + level_name(r.spec));
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
    Table sweep{{level_name(r.spec), "throughput", "efficiency", "p50 latency", "p99 latency", "max latency",
                 "p99 wait", "longest wait", "waits", "bypasses", "max bypassed", "max lock table", "outcome"},
                {}};
    for (const auto& p : sc.sweep) {
      const auto& m = p.metrics;
      sweep.rows.push_back({{num(p.level)}, {num(m.throughput)}, {num(p.efficiency)}, {num(m.latency.p50)},
                            {num(m.latency.p99)}, {num(m.latency.max)}, {num(m.wait.p99)}, {num(m.wait.max)},
                            {std::to_string(m.waits)}, {std::to_string(m.bypasses)}, {std::to_string(m.max_bypassed)},
                            {std::to_string(m.max_lock_table)}, {std::string(sim::to_string(p.outcome))}});
    }
    doc.table(sweep);
    doc.heading(3, "Observed concurrency table");
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
    doc.table(cats);
    doc.paragraph(sc.observed_matches_static ? "The observed table equals the static one."
                                             : "The observed table DIFFERS from the static one.");
    for (const sim::NamedRun* run : {&sc.probe, &sc.multipath}) {
      doc.paragraph(fmt::format("Workload {} (seed {}): {}; {} tasks completed, {} events.", run->workload, run->seed,
                                sim::to_string(run->result.outcome), run->result.metrics.tasks_completed,
                                run->result.metrics.events));
      if (run->result.outcome != sim::RunOutcome::kCompleted) failure_blocks(doc, run->result);
    }
    if (sc.sweep_failure) failure_blocks(doc, sc.sweep_failure->result);
  }
  return doc;
}

std::vector<std::filesystem::path> write_simulate(const sim::CampaignResult& r, const std::filesystem::path& dir,
                                                  Plots plots) {
  ReportFolder folder(dir);
  const auto write = [&](const std::string& name, const std::string& text) { folder.write(name, text); };
  const bool with_plots = plots == Plots::kDraw;
  const Document doc = simulate_document(r, with_plots);
  write("simulate.md", render_markdown(doc));
  write("simulate.html", render_html(doc, "pathlock: simulation campaign"));
  write("simulate.json", simulate_json(r).dump(2) + "\n");
  for (const auto& sc : r.schemes) {
    if (const auto* f = sc.first_failure()) write(replay_file_name(*sc.scheme), replay_json(sc.scheme->name(), *f).dump(2) + "\n");
  }
  if (with_plots) {
    std::string oracle_data = "# level\tthroughput\tp99\tefficiency\n";
    for (const auto& p : r.oracle) oracle_data += fmt::format("{}\t{}\t{}\t1\n", p.level, p.metrics.throughput, p.metrics.latency.p99);
    write("sweep-oracle.dat", oracle_data);
    for (const auto& sc : r.schemes) {
      std::string data = "# level\tthroughput\tp99\tefficiency\n";
      for (const auto& p : sc.sweep) {
        data += fmt::format("{}\t{}\t{}\t{}\n", p.level, p.metrics.throughput, p.metrics.latency.p99, p.efficiency);
      }
      write("sweep-" + sc.scheme->name() + ".dat", data);
    }
    const auto plot = [&](const std::string& file, const std::string& ylabel, int column, bool with_oracle) {
      std::string s = fmt::format("set output '{}'\nset ylabel '{}'\nplot ", file, ylabel);
      std::vector<std::string> series;
      if (with_oracle) series.push_back(fmt::format("'sweep-oracle.dat' using 1:{} with linespoints dt 2 lw 2 title 'oracle'", column));
      for (const auto& sc : r.schemes) {
        series.push_back(fmt::format("'sweep-{}.dat' using 1:{} with linespoints lw 2 title '{}'", sc.scheme->name(), column,
                                     sc.scheme->name()));
      }
      return s + fmt::format("{}\n", fmt::join(series, ", \\\n     "));
    };
    const bool closed = r.spec.sweep.load == sim::LoadMode::kClosed;
    std::string script = fmt::format(
        "set terminal svg size 720,420 dynamic font 'sans,12' background rgb 'white'\n"
        "set grid\nset key outside right\nset xlabel '{}'\n{}",
        level_name(r.spec), closed ? "set logscale x 2\n" : "");
    script += plot("throughput.svg", "throughput (tasks per unit time)", 2, true);
    script += "set logscale y\n" + plot("p99.svg", "p99 latency (units of mean hold)", 3, true) + "unset logscale y\n";
    script += "set yrange [0:*]\n" + plot("efficiency.svg", "throughput / oracle throughput", 4, false);
    run_gnuplot(dir, script);
    for (const char* f : {"throughput.svg", "p99.svg", "efficiency.svg"}) folder.add(f);
  }
  return folder.files();
}

}  // namespace pathlock::reports
