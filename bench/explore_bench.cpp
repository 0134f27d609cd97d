// The model checker: exhaustive exploration of N tasks with one conflicting
// request each (every task writes /a/b), for N = 4, 5, 6, under every
// built-in scheme. The baseline is the same search with every reduction off
// (state hashing only), in the same run. Targets: N=5 under 1 s,
// N=6 under 10 s, per scheme.
//
// Counters: states (distinct states visited), transitions, states_per_second.

#include <benchmark/benchmark.h>

#include <string>

#include "pathlock/sim/explorer.hpp"
#include "summary_reporter.hpp"

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

// Reduced against no reduction, per scheme and N, from this run's figures;
// schemes with the same figures share a row.
std::string summary(const pathlock::bench::FigureTable& figures, int cpus) {
  using pathlock::bench::fixed;
  const auto cell = [&](const std::string& name) -> std::string {
    auto it = figures.find(name);
    if (it == figures.end()) return "-";
    return fixed(it->second.ns / 1e6, 3) + " ms, " + fixed(it->second.counter("states", 0), 0) + " states";
  };
  const auto rate = [&](const std::string& name) -> double {
    auto it = figures.find(name);
    return it == figures.end() ? 0 : it->second.counter("states_per_second", 0);
  };
  std::string out = "\n### Exhaustive exploration: N tasks that each write /a/b (this run, " + pathlock::bench::cpus_named(cpus) +
                    ")\n\n| scheme | N | reduced (POR + symmetry) | no reduction (state hashing only) | "
                    "speed-up | reduced states/s |\n|---|---:|---:|---:|---:|---:|\n";
  std::string targets;
  for (const auto* scheme : pathlock::impl::builtin_schemes()) {
    const std::string n = scheme->name();
    for (int tasks = 4; tasks <= 6; ++tasks) {
      const std::string reduced = "BM_Explore/reduced/" + n + "/" + std::to_string(tasks);
      const std::string baseline = "BM_Explore/baseline-no-reduction/" + n + "/" + std::to_string(tasks);
      auto r = figures.find(reduced);
      auto b = figures.find(baseline);
      const std::string speedup =
          r != figures.end() && b != figures.end() && r->second.ns > 0 ? fixed(b->second.ns / r->second.ns, 1) + "x" : "-";
      out += "| " + n + " | " + std::to_string(tasks) + " | " + cell(reduced) + " | " + cell(baseline) + " | " +
             speedup + " | " + (rate(reduced) > 0 ? fixed(rate(reduced) / 1e6, 2) + " M" : "-") + " |\n";
      if (r != figures.end() && (tasks == 5 || tasks == 6)) {
        const double limit_ms = tasks == 5 ? 1000 : 10000;
        const double ms = r->second.ns / 1e6;
        if (ms > limit_ms) targets += "- " + n + " N=" + std::to_string(tasks) + ": " + fixed(ms, 3) + " ms, NOT met\n";
      }
    }
  }
  out += "\nTargets: N=5 under 1 s and N=6 under 10 s per scheme: " +
         std::string(targets.empty() ? "met by every scheme.\n" : "\n" + targets);
  return out;
}

}  // namespace

int main(int argc, char** argv) { return pathlock::bench::run_with_summary(argc, argv, register_all, summary); }
