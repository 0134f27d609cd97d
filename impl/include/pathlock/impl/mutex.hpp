#pragma once
// Mutexes that clang's -Wthread-safety can reason about (libstdc++'s are not
// annotated), with leveldb-style PATHLOCK_GUARDED_BY / PATHLOCK_REQUIRES macros (prefixed, so
// they never clash with abseil's or leveldb's own).
//
//   Mutex     a std::mutex: sleeps when contended.
//   SpinLock  test-and-test-and-set, for critical sections of a few hundred
//             instructions that never block: one atomic exchange to lock and
//             a plain release store to unlock (a std::mutex unlock is a second
//             read-modify-write). Spins with a pause, then yields the CPU, so
//             a preempted holder does not burn its waiters' time slices.

#include <atomic>
#include <cassert>
#include <mutex>
#include <thread>

#if defined(__clang__)
#define PATHLOCK_TSA(x) __attribute__((x))
#else
#define PATHLOCK_TSA(x)
#endif

#define PATHLOCK_CAPABILITY(x) PATHLOCK_TSA(capability(x))
#define PATHLOCK_SCOPED_CAPABILITY PATHLOCK_TSA(scoped_lockable)
#define PATHLOCK_GUARDED_BY(x) PATHLOCK_TSA(guarded_by(x))
#define PATHLOCK_PT_GUARDED_BY(x) PATHLOCK_TSA(pt_guarded_by(x))
#define PATHLOCK_REQUIRES(...) PATHLOCK_TSA(requires_capability(__VA_ARGS__))
#define PATHLOCK_ACQUIRE(...) PATHLOCK_TSA(acquire_capability(__VA_ARGS__))
#define PATHLOCK_RELEASE(...) PATHLOCK_TSA(release_capability(__VA_ARGS__))
#define PATHLOCK_EXCLUDES(...) PATHLOCK_TSA(locks_excluded(__VA_ARGS__))
#define PATHLOCK_NO_THREAD_SAFETY_ANALYSIS PATHLOCK_TSA(no_thread_safety_analysis)
#define PATHLOCK_ASSERT_CAPABILITY(x) PATHLOCK_TSA(assert_capability(x))

namespace pathlock::impl {

class PATHLOCK_CAPABILITY("mutex") Mutex {
 public:
  void lock() PATHLOCK_ACQUIRE() { mu_.lock(); }
  void unlock() PATHLOCK_RELEASE() { mu_.unlock(); }
  std::mutex& native() { return mu_; }

 private:
  std::mutex mu_;
};

// A hint to the CPU that this thread spins (x86 PAUSE; nothing elsewhere).
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

class PATHLOCK_CAPABILITY("mutex") SpinLock {
 public:
  void lock() PATHLOCK_ACQUIRE() {
    while (locked_.exchange(true, std::memory_order_acquire)) {
      for (unsigned spins = 0; locked_.load(std::memory_order_relaxed); ++spins) {
        if (spins < kSpinsBeforeYield) {
          cpu_relax();
        } else {
          std::this_thread::yield();
        }
      }
    }
  }
  void unlock() PATHLOCK_RELEASE() { locked_.store(false, std::memory_order_release); }
  // Tells the analysis that the caller holds the lock where it cannot follow
  // (the lock reached through a pointer); checks, in debug builds, that
  // somebody does.
  void assert_held() const PATHLOCK_ASSERT_CAPABILITY(this) { assert(locked_.load(std::memory_order_relaxed)); }

 private:
  static constexpr unsigned kSpinsBeforeYield = 128;
  std::atomic<bool> locked_{false};
};

// RAII holder for Mutex or SpinLock.
template <typename M>
class PATHLOCK_SCOPED_CAPABILITY Locked {
 public:
  explicit Locked(M& mu) PATHLOCK_ACQUIRE(mu) : mu_(mu) { mu_.lock(); }
  ~Locked() PATHLOCK_RELEASE() { mu_.unlock(); }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;

 private:
  M& mu_;
};
using MutexLock = Locked<Mutex>;
using SpinLockHolder = Locked<SpinLock>;

}  // namespace pathlock::impl
