// Scaling: million acquisitions per second at 1, 2, 4, ... threads (up to
// the machine's hardware threads), for every workload of
// scaling_workloads.hpp, every built-in scheme's PathLock and the peers of
// scaling_baselines.hpp, all in one run. The summary gives, per workload,
// the scaling ratio (T threads / 1 thread) and the ratio to the best
// baseline, and judges the targets on the recommended scheme:
//   scaling       non-conflicting workloads at T threads >= 0.6 x T x 1 thread (T <= cores)
//   no collapse   the conflicting workload keeps >= 70% of its 1-thread rate at 2 threads,
//                 >= 50% at 16
//   ahead         every workload at the top thread count >= 4x the best baseline
//   uncontended   a depth-4 write acquire+release <= 4x a std::mutex lock+unlock, no allocation
//   memory        bytes per idle lock entry (the bound: active + shards x max idle)
// and shows the conflicting workload at 2 and 4 threads per hardware thread
// too, for PathLock, std::mutex and the bare FIFO locks (no target).
//
//   scaling_bench [--seed=N] [--summary=FILE] [Google Benchmark flags]
//
// --seed draws the mixed workload's operations (default 1; printed in the
// summary, which replays from it).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include <sched.h>

#include "pathlock/path_lock.hpp"
#include "counting_allocator.hpp"
#include "scaling_baselines.hpp"
#include "scaling_summary.hpp"
#include "summary_reporter.hpp"

