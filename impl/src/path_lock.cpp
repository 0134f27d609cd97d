#include "pathlock/path_lock.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <new>
#include <optional>
#include <string>
#include <thread>

#include "pathlock/impl/mutex.hpp"
#include "pathlock/impl/plan.hpp"

namespace pathlock {

using impl::LockEntry;
using impl::ModeId;
using impl::SpinLockHolder;
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

// One waiting acquisition, on its thread's stack while it waits.
struct PathLock::Waiter {
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<bool> granted{false};  // stored by the granting thread, under mu
  bool cancelled = false;            // set by the stop callback, under mu
};

namespace {

// Ids are unique per process: each thread takes blocks of 2^16 from a shared
// 64-bit counter, so the hot path touches no shared cache line.
TaskId next_task_id() {
  static std::atomic<TaskId> blocks{TaskId{1} << 16};  // ids below are pseudo tasks
  thread_local TaskId next = 0;
  thread_local TaskId end = 0;
  if (next == end) {
    next = blocks.fetch_add(TaskId{1} << 16, std::memory_order_relaxed);
    end = next + (TaskId{1} << 16);
  }
  return next++;
}

std::uint64_t hash_text(std::string_view text) noexcept { return std::hash<std::string_view>{}(text); }

// A waiter spins this many pauses, then yields this many times, before it
// sleeps: a lock released within a few microseconds is handed over without
// the two context switches of a sleep and a wake-up.
constexpr int kSpinPauses = 256;
constexpr int kSpinYields = 8;

}  // namespace

// Room for a Waiter on the stack, constructed only when a step must wait
// (std::optional<Waiter> would zero its ~100 bytes on every step).
class PathLock::WaiterSlot {
 public:
  WaiterSlot() noexcept {}  // NOLINT: storage left uninitialised on purpose
  ~WaiterSlot() {
    if (waiter_ != nullptr) waiter_->~Waiter();
  }
  WaiterSlot(const WaiterSlot&) = delete;
  WaiterSlot& operator=(const WaiterSlot&) = delete;
  Waiter& emplace() { return *(waiter_ = new (storage_) Waiter); }
  explicit operator bool() const noexcept { return waiter_ != nullptr; }
  Waiter& operator*() const noexcept { return *waiter_; }
  Waiter* operator->() const noexcept { return waiter_; }

 private:
  alignas(Waiter) unsigned char storage_[sizeof(Waiter)];
  Waiter* waiter_ = nullptr;
};

namespace {

}  // namespace

// Cache-line aligned: two threads working on unrelated paths must not share a
// line through neighbouring nodes (false sharing halves disjoint throughput).
struct alignas(64) PathLock::Node {
  std::string key;  // canonical path text; keeps its capacity when reused
  std::uint64_t hash = 0;
  Node* next = nullptr;  // bucket chain
  // The shard's idle list (least recently idle first), while idle.
  Node* idle_prev = nullptr;
  Node* idle_next = nullptr;
  bool idle = false;
  bool is_root = false;  // the "/" entry, whose state the root gate extends
  Shard* shard = nullptr;
  impl::LockQueue queue;
  std::vector<std::pair<TaskId, Waiter*>> sleepers;  // waiting acquisitions
};

struct alignas(64) PathLock::Shard {
  impl::SpinLock mu;
  // protected by mu:
  std::vector<Node*> buckets GUARDED_BY(mu);  // a power of two
  std::size_t entries GUARDED_BY(mu) = 0;     // nodes linked from buckets
  std::size_t idle_count GUARDED_BY(mu) = 0;  // of which idle (in the idle list)
  Node* idle_head GUARDED_BY(mu) = nullptr;   // least recently idle
  Node* idle_tail GUARDED_BY(mu) = nullptr;

  // The entry for `key`, or nullptr.
  Node* find(std::string_view key, std::uint64_t hash) REQUIRES(mu) {
    for (Node* n = buckets[hash & (buckets.size() - 1)]; n != nullptr; n = n->next) {
      if (n->hash == hash && n->key == key) return n;
    }
    return nullptr;
  }

