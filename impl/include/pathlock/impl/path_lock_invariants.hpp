#pragma once
// BasicPathLock::check_invariants(): the table's, the waiters', the
// gates' and every LockQueue's invariants (path_lock.hpp: INVARIANTS,
// GATES), each broken one named with the shard, the path and the numbers.
// Part of the template's definitions: include path_lock_definitions.hpp,
// not this.

#include <array>
#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>

#include "pathlock/impl/concat.hpp"
#include "pathlock/impl/path_lock_gate.hpp"
#include "pathlock/impl/path_lock_table.hpp"
#include "pathlock/impl/path_lock_waiter.hpp"
#include "pathlock/path_lock.hpp"

namespace pathlock {

template <typename P>
std::string BasicPathLock<P>::check_invariants() const {
  std::size_t fast_counted = 0;  // fast holds found through their entries
  for (std::size_t i = 0; i <= shard_mask_; ++i) {
    SpinLockHolder hold(shards_[i].mu);
    if (std::string broken = check_shard(i, fast_counted); !broken.empty()) {
      return impl::concat("shard ", i, ": ", broken);
    }
  }
  std::size_t published = 0;
  for (const auto& block : gates_->blocks) {
    for (const auto& slot : block.slots) published += slot.load(std::memory_order_seq_cst) != 0 ? 1U : 0U;
  }
  if (published != fast_counted) {
    return impl::concat("gates: ", published, " slots are set but ", fast_counted,
                        " name the gate of an entry in the table");
  }
  return {};
}

template <typename P>
std::string BasicPathLock<P>::check_shard(std::size_t index, std::size_t& fast_counted) const {
  const Shard& s = shards_[index];
  s.mu.assert_held();
  const std::size_t max_idle = options_.max_idle_locks_per_shard;
  if (!std::has_single_bit(s.buckets.size())) return impl::concat(s.buckets.size(), " buckets, not a power of two");
  std::unordered_set<const Node*> linked;
  std::size_t flagged_idle = 0;
  for (std::size_t b = 0; b < s.buckets.size(); ++b) {
    for (const Node* node = s.buckets[b]; node != nullptr; node = node->next) {
      const std::string_view key = node->key;
      if (!linked.insert(node).second) return impl::concat("entry ", key, " is linked twice");
      if (node->shard != &s) return impl::concat("entry ", key, " names another shard");
      if (node->hash != impl::path_hash(key) || (node->hash & (s.buckets.size() - 1)) != b ||
          &shard_for(node->hash) != &s) {
        return impl::concat("entry ", key, " is filed under the wrong hash, bucket or shard");
      }
      std::size_t held_fast = 0;
      if (std::string g = check_gate(*node, held_fast); !g.empty()) return impl::concat("entry ", key, ": ", g);
      fast_counted += held_fast;
      if (std::string q = node->queue.check_invariants(scheme_); !q.empty()) {
        return impl::concat("entry ", key, ": ", q);
      }
      if (node->idle != node->queue.idle()) {
        return impl::concat("entry ", key, " is flagged ", node->idle ? "idle" : "in use", " but its queue is ",
                      node->queue.idle() ? "idle" : "in use");
      }
      if (node->idle && !node->listed) return impl::concat("entry ", key, " is idle but not in the idle list");
      if (node->idle) ++flagged_idle;
      if (std::string w = check_sleepers(*node); !w.empty()) return impl::concat("entry ", key, ": ", w);
    }
  }
  if (s.entries != linked.size()) {
    return impl::concat("entries is ", s.entries, " but ", linked.size(), " nodes are linked from the buckets");
  }
  if (s.entries > s.buckets.size()) {
    return impl::concat(s.entries, " entries in ", s.buckets.size(), " buckets (the table grows at one per bucket)");
  }
  std::size_t listed = 0;
  const Node* prev = nullptr;
  for (const Node* node = s.idle_head; node != nullptr; prev = node, node = node->idle_next) {
    if (++listed > linked.size()) return "the idle list is longer than the table (a cycle?)";
    if (linked.count(node) == 0) return "the idle list holds a node that is not in the table";
    if (!node->listed) return impl::concat("entry ", node->key, " is in the idle list without its listed flag");
    if (node->idle_prev != prev) return impl::concat("entry ", node->key, " has a wrong idle_prev link");
  }
  if (s.idle_tail != prev) return "idle_tail is not the last node of the idle list";
  if (s.listed_count != listed) {
    return impl::concat("listed_count is ", s.listed_count, " but the idle list holds ", listed, " nodes");
  }
  if (s.idle_count != flagged_idle) {
    return impl::concat("idle_count is ", s.idle_count, " but ", flagged_idle, " nodes are flagged idle");
  }
  if (s.idle_count > max_idle) return impl::concat(s.idle_count, " idle entries, above the bound ", max_idle);
  return {};
}

template <typename P>
std::string BasicPathLock<P>::check_sleepers(const Node& node) const {
  // One sleeper record per waiting acquisition, in queue order (both are
  // appended in one critical section and removed by task id), and none of
  // them already granted (a grant removes the record).
  const auto waiters = node.queue.waiters();
  if (node.sleepers.size() != waiters.size()) {
    return impl::concat(node.sleepers.size(), " sleeper records for ", waiters.size(), " waiting acquisitions");
  }
  for (std::size_t i = 0; i < waiters.size(); ++i) {
    if (node.sleepers[i].first != waiters[i].task) {
      return impl::concat("sleeper record ", i, " is for task ", node.sleepers[i].first, ", but waiter ", i,
                          " is task ", waiters[i].task);
    }
    if (node.sleepers[i].second != nullptr && node.sleepers[i].second->granted()) {
      return impl::concat("task ", waiters[i].task, " is still queued but its waiter was granted");
    }
  }
  return {};
}

template <typename P>
std::string BasicPathLock<P>::check_gate(const Node& node, std::size_t& held_fast) const {
  const GateRecord& g = *node.gate;
  if (g.owner != &node || g.shard != node.shard) return "its gate record names another entry or shard";
  if (!g.key.holds(node.key)) return "its gate record's copy of the path (for the index) is not its path";
  const std::uint64_t word = g.word.load(std::memory_order_seq_cst);
  const std::uint32_t admitted = Gates::admitted(word);
  const bool exclusive = admitted != 0 && std::has_single_bit(admitted) && gates_->exclusive(admitted);
  if (admitted != 0 && !exclusive &&
      std::find(gates_->sets.begin(), gates_->sets.end(), admitted) == gates_->sets.end()) {
    return impl::concat("its gate admits mask ", admitted, ", not one of the scheme's gate sets");
  }
  const std::uint32_t taken = Gates::taken(word);
  if (taken != 0 && (!std::has_single_bit(taken) || !gates_->exclusive(taken) || (exclusive && taken != admitted))) {
    return impl::concat("its gate's word has mask ", taken,
                        " taken, not one mode that conflicts with itself (its exclusive gate's, if open)");
  }
  // Threads queued at the gate hold the entry as its exclusive mode's fast
  // holders do (path_lock_gate.hpp).
  const bool queue = Gates::queue_tail(word) != 0;
  const std::uint32_t queue_modes = exclusive ? admitted : node.pseudo_held & gates_->exclusive_modes;
  if (queue && admitted != 0 && !exclusive) return "threads queue at its open shared gate";
  if (queue && admitted == 0 && queue_modes == 0) return "threads queue at its closed gate, and no pseudo task holds it for them";
  const auto fast = gates_->count(&g, nullptr, queue_modes);
  const std::uint32_t queued = queue ? queue_modes : 0;
  const std::uint32_t used = node.queue.held_mask() | node.queue.queued_mask();
  const bool slow = (word & Gates::kSlowHolders) != 0;
  if (slow && (admitted == 0 || exclusive)) return "its word marks slow holders, but its gate is no open shared gate";
  if (admitted != 0 && !exclusive && slow != (node.queue.held_mask() != 0)) {
    return impl::concat("its open gate's word says its queue ", slow ? "holds" : "holds nothing", ", but it ",
                        node.queue.held_mask() != 0 ? "holds" : "holds nothing");
  }
  if (admitted != 0 && taken != 0 && used != 0) return "a mode is taken from its open gate while its queue holds";
  // Readers hold one way at a time (path_lock_gate.hpp: COUNTED READERS):
  // between calls nobody is half-way through asking the other way.
  const std::uint64_t counts = g.counts.load(std::memory_order_seq_cst);
  std::array<std::uint32_t, impl::kMaxModes> slots{};  // fast holders by slot: not taken, queued or counted
  std::uint32_t slot_modes = 0;
  for (std::size_t m = 0; m < slots.size(); ++m) {
    slots[m] = fast[m] - ((taken >> m) & 1U) - ((queued >> m) & 1U) - static_cast<std::uint32_t>(Gates::count_of(counts, m));
    if (slots[m] != 0) slot_modes |= 1U << m;
  }
  if (Gates::readers_counted(&g) && slot_modes != 0) {
    return impl::concat("its readers are counted, but slots name it (modes mask ", slot_modes, ")");
  }
  if (!Gates::readers_counted(&g) && counts != 0) {
    return impl::concat("its readers hold by slots, but its counts are ", counts);
  }
  auto slots_and_taken = fast;  // without the queue, which is no slot
  for (std::size_t m = 0; m < slots_and_taken.size(); ++m) slots_and_taken[m] -= (queued >> m) & 1U;
  if (taken != 0 && conflicting_slots(slots_and_taken, taken)) {
    return "a mode is taken beside a slot in a conflicting mode";
  }
  if (admitted != 0 && (node.pseudo_held != 0 || node.queue.queued_mask() != 0 || (used & ~admitted) != 0)) {
    return "its gate is open while its queue holds or queues a mode the gate does not admit, or a pseudo task";
  }
  if (exclusive && used != 0) return "its exclusive gate is open while its queue holds or queues";
  for (std::uint8_t m = 0; m < scheme_.mode_count(); ++m) {
    const std::string& name = scheme_.mode_name(impl::ModeId{m});
    const bool pseudo = ((node.pseudo_held >> m) & 1U) != 0;
    held_fast += slots[m];  // the caller counts the slots
    if (fast[m] != 0 && admitted == 0 && !pseudo) {
      return impl::concat("gate closed with ", fast[m], " fast holders of ", name, ", but no pseudo task holds it in ",
                          name);
    }
    if (fast[m] != 0 && admitted != 0 && (((admitted | taken) >> m) & 1U) == 0) {
      return impl::concat(fast[m], " fast holders of ", name, ", which the open gate does not admit");
    }
    if (pseudo && fast[m] == 0) {
      return impl::concat("a pseudo task holds it in ", name, " with no fast holder left (a missed drain)");
    }
  }
  std::uint32_t pseudo_seen = 0;
  for (const auto& h : node.queue.holders()) {
    if (h.task >= kFirstTaskId) continue;
    if (h.task != pseudo_task(h.mode) || ((node.pseudo_held >> h.mode.index) & 1U) == 0 ||
        ((pseudo_seen >> h.mode.index) & 1U) != 0) {
      return impl::concat("pseudo task ", h.task, " holds it in ", scheme_.mode_name(h.mode), ", unrecorded");
    }
    pseudo_seen |= 1U << h.mode.index;
  }
  for (const auto& w : node.queue.waiters()) {
    if (w.task < kFirstTaskId) return impl::concat("pseudo task ", w.task, " waits for it");
  }
  if (pseudo_seen != node.pseudo_held) return "a recorded pseudo hold is not in its queue";
  return {};
}

}  // namespace pathlock