namespace {

using pathlock::PathLock;
using pathlock::bench::g_allocations;
using pathlock::bench::g_live_bytes;
using pathlock::bench::Operation;
using pathlock::bench::Workload;
// path-rwa, which the lock refuses by default (a weak join), is measured too.
const pathlock::PathLockOptions kAnyScheme{.scheme_admission = pathlock::SchemeAdmission::kAllowDefective};

std::uint64_t g_seed = 1;

// Runs `body` on the thread's cycle of prepared items, counting allocations
// when single-threaded.
template <typename Item, typename Body>
void cycle(benchmark::State& state, const std::vector<Item>& items, Body body) {
  // Sampled inside the loop, so that the framework's own allocations when
  // the loop starts and stops are not counted.
  std::uint64_t allocations_before = 0;
  std::uint64_t allocations_after = 0;
  std::size_t i = 0;
  bool first = true;
  for (auto _ : state) {
    if (first) {
      allocations_before = g_allocations.load(std::memory_order_relaxed);
      first = false;
    }
    body(items[i]);
    if (++i == items.size()) i = 0;
    allocations_after = g_allocations.load(std::memory_order_relaxed);
  }
  state.SetItemsProcessed(state.iterations());
  if (state.threads() == 1) {
    state.counters["allocs"] = static_cast<double>(allocations_after - allocations_before) /
                               static_cast<double>(std::max<benchmark::IterationCount>(1, state.iterations()));
  }
}

// A baseline with acquire(op)/release(op).
template <typename Lock>
void baseline_case(benchmark::State& state, Lock& lock, Workload w) {
  const auto ops = pathlock::bench::operations_for(w, state.thread_index(), g_seed);
  cycle(state, ops, [&](const Operation& op) {
    lock.acquire(op);
    benchmark::ClobberMemory();
    lock.release(op);
  });
}

// Each thread its own std::mutex (OwnMutexPerThread): the workload's
// operations are cycled through only so that the loop is the baselines'.
void own_mutex_case(benchmark::State& state, pathlock::bench::OwnMutexPerThread& locks, Workload w) {
  const auto ops = pathlock::bench::operations_for(w, state.thread_index(), g_seed);
  std::mutex& mine = locks.of(state.thread_index());
  cycle(state, ops, [&](const Operation&) {
    mine.lock();
    benchmark::ClobberMemory();
    mine.unlock();
  });
}

void striped_case(benchmark::State& state, pathlock::bench::StripedSharedMutex& lock, Workload w) {
  using Striped = pathlock::bench::StripedSharedMutex;
  const auto ops = pathlock::bench::operations_for(w, state.thread_index(), g_seed);
  cycle(state, ops, [&](const Operation& op) {
    const Striped::Plan p = Striped::plan(op);
    lock.acquire(p);
    benchmark::ClobberMemory();
    lock.release(p);
  });
}

void path_lock_case(benchmark::State& state, PathLock& lock, Workload w) {
  const auto ops = pathlock::bench::operations_for(w, state.thread_index(), g_seed);
  for (const auto& op : ops) {
    auto warm = lock.acquire(op.request);  // the steady state: entries exist
  }
  cycle(state, ops, [&](const Operation& op) {
    auto guard = lock.acquire(op.request);
    benchmark::DoNotOptimize(guard.lock_count());
  });
}

// Live heap bytes per idle entry: a lock that keeps every entry, after
// writing 4,096 distinct paths /m<i> (4,097 entries with the root).
void memory_case(benchmark::State& state, const pathlock::impl::Scheme& scheme) {
  constexpr int kPaths = 4096;
  std::vector<pathlock::model::Request> requests;
  for (int i = 0; i < kPaths; ++i) {
    requests.push_back(pathlock::bench::make_operation("m" + std::to_string(i), pathlock::bench::Access::kWrite).request);
  }
  double per_entry = 0;
  for (auto _ : state) {
    PathLock lock(scheme, {.shards = 64,
                           .max_idle_locks_per_shard = 1024,
                           .scheme_admission = kAnyScheme.scheme_admission});
    { auto warm = lock.acquire(requests[0]); }  // the thread's plan buffer, the root's entry
    const std::int64_t before = g_live_bytes.load();
    const std::size_t entries_before = lock.idle_locks();
    for (const auto& r : requests) {
      auto g = lock.acquire(r);
    }
    const auto entries = static_cast<double>(lock.idle_locks() - entries_before);
    per_entry = static_cast<double>(g_live_bytes.load() - before) / entries;
  }
  state.counters["bytes_per_idle_entry"] = per_entry;
  const std::int64_t before_lock = g_live_bytes.load();
  {
    const PathLock fresh(scheme, {.scheme_admission = kAnyScheme.scheme_admission});
    state.counters["bytes_per_default_lock"] = static_cast<double>(g_live_bytes.load() - before_lock);
  }
}

// The one-way time of a cache line between the first two CPUs this process
// may run on: half a ping-pong round trip, the median of 5 rounds; 0 if it
// may run on fewer than two. Every handoff between cores costs at least
// this, so it bounds what a FIFO lock can do when threads conflict. The
// two threads are pinned, so that every probe of a run times the same two
// CPUs: a probe that moves then says the machine moved (a hypervisor that
// placed the two vCPUs elsewhere), not that the threads landed elsewhere.
double core_to_core_ns() {
  constexpr int kRoundTrips = 50000;
  constexpr int kRounds = 5;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return 0;
  std::size_t cpus[2] = {0, 0};
  int found = 0;
  for (std::size_t cpu = 0; cpu < static_cast<std::size_t>(CPU_SETSIZE) && found < 2; ++cpu) {
    if (CPU_ISSET(cpu, &allowed)) cpus[found++] = cpu;
  }
  if (found < 2) return 0;
  const auto pin = [](std::size_t cpu) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    sched_setaffinity(0, sizeof one, &one);  // best effort: unpinned, the probe still runs
  };
  const auto wait_for = [](const std::atomic<int>& ball, int value) {
    pathlock::bench::spin_until([&] { return ball.load(std::memory_order_acquire) == value; });
  };
  std::vector<double> one_way_ns;
  pin(cpus[0]);
  for (int round = 0; round < kRounds; ++round) {
    alignas(pathlock::bench::kApart) std::atomic<int> ball{0};
    std::thread other([&] {
      pin(cpus[1]);
      ball.store(1, std::memory_order_release);  // started: timing begins after this
      for (int i = 1; i <= kRoundTrips; ++i) {
        wait_for(ball, 2 * i);
        ball.store(2 * i + 1, std::memory_order_release);
      }
    });
    wait_for(ball, 1);
    const auto start = std::chrono::steady_clock::now();
    for (int i = 1; i <= kRoundTrips; ++i) {
      ball.store(2 * i, std::memory_order_release);
      wait_for(ball, 2 * i + 1);
    }
    const auto elapsed = std::chrono::steady_clock::now() - start;
    other.join();
    one_way_ns.push_back(std::chrono::duration<double, std::nano>(elapsed).count() / (2.0 * kRoundTrips));
  }
  sched_setaffinity(0, sizeof allowed, &allowed);
  std::sort(one_way_ns.begin(), one_way_ns.end());
  return one_way_ns[one_way_ns.size() / 2];
}

