#pragma once
// The peers PathLock is measured against in the scaling benchmark, each
// with acquire(op) / release(op). They are what people use instead of a
// hierarchical lock; none of them gives PathLock's guarantees (the one-lock
// baselines serialise everything; the per-path tables lock a read's
// ancestors shared, so a read of a folder does not exclude a write below it,
// and they never evict an entry). They bound what the lock's speed should be.

#include <absl/container/flat_hash_map.h>
#include <absl/synchronization/mutex.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "apart.hpp"
#include "pathlock/impl/mutex.hpp"

#include "scaling_workloads.hpp"

namespace pathlock::bench {

// Every request on one std::mutex.
class OneMutex {
 public:
  void acquire(const Operation&) { mu_.lock(); }
  void release(const Operation&) { mu_.unlock(); }

 private:
  alignas(kApart) std::mutex mu_;
};

// Each thread a std::mutex of its own, on lines of its own: nothing is
// shared, so how it scales is the machine's own (its clock under load, its
// shared caches): a lock passes it by noise, or by waiting on memory more
// than this loop does, which a slower clock costs less. Not a lock of the
// requests: a yardstick for the scaling targets.
class OwnMutexPerThread {
 public:
  static constexpr int kThreads = 256;  // more threads share mutexes, round robin
  std::mutex& of(int thread) { return mutexes_[static_cast<std::size_t>(thread % kThreads)].mu; }

 private:
  // Two lines: a core's adjacent-line prefetch takes no neighbour's.
  struct alignas(kApart) Own {
    std::mutex mu;
  };
  std::array<Own, kThreads> mutexes_;
};

// Spins until `done()`, yielding now and then so that an oversubscribed
// machine still makes progress.
template <typename Done>
void spin_until(Done done) {
  for (std::uint32_t spins = 0; !done(); ++spins) {
    if ((spins & 1023U) == 1023U) std::this_thread::yield(); else impl::cpu_relax();
  }
}

// Every request on one FIFO ticket lock: a handoff is the releaser's one
// store, seen by the next ticket's spinner. Every waiter spins on that one
// counter, so each release takes its line from all of them: the cheapest
// FIFO handoff at a few threads, not at many (McsLock). The faster of the
// two at T threads is the yardstick for PathLock's FIFO handoff.
class TicketLock {
 public:
  void acquire(const Operation&) {
    const std::uint32_t ticket = next_.fetch_add(1, std::memory_order_relaxed);
    spin_until([&] { return serving_.load(std::memory_order_acquire) == ticket; });
  }
  void release(const Operation&) {
    serving_.store(serving_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }

 private:
  alignas(kApart) std::atomic<std::uint32_t> next_{0};
  alignas(kApart) std::atomic<std::uint32_t> serving_{0};
};

// Every request on one FIFO MCS queue lock (Mellor-Crummey and Scott,
// 1991): a waiter links itself behind the tail and spins on a flag of its
// own, which its predecessor clears once. A handoff moves one line, from
// the releaser to the next waiter, however many wait: at many threads it
// hands over faster than the ticket lock, whose waiters share one line.
class McsLock {
 public:
  void acquire(const Operation&) {
    Node& me = node();
    me.next.store(nullptr, std::memory_order_relaxed);
    me.waiting.store(true, std::memory_order_relaxed);
    // acq_rel: the node's fields are published to the thread that links
    // behind it; the previous holder's release is read if it left no one.
    Node* before = tail_.exchange(&me, std::memory_order_acq_rel);
    if (before == nullptr) return;
    before->next.store(&me, std::memory_order_release);
    spin_until([&] { return !me.waiting.load(std::memory_order_acquire); });
  }
  void release(const Operation&) {
    Node& me = node();
    Node* next = me.next.load(std::memory_order_acquire);
    if (next == nullptr) {
      Node* last = &me;
      if (tail_.compare_exchange_strong(last, nullptr, std::memory_order_release, std::memory_order_relaxed)) return;
      // A thread swapped itself in as the tail and links itself next.
      spin_until([&] { return (next = me.next.load(std::memory_order_acquire)) != nullptr; });
    }
    next->waiting.store(false, std::memory_order_release);
  }

 private:
  struct alignas(kApart) Node {
    std::atomic<Node*> next{nullptr};
    std::atomic<bool> waiting{false};
  };
  // The calling thread's node: a benchmark thread holds one lock at a time.
  static Node& node() {
    thread_local Node mine;
    return mine;
  }
  alignas(kApart) std::atomic<Node*> tail_{nullptr};
};

// One std::shared_mutex: reads shared, writes exclusive.
class OneSharedMutex {
 public:
  void acquire(const Operation& op) {
    if (op.access == Access::kRead) mu_.lock_shared(); else mu_.lock();
  }
  void release(const Operation& op) {
    if (op.access == Access::kRead) mu_.unlock_shared(); else mu_.unlock();
  }

 private:
  alignas(kApart) std::shared_mutex mu_;
};

// The naive per-path table: a map of shared_mutex under one global mutex,
// each prefix found under it; ancestors shared, the target shared or
// exclusive.
class NaiveMapOfSharedMutex {
 public:
  void acquire(const Operation& op) {
    for (std::size_t i = 0; i < op.prefixes.size(); ++i) {
      std::shared_mutex* m = find(op.prefixes[i]);
      if (exclusive(op, i)) m->lock(); else m->lock_shared();
    }
  }
  void release(const Operation& op) {
    for (std::size_t i = op.prefixes.size(); i > 0; --i) {
      std::shared_mutex* m = find(op.prefixes[i - 1]);
      if (exclusive(op, i - 1)) m->unlock(); else m->unlock_shared();
    }
  }

