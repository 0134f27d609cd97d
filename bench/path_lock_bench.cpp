// PathLock: acquire+release costs and 2-thread scaling, against baselines
// measured in the same run.
//
// Cases:
//   uncontended: one depth-4 request, acquired and released in a loop:
//                write, read and copy, for every built-in scheme;
//   disjoint:    threads on disjoint subtrees (/t<i>/folder/sub/object);
//   hot:         threads writing into one hot folder (/hot/folder/sub/o<i>).
//   async:       the uncontended write through async_acquire (callback, and
//                a C++20 coroutine's co_await), against the blocking one.
//   key length:  the uncontended depth-4 write of a key of 128 and of 1,024
//                bytes (S3's longest), against the 24-byte one.
// Baselines: std::mutex, std::shared_mutex (exclusive), and a
// std::map<std::string, std::shared_mutex> under one global std::mutex that
// locks the request's 5 path prefixes the way a naive per-path table does.
//
// Counters: "allocs" is heap allocations per acquire+release, counted by a
// replacement operator new; "items_per_second" is acquisitions per second
// summed over threads (Google Benchmark's rate over real time).
//
// main() starts (and joins) a thread before any timing: glibc skips atomic
// instructions until a process has created a thread, which makes
// single-threaded lock figures look about 3x too good.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <coroutine>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>

#include "pathlock/path_lock.hpp"
#include "apart.hpp"
#include "counting_allocator.hpp"
#include "summary_reporter.hpp"

namespace {

using pathlock::PathLock;
using pathlock::bench::g_allocations;
using pathlock::impl::Scheme;
using pathlock::model::Path;
using pathlock::model::Request;
// path-rwa, which the lock refuses by default (a weak join), is measured too.
const pathlock::PathLockOptions kAnyScheme{.scheme_admission = pathlock::SchemeAdmission::kAllowDefective};

// Allocations per iteration of the timed loop, from begin() to end(); only
// meaningful single-threaded, so multi-threaded cases do not report it.
class AllocationCounter {
 public:
  explicit AllocationCounter(benchmark::State& state) : state_(state) {}
  void begin() { start_ = g_allocations.load(); }
  void end() {
    if (state_.threads() != 1) return;
    const auto n = static_cast<double>(g_allocations.load() - start_);
    state_.counters["allocs"] = n / static_cast<double>(std::max<benchmark::IterationCount>(1, state_.iterations()));
  }

 private:
  benchmark::State& state_;
  std::uint64_t start_ = 0;
};

Request write_req(const std::string& key) { return Request({}, {Path::from_key(key)}); }
Request read_req(const std::string& key) { return Request({Path::from_key(key)}, {}); }

// --- baselines ----------------------------------------------------------------

// std::mutex and std::shared_mutex, locked exclusively, kApart from any
// other static (apart.hpp).
template <typename Mutex>
void BM_Baseline(benchmark::State& state) {
  struct alignas(pathlock::bench::kApart) Padded {
    Mutex mu;
  };
  static Padded padded;
  Mutex& mu = padded.mu;
  for (auto _ : state) {
    mu.lock();
    benchmark::ClobberMemory();
    mu.unlock();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Baseline<std::mutex>)->Name("BM_Baseline_StdMutex")->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_Baseline<std::shared_mutex>)->Name("BM_Baseline_StdSharedMutex")->Threads(1)->Threads(2)->UseRealTime();

// The naive per-path table: one global mutex guarding a map of per-path
// shared_mutexes, created on first use and never evicted. A write locks its
// ancestors shared and its target exclusive, each found under the global
// mutex. It is the baseline a hand-rolled per-path lock usually starts from.
class NaivePathTable {
 public:
  void acquire_write(const std::vector<std::string>& prefixes) {
    for (std::size_t i = 0; i < prefixes.size(); ++i) {
      std::shared_mutex* m = find(prefixes[i]);
      if (i + 1 == prefixes.size()) m->lock(); else m->lock_shared();
    }
  }
  void release_write(const std::vector<std::string>& prefixes) {
    for (std::size_t i = prefixes.size(); i > 0; --i) {
      std::shared_mutex* m = find(prefixes[i - 1]);
      if (i == prefixes.size()) m->unlock(); else m->unlock_shared();
    }
  }

