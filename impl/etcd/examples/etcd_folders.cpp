// etcd_folders: several processes rename, copy, write, delete and read the
// folders of one shared store, with and without the etcd lock.
//
// The store is a local directory standing in for the bucket: each object is
// a file, each put is atomic (a temporary file renamed into place), and
// nothing spans two objects, as in S3. The folder operations are those of
// folder_ops.hpp, one sequence of object operations each. The parent
// process fills the store, starts --processes worker processes (this
// program again, with --worker), waits for them, and audits every folder:
// each must hold no part file or all of them with one version. Workers also
// count the torn folders their reads saw.
//
// With the lock (EtcdPathLock on the cluster at --endpoints, or on a
// three-member cluster this program starts on loopback), no folder tears;
// without it, interleaved object operations tear folders.
//
// Exit status: 0 if the locked run kept every folder whole, 1 if not, 2 on
// bad flags, 3 if a worker failed.

#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <fmt/core.h>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "folder_ops.hpp"
#include "pathlock/etcd/etcd_path_lock.hpp"
#include "support/etcd_cluster.hpp"

namespace {

namespace fs = std::filesystem;
using pathlock::examples::kParts;
using pathlock::examples::prefix_of;

// Objects as files under a root folder: key "data/a/part-0" is root/data/a/part-0.
class DirectoryStore {
 public:
  explicit DirectoryStore(fs::path root) : root_(std::move(root)) {}
  void put(const std::string& key, const std::string& value) {
    const fs::path target = root_ / key;
    fs::create_directories(target.parent_path());
    const fs::path temp = root_ / (".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(serial_++));
    std::ofstream(temp) << value;
    fs::rename(temp, target);  // atomic: readers see the old or the new object
  }
  std::optional<std::string> get(const std::string& key) {
    std::ifstream in(root_ / key);
    if (!in) return std::nullopt;
    std::stringstream all;
    all << in.rdbuf();
    return all.str();
  }
  void erase(const std::string& key) {
    std::error_code ignored;
    fs::remove(root_ / key, ignored);
  }
  // The objects whose key starts with `prefix` (a folder's "f/"), like ListObjectsV2.
  std::vector<std::string> list(const std::string& prefix) {
    std::vector<std::string> keys;
    std::error_code error;
    for (fs::recursive_directory_iterator it(root_ / prefix, error), end; !error && it != end; it.increment(error)) {
      // Lexically: another process may delete the file meanwhile.
      if (it->is_regular_file(error)) keys.push_back(it->path().lexically_relative(root_).string());
    }
    return keys;
  }

 private:
  fs::path root_;
  std::uint64_t serial_ = 0;
};

struct Options {
  int processes = 3;
  int ops = 100;
  std::uint64_t seed = 1;
  std::string mode = "both";
  std::string endpoints;  // comma-separated; empty: start a loopback cluster
  std::string store;      // the store's folder; empty: a temporary one
  int worker = -1;        // set in worker processes
  std::string key_prefix = "etcd_folders/";
};

int worker_main(const Options& o) {
  DirectoryStore store(o.store);
  std::optional<pathlock::etcd::EtcdPathLock> lock;
  if (!o.endpoints.empty()) {
    pathlock::etcd::EtcdPathLockOptions lo;
    lo.client.endpoints = pathlock::etcd::split_endpoints(o.endpoints);
    lo.key_prefix = o.key_prefix;
    lock.emplace(lo);
  }
  const auto hold = [&](const pathlock::model::Operation& op) {
    return lock ? lock->acquire(op.request()) : pathlock::etcd::EtcdPathLock::Guard();
  };
  pathlock::examples::FolderClient client(store, hold);
  std::mt19937_64 rng(o.seed + static_cast<std::uint64_t>(o.worker));
  const auto tree = pathlock::examples::example_folders();
  long torn_reads = 0;
  for (int i = 0; i < o.ops; ++i) {
    if (pathlock::examples::random_operation(client, tree, rng, fmt::format("v{}.{}", o.worker, i)) > 0) ++torn_reads;
  }
  fmt::print("{}\n", torn_reads);
  return 0;
}

struct RunResult {
  long torn_reads = 0;
  int torn_at_end = 0;
  double seconds = 0;
  bool corrupt() const { return torn_reads > 0 || torn_at_end > 0; }
};

// Runs the workers against a fresh store; nullopt if one failed.
std::optional<RunResult> run(const Options& o, const std::string& self, const std::string& endpoints,
                             std::uint64_t seed, const std::string& key_prefix) {
  const fs::path root = o.store.empty() ? fs::temp_directory_path() / fmt::format("etcd_folders-{}", ::getpid())
                                        : fs::path(o.store);
  fs::remove_all(root);
  DirectoryStore store(root);
  for (const auto& folder : pathlock::examples::example_folders()) {
    for (int p = 0; p < kParts; ++p) store.put(fmt::format("{}part-{}", prefix_of(folder), p), "initial");
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<pathlock::testing_support::ChildProcess> workers;
  for (int w = 0; w < o.processes; ++w) {
    std::vector<std::string> argv = {self, "--worker", std::to_string(w), "--ops", std::to_string(o.ops),
                                     "--seed", std::to_string(seed), "--store", root.string(),
                                     "--key-prefix", key_prefix};
    if (!endpoints.empty()) {
      argv.push_back("--endpoints");
      argv.push_back(endpoints);
    }
    workers.push_back(pathlock::testing_support::ChildProcess::spawn(argv));
  }
  RunResult result;
  bool failed = false;
  for (auto& w : workers) {
    const std::string line = w.read_line(600000);
    if (w.wait() != 0 || line.empty()) {
      failed = true;
      continue;
    }
    result.torn_reads += std::stol(line);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::map<std::string, std::optional<std::string>> all;
  for (const auto& key : store.list("data/")) all[key] = store.get(key);
  result.torn_at_end = pathlock::examples::torn_folders(all);
  fs::remove_all(root);
  if (failed) return std::nullopt;
  return result;
}

void print(const std::string& label, const RunResult& r) {
  fmt::print("{:<22} {:>11} {:>13} {:>8.2f}  {}\n", label, r.torn_reads, r.torn_at_end, r.seconds,
             r.corrupt() ? "TORN" : "whole");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Folder operations by several processes on one shared store, with and without the etcd lock."};
  Options o;
  app.add_option("--processes", o.processes, "worker processes")->check(CLI::Range(1, 64));
  app.add_option("--ops", o.ops, "operations per process")->check(CLI::Range(1, 100000));
  app.add_option("--seed", o.seed, "seed of the workers' operation choices");
  app.add_option("--mode", o.mode, "locked, unlocked or both")->check(CLI::IsMember({"locked", "unlocked", "both"}));
  app.add_option("--endpoints", o.endpoints, "etcd endpoints, comma-separated (default: start a loopback cluster)");
  app.add_option("--store", o.store, "the store's folder (default: a temporary one, removed after)");
  app.add_option("--key-prefix", o.key_prefix, "the lock's key prefix in etcd");
  app.add_option("--worker", o.worker, "(internal) run as worker number N")->check(CLI::Range(0, 63));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    if (o.worker >= 0) return worker_main(o);
    const std::string self = fs::canonical("/proc/self/exe").string();
    fmt::print("etcd_folders: {} processes x {} operations, {} part files per folder, seed {}\n", o.processes, o.ops,
               kParts, o.seed);
    fmt::print("{:<22} {:>11} {:>13} {:>8}\n", "run", "torn reads", "torn at end", "seconds");
    bool locked_ok = true;
    if (o.mode != "unlocked") {
      std::optional<pathlock::testing_support::EtcdCluster> cluster;
      std::string endpoints = o.endpoints;
      if (endpoints.empty()) {
        cluster.emplace(3);
        endpoints = cluster->client_urls_joined();
      }
      const auto r = run(o, self, endpoints, o.seed, o.key_prefix + std::to_string(::getpid()) + "/");
      if (!r) {
        fmt::print(stderr, "error: a worker process failed\n");
        return 3;
      }
      print("with EtcdPathLock", *r);
      locked_ok = !r->corrupt();
    }
    if (o.mode != "locked") {
      constexpr int kRounds = 10;  // races need luck to show: repeat until one does
      for (int round = 1; round <= kRounds; ++round) {
        const auto r = run(o, self, "", o.seed + static_cast<std::uint64_t>(round) * 1000, "");
        if (!r) return 3;
        print(fmt::format("no lock, round {}", round), *r);
        if (r->corrupt()) {
          fmt::print("without the lock: folders torn after {} round(s)\n", round);
          break;
        }
        if (round == kRounds) fmt::print("without the lock: no torn folder seen in {} rounds\n", kRounds);
      }
    }
    if (o.mode != "unlocked") {
      fmt::print("with the lock: {}\n", locked_ok ? "every folder operation was atomic across processes"
                                                  : "FOLDERS TORN");
    }
    return locked_ok ? 0 : 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 3;
  }
}
