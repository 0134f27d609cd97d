// Planning costs: what every acquire pays before it touches a lock.
//
// Baselines in the same run: parsing the request's key (the least any caller
// does) and listing its ancestors (the paths any per-path plan must name).
// The main() starts a thread before timing: glibc skips atomic instructions
// until a process has created one, which flatters single-threaded figures.

#include <benchmark/benchmark.h>

#include <thread>

#include "pathlock/impl/plan.hpp"
#include "pathlock/sim/static_table.hpp"

namespace {

using pathlock::model::Path;
using pathlock::model::Request;

const Path& depth4() {
  static const Path p = Path::from_key("bucket/folder/sub/object");
  return p;
}

void BM_Baseline_ParseKey(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(Path::from_key("bucket/folder/sub/object"));
}
BENCHMARK(BM_Baseline_ParseKey);

void BM_Baseline_ListAncestors(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(depth4().proper_ancestors());
}
BENCHMARK(BM_Baseline_ListAncestors);

template <typename MakeRequest>
void plan_case(benchmark::State& state, const pathlock::impl::Scheme& scheme, MakeRequest make) {
  const Request r = make();
  std::size_t steps = 0;
  for (auto _ : state) {
    auto plan = pathlock::impl::plan_for(scheme, r);
    steps += plan.size();
    benchmark::DoNotOptimize(plan);
  }
  state.counters["locks"] = benchmark::Counter(static_cast<double>(steps) / static_cast<double>(state.iterations()));
}

void register_plans() {
  for (const auto* scheme : pathlock::impl::builtin_schemes()) {
    benchmark::RegisterBenchmark(("BM_Plan/write-depth4/" + scheme->name()).c_str(),
                                 [scheme](benchmark::State& st) {
                                   plan_case(st, *scheme, [] { return Request({}, {depth4()}); });
                                 });
    benchmark::RegisterBenchmark(("BM_Plan/copy-depth4/" + scheme->name()).c_str(),
                                 [scheme](benchmark::State& st) {
                                   plan_case(st, *scheme, [] {
                                     return Request({depth4()}, {Path::from_key("bucket/folder/other/object")});
                                   });
                                 });
  }
}

void BM_StaticTables_DefaultTree(benchmark::State& state) {
  std::uint64_t pairs = 0;
  for (auto _ : state) {
    auto a = pathlock::sim::analyze_static(pathlock::impl::builtin_schemes(), pathlock::sim::TreeSpec{});
    pairs += a.pairs * a.schemes.size();
    benchmark::DoNotOptimize(a);
  }
  state.counters["scheme_pairs/s"] = benchmark::Counter(static_cast<double>(pairs), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_StaticTables_DefaultTree)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  std::thread([] {}).join();
  register_plans();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
