// s3_folders: folder operations on an S3-like object store, with and without
// PathLock.
//
// The store has S3's guarantees and no more (folder_ops.hpp: the folder
// operations as key operations, and the folder invariant). A read checks it on
// what it saw, and a final audit checks it on the whole store. Clients run
// these operations concurrently on a small tree, first each operation inside
// a PathLock guard, then without one. With the lock every folder operation is
// atomic and the invariant always holds; without it, interleaved key
// operations tear folders apart (mixed versions, half-moved folders).
//
// A watchdog (tests/support/watchdog.hpp) bounds the locked run: if it has
// not finished within --watchdog-seconds (a deadlock, a lost wake-up), it
// prints what each client was doing and what every acquisition waits for
// (PathLock::describe_waits), and the program exits with status 3.
//
// Exit status: 0 if the locked runs kept the invariant, 1 if not, 2 on bad
// flags, 3 if the locked run hung past the watchdog's limit.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "folder_ops.hpp"
#include "pathlock/impl/scheme.hpp"
#include "pathlock/impl/scheme_admission.hpp"
#include "pathlock/model/path.hpp"
#include "pathlock/path_lock.hpp"
#include "support/watchdog.hpp"

namespace {

using pathlock::model::Path;
using pathlock::testing_support::ThreadPhase;
using pathlock::testing_support::WatchedThread;

// Per-key atomic, like S3. Each call yields afterwards, standing in for the
// network round trip that lets other clients' calls interleave.
class ObjectStore {
 public:
  void put(const std::string& key, const std::string& value) {
    {
      std::lock_guard<std::mutex> hold(mu_);
      objects_[key] = value;
    }
    std::this_thread::yield();
  }
  std::optional<std::string> get(const std::string& key) {
    std::optional<std::string> value;
    {
      std::lock_guard<std::mutex> hold(mu_);
      if (auto it = objects_.find(key); it != objects_.end()) value = it->second;
    }
    std::this_thread::yield();
    return value;
  }
  void erase(const std::string& key) {
    {
      std::lock_guard<std::mutex> hold(mu_);
      objects_.erase(key);
    }
    std::this_thread::yield();
  }
  // The keys that start with `prefix`, like ListObjectsV2.
  std::vector<std::string> list(const std::string& prefix) {
    std::vector<std::string> keys;
    {
      std::lock_guard<std::mutex> hold(mu_);
      for (auto it = objects_.lower_bound(prefix); it != objects_.end() && it->first.starts_with(prefix); ++it) {
        keys.push_back(it->first);
      }
    }
    std::this_thread::yield();
    return keys;
  }
  std::map<std::string, std::string> snapshot() {
    std::lock_guard<std::mutex> hold(mu_);
    return objects_;
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::string> objects_;
};

using pathlock::examples::kParts;
using pathlock::examples::prefix_of;
using pathlock::examples::torn_folders;

// A client's guard: the lock's, taken in the operation's request, with the
// watchdog told (or none, unlocked).
struct Hold {
  pathlock::PathLock* lock;
  WatchedThread* watched;
  pathlock::PathLock::Guard operator()(const pathlock::model::Operation& operation) const {
    if (lock == nullptr) return {};
    // The text, not the request: the watchdog may read it after this
    // operation's request is gone.
    if (watched != nullptr) {
      watched->note(operation.to_string());
      watched->at(ThreadPhase::kAcquiring);
    }
    auto guard = lock->acquire(operation.request());
    if (watched != nullptr) watched->at(ThreadPhase::kHolding);
    return guard;
  }
};

struct RunResult {
  long operations = 0;
  long torn_reads = 0;    // reads that saw a torn folder
  int torn_at_end = 0;    // folders torn in the final audit
  double seconds = 0;
  bool corrupt() const { return torn_reads > 0 || torn_at_end > 0; }
};

// `watchdog_seconds` > 0: a locked run that has not finished by then ends the
// program (status 3), printing what it waits for.
RunResult run(pathlock::PathLock* lock, int clients, int ops_per_client, std::uint64_t seed,
              double watchdog_seconds) {
  ObjectStore store;
  const auto tree = pathlock::examples::example_folders();
  for (std::size_t i = 0; i < tree.size(); ++i) {
    for (int p = 0; p < kParts; ++p) store.put(fmt::format("{}part-{}", prefix_of(tree[i]), p), "initial");
  }
  std::atomic<long> torn_reads{0};
  std::atomic<long> operations{0};
  std::optional<pathlock::testing_support::Watchdog> watchdog;
  std::vector<WatchedThread*> watched(static_cast<std::size_t>(clients), nullptr);
  if (lock != nullptr && watchdog_seconds > 0) {
    watchdog.emplace(fmt::format("s3_folders: {} clients x {} operations under {}", clients, ops_per_client,
                                 lock->scheme().name()),
                     std::chrono::milliseconds(static_cast<long long>(watchdog_seconds * 1000)), "--watchdog-seconds");
    watchdog->watch("lock", *lock);
    for (int c = 0; c < clients; ++c) {
      watched[static_cast<std::size_t>(c)] = &watchdog->thread(fmt::format("client {}", c));
    }
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int c = 0; c < clients; ++c) {
    pool.emplace_back([&, c] {
      std::mt19937_64 rng(seed + static_cast<std::uint64_t>(c));
      pathlock::examples::FolderClient client(store, Hold{lock, watched[static_cast<std::size_t>(c)]});
      for (int i = 0; i < ops_per_client; ++i) {
        if (pathlock::examples::random_operation(client, tree, rng, fmt::format("v{}.{}", c, i)) > 0) ++torn_reads;
        ++operations;
      }
    });
  }
  for (auto& t : pool) t.join();
  watchdog.reset();
  RunResult result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.operations = operations.load();
  result.torn_reads = torn_reads.load();
  std::map<std::string, std::optional<std::string>> all;
  for (auto& [key, value] : store.snapshot()) all[key] = value;
  result.torn_at_end = torn_folders(all);
  return result;
}

void print(const char* label, const RunResult& r) {
  fmt::print("{:<22} {:>10} {:>11} {:>13} {:>8.2f}  {}\n", label, r.operations, r.torn_reads, r.torn_at_end,
             r.seconds, r.corrupt() ? "CORRUPT" : "consistent");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Concurrent folder operations on an S3-like store, with and without PathLock."};
  std::string scheme_name = "path-rwa-joined";
  std::string mode = "both";
  int clients = 4;
  int ops = 2000;
  int rounds = 20;
  std::uint64_t seed = 1;
  double watchdog_seconds = 60;
  app.add_option("--scheme", scheme_name, "lock scheme (a built-in name)");
  app.add_option("--mode", mode, "locked, unlocked or both")->check(CLI::IsMember({"locked", "unlocked", "both"}));
  app.add_option("--clients", clients, "concurrent clients")->check(CLI::Range(1, 64));
  app.add_option("--ops", ops, "operations per client per round")->check(CLI::Range(1, 1000000));
  app.add_option("--rounds", rounds, "unlocked: rounds to try until corruption shows")->check(CLI::Range(1, 1000));
  app.add_option("--seed", seed, "seed of the clients' operation choices");
  app.add_option("--watchdog-seconds", watchdog_seconds,
                 "a locked run not finished by then prints what it waits for and exits 3 (0: no watchdog)")
      ->check(CLI::Range(0.0, 86400.0));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints help, or the error naming the flag
    return code == 0 ? 0 : 2;
  }
  const pathlock::impl::Scheme* scheme = pathlock::impl::find_builtin_scheme(scheme_name);
  if (scheme == nullptr) {
    fmt::print(stderr, "error: --scheme: no built-in scheme named '{}'\n", scheme_name);
    return 2;
  }
  try {
    pathlock::impl::require_sound_scheme(*scheme);
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "error: --scheme: {}\n", e.what());
    return 2;
  }
  fmt::print("s3_folders: {} clients x {} operations, {} part files per folder, seed {}\n", clients, ops, kParts,
             seed);
  fmt::print("{:<22} {:>10} {:>11} {:>13} {:>8}\n", "run", "operations", "torn reads", "torn at end", "seconds");
  bool locked_ok = true;
  if (mode != "unlocked") {
    pathlock::PathLock lock(*scheme);
    const RunResult r = run(&lock, clients, ops, seed, watchdog_seconds);
    print(fmt::format("with {}", scheme_name).c_str(), r);
    locked_ok = !r.corrupt();
  }
  if (mode != "locked") {
    // Races need luck to show: repeat until one does.
    for (int round = 1; round <= rounds; ++round) {
      const RunResult r = run(nullptr, clients, ops, seed + static_cast<std::uint64_t>(round) * 1000, 0);
      print(fmt::format("no lock, round {}", round).c_str(), r);
      if (r.corrupt()) {
        fmt::print("without the lock: folder invariant broken after {} round(s)\n", round);
        break;
      }
      if (round == rounds) fmt::print("without the lock: no corruption seen in {} rounds\n", rounds);
    }
  }
  if (mode != "unlocked") {
    fmt::print("with the lock: {}\n", locked_ok ? "every folder operation was atomic" : "FOLDER INVARIANT BROKEN");
  }
  return locked_ok ? 0 : 1;
}
