#pragma once
// BasicPathLock's acquire and release: a request's plan taken one step at a
// time (the root through its gate when it can), rolled back when a step
// would block, times out or is cancelled; and the Guard that releases it.
// Part of the template's definitions: include path_lock_definitions.hpp,
// not this.

#include <algorithm>
#include <bit>
#include <memory>
#include <vector>

#include "pathlock/impl/lock_queue.hpp"
#include "pathlock/impl/path_lock_gate.hpp"
#include "pathlock/impl/path_lock_memo.hpp"
#include "pathlock/impl/path_lock_table.hpp"
#include "pathlock/impl/path_lock_waiter.hpp"
#include "pathlock/impl/plan.hpp"
#include "pathlock/impl/scheme_admission.hpp"
#include "pathlock/path_lock.hpp"

namespace pathlock {

namespace impl {
// Where lock uids come from: one process-wide count, so that a lock built
// where an old one was never matches a thread's cached gates of the old one.
inline std::uint64_t next_lock_uid() noexcept {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace impl

template <typename P>
BasicPathLock<P>::BasicPathLock(const impl::Scheme& scheme, PathLockOptions options)
    : scheme_(scheme), options_(options), uid_(impl::next_lock_uid()), gates_(std::make_unique<Gates>()) {
  if (options_.scheme_admission == SchemeAdmission::kRequireSound) impl::require_sound_scheme(scheme_);
  if (options_.fast_gates) {
    gates_->sets = impl::gate_mode_sets(scheme_);
    gates_->exclusive_modes = impl::exclusive_gate_modes(scheme_);
    gates_->make_index(Gates::index_slots(options_.shards, options_.max_idle_locks_per_shard));
    gates_->ancestor_modes = 1U << scheme_.mode_for(impl::Role::kReadAncestor).index |
                             1U << scheme_.mode_for(impl::Role::kWriteAncestor).index;
    for (const std::uint32_t set : gates_->sets) {
      gates_->any_mode |= set;
      gates_->widest = std::max<std::size_t>(gates_->widest, static_cast<std::size_t>(std::popcount(set)));
    }
    if (gates_->exclusive_modes != 0) {
      gates_->any_mode |= gates_->exclusive_modes;
      gates_->widest = std::max<std::size_t>(gates_->widest, 1);
    }
  }
  const std::size_t n = std::bit_ceil(std::max<std::size_t>(1, options_.shards));
  shard_mask_ = n - 1;
  shards_ = std::make_unique<Shard[]>(n);
  for (std::size_t i = 0; i < n; ++i) {
    SpinLockHolder hold(shards_[i].mu);
    shards_[i].buckets.assign(16, nullptr);
  }
}

template <typename P>
BasicPathLock<P>::~BasicPathLock() {
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

template <typename P>
void BasicPathLock<P>::settle(Node* node, std::span<const impl::LockEntry> granted, Waiter*& to_wake) noexcept {
  node->shard->mu.assert_held();
  take_granted(node, granted, to_wake);
  if (node->queue.idle()) {
    clear_slow_holders(node);
    reopen_idle_gate(node);
    node->shard->became_idle(node, options_.max_idle_locks_per_shard,
                             [this](Node* n, GateSweep sweep) { return retire_gate(n, sweep); });
  }
}

// Allocates nothing (the queue keeps room for its waiters' grants), so a
// Guard's noexcept release is honest.
template <typename P>
void BasicPathLock<P>::release_node(Node* node, impl::ModeId mode, impl::TaskId id) {
  Shard& s = *node->shard;
  Waiter* to_wake = nullptr;
  {
    SpinLockHolder hold(s.mu);
    const auto released = node->queue.release_granting(scheme_, id);
    impl::observe<P>(impl::LockEvent::kReleased, node->key, id, mode);
    settle(node, node->queue.last_granted(released.count), to_wake);
  }
  wake_all(to_wake);
}

template <typename P>
template <typename MakeWaiter>
typename BasicPathLock<P>::StepResult BasicPathLock<P>::take_step(const impl::StepView& step, Guard& guard,
                                                                  Node*& node, MakeWaiter&& make_waiter,
                                                                  GateRetry retry) {
  const std::uint64_t hash = impl::path_hash(step.lock);
  const bool gate_mode = ((gates_->any_mode >> step.mode.index) & 1U) != 0;
  if (gate_mode && retry == GateRetry::kTry && try_fast(step.lock, hash, step.mode, guard)) {
    return StepResult::kGranted;
  }
  Shard& s = shard_for(hash);
  SpinLockHolder hold(s.mu);
  node = s.find_or_create(step.lock, hash, options_.max_idle_locks_per_shard,
                          [this](Node* n, GateSweep sweep) { return retire_gate(n, sweep); });  // strong guarantee
  try {
    const std::uint32_t admitted = Gates::admitted(node->gate->word.load(std::memory_order_relaxed));
    // An exclusive gate closes for every slow step: its fast holder, if
    // any, is no holder of the queue until the close makes it one.
    const bool joins_open_gate = ((admitted >> step.mode.index) & 1U) != 0 && !gates_->exclusive(admitted);
    if (!joins_open_gate) close_gate(node);  // strong guarantee; nothing to do if closed
    // Room, before the grant, for the pseudo holds of a gate this step may
    // open: closing it later (even to evict the entry) never allocates.
    if (gate_mode) node->queue.reserve_holders(1 + gates_->widest);
    // A slow holder beside an open shared gate shuts out takes of its word;
    // a mode taken already closes it, and this step queues behind that
    // hold (the close allocates nothing: room was kept just above).
    if (joins_open_gate && !mark_slow_holders(node)) close_gate(node);
    if (node->queue.try_acquire(scheme_, guard.id_, step.mode)) {
      impl::observe<P>(impl::LockEvent::kGranted, node->key, guard.id_, step.mode);
      guard.push(node, step.mode);  // within the room the caller reserved
      if (gate_mode) {
        maybe_open_gate(node, step.mode);
        // The next acquire here may take the fast path: a folder's at once,
        // a target's if its gate was open already and the cache lets it in.
        const bool folder = ((gates_->ancestor_modes >> step.mode.index) & 1U) != 0;
        if (folder || (admitted != 0 && admit_target_to_gate_cache(hash))) {
          remember_gate(step.lock, hash, node->gate, Gates::generation(node->gate->word.load(std::memory_order_relaxed)));
        }
      }
      return StepResult::kGranted;
    }
    if (Waiter* waiting = make_waiter()) {
      node->sleepers.reserve(node->sleepers.size() + 1);  // before queueing: no waiter without a sleeper
      node->queue.acquire(scheme_, guard.id_, step.mode);  // queues: try_acquire said so
      node->sleepers.emplace_back(guard.id_, waiting);
      waiting->entry_grants = &node->grants;  // the entry outlives the wait: it queues us
      impl::observe<P>(impl::LockEvent::kQueued, node->key, guard.id_, step.mode);
      return StepResult::kQueued;
    }
  } catch (...) {
    // Out of memory: nothing of this step is held or queued. Leave the
    // entry as a release would (listed if idle, the gate reopened if we
    // closed it); the caller rolls back the earlier steps.
    Waiter* none = nullptr;
    settle(node, {}, none);
    throw;
  }
  Waiter* none = nullptr;
  settle(node, {}, none);  // lists the entry (and reopens a gate we closed) if idle
  return StepResult::kMustWait;
}

template <typename P>
[[gnu::noinline]] typename BasicPathLock<P>::SlowRest BasicPathLock<P>::take_rest_slowly(
    const model::Request& request, WaitPolicy policy, typename Clock::time_point deadline, StopToken& stop,
    const FastStart& start, impl::ScratchSteps& scratch, AcquireStatus blocked_status, Guard& guard) {
  const std::size_t fast = start.held;
  // A wait that cannot end early (no deadline, no stop) may queue at an
  // exclusive gate: a path written in turn hands over without its shard.
  const bool may_queue_at_gate = policy == WaitPolicy::kForever && !stop.stop_possible() &&
                                 gates_->exclusive_modes != 0;
  // A memo hit's last step, unplanned: it queues at the gate the memo
  // knows, and is planned only if it cannot (the gate closed, or moved).
  if (start.plan == nullptr && may_queue_at_gate &&
      queue_at_gate(start.last_word.step(), guard, &start.last_word) == GateQueue::kGranted) {
    return SlowRest::kHeld;
  }
  const impl::StepBuffer& plan = plan_of(request, start, scratch);
  for (std::size_t i = fast; i < start.planned; ++i) {
    const impl::StepView& step = plan[i];
    if (may_queue_at_gate && gates_->exclusive(1U << step.mode.index) &&
        queue_at_gate(step, guard) == GateQueue::kGranted) {
      continue;
    }
    WaiterSlot waiting;  // constructed only if this step must wait
    Node* node = nullptr;
    const StepResult result = take_step(
        step, guard, node,
        [&]() -> Waiter* {
          if (policy == WaitPolicy::kNever) return nullptr;
          Waiter& w = waiting.emplace();
          w.request = &request;  // read by describe_waits() under the shard lock
          return &w;
        },
        i == fast ? GateRetry::kSkip : GateRetry::kTry);
    if (result == StepResult::kGranted) continue;
    if (result == StepResult::kMustWait) {
      // Outside the shard lock: rolling back takes the shard locks of the held locks.
      guard.release();
      guard.status_ = blocked_status;
      return SlowRest::kEnded;
    }
    Shard& s = *node->shard;
    const AcquireStatus outcome = wait_for_grant(*waiting, policy, deadline, stop);
    if (outcome == AcquireStatus::kGranted) {
      guard.push(node, step.mode);
      continue;
    }
    // Timed out or cancelled: withdraw, unless a grant won the race.
    Waiter* to_wake = nullptr;
    bool grant_won = false;
    {
      SpinLockHolder hold(s.mu);
      grant_won = waiting->granted();
      const auto withdrawn = grant_won ? node->queue.release_granting(scheme_, guard.id_)
                                       : node->queue.cancel_granting(scheme_, guard.id_);
      if (!grant_won) std::erase_if(node->sleepers, [&](const auto& sl) { return sl.first == guard.id_; });
      impl::observe<P>(grant_won ? impl::LockEvent::kReleased : impl::LockEvent::kWithdrawn, node->key, guard.id_,
                       step.mode);
      settle(node, node->queue.last_granted(withdrawn.count), to_wake);
    }
    wake_all(to_wake);
    if (grant_won) {
      // The granting thread may not have woken us yet: wait until it is done
      // with our waiter before it goes out of scope.
      std::unique_lock<typename P::Mutex> sync(waiting->mu);
      while (waiting->state.load(std::memory_order_acquire) != Waiter::State::kWoken) waiting->cv.wait(sync);
    }
    guard.release();
    guard.status_ = outcome;
    return SlowRest::kEnded;
  }
  return SlowRest::kHeld;
}

template <typename P>
typename BasicPathLock<P>::Guard BasicPathLock<P>::acquire_impl(const model::Request& request, WaitPolicy policy,
                                                                typename Clock::time_point deadline,
                                                                StopToken stop) {
  if (options_.unsafe_nesting != UnsafeNesting::kIgnore) check_nesting(request, policy, stop);
  Guard guard(this, P::next_task_id());
  if (stop.stop_requested()) {
    guard.status_ = AcquireStatus::kCancelled;
    return guard;
  }
  // A deadline already past: take what is free now, never wait.
  AcquireStatus blocked_status = AcquireStatus::kWouldBlock;
  if (policy == WaitPolicy::kUntilDeadline) {
    blocked_status = AcquireStatus::kTimedOut;
    if (Clock::now() >= deadline) policy = WaitPolicy::kNever;
  }
  impl::ScratchSteps scratch;
  // The steps this thread can take through open gates, with one fence.
  const FastStart start = start_fast(request, scratch, guard);
  if (start.held < start.planned &&
      take_rest_slowly(request, policy, deadline, stop, start, scratch, blocked_status, guard) == SlowRest::kEnded) {
    return guard;
  }
  if (options_.unsafe_nesting != UnsafeNesting::kIgnore) {
    try {
      record_held(guard.id_, request);
    } catch (...) {
      guard.release();  // out of memory: the acquire fails holding nothing
      throw;
    }
  }
  return guard;
}

template <typename P>
typename BasicPathLock<P>::Guard BasicPathLock<P>::acquire(const model::Request& request) {
  return acquire_impl(request, WaitPolicy::kForever, {}, {});
}
template <typename P>
typename BasicPathLock<P>::Guard BasicPathLock<P>::acquire(const model::Request& request, StopToken stop) {
  return acquire_impl(request, WaitPolicy::kForever, {}, std::move(stop));
}
template <typename P>
typename BasicPathLock<P>::Guard BasicPathLock<P>::try_acquire(const model::Request& request) {
  return acquire_impl(request, WaitPolicy::kNever, {}, {});
}
template <typename P>
typename BasicPathLock<P>::Guard BasicPathLock<P>::acquire_until(const model::Request& request,
                                                                 typename Clock::time_point deadline,
                                                                 StopToken stop) {
  return acquire_impl(request, WaitPolicy::kUntilDeadline, deadline, std::move(stop));
}

template <typename P>
typename BasicPathLock<P>::Guard BasicPathLock<P>::read(const model::Path& path) {
  return acquire(model::read(path).request());
}
template <typename P>
typename BasicPathLock<P>::Guard BasicPathLock<P>::write(const model::Path& path) {
  return acquire(model::write(path).request());
}
template <typename P>
typename BasicPathLock<P>::Guard BasicPathLock<P>::remove(const model::Path& path) {
  return acquire(model::remove(path).request());
}
template <typename P>
typename BasicPathLock<P>::Guard BasicPathLock<P>::rename(const model::Path& from, const model::Path& to) {
  return acquire(model::rename(from, to).request());
}
template <typename P>
typename BasicPathLock<P>::Guard BasicPathLock<P>::copy(const model::Path& from, const model::Path& to) {
  return acquire(model::copy(from, to).request());
}

// --- Guard -------------------------------------------------------------------

template <typename P>
void BasicPathLock<P>::Guard::push(Node* n, impl::ModeId mode) {
  Held& h = next_held();
  h.node = n;
  h.gate = nullptr;
  h.mode = mode;
}

template <typename P>
[[gnu::noinline]] typename BasicPathLock<P>::Guard::Held& BasicPathLock<P>::Guard::next_held_on_heap() {
  Held& h = heap_.emplace_back();  // within the room reserved before the first step
  ++count_;
  return h;
}

template <typename P>
void BasicPathLock<P>::Guard::release() noexcept {
  if (status_ == AcquireStatus::kGranted && lock_ != nullptr) {
    const HoldResumes hold;  // handlers granted here run once this guard is released
    // Fast holds: their slots and counts cleared as we go, the words taken
    // given back after them, then one fence and each cleared slot's gate
    // looked at (drained if closed meanwhile) at the end. A word given back
    // is a seq_cst read-modify-write after the last clear: on x86, the fence.
    // A contended word (WordsBack::kFirst) goes back before the clears, and
    // they take a fence of their own.
    // (The request's holds end together: the order they are let go in
    // matters to nobody.)
    bool cleared = false;
    std::size_t words = 0;
    const Held* word = nullptr;  // the first word hold met (a one-path write's only one)
    const auto give_back = [&](const Held& h) __attribute__((always_inline)) {
      impl::observe<P>(impl::LockEvent::kReleased, {}, id_, h.mode);
      return lock_->release_exclusive(h.gate, h.mode, h.successor);
    };
    const bool words_first = words_back_ == WordsBack::kFirst;
    if (words_first) {
      // A word others wait for (or lately did): its hold ends here, before
      // the clears below and their fence.
      for_each_held_backwards([&](const Held& h) __attribute__((always_inline)) {
        if (h.gate != nullptr && h.via == FastVia::kWord) give_back(h);
      });
    }
    for_each_held_backwards([&](const Held& h) __attribute__((always_inline)) {
      if (h.gate == nullptr) {
        lock_->release_node(h.node, h.mode, id_);
      } else if (h.via == FastVia::kWord) {
        if (!words_first && words++ == 0) word = &h;  // (given back above, if words_first)
      } else {
        impl::observe<P>(impl::LockEvent::kReleased, {}, id_, h.mode);  // a fast hold knows its gate, not its path
        leave_reader(h.via, h.slot, h.gate, h.mode);
        cleared = true;
      }
    });
    // No clear sinks below a give-back (the compiler's barrier; the
    // machine's is the give-back itself).
    std::atomic_signal_fence(std::memory_order_seq_cst);
    auto ordered = ClearsOrdered::kNotYet;
    const auto give_back_after_clears = [&](const Held& h) __attribute__((always_inline)) {
      if (give_back(h) == WordRelease::kGivenBack) ordered = ClearsOrdered::kByLockedRmw;
    };
    if (words == 1) {
      give_back_after_clears(*word);
    } else if (words > 1) {
      for_each_held_backwards([&](const Held& h) __attribute__((always_inline)) {
        if (h.gate != nullptr && h.via == FastVia::kWord) give_back_after_clears(h);
      });
    }
    if (cleared) {
      lock_->drain_closed_gates(
          [&](auto&& drain) __attribute__((always_inline)) {
            for_each_held_backwards([&](const Held& h) __attribute__((always_inline)) {
              if (h.gate != nullptr && h.via != FastVia::kWord) drain(h.gate);  // a slot's or count's gate
            });
          },
          ordered);
    }
    if (lock_->options_.unsafe_nesting != UnsafeNesting::kIgnore) lock_->forget_held(id_);
    // Cleared before the handlers held back above run: one may assign to
    // this guard.
    count_ = 0;
    heap_.clear();
    status_ = AcquireStatus::kReleased;
    words_back_ = WordsBack::kAfterSlots;
    return;
  }
  count_ = 0;
  heap_.clear();
  status_ = AcquireStatus::kReleased;
  words_back_ = WordsBack::kAfterSlots;
}

template <typename P>
BasicPathLock<P>::Guard::Guard(Guard&& other) noexcept
    : lock_(other.lock_),
      id_(other.id_),
      status_(other.status_),
      words_back_(other.words_back_),
      count_(other.count_),
      heap_(std::move(other.heap_)) {
  std::copy(other.inline_.at, other.inline_.at + std::min(count_, kInline), inline_.at);
  other.count_ = 0;
  other.status_ = AcquireStatus::kReleased;
  other.words_back_ = WordsBack::kAfterSlots;
}

template <typename P>
typename BasicPathLock<P>::Guard& BasicPathLock<P>::Guard::operator=(Guard&& other) noexcept {
  if (this != &other) {
    const HoldResumes hold;  // handlers granted by the release run once this guard holds `other`'s locks
    release();
    lock_ = other.lock_;
    id_ = other.id_;
    status_ = other.status_;
    words_back_ = other.words_back_;
    count_ = other.count_;
    heap_ = std::move(other.heap_);
    std::copy(other.inline_.at, other.inline_.at + std::min(count_, kInline), inline_.at);
    other.count_ = 0;
    other.status_ = AcquireStatus::kReleased;
    other.words_back_ = WordsBack::kAfterSlots;
  }
  return *this;
}

}  // namespace pathlock
