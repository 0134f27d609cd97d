#include "pathlock/path_lock.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <condition_variable>
#include <functional>
#include <optional>
#include <string>

#include "pathlock/impl/mutex.hpp"
#include "pathlock/impl/plan.hpp"

namespace pathlock {

using impl::LockEntry;
using impl::MutexLock;
using impl::TaskId;

std::string_view to_string(AcquireStatus status) noexcept {
  switch (status) {
    case AcquireStatus::kGranted: return "granted";
    case AcquireStatus::kWouldBlock: return "would block";
    case AcquireStatus::kTimedOut: return "timed out";
    case AcquireStatus::kCancelled: return "cancelled";
    case AcquireStatus::kReleased: return "released";
  }
  return "?";
}

namespace {

// One waiting acquisition, on its thread's stack while it waits.
struct Waiter {
  std::mutex mu;
  std::condition_variable cv;
  bool granted = false;    // set by the granting thread, under mu
  bool cancelled = false;  // set by the stop callback, under mu
};

// Ids are unique per process: each thread takes blocks of 2^16 from a shared
// 64-bit counter, so the hot path touches no shared cache line.
TaskId next_task_id() {
  static std::atomic<TaskId> blocks{1};
  thread_local TaskId next = 0;
  thread_local TaskId end = 0;
  if (next == end) {
    next = blocks.fetch_add(TaskId{1} << 16, std::memory_order_relaxed);
    end = next + (TaskId{1} << 16);
  }
  return next++;
}

std::uint64_t hash_text(std::string_view text) noexcept { return std::hash<std::string_view>{}(text); }

}  // namespace

struct PathLock::Node {
  std::string key;  // canonical path text; keeps its capacity when reused
  std::uint64_t hash = 0;
  Node* next = nullptr;  // bucket chain, or free list
  Shard* shard = nullptr;
  impl::LockQueue queue;
  std::vector<std::pair<TaskId, Waiter*>> sleepers;  // waiting acquisitions
};

struct alignas(64) PathLock::Shard {
  impl::Mutex mu;
  // protected by mu_:
  std::vector<Node*> buckets GUARDED_BY(mu);  // a power of two
  std::size_t entries GUARDED_BY(mu) = 0;
  Node* free_nodes GUARDED_BY(mu) = nullptr;
  std::size_t free_count GUARDED_BY(mu) = 0;

  // The entry for `key`, created if missing.
  Node* find_or_create(std::string_view key, std::uint64_t hash) REQUIRES(mu) {
    Node** bucket = &buckets[hash & (buckets.size() - 1)];
    for (Node* n = *bucket; n != nullptr; n = n->next) {
      if (n->hash == hash && n->key == key) return n;
    }
    Node* n = free_nodes;
    if (n != nullptr) {
      free_nodes = n->next;
      --free_count;
    } else {
      n = new Node;
      n->shard = this;
    }
    n->key.assign(key);
    n->hash = hash;
    n->next = *bucket;
    *bucket = n;
    if (++entries > buckets.size()) grow();
    return n;
  }

  // Unlinks an idle entry; keeps its node for reuse up to `max_free`.
  void evict(Node* node, std::size_t max_free) REQUIRES(mu) {
    Node** link = &buckets[node->hash & (buckets.size() - 1)];
    while (*link != node) link = &(*link)->next;
    *link = node->next;
    --entries;
    if (free_count < max_free) {
      node->next = free_nodes;
      free_nodes = node;
      ++free_count;
    } else {
      delete node;
    }
  }

  void grow() REQUIRES(mu) {
    std::vector<Node*> bigger(buckets.size() * 2, nullptr);
    for (Node* head : buckets) {
      while (head != nullptr) {
        Node* next = head->next;
        Node*& slot = bigger[head->hash & (bigger.size() - 1)];
        head->next = slot;
        slot = head;
        head = next;
      }
    }
    buckets.swap(bigger);
  }

