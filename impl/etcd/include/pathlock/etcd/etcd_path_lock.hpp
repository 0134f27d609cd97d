#pragma once
// pathlock::etcd::EtcdPathLock: the PathLock's folder semantics across
// processes and hosts, on an etcd cluster (v3.4+, through its JSON gateway).
//
//   pathlock::etcd::EtcdPathLock lock({.endpoints = {"http://10.0.0.1:2379", "http://10.0.0.2:2379"}});
//   auto guard = lock.rename(Path::parse("/photos/2024"), Path::parse("/archive/2024"));
//   ...  // copy and delete the keys; pass guard.fencing_token() with each write to the store
//
// GUARANTEES, as the in-process lock's: two conflicting requests (some path
// written by one is equal to, above or below a path of the other) never hold
// at once; FIFO among conflicting requests, by etcd revision; no deadlock.
// proofs/etcd-lock.md argues each, and the harness checks the protocol.
//
// PROTOCOL. An acquisition writes one record per path (keys.hpp: the
// layout keeps a folder's subtree one key range) in ONE transaction that also
// reads every range where a conflicting record can be: each path's subtree
// and the records of its ancestors. The records share the transaction's
// revision R, the acquisition's FIFO ticket. It waits only for conflicting
// records created before R, so waits point from a newer revision to an
// older one and cannot form a cycle: it watches the newest of them, then one
// transaction reads the rest again and compares its own records (the wait
// may have outlived the lease: etcd #11456); granted when none is left. A release deletes the records in one
// transaction that compares their create revision with R, so a release sent
// twice (its first answer lost) deletes nothing of a later holder (#22082).
//
// ROUND TRIPS. An uncontended acquire is one transaction; a release is one.
// A contended one adds a watch and a checking transaction per round, and
// usually needs one round: the newest older record goes last. A try_acquire
// that fails withdraws its records: a second transaction.
//
// LEASES. The lock grants one lease per process (options.lease_ttl) and
// keeps it alive from a background thread; every record is attached to it, so
// a crashed process's locks vanish after the TTL. A lease is LOST when
// etcd says it expired or when no keep-alive was acknowledged for a whole TTL
// (counted from when it was sent, less a tenth of the TTL for clock drift,
// so the lock gives up first). Then every
// guard granted under it reports AcquireStatus::kLeaseLost, the callback
// options.on_lease_lost runs once, and the next acquire starts a new lease.
// A process paused past its TTL sees kLeaseLost as soon as it runs again.
//
// ORPHANS. A request can be applied twice: a retry after a lost answer, or
// an original delayed past its retry. An acquire applied again after its
// release creates records that nobody will release, kept alive by the
// process's lease. The keep-alive thread sweeps them: each period it lists
// its lease's keys and deletes the records of acquisitions that are no
// longer live (ids are never reused, so such a record is never needed
// again). `pathlock check-etcd` finds the stuck run without the sweep.
//
// FENCING. A guard's fencing_token() is R: larger for every later holder of
// a conflicting lock. A store that remembers the largest token it has seen
// for an object and rejects writes with a smaller one rejects a holder that
// lost its lease (fencing.hpp: TokenFence keeps that state). For data kept
// in etcd, fenced_put() writes only while the guard's records still exist
// (one transaction).
//
// ERRORS. A member that does not answer is skipped; once no member answered
// for options.client.unavailable_after, the call throws EtcdError
// (kUnavailable). A blocking acquire that throws holds nothing: its
// records are withdrawn, swept, or expire with the lease. Deadlines and stop
// tokens bound the waiting, not each transaction: a call in flight runs to
// its own limits (options.client) before the deadline is seen.
//
// NESTING. As with PathLock, do not acquire while holding a guard of the same
// lock: a conflicting second request of the same thread waits for itself.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "pathlock/etcd/client.hpp"
#include "pathlock/etcd/keys.hpp"
#include "pathlock/model/request.hpp"
#include "pathlock/path_lock.hpp"  // AcquireStatus

namespace pathlock::etcd {

enum class LeaseEnd : std::uint8_t {
  kExpired,       // etcd reported the lease gone
  kUnconfirmed,   // no keep-alive was acknowledged for a whole TTL
};
std::string_view to_string(LeaseEnd end) noexcept;

struct EtcdPathLockOptions {
  ClientOptions client;
  // Every record key starts with it. Locks with different prefixes are
  // independent, provided neither prefix is a prefix of the other; no other
  // key may be written under it.
  std::string key_prefix = "pathlock/";
  std::chrono::seconds lease_ttl{10};
  // etcd's --max-txn-ops (default 128): a request that needs more operations
  // in its transaction is refused (std::invalid_argument, naming both).
  std::size_t max_txn_ops = 128;
  // Runs once per lost lease, with its id and why: on the keep-alive thread
  // or on the acquiring thread that found the loss. It must not block, nor
  // acquire on this lock.
  std::function<void(std::int64_t lease, LeaseEnd why)> on_lease_lost;
};

enum class FenceOutcome : std::uint8_t {
  kWritten,   // the guard's records existed: written at that revision
  kRejected,  // they are gone (released or expired): nothing written
};

class EtcdPathLock {
 public:
  using Clock = std::chrono::steady_clock;
  class Guard;

