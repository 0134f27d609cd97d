// Simulator speed: schedules, events and lock requests per second, per
// schedule shape and scheme, and the time of the whole default campaign.
//
// A schedule is run from its tasks' arrival until every lock is released, on
// a reused Simulator (plans cached per distinct operation), with the safety
// oracle and the deadlock search on. Baseline in the same run: the oracle
// admission policy on the same schedules, which takes no locks at all.
// `--summary=FILE` writes the Markdown the README quotes (scripts/bench.sh).

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "pathlock/sim/campaign.hpp"
#include "pathlock/sim/simulator.hpp"
#include "summary_reporter.hpp"

namespace {

using namespace pathlock;

// The schedule shapes measured. Each gets its benchmarks and its own table
// in the summary; to measure another shape, add a row here.
struct ScheduleShape {
  std::string slug;         // part of the benchmark names
  std::string description;  // the summary's heading
  int tasks;                // per schedule
  int clients;              // closed-loop clients
  std::size_t schedules;    // distinct schedules, run in turn
  double target_per_second; // schedules/s on one core the README promises; 0: none
};

const std::vector<ScheduleShape>& shapes() {
  static const std::vector<ScheduleShape> all{
      {"4-tasks-depth4", "4 tasks with depth-4 single-path requests (60/30/10 read/write/delete)", 4, 4, 1024,
       250'000},
      // Many clients: each wait searches the wait-for graph, each completed
      // acquisition is judged against every request held. Target: one
      // schedule in 5 s or less.
      {"20k-tasks-1000-clients", "20,000 tasks at 1,000 closed-loop clients, the same mix", 20'000, 1'000, 1, 0.2},
  };
  return all;
}

std::vector<sim::Schedule> schedules_of(const ScheduleShape& shape) {
  sim::WorkloadSpec w;
  w.tree = {4, 4};
  w.mix = {0.6, 0.3, 0.1, 0, 0};
  w.zipf = 0.8;
  w.clients = shape.clients;
  w.tasks = shape.tasks;
  std::vector<model::Path> deepest;
  for (const auto& p : sim::workload_paths(w)) {
    if (p.depth() == 4) deepest.push_back(p);
  }
  std::vector<sim::Schedule> out;
  for (std::size_t i = 0; i < shape.schedules; ++i) {
    out.push_back(sim::generate_schedule(w, deepest, sim::derive_seed(42, i)));
  }
  return out;
}

void rates(benchmark::State& state, std::uint64_t events, std::uint64_t requests) {
  using benchmark::Counter;
  state.counters["schedules/s"] = Counter(static_cast<double>(state.iterations()), Counter::kIsRate);
  if (events > 0) state.counters["events/s"] = Counter(static_cast<double>(events), Counter::kIsRate);
  if (requests > 0) state.counters["lock_requests/s"] = Counter(static_cast<double>(requests), Counter::kIsRate);
}

void run_schedules(benchmark::State& state, const ScheduleShape& shape, const impl::Scheme& scheme) {
  const auto all = schedules_of(shape);
  const sim::SchemePlanner planner(scheme);
  sim::Simulator simulator(planner);
  std::size_t i = 0;
  std::uint64_t events = 0;
  std::uint64_t requests = 0;
  for (auto _ : state) {
    const auto& r = simulator.run(all[i++ % all.size()]);
    events += r.metrics.events;
    requests += r.metrics.lock_requests;
    benchmark::DoNotOptimize(r.metrics.makespan);
  }
  rates(state, events, requests);
}

void run_oracle(benchmark::State& state, const ScheduleShape& shape) {
  const auto all = schedules_of(shape);
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(sim::simulate_oracle(all[i++ % all.size()]).makespan);
  rates(state, 0, 0);
}

// What `pathlock simulate` computes, without writing the report and plots.
void run_default_campaign(benchmark::State& state) {
  const sim::CampaignSpec spec = sim::default_campaign();
  for (auto _ : state) benchmark::DoNotOptimize(sim::run_campaign(spec).schemes.size());
}

std::string schedules_name(const ScheduleShape& shape, const std::string& scheme) {
  return "BM_Schedules/" + shape.slug + "/" + scheme;
}
std::string oracle_name(const ScheduleShape& shape) { return "BM_Baseline_OracleSchedules/" + shape.slug; }
constexpr const char* kCampaignName = "BM_DefaultCampaign";

void register_all() {
  for (const auto& shape : shapes()) {
    benchmark::RegisterBenchmark(oracle_name(shape).c_str(), [&shape](benchmark::State& st) { run_oracle(st, shape); });
    for (const auto* s : impl::builtin_schemes()) {
      benchmark::RegisterBenchmark(schedules_name(shape, s->name()).c_str(),
                                   [&shape, s](benchmark::State& st) { run_schedules(st, shape, *s); });
    }
  }
  benchmark::RegisterBenchmark(kCampaignName, run_default_campaign)->Unit(benchmark::kMillisecond);
}

// 1,234,567 -> "1.23 M", 866,000 -> "866 k".
std::string per_second(double v) {
  using pathlock::bench::fixed;
  if (v <= 0) return "";
  if (v >= 1e6) return fixed(v / 1e6, v >= 1e7 ? 1 : 2) + " M";
  if (v >= 1e3) return fixed(v / 1e3, 0) + " k";
  if (v < 10) return fixed(v, 2);
  return fixed(v, 0);
}

std::string summary(const pathlock::bench::FigureTable& figures, int cpus) {
  const auto find = [&](const std::string& name) -> const pathlock::bench::Figures* {
    auto it = figures.find(name);
    return it == figures.end() ? nullptr : &it->second;
  };
  const auto counter = [&](const pathlock::bench::Figures* f, const char* name) {
    return f == nullptr ? std::string("-") : per_second(f->counter(name, 0));
  };
  std::string out;
  for (const auto& shape : shapes()) {
    std::string targets;  // the schemes that miss this shape's target
    std::size_t measured = 0;
    out += "\n### Simulator: " + shape.description + " (this run, " + pathlock::bench::cpus_named(cpus) + ")\n\n";
    out += "| run | schedules/s | events/s | lock requests/s |\n|---|---:|---:|---:|\n";
    const auto* oracle = find(oracle_name(shape));
    out += "| baseline: oracle policy (no locks) | " + counter(oracle, "schedules/s") + " | | |\n";
    for (const auto* s : impl::builtin_schemes()) {
      const auto* f = find(schedules_name(shape, s->name()));
      out += "| " + s->name() + " | " + counter(f, "schedules/s") + " | " + counter(f, "events/s") + " | " +
             counter(f, "lock_requests/s") + " |\n";
      if (f != nullptr) ++measured;
      if (shape.target_per_second > 0 && f != nullptr) {
        const double got = f->counter("schedules/s", 0);
        if (got < shape.target_per_second) {
          targets += "- " + s->name() + " on " + shape.slug + ": " + per_second(got) + " schedules/s, NOT met\n";
        }
      }
    }
    if (shape.target_per_second > 0 && measured == 0) {
      out += "\nNot measured in this run.\n";
    } else if (shape.target_per_second > 0) {
      const std::string goal = shape.target_per_second < 1
                                   ? "one schedule in " + pathlock::bench::fixed(1 / shape.target_per_second, 0) +
                                         " s or less (" + per_second(shape.target_per_second) + " schedules/s)"
                                   : per_second(shape.target_per_second) + " schedules/s";
      out += "\nTarget: " + goal + " on one core: " +
             std::string(targets.empty() ? "met by every scheme.\n" : "\n" + targets);
    }
  }
  if (const auto* campaign = find(kCampaignName)) {
    const sim::CampaignSpec spec = sim::default_campaign();
    out += "\nThe default campaign (`pathlock simulate`: " +
           std::to_string(spec.schemes.size() * (spec.levels.size() + 2)) + " scheme runs and " +
           std::to_string(spec.levels.size()) +
           " oracle runs, and the static tables; not the report files and plots): " +
           pathlock::bench::fixed(campaign->cpu_ns / 1e9, 2) + " s of CPU time (" +
           pathlock::bench::fixed(campaign->ns / 1e9, 2) + " s wall-clock).\n";
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) { return pathlock::bench::run_with_summary(argc, argv, register_all, summary); }