  // Wakes the acquisitions that `granted` names; they wait on this node.
  static void wake(Node* node, const std::vector<LockEntry>& granted) {
    for (const auto& g : granted) {
      auto it = std::find_if(node->sleepers.begin(), node->sleepers.end(),
                             [&](const auto& s) { return s.first == g.task; });
      if (it == node->sleepers.end()) continue;
      Waiter* w = it->second;
      node->sleepers.erase(it);
      // Notify under the waiter's mutex: the waiter cannot see `granted`,
      // return and destroy itself before we are done with it.
      std::lock_guard<std::mutex> hold(w->mu);
      w->granted = true;
      w->cv.notify_one();
    }
  }
};

PathLock::PathLock(const impl::Scheme& scheme, PathLockOptions options)
    : scheme_(scheme), options_(options) {
  const std::size_t n = std::bit_ceil(std::max<std::size_t>(1, options_.shards));
  shard_mask_ = n - 1;
  shards_ = std::make_unique<Shard[]>(n);
  for (std::size_t i = 0; i < n; ++i) {
    MutexLock hold(shards_[i].mu);
    shards_[i].buckets.assign(16, nullptr);
  }
}

PathLock::~PathLock() {
  for (std::size_t i = 0; i <= shard_mask_; ++i) {
    Shard& s = shards_[i];
    MutexLock hold(s.mu);
    for (Node* head : s.buckets) {
      while (head != nullptr) {
        Node* next = head->next;
        delete head;
        head = next;
      }
    }
    while (s.free_nodes != nullptr) {
      Node* next = s.free_nodes->next;
      delete s.free_nodes;
      s.free_nodes = next;
    }
  }
}

PathLock::Shard& PathLock::shard_for(std::uint64_t hash) const noexcept {
  // The high bits pick the shard, the low bits the bucket.
  return shards_[(hash >> 40) & shard_mask_];
}

void PathLock::release_node(Node* node, TaskId id) {
  Shard& s = *node->shard;
  thread_local std::vector<LockEntry> granted;
  granted.clear();
  MutexLock hold(s.mu);
  node->queue.release(scheme_, id, granted);
  Shard::wake(node, granted);
  if (node->queue.idle()) s.evict(node, options_.max_free_nodes_per_shard);
}

PathLock::Guard PathLock::acquire_impl(const model::Request& request, WaitPolicy policy,
                                       std::chrono::steady_clock::time_point deadline, std::stop_token stop) {
  Guard guard(this, next_task_id());
  if (stop.stop_requested()) {
    guard.status_ = AcquireStatus::kCancelled;
    return guard;
  }
  thread_local impl::StepBuffer steps;
  impl::plan_into(scheme_, request, steps);
  guard.status_ = AcquireStatus::kGranted;  // so a rollback releases what is held
  for (const auto& step : steps) {
    const std::uint64_t hash = hash_text(step.lock);
    Shard& s = shard_for(hash);
    std::optional<Waiter> waiting;  // constructed only if this step must wait
    Node* node = nullptr;
    bool would_block = false;
    {
      MutexLock hold(s.mu);
      node = s.find_or_create(step.lock, hash);
      if (node->queue.try_acquire(scheme_, guard.id_, step.mode)) {
        guard.push(node);
        continue;
      }
      if (policy == WaitPolicy::kNever) {
        if (node->queue.idle()) s.evict(node, options_.max_free_nodes_per_shard);
        would_block = true;
      } else {
        node->queue.acquire(scheme_, guard.id_, step.mode);  // queues: try_acquire said so
        node->sleepers.emplace_back(guard.id_, &waiting.emplace());
      }
    }
    if (would_block) {
      // Outside the shard mutex: rolling back takes the mutexes of the held locks.
      guard.release();
      guard.status_ = AcquireStatus::kWouldBlock;
      return guard;
    }
    Waiter& waiter = *waiting;
    // Wait outside the shard, on our own condition variable.
    AcquireStatus outcome = AcquireStatus::kGranted;
    {
      const auto cancel = [&waiter] {
        std::lock_guard<std::mutex> hold(waiter.mu);
        waiter.cancelled = true;
        waiter.cv.notify_one();
      };
      std::optional<std::stop_callback<decltype(cancel)>> on_stop;
      if (stop.stop_possible()) on_stop.emplace(stop, cancel);
      std::unique_lock<std::mutex> wait_lock(waiter.mu);
      const auto done = [&] { return waiter.granted || waiter.cancelled; };
      if (policy == WaitPolicy::kForever) {
        waiter.cv.wait(wait_lock, done);
      } else {
        waiter.cv.wait_until(wait_lock, deadline, done);
      }
      if (!waiter.granted) outcome = waiter.cancelled ? AcquireStatus::kCancelled : AcquireStatus::kTimedOut;
    }
    if (outcome == AcquireStatus::kGranted) {
      guard.push(node);
      continue;
    }
    // Timed out or cancelled: withdraw, unless a grant won the race.
    {
      thread_local std::vector<LockEntry> granted;
      granted.clear();
      MutexLock hold(s.mu);
      bool won = false;
      {
        std::lock_guard<std::mutex> w(waiter.mu);
        won = waiter.granted;
      }
      if (won) {
        node->queue.release(scheme_, guard.id_, granted);
      } else {
        node->queue.cancel(scheme_, guard.id_, granted);
        std::erase_if(node->sleepers, [&](const auto& sl) { return sl.first == guard.id_; });
      }
      Shard::wake(node, granted);
      if (node->queue.idle()) s.evict(node, options_.max_free_nodes_per_shard);
    }
    guard.release();
    guard.status_ = outcome;
    return guard;
  }
  return guard;
}

PathLock::Guard PathLock::acquire(const model::Request& request) {
  return acquire_impl(request, WaitPolicy::kForever, {}, {});
}
PathLock::Guard PathLock::acquire(const model::Request& request, std::stop_token stop) {
  return acquire_impl(request, WaitPolicy::kForever, {}, std::move(stop));
}
PathLock::Guard PathLock::try_acquire(const model::Request& request) {
  return acquire_impl(request, WaitPolicy::kNever, {}, {});
}
PathLock::Guard PathLock::acquire_until(const model::Request& request, std::chrono::steady_clock::time_point deadline,
                                        std::stop_token stop) {
  return acquire_impl(request, WaitPolicy::kUntilDeadline, deadline, std::move(stop));
}

PathLock::Guard PathLock::read(const model::Path& path) { return acquire(model::read(path).request()); }
PathLock::Guard PathLock::write(const model::Path& path) { return acquire(model::write(path).request()); }
PathLock::Guard PathLock::remove(const model::Path& path) { return acquire(model::remove(path).request()); }
PathLock::Guard PathLock::rename(const model::Path& from, const model::Path& to) {
  return acquire(model::rename(from, to).request());
}
PathLock::Guard PathLock::copy(const model::Path& from, const model::Path& to) {
  return acquire(model::copy(from, to).request());
}

std::size_t PathLock::active_locks() const {
  std::size_t n = 0;
  for (std::size_t i = 0; i <= shard_mask_; ++i) {
    MutexLock hold(shards_[i].mu);
    n += shards_[i].entries;
  }
  return n;
}

std::size_t PathLock::cached_nodes() const {
  std::size_t n = 0;
  for (std::size_t i = 0; i <= shard_mask_; ++i) {
    MutexLock hold(shards_[i].mu);
    n += shards_[i].free_count;
  }
  return n;
}

// --- Guard -------------------------------------------------------------------

void PathLock::Guard::push(Node* n) {
  if (count_ < kInline) {
    inline_[count_] = n;
  } else {
    heap_.push_back(n);
  }
  ++count_;
}

void PathLock::Guard::release() noexcept {
  if (status_ == AcquireStatus::kGranted && lock_ != nullptr) {
    for (std::size_t i = count_; i > 0; --i) lock_->release_node(node(i - 1), id_);
  }
  count_ = 0;
  heap_.clear();
  status_ = AcquireStatus::kReleased;
}

PathLock::Guard::Guard(Guard&& other) noexcept
    : lock_(other.lock_), id_(other.id_), status_(other.status_), count_(other.count_), heap_(std::move(other.heap_)) {
  std::copy(other.inline_, other.inline_ + std::min(count_, kInline), inline_);
  other.count_ = 0;
  other.status_ = AcquireStatus::kReleased;
}

PathLock::Guard& PathLock::Guard::operator=(Guard&& other) noexcept {
  if (this != &other) {
    release();
    lock_ = other.lock_;
    id_ = other.id_;
    status_ = other.status_;
    count_ = other.count_;
    heap_ = std::move(other.heap_);
    std::copy(other.inline_, other.inline_ + std::min(count_, kInline), inline_);
    other.count_ = 0;
    other.status_ = AcquireStatus::kReleased;
  }
  return *this;
}

}  // namespace pathlock
