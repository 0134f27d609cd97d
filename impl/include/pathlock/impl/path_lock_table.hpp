#pragma once
// BasicPathLock's table: the lock entries (Node), sharded, each shard an
// intrusive hash table behind a spin lock with an LRU list of idle entries
// kept for reuse (path_lock.hpp: MEMORY, CONCURRENCY). Part of the
// template's definitions: include path_lock_definitions.hpp, not this.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pathlock/impl/lock_queue.hpp"
#include "pathlock/impl/mutex.hpp"
#include "pathlock/impl/path_hash.hpp"
#include "pathlock/path_lock.hpp"

namespace pathlock {

// Cache-line aligned: two threads working on unrelated paths must not share a
// line through neighbouring nodes (false sharing halves disjoint throughput).
template <typename P>
struct alignas(64) BasicPathLock<P>::Node {
  std::string key;  // canonical path text; keeps its capacity when reused
  std::uint64_t hash = 0;
  Node* next = nullptr;  // bucket chain
  // The shard's idle list (least recently idle first), while idle.
  Node* idle_prev = nullptr;
  Node* idle_next = nullptr;
  bool idle = false;  // its queue is idle (it may still have fast holders: GATES)
  Shard* shard = nullptr;
  GateRecord* gate = nullptr;   // its gate, this node's while it lives
  std::uint32_t pseudo_held = 0;  // modes m in which pseudo task m holds it for fast holders
  impl::LockQueue queue;
  std::vector<std::pair<impl::TaskId, Waiter*>> sleepers;  // waiting acquisitions
};

template <typename P>
struct alignas(64) BasicPathLock<P>::Shard {
  typename P::SpinLock mu;
  // protected by mu:
  std::vector<Node*> buckets PATHLOCK_GUARDED_BY(mu);  // a power of two
  std::size_t entries PATHLOCK_GUARDED_BY(mu) = 0;     // nodes linked from buckets
  std::size_t idle_count PATHLOCK_GUARDED_BY(mu) = 0;  // of which idle (in the idle list)
  Node* idle_head PATHLOCK_GUARDED_BY(mu) = nullptr;   // least recently idle
  Node* idle_tail PATHLOCK_GUARDED_BY(mu) = nullptr;
  // Gate records, recycled, never freed while the lock lives (a thread's
  // gate cache may still name one): one per entry, plus those free.
  static constexpr std::size_t kGateChunk = 64;
  std::vector<std::unique_ptr<GateRecord[]>> gate_chunks PATHLOCK_GUARDED_BY(mu);
  GateRecord* free_gates PATHLOCK_GUARDED_BY(mu) = nullptr;

  // A gate record for a new entry. Throws (changing nothing) if a new chunk
  // cannot be allocated.
  GateRecord* take_gate() PATHLOCK_REQUIRES(mu) {
    if (free_gates == nullptr) {
      gate_chunks.reserve(gate_chunks.size() + 1);
      auto chunk = std::make_unique<GateRecord[]>(kGateChunk);
      for (std::size_t i = 0; i < kGateChunk; ++i) {
        chunk[i].shard = this;
        chunk[i].next_free = i + 1 < kGateChunk ? &chunk[i + 1] : nullptr;
      }
      free_gates = chunk.get();
      gate_chunks.push_back(std::move(chunk));
    }
    GateRecord* g = free_gates;
    free_gates = g->next_free;
    g->next_free = nullptr;
    return g;
  }
  // REQUIRES: the record is retired (no slot names it; see retire_gate).
  void free_gate(GateRecord* g) PATHLOCK_REQUIRES(mu) {
    g->owner = nullptr;
    g->next_free = free_gates;
    free_gates = g;
  }

  // The entry for `key`, or nullptr.
  Node* find(std::string_view key, std::uint64_t hash) PATHLOCK_REQUIRES(mu) {
    for (Node* n = buckets[hash & (buckets.size() - 1)]; n != nullptr; n = n->next) {
      if (n->hash == hash && n->key == key) return n;
    }
    return nullptr;
  }

  // The entry for `key`, created if missing, and not in the idle list.
  // `max_idle` bounds the idle entries: a new entry reuses the least recently
  // idle node that `retire` lets go (false: it still has fast holders) once
  // the bound is reached.
  template <typename Retire>
  Node* find_or_create(std::string_view key, std::uint64_t hash, std::size_t max_idle, Retire&& retire)
      PATHLOCK_REQUIRES(mu) {
    if (Node* found = find(key, hash)) {
      if (found->idle) unlist_idle(found);
      return found;
    }
    // Whatever can throw comes first (strong guarantee): a new node, its key
    // and gate record, room in a reused node's key, a bigger bucket array.
    // (A reused node is retired first; if its key's room then cannot be
    // made, it stays an idle entry with a closed gate, as good as before.)
    Node* n = idle_count >= max_idle ? take_victim(retire) : nullptr;
    if (n != nullptr) {
      n->key.reserve(key.size());
      unlist_idle(n);
      unlink(n);
    } else {
      auto fresh = std::make_unique<Node>();
      fresh->key.reserve(key.size());
      if (entries + 1 > buckets.size()) grow();
      fresh->gate = take_gate();
      fresh->gate->owner = fresh.get();
      fresh->shard = this;
      n = fresh.release();
    }
    n->key.assign(key);
    n->hash = hash;
    Node** bucket = &buckets[hash & (buckets.size() - 1)];
    n->next = *bucket;
    *bucket = n;
    ++entries;
    return n;
  }