  // The entry for `key`, created if missing, and not in the idle list.
  // `max_idle` bounds the idle entries: a new entry reuses the least recently
  // idle node once the bound is reached.
  Node* find_or_create(std::string_view key, std::uint64_t hash, std::size_t max_idle) REQUIRES(mu) {
    if (Node* found = find(key, hash)) {
      if (found->idle) unlist_idle(found);
      return found;
    }
    Node** bucket = &buckets[hash & (buckets.size() - 1)];
    Node* n = nullptr;
    if (idle_head != nullptr && idle_count >= max_idle) {
      n = idle_head;
      unlist_idle(n);
      unlink(n);
      bucket = &buckets[hash & (buckets.size() - 1)];
    } else {
      n = new Node;
      n->shard = this;
    }
    n->key.assign(key);
    n->is_root = key == "/";
    n->hash = hash;
    n->next = *bucket;
    *bucket = n;
    if (++entries > buckets.size()) grow();
    return n;
  }

  // Called when `node`'s queue has become idle: lists it as the most recently
  // idle, then deletes the least recently idle nodes beyond `max_idle`.
  void became_idle(Node* node, std::size_t max_idle) REQUIRES(mu) {
    node->idle = true;
    node->idle_prev = idle_tail;
    node->idle_next = nullptr;
    (idle_tail != nullptr ? idle_tail->idle_next : idle_head) = node;
    idle_tail = node;
    ++idle_count;
    while (idle_count > max_idle) {
      Node* victim = idle_head;
      unlist_idle(victim);
      unlink(victim);
      delete victim;
    }
  }

  void unlist_idle(Node* node) REQUIRES(mu) {
    (node->idle_prev != nullptr ? node->idle_prev->idle_next : idle_head) = node->idle_next;
    (node->idle_next != nullptr ? node->idle_next->idle_prev : idle_tail) = node->idle_prev;
    node->idle = false;
    --idle_count;
  }

  void unlink(Node* node) REQUIRES(mu) {
    Node** link = &buckets[node->hash & (buckets.size() - 1)];
    while (*link != node) link = &(*link)->next;
    *link = node->next;
    --entries;
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

  // Wakes the acquisitions that `granted` names; they wait on `node`.
  static void wake(Node* node, const std::vector<LockEntry>& granted) {
    for (const auto& g : granted) {
      auto it = std::find_if(node->sleepers.begin(), node->sleepers.end(),
                             [&](const auto& s) { return s.first == g.task; });
      if (it == node->sleepers.end()) continue;
      Waiter* w = it->second;
      node->sleepers.erase(it);
      // Under the waiter's mutex: the waiter takes it once after it sees
      // `granted`, so it cannot return and destroy itself before we are done.
      std::lock_guard<std::mutex> hold(w->mu);
      w->granted.store(true, std::memory_order_release);
      w->cv.notify_one();
    }
  }
};

// The root's fast path: distributed counts of holders per gate mode (see the
// header, ROOT GATE). Counts are signed: a guard released on another thread
// decrements that thread's stripe; only the sums over stripes mean anything.
struct PathLock::RootGate {
  static constexpr std::size_t kStripes = 16;
  struct alignas(64) Stripe {
    std::array<std::atomic<std::int64_t>, impl::kMaxModes> holders{};  // by mode
  };
  std::array<Stripe, kStripes> stripes;
  alignas(64) std::atomic<bool> closed{false};  // fast acquisitions refused
  std::uint32_t modes = 0;                      // gate modes, a mask; 0 = no gate
  // protected by the root entry's shard lock:
  std::uint32_t pseudo_held = 0;  // modes m for which pseudo task m holds the root entry
  Node* root = nullptr;           // the root entry, while pseudo_held != 0

