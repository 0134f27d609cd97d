#pragma once
// BasicPathLock's waiting: a step that must wait spins briefly on its own
// state, then sleeps on its own condition variable. The releasing thread
// grants it under the shard lock (state kGranted) and, once it has left the
// shard lock, wakes it under the waiter's mutex (state kWoken): no blocking
// call under a spin lock. A waiter returns only once it is kWoken and has
// taken its mutex once, so the waker is done with it before it is
// destroyed. A stop token's callback wakes it too. Part of the template's
// definitions: include path_lock_definitions.hpp, not this.

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
  // A waiter spins this many pauses, then yields this many times, before it
  // sleeps: a lock released within a few microseconds is handed over without
  // the two context switches of a sleep and a wake-up.
  static constexpr int kSpinPauses = 256;
  static constexpr int kSpinYields = 8;

  enum class State : std::uint8_t {
    kWaiting,
    kGranted,  // set under the shard lock by the granting thread
    kWoken,    // set under mu by the waking thread, its last touch of this waiter
  };
  typename P::Mutex mu;
  typename P::CondVar cv;
  Atomic<State> state{};
  bool cancelled = false;           // set by the stop callback, under mu
  Waiter* next_to_wake = nullptr;   // a wake list, while kGranted
  const model::Request* request = nullptr;  // what it acquires, for describe_waits()
  // An async acquisition's waiter: a grant resumes the op (on the granting
  // thread, once it has left the shard lock) instead of waking a thread.
  AsyncOp* async = nullptr;
  bool granted() const noexcept { return state.load(std::memory_order_acquire) != State::kWaiting; }
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

// Inline: on every release, mostly with nothing to wake.
template <typename P>
inline void BasicPathLock<P>::take_granted(Node* node, std::span<const impl::LockEntry> granted,
                                           Waiter*& to_wake) noexcept {
  for (const auto& g : granted) {
    auto it = std::find_if(node->sleepers.begin(), node->sleepers.end(),
                           [&](const auto& s) { return s.first == g.task; });
    impl::observe<P>(impl::LockEvent::kGranted, node->key, g.task, g.mode);
    if (it == node->sleepers.end()) continue;  // a pseudo holder of the root
    Waiter* w = it->second;
    node->sleepers.erase(it);
    w->state.store(Waiter::State::kGranted, std::memory_order_release);
    w->next_to_wake = to_wake;
    to_wake = w;
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
AcquireStatus BasicPathLock<P>::wait_for_grant(Waiter& waiter, WaitPolicy policy,
                                               typename Clock::time_point deadline, StopToken& stop) {
  // Spin first: on a short critical section the grant comes within microseconds.
  for (int i = 0; i < Waiter::kSpinPauses + Waiter::kSpinYields; ++i) {
    if (waiter.state.load(std::memory_order_acquire) == Waiter::State::kWoken) {
      // Wait until the waking thread has let go of our mutex.
      std::lock_guard<typename P::Mutex> sync(waiter.mu);
      return AcquireStatus::kGranted;
    }
    if (i < Waiter::kSpinPauses) {
      P::pause();
    } else {
      P::yield();
    }
  }
  // Then sleep on our own condition variable, outside any shard lock.
  const auto cancel = [&waiter] {
    std::lock_guard<typename P::Mutex> hold(waiter.mu);
    waiter.cancelled = true;
    waiter.cv.notify_one();
  };
  std::optional<typename P::template StopCallback<decltype(cancel)>> on_stop;
  if (stop.stop_possible()) on_stop.emplace(stop, cancel);
  std::unique_lock<typename P::Mutex> wait_lock(waiter.mu);
  const auto woken = [&] { return waiter.state.load(std::memory_order_relaxed) == Waiter::State::kWoken; };
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