  // Called when `node`'s queue has become idle: lists it as the most recently
  // idle, then deletes the least recently idle nodes beyond `max_idle`.
  template <typename Retire>
  void became_idle(Node* node, std::size_t max_idle, Retire&& retire) PATHLOCK_REQUIRES(mu) {
    list_idle(node);
    while (idle_count > max_idle) {
      Node* victim = take_victim(retire);
      if (victim == nullptr) break;  // none left idle: each was held fast, and is active now
      unlist_idle(victim);
      unlink(victim);
      free_gate(victim->gate);
      delete victim;
    }
  }

  // The least recently idle entry that `retire` lets go (kRetired), still
  // listed. One it keeps (kKept: used fast since the last sweep) moves to
  // the back, a second chance (CLOCK); one it finds held fast now
  // (kMadeActive: its fast holders became pseudo holds) leaves the list. A
  // second sweep gives no second chance. nullptr if none is left to take.
  template <typename Retire>
  Node* take_victim(Retire&& retire) PATHLOCK_REQUIRES(mu) {
    for (const GateSweep sweep : {GateSweep::kSecondChance, GateSweep::kUnlessHeld}) {
      for (std::size_t tries = idle_count; tries > 0 && idle_head != nullptr; --tries) {
        Node* c = idle_head;
        switch (retire(c, sweep)) {
          case GateRetire::kRetired: return c;
          case GateRetire::kKept:
            unlist_idle(c);
            list_idle(c);
            break;
          case GateRetire::kMadeActive: unlist_idle(c); break;
        }
      }
    }
    return nullptr;
  }

  void list_idle(Node* node) PATHLOCK_REQUIRES(mu) {
    node->idle = true;
    node->idle_prev = idle_tail;
    node->idle_next = nullptr;
    (idle_tail != nullptr ? idle_tail->idle_next : idle_head) = node;
    idle_tail = node;
    ++idle_count;
  }

  void unlist_idle(Node* node) PATHLOCK_REQUIRES(mu) {
    (node->idle_prev != nullptr ? node->idle_prev->idle_next : idle_head) = node->idle_next;
    (node->idle_next != nullptr ? node->idle_next->idle_prev : idle_tail) = node->idle_prev;
    node->idle = false;
    --idle_count;
  }

  void unlink(Node* node) PATHLOCK_REQUIRES(mu) {
    Node** link = &buckets[node->hash & (buckets.size() - 1)];
    while (*link != node) link = &(*link)->next;
    *link = node->next;
    --entries;
  }

  // Strong guarantee: the bigger array is made before anything moves.
  void grow() PATHLOCK_REQUIRES(mu) {
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
};

template <typename P>
typename BasicPathLock<P>::Shard& BasicPathLock<P>::shard_for(std::uint64_t hash) const noexcept {
  // The high bits pick the shard, the low bits the bucket.
  return shards_[(hash >> 40) & shard_mask_];
}

template <typename P>
template <typename F>
std::size_t BasicPathLock<P>::sum_over_shards(F count) const {
  std::size_t n = 0;
  for (std::size_t i = 0; i <= shard_mask_; ++i) {
    SpinLockHolder hold(shards_[i].mu);
    n += count(shards_[i]);
  }
  return n;
}

template <typename P>
std::size_t BasicPathLock<P>::active_locks() const {
  // An idle-listed entry that is held fast (GATES) is active too.
  return sum_over_shards([this](const Shard& s) PATHLOCK_NO_THREAD_SAFETY_ANALYSIS {
    std::size_t n = s.entries - s.idle_count;
    for (const Node* node = s.idle_head; node != nullptr; node = node->idle_next) {
      const auto fast = gates_->count(node->gate);
      if (std::any_of(fast.begin(), fast.end(), [](std::uint32_t c) { return c != 0; })) ++n;
    }
    return n;
  });
}

template <typename P>
std::size_t BasicPathLock<P>::idle_locks() const {
  return sum_over_shards([](const Shard& s) PATHLOCK_NO_THREAD_SAFETY_ANALYSIS { return s.idle_count; });
}

template <typename P>
std::size_t BasicPathLock<P>::waiting_acquisitions() const {
  // One sleeper record per queued acquisition, on the entry it waits for;
  // a grant or a withdrawal removes it under the same shard lock.
  return sum_over_shards([](const Shard& s) PATHLOCK_NO_THREAD_SAFETY_ANALYSIS {
    std::size_t n = 0;
    for (const Node* head : s.buckets) {
      for (const Node* node = head; node != nullptr; node = node->next) n += node->sleepers.size();
    }
    return n;
  });
}

}  // namespace pathlock
