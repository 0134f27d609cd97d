#pragma once
// pathlock::PathLock: hierarchical path locks for S3-style object stores.
//
// A PathLock makes folder operations (write, delete, rename, copy, whole-folder
// read) atomic with respect to each other: two requests that conflict (some
// path written by one is related to a path read or written by the other;
// related = equal, ancestor or descendant) never hold their locks at once.
//
//   pathlock::PathLock lock(pathlock::impl::path_rwa_joined_scheme());
//   {
//     auto guard = lock.copy(Path::parse("/photos/2024"), Path::parse("/backup/2024"));
//     ...  // list and copy the keys under photos/2024/ to backup/2024/
//   }      // released here
//
//   auto g = lock.acquire_for(request, std::chrono::milliseconds(50));
//   if (g.status() == pathlock::AcquireStatus::kTimedOut) ...
//
// SCHEMES. Any impl::Scheme: the built-in ones (impl/scheme.hpp documents
// their modes and compatibility grids) or one built from a SchemeSpec. The
// recommended one is path-rwa-joined (Gray's IS/S/IX/SIX/X):
//
//               RA  R   WA  RWA W         RA  read-ancestor: a path below is read
//          RA   ✓   ✓   ✓   ✓   ✗         R   read: this subtree is read
//          R    ✓   ✓   ✗   ✗   ✗         WA  write-ancestor: a path below is written
//          WA   ✓   ✗   ✓   ✗   ✗         RWA read this subtree, write below
//          RWA  ✓   ✗   ✗   ✗   ✗         W   write: this subtree is written
//          W    ✗   ✗   ✗   ✗   ✗
//
// PLANS AND ORDER. A request's plan comes from impl::plan_into, the same code
// the simulator and the model checker validate: one step per lock, each lock
// once, in strictly increasing order of the scheme's LockOrder (by default
// ancestor first, then lexicographic by component). An acquire takes its steps
// one at a time and waits for at most one lock at a time, which is what seed
// 000's deadlock-freedom theorem requires. A thread that already holds a
// guard and acquires another that conflicts with it deadlocks with itself:
// the lock is not re-entrant (a self-loop in the wait-for graph).
//
// FAIRNESS. Each lock is an impl::LockQueue: FIFO among conflicting requests.
// A request is granted at once iff its mode is compatible with every holder
// and every queued waiter; a waiter is granted once it is compatible with
// every holder and every waiter still ahead of it. So a waiter is never
// overtaken by a request incompatible with it: a writer is not starved by a
// stream of readers, and only compatible requests bypass anyone.
//
// MEMORY. Lock entries exist only while held or waited for: the entry of a
// lock that becomes idle is evicted at once (the counterpart of the design
// notes' weak-reference cache), and its node kept for reuse, up to
// PathLockOptions::max_free_nodes_per_shard per shard. Memory is bounded by
// the locks in use plus that cache. Eviction cannot race a waiter: finding an
// entry and queueing on it happen in one critical section of its shard, and a
// queued entry is not idle.
//
// CONCURRENCY. The table is split into shards (a power of two), each a
// mutex-protected intrusive hash table; there is no global mutex. A step
// locks one shard for a few hundred instructions. Waiting happens outside any
// shard mutex, on the waiter's own condition variable.
//
// INVARIANTS (per shard, under its mutex):
//   every entry in the table has a holder or a waiter       (no idle entries)
//   entries == number of entries linked from the buckets
//   each waiting acquisition has exactly one sleeper record, on the entry it waits for
//
// COSTS. An uncontended acquire allocates nothing once the node cache is warm
// (and its plan has at most impl::StepBuffer::kInline steps); see README for
// measured times.
//
// ERRORS. Requests are model::Request, validated when built (a malformed key
// or path, or an empty request, throws model::InputError there). A deadline
// already past is not an error: the acquire gets whatever it can without
// waiting, and returns kTimedOut if it would have had to wait.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stop_token>
#include <vector>

#include "pathlock/impl/lock_queue.hpp"
#include "pathlock/impl/scheme.hpp"
#include "pathlock/model/request.hpp"

namespace pathlock {

enum class AcquireStatus {
  kGranted,     // every lock of the plan is held
  kWouldBlock,  // try_acquire: some lock is not free now; nothing is held
  kTimedOut,    // the deadline passed first; nothing is held
  kCancelled,   // the stop token was triggered first; nothing is held
  kReleased,    // the guard was released, moved from, or default-constructed
};
std::string_view to_string(AcquireStatus status) noexcept;

struct PathLockOptions {
  std::size_t shards = 64;                    // rounded up to a power of two
  std::size_t max_free_nodes_per_shard = 64;  // idle nodes kept for reuse
};

class PathLock {
 public:
  class Guard;
  struct Node;
  struct Shard;

