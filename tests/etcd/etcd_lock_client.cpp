// A client process for the etcd fault tests: takes one write lock, prints
//   granted <fencing token>
// then waits for a line on stdin and prints what it finds afterwards:
//   status <the guard's status>
//   fence <written|rejected>      (a fenced_put with its guard)
// Usage: etcd_lock_client <endpoints,comma-separated> <key prefix> <ttl seconds> <path>

#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include "pathlock/etcd/etcd_path_lock.hpp"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: etcd_lock_client <endpoints> <key prefix> <ttl seconds> <path>\n";
    return 2;
  }
  pathlock::etcd::EtcdPathLockOptions options;
  std::stringstream endpoints(argv[1]);
  for (std::string e; std::getline(endpoints, e, ',');) options.client.endpoints.push_back(e);
  options.key_prefix = argv[2];
  options.lease_ttl = std::chrono::seconds(std::stoi(argv[3]));
  pathlock::etcd::EtcdPathLock lock(options);
  auto guard = lock.write(pathlock::model::Path::parse(argv[4]));
  std::cout << "granted " << guard.fencing_token() << std::endl;
  std::string line;
  std::getline(std::cin, line);
  std::cout << "status " << pathlock::to_string(guard.status()) << std::endl;
  const auto fence = lock.fenced_put(guard, std::string("fenced") + argv[4], "written by the client");
  std::cout << "fence " << (fence == pathlock::etcd::FenceOutcome::kWritten ? "written" : "rejected") << std::endl;
  return 0;
}