 private:
  static bool exclusive(const Operation& op, std::size_t i) {
    return op.access == Access::kWrite && i + 1 == op.prefixes.size();
  }
  std::shared_mutex* find(const std::string& key) {
    std::lock_guard<std::mutex> hold(mu_);
    return &table_[key];
  }
  alignas(kApart) std::mutex mu_;
  std::map<std::string, std::shared_mutex> table_;
};

// A striped table of std::shared_mutex (64 stripes, by the prefix's hash):
// the stripes an operation needs, deduplicated (exclusive wins), locked in
// stripe order. Coarse (two paths that share a stripe exclude each other)
// but with no global lock and no lookup. Like the other peers (and
// PathLock), it hashes an operation's paths inside the timed loop: a caller
// hands it the operation, and plan() (no allocation) is part of acquire.
class StripedSharedMutex {
 public:
  static constexpr std::size_t kStripes = 64;
  static constexpr std::size_t kMaxStripes = 16;  // prefixes per operation: the workloads' are 5
  struct Plan {
    std::array<std::pair<std::uint8_t, Access>, kMaxStripes> stripes;  // ascending stripe
    std::size_t size = 0;
  };
  static Plan plan(const Operation& op) {
    if (op.prefixes.size() > kMaxStripes) {
      throw std::length_error("StripedSharedMutex: an operation of " + std::to_string(op.prefixes.size()) +
                              " prefixes; at most " + std::to_string(kMaxStripes));
    }
    Plan out;
    for (std::size_t i = 0; i < op.prefixes.size(); ++i) {
      const auto stripe = static_cast<std::uint8_t>(std::hash<std::string>{}(op.prefixes[i]) % kStripes);
      const Access access = op.access == Access::kWrite && i + 1 == op.prefixes.size() ? Access::kWrite : Access::kRead;
      const auto end = out.stripes.begin() + static_cast<std::ptrdiff_t>(out.size);
      const auto at = std::lower_bound(out.stripes.begin(), end, stripe,
                                       [](const auto& entry, std::uint8_t s) { return entry.first < s; });
      if (at != end && at->first == stripe) {
        if (access == Access::kWrite) at->second = Access::kWrite;
        continue;
      }
      std::move_backward(at, end, end + 1);
      *at = {stripe, access};
      ++out.size;
    }
    return out;
  }
  void acquire(const Plan& p) {
    for (std::size_t i = 0; i < p.size; ++i) {
      const auto& [s, access] = p.stripes[i];
      if (access == Access::kWrite) stripes_[s].mu.lock(); else stripes_[s].mu.lock_shared();
    }
  }
  void release(const Plan& p) {
    for (std::size_t i = p.size; i > 0; --i) {
      const auto& [s, access] = p.stripes[i - 1];
      if (access == Access::kWrite) stripes_[s].mu.unlock(); else stripes_[s].mu.unlock_shared();
    }
  }

 private:
  struct alignas(kApart) Stripe {
    std::shared_mutex mu;
  };
  std::array<Stripe, kStripes> stripes_;
};

// A sharded per-path table on abseil: 64 shards, each an absl::Mutex over an
// absl::flat_hash_map from path to its own absl::Mutex (reader locks for
// ancestors and reads, a writer lock for a written target). Lookups take the
// shard's reader lock; a missing path is inserted under its writer lock.
// abseil's deadlock detection is switched off, as a production user does
// (see the constructor).
class AbslPathTable {
 public:
  static constexpr std::size_t kShards = 64;
  AbslPathTable() { absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore); }

  void acquire(const Operation& op) {
    for (std::size_t i = 0; i < op.prefixes.size(); ++i) {
      absl::Mutex* m = find(op.prefixes[i]);
      if (exclusive(op, i)) m->WriterLock(); else m->ReaderLock();
    }
  }
  void release(const Operation& op) {
    for (std::size_t i = op.prefixes.size(); i > 0; --i) {
      absl::Mutex* m = find(op.prefixes[i - 1]);
      if (exclusive(op, i - 1)) m->WriterUnlock(); else m->ReaderUnlock();
    }
  }

 private:
  static bool exclusive(const Operation& op, std::size_t i) {
    return op.access == Access::kWrite && i + 1 == op.prefixes.size();
  }
  absl::Mutex* find(const std::string& key) {
    const std::size_t h = absl::HashOf(key);
    Shard& s = shards_[h % kShards];
    {
      absl::ReaderMutexLock read(&s.mu);
      auto it = s.paths.find(key);
      if (it != s.paths.end()) return &it->second->mu;
    }
    absl::MutexLock write(&s.mu);
    auto& slot = s.paths[key];
    if (!slot) slot = std::make_unique<PathMutex>();
    return &slot->mu;
  }
  // A path's mutex, kApart from the next path's (made one after the other,
  // two threads' paths would otherwise share lines).
  struct alignas(kApart) PathMutex {
    absl::Mutex mu;
  };
  struct alignas(kApart) Shard {
    absl::Mutex mu;
    absl::flat_hash_map<std::string, std::unique_ptr<PathMutex>> paths;
  };
  std::array<Shard, kShards> shards_;
};

}  // namespace pathlock::bench
