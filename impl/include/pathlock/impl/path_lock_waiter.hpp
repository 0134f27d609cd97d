#pragma once
// BasicPathLock's waiting: a step that must wait spins on its own state
// while its entry's queue moves, then sleeps on its own condition
// variable. A grant comes under the shard lock. A waiter still spinning
// is marked kWoken there, by one compare-exchange, and never touched
// again: the handoff costs the granting thread no mutex and no notify, and
// the waiter no sleep. A waiter that went
// to sleep (kSleeping, set under its mutex) is marked kGranted and, once the
// granting thread has left the shard lock, woken under its mutex (kWoken):
// no blocking call under a spin lock, and a sleeper returns only once it has
// seen kWoken under its mutex, so the waker is done with it before it is
// destroyed. A stop token's callback wakes a sleeper too. Part of the
// template's definitions: include path_lock_definitions.hpp, not this.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>
#include <optional>
#include <span>
#include <vector>

#include "pathlock/impl/lock_queue.hpp"
#include "pathlock/path_lock.hpp"

namespace pathlock {

// One waiting acquisition, on its thread's stack while it waits.
template <typename P>
struct BasicPathLock<P>::Waiter {
  // A waiter spins (pauses, then a few yields) before it sleeps: a lock
  // released within microseconds is handed over without the two context
  // switches of a sleep and a wake-up, and the thread granting it never
  // waits for a sleeper to wake. It spins in rounds of kSpinFor, each at
  // most impl::max_spin_pauses<P>() pauses, and starts another round (up
  // to impl::max_spin_rounds<P>(), yielding once between rounds) while its
  // entry granted somebody during the last one. So a waiter far back in a
  // queue of short holds stays awake however long the queue, and sleeps
  // only once the queue stands still for a round: otherwise one sleeper's
  // wake-up (several microseconds on a virtual machine) stalls the queue
  // long enough that everyone behind it sleeps too, and every later handoff
  // waits for a wake-up (a convoy: 16 threads fell to 3% of one's rate).
  static constexpr auto kSpinFor = std::chrono::microseconds(20);
  static constexpr int kSpinClockEvery = 64;  // pauses between looks at the clock
  static constexpr int kSpinYields = 8;
  // Within a round a waiter also yields every kYieldEvery. With more
  // threads than cores, the thread a FIFO queue hands the lock to next is
  // often one the OS took off its core, and nobody moves until it is back;
  // spinners that kept their cores for whole rounds kept it off that long.
  // Writers of one path on 2 cores (medians of 3 alternated runs): 3
  // threads 0.15 -> 0.38 M/s, 4 threads 0.08 -> 0.36, 8 threads 0.04 ->
  // 0.15; 2 threads 9 either way (a handover between running threads comes
  // before the first yield). FIFO still costs a context switch there.
  static constexpr auto kYieldEvery = std::chrono::microseconds(2);

