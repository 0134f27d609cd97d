#pragma once
// What pathlock::testing::check_lock needs of a lock: a blocking acquire of a
// request that returns a handle, and a release of that handle. A lock may
// also offer a try-acquire and a timed acquire; the checker then uses them
// too (a failed try or a timeout holds nothing and the task moves on).
//
//   struct MyLockAdapter {
//     using Handle = MyLock::Ticket;                        // movable
//     Handle acquire(const pathlock::model::Request& r);    // blocks until granted
//     void release(Handle handle);
//     // optional:
//     std::optional<Handle> try_acquire(const pathlock::model::Request& r);
//     std::optional<Handle> try_acquire_for(const pathlock::model::Request& r, std::chrono::nanoseconds timeout);
//   };
//
// The adapters below are examples: PathLock with any scheme, and the
// baselines of the benchmarks (a global mutex, a global reader/writer lock,
// and a naive table of per-path locks, which is unsafe for folders).

#include <algorithm>
#include <chrono>
#include <concepts>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <utility>
#include <vector>

#include "pathlock/model/request.hpp"
#include "pathlock/path_lock.hpp"

namespace pathlock::testing {

template <typename L>
concept LockUnderTest = std::movable<typename L::Handle> && requires(L& lock, const model::Request& request,
                                                                     typename L::Handle handle) {
  { lock.acquire(request) } -> std::same_as<typename L::Handle>;
  lock.release(std::move(handle));
};

template <typename L>
concept TryLockUnderTest = LockUnderTest<L> && requires(L& lock, const model::Request& request) {
  { lock.try_acquire(request) } -> std::same_as<std::optional<typename L::Handle>>;
};

template <typename L>
concept TimedLockUnderTest = LockUnderTest<L> && requires(L& lock, const model::Request& request) {
  { lock.try_acquire_for(request, std::chrono::nanoseconds{}) } -> std::same_as<std::optional<typename L::Handle>>;
};

// PathLock with a scheme (a built-in, a scheme file's via
// pathlock::io::load_scheme_file, or a variant). Defective schemes are
// admitted: the checker is there to show what they break.
class PathLockAdapter {
 public:
  using Handle = PathLock::Guard;

  explicit PathLockAdapter(const impl::Scheme& scheme) : scheme_(scheme), lock_(scheme_, options()) {}

  Handle acquire(const model::Request& request) { return lock_.acquire(request); }
  void release(Handle handle) { handle.release(); }
  std::optional<Handle> try_acquire(const model::Request& request) { return granted(lock_.try_acquire(request)); }
  std::optional<Handle> try_acquire_for(const model::Request& request, std::chrono::nanoseconds timeout) {
    return granted(lock_.acquire_for(request, timeout));
  }

  PathLock& lock() noexcept { return lock_; }

 private:
  static PathLockOptions options() {
    PathLockOptions options;
    options.scheme_admission = SchemeAdmission::kAllowDefective;
    return options;
  }
  static std::optional<Handle> granted(Handle guard) {
    if (!guard.owns_lock()) return std::nullopt;
    return std::optional<Handle>(std::move(guard));
  }

  impl::Scheme scheme_;  // PathLock keeps a reference: declared first
  PathLock lock_;
};

// Baseline: one std::mutex for everything. Safe; blocks everything.
class GlobalMutexLock {
 public:
  using Handle = std::unique_lock<std::mutex>;
  Handle acquire(const model::Request&) { return Handle(mutex_); }
  void release(Handle handle) { handle.unlock(); }
  std::optional<Handle> try_acquire(const model::Request&) {
    Handle handle(mutex_, std::try_to_lock);
    if (!handle.owns_lock()) return std::nullopt;
    return std::optional<Handle>(std::move(handle));
  }

 private:
  std::mutex mutex_;
};

// Baseline: one std::shared_mutex; a request that only reads shares it.
// Safe; blocks every writer against everything.
class GlobalSharedMutexLock {
 public:
  struct Handle {
    std::shared_lock<std::shared_mutex> shared;
    std::unique_lock<std::shared_mutex> exclusive;
  };
  Handle acquire(const model::Request& request) {
    if (request.writes().empty()) return Handle{std::shared_lock(mutex_), {}};
    return Handle{{}, std::unique_lock(mutex_)};
  }
  void release(Handle handle) {
    if (handle.shared.owns_lock()) handle.shared.unlock();
    if (handle.exclusive.owns_lock()) handle.exclusive.unlock();
  }

 private:
  std::shared_mutex mutex_;
};

// Baseline, and a lock the checker catches: a table of per-path
// std::shared_mutex under a global mutex, locking the paths a request names
// (shared to read, exclusive to write) in sorted order, and none of their
// ancestors: a write of /a and a write of /a/b hold at once. Entries are
// never removed.
class PerPathTableLock {
 public:
  struct Handle {
    std::vector<std::pair<std::shared_mutex*, bool>> held;  // (lock, exclusive)
  };
  Handle acquire(const model::Request& request) {
    Handle handle;
    for (const auto& [path, exclusive] : planned(request)) {
      std::shared_mutex* lock = entry(path);
      if (exclusive) {
        lock->lock();
      } else {
        lock->lock_shared();
      }
      handle.held.emplace_back(lock, exclusive);
    }
    return handle;
  }
  void release(Handle handle) {
    for (auto it = handle.held.rbegin(); it != handle.held.rend(); ++it) {
      if (it->second) {
        it->first->unlock();
      } else {
        it->first->unlock_shared();
      }
    }
  }

 private:
  static std::vector<std::pair<model::Path, bool>> planned(const model::Request& request) {
    std::map<model::Path, bool> paths;
    for (const auto& p : request.reads()) paths.emplace(p, false);
    for (const auto& p : request.writes()) paths[p] = true;
    return {paths.begin(), paths.end()};
  }
  std::shared_mutex* entry(const model::Path& path) {
    std::lock_guard guard(table_mutex_);
    return &table_[path];
  }
  std::mutex table_mutex_;
  std::map<model::Path, std::shared_mutex> table_;
};

}  // namespace pathlock::testing
