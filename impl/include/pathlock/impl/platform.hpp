#pragma once
// What PathLock needs from the machine, gathered in one type, so that the
// same lock code runs on real threads in production and one step at a time
// under the harness's deterministic runtime (sim/runtime/), which makes every
// atomic operation, lock, wait and notify a scheduling point. The model is
// folly's SharedMutexImpl<..., Atom> and DeterministicSchedule.
//
// A Platform P provides:
//
//   template <class T> P::Atomic       std::atomic<T>'s load/store/exchange/
//                                      fetch_add/fetch_sub/fetch_and/
//                                      compare_exchange_*,
//                                      default-constructed to T{}.
//   P::SpinLock                        lock(), unlock(), assert_held(); a
//                                      CAPABILITY for -Wthread-safety. Held
//                                      only for short steps that never block.
//   P::Mutex                           lock(), unlock() (used with
//                                      std::unique_lock / std::lock_guard).
//   P::CondVar                         notify_one(),
//                                      wait(std::unique_lock<P::Mutex>&),
//                                      wait_until(std::unique_lock<P::Mutex>&,
//                                        P::Clock::time_point) -> std::cv_status.
//   P::Clock                           a steady clock: now(), time_point,
//                                      duration.
//   P::StopToken                       stop_requested(), stop_possible();
//                                      default-constructed: no stop possible.
//   template <class F> P::StopCallback constructed from (P::StopToken, F):
//                                      runs F once when stop is requested
//                                      (at once if it already was); its
//                                      destructor waits for a running F.
//   P::pause()                         one turn of a spin loop.
//   P::yield()                         give the CPU away (a spin loop's
//                                      second phase).
//   P::thread_slot()                   a small number fixed for the calling
//                                      thread's life, distinct among live
//                                      threads, best kept below the most
//                                      threads alive at once (picks its
//                                      block of gate slots, which only it
//                                      sets; beyond 127: no fast path).
//   P::next_task_id()                  an id never returned before to any
//                                      thread of this process (>= 2^16).
//   P::observe(LockEvent, lock, task, mode)
//                                      optional: a fact about one lock's
//                                      queue, told as it happens (below);
//                                      StdPlatform has none: nothing is
//                                      told, and no fact's lock is named.
//   P::kMaxSpinPauses                  optional: the most pauses a waiter
//                                      spins before it yields and sleeps
//                                      (default 1 << 14; it stops sooner,
//                                      after 20 us by P::Clock). A platform
//                                      whose clock stands still while a
//                                      thread spins sets a small one.
//   P::kMaxSpinRounds                  optional: the most such spins
//                                      (rounds) a waiter chains while the
//                                      entry it waits on keeps granting
//                                      (default 64; 1: never more than one)
//   P::kCalmTakesToCount               optional: how many takes in a row of
//                                      a shared gate's word that find no
//                                      reader's slot move its readers to
//                                      counts (default 4; a checker sets 1
//                                      so that short programs reach it)
//
// The lock on a platform is BasicPathLock<P> (pathlock/path_lock.hpp); one
// translation unit instantiates it with
//   #include "pathlock/impl/path_lock_definitions.hpp"
//   template class pathlock::BasicPathLock<P>;
// and the lock's thread_local scratch buffers assume one OS thread per
// logical thread (a thread blocks inside an acquire while it waits).
//
// Allocation is not part of the interface: the harness injects allocation
// failures by replacing operator new in its own binaries, so every
// allocation the lock makes (its own and the standard library's on its
// behalf) is a point where a failure can be injected.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <stop_token>
#include <string_view>
#include <thread>

#include "pathlock/impl/lock_queue.hpp"  // TaskId
#include "pathlock/impl/mutex.hpp"
#include "pathlock/impl/thread_slots.hpp"

namespace pathlock::impl {

// What the lock tells P::observe, each at the point where it becomes true
// (under the lock's shard lock, or right after a gate's slot changed), so
// that a checker can keep each lock's arrival order itself and judge every
// grant against it (check-lock's FIFO property). `lock` is the lock's path
// text ("/" for the root), except for the release of a fast hold, which
// knows its gate, not its path (empty); the task is an acquisition's id, or
// a gate's pseudo holder's (below 2^16).
enum class LockEvent : std::uint8_t {
  kAsked,      // a gate's fast path published the task as a holder; a
               // kGranted (the gate was open) or kWithdrawn (it was not) follows
  kQueued,     // the task waits on the lock in the mode
  kQueuedAtGate,  // the task waits in the lock's exclusive gate's own queue;
                  // the gate's pseudo holder stands for it if the gate closes
  kGranted,    // the task holds the lock in the mode (at once, as a waiter, or fast)
  kWithdrawn,  // the task left without the lock (timeout, stop, or a closed gate)
  kReleased,   // the task let go of the lock it held
};

// Real threads, real time: the production platform.
struct StdPlatform {
  template <typename T>
  using Atomic = std::atomic<T>;
  using SpinLock = impl::SpinLock;
  using Mutex = std::mutex;
  using CondVar = std::condition_variable;
  using Clock = std::chrono::steady_clock;
  using StopToken = std::stop_token;
  template <typename F>
  using StopCallback = std::stop_callback<F>;

