#pragma once
// BasicPathLock::check_invariants(): the table's, the waiters', the root
// gate's and every LockQueue's invariants (path_lock.hpp: INVARIANTS, ROOT
// GATE), each broken one named with the shard, the path and the numbers.
// Part of the template's definitions: include path_lock_definitions.hpp,
// not this.

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
  for (std::size_t i = 0; i <= shard_mask_; ++i) {
    SpinLockHolder hold(shards_[i].mu);
    if (std::string broken = check_shard(i); !broken.empty()) return impl::concat("shard ", i, ": ", broken);
  }
  return check_gate();
}

template <typename P>
std::string BasicPathLock<P>::check_shard(std::size_t index) const {
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
      if (node->is_root != (key == "/")) return impl::concat("entry ", key, " has the wrong root flag");
      if (std::string q = node->queue.check_invariants(scheme_); !q.empty()) {
        return impl::concat("entry ", key, ": ", q);
      }
      if (node->idle != node->queue.idle()) {
        return impl::concat("entry ", key, " is ", node->idle ? "in" : "not in", " the idle list but its queue is ",
                      node->queue.idle() ? "idle" : "in use");
      }
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
    if (!node->idle) return impl::concat("entry ", node->key, " is in the idle list without its idle flag");
    if (node->idle_prev != prev) return impl::concat("entry ", node->key, " has a wrong idle_prev link");
  }
  if (s.idle_tail != prev) return "idle_tail is not the last node of the idle list";
  if (s.idle_count != listed || listed != flagged_idle) {
    return impl::concat("idle_count is ", s.idle_count, ", the idle list holds ", listed, " nodes and ", flagged_idle,
                  " nodes are flagged idle");
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
std::string BasicPathLock<P>::check_gate() const {
  const std::uint64_t hash = impl::path_hash("/");
  Shard& s = shard_for(hash);
  SpinLockHolder hold(s.mu);
  const RootGate& g = *gate_;
  const Node* root = s.find(std::string_view("/"), hash);
  const bool closed = g.closed.load(std::memory_order_seq_cst);
  if (g.modes == 0 && closed) return "root gate: closed, but the scheme has no gate modes";
  if ((g.pseudo_held & ~g.modes) != 0) return "root gate: a pseudo task holds the root in a mode outside the gate";
  for (std::uint8_t m = 0; m < scheme_.mode_count(); ++m) {
    const impl::ModeId mode{m};
    const std::string& name = scheme_.mode_name(mode);
    const std::int64_t fast = g.fast_holders(mode);
    const bool pseudo = ((g.pseudo_held >> m) & 1U) != 0;
    if (fast < 0) return impl::concat("root gate: ", fast, " fast holders of ", name);
    if (fast > 0 && !g.admits(mode)) return impl::concat("root gate: fast holders of ", name, ", not a gate mode");
    if (closed && fast > 0 && !pseudo) {
      return impl::concat("root gate: closed with ", fast, " fast holders of ", name,
                    ", but no pseudo task holds the root in ", name);
    }
    if (pseudo && (!closed || fast == 0)) {
      return impl::concat("root gate: a pseudo task holds the root in ", name, " with the gate ",
                          closed ? "closed" : "open", " and ", fast, " fast holders");
    }
  }
  std::uint32_t pseudo_seen = 0;
  if (root != nullptr) {
    for (const auto& h : root->queue.holders()) {
      if (h.task >= kFirstTaskId) continue;
      if (h.task != pseudo_task(h.mode) || ((g.pseudo_held >> h.mode.index) & 1U) == 0 ||
          ((pseudo_seen >> h.mode.index) & 1U) != 0) {
        return impl::concat("root gate: pseudo task ", h.task, " holds the root in ", scheme_.mode_name(h.mode),
                      ", unrecorded");
      }
      pseudo_seen |= 1U << h.mode.index;
    }
    for (const auto& w : root->queue.waiters()) {
      if (w.task < kFirstTaskId) return impl::concat("root gate: pseudo task ", w.task, " waits for the root");
    }
  }
  if (pseudo_seen != g.pseudo_held) return "root gate: a recorded pseudo hold is not on the root entry";
  if (g.pseudo_held != 0 && g.root != root) return "root gate: the recorded root entry is not the table's";
  const std::uint32_t used = root == nullptr ? 0 : root->queue.held_mask() | root->queue.queued_mask();
  if (g.modes != 0 && !closed && (used & ~g.modes) != 0) {
    return "root gate: open while the root entry holds or queues another mode";
  }
  if (closed && g.pseudo_held == 0 && (used & ~g.modes) == 0) {
    return "root gate: closed, but nothing on the root needs it closed (it should have reopened)";
  }
  return {};
}

}  // namespace pathlock