  enum class State : std::uint8_t {
    kWaiting,   // spinning: a grant marks it kWoken, under the shard lock
    kSleeping,  // set under mu by the waiter before it sleeps
    kGranted,   // granted while asleep (or an async op), under the shard lock; a wake follows
    kWoken,     // the granting thread's last touch of this waiter
  };
  typename P::Mutex mu;
  typename P::CondVar cv;
  Atomic<State> state{};
  bool cancelled = false;           // set by the stop callback, under mu
  Waiter* next_to_wake = nullptr;   // a wake list, while kGranted
  const model::Request* request = nullptr;  // what it acquires, for describe_waits()
  const Atomic<std::uint32_t>* entry_grants = nullptr;  // its entry's Node::grants, set when it queues
  // An async acquisition's waiter: a grant resumes the op (on the granting
  // thread, once it has left the shard lock) instead of waking a thread.
  AsyncOp* async = nullptr;
  bool granted() const noexcept {
    const State now = state.load(std::memory_order_acquire);
    return now == State::kGranted || now == State::kWoken;
  }
};

// Room for a Waiter on the stack, constructed only when a step must wait
// (std::optional<Waiter> would zero its ~100 bytes on every step).
template <typename P>
class BasicPathLock<P>::WaiterSlot {
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

namespace impl {
// Async ops a thread has been granted and not yet resumed.
template <typename Op>
struct ResumeQueue {
  Op* head = nullptr;
  Op* tail = nullptr;
  bool running = false;  // resumes are held back: a loop or a HoldResumes is on this thread's stack
  bool in_handler = false;  // a handler runs on this thread: another one is deferred, never nested
  static ResumeQueue& mine() noexcept {
    thread_local ResumeQueue queue;
    return queue;
  }
};
}  // namespace impl

// Holds this thread's resumes (and so every handler they run) back until
// the outermost scope ends: while it holds an op's mutex (a handler there
// could cancel that op and deadlock on it), while a guard's state is
// changing (a handler that assigns to that guard would lose locks), and
// while a handler runs (so handlers never nest).
template <typename P>
bool BasicPathLock<P>::hold_resumes() noexcept {
  auto& q = impl::ResumeQueue<AsyncOp>::mine();
  if (q.running) return false;
  q.running = true;
  return true;
}

template <typename P>
void BasicPathLock<P>::release_resumes(bool owner) noexcept {
  if (!owner) return;
  auto& q = impl::ResumeQueue<AsyncOp>::mine();
  q.running = false;
  if (q.head != nullptr) run_deferred_resumes();  // mostly none: every release holds resumes
}

template <typename P>
bool BasicPathLock<P>::enter_handler() noexcept {
  impl::ResumeQueue<AsyncOp>::mine().in_handler = true;
  return hold_resumes();
}

template <typename P>
void BasicPathLock<P>::leave_handler(bool owner) noexcept {
  impl::ResumeQueue<AsyncOp>::mine().in_handler = false;
  release_resumes(owner);
}

template <typename P>
class BasicPathLock<P>::HoldResumes {
 public:
  HoldResumes() noexcept : owner_(hold_resumes()) {}
  ~HoldResumes() { release_resumes(owner_); }
  HoldResumes(const HoldResumes&) = delete;
  HoldResumes& operator=(const HoldResumes&) = delete;