  explicit EtcdPathLock(EtcdPathLockOptions options);
  // Revokes the lease. REQUIRES: no acquire in progress, and every guard
  // released or destroyed (a guard calls into its lock when released).
  ~EtcdPathLock();
  EtcdPathLock(const EtcdPathLock&) = delete;
  EtcdPathLock& operator=(const EtcdPathLock&) = delete;

  [[nodiscard]] Guard acquire(const model::Request& request, std::stop_token stop = {});
  [[nodiscard]] Guard try_acquire(const model::Request& request);
  [[nodiscard]] Guard acquire_until(const model::Request& request, Clock::time_point deadline,
                                    std::stop_token stop = {});
  template <typename Rep, typename Period>
  [[nodiscard]] Guard acquire_for(const model::Request& request, std::chrono::duration<Rep, Period> timeout,
                                  std::stop_token stop = {});
  [[nodiscard]] Guard read(const model::Path& path);
  [[nodiscard]] Guard write(const model::Path& path);
  [[nodiscard]] Guard remove(const model::Path& path);
  [[nodiscard]] Guard rename(const model::Path& from, const model::Path& to);
  [[nodiscard]] Guard copy(const model::Path& from, const model::Path& to);

  // Puts `value` at `key` (outside the lock's prefix) iff `guard`'s records
  // still exist, in one transaction. REQUIRES: guard was granted by this lock.
  FenceOutcome fenced_put(const Guard& guard, std::string_view key, std::string_view value);

  Client& client() noexcept { return client_; }
  const EtcdPathLockOptions& options() const noexcept { return options_; }
  // The current lease's id (granting one if there is none).
  std::int64_t lease_id();

 private:
  struct Lease;
  enum class WaitPolicy : std::uint8_t { kNever, kUntilDeadline };
  Guard acquire_impl(const model::Request& request, WaitPolicy policy, Clock::time_point deadline,
                     const std::stop_token& stop);
  std::shared_ptr<Lease> current_lease();
  void lease_lost(const std::shared_ptr<Lease>& lease, LeaseEnd why);
  void keep_alive_loop(std::stop_token stop);
  // Deletes this lease's records whose acquisition is no longer live.
  void sweep_orphans(const Lease& lease);
  void forget(const std::string& id);
  // Deletes the records iff they are still the ones created at `revision`:
  // the deleting revision, or 0 if they were gone.
  std::int64_t delete_records(const std::string& first_key, const std::vector<std::string>& keys, std::int64_t revision);

  EtcdPathLockOptions options_;
  Client client_;
  std::mutex mu_;  // guards lease_ and next_id_
  std::condition_variable_any keep_alive_wake_;
  std::shared_ptr<Lease> lease_;
  std::uint64_t next_id_ = 0;
  std::mutex live_mu_;  // guards live_ids_
  // Acquisitions from before their transaction is sent until they are
  // withdrawn or released: the sweep spares their records.
  std::unordered_set<std::string> live_ids_;
  std::jthread keep_alive_;
};

// Holds one granted acquisition's records; deletes them when destroyed.
// Movable, not copyable; one owner.
class EtcdPathLock::Guard {
 public:
  Guard() = default;
  Guard(Guard&& other) noexcept;
  Guard& operator=(Guard&& other) noexcept;
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;
  ~Guard() { release(); }

  // kGranted while held; kLeaseLost once its lease is lost (its records may
  // already be another's); else why it holds nothing.
  AcquireStatus status() const noexcept;
  bool owns_lock() const noexcept { return status() == AcquireStatus::kGranted; }
  explicit operator bool() const noexcept { return owns_lock(); }
  std::size_t lock_count() const noexcept { return keys_.size(); }
  // The acquisition's revision: its FIFO ticket and fencing token (0 if none).
  std::int64_t fencing_token() const noexcept { return revision_; }
  // A revision at which the grant held: the ticket, or after a wait the
  // revision its confirmation read. With released_at(), a hold's interval
  // in etcd's order, for history checks.
  std::int64_t granted_at() const noexcept { return granted_at_; }
  // Deletes the records (one transaction). Idempotent; errors are swallowed:
  // records that could not be deleted expire with the lease.
  void release() noexcept;
  // The same; then the revision that deleted the records, or 0 if it is not
  // known: they had expired, etcd could not be reached, or the release was
  // sent again after a lost answer and found them gone.
  std::int64_t release_and_report() noexcept;

 private:
  friend class EtcdPathLock;
  Guard(EtcdPathLock* lock, std::shared_ptr<Lease> lease, std::string id, std::vector<std::string> keys,
        std::int64_t revision, std::int64_t granted_at, AcquireStatus status);
  EtcdPathLock* lock_ = nullptr;
  std::shared_ptr<Lease> lease_;
  std::string id_;
  std::vector<std::string> keys_;
  std::int64_t revision_ = 0;
  std::int64_t granted_at_ = 0;
  AcquireStatus status_ = AcquireStatus::kReleased;
};

template <typename Rep, typename Period>
EtcdPathLock::Guard EtcdPathLock::acquire_for(const model::Request& request, std::chrono::duration<Rep, Period> timeout,
                                              std::stop_token stop) {
  return acquire_until(request, Clock::now() + std::chrono::duration_cast<Clock::duration>(timeout), std::move(stop));
}

}  // namespace pathlock::etcd