// Every probe taken during the run, in run order (core_to_core_case).
std::vector<double> g_probes_during_ns;

// The probe at points of the run that random interleaving picks: one per
// repetition (pathlock::bench::kProbesDuringRun of them), each kept for the
// summary, which judges no multi-thread target if any two differ by more
// than kMachineMovedRatio.
void core_to_core_case(benchmark::State& state) {
  double ns = 0;
  for (auto _ : state) ns = core_to_core_ns();
  state.counters["transfer_ns"] = ns;
  if (ns > 0) g_probes_during_ns.push_back(ns);
}

// Every thread count: 1, 2, 4, ... up to the hardware's threads, and that.
std::vector<int> thread_counts() {
  const int hw = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<int> out;
  for (int t = 1; t < hw; t *= 2) out.push_back(t);
  out.push_back(hw);
  return out;
}

// The conflicting workload also runs at kOversubscribed x the hardware's
// threads, for PathLock and the one-lock baselines a FIFO handoff is judged
// against (the summary's "more threads than CPUs"): there the thread a FIFO
// queue hands the lock to next is often off its CPU.
enum class Oversubscribe : std::uint8_t { kNo, kAlso };
std::vector<int> oversubscribed_thread_counts() {
  std::vector<int> out;
  for (const int per_cpu : pathlock::bench::kOversubscribed) out.push_back(per_cpu * thread_counts().back());
  return out;
}

template <typename F>
void register_case(const std::string& name, F body, Oversubscribe oversubscribe = Oversubscribe::kNo) {
  auto* b = benchmark::RegisterBenchmark(name.c_str(), body);
  for (int t : thread_counts()) b->Threads(t);
  if (oversubscribe == Oversubscribe::kAlso) {
    for (int t : oversubscribed_thread_counts()) b->Threads(t);
  }
  b->UseRealTime();
  // The summary judges each target against this spread (summary_reporter.hpp).
  b->ComputeStatistics(pathlock::bench::kRelativeMad, pathlock::bench::relative_mad, benchmark::kPercentage);
}

