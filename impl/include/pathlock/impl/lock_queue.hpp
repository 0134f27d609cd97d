#pragma once
// The state of one lock: who holds it in which mode, and who waits for it.
// This grant and queue logic is shared by the simulator and the production
// lock; it does no synchronisation of its own (the caller serialises calls).
//
// Grant rule: FIFO among conflicting requests.
//   acquire(t, m) is granted at once iff m is compatible with every holder's
//   mode and with every queued waiter's mode; otherwise t queues at the back.
//   After a release or a cancellation the queue is scanned front to back, and
//   each waiter is granted iff its mode is compatible with every holder
//   (those just granted included) and with every waiter still ahead of it.
// So a waiter waits for exactly its incompatible holders and its incompatible
// waiters ahead (the wait-for edges of proofs/design.md), and it is never overtaken by a
// request incompatible with it: only compatible requests bypass it.
//
// Invariants (checked by check_invariants(), tested):
//   holders are pairwise compatible (a task's own holds count like anyone's:
//     no re-entrancy, so a task that asks again for a lock it holds in an
//     incompatible mode waits for itself, a self-loop in the wait-for graph)
//   held_mask  == OR over holders of bit(mode)
//   for every waiter w: w is incompatible with some holder or with some
//     waiter ahead of it (else it would have been granted)
//
// Complexity: acquire is O(1) (mode masks); release and cancel are
// O(holders + waiters).
//
// Exceptions: every operation gives the strong guarantee. The only
// allocations are vector growth, done before anything changes, so a
// std::bad_alloc leaves the queue (and `granted`) exactly as it was.
//
// Room: acquire and try_acquire keep holders() with room for every holder
// and every waiter (capacity >= holders + waiters), so granting a waiter
// never allocates: release_granting and cancel_granting allocate nothing,
// and a lock can release inside a noexcept function. (A copied queue has no
// spare room; its first release may allocate, and then has the room again.)

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pathlock/impl/scheme.hpp"

namespace pathlock::impl {

// Identifies a holder or waiter: a simulator slot, or one acquisition of the
// production lock (64 bits, so ids are never reused).
using TaskId = std::uint64_t;

enum class AcquireOutcome { kGranted, kQueued };

struct LockEntry {
  TaskId task;
  ModeId mode;
  friend bool operator==(const LockEntry&, const LockEntry&) = default;
};

class LockQueue {
 public:
  // REQUIRES: `scheme` is the same for every call on this queue.
  AcquireOutcome acquire(const Scheme& scheme, TaskId task, ModeId mode);
  // Grants as acquire() would, but never queues: false means acquire() would
  // have queued, and nothing changed.
  bool try_acquire(const Scheme& scheme, TaskId task, ModeId mode);

  // Drops one hold of `task`, then grants what the rule allows; the newly
  // granted are appended to `granted`, in queue order. Returns false (and
  // changes nothing) if `task` holds nothing here.
  bool release(const Scheme& scheme, TaskId task, std::vector<LockEntry>& granted);

  // Withdraws `task`'s waiting request (timeout, cancellation), then grants
  // what the rule allows. Returns false if `task` is not waiting here.
  bool cancel(const Scheme& scheme, TaskId task, std::vector<LockEntry>& granted);

  // release and cancel without an output list: the newly granted are the
  // last `count` entries of holders(), in queue order. kNotFound: nothing
  // changed. Allocate nothing while the queue has its room (see Room).
  struct Granted {
    enum class Outcome : std::uint8_t { kDone, kNotFound } outcome;
    std::size_t count;
  };
  Granted release_granting(const Scheme& scheme, TaskId task) {
    // The uncontended case, inline: the only holder leaves an empty queue.
    if (waiters_.empty() && holders_.size() == 1 && holders_.front().task == task) {
      holders_.clear();
      held_mask_ = 0;
      return {Granted::Outcome::kDone, 0};
    }
    return remove_granting(scheme, holders_, task);
  }
  Granted cancel_granting(const Scheme& scheme, TaskId task) { return remove_granting(scheme, waiters_, task); }
  // The `count` newly granted entries of the last release or cancel.
  std::span<const LockEntry> last_granted(std::size_t count) const noexcept {
    return std::span<const LockEntry>(holders_).last(count);
  }

  // Room for `more` further holders beyond the room kept (see Room), so that
  // that many compatible acquires that are granted at once cannot throw.
  void reserve_holders(std::size_t more);

  // The tasks `waiter` waits for: holders whose mode is incompatible with its
  // mode, and waiters ahead of it with an incompatible mode. Appended to `out`.
  // REQUIRES: `waiter` is queued here.
  void blockers(const Scheme& scheme, TaskId waiter, std::vector<TaskId>& out) const;

  std::span<const LockEntry> holders() const noexcept { return holders_; }
  std::span<const LockEntry> waiters() const noexcept { return waiters_; }
  bool idle() const noexcept { return holders_.empty() && waiters_.empty(); }
  // Bit m set iff some holder (waiter) has mode m.
  std::uint32_t held_mask() const noexcept { return held_mask_; }
  std::uint32_t queued_mask() const noexcept { return queued_mask_; }

  // Empty if the invariants hold; otherwise the first broken one.
  std::string check_invariants(const Scheme& scheme) const;

 private:
  bool compatible_with_mask(const Scheme& scheme, ModeId mode, std::uint32_t mask) const noexcept;
  // Waiters a grant pass would grant with holder modes `held` and the waiter
  // at `gone` (if any) removed.
  std::size_t grants_after(const Scheme& scheme, std::uint32_t held, const LockEntry* gone) const noexcept;
  void recompute_masks();
  bool remove_and_grant(const Scheme& scheme, std::vector<LockEntry>& from, TaskId task,
                        std::vector<LockEntry>& granted);
  Granted remove_granting(const Scheme& scheme, std::vector<LockEntry>& from, TaskId task);
  // Keeps the room: capacity for every holder and waiter, plus `more`.
  void keep_room(std::size_t more) {
    // Checked here, inline: on the uncontended path there is always room.
    if (holders_.capacity() < holders_.size() + waiters_.size() + more) {
      holders_.reserve(holders_.size() + waiters_.size() + more);
    }
  }
  void grant_waiters(const Scheme& scheme) noexcept;

  std::vector<LockEntry> holders_;
  std::vector<LockEntry> waiters_;  // arrival order
  std::uint32_t held_mask_ = 0;     // bit m set iff some holder has mode m
  std::uint32_t queued_mask_ = 0;   // bit m set iff some waiter has mode m
};

}  // namespace pathlock::impl