 private:
  bool owner_;
};

// Inline: on every release, mostly with nothing to wake.
template <typename P>
inline void BasicPathLock<P>::take_granted(Node* node, std::span<const impl::LockEntry> granted,
                                           Waiter*& to_wake) noexcept {
  std::uint32_t to_waiters = 0;
  for (const auto& g : granted) {
    auto it = std::find_if(node->sleepers.begin(), node->sleepers.end(),
                           [&](const auto& s) { return s.first == g.task; });
    impl::observe<P>(impl::LockEvent::kGranted, node->key, g.task, g.mode);
    if (it == node->sleepers.end()) continue;  // a pseudo holder of the root
    Waiter* w = it->second;
    node->sleepers.erase(it);
    ++to_waiters;
    if (w->async == nullptr) {
      // Still spinning: it sees this and returns; nothing more to do for it.
      auto spinning = Waiter::State::kWaiting;
      if (w->state.compare_exchange_strong(spinning, Waiter::State::kWoken, std::memory_order_acq_rel)) continue;
    }
    w->state.store(Waiter::State::kGranted, std::memory_order_release);
    w->next_to_wake = to_wake;
    to_wake = w;
  }
  // One store per call: the spinners behind watch it move (spin_for_grant).
  if constexpr (impl::max_spin_rounds<P>() > 1) {
    if (to_waiters != 0) {
      node->grants.store(node->grants.load(std::memory_order_relaxed) + to_waiters, std::memory_order_relaxed);
    }
  }
}

template <typename P>
inline void BasicPathLock<P>::wake_all(Waiter* to_wake) noexcept {
  bool deferred = false;
  while (to_wake != nullptr) {
    Waiter* w = to_wake;
    to_wake = w->next_to_wake;  // read first: once woken, w may be gone
    if (w->async != nullptr) {
      defer_resume(w->async);
      deferred = true;
      continue;
    }
    std::lock_guard<typename P::Mutex> hold(w->mu);
    w->state.store(Waiter::State::kWoken, std::memory_order_release);
    w->cv.notify_one();
  }
  // After the threads are woken: resuming an op may run its handler.
  if (deferred) run_deferred_resumes();
}

template <typename P>
template <typename Ready, typename Progress>
bool BasicPathLock<P>::spin_while_queue_moves(Ready&& ready, Progress&& progress) {
  const int pauses = impl::max_spin_pauses<P>();
  static_assert(impl::max_spin_pauses<P>() > 0, "the progress seen is read in a round's first pause");
  std::uint32_t seen = 0;
  for (int round = 0; round < impl::max_spin_rounds<P>(); ++round) {
    if (round > 0) P::yield();  // a core shared with the holder (or the next grantee) is theirs a moment
    const auto round_start = Clock::now();
    const auto spin_until = round_start + Waiter::kSpinFor;
    auto yield_at = round_start + Waiter::kYieldEvery;
    for (int i = 0; i < pauses; ++i) {
      if (ready()) return true;
      // The progress seen as the spin starts, read after the first look:
      // a grant already there costs no fetch of the line others bump.
      if constexpr (impl::max_spin_rounds<P>() > 1) {
        if (round == 0 && i == 0) seen = progress();
      }
      P::pause();
      if ((i + 1) % Waiter::kSpinClockEvery != 0) continue;
      const auto now = Clock::now();
      if (now >= spin_until) break;
      // The core, to a thread the OS took off it (kYieldEvery says why).
      if (now >= yield_at) {
        P::yield();
        yield_at = now + Waiter::kYieldEvery;
      }
    }
    // Another round only if the queue moved during this one.
    if (round + 1 == impl::max_spin_rounds<P>()) break;
    const std::uint32_t now = progress();
    if (now == seen) break;
    seen = now;
  }
  for (int i = 0; i < Waiter::kSpinYields; ++i) {
    if (ready()) return true;
    P::yield();
  }
  // No last look here: a caller that sleeps looks again under its mutex
  // (one look, so one step of a checked schedule, where it always was).
  return false;
}

template <typename P>
bool BasicPathLock<P>::spin_for_grant(const Waiter& waiter) {
  const auto woken = [&waiter] { return waiter.state.load(std::memory_order_acquire) == Waiter::State::kWoken; };
  return spin_while_queue_moves(woken,
                                [&waiter]() -> std::uint32_t {
                                  // No entry to watch: one round (its value never moves).
                                  return waiter.entry_grants != nullptr
                                             ? waiter.entry_grants->load(std::memory_order_relaxed)
                                             : 0;
                                }) ||
         woken();
}

template <typename P>
AcquireStatus BasicPathLock<P>::wait_for_grant(Waiter& waiter, WaitPolicy policy,
                                               typename Clock::time_point deadline, StopToken& stop) {
  // Spin first: on a short critical section the grant comes within
  // microseconds, and a grant to a spinning waiter touches nothing after it.
  if (spin_for_grant(waiter)) return AcquireStatus::kGranted;
  // Then sleep on our own condition variable, outside any shard lock.
  const auto cancel = [&waiter] {
    std::lock_guard<typename P::Mutex> hold(waiter.mu);
    waiter.cancelled = true;
    waiter.cv.notify_one();
  };
  std::optional<typename P::template StopCallback<decltype(cancel)>> on_stop;
  if (stop.stop_possible()) on_stop.emplace(stop, cancel);
  std::unique_lock<typename P::Mutex> wait_lock(waiter.mu);
  // From here a grant wakes us under our mutex; if one came first (kWoken),
  // its thread is done with us.
  auto spinning = Waiter::State::kWaiting;
  if (!waiter.state.compare_exchange_strong(spinning, Waiter::State::kSleeping, std::memory_order_acq_rel)) {
    return AcquireStatus::kGranted;
  }
  const auto woken = [&] { return waiter.state.load(std::memory_order_acquire) == Waiter::State::kWoken; };
  const auto done = [&] { return woken() || waiter.cancelled; };
  while (!done()) {
    if (policy == WaitPolicy::kForever) {
      waiter.cv.wait(wait_lock);
    } else if (waiter.cv.wait_until(wait_lock, deadline) == std::cv_status::timeout) {
      break;
    }
  }
  if (woken()) return AcquireStatus::kGranted;
  return waiter.cancelled ? AcquireStatus::kCancelled : AcquireStatus::kTimedOut;
}

}  // namespace pathlock
