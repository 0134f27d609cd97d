// The model checker: exhaustive exploration of N tasks with one conflicting
// request each (every task writes /a/b), for N = 4, 5, 6, under every
// built-in scheme. The baseline is the same search with every reduction off
// (state hashing only), in the same run. Targets (issue 4): N=5 under 1 s,
// N=6 under 10 s, per scheme.
//
// Counters: states (distinct states visited), transitions, states_per_second.

#include <benchmark/benchmark.h>

#include <string>
#include <thread>

#include "pathlock/sim/explorer.hpp"

namespace {

using pathlock::sim::ExploreOptions;
using pathlock::sim::Scenario;

Scenario writers(int n) {
  Scenario s;
  s.name = "writers";
  for (int i = 0; i < n; ++i) s.tasks.push_back({pathlock::model::write(pathlock::model::Path::parse("/a/b"))});
  return s;
}

void explore_case(benchmark::State& state, const pathlock::impl::Scheme& scheme, bool reductions) {
  const Scenario scenario = writers(static_cast<int>(state.range(0)));
  const pathlock::sim::SchemePlanner planner(scheme);
  ExploreOptions options;
  options.count_naive = false;
  options.partial_order_reduction = reductions;
  options.symmetry = reductions;
  pathlock::sim::ExploreResult r;
  for (auto _ : state) {
    r = pathlock::sim::explore(planner, scenario, options);
    benchmark::DoNotOptimize(r.states);
  }
  if (r.verdict != pathlock::sim::Verdict::kSafeAndDeadlockFree) state.SkipWithError("unexpected verdict");
  state.counters["states"] = static_cast<double>(r.states);
  state.counters["transitions"] = static_cast<double>(r.transitions);
  state.counters["states_per_second"] =
      benchmark::Counter(static_cast<double>(r.states) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void register_all() {
  for (const auto* scheme : pathlock::impl::builtin_schemes()) {
    benchmark::RegisterBenchmark(("BM_Explore/reduced/" + scheme->name()).c_str(),
                                 [scheme](benchmark::State& st) { explore_case(st, *scheme, true); })
        ->DenseRange(4, 6)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_Explore/baseline-no-reduction/" + scheme->name()).c_str(),
                                 [scheme](benchmark::State& st) { explore_case(st, *scheme, false); })
        ->DenseRange(4, 6)
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::thread([] {}).join();  // as every benchmark here: the process has a thread before timing
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
