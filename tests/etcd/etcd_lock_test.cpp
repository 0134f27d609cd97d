// The etcd lock on a real 3-member cluster on loopback (support/etcd_cluster):
// the lock-interface conformance suite, unchanged, then what only a
// distributed lock has: round trips, leases, fencing, and faults (a client
// killed or paused while holding, a member killed, a lost unlock response).

#include <signal.h>

#include <atomic>
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "conformance/lock_conformance.hpp"
#include "pathlock/etcd/etcd_path_lock.hpp"
#include "pathlock/etcd/fencing.hpp"
#include "support/etcd_cluster.hpp"

namespace pathlock::conformance {
namespace {

using etcd::EtcdPathLock;
using testing_support::ChildProcess;
using testing_support::EtcdCluster;

// One cluster per test process (CTest runs each test case in its own).
EtcdCluster& cluster() {
  static EtcdCluster instance(3);
  return instance;
}

etcd::EtcdPathLockOptions options_for(std::string prefix, std::chrono::seconds ttl = std::chrono::seconds(10)) {
  static std::atomic<int> locks{0};
  etcd::EtcdPathLockOptions o;
  o.client.endpoints = cluster().client_urls();
  o.key_prefix = std::move(prefix) + std::to_string(locks.fetch_add(1)) + "/";
  o.lease_ttl = ttl;
  return o;
}

struct EtcdBackend {
  using Lock = EtcdPathLock;
  static std::unique_ptr<Lock> make() { return std::make_unique<Lock>(options_for("conformance/")); }
  static constexpr auto kSettle = std::chrono::milliseconds(300);
  static constexpr int kThreads = 4;
  static constexpr int kOpsPerThread = 25;
};

INSTANTIATE_TYPED_TEST_SUITE_P(Etcd, LockConformance, EtcdBackend);

// A cluster's ports are distinct: two members given one port both fail to
// start. Probes closed one at a time repeat a port a few times in 400.
TEST(EtcdCluster, FreeLoopbackPortsAreDistinct) {
  const std::vector<int> ports = testing_support::free_loopback_ports(400);
  ASSERT_EQ(ports.size(), 400U);
  EXPECT_EQ(std::set<int>(ports.begin(), ports.end()).size(), ports.size());
}

// The etcd lock is exact: a request waits only for a request the model says
// it conflicts with.
TEST(EtcdPathLock, GrantsExactlyWhenTheModelSaysNoConflict) {
  EtcdPathLock lock(options_for("exact/"));
  const auto requests = sample_requests();
  for (const auto& a : requests) {
    auto held = lock.acquire(a);
    ASSERT_TRUE(held);
    for (const auto& b : requests) {
      EXPECT_EQ(lock.try_acquire(b).owns_lock(), !model::conflicts(a, b)) << a.to_string() << " then " << b.to_string();
    }
  }
}

TEST(EtcdPathLock, AnUncontendedAcquireAndReleaseAreOneRoundTripEach) {
  EtcdPathLock lock(options_for("trips/"));
  (void)lock.lease_id();  // the lease is granted once per process, not per acquire
  const auto request = model::rename(P("/photos/2024"), P("/archive/2024")).request();
  const auto before = lock.client().requests_sent();
  auto guard = lock.acquire(request);
  ASSERT_TRUE(guard);
  EXPECT_EQ(lock.client().requests_sent() - before, 1u);
  guard.release();
  EXPECT_EQ(lock.client().requests_sent() - before, 2u);
}

TEST(EtcdPathLock, LaterHoldersOfAConflictingLockGetLargerTokens) {
  EtcdPathLock lock(options_for("tokens/"));
  std::int64_t last = 0;
  for (const char* p : {"/a", "/a/b", "/a", "/a/b/c"}) {
    auto g = lock.write(P(p));
    EXPECT_GT(g.fencing_token(), last);
    last = g.fencing_token();
  }
}

// etcd #22082: an unlock whose answer was lost is sent again, after another
// holder took the same path. The retry must delete nothing of it.
TEST(EtcdPathLock, ARetriedUnlockDeletesNoNewerLock) {
  EtcdPathLock lock(options_for("unlock/"));
  auto first = lock.write(P("/a"));
  ASSERT_TRUE(first);
  std::atomic<bool> lost_once{false};
  EtcdPathLock::Guard newer;
  lock.client().set_response_fault([&](std::string_view api, const nlohmann::json& request) {
    const bool is_unlock = api == "kv/txn" && request.contains("success") && !request["success"].empty() &&
                           request["success"][0].contains("request_delete_range");
    if (!is_unlock || lost_once.exchange(true)) return etcd::ResponseFault::kDeliver;
    // The unlock was applied; before its retry, the path changes hands.
    newer = lock.write(P("/a"));
    return etcd::ResponseFault::kLose;
  });
  first.release();  // applied, answer lost, sent again
  lock.client().set_response_fault(nullptr);
  ASSERT_TRUE(lost_once.load());
  ASSERT_TRUE(newer);
  EXPECT_EQ(lock.try_acquire(model::read(P("/a/x")).request()).status(), AcquireStatus::kWouldBlock)
      << "the retried unlock deleted the newer lock";
  EXPECT_EQ(lock.fenced_put(newer, "fenced/a", "v"), etcd::FenceOutcome::kWritten);
}

// A waiter behind more blockers than one transaction may read checks them
// in batches; each waiter is granted in turn.
TEST(EtcdPathLock, AWaitBehindManyWaitersChecksThemInBatches) {
  auto o = options_for("batches/");
  o.max_txn_ops = 3;  // W{/hot}: one record and two ranges; so three blockers per check
  EtcdPathLock holder_lock(o);
  auto holder = holder_lock.write(P("/hot"));
  constexpr int kWaiters = 5;
  std::vector<std::unique_ptr<EtcdPathLock>> locks;
  for (int i = 0; i < kWaiters; ++i) locks.push_back(std::make_unique<EtcdPathLock>(o));
  std::atomic<int> granted{0};
  std::vector<std::thread> waiters;
  for (int i = 0; i < kWaiters; ++i) {
    waiters.emplace_back([&, i] {
      auto g = locks[static_cast<std::size_t>(i)]->acquire_for(model::write(P("/hot")).request(), std::chrono::seconds(30));
      if (g) granted.fetch_add(1);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // queued in order
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto start = std::chrono::steady_clock::now();
  holder.release();
  for (auto& t : waiters) t.join();
  EXPECT_EQ(granted.load(), kWaiters);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// A late duplicate of an acquire, applied after the release, recreates
// records nobody will release (pathlock check-etcd's "no-orphan-sweep"
// counterexample); the keep-alive thread's sweep deletes them.
TEST(EtcdPathLock, RecordsOfALateDuplicateAcquireAreSwept) {
  auto o = options_for("orphans/", std::chrono::seconds(2));
  EtcdPathLock lock(o);
  EtcdPathLock other(o);
  nlohmann::json acquire_txn;
  lock.client().set_response_fault([&](std::string_view api, const nlohmann::json& request) {
    if (api == "kv/txn" && acquire_txn.is_null() && request.contains("failure")) acquire_txn = request;
    return etcd::ResponseFault::kDeliver;
  });
  lock.write(P("/a")).release();
  lock.client().set_response_fault(nullptr);
  ASSERT_FALSE(acquire_txn.is_null());
  const auto applied_again = lock.client().call("kv/txn", acquire_txn);
  ASSERT_TRUE(applied_again.value("succeeded", false)) << "the duplicate did not recreate the records";
  EXPECT_EQ(other.try_acquire(model::write(P("/a")).request()).status(), AcquireStatus::kWouldBlock);
  // Swept within a keep-alive period (TTL / 4), although the lease lives on.
  auto g = other.acquire_for(model::write(P("/a")).request(), std::chrono::seconds(5));
  EXPECT_TRUE(g) << to_string(g.status());
}

// etcd #11456: a lease lost while its holder waited must not end in a grant;
// a lease lost while holding is reported to the guard and to the callback.
TEST(EtcdPathLock, ALostLeaseIsReportedToItsGuardsAndTheCallback) {
  std::atomic<std::int64_t> reported{0};
  auto o = options_for("lease/", std::chrono::seconds(2));
  o.on_lease_lost = [&](std::int64_t lease, etcd::LeaseEnd) { reported = lease; };
  EtcdPathLock lock(o);
  auto other_options = o;  // the same keys, another process's lease
  other_options.on_lease_lost = nullptr;
  EtcdPathLock other(other_options);
  auto held = lock.write(P("/a"));
  auto blocker = other.write(P("/b"));
  std::atomic<AcquireStatus> waited{AcquireStatus::kGranted};
  std::thread waiter([&] { waited = lock.acquire_for(model::write(P("/b")).request(), std::chrono::seconds(20)).status(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const std::int64_t lease = lock.lease_id();
  lock.client().call("lease/revoke", {{"ID", std::to_string(lease)}});  // as if it expired
  blocker.release();
  waiter.join();
  EXPECT_EQ(waited.load(), AcquireStatus::kLeaseLost);  // not a grant (#11456)
  EXPECT_EQ(lock.fenced_put(held, "fenced/a", "stale"), etcd::FenceOutcome::kRejected);
  // The keep-alive thread learns it at its next keep-alive (every TTL / 4).
  for (int i = 0; i < 100 && reported.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(reported.load(), lease);
  EXPECT_EQ(held.status(), AcquireStatus::kLeaseLost);
  // The next acquire runs under a new lease.
  auto again = lock.write(P("/a"));
  EXPECT_TRUE(again);
  EXPECT_NE(lock.lease_id(), lease);
}

ChildProcess start_client(const std::string& prefix, const std::string& path) {
  return ChildProcess::spawn({PATHLOCK_ETCD_CLIENT, "hold", cluster().client_urls_joined(), prefix, "2", path});
}

std::int64_t granted_token(ChildProcess& client) {
  const std::string line = client.read_line(20000);
  if (!line.starts_with("granted ")) return 0;
  return std::stoll(line.substr(8));
}

TEST(EtcdPathLock, AClientKilledWhileHoldingReleasesAfterItsTtl) {
  auto o = options_for("killed/");
  EtcdPathLock lock(o);
  auto client = start_client(o.key_prefix, "/a/b");
  const std::int64_t killed_token = granted_token(client);
  ASSERT_GT(killed_token, 0);
  EXPECT_EQ(lock.try_acquire(model::write(P("/a")).request()).status(), AcquireStatus::kWouldBlock);
  client.signal(SIGKILL);
  client.wait();
  const auto start = std::chrono::steady_clock::now();
  auto g = lock.acquire_for(model::write(P("/a")).request(), std::chrono::seconds(10));
  ASSERT_TRUE(g) << to_string(g.status());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));  // TTL 2 s
  EXPECT_GT(g.fencing_token(), killed_token);
  // The store's side: the new holder's write is accepted, then a late write
  // carrying the killed client's token is refused.
  etcd::TokenFence store;
  EXPECT_EQ(store.admit("a/b/part-0", g.fencing_token()), etcd::FenceVerdict::kAccepted);
  EXPECT_EQ(store.admit("a/b/part-0", killed_token), etcd::FenceVerdict::kStale);
}

TEST(EtcdPathLock, AClientPausedPastItsTtlSeesTheLossAndItsFencedWriteFails) {
  auto o = options_for("paused/");
  EtcdPathLock lock(o);
  auto client = start_client(o.key_prefix, "/a");
  const std::int64_t paused_token = granted_token(client);
  ASSERT_GT(paused_token, 0);
  client.signal(SIGSTOP);
  auto g = lock.acquire_for(model::write(P("/a/b")).request(), std::chrono::seconds(10));
  ASSERT_TRUE(g) << to_string(g.status());
  EXPECT_GT(g.fencing_token(), paused_token);
  client.signal(SIGCONT);
  client.write_line("report");
  EXPECT_EQ(client.read_line(10000), "status lease lost");
  EXPECT_EQ(client.read_line(10000), "fence rejected");
  EXPECT_EQ(client.wait(), 0);
}

// Several client processes lock at random; each logs its holds as etcd
// revisions. In etcd's order, no two conflicting holds overlap, and
// conflicting requests are granted in the order of their tickets (FIFO).
TEST(EtcdPathLock, AMultiProcessHistoryHasNoOverlappingConflictsAndKeepsTicketOrder) {
  constexpr int kProcesses = 4;
  constexpr int kOperations = 40;
  const auto o = options_for("history/");
  struct Hold {
    int process;
    std::size_t request;
    std::int64_t ticket, granted_at, released_at;
  };
  std::vector<ChildProcess> clients;
  for (int p = 0; p < kProcesses; ++p) {
    clients.push_back(ChildProcess::spawn({PATHLOCK_ETCD_CLIENT, "history", cluster().client_urls_joined(),
                                           o.key_prefix, std::to_string(p + 1), std::to_string(kOperations)}));
  }
  std::vector<Hold> holds;
  int unknown_releases = 0;
  for (int p = 0; p < kProcesses; ++p) {
    for (int i = 0; i < kOperations; ++i) {
      std::istringstream line(clients[static_cast<std::size_t>(p)].read_line(60000));
      std::string word;
      Hold h{p, 0, 0, 0, 0};
      line >> word >> h.request >> h.ticket >> h.granted_at >> h.released_at;
      ASSERT_EQ(word, "hold") << "process " << p << " (seed " << p + 1 << "), operation " << i;
      // 0: the deleting revision is unknown (a release whose first answer
      // was lost, e.g. at a leader change, finds its records gone on retry).
      if (h.released_at == 0) {
        ++unknown_releases;
        continue;
      }
      holds.push_back(h);
    }
    EXPECT_EQ(clients[static_cast<std::size_t>(p)].wait(), 0);
  }
  const auto requests = sample_requests();
  int conflicting_pairs = 0;
  for (std::size_t i = 0; i < holds.size(); ++i) {
    for (std::size_t j = 0; j < holds.size(); ++j) {
      const Hold& a = holds[i];
      const Hold& b = holds[j];
      if (a.ticket >= b.ticket || !model::conflicts(requests[a.request], requests[b.request])) continue;
      ++conflicting_pairs;
      EXPECT_LE(a.released_at, b.granted_at)
          << requests[a.request].to_string() << " (ticket " << a.ticket << ", process " << a.process << ") and "
          << requests[b.request].to_string() << " (ticket " << b.ticket << ", process " << b.process << ")";
    }
  }
  EXPECT_LE(unknown_releases, kProcesses * kOperations / 10);
  EXPECT_GT(conflicting_pairs, 1000);  // the history is worth checking
}

TEST(EtcdPathLock, LocksKeepWorkingWhenAMemberIsKilled) {
  EtcdCluster own(3);
  etcd::EtcdPathLockOptions o;
  o.client.endpoints = own.client_urls();
  o.lease_ttl = std::chrono::seconds(5);
  EtcdPathLock lock(o);
  auto before = lock.write(P("/a"));
  ASSERT_TRUE(before);
  own.kill_member(0);  // the member the client talks to first
  EXPECT_EQ(lock.try_acquire(model::write(P("/a/b")).request()).status(), AcquireStatus::kWouldBlock);
  before.release();
  for (int i = 0; i < 20; ++i) {
    auto g = lock.write(P(i % 2 == 0 ? "/a" : "/a/b"));
    ASSERT_TRUE(g);
  }
}

}  // namespace
}  // namespace pathlock::conformance
