#pragma once
// The test-only door into a PathLock's internals (a friend of the lock):
// corrupts its table, sleepers and slots for the invariant tests, and shows
// its gate cache and gate index.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pathlock/impl/path_hash.hpp"
#include "pathlock/impl/path_lock_definitions.hpp"
#include "pathlock/path_lock.hpp"

namespace pathlock::impl {

struct PathLockTestPeer {
  using Lock = PathLock;

  static void add_to_idle_count(Lock& lock, std::string_view path, long delta) {
    auto& shard = lock.shard_for(path_hash(path));
    Lock::SpinLockHolder hold(shard.mu);
    shard.idle_count = static_cast<std::size_t>(static_cast<long>(shard.idle_count) + delta);
  }
  // A sleeper record for a task that waits nowhere (push), or its removal (pop).
  enum class Record { kPush, kPop };
  static void phantom_sleeper(Lock& lock, std::string_view path, Record record) {
    auto& shard = lock.shard_for(path_hash(path));
    Lock::SpinLockHolder hold(shard.mu);
    auto& sleepers = shard.find(path, path_hash(path))->sleepers;
    if (record == Record::kPush) {
      sleepers.emplace_back(Lock::kFirstTaskId + 12345, nullptr);
    } else {
      sleepers.pop_back();
    }
  }
  static void flip_idle_flag(Lock& lock, std::string_view path) {
    auto& shard = lock.shard_for(path_hash(path));
    Lock::SpinLockHolder hold(shard.mu);
    Lock::Node* node = shard.find(path, path_hash(path));
    node->idle = !node->idle;
  }
  static void flip_listed_flag(Lock& lock, std::string_view path) {
    auto& shard = lock.shard_for(path_hash(path));
    Lock::SpinLockHolder hold(shard.mu);
    Lock::Node* node = shard.find(path, path_hash(path));
    node->listed = !node->listed;
  }
  static Lock::Node* node(const Lock& lock, std::string_view path) {
    auto& shard = lock.shard_for(path_hash(path));
    Lock::SpinLockHolder hold(shard.mu);
    return shard.find(path, path_hash(path));
  }
  static bool gate_closed(const Lock& lock, std::string_view path) {
    const Lock::Node* n = node(lock, path);
    return n == nullptr || Lock::Gates::admitted(n->gate->word.load()) == 0;
  }
  static bool has_gates(const Lock& lock) { return !lock.gates_->sets.empty() || lock.gates_->exclusive_modes != 0; }
  // The modes the entry's gate admits now (0: closed or no entry), and the
  // mode its word has taken (an exclusive gate's holder), as masks.
  static std::uint32_t admitted(const Lock& lock, std::string_view path) {
    const Lock::Node* n = node(lock, path);
    return n == nullptr ? 0 : Lock::Gates::admitted(n->gate->word.load());
  }
  static std::uint32_t taken(const Lock& lock, std::string_view path) {
    const Lock::Node* n = node(lock, path);
    return n == nullptr ? 0 : Lock::Gates::taken(n->gate->word.load());
  }
  // Whether the entry's gate counts its fast readers (path_lock_gate.hpp:
  // COUNTED READERS), and its count of readers in `mode`.
  static bool readers_counted(const Lock& lock, std::string_view path) {
    const Lock::Node* n = node(lock, path);
    return n != nullptr && Lock::Gates::readers_counted(n->gate);
  }
  static std::uint64_t counted_readers(const Lock& lock, std::string_view path, ModeId mode) {
    const Lock::Node* n = node(lock, path);
    return n == nullptr ? 0 : Lock::Gates::count_of(n->gate->counts.load(), mode.index);
  }
  // The last thread (block number + 1) queued at the entry's gate; 0: none.
  static std::uint32_t queue_tail(const Lock& lock, std::string_view path) {
    const Lock::Node* n = node(lock, path);
    return n == nullptr ? 0 : Lock::Gates::queue_tail(n->gate->word.load());
  }
  // How many threads have headed the entry's gate queue (each bumps it as
  // it becomes head); 0: no entry.
  static std::uint32_t queue_turns(const Lock& lock, std::string_view path) {
    const Lock::Node* n = node(lock, path);
    return n == nullptr ? 0 : n->gate->queue_turns.load();
  }
  // Whether the entry's open shared gate marks slow holders (no take beside them).
  static bool marks_slow_holders(const Lock& lock, std::string_view path) {
    const Lock::Node* n = node(lock, path);
    return n != nullptr && (n->gate->word.load() & Lock::Gates::kSlowHolders) != 0;
  }
  // The generation and admitted set of `path`'s entry's gate.
  struct GateState {
    std::uint64_t generation = 0;
    std::uint32_t admitted = 0;
  };
  static GateState gate_state(const Lock& lock, std::string_view path) {
    const std::uint64_t w = node(lock, path)->gate->word.load();
    return {Lock::Gates::generation(w), Lock::Gates::admitted(w)};
  }
  static std::uint32_t pseudo_held(const Lock& lock, std::string_view path) {
    auto& shard = lock.shard_for(path_hash(path));
    Lock::SpinLockHolder hold(shard.mu);
    const Lock::Node* n = shard.find(path, path_hash(path));
    return n == nullptr ? 0 : n->pseudo_held;
  }
  // A fast hold nobody took: this thread's last slot names the entry's gate
  // in `mode` (set), or is cleared (clear).
  enum class Slot { kSet, kClear };
  static void phantom_fast_hold(Lock& lock, std::string_view path, ModeId mode, Slot what) {
    auto& gates = *lock.gates_;
    const std::size_t b = StdPlatform::thread_slot() % Lock::Gates::kBlocks;
    std::size_t seen = gates.blocks_in_use.load();
    while (seen <= b && !gates.blocks_in_use.compare_exchange_weak(seen, b + 1)) {
    }
    auto& slot = gates.blocks[b].slots.back();
    slot.store(what == Slot::kSet ? Lock::Gates::slot_value(node(lock, path)->gate, mode) : 0);
  }
  static constexpr std::size_t gate_blocks() { return Lock::Gates::kBlocks; }
  // Makes the calling thread's plan memo now, if it has none.
  static void make_plan_memo() { Lock::plan_memo(Lock::GateCacheUse::kMakeIfMissing); }
  // How many slots of block `block` (a thread number's) are set.
  static std::size_t set_slots(const Lock& lock, std::size_t block) {
    std::size_t n = 0;
    for (const auto& slot : lock.gates_->blocks.at(block).slots) if (slot.load() != 0) ++n;
    return n;
  }
  // Whether the calling thread's gate cache knows `path`'s gate in `lock`.
  static bool gate_cached(const Lock& lock, std::string_view path) {
    const Lock::GateCacheEntry* cache = Lock::gate_cache(Lock::GateCacheUse::kLookOnly);
    if (cache == nullptr) return false;
    const Lock::GateCacheEntry& e = cache[gate_cache_index(path_hash(path))];
    return e.lock_uid == lock.uid_ && e.hash == path_hash(path) && e.key.holds(path);
  }
  // Makes the calling thread's gate cache forget `path`'s gate in `lock`.
  // Any acquire that looks the gate up (fast or slow) caches a folder's
  // again; a plan memo hit looks nothing up.
  static void forget_cached_gate(const Lock& lock, std::string_view path) {
    Lock::GateCacheEntry* cache = Lock::gate_cache(Lock::GateCacheUse::kLookOnly);
    if (cache != nullptr && gate_cached(lock, path)) cache[gate_cache_index(path_hash(path))].lock_uid = 0;
  }
  // The gate record of `path`'s entry (nullptr: no entry), and the one its
  // record's folder hint `i` names (path_lock_gate.hpp: FOLDER HINTS).
  static const void* gate_record(const Lock& lock, std::string_view path) {
    const Lock::Node* n = node(lock, path);
    return n == nullptr ? nullptr : n->gate;
  }
  static const void* folder_hint(const Lock& lock, std::string_view path, std::size_t i) {
    return node(lock, path)->gate->folder_hints.at(i).load();
  }
  static constexpr std::size_t kFolderHints = Lock::GateRecord::kFolderHints;
  static constexpr std::size_t kGateRecordBytes = sizeof(Lock::GateRecord);  // path_lock.hpp says 192
  // Points `path`'s folder hint `i` at the gate record of `other`'s entry.
  static void misdirect_folder_hint(Lock& lock, std::string_view path, std::size_t i, std::string_view other) {
    node(lock, path)->gate->folder_hints.at(i).store(node(lock, other)->gate);
  }
  // How many steps the calling thread's plan memo holds for `request` in
  // `lock` (0: it does not know the request).
  static std::size_t memoized_steps(const Lock& lock, const model::Request& request) {
    const auto found = lock.look_up_plan_memo(request);
    return found.match == Lock::MemoMatch::kHit ? found.entry->steps : 0;
  }
  // How many more of the calling thread's hits of `request` in `lock`
  // hold its word briefly (path_lock_memo.hpp: CONTENDED WORDS); 0: the
  // cheaper order, or not memoized.
  static unsigned short_holds(const Lock& lock, const model::Request& request) {
    const auto found = lock.look_up_plan_memo(request);
    return found.match == Lock::MemoMatch::kHit ? found.entry->short_holds : 0U;
  }
  static constexpr unsigned kShortHolds = Lock::PlanMemoEntry::kShortHolds;
  // Whether `guard`'s release gives its words back before clearing its slots.
  static bool gives_words_back_first(const Lock::Guard& guard) {
    return guard.words_back_ == Lock::WordsBack::kFirst;
  }
  // Whether the lock-wide gate index names `path`'s entry's record, under
  // the path's tag.
  static bool indexed(const Lock& lock, std::string_view path) {
    const Lock::Node* n = node(lock, path);
    if (n == nullptr) return false;
    return lock.gates_->find_index_slot(path_hash(path), Lock::Gates::index_entry(n->gate, path_hash(path))) !=
           nullptr;
  }
  static constexpr std::size_t gate_record_bytes() { return sizeof(Lock::GateRecord); }
  // The gates' queuers: one per block (a thread's place in a gate's queue).
  static constexpr std::size_t gate_queuers_bytes() { return sizeof(Lock::GateQueuer) * Lock::Gates::kBlocks; }
  static constexpr std::size_t indexed_key_bytes() { return Lock::IndexedKey::kBytes; }
  static std::size_t index_slots(const Lock& lock) { return (lock.gates_->index_mask + 1) * lock.gates_->index_ways; }
  static std::size_t index_ways(const Lock& lock) { return lock.gates_->index_ways; }
  static std::size_t index_bucket(const Lock& lock, std::string_view path) {
    return gate_index_bucket(path_hash(path), lock.gates_->index_mask + 1);
  }
  static std::uintptr_t index_tag(std::string_view path) { return gate_index_tag(path_hash(path)); }
  static std::size_t index_slots_for(std::size_t shards, std::size_t max_idle_per_shard) {
    return Lock::Gates::index_slots(shards, max_idle_per_shard);
  }
  // Writes another path into `path`'s gate record's copy (as a reuse that
  // skipped IndexedKey::assign would leave it).
  static void overwrite_record_key(Lock& lock, std::string_view path, std::string_view other) {
    auto& shard = lock.shard_for(path_hash(path));
    Lock::SpinLockHolder hold(shard.mu);
    shard.find(path, path_hash(path))->gate->key.assign(other);
  }

