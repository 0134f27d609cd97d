#pragma once
// BasicPathLock's waiting: a step that must wait spins briefly on its own
// `granted` flag, then sleeps on its own condition variable; the releasing
// thread grants it under the shard lock and wakes it (path_lock.hpp:
// CONCURRENCY). A stop token's callback wakes it too. Part of the template's
// definitions: include path_lock_definitions.hpp, not this.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>
#include <optional>
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

  typename P::Mutex mu;
  typename P::CondVar cv;
  Atomic<bool> granted{};  // stored (true) by the granting thread, under mu
  bool cancelled = false;  // set by the stop callback, under mu
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
inline void BasicPathLock<P>::wake(Node* node, const std::vector<impl::LockEntry>& granted) {
  for (const auto& g : granted) {
    auto it = std::find_if(node->sleepers.begin(), node->sleepers.end(),
                           [&](const auto& s) { return s.first == g.task; });
    if (it == node->sleepers.end()) continue;
    Waiter* w = it->second;
    node->sleepers.erase(it);
    // Under the waiter's mutex: the waiter takes it once after it sees
    // `granted`, so it cannot return and destroy itself before we are done.
    std::lock_guard<typename P::Mutex> hold(w->mu);
    w->granted.store(true, std::memory_order_release);
    w->cv.notify_one();
  }
}

template <typename P>
AcquireStatus BasicPathLock<P>::wait_for_grant(Waiter& waiter, WaitPolicy policy,
                                               typename Clock::time_point deadline, StopToken& stop) {
  // Spin first: on a short critical section the grant comes within microseconds.
  for (int i = 0; i < Waiter::kSpinPauses + Waiter::kSpinYields; ++i) {
    if (waiter.granted.load(std::memory_order_acquire)) {
      // Wait until the granting thread has let go of our mutex.
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
  const auto done = [&] { return waiter.granted.load(std::memory_order_relaxed) || waiter.cancelled; };
  while (!done()) {
    if (policy == WaitPolicy::kForever) {
      waiter.cv.wait(wait_lock);
    } else if (waiter.cv.wait_until(wait_lock, deadline) == std::cv_status::timeout) {
      break;
    }
  }
  if (waiter.granted.load(std::memory_order_relaxed)) return AcquireStatus::kGranted;
  return waiter.cancelled ? AcquireStatus::kCancelled : AcquireStatus::kTimedOut;
}

}  // namespace pathlock