void register_all() {
  using namespace pathlock::bench;
  // The locks live for the whole run: each is shared by the threads of a case.
  static OneMutex one_mutex;
  static OneSharedMutex one_shared_mutex;
  static std::vector<std::unique_ptr<TicketLock>> tickets;
  static std::vector<std::unique_ptr<McsLock>> mcs_locks;
  static std::vector<std::unique_ptr<NaiveMapOfSharedMutex>> naive;
  static std::vector<std::unique_ptr<StripedSharedMutex>> striped;
  static std::vector<std::unique_ptr<AbslPathTable>> absl_tables;
  static std::vector<std::unique_ptr<PathLock>> path_locks;
  static std::vector<std::unique_ptr<pathlock::bench::OwnMutexPerThread>> own_mutexes;
  const auto& recommended = pathlock::impl::path_rwa_joined_scheme();
  for (Workload w : kAllWorkloads) {
    const std::string wn(to_string(w));
    const auto key = [&wn](std::size_t i) { return std::string(kBaselineNames[i].key) + "/" + wn; };
    const Oversubscribe also = w == Workload::kConflicting ? Oversubscribe::kAlso : Oversubscribe::kNo;
    register_case(key(0), [w](benchmark::State& st) { baseline_case(st, one_mutex, w); }, also);
    auto* t = tickets.emplace_back(std::make_unique<TicketLock>()).get();
    register_case(key(1), [w, t](benchmark::State& st) { baseline_case(st, *t, w); }, also);
    auto* m = mcs_locks.emplace_back(std::make_unique<McsLock>()).get();
    register_case(key(2), [w, m](benchmark::State& st) { baseline_case(st, *m, w); }, also);
    register_case(key(3), [w](benchmark::State& st) { baseline_case(st, one_shared_mutex, w); });
    auto* n = naive.emplace_back(std::make_unique<NaiveMapOfSharedMutex>()).get();
    register_case(key(4), [w, n](benchmark::State& st) { baseline_case(st, *n, w); });
    auto* s = striped.emplace_back(std::make_unique<StripedSharedMutex>()).get();
    register_case(key(5), [w, s](benchmark::State& st) { striped_case(st, *s, w); });
    auto* a = absl_tables.emplace_back(std::make_unique<AbslPathTable>()).get();
    register_case(key(6), [w, a](benchmark::State& st) { baseline_case(st, *a, w); });
    auto* o = own_mutexes.emplace_back(std::make_unique<pathlock::bench::OwnMutexPerThread>()).get();
    register_case(key(7), [w, o](benchmark::State& st) { own_mutex_case(st, *o, w); });
    for (const auto* scheme : pathlock::impl::builtin_schemes()) {
      auto* l = path_locks.emplace_back(std::make_unique<PathLock>(*scheme, kAnyScheme)).get();
      register_case("PathLock/" + scheme->name() + "/" + wn,
                    [w, l](benchmark::State& st) { path_lock_case(st, *l, w); },
                    scheme == &recommended ? also : Oversubscribe::kNo);
    }
  }
  if (thread_counts().size() > 1) {
    benchmark::RegisterBenchmark(kCoreToCore, core_to_core_case)->Iterations(1)->Repetitions(kProbesDuringRun);
  }
  benchmark::RegisterBenchmark(("Memory/idle-entry/" + recommended.name()).c_str(),
                               [&recommended](benchmark::State& st) { memory_case(st, recommended); })
      ->Iterations(1);
}

// Takes --seed=N out of argv; exits 1 on a malformed one, as on any bad
// flag (run_with_summary).
void take_seed_flag(int& argc, char** argv) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (!arg.starts_with("--seed=")) {
      argv[kept++] = argv[i];
      continue;
    }
    const std::string_view value = arg.substr(7);
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), g_seed);
    if (ec != std::errc() || end != value.data() + value.size() || value.empty()) {
      std::fprintf(stderr, "error: --seed takes an unsigned 64-bit integer, got '%.*s'\n",
                   static_cast<int>(value.size()), value.data());
      std::exit(1);
    }
  }
  argc = kept;
}

}  // namespace

int main(int argc, char** argv) {
  take_seed_flag(argc, argv);
  // Probed before the first benchmark, during the run (core_to_core_case)
  // and after the last (the summary is made after every run): a run that
  // straddles a move of the machine says so, and judges nothing on its
  // multi-thread figures.
  pathlock::bench::WireProbes wire;
  if (thread_counts().size() > 1) wire.at_start_ns = core_to_core_ns();
  return pathlock::bench::run_with_summary(argc, argv, register_all, [&wire](const auto& figures, int cpus) {
    if (wire.at_start_ns > 0) wire.at_end_ns = core_to_core_ns();
    wire.during_ns = g_probes_during_ns;
    return pathlock::bench::scaling_summary(figures, cpus, thread_counts(), g_seed, wire,
                                            oversubscribed_thread_counts());
  });
}
