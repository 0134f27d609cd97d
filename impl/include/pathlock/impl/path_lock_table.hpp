#pragma once
// BasicPathLock's table: the lock entries (Node), sharded, each shard an
// intrusive hash table behind a spin lock with a CLOCK list of idle entries
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
  // The shard's idle list (CLOCK order), while listed. An entry taken
  // again stays listed (flagged not idle and referenced), so reusing an idle
  // entry touches no other entry's cache line; the eviction sweep drops the
  // listed entries that are in use.
  Node* idle_prev = nullptr;
  Node* idle_next = nullptr;
  bool idle = false;        // its queue is idle (it may still have fast holders: GATES); counted in idle_count
  bool listed = false;      // in the idle list (every idle entry is)
  bool referenced = false;  // taken again since it was listed: the sweep's second chance
  Shard* shard = nullptr;
  GateRecord* gate = nullptr;   // its gate, this node's while it lives
  std::uint32_t pseudo_held = 0;  // modes m in which pseudo task m holds it for fast holders
  std::uint32_t reopen_set = 0;   // the gate set it last opened with: reopened when the entry goes idle (0: none yet)
  impl::LockQueue queue;
  std::vector<std::pair<impl::TaskId, Waiter*>> sleepers;  // waiting acquisitions
  // Grants to its waiters so far (mod 2^32), written under shard->mu, read
  // by its spinning waiters without it: a queue that moves keeps them
  // spinning (path_lock_waiter.hpp).
  Atomic<std::uint32_t> grants{};
};

template <typename P>
struct alignas(64) BasicPathLock<P>::Shard {
  typename P::SpinLock mu;
  // protected by mu:
  std::vector<Node*> buckets PATHLOCK_GUARDED_BY(mu);  // a power of two
  std::size_t entries PATHLOCK_GUARDED_BY(mu) = 0;     // nodes linked from buckets
  std::size_t idle_count PATHLOCK_GUARDED_BY(mu) = 0;  // of which idle (each in the idle list)
  std::size_t listed_count PATHLOCK_GUARDED_BY(mu) = 0;  // in the idle list: the idle and some in use
  Node* idle_head PATHLOCK_GUARDED_BY(mu) = nullptr;   // where the sweep starts
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
      if (found->idle) take_from_idle(found);
      return found;
    }
    // Whatever can throw comes first (strong guarantee): a new node, its key
    // and gate record, room in a reused node's key, a bigger bucket array.
    // (A reused node is retired first; if its key's room then cannot be
    // made, it stays an idle entry with a closed gate, as good as before.)
    Node* n = idle_count >= max_idle ? take_victim(retire) : nullptr;
    if (n != nullptr) {
      n->key.reserve(key.size());
      take_from_idle(n);
      unlist(n);
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
    n->reopen_set = 0;
    n->gate->key.assign(key);  // its generation is new: a fresh record, or retired by take_victim
    n->hash = hash;
    Node** bucket = &buckets[hash & (buckets.size() - 1)];
    n->next = *bucket;
    *bucket = n;
    ++entries;
    return n;
  }

  // Called when `node`'s queue has become idle: flags it idle (listed at the
  // back if it is not listed), then deletes the entries the sweep picks
  // while more than `max_idle` are idle.
  template <typename Retire>
  void became_idle(Node* node, std::size_t max_idle, Retire&& retire) PATHLOCK_REQUIRES(mu) {
    node->idle = true;
    ++idle_count;
    if (!node->listed) list(node);
    while (idle_count > max_idle) {
      Node* victim = take_victim(retire);
      if (victim == nullptr) break;  // none left idle: each was held fast, and is active now
      take_from_idle(victim);
      unlist(victim);
      unlink(victim);
      free_gate(victim->gate);
      delete victim;
    }
  }

  // An idle entry taken again (or evicted): no longer idle. It stays listed,
  // so no other entry's links are written on the way.
  void take_from_idle(Node* node) PATHLOCK_REQUIRES(mu) {
    node->idle = false;
    node->referenced = true;
    --idle_count;
  }

  // The idle entry the CLOCK sweep picks, one that `retire` lets go
  // (kRetired), still listed. From the front of the list: an entry in use
  // leaves the list; one taken again since it was listed, or one `retire`
  // keeps (kKept: used fast since the last sweep), moves to the back with
  // its mark cleared, a second chance; one `retire` finds held fast now
  // (kMadeActive: its fast holders became pseudo holds) leaves the list. A
  // second sweep gives no second chance. nullptr if none is left to take.
  template <typename Retire>
  Node* take_victim(Retire&& retire) PATHLOCK_REQUIRES(mu) {
    for (const GateSweep sweep : {GateSweep::kSecondChance, GateSweep::kUnlessHeld}) {
      for (std::size_t tries = listed_count; tries > 0 && idle_head != nullptr; --tries) {
        Node* c = idle_head;
        if (!c->idle) {
          unlist(c);
          continue;
        }
        if (c->referenced && sweep == GateSweep::kSecondChance) {
          c->referenced = false;
          unlist(c);
          list(c);
          continue;
        }
        switch (retire(c, sweep)) {
          case GateRetire::kRetired: return c;
          case GateRetire::kKept:
            unlist(c);
            list(c);
            break;
          case GateRetire::kMadeActive:
            take_from_idle(c);
            unlist(c);
            break;
        }
      }
    }
    return nullptr;
  }

  void list(Node* node) PATHLOCK_REQUIRES(mu) {
    node->listed = true;
    node->referenced = false;
    node->idle_prev = idle_tail;
    node->idle_next = nullptr;
    (idle_tail != nullptr ? idle_tail->idle_next : idle_head) = node;
    idle_tail = node;
    ++listed_count;
  }

  void unlist(Node* node) PATHLOCK_REQUIRES(mu) {
    (node->idle_prev != nullptr ? node->idle_prev->idle_next : idle_head) = node->idle_next;
    (node->idle_next != nullptr ? node->idle_next->idle_prev : idle_tail) = node->idle_prev;
    node->listed = false;
    --listed_count;
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
  return shards_[impl::shard_index(hash, shard_mask_ + 1)];
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
  // An idle entry that is held fast (GATES) is active too.
  return sum_over_shards([this](const Shard& s) PATHLOCK_NO_THREAD_SAFETY_ANALYSIS {
    std::size_t n = s.entries - s.idle_count;
    for (const Node* node = s.idle_head; node != nullptr; node = node->idle_next) {
      if (!node->idle) continue;
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
  // a grant or a withdrawal removes it under the same shard lock. And the
  // threads queued at exclusive gates (path_lock_gate.hpp), by their flags.
  std::size_t at_gates = 0;
  for (const auto& q : gates_->queuers) at_gates += q.waiting.load(std::memory_order_relaxed);
  return at_gates + sum_over_shards([](const Shard& s) PATHLOCK_NO_THREAD_SAFETY_ANALYSIS {
    std::size_t n = 0;
    for (const Node* head : s.buckets) {
      for (const Node* node = head; node != nullptr; node = node->next) n += node->sleepers.size();
    }
    return n;
  });
}

}  // namespace pathlock
