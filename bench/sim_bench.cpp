// Simulator speed: events per second and schedules per second.
//
// A schedule here is 4 tasks with depth-4 single-path requests, run from
// their arrival until every lock is released (the unit the model checker
// and property tests repeat). Baseline in the same run: the oracle policy on
// the same schedules, which takes no locks at all.

#include <benchmark/benchmark.h>

#include <thread>

#include "pathlock/sim/simulator.hpp"

namespace {

using namespace pathlock;

std::vector<sim::Schedule> four_task_schedules(std::size_t count) {
  sim::WorkloadSpec w;
  w.tree = {4, 4};
  w.mix = {0.6, 0.3, 0.1, 0, 0};
  w.zipf = 0.8;
  w.clients = 4;
  w.tasks = 4;
  const auto paths = sim::workload_paths(w);
  std::vector<model::Path> deepest;
  for (const auto& p : paths) {
    if (p.depth() == 4) deepest.push_back(p);
  }
  std::vector<sim::Schedule> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back(sim::generate_schedule(w, deepest, sim::derive_seed(42, i)));
  return out;
}

const std::vector<sim::Schedule>& schedules() {
  static const auto s = four_task_schedules(1024);
  return s;
}

void BM_Schedules(benchmark::State& state, const impl::Scheme* scheme) {
  const sim::SchemePlanner planner(*scheme);
  sim::Simulator simulator(planner);
  const auto& all = schedules();
  std::size_t i = 0;
  std::uint64_t events = 0;
  std::uint64_t requests = 0;
  for (auto _ : state) {
    const auto& r = simulator.run(all[i++ % all.size()]);
    events += r.metrics.events;
    requests += r.metrics.lock_requests;
    benchmark::DoNotOptimize(r.metrics.makespan);
  }
  state.counters["schedules/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["lock_requests/s"] = benchmark::Counter(static_cast<double>(requests), benchmark::Counter::kIsRate);
}

void BM_Baseline_OracleSchedules(benchmark::State& state) {
  const auto& all = schedules();
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(sim::simulate_oracle(all[i++ % all.size()]).makespan);
  state.counters["schedules/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Baseline_OracleSchedules);

}  // namespace

int main(int argc, char** argv) {
  std::thread([] {}).join();  // glibc: atomics only after the first thread
  for (const auto* s : impl::builtin_schemes()) {
    benchmark::RegisterBenchmark(("BM_Schedules/4-tasks-depth4/" + s->name()).c_str(),
                                 [s](benchmark::State& st) { BM_Schedules(st, s); });
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