  bool admits(ModeId m) const noexcept { return (modes >> m.index) & 1U; }
  std::atomic<std::int64_t>& my_count(ModeId m) noexcept {
    static std::atomic<std::size_t> next{0};
    thread_local const std::size_t index = next.fetch_add(1, std::memory_order_relaxed) % kStripes;
    return stripes[index].holders[m.index];
  }
  std::int64_t fast_holders(ModeId m) const noexcept {
    std::int64_t n = 0;
    for (const auto& s : stripes) n += s.holders[m.index].load(std::memory_order_seq_cst);
    return n;
  }
};

namespace {

// The gate modes of a scheme: grown greedily from the modes the root most
// often gets (ancestor modes, then a read target's mode for global schemes),
// each accepted only if the set stays closed under join and pairwise
// compatible (every mode with itself included). Empty: the root has no gate.
std::uint32_t gate_modes(const impl::Scheme& scheme) {
  std::uint32_t accepted = 0;
  for (const impl::Role role : {impl::Role::kReadAncestor, impl::Role::kWriteAncestor, impl::Role::kReadTarget}) {
    std::uint32_t set = accepted | (1U << scheme.mode_for(role).index);
    for (bool grew = true; grew;) {  // close under join
      grew = false;
      for (std::uint8_t a = 0; a < scheme.mode_count(); ++a) {
        for (std::uint8_t b = 0; b < scheme.mode_count(); ++b) {
          if (((set >> a) & 1U) == 0 || ((set >> b) & 1U) == 0) continue;
          const std::uint32_t j = 1U << scheme.join(ModeId{a}, ModeId{b}).index;
          if ((set & j) == 0) {
            set |= j;
            grew = true;
          }
        }
      }
    }
    bool clique = true;
    for (std::uint8_t a = 0; a < scheme.mode_count(); ++a) {
      for (std::uint8_t b = 0; b < scheme.mode_count(); ++b) {
        if (((set >> a) & 1U) && ((set >> b) & 1U) && !scheme.compatible(ModeId{a}, ModeId{b})) clique = false;
      }
    }
    if (clique) accepted = set;
  }
  return accepted;
}

}  // namespace

PathLock::PathLock(const impl::Scheme& scheme, PathLockOptions options)
    : scheme_(scheme), options_(options), gate_(std::make_unique<RootGate>()) {
  if (options_.root_gate) gate_->modes = gate_modes(scheme_);
  const std::size_t n = std::bit_ceil(std::max<std::size_t>(1, options_.shards));
  shard_mask_ = n - 1;
  shards_ = std::make_unique<Shard[]>(n);
  for (std::size_t i = 0; i < n; ++i) {
    SpinLockHolder hold(shards_[i].mu);
    shards_[i].buckets.assign(16, nullptr);
  }
}

PathLock::~PathLock() {
  for (std::size_t i = 0; i <= shard_mask_; ++i) {
    Shard& s = shards_[i];
    SpinLockHolder hold(s.mu);
    for (Node* head : s.buckets) {
      while (head != nullptr) {
        Node* next = head->next;
        delete head;
        head = next;
      }
    }
  }
}

PathLock::Shard& PathLock::shard_for(std::uint64_t hash) const noexcept {
  // The high bits pick the shard, the low bits the bucket.
  return shards_[(hash >> 40) & shard_mask_];
}

void PathLock::settle(Node* node, std::vector<LockEntry>& granted) {
  node->shard->mu.assert_held();
  Shard::wake(node, granted);
  // Reopen the gate once nothing on the root conflicts with a gate mode.
  if (node->is_root && gate_->closed.load(std::memory_order_relaxed) && gate_->pseudo_held == 0 &&
      ((node->queue.held_mask() | node->queue.queued_mask()) & ~gate_->modes) == 0) {
    gate_->closed.store(false, std::memory_order_seq_cst);
  }
  if (node->queue.idle()) node->shard->became_idle(node, options_.max_idle_locks_per_shard);
}

void PathLock::release_node(Node* node, ModeId mode, TaskId id) {
  if (node == nullptr) {  // a fast hold of the root
    gate_->my_count(mode).fetch_sub(1, std::memory_order_seq_cst);
    if (gate_->closed.load(std::memory_order_seq_cst)) drain_gate();
    return;
  }
  Shard& s = *node->shard;
  thread_local std::vector<LockEntry> granted;
  granted.clear();
  SpinLockHolder hold(s.mu);
  node->queue.release(scheme_, id, granted);
  settle(node, granted);
}

bool PathLock::try_fast_root(ModeId mode) {
  if (!gate_->admits(mode) || gate_->closed.load(std::memory_order_relaxed)) return false;
  auto& count = gate_->my_count(mode);
  // Dekker with close_gate(): count ourselves, then look at the gate. Either
  // the closer's sums see our count, or we see the gate closed.
  count.fetch_add(1, std::memory_order_seq_cst);
  if (!gate_->closed.load(std::memory_order_seq_cst)) return true;
  count.fetch_sub(1, std::memory_order_seq_cst);
  drain_gate();
  return false;
}

void PathLock::close_gate(Node* root) {
  if (gate_->modes == 0 || gate_->closed.load(std::memory_order_relaxed)) return;
  gate_->closed.store(true, std::memory_order_seq_cst);
  // The fast holders hold the root in gate modes, compatible with every
  // holder and waiter of the root entry (else the gate was closed) and with
  // each other: each mode's pseudo hold is granted at once, and whoever
  // conflicts with one queues behind it.
  for (std::uint8_t m = 0; m < scheme_.mode_count(); ++m) {
    const ModeId mode{m};
    if (!gate_->admits(mode) || gate_->fast_holders(mode) <= 0) continue;
    root->queue.acquire(scheme_, pseudo_task(mode), mode);
    gate_->pseudo_held |= 1U << m;
    gate_->root = root;
  }
}

void PathLock::drain_gate() {
  Shard& s = shard_for(hash_text("/"));
  thread_local std::vector<LockEntry> granted;
  granted.clear();
  SpinLockHolder hold(s.mu);
  // The last fast holder of a mode to leave (by the seq_cst order of the
  // counts and the gate) sees a zero sum here and releases its pseudo hold.
  if (gate_->pseudo_held == 0) return;
  Node* root = gate_->root;
  for (std::uint8_t m = 0; m < scheme_.mode_count(); ++m) {
    const ModeId mode{m};
    if (((gate_->pseudo_held >> m) & 1U) == 0 || gate_->fast_holders(mode) != 0) continue;
    gate_->pseudo_held &= ~(1U << m);
    root->queue.release(scheme_, pseudo_task(mode), granted);
  }
  settle(root, granted);
}

PathLock::Guard PathLock::acquire_impl(const model::Request& request, WaitPolicy policy,
                                       std::chrono::steady_clock::time_point deadline, std::stop_token stop) {
  Guard guard(this, next_task_id());
  if (stop.stop_requested()) {
    guard.status_ = AcquireStatus::kCancelled;
    return guard;
  }
  // A deadline already past: take what is free now, never wait.
  AcquireStatus blocked_status = AcquireStatus::kWouldBlock;
  if (policy == WaitPolicy::kUntilDeadline) {
    blocked_status = AcquireStatus::kTimedOut;
    if (std::chrono::steady_clock::now() >= deadline) policy = WaitPolicy::kNever;
  }
  thread_local impl::StepBuffer steps;
  impl::plan_into(scheme_, request, steps);
  guard.status_ = AcquireStatus::kGranted;  // so a rollback releases what is held
  for (const auto& step : steps) {
    const bool on_root = step.lock.size() == 1;  // "/"
    if (on_root && try_fast_root(step.mode)) {
      guard.push(nullptr, step.mode);
      continue;
    }
    const std::uint64_t hash = hash_text(step.lock);
    Shard& s = shard_for(hash);
    WaiterSlot waiting;  // constructed only if this step must wait
    Node* node = nullptr;
    {
      SpinLockHolder hold(s.mu);
      node = s.find_or_create(step.lock, hash, options_.max_idle_locks_per_shard);
      if (on_root && !gate_->admits(step.mode)) close_gate(node);
      if (node->queue.try_acquire(scheme_, guard.id_, step.mode)) {
        guard.push(node, step.mode);
        continue;
      }
      if (policy == WaitPolicy::kNever) {
        thread_local std::vector<LockEntry> none;
        settle(node, none);  // reopens a gate we closed, lists the entry if idle
      } else {
        node->queue.acquire(scheme_, guard.id_, step.mode);  // queues: try_acquire said so
        node->sleepers.emplace_back(guard.id_, &waiting.emplace());
      }
    }
    if (!waiting) {
      // Outside the shard lock: rolling back takes the shard locks of the held locks.
      guard.release();
      guard.status_ = blocked_status;
      return guard;
    }
    const AcquireStatus outcome = wait_for_grant(*waiting, policy, deadline, stop);
    if (outcome == AcquireStatus::kGranted) {
      guard.push(node, step.mode);
      continue;
    }
    // Timed out or cancelled: withdraw, unless a grant won the race.
    {
      thread_local std::vector<LockEntry> granted;
      granted.clear();
      SpinLockHolder hold(s.mu);
      if (waiting->granted.load(std::memory_order_acquire)) {
        node->queue.release(scheme_, guard.id_, granted);
      } else {
        node->queue.cancel(scheme_, guard.id_, granted);
        std::erase_if(node->sleepers, [&](const auto& sl) { return sl.first == guard.id_; });
      }
      settle(node, granted);
    }
    guard.release();
    guard.status_ = outcome;
    return guard;
  }
  return guard;
}

AcquireStatus PathLock::wait_for_grant(Waiter& waiter, WaitPolicy policy,
                                       std::chrono::steady_clock::time_point deadline, std::stop_token& stop) {
  // Spin first: on a short critical section the grant comes within microseconds.
  for (int i = 0; i < kSpinPauses + kSpinYields; ++i) {
    if (waiter.granted.load(std::memory_order_acquire)) {
      // Wait until the granting thread has let go of our mutex.
      std::lock_guard<std::mutex> sync(waiter.mu);
      return AcquireStatus::kGranted;
    }
    if (i < kSpinPauses) {
      impl::cpu_relax();
    } else {
      std::this_thread::yield();
    }
  }
  // Then sleep on our own condition variable, outside any shard lock.
  const auto cancel = [&waiter] {
    std::lock_guard<std::mutex> hold(waiter.mu);
    waiter.cancelled = true;
    waiter.cv.notify_one();
  };
  std::optional<std::stop_callback<decltype(cancel)>> on_stop;
  if (stop.stop_possible()) on_stop.emplace(stop, cancel);
  std::unique_lock<std::mutex> wait_lock(waiter.mu);
  const auto done = [&] { return waiter.granted.load(std::memory_order_relaxed) || waiter.cancelled; };
  if (policy == WaitPolicy::kForever) {
    waiter.cv.wait(wait_lock, done);
  } else {
    waiter.cv.wait_until(wait_lock, deadline, done);
  }
  if (waiter.granted.load(std::memory_order_relaxed)) return AcquireStatus::kGranted;
  return waiter.cancelled ? AcquireStatus::kCancelled : AcquireStatus::kTimedOut;
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

template <typename F>
std::size_t PathLock::sum_over_shards(F count) const {
  std::size_t n = 0;
  for (std::size_t i = 0; i <= shard_mask_; ++i) {
    SpinLockHolder hold(shards_[i].mu);
    n += count(shards_[i]);
  }
  return n;
}

std::size_t PathLock::active_locks() const {
  std::size_t n = sum_over_shards([](const Shard& s) NO_THREAD_SAFETY_ANALYSIS { return s.entries - s.idle_count; });
  // The root held only through the gate has no active entry: count it once.
  bool fast_root = false;
  for (std::uint8_t m = 0; m < scheme_.mode_count(); ++m) {
    if (gate_->admits(ModeId{m}) && gate_->fast_holders(ModeId{m}) > 0) fast_root = true;
  }
  if (fast_root) {
    const std::uint64_t hash = hash_text("/");
    Shard& s = shard_for(hash);
    SpinLockHolder hold(s.mu);
    Node* root = s.find(std::string_view("/"), hash);
    if (root == nullptr || root->idle) ++n;
  }
  return n;
}

std::size_t PathLock::idle_locks() const {
  return sum_over_shards([](const Shard& s) NO_THREAD_SAFETY_ANALYSIS { return s.idle_count; });
}

std::size_t PathLock::waiting_acquisitions() const {
  // One sleeper record per queued acquisition, on the entry it waits for;
  // a grant or a withdrawal removes it under the same shard lock.
  return sum_over_shards([](const Shard& s) NO_THREAD_SAFETY_ANALYSIS {
    std::size_t n = 0;
    for (const Node* head : s.buckets) {
      for (const Node* node = head; node != nullptr; node = node->next) n += node->sleepers.size();
    }
    return n;
  });
}

// --- Guard -------------------------------------------------------------------

void PathLock::Guard::push(Node* n, ModeId mode) {
  if (count_ < kInline) {
    inline_[count_] = {n, mode};
  } else {
    heap_.push_back({n, mode});
  }
  ++count_;
}

void PathLock::Guard::release() noexcept {
  if (status_ == AcquireStatus::kGranted && lock_ != nullptr) {
    for (std::size_t i = count_; i > 0; --i) {
      const Held& h = held(i - 1);
      lock_->release_node(h.node, h.mode, id_);
    }
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
