// A client process for the etcd tests.
//
//   etcd_lock_client hold <endpoints> <key prefix> <ttl seconds> <path>
//     takes one write lock and prints "granted <fencing token>"; then waits
//     for a line on stdin and prints "status <the guard's status>" and
//     "fence <written|rejected>" (a fenced_put with its guard).
//   etcd_lock_client history <endpoints> <key prefix> <seed> <operations>
//     acquires and releases that many requests drawn (by the seed) from the
//     conformance sample, holding each up to 2 ms, and prints one line each:
//     "hold <request index> <ticket> <granted at> <released at>" (revisions).
// <endpoints> is comma-separated.

#include <chrono>
#include <iostream>
#include <string>
#include <thread>

#include "conformance/sample_requests.hpp"
#include "pathlock/etcd/etcd_path_lock.hpp"
#include "pathlock/sim/rng.hpp"

namespace {

pathlock::etcd::EtcdPathLockOptions options(const std::string& endpoints, const std::string& prefix) {
  pathlock::etcd::EtcdPathLockOptions o;
  o.client.endpoints = pathlock::etcd::split_endpoints(endpoints);
  o.key_prefix = prefix;
  return o;
}

int hold(pathlock::etcd::EtcdPathLockOptions o, int ttl, const std::string& path) {
  o.lease_ttl = std::chrono::seconds(ttl);
  pathlock::etcd::EtcdPathLock lock(o);
  auto guard = lock.write(pathlock::model::Path::parse(path));
  std::cout << "granted " << guard.fencing_token() << std::endl;
  std::string line;
  std::getline(std::cin, line);
  std::cout << "status " << pathlock::to_string(guard.status()) << std::endl;
  const auto fence = lock.fenced_put(guard, "fenced" + path, "written by the client");
  std::cout << "fence " << (fence == pathlock::etcd::FenceOutcome::kWritten ? "written" : "rejected") << std::endl;
  return 0;
}

int history(const pathlock::etcd::EtcdPathLockOptions& o, std::uint64_t seed, int operations) {
  pathlock::etcd::EtcdPathLock lock(o);
  const auto requests = pathlock::conformance::sample_requests();
  pathlock::sim::Rng rng(seed);
  for (int i = 0; i < operations; ++i) {
    const auto index = rng.below(requests.size());
    auto guard = lock.acquire(requests[index]);
    if (!guard) {
      std::cout << "failed " << index << " " << pathlock::to_string(guard.status()) << std::endl;
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(rng.below(2000)));
    const auto ticket = guard.fencing_token();
    const auto granted_at = guard.granted_at();
    const auto released_at = guard.release_and_report();
    std::cout << "hold " << index << " " << ticket << " " << granted_at << " " << released_at << std::endl;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "hold" && argc == 6) return hold(options(argv[2], argv[3]), std::stoi(argv[4]), argv[5]);
  if (mode == "history" && argc == 6) return history(options(argv[2], argv[3]), std::stoull(argv[4]), std::stoi(argv[5]));
  std::cerr << "usage: etcd_lock_client hold <endpoints> <key prefix> <ttl seconds> <path>\n"
               "       etcd_lock_client history <endpoints> <key prefix> <seed> <operations>\n";
  return 2;
}