  static void pause() noexcept { cpu_relax(); }
  static void yield() noexcept { std::this_thread::yield(); }
  // The least number no live thread holds (recycled at thread exit).
  static std::size_t thread_slot() noexcept { return this_thread_slot(); }
  // Each thread takes blocks of 2^16 ids from a shared 64-bit counter, so
  // the hot path touches no shared cache line; ids below 2^16 are left to
  // the lock's pseudo tasks.
  static TaskId next_task_id() noexcept {
    static std::atomic<TaskId> blocks{TaskId{1} << 16};
    thread_local TaskId next = 0;
    thread_local TaskId end = 0;
    if (next == end) {
      next = blocks.fetch_add(TaskId{1} << 16, std::memory_order_relaxed);
      end = next + (TaskId{1} << 16);
    }
    return next++;
  }
  // (No observe: nothing to tell in production.)
};

// The most pauses a waiter spins: P::kMaxSpinPauses where P has one.
template <typename P>
constexpr int max_spin_pauses() noexcept {
  if constexpr (requires { P::kMaxSpinPauses; }) {
    return P::kMaxSpinPauses;
  } else {
    return 1 << 14;
  }
}

// The most spin rounds a waiter chains while its entry keeps granting:
// P::kMaxSpinRounds where P has one.
template <typename P>
constexpr int max_spin_rounds() noexcept {
  if constexpr (requires { P::kMaxSpinRounds; }) {
    return P::kMaxSpinRounds;
  } else {
    return 64;
  }
}

// Takes in a row that find no reader before a gate counts its readers:
// P::kCalmTakesToCount where P has one.
template <typename P>
constexpr int calm_takes_to_count() noexcept {
  if constexpr (requires { P::kCalmTakesToCount; }) {
    return P::kCalmTakesToCount;
  } else {
    return 4;
  }
}

// Whether P is told the lock's facts (it has P::observe). If not, the lock
// need not even name the lock a fact is about (a memo hit builds no key).
template <typename P>
inline constexpr bool kObserved = requires(LockEvent event, std::string_view lock, TaskId task, ModeId mode) {
  P::observe(event, lock, task, mode);
};

// How the lock tells P a fact: through P::observe where P has one, else not at all.
template <typename P>
inline void observe(LockEvent event, std::string_view lock, TaskId task, ModeId mode) {
  if constexpr (kObserved<P>) P::observe(event, lock, task, mode);
}

// Whether a seq_cst read-modify-write (a compare-exchange, failed or not, a
// fetch_add, an exchange) is a full fence on this machine: it orders every
// load and store before it before every one after it, as a seq_cst fence
// does. True on x86, where each is one locked instruction, and locked
// instructions are full barriers (Intel SDM vol. 3, 9.2.2: reads and writes
// are not reordered with locked instructions). The C++ memory model does not
// say so for accesses to other objects; the fast path relies on it only
// through fence_beside_locked_rmw, as Linux does (smp_mb__after_atomic() is
// a compiler barrier on x86).
inline constexpr bool kLockedRmwIsFence =
#if defined(__x86_64__) || defined(__i386__)
    true;
#else
    false;
#endif

// A seq_cst fence for a caller that issues a seq_cst read-modify-write right
// beside it (just before, or just after, with no access between that the
// fence must order): the compiler's alone where that read-modify-write is the
// machine's fence (kLockedRmwIsFence), a real one elsewhere. A caller that
// fences before the read-modify-write keeps later accesses below it with
// std::atomic_signal_fence. On x86 a fast write's acquire and release each
// issue one fence fewer.
inline void fence_beside_locked_rmw() noexcept {
  if constexpr (kLockedRmwIsFence) {
    std::atomic_signal_fence(std::memory_order_seq_cst);
  } else {
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
}

}  // namespace pathlock::impl
