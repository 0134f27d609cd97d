// Planning costs: what every acquire pays before it touches a lock.
//
// Baselines in the same run: parsing the request's key (the least any caller
// does) and listing its ancestors (the paths any per-path plan must name).
// plan_for builds Path objects (the tools' plans); plan_into writes views
// into a reused buffer (the production lock's plans). `--summary=FILE` writes
// the Markdown the README quotes (scripts/bench.sh).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>

#include "pathlock/impl/plan.hpp"
#include "pathlock/sim/static_table.hpp"
#include "summary_reporter.hpp"

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

Request write_request() { return Request({}, {depth4()}); }
Request copy_request() { return Request({depth4()}, {Path::from_key("bucket/folder/other/object")}); }

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

template <typename MakeRequest>
void plan_into_case(benchmark::State& state, const pathlock::impl::Scheme& scheme, MakeRequest make) {
  const Request r = make();
  pathlock::impl::StepBuffer steps;
  std::size_t count = 0;
  for (auto _ : state) {
    pathlock::impl::plan_into(scheme, r, steps);
    count += steps.size();
    benchmark::DoNotOptimize(steps.begin());
  }
  state.counters["locks"] = benchmark::Counter(static_cast<double>(count) / static_cast<double>(state.iterations()));
}

void register_plans() {
  for (const auto* scheme : pathlock::impl::builtin_schemes()) {
    const std::string n = scheme->name();
    benchmark::RegisterBenchmark(("BM_Plan/write-depth4/" + n).c_str(),
                                 [scheme](benchmark::State& st) { plan_case(st, *scheme, write_request); });
    benchmark::RegisterBenchmark(("BM_Plan/copy-depth4/" + n).c_str(),
                                 [scheme](benchmark::State& st) { plan_case(st, *scheme, copy_request); });
    benchmark::RegisterBenchmark(("BM_PlanInto/write-depth4/" + n).c_str(),
                                 [scheme](benchmark::State& st) { plan_into_case(st, *scheme, write_request); });
    benchmark::RegisterBenchmark(("BM_PlanInto/copy-depth4/" + n).c_str(),
                                 [scheme](benchmark::State& st) { plan_into_case(st, *scheme, copy_request); });
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

// "39 ns", or "162-165 ns" over several schemes.
std::string ns_range(const std::vector<double>& ns) {
  using pathlock::bench::fixed;
  if (ns.empty()) return "-";
  const auto [lo, hi] = std::minmax_element(ns.begin(), ns.end());
  const int decimals = *hi < 10 ? 1 : 0;
  const std::string a = fixed(*lo, decimals);
  const std::string b = fixed(*hi, decimals);
  return (a == b ? a : a + "-" + b) + " ns";
}

std::string summary(const pathlock::bench::FigureTable& figures, int cpus) {
  using pathlock::bench::fixed;
  const auto ns_of = [&](const std::string& name, std::vector<double>& into, double& locks) {
    auto it = figures.find(name);
    if (it == figures.end()) return;
    into.push_back(it->second.cpu_ns);
    locks = it->second.counter("locks", 0);
  };
  std::string out = "\n### Planning costs (this run, " + pathlock::bench::cpus_named(cpus) + ")\n\n";
  out += "| run | CPU time per call |\n|---|---:|\n";
  std::vector<double> ns;
  double locks = 0;
  ns_of("BM_Baseline_ParseKey", ns, locks);
  out += "| baseline: parse the key `bucket/folder/sub/object` | " + ns_range(ns) + " |\n";
  ns.clear();
  ns_of("BM_Baseline_ListAncestors", ns, locks);
  out += "| baseline: list its 4 ancestors | " + ns_range(ns) + " |\n";
  struct Row {
    const char* function;
    const char* op;
    pathlock::impl::Granularity granularity;
    const char* what;
  };
  const Row rows[] = {
      {"BM_Plan", "write-depth4", pathlock::impl::Granularity::kGlobal, "`plan_for` a depth-4 write, global schemes"},
      {"BM_Plan", "write-depth4", pathlock::impl::Granularity::kPerPath,
       "`plan_for` a depth-4 write, per-path schemes"},
      {"BM_Plan", "copy-depth4", pathlock::impl::Granularity::kPerPath, "`plan_for` a depth-4 copy, per-path schemes"},
      {"BM_PlanInto", "write-depth4", pathlock::impl::Granularity::kPerPath,
       "`plan_into` a depth-4 write, per-path schemes"},
      {"BM_PlanInto", "copy-depth4", pathlock::impl::Granularity::kPerPath,
       "`plan_into` a depth-4 copy, per-path schemes"},
  };
  for (const auto& row : rows) {
    ns.clear();
    locks = 0;
    for (const auto* scheme : pathlock::impl::builtin_schemes()) {
      if (scheme->granularity() != row.granularity) continue;
      ns_of(std::string(row.function) + "/" + row.op + "/" + scheme->name(), ns, locks);
    }
    out += "| " + std::string(row.what) + " (" + fixed(locks, 0) + (locks == 1 ? " lock" : " locks") + ") | " +
           ns_range(ns) + " |\n";
  }
  if (auto it = figures.find("BM_StaticTables_DefaultTree"); it != figures.end()) {
    out += "| static tables, default tree, all " + std::to_string(pathlock::impl::builtin_schemes().size()) +
           " schemes | " + fixed(it->second.cpu_ns / 1e6, 0) + " ms (" +
           fixed(it->second.counter("scheme_pairs/s", 0) / 1e6, 0) + " M scheme-pairs/s) |\n";
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  return pathlock::bench::run_with_summary(argc, argv, register_plans, summary);
}