  // REQUIRES: `scheme` outlives the PathLock.
  explicit PathLock(const impl::Scheme& scheme, PathLockOptions options = {});
  // REQUIRES: no guard is held and no acquire is in progress.
  ~PathLock();
  PathLock(const PathLock&) = delete;
  PathLock& operator=(const PathLock&) = delete;

  // Blocks until granted.
  [[nodiscard]] Guard acquire(const model::Request& request);
  // Blocks until granted (kGranted) or `stop` is requested (kCancelled).
  [[nodiscard]] Guard acquire(const model::Request& request, std::stop_token stop);
  // Never blocks: kGranted or kWouldBlock.
  [[nodiscard]] Guard try_acquire(const model::Request& request);
  // kGranted, kTimedOut, or kCancelled if `stop` is requested first.
  [[nodiscard]] Guard acquire_until(const model::Request& request, std::chrono::steady_clock::time_point deadline,
                                    std::stop_token stop = {});
  template <typename Rep, typename Period>
  [[nodiscard]] Guard acquire_for(const model::Request& request, std::chrono::duration<Rep, Period> timeout,
                                  std::stop_token stop = {});

  // The design notes' operations, blocking. They build the request (which
  // allocates); for a hot path, build the request once and call acquire().
  [[nodiscard]] Guard read(const model::Path& path);
  [[nodiscard]] Guard write(const model::Path& path);
  [[nodiscard]] Guard remove(const model::Path& path);
  [[nodiscard]] Guard rename(const model::Path& from, const model::Path& to);
  [[nodiscard]] Guard copy(const model::Path& from, const model::Path& to);

  const impl::Scheme& scheme() const noexcept { return scheme_; }
  // Lock entries in use (held or waited for), over all shards.
  std::size_t active_locks() const;
  // Idle nodes kept for reuse, over all shards.
  std::size_t cached_nodes() const;

 private:
  enum class WaitPolicy { kNever, kUntilDeadline, kForever };
  Guard acquire_impl(const model::Request& request, WaitPolicy policy,
                     std::chrono::steady_clock::time_point deadline, std::stop_token stop);
  void release_node(Node* node, impl::TaskId id);
  Shard& shard_for(std::uint64_t hash) const noexcept;

  const impl::Scheme& scheme_;
  PathLockOptions options_;
  std::size_t shard_mask_;
  std::unique_ptr<Shard[]> shards_;
};

// Holds the locks of one granted acquire; releases them when destroyed.
// Movable, not copyable. Not thread-safe itself: one guard, one owner.
class PathLock::Guard {
 public:
  Guard() = default;
  Guard(Guard&& other) noexcept;
  Guard& operator=(Guard&& other) noexcept;
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;
  ~Guard() { release(); }

  AcquireStatus status() const noexcept { return status_; }
  bool owns_lock() const noexcept { return status_ == AcquireStatus::kGranted; }
  explicit operator bool() const noexcept { return owns_lock(); }
  // Number of locks held.
  std::size_t lock_count() const noexcept { return count_; }
  // Releases every lock now (last acquired first). Idempotent.
  void release() noexcept;

 private:
  friend class PathLock;
  static constexpr std::size_t kInline = 32;
  Guard(PathLock* lock, impl::TaskId id) : lock_(lock), id_(id) {}
  void push(Node* node);
  Node* node(std::size_t i) const noexcept { return i < kInline ? inline_[i] : heap_[i - kInline]; }

  PathLock* lock_ = nullptr;
  impl::TaskId id_ = 0;
  AcquireStatus status_ = AcquireStatus::kReleased;
  std::size_t count_ = 0;
  Node* inline_[kInline] = {};
  std::vector<Node*> heap_;  // steps beyond kInline
};

template <typename Rep, typename Period>
PathLock::Guard PathLock::acquire_for(const model::Request& request, std::chrono::duration<Rep, Period> timeout,
                                      std::stop_token stop) {
  return acquire_until(request,
                       std::chrono::steady_clock::now() + std::chrono::ceil<std::chrono::steady_clock::duration>(timeout),
                       std::move(stop));
}

}  // namespace pathlock