 private:
  std::shared_mutex* find(const std::string& key) {
    std::lock_guard<std::mutex> hold(mu_);
    return &table_[key];
  }
  alignas(pathlock::bench::kApart) std::mutex mu_;
  std::map<std::string, std::shared_mutex> table_;
};

std::vector<std::string> prefixes_of(const std::string& key) {
  const Path p = Path::from_key(key);
  std::vector<std::string> out;
  for (const auto& a : p.proper_ancestors()) out.push_back(a.str());
  out.push_back(p.str());
  return out;
}

void naive_case(benchmark::State& state, const std::string& key) {
  static NaivePathTable table;
  const auto prefixes = prefixes_of(key);
  AllocationCounter allocs(state);
  allocs.begin();
  for (auto _ : state) {
    table.acquire_write(prefixes);
    benchmark::ClobberMemory();
    table.release_write(prefixes);
  }
  allocs.end();
  state.SetItemsProcessed(state.iterations());
}

// --- PathLock -----------------------------------------------------------------

void path_lock_case(benchmark::State& state, PathLock& lock, const Request& request) {
  // Warm the node cache, so the figure is the steady state.
  { auto warm = lock.acquire(request); }
  AllocationCounter allocs(state);
  allocs.begin();
  for (auto _ : state) {
    auto guard = lock.acquire(request);
    benchmark::DoNotOptimize(guard.lock_count());
  }
  allocs.end();
  state.SetItemsProcessed(state.iterations());
  state.counters["locks"] = static_cast<double>(lock.acquire(request).lock_count());
}

// The same request through async_acquire: granted inline, the handler takes
// the guard, released after the call returns (as a caller would).
void async_case(benchmark::State& state, PathLock& lock, const Request& request) {
  { auto warm = lock.acquire(request); }
  AllocationCounter allocs(state);
  allocs.begin();
  for (auto _ : state) {
    PathLock::Guard guard;
    auto acquisition = lock.async_acquire(request, [&guard](PathLock::Guard g) { guard = std::move(g); });
    benchmark::DoNotOptimize(guard.lock_count());
  }
  allocs.end();
  state.SetItemsProcessed(state.iterations());
}

// A coroutine that runs the whole timed loop, one co_await per iteration
// (granted at once, so it never suspends: the awaitable's own cost).
struct Eager {
  struct promise_type {
    Eager get_return_object() noexcept { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { std::abort(); }
  };
};
Eager coroutine_loop(benchmark::State& state, PathLock& lock, const Request& request) {
  for (auto _ : state) {
    PathLock::Guard guard = co_await lock.acquire_async(request);
    benchmark::DoNotOptimize(guard.lock_count());
  }
}
void coroutine_case(benchmark::State& state, PathLock& lock, const Request& request) {
  { auto warm = lock.acquire(request); }
  AllocationCounter allocs(state);
  allocs.begin();
  coroutine_loop(state, lock, request);
  allocs.end();
  state.SetItemsProcessed(state.iterations());
}

// One PathLock per scheme, shared by the threads of a multi-threaded case.
PathLock& lock_for(const Scheme& scheme) {
  static std::map<std::string, std::unique_ptr<PathLock>> locks;
  static std::mutex mu;
  std::lock_guard<std::mutex> hold(mu);
  auto& slot = locks[scheme.name()];
  if (!slot) slot = std::make_unique<PathLock>(scheme, kAnyScheme);
  return *slot;
}

// Disjoint subtrees: thread i works under /t<i>. Hot folder: every thread
// writes its own object in /hot/folder/sub.
std::string disjoint_key(int thread) { return "t" + std::to_string(thread) + "/folder/sub/object"; }
std::string hot_key(int thread) { return "hot/folder/sub/o" + std::to_string(thread); }

// A depth-4 key of `bytes` bytes: four components of about a quarter each.
std::string depth4_key_of(std::size_t bytes) {
  const std::size_t each = (bytes - 3) / 4;
  std::string key;
  for (const char c : {'b', 'f', 's'}) key += std::string(each, c) + "/";
  return key + std::string(bytes - key.size(), 'o');
}
constexpr std::size_t kLongKeyBytes[] = {128, 1024};

void register_all() {
  const std::string depth4 = "bucket/folder/sub/object";
  const std::string other = "bucket/folder/other/object";
  benchmark::RegisterBenchmark("BM_Baseline_NaiveMapOfSharedMutex/uncontended-write",
                               [depth4](benchmark::State& st) { naive_case(st, depth4); });
  benchmark::RegisterBenchmark("BM_Baseline_NaiveMapOfSharedMutex/disjoint",
                               [](benchmark::State& st) { naive_case(st, disjoint_key(st.thread_index())); })
      ->Threads(1)->Threads(2)->UseRealTime();
  benchmark::RegisterBenchmark("BM_Baseline_NaiveMapOfSharedMutex/hot-folder",
                               [](benchmark::State& st) { naive_case(st, hot_key(st.thread_index())); })
      ->Threads(1)->Threads(2)->UseRealTime();

  const auto* recommended = &pathlock::impl::path_rwa_joined_scheme();
  for (const std::size_t bytes : kLongKeyBytes) {
    benchmark::RegisterBenchmark(("BM_PathLock/uncontended-write-key-bytes:" + std::to_string(bytes)).c_str(),
                                 [=](benchmark::State& st) {
                                   PathLock lock(*recommended);
                                   path_lock_case(st, lock, write_req(depth4_key_of(bytes)));
                                 });
  }
  benchmark::RegisterBenchmark("BM_PathLock/uncontended-async-write", [=](benchmark::State& st) {
    PathLock lock(*recommended);
    async_case(st, lock, write_req(depth4));
  });
  benchmark::RegisterBenchmark("BM_PathLock/uncontended-coroutine-write", [=](benchmark::State& st) {
    PathLock lock(*recommended);
    coroutine_case(st, lock, write_req(depth4));
  });
  for (const auto* scheme : pathlock::impl::builtin_schemes()) {
    const std::string name = scheme->name();
    benchmark::RegisterBenchmark(("BM_PathLock/uncontended-write/" + name).c_str(), [=](benchmark::State& st) {
      PathLock lock(*scheme, kAnyScheme);
      path_lock_case(st, lock, write_req(depth4));
    });
    benchmark::RegisterBenchmark(("BM_PathLock/uncontended-read/" + name).c_str(), [=](benchmark::State& st) {
      PathLock lock(*scheme, kAnyScheme);
      path_lock_case(st, lock, read_req(depth4));
    });
    benchmark::RegisterBenchmark(("BM_PathLock/uncontended-copy/" + name).c_str(), [=](benchmark::State& st) {
      PathLock lock(*scheme, kAnyScheme);
      path_lock_case(st, lock, Request({Path::from_key(depth4)}, {Path::from_key(other)}));
    });
    benchmark::RegisterBenchmark(("BM_PathLock/disjoint/" + name).c_str(), [=](benchmark::State& st) {
      path_lock_case(st, lock_for(*scheme), write_req(disjoint_key(st.thread_index())));
    })->Threads(1)->Threads(2)->UseRealTime();
    benchmark::RegisterBenchmark(("BM_PathLock/hot-folder/" + name).c_str(), [=](benchmark::State& st) {
      path_lock_case(st, lock_for(*scheme), write_req(hot_key(st.thread_index())));
    })->Threads(1)->Threads(2)->UseRealTime();
  }
}

// The comparison against the baselines, from this run's figures.
std::string summary(const pathlock::bench::FigureTable& figures, int cpus) {
  using pathlock::bench::Figures;
  using pathlock::bench::fixed;
  const auto find = [&](const std::string& name) -> const Figures* {
    auto it = figures.find(name);
    return it == figures.end() ? nullptr : &it->second;
  };
  const auto rate = [](const Figures* f) { return f ? f->counter("items_per_second", 0) : 0.0; };
  const auto ns = [&](const std::string& name) {
    const Figures* f = find(name);
    return f ? fixed(f->ns, 1) : "-";
  };
  const auto allocs = [&](const std::string& name) {
    const Figures* f = find(name);
    return f && f->counter("allocs") >= 0 ? fixed(f->counter("allocs"), 2) : "-";
  };
  const auto mops = [&](const std::string& name) {
    const double r = rate(find(name));
    return r > 0 ? fixed(r / 1e6, 2) : "-";
  };
  const auto ratio = [&](const std::string& num, const std::string& den) {
    const double a = rate(find(num));
    const double b = rate(find(den));
    return a > 0 && b > 0 ? fixed(a / b, 2) + "x" : "-";
  };
  const auto threads = [](const std::string& base, int n) {
    return base + "/real_time/threads:" + std::to_string(n);
  };
  std::string out;
  const auto line = [&out](const std::string& s) { out += s + "\n"; };
  line("");
  line("### PathLock against the baselines (this run, " + pathlock::bench::cpus_named(cpus) + ")");
  line("");
  line("Uncontended acquire+release, ns per request (depth-4 request: 5 locks for a write or read, 7 for the copy);");
  line("allocs = heap allocations per write acquire+release.");
  line("");
  line("| lock | write | read | copy | allocs |");
  line("|---|---:|---:|---:|---:|");
  line("| std::mutex (one lock, not per path) | " + ns(threads("BM_Baseline_StdMutex", 1)) + " | | | |");
  line("| std::shared_mutex (one lock, exclusive) | " + ns(threads("BM_Baseline_StdSharedMutex", 1)) + " | | | |");
  line("| map of shared_mutex under one global mutex | " + ns("BM_Baseline_NaiveMapOfSharedMutex/uncontended-write") +
       " | | | " + allocs("BM_Baseline_NaiveMapOfSharedMutex/uncontended-write") + " |");
  for (const auto* scheme : pathlock::impl::builtin_schemes()) {
    const std::string n = scheme->name();
    line("| PathLock " + n + " | " + ns("BM_PathLock/uncontended-write/" + n) + " | " +
         ns("BM_PathLock/uncontended-read/" + n) + " | " + ns("BM_PathLock/uncontended-copy/" + n) + " | " +
         allocs("BM_PathLock/uncontended-write/" + n) + " |");
  }
  line("");
  line("Two threads, million acquisitions per second summed over threads; scaling = 2 threads / 1 thread.");
  line("Disjoint: thread i writes /t<i>/folder/sub/object. Hot folder: thread i writes /hot/folder/sub/o<i>.");
  line("");
  line("| lock | disjoint 1T | disjoint 2T | scaling | hot folder 1T | hot folder 2T | scaling |");
  line("|---|---:|---:|---:|---:|---:|---:|");
  const auto row = [&](const std::string& label, const std::string& disjoint, const std::string& hot) {
    line("| " + label + " | " + mops(threads(disjoint, 1)) + " | " + mops(threads(disjoint, 2)) + " | " +
         ratio(threads(disjoint, 2), threads(disjoint, 1)) + " | " + mops(threads(hot, 1)) + " | " +
         mops(threads(hot, 2)) + " | " + ratio(threads(hot, 2), threads(hot, 1)) + " |");
  };
  row("std::mutex (every request on one lock)", "BM_Baseline_StdMutex", "BM_Baseline_StdMutex");
  row("std::shared_mutex (one lock, exclusive)", "BM_Baseline_StdSharedMutex", "BM_Baseline_StdSharedMutex");
  row("map of shared_mutex under one global mutex", "BM_Baseline_NaiveMapOfSharedMutex/disjoint",
      "BM_Baseline_NaiveMapOfSharedMutex/hot-folder");
  for (const auto* scheme : pathlock::impl::builtin_schemes()) {
    row("PathLock " + scheme->name(), "BM_PathLock/disjoint/" + scheme->name(),
        "BM_PathLock/hot-folder/" + scheme->name());
  }
  line("");
  // The targets the README states, judged on the recommended scheme.
  const std::string best = "path-rwa-joined";
  const Figures* w = find("BM_PathLock/uncontended-write/" + best);
  const double d1 = rate(find(threads("BM_PathLock/disjoint/" + best, 1)));
  const double d2 = rate(find(threads("BM_PathLock/disjoint/" + best, 2)));
  line("Targets (" + best + "):");
  if (w) {
    line("- uncontended depth-4 write <= 150 ns: " + fixed(w->ns, 1) + " ns, " + (w->ns <= 150 ? "met" : "NOT met"));
    line("- no heap allocation on an uncontended acquire: " + fixed(w->counter("allocs"), 2) + " per acquire, " +
         (w->counter("allocs") == 0 ? "met" : "NOT met"));
  }
  if (d1 > 0 && d2 > 0) {
    line("- 2 threads on disjoint subtrees >= 1.5x one thread: " + fixed(d2 / d1, 2) + "x, " +
         (d2 / d1 >= 1.5 ? "met" : "NOT met"));
  }
  // A row of a table of costs against the uncontended write `w`.
  const auto cost_row = [&](const std::string& label, const Figures& f) {
    line("| " + label + " | " + fixed(f.ns, 1) + " | " + fixed(f.ns / w->ns, 2) + "x | " +
         fixed(f.counter("allocs"), 2) + " |");
  };
  // Such a table's title and header: `what` names the rows, `against` the first.
  const auto cost_table = [&](const std::string& title, const std::string& what, const std::string& against,
                              const std::string& align) {
    line("");
    line(title);
    line("");
    line("| " + what + " | ns | vs " + against + " | allocs |");
    line("|" + align + "|---:|---:|---:|");
  };
  if (w) {
    cost_table("Key length (" + best + ", uncontended depth-4 write, acquire+release, ns):", "key bytes", "24 bytes",
               "---:");
    cost_row("24", *w);
    double worst = 0;
    for (const std::size_t bytes : kLongKeyBytes) {
      const Figures* k = find("BM_PathLock/uncontended-write-key-bytes:" + std::to_string(bytes));
      if (k == nullptr) continue;
      worst = std::max(worst, k->ns / w->ns);
      cost_row(std::to_string(bytes), *k);
    }
    line("");
    line("- a key of any length takes the fast path: the longest costs <= 2x the 24-byte one: " + fixed(worst, 2) +
         "x at worst, " + (worst > 0 && worst <= 2.0 ? "met" : "NOT met"));
  }
  const Figures* a = find("BM_PathLock/uncontended-async-write");
  const Figures* c = find("BM_PathLock/uncontended-coroutine-write");
  if (w && a && c) {
    cost_table("Asynchronous acquire (" + best + ", uncontended depth-4 write, acquire+release):", "front end",
               "blocking", "---");
    cost_row("acquire (blocking)", *w);
    cost_row("async_acquire (callback)", *a);
    cost_row("co_await acquire_async", *c);
    line("");
    const double worst = std::max(a->ns, c->ns) / w->ns;
    line("- an uncontended async acquire costs <= 2x the blocking one: " + fixed(worst, 2) + "x at worst, " +
         (worst <= 2.0 ? "met" : "NOT met"));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) { return pathlock::bench::run_with_summary(argc, argv, register_all, summary); }
