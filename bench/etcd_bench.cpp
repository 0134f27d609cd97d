// The etcd lock against etcd's own lock, on one three-member cluster on
// loopback that this program starts (tests/support/etcd_cluster.hpp), in the
// same run. Each benchmark thread is a separate client, with its own lease
// and connections, as separate processes would be.
//
//   disjoint  thread i writes /t<i>/folder/sub/object   (no two conflict)
//   hot       every thread writes /hot/folder           (all conflict)
//
// EtcdPathLock takes the request; etcd's lock (/v3/lock/lock, then
// /v3/lock/unlock, with the thread's lease) takes the path's text as its
// name: it serialises equal names only, with none of the folder semantics.
// Per acquire+release: real time (latency), acquisitions per second over all
// threads, and HTTP requests sent (round trips). `--summary=FILE` writes the
// Markdown summary the README quotes.

#include <benchmark/benchmark.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pathlock/etcd/etcd_path_lock.hpp"
#include "summary_reporter.hpp"
#include "support/etcd_cluster.hpp"

namespace {

using pathlock::bench::FigureTable;
using pathlock::bench::fixed;

pathlock::testing_support::EtcdCluster& cluster() {
  static pathlock::testing_support::EtcdCluster instance(3);
  return instance;
}

enum class Workload { kDisjoint, kHot };
const char* name_of(Workload w) { return w == Workload::kDisjoint ? "disjoint" : "hot"; }

pathlock::model::Path path_for(Workload w, int thread) {
  return pathlock::model::Path::parse(w == Workload::kDisjoint ? "/t" + std::to_string(thread) + "/folder/sub/object"
                                                               : std::string("/hot/folder"));
}

void report(benchmark::State& state, std::uint64_t requests) {
  state.SetItemsProcessed(state.iterations());
  state.counters["round_trips"] = benchmark::Counter(
      static_cast<double>(requests) / static_cast<double>(std::max<benchmark::IterationCount>(state.iterations(), 1)),
      benchmark::Counter::kAvgThreads);
}

void BM_EtcdPathLock(benchmark::State& state, Workload workload) {
  pathlock::etcd::EtcdPathLockOptions o;
  o.client.endpoints = cluster().client_urls();
  o.key_prefix = "bench/pathlock/";
  o.lease_ttl = std::chrono::seconds(60);  // keep-alives every 15 s: out of the counts
  pathlock::etcd::EtcdPathLock lock(o);
  (void)lock.lease_id();
  const auto request = pathlock::model::write(path_for(workload, state.thread_index())).request();
  const auto before = lock.client().requests_sent();
  for (auto _ : state) {
    auto guard = lock.acquire(request);
    if (!guard) state.SkipWithError("not granted");
  }
  report(state, lock.client().requests_sent() - before);
}

void BM_EtcdLockApi(benchmark::State& state, Workload workload) {
  // A waiting /v3/lock/lock answers only once granted: no client timeout
  // short enough to send it twice.
  pathlock::etcd::Client client({.endpoints = cluster().client_urls(),
                                 .call_timeout = std::chrono::milliseconds(600000),
                                 .unavailable_after = std::chrono::milliseconds(15000)});
  const auto lease = pathlock::etcd::json_int(client.call("lease/grant", {{"TTL", "600"}}), "ID");
  const std::string name = pathlock::etcd::base64_encode("bench/etcdlock" + path_for(workload, state.thread_index()).str());
  const auto before = client.requests_sent();
  for (auto _ : state) {
    const auto locked = client.call("lock/lock", {{"name", name}, {"lease", std::to_string(lease)}});
    client.call("lock/unlock", {{"key", locked.at("key")}});
  }
  report(state, client.requests_sent() - before);
  client.call("lease/revoke", {{"ID", std::to_string(lease)}});
}

constexpr int kMaxThreads = 64;

void register_all() {
  for (const Workload w : {Workload::kDisjoint, Workload::kHot}) {
    for (const auto& [lock, fn] : {std::pair{"EtcdPathLock", &BM_EtcdPathLock}, std::pair{"etcd-lock", &BM_EtcdLockApi}}) {
      auto* b = benchmark::RegisterBenchmark((std::string(name_of(w)) + "/" + lock).c_str(), fn, w);
      for (int t = 1; t <= kMaxThreads; t *= 2) b->Threads(t);
      b->UseRealTime();
    }
  }
}

std::string summary(const FigureTable& figures, int cpus) {
  std::string out = "### The etcd lock against etcd's own lock (this run, " + pathlock::bench::cpus_named(cpus) +
                    "; a 3-member cluster on loopback)\n\n"
                    "| workload | threads | EtcdPathLock acquisitions/s | etcd lock acquisitions/s | ratio | "
                    "EtcdPathLock ms per acquire+release | etcd lock ms | round trips: EtcdPathLock | etcd lock |\n"
                    "|---|---|---|---|---|---|---|---|---|\n";
  for (const Workload w : {Workload::kDisjoint, Workload::kHot}) {
    for (int t = 1; t <= kMaxThreads; t *= 2) {
      const auto suffix = "/real_time/threads:" + std::to_string(t);
      const auto ours = figures.find(std::string(name_of(w)) + "/EtcdPathLock" + suffix);
      const auto theirs = figures.find(std::string(name_of(w)) + "/etcd-lock" + suffix);
      if (ours == figures.end() || theirs == figures.end()) continue;
      const double a = ours->second.counter("items_per_second");
      const double b = theirs->second.counter("items_per_second");
      out += "| " + std::string(name_of(w)) + " | " + std::to_string(t) + " | " + fixed(a, 0) + " | " + fixed(b, 0) +
             " | " + fixed(b > 0 ? a / b : 0, 2) + "x | " + fixed(ours->second.ns / 1e6, 2) + " | " +
             fixed(theirs->second.ns / 1e6, 2) + " | " + fixed(ours->second.counter("round_trips"), 2) + " | " +
             fixed(theirs->second.counter("round_trips"), 2) + " |\n";
    }
  }
  out += "\nRound trips are HTTP requests per acquire+release: 2 for an uncontended EtcdPathLock (one transaction "
         "each), 4 when it waits one round (a watch on the newest older conflicting record, then one transaction that "
         "reads the rest and confirms its own records). "
         "etcd's lock waits inside its one /v3/lock/lock call.\n";
  return out;
}

}  // namespace

int main(int argc, char** argv) { return pathlock::bench::run_with_summary(argc, argv, register_all, summary); }
