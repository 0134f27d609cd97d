#pragma once
// BasicPathLock's root gate: the root's fast path for its gate modes, with
// striped counters of fast holders, and closing, draining and reopening the
// gate through pseudo holders on the root entry (path_lock.hpp: ROOT GATE).
// Part of the template's definitions: include path_lock_definitions.hpp,
// not this.

#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "pathlock/impl/lock_queue.hpp"
#include "pathlock/impl/path_lock_table.hpp"
#include "pathlock/impl/scheme.hpp"
#include "pathlock/path_lock.hpp"

namespace pathlock::impl {

// The gate modes of a scheme, a mask: grown greedily from the modes the root
// most often gets (ancestor modes, then a read target's mode for global
// schemes), each accepted only if the set stays closed under join and
// pairwise compatible (every mode with itself included). 0: the root has no
// gate.
std::uint32_t root_gate_modes(const Scheme& scheme);

}  // namespace pathlock::impl

namespace pathlock {

// Distributed counts of holders per gate mode. Counts are signed: a guard
// released on another thread decrements that thread's stripe; only the sums
// over stripes mean anything.
template <typename P>
struct BasicPathLock<P>::RootGate {
  static constexpr std::size_t kStripes = 16;
  struct alignas(64) Stripe {
    std::array<Atomic<std::int64_t>, impl::kMaxModes> holders{};  // by mode
  };
  std::array<Stripe, kStripes> stripes;
  alignas(64) Atomic<bool> closed{};  // fast acquisitions refused (false)
  std::uint32_t modes = 0;          // gate modes, a mask; 0 = no gate
  // protected by the root entry's shard lock:
  std::uint32_t pseudo_held = 0;  // modes m for which pseudo task m holds the root entry
  Node* root = nullptr;           // the root entry, while pseudo_held != 0

  bool admits(impl::ModeId m) const noexcept { return (modes >> m.index) & 1U; }
  Atomic<std::int64_t>& my_count(impl::ModeId m) noexcept {
    return stripes[P::thread_slot() % kStripes].holders[m.index];
  }
  std::int64_t fast_holders(impl::ModeId m) const noexcept {
    std::int64_t n = 0;
    for (const auto& s : stripes) n += s.holders[m.index].load(std::memory_order_seq_cst);
    return n;
  }
};

template <typename P>
bool BasicPathLock<P>::try_fast_root(impl::ModeId mode, impl::TaskId id) {
  if (!gate_->admits(mode) || gate_->closed.load(std::memory_order_relaxed)) return false;
  auto& count = gate_->my_count(mode);
  // Dekker with close_gate(): count ourselves, then look at the gate. Either
  // the closer's sums see our count, or we see the gate closed.
  count.fetch_add(1, std::memory_order_seq_cst);
  impl::observe<P>(impl::LockEvent::kAsked, "/", id, mode);  // the grant's moment, if the gate is still open
  if (!gate_->closed.load(std::memory_order_seq_cst)) return true;
  count.fetch_sub(1, std::memory_order_seq_cst);
  impl::observe<P>(impl::LockEvent::kWithdrawn, "/", id, mode);
  drain_gate();
  return false;
}

template <typename P>
void BasicPathLock<P>::close_gate(Node* root) {
  if (gate_->modes == 0 || gate_->closed.load(std::memory_order_relaxed)) return;
  // Room for every pseudo hold first: once the gate is closed, the fast
  // holders must become pseudo holds, or a conflicting request would be
  // granted beside them.
  root->queue.reserve_holders(static_cast<std::size_t>(std::popcount(gate_->modes)));
  gate_->closed.store(true, std::memory_order_seq_cst);
  // The fast holders hold the root in gate modes, compatible with every
  // holder and waiter of the root entry (else the gate was closed) and with
  // each other: each mode's pseudo hold is granted at once, and whoever
  // conflicts with one queues behind it.
  for (std::uint8_t m = 0; m < scheme_.mode_count(); ++m) {
    const impl::ModeId mode{m};
    if (!gate_->admits(mode) || gate_->fast_holders(mode) <= 0) continue;
    root->queue.acquire(scheme_, pseudo_task(mode), mode);
    impl::observe<P>(impl::LockEvent::kGranted, "/", pseudo_task(mode), mode);  // at once, as said above
    gate_->pseudo_held |= 1U << m;
    gate_->root = root;
  }
}

template <typename P>
void BasicPathLock<P>::drain_gate() {
  Shard& s = shard_for(impl::path_hash("/"));
  Waiter* to_wake = nullptr;
  {
    SpinLockHolder hold(s.mu);
    // The last fast holder of a mode to leave (by the seq_cst order of the
    // counts and the gate) sees a zero sum here and releases its pseudo hold.
    if (gate_->pseudo_held == 0) return;
    Node* root = gate_->root;
    for (std::uint8_t m = 0; m < scheme_.mode_count(); ++m) {
      const impl::ModeId mode{m};
      if (((gate_->pseudo_held >> m) & 1U) == 0 || gate_->fast_holders(mode) != 0) continue;
      gate_->pseudo_held &= ~(1U << m);
      const auto released = root->queue.release_granting(scheme_, pseudo_task(mode));
      impl::observe<P>(impl::LockEvent::kReleased, "/", pseudo_task(mode), mode);
      take_granted(root, root->queue.last_granted(released.count), to_wake);
    }
    settle(root, {}, to_wake);
  }
  wake_all(to_wake);
}

}  // namespace pathlock
