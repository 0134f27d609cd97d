#pragma once
// DeterministicPlatform: the Platform contract (pathlock/impl/platform.hpp)
// on the deterministic runtime. Every operation is a scheduling point that
// records a label and the file:line of the call (a defaulted
// Where argument), so a trace says where each step was.
// Outside a run (building the state before, checking it after) every
// operation is direct.

#include <chrono>
#include <concepts>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include "pathlock/sim/runtime/where.hpp"

#include "pathlock/impl/mutex.hpp"  // the thread-safety annotations
#include "pathlock/sim/runtime/runtime.hpp"
#include "pathlock/sim/runtime/stop.hpp"
#include "pathlock/sim/runtime/sync.hpp"

namespace pathlock::sim::runtime {

namespace detail {
inline void point(const char* what, const Where& where) {
  if (Executor* executor = active_executor()) step(*executor, Operation{.what = what, .where = where});
}
inline void changed() noexcept {
  if (Executor* executor = active_executor()) wrote(*executor);
}
}  // namespace detail

// std::atomic's interface; each operation one step, sequentially consistent.
template <typename T>
class Atomic {

 public:
  Atomic() noexcept : value_{} {}
  Atomic(T value) noexcept : value_(value) {}  // NOLINT(google-explicit-constructor): as std::atomic
  Atomic(const Atomic&) = delete;
  Atomic& operator=(const Atomic&) = delete;

  T load(std::memory_order = std::memory_order_seq_cst, Where where = Where::current()) const noexcept {
    detail::point("load", where);
    return value_;
  }
  void store(T value, std::memory_order = std::memory_order_seq_cst, Where where = Where::current()) noexcept {
    detail::point("store", where);
    value_ = value;
    detail::changed();
  }
  T exchange(T value, std::memory_order = std::memory_order_seq_cst, Where where = Where::current()) noexcept {
    detail::point("exchange", where);
    T old = value_;
    value_ = value;
    detail::changed();
    return old;
  }
  T fetch_add(T delta, std::memory_order = std::memory_order_seq_cst, Where where = Where::current()) noexcept
    requires std::integral<T>
  {
    return modify("fetch_add", where, [delta](T v) { return static_cast<T>(v + delta); });
  }
  T fetch_sub(T delta, std::memory_order = std::memory_order_seq_cst, Where where = Where::current()) noexcept
    requires std::integral<T>
  {
    return modify("fetch_sub", where, [delta](T v) { return static_cast<T>(v - delta); });
  }
  T fetch_or(T bits, std::memory_order = std::memory_order_seq_cst, Where where = Where::current()) noexcept
    requires std::integral<T>
  {
    return modify("fetch_or", where, [bits](T v) { return static_cast<T>(v | bits); });
  }
  T fetch_and(T bits, std::memory_order = std::memory_order_seq_cst, Where where = Where::current()) noexcept
    requires std::integral<T>
  {
    return modify("fetch_and", where, [bits](T v) { return static_cast<T>(v & bits); });
  }
  // Never fails spuriously: the weak form is the strong one.
  bool compare_exchange_strong(T& expected, T desired, std::memory_order = std::memory_order_seq_cst,
                               Where where = Where::current()) noexcept {
    return compare_exchange("compare_exchange", expected, desired, where);
  }
  bool compare_exchange_strong(T& expected, T desired, std::memory_order, std::memory_order,
                               Where where = Where::current()) noexcept {
    return compare_exchange("compare_exchange", expected, desired, where);
  }
  bool compare_exchange_weak(T& expected, T desired, std::memory_order = std::memory_order_seq_cst,
                             Where where = Where::current()) noexcept {
    return compare_exchange("compare_exchange", expected, desired, where);
  }
  bool compare_exchange_weak(T& expected, T desired, std::memory_order, std::memory_order,
                             Where where = Where::current()) noexcept {
    return compare_exchange("compare_exchange", expected, desired, where);
  }

 private:
  template <typename Op>
  T modify(const char* what, const Where& where, Op op) noexcept {
    detail::point(what, where);
    T old = value_;
    value_ = op(old);
    detail::changed();
    return old;
  }
  bool compare_exchange(const char* what, T& expected, T desired, const Where& where) noexcept {
    detail::point(what, where);
    if (value_ == expected) {
      value_ = desired;
      detail::changed();
      return true;
    }
    expected = value_;
    return false;
  }

  T value_;  // touched only by the baton holder (or before/after the run)
};

// The runtime's lock, under two names (the contract's SpinLock and Mutex are
// both runtime-level: a thread blocked on one does not spin).
class PATHLOCK_CAPABILITY("mutex") RuntimeLock {
 public:
  explicit RuntimeLock(const char* kind, Where declared) noexcept {
    state_.kind = kind;
    state_.declared = declared;
  }
  RuntimeLock(const RuntimeLock&) = delete;
  RuntimeLock& operator=(const RuntimeLock&) = delete;
  void lock(Where where = Where::current()) PATHLOCK_ACQUIRE() { detail::lock(state_, where); }
  void unlock(Where where = Where::current()) PATHLOCK_RELEASE() {
    detail::unlock(state_, where);
  }
  void assert_held() const PATHLOCK_ASSERT_CAPABILITY(this) {
    if (!detail::held_by_caller(state_)) std::terminate();  // a lock bug in the code under test
  }
  detail::LockState& state() noexcept { return state_; }

