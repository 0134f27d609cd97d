#pragma once
// A std::mutex that clang's -Wthread-safety can reason about (libstdc++'s is
// not annotated), with leveldb-style GUARDED_BY / REQUIRES macros.

#include <mutex>

#if defined(__clang__)
#define PATHLOCK_TSA(x) __attribute__((x))
#else
#define PATHLOCK_TSA(x)
#endif

#define CAPABILITY(x) PATHLOCK_TSA(capability(x))
#define SCOPED_CAPABILITY PATHLOCK_TSA(scoped_lockable)
#define GUARDED_BY(x) PATHLOCK_TSA(guarded_by(x))
#define PT_GUARDED_BY(x) PATHLOCK_TSA(pt_guarded_by(x))
#define REQUIRES(...) PATHLOCK_TSA(requires_capability(__VA_ARGS__))
#define ACQUIRE(...) PATHLOCK_TSA(acquire_capability(__VA_ARGS__))
#define RELEASE(...) PATHLOCK_TSA(release_capability(__VA_ARGS__))
#define EXCLUDES(...) PATHLOCK_TSA(locks_excluded(__VA_ARGS__))
#define NO_THREAD_SAFETY_ANALYSIS PATHLOCK_TSA(no_thread_safety_analysis)

namespace pathlock::impl {

class CAPABILITY("mutex") Mutex {
 public:
  void lock() ACQUIRE() { mu_.lock(); }
  void unlock() RELEASE() { mu_.unlock(); }
  std::mutex& native() { return mu_; }

 private:
  std::mutex mu_;
};

class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ACQUIRE(mu) : mu_(mu) { mu_.lock(); }
  ~MutexLock() RELEASE() { mu_.unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex& mu_;
};

}  // namespace pathlock::impl
