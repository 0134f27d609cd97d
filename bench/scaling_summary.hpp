#pragma once
// The scaling benchmark's summary, computed from one run's figures: a table
// per workload (million acquisitions per second at each thread count, the
// scaling ratio, the ratio to the best per-path peer), the recommended
// scheme's ratio to each baseline, and the targets, judged on it.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pathlock/impl/plan.hpp"
#include "pathlock/impl/scheme.hpp"
#include "pathlock/path_lock.hpp"
#include "scaling_workloads.hpp"
#include "summary_reporter.hpp"

namespace pathlock::bench {

// A target judged on a figure measured with a spread: met or not only where
// the whole band (the figure +- twice its relative spread) is on one side of
// the target; a band across it is no result either way, and neither is a
// figure of fewer than kMinRepetitions repetitions (no spread to judge by).
// kMachineMoved: the run's multi-thread figures come from two placements of
// its CPUs (WireProbes), so no ratio of them decides anything.
enum class Verdict : std::uint8_t { kMet, kNotMet, kWithinSpread, kTooFewRepetitions, kMachineMoved };
enum class Bound : std::uint8_t { kAtLeast, kAtMost };
inline constexpr int kMinRepetitions = 5;
inline Verdict judge(double value, Bound bound, double target, double spread, int repetitions = kMinRepetitions) {
  if (repetitions < kMinRepetitions) return Verdict::kTooFewRepetitions;
  const double low = value * (1 - 2 * spread);
  const double high = value * (1 + 2 * spread);
  const bool meets_low = bound == Bound::kAtLeast ? low >= target : low <= target;
  const bool meets_high = bound == Bound::kAtLeast ? high >= target : high <= target;
  if (meets_low && meets_high) return Verdict::kMet;
  if (!meets_low && !meets_high) return Verdict::kNotMet;
  return Verdict::kWithinSpread;
}
inline std::string to_string(Verdict v) {
  switch (v) {
    case Verdict::kMet: return "met";
    case Verdict::kNotMet: return "NOT met";
    case Verdict::kWithinSpread: return "undecided (the target is within this run's spread)";
    case Verdict::kMachineMoved: return "undecided (the machine moved during this run)";
    case Verdict::kTooFewRepetitions:
      return "undecided (fewer than " + std::to_string(kMinRepetitions) + " repetitions: no spread to judge by)";
  }
  return "?";
}
// The relative spread of a ratio of two figures: theirs, combined.
inline double ratio_spread(double a, double b) { return std::sqrt(a * a + b * b); }
// " +-7%" (" +-0.4%" under 10%), or nothing where the run had no repetitions.
inline std::string spread_text(double spread) {
  if (spread <= 0) return {};
  const double percent = 200 * spread;
  return " ±" + fixed(percent, percent < 10 ? 1 : 0) + "%";
}

struct BaselineName {
  std::string_view key;    // the run name's first part
  std::string_view label;  // in the summary
  bool per_path;           // a per-path table (a peer), not one lock for everything
};
inline constexpr std::array<BaselineName, 8> kBaselineNames{{
    {"Baseline/std-mutex", "std::mutex (one lock for every request)", false},
    {"Baseline/ticket-lock", "FIFO ticket lock (one lock; every waiter spins on one counter)", false},
    {"Baseline/mcs-lock", "FIFO MCS queue lock (one lock; each waiter spins on its own line)", false},
    {"Baseline/std-shared-mutex", "std::shared_mutex (one lock; reads shared)", false},
    {"Baseline/naive-map", "map of shared_mutex under one global mutex", true},
    {"Baseline/striped-64", "64-stripe table of std::shared_mutex", true},
    {"Baseline/absl-table", "abseil: 64 shards of flat_hash_map of absl::Mutex", true},
    {"Baseline/own-mutex", "a std::mutex per thread (nothing shared: the machine's own scaling)", false},
}};

// The bare FIFO locks: the faster of the two at T threads is the yardstick
// of the targets where every pair of requests conflicts.
inline constexpr std::string_view kTicketLock = kBaselineNames[1].key;
inline constexpr std::string_view kMcsLock = kBaselineNames[2].key;
// Nothing shared: the yardstick of the scaling targets.
inline constexpr std::string_view kOwnMutex = kBaselineNames[7].key;

// The benchmark that times a cache line's trip between two threads.
inline constexpr const char* kCoreToCore = "Hardware/core-to-core";

// The same probe before the first benchmark and after the last (0: not
// taken), and kProbesDuringRun times between (in run order: at points that
// random interleaving picks, or back to back where the run does not
// interleave; none where it filtered the probe out). A virtual machine's host may move its vCPUs mid-run (on
// the 2-vCPU VM the trip went from 32 to 165 ns and back within minutes,
// a conflicting workload's rate with it, and a run whose three probes all
// read 216 ns had its ticket lock at the fast placement's rate: the move
// fell between them); a run whose probes differ by more than
// kMachineMovedRatio judges nothing on its multi-thread figures.
struct WireProbes {
  double at_start_ns = 0;
  double at_end_ns = 0;
  std::vector<double> during_ns;
};
inline constexpr double kMachineMovedRatio = 2.0;
inline constexpr int kProbesDuringRun = 20;

// Threads per hardware thread at which the conflicting workload runs too,
// for PathLock and the one-lock baselines (the summary's "more threads than
// CPUs"; information, no target).
inline constexpr std::array<int, 2> kOversubscribed{2, 4};

inline std::string scaling_summary(const FigureTable& figures, int cpus, const std::vector<int>& threads,
                                   std::uint64_t seed, const WireProbes& probes = {},
                                   const std::vector<int>& oversubscribed = {}) {
  const auto figure = [&](const std::string& key, Workload w, int t) -> const Figures* {
    auto it = figures.find(key + "/" + std::string(to_string(w)) + "/real_time/threads:" + std::to_string(t));
    return it == figures.end() ? nullptr : &it->second;
  };
  const auto rate = [&](const std::string& key, Workload w, int t) {
    const Figures* f = figure(key, w, t);
    return f == nullptr ? 0.0 : f->counter("items_per_second", 0);
  };
  const auto rate_spread = [&](const std::string& key, Workload w, int t) {
    const Figures* f = figure(key, w, t);
    return f == nullptr ? 0.0 : f->spread("items_per_second");
  };
  // The fewer repetitions of the figures a ratio is made of.
  const auto repetitions = [&](std::initializer_list<std::pair<std::string, int>> runs, Workload w) {
    int fewest = kMinRepetitions;
    for (const auto& [key, t] : runs) {
      const Figures* f = figure(key, w, t);
      fewest = std::min(fewest, f == nullptr ? 0 : f->repetitions);
    }
    return fewest;
  };
  const auto mops = [](double r) { return r > 0 ? fixed(r / 1e6, 2) : std::string("-"); };
  const auto ratio = [](double a, double b) { return a > 0 && b > 0 ? fixed(a / b, 2) + "x" : std::string("-"); };
  const int top = threads.back();
  const std::string recommended = "PathLock/" + impl::path_rwa_joined_scheme().name();
  struct Peer {
    double rate = 0;
    std::string key;
    std::string label = "-";
    // A per-path peer with no figure in the run (filtered out, or failed):
    // it could have been the best one.
    std::string missing;
  };
  const auto best_peer = [&](Workload w, int t) {
    Peer best;
    for (const auto& b : kBaselineNames) {
      if (!b.per_path) continue;
      const double r = rate(std::string(b.key), w, t);
      if (r <= 0) best.missing = std::string(b.label);
      if (r > best.rate) {
        best.rate = r;
        best.key = std::string(b.key);
        best.label = std::string(b.label);
      }
    }
    return best;
  };

  std::string out;
  const auto line = [&out](const std::string& s) { out += s + "\n"; };
  line("");
  line("### Scaling (this run: " + cpus_named(cpus) + "; threads 1 to " + std::to_string(top) +
       ", seed " + std::to_string(seed) + ")");
  line("");
  line("Million acquisitions per second, summed over threads. scaling = " + std::to_string(top) +
       " threads / 1 thread; vs peer = PathLock / the best per-path peer at " + std::to_string(top) + " threads.");
  // The probes taken, in run order, as the summary tells them: the time
  // (or range), when, and how many (the ones during the run).
  struct Trip {
    std::string ns;
    std::string when;
    std::string count;
  };
  std::vector<Trip> trips;
  std::vector<double> probed;
  if (probes.at_start_ns > 0) {
    trips.push_back({fixed(probes.at_start_ns, 1) + " ns", "when this run began", ""});
    probed.push_back(probes.at_start_ns);
  }
  if (!probes.during_ns.empty()) {
    const auto [low, high] = std::minmax_element(probes.during_ns.begin(), probes.during_ns.end());
    const std::size_t n = probes.during_ns.size();
    trips.push_back({*low == *high ? fixed(*low, 1) + " ns" : fixed(*low, 1) + " to " + fixed(*high, 1) + " ns",
                     "during it", " (" + std::to_string(n) + (n == 1 ? " probe)" : " probes)")});
    probed.insert(probed.end(), probes.during_ns.begin(), probes.during_ns.end());
  }
  if (probes.at_end_ns > 0) {
    trips.push_back({fixed(probes.at_end_ns, 1) + " ns", "when it ended", ""});
    probed.push_back(probes.at_end_ns);
  }
  double fastest = 0;
  double slowest = 0;
  if (!trips.empty()) {
    std::string when = trips.size() == 1 ? trips[0].ns + " during this run" + trips[0].count : "";
    for (std::size_t i = 0; trips.size() > 1 && i < trips.size(); ++i) {
      when += (i == 0 ? "" : i + 1 == trips.size() ? " and " : ", ") + trips[i].ns + " " + trips[i].when +
              trips[i].count;
    }
    const auto [low, high] = std::minmax_element(probed.begin(), probed.end());
    fastest = *low;
    slowest = *high;
    line("");
    line("A cache line took " + when +
         " from one CPU's core to another's (half a ping-pong round trip between the same two CPUs, median of 5 "
         "rounds): every handoff between threads costs at least that. On a virtual machine it moves with the "
         "host's placement of the vCPUs, and the multi-thread figures with it.");
  }
  const bool machine_moved = fastest > 0 && slowest / fastest > kMachineMovedRatio;
  if (machine_moved) {
    line("");
    line("**The machine moved during this run**: a cache line's trip ranged from " + fixed(fastest, 1) + " to " +
         fixed(slowest, 1) + " ns (" + fixed(slowest / fastest, 1) + "x; more than " +
         fixed(kMachineMovedRatio, 0) + "x is a move), so its multi-thread figures come from different "
         "placements of its CPUs: no target is judged on them. Run it again.");
  }
  // A multi-thread target's verdict: none where the machine moved.
  const auto judged_here = [machine_moved](Verdict v) { return machine_moved ? Verdict::kMachineMoved : v; };
  for (Workload w : kAllWorkloads) {
    line("");
    line("**" + std::string(to_string(w)) + "**: " + std::string(describe(w)) + ".");
    line("");
    std::string header = "| lock |";
    std::string rule = "|---|";
    for (int t : threads) {
      header += " " + std::to_string(t) + "T |";
      rule += "---:|";
    }
    line(header + " scaling | vs peer |");
    line(rule + "---:|---:|");
    const double peer = best_peer(w, top).rate;
    const auto row = [&](const std::string& key, const std::string& label, bool compare) {
      std::string s = "| " + label + " |";
      for (int t : threads) s += " " + mops(rate(key, w, t)) + " |";
      s += " " + ratio(rate(key, w, top), rate(key, w, 1)) + " | " +
           (compare ? ratio(rate(key, w, top), peer) : std::string("")) + " |";
      line(s);
    };
    for (const auto& b : kBaselineNames) row(std::string(b.key), std::string(b.label), false);
    for (const auto* scheme : impl::builtin_schemes()) {
      row("PathLock/" + scheme->name(), "PathLock " + scheme->name(), true);
    }
  }

  // The ratio to each baseline, not only to the best peer: a reader who
  // runs one of them today sees what PathLock does against it.
  line("");
  line("PathLock " + impl::path_rwa_joined_scheme().name() + " over each baseline, both at " + std::to_string(top) +
       " threads (above 1x, PathLock acquires faster; - where either has no figure in this run):");
  line("");
  std::string header = "| baseline |";
  std::string rule = "|---|";
  for (Workload w : kAllWorkloads) {
    header += " " + std::string(to_string(w)) + " |";
    rule += "---:|";
  }
  line(header);
  line(rule);
  for (const auto& b : kBaselineNames) {
    if (b.key == kOwnMutex) continue;  // the machine's yardstick, no lock anyone would run instead
    std::string s = "| " + std::string(b.label) + " |";
    for (Workload w : kAllWorkloads) s += " " + ratio(rate(recommended, w, top), rate(std::string(b.key), w, top)) + " |";
    line(s);
  }

  line("");
  line("Targets, judged on PathLock " + impl::path_rwa_joined_scheme().name() + " (T = " + std::to_string(top) +
       " threads, " + std::to_string(cpus) + " CPUs). Each ratio is of medians; ± is twice its figures' "
       "combined relative spread over the repetitions (1.4826 x the median absolute deviation, over the "
       "median), and a target inside that band, or judged on fewer than " + std::to_string(kMinRepetitions) +
       " repetitions, is judged neither met nor missed:");
  const auto verdict = [](bool met) { return met ? std::string("met") : std::string("NOT met"); };
  // The FIFO yardstick under a target where every pair conflicts: FIFO
  // hands every acquisition to another thread, so PathLock gets no further
  // than a bare FIFO lock that hands over as fast. It is the faster of the
  // two bare ones at T threads: the ticket lock is expected to be at a few
  // threads, the MCS lock at many (each ticket release takes the counter's
  // line from every spinner).
  struct Handoff {
    double rate = 0;  // 0: neither bare FIFO lock ran
    std::string key;
    std::string named;   // "a bare ... lock"
    std::string beside;  // the other one's rate, or that it did not run
  };
  const auto fifo_handoff = [&](Workload w, int t) {
    const double ticket = rate(std::string(kTicketLock), w, t);
    const double mcs = rate(std::string(kMcsLock), w, t);
    const auto other = [&](double r, const std::string& name) {
      return r > 0 ? name + " runs " + mops(r) + " M/s" : "no figure of " + name + " in this run";
    };
    Handoff h;
    if (mcs > ticket) {
      h = {mcs, std::string(kMcsLock), "a bare MCS queue lock", other(ticket, "the ticket lock")};
    } else if (ticket > 0) {
      h = {ticket, std::string(kTicketLock), "a bare ticket lock", other(mcs, "the MCS queue lock")};
    }
    return h;
  };
  const auto yardstick = [&](const Handoff& h, int t, const std::string& how_far, bool within_reach) {
    line("  - the faster FIFO handoff, " + h.named + ", runs " + mops(h.rate) + " M/s at " + std::to_string(t) +
         " threads (" + h.beside + ")" + how_far + ", so the target is " +
         (within_reach ? "within reach" : "out of reach of both bare FIFO locks") + " in this run");
  };
  const int judged = std::min(top, std::max(1, cpus));
  for (Workload w : kAllWorkloads) {
    const double one = rate(recommended, w, 1);
    const double at = rate(recommended, w, judged);
    if (one <= 0 || at <= 0) continue;
    if (contention_of(w) == Contention::kAllConflict) {
      const double floor = judged >= 16 ? 0.5 : 0.7;
      const double spread = ratio_spread(rate_spread(recommended, w, judged), rate_spread(recommended, w, 1));
      line("- no collapse, " + std::string(to_string(w)) + ": " + std::to_string(judged) + " threads keep " +
           fixed(100 * at / one, 0) + "%" + spread_text(spread) + " of 1 thread (target >= " +
           fixed(100 * floor, 0) + "%): " +
           to_string(judged_here(judge(at / one, Bound::kAtLeast, floor, spread,
                                       repetitions({{recommended, judged}, {recommended, 1}}, w)))));
      const Handoff h = fifo_handoff(w, judged);
      if (judged > 1 && h.rate > 0) {
        const double reachable = h.rate / one;
        const double own_one = rate(h.key, w, 1);
        yardstick(h, judged,
                  (own_one > 0 ? ", " + fixed(100 * h.rate / own_one, 0) + "% of its own 1-thread rate" : "") +
                      ": a FIFO lock of PathLock's 1-thread cost that handed over as fast would keep " +
                      fixed(100 * reachable, 0) + "%",
                  reachable >= floor);
      }
    } else {
      // 0.6 x T in general; the 2-core machine is held to 1.6x.
      const double target = judged == 2 ? 1.6 : 0.6 * judged;
      const double spread = ratio_spread(rate_spread(recommended, w, judged), rate_spread(recommended, w, 1));
      line("- scaling, " + std::string(to_string(w)) + ": " + fixed(at / one, 2) + "x" + spread_text(spread) +
           " at " + std::to_string(judged) + " threads (target >= " + fixed(target, 1) + "x): " +
           (judged == 1 ? verdict(true)
                        : to_string(judged_here(judge(at / one, Bound::kAtLeast, target, spread,
                                                      repetitions({{recommended, judged}, {recommended, 1}}, w))))));
      // A machine whose cores slow down when all are busy (a shared clock
      // budget, a host's other tenants) holds every lock below T x.
      const double own_one = rate(std::string(kOwnMutex), w, 1);
      const double own_at = rate(std::string(kOwnMutex), w, judged);
      if (judged > 1 && own_one > 0 && own_at > 0) {
        const double machine = own_at / own_one;
        line("  - each thread locking a std::mutex of its own (nothing shared) scales " + fixed(machine, 2) +
             "x at " + std::to_string(judged) + " threads, and PathLock " + fixed(100 * (at / one) / machine, 0) +
             "% of that: that is how far this machine itself scales, so the target is " +
             (machine >= target ? "within reach" : "beyond this machine") + " in this run");
      }
    }
  }
  for (Workload w : kAllWorkloads) {
    const Peer peer = best_peer(w, top);
    const double mine = rate(recommended, w, top);
    if (peer.rate <= 0 || mine <= 0) continue;
    if (!peer.missing.empty()) {
      line("- ahead of the peers, " + std::string(to_string(w)) + ": " + fixed(mine / peer.rate, 2) + "x " +
           peer.label + " at " + std::to_string(top) + " threads (target >= 4x): undecided (no figure of " +
           peer.missing + " in this run)");
      continue;
    }
    const double spread = ratio_spread(rate_spread(recommended, w, top), rate_spread(peer.key, w, top));
    line("- ahead of the peers, " + std::string(to_string(w)) + ": " + fixed(mine / peer.rate, 2) + "x" +
         spread_text(spread) + " " + peer.label + " at " + std::to_string(top) +
         " threads (target >= 4x): " +
         to_string(judged_here(judge(mine / peer.rate, Bound::kAtLeast, 4, spread,
                                     repetitions({{recommended, top}, {peer.key, top}}, w)))));
    // (The peers are not FIFO: a releaser may take its lock straight back.)
    const Handoff h = fifo_handoff(w, top);
    if (contention_of(w) == Contention::kAllConflict && top > 1 && h.rate > 0) {
      yardstick(h, top,
                ", " + fixed(h.rate / peer.rate, 2) + "x the peer: a FIFO lock that hands over no faster gets no "
                "further ahead of it",
                h.rate / peer.rate >= 4);
    }
    // Where nothing conflicts, what 4x the peer asks of one thread's cost
    // if PathLock scaled as it did in this run.
    const double one = rate(recommended, w, 1);
    if (contention_of(w) != Contention::kAllConflict && top > 1 && one > 0 && mine < 4 * peer.rate) {
      const double needed = 4 * peer.rate;
      const double scaling = mine / one;
      line("  - 4x the peer is " + mops(needed) + " M/s at " + std::to_string(top) +
           " threads: scaling as in this run (" + fixed(scaling, 2) + "x), one thread's acquire+release would take " +
           "at most " + fixed(1e9 * scaling / needed, 1) + " ns; it takes " + fixed(1e9 / one, 1) + " ns (" +
           fixed(needed / mine, 2) + "x that)");
    }
  }
  const Figures* write = figure(recommended, Workload::kDisjoint, 1);
  const Figures* mutex = figure(std::string(kBaselineNames[0].key), Workload::kDisjoint, 1);
  if (write != nullptr && mutex != nullptr && mutex->ns > 0) {
    // A time's spread is its rate's: both come from the same repetitions.
    const double spread = ratio_spread(write->spread("items_per_second"), mutex->spread("items_per_second"));
    line("- uncontended depth-4 write acquire+release: " + fixed(write->ns, 1) + " ns, " +
         fixed(write->ns / mutex->ns, 2) + "x" + spread_text(spread) + " a std::mutex lock+unlock (" +
         fixed(mutex->ns, 1) + " ns; target <= 4x): " +
         to_string(judge(write->ns / mutex->ns, Bound::kAtMost, 4, spread,
                         std::min(write->repetitions, mutex->repetitions))));
    // What the ratio asks of each lock the request takes: a std::mutex
    // lock+unlock is one lock, the depth-4 write's plan is several.
    const impl::Plan plan =
        impl::plan_for(impl::path_rwa_joined_scheme(), operations_for(Workload::kDisjoint, 0, seed).front().request);
    const double locks = static_cast<double>(plan.size());
    line("  - its plan takes " + std::to_string(plan.size()) + " locks (" +
         impl::to_string(impl::path_rwa_joined_scheme(), plan) + "): " + fixed(write->ns / locks, 1) +
         " ns a lock, each " + fixed(write->ns / locks / mutex->ns, 2) + "x a std::mutex lock+unlock; the target " +
         "leaves " + fixed(4 * mutex->ns / locks, 1) + " ns a lock");
    const double allocs = write->counter("allocs");
    line("- allocations per uncontended acquire: " + fixed(allocs, 4) + " (target 0): " + verdict(allocs == 0));
  }
  auto mem = figures.find("Memory/idle-entry/" + impl::path_rwa_joined_scheme().name() + "/iterations:1");
  if (mem != figures.end()) {
    const PathLockOptions defaults;
    const double per_entry = mem->second.counter("bytes_per_idle_entry");
    const double idle_bound = static_cast<double>(defaults.shards * defaults.max_idle_locks_per_shard);
    line("- memory: " + fixed(per_entry, 0) +
         " live heap bytes per idle entry (4,096 one-component paths); entries <= active locks + shards x "
         "max idle (" + std::to_string(defaults.shards) + " x " + std::to_string(defaults.max_idle_locks_per_shard) +
         " by default: idle entries take at most " + fixed(per_entry * idle_bound / (1024 * 1024), 1) +
         " MiB); a lock with the default options takes " +
         fixed(mem->second.counter("bytes_per_default_lock") / 1024, 0) +
         " KiB before its first entry (its shards and gate index)");
  }
  // More threads than CPUs: where every request conflicts, the thread a
  // FIFO queue hands the lock to next is often off its CPU.
  const Workload conflicting = Workload::kConflicting;
  std::vector<int> over_threads;
  for (const int t : oversubscribed) {
    if (t > top && rate(recommended, conflicting, t) > 0) over_threads.push_back(t);
  }
  if (!over_threads.empty()) {
    line("");
    line("**more threads than CPUs**, " + std::string(to_string(conflicting)) + ": " +
         std::string(describe(conflicting)) + ", at " + std::to_string(top) + " threads and at more (information, " +
         "no target). A FIFO lock hands each release to the thread queued next, which there is often one the OS "
         "took off its CPU: until it is back, nobody moves. std::mutex lets a running thread take the lock "
         "past the sleepers it wakes, so it keeps its rate, and gives up FIFO for it.");
    line("");
    std::string columns = "| lock | " + std::to_string(top) + "T |";
    std::string divider = "|---|---:|";
    for (const int t : over_threads) {
      columns += " " + std::to_string(t) + "T |";
      divider += "---:|";
    }
    line(columns);
    line(divider);
    const std::array<std::pair<std::string, std::string>, 4> over_locks{{
        {std::string(kBaselineNames[0].key), std::string(kBaselineNames[0].label)},
        {std::string(kTicketLock), std::string(kBaselineNames[1].label)},
        {std::string(kMcsLock), std::string(kBaselineNames[2].label)},
        {recommended, "PathLock " + impl::path_rwa_joined_scheme().name()},
    }};
    for (const auto& [key, label] : over_locks) {
      std::string row = "| " + label + " | " + mops(rate(key, conflicting, top)) + " |";
      for (const int t : over_threads) row += " " + mops(rate(key, conflicting, t)) + " |";
      line(row);
    }
    line("");
    for (const int t : over_threads) {
      const double mine = rate(recommended, conflicting, t);
      const Handoff h = fifo_handoff(conflicting, t);
      const double mutex_rate = rate(std::string(kBaselineNames[0].key), conflicting, t);
      const double one = rate(recommended, conflicting, 1);
      line("- " + std::to_string(t) + " threads on " + std::to_string(cpus) + " CPUs: PathLock " +
           impl::path_rwa_joined_scheme().name() + " runs " + mops(mine) + " M/s" +
           (one > 0 ? ", " + fixed(100 * mine / one, 1) + "% of its 1-thread rate" : std::string()) + "; " +
           (h.rate > 0 ? ratio(mine, h.rate) + " " + h.named + " (the faster bare FIFO lock here, " + mops(h.rate) +
                             " M/s)"
                       : std::string("no bare FIFO lock ran")) +
           (mutex_rate > 0 ? ", " + ratio(mine, mutex_rate) + " std::mutex" : std::string()));
    }
  }
  return out;
}

}  // namespace pathlock::bench