 private:
  detail::LockState state_;
};

class PATHLOCK_CAPABILITY("mutex") SpinLock : public RuntimeLock {
 public:
  explicit SpinLock(Where declared = Where::current()) noexcept
      : RuntimeLock("spin lock", declared) {}
};

class PATHLOCK_CAPABILITY("mutex") Mutex : public RuntimeLock {
 public:
  explicit Mutex(Where declared = Where::current()) noexcept
      : RuntimeLock("mutex", declared) {}
};

// A steady clock that moves only when the strategy lets a deadline pass.
struct VirtualClock {
  using rep = std::int64_t;
  using period = std::nano;
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::time_point<VirtualClock>;
  static constexpr bool is_steady = true;
  static time_point now() noexcept {
    const detail::Executor* executor = detail::active_executor();
    return time_point(executor == nullptr ? duration{} : detail::clock_now(*executor));
  }
};

class CondVar {

 public:
  explicit CondVar(Where declared = Where::current()) noexcept { state_.declared = declared; }
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  void notify_one(Where where = Where::current()) { detail::notify(state_, detail::NotifyMode::kOne, where); }
  void notify_all(Where where = Where::current()) { detail::notify(state_, detail::NotifyMode::kAll, where); }
  void wait(std::unique_lock<Mutex>& held, Where where = Where::current()) {
    detail::wait(state_, held.mutex()->state(), nullptr, where);
  }
  template <typename Predicate>
  void wait(std::unique_lock<Mutex>& held, Predicate ready, Where where = Where::current()) {
    while (!ready()) wait(held, where);
  }
  // A deadline of time_point::max() never passes (a wait "forever").
  std::cv_status wait_until(std::unique_lock<Mutex>& held, VirtualClock::time_point deadline,
                            Where where = Where::current()) {
    const std::chrono::nanoseconds at = deadline.time_since_epoch();
    const bool forever = deadline == VirtualClock::time_point::max();
    return detail::wait(state_, held.mutex()->state(), forever ? nullptr : &at, where);
  }
  template <typename Predicate>
  bool wait_until(std::unique_lock<Mutex>& held, VirtualClock::time_point deadline, Predicate ready,
                  Where where = Where::current()) {
    while (!ready()) {
      if (wait_until(held, deadline, where) == std::cv_status::timeout) return ready();
    }
    return true;
  }

 private:
  detail::CondVarState state_;
};

struct DeterministicPlatform {
  template <typename T>
  using Atomic = runtime::Atomic<T>;
  using SpinLock = runtime::SpinLock;
  using Mutex = runtime::Mutex;
  using CondVar = runtime::CondVar;
  using Clock = VirtualClock;
  using StopToken = runtime::StopToken;
  using StopSource = runtime::StopSource;
  template <typename F>
  using StopCallback = runtime::StopCallback<F>;

  // A spin loop's turn. A thread that spins with nothing changed since its
  // previous turn is not picked while another thread can step, switching
  // away from it is free, and no deadline passes while only such threads
  // can step (otherwise a search never ends, and every turn would be one
  // more place for a timeout).
  static void pause(Where where = Where::current()) { spin_point("pause", where); }
  static void yield(Where where = Where::current()) { spin_point("yield", where); }
  // The virtual clock stands still while a thread spins, so a waiter's
  // spin is bounded by count alone: as many turns as before it went by time.
  static constexpr int kMaxSpinPauses = 256;
  // One round: a spin chained while the entry keeps granting is more
  // pauses and yields, which change no outcome the search judges, only
  // lengthen every schedule (path_lock_spin_test.cpp checks the rule).
  static constexpr int kMaxSpinRounds = 1;
  // A shared gate counts its readers after its first take that finds none
  // (production waits for 4): programs of a few calls reach both kinds of
  // reader, and every switch between them.
  static constexpr int kCalmTakesToCount = 1;
  // The logical thread's index (0 outside a run).
  static std::size_t thread_slot() noexcept {
    const detail::Executor* executor = detail::active_executor();
    return executor == nullptr ? 0 : detail::thread_index(*executor);
  }
  // ((thread + 1) << 32) + the thread's count of ids so far in this run, so
  // that a run's ids do not depend on the OS; outside a run, from a count
  // above every logical thread's range.
  static std::uint64_t next_task_id() noexcept {
    if (detail::Executor* executor = detail::active_executor()) return detail::next_task_id(*executor);
    thread_local std::uint64_t outside = std::uint64_t{kMaxThreads + 1} << 32;
    return outside++;
  }
  // Not a scheduling point: the fact belongs to the step that made it true.
  static void observe(impl::LockEvent event, std::string_view lock, impl::TaskId task, impl::ModeId mode) {
    if (detail::Executor* executor = detail::active_executor()) {
      detail::observe_lock(*executor, {.event = event, .lock = lock, .task = task, .mode = mode});
    }
  }

 private:
  static void spin_point(const char* what, const Where& where) {
    if (detail::Executor* executor = detail::active_executor()) {
      detail::step(*executor, detail::Operation{.what = what, .where = where, .yields = true});
    }
  }
};

}  // namespace pathlock::sim::runtime