  // A waiter's spin constants, on any platform L (path_lock_waiter.hpp).
  template <typename L>
  struct SpinConstants {
    static constexpr auto kRoundLength = L::Waiter::kSpinFor;
    static constexpr auto kYieldEvery = L::Waiter::kYieldEvery;
    static constexpr long kPausesPerClockLook = L::Waiter::kSpinClockEvery;
  };
  // A waiting acquisition's spin, on any platform L: a waiter whose entry's
  // grant count is watch_entry's (none: no entry to watch), granted by grant().
  template <typename L>
  class SpinningWaiter {
   public:
    void watch_entry(const typename L::template Atomic<std::uint32_t>* entry_grants) {
      waiter_.entry_grants = entry_grants;
    }
    void grant() { waiter_.state.store(L::Waiter::State::kWoken, std::memory_order_release); }
    bool spin_for_grant() const { return L::spin_for_grant(waiter_); }

   private:
    typename L::Waiter waiter_;
  };
  // A thread queued at a gate, on any platform L: it waits (spins, then
  // sleeps) until ready(); turn() is what each new head of the gate's
  // queue does, and what the waiter watches move.
  template <typename L>
  class GateQueueWaiter {
   public:
    template <typename Ready>
    void wait(Ready&& ready) {
      L::wait_in_gate_queue(&record_, queuer_, L::QueuePlace::kLinked, ready);
    }
    void turn() { record_.queue_turns.store(record_.queue_turns.load() + 1); }

   private:
    typename L::GateRecord record_;
    typename L::GateQueuer queuer_;
  };
};

}  // namespace pathlock::impl
