// BasicPathLock on a platform other than StdPlatform: every type of the
// contract (impl/platform.hpp) is a distinct wrapper that counts its uses,
// and the clock is a clock of its own. The lock compiles against exactly the
// contract (no std::atomic, std::mutex or steady_clock assumed behind P's
// back), and its atomics, spin locks, waits, wake-ups, stop callbacks, task
// ids and counter stripes all go through P: the deterministic runtime sees
// every one of them.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <thread>

#include "pathlock/impl/path_lock_definitions.hpp"
#include "pathlock/path_lock.hpp"
#include "support/path_lock_support.hpp"
#include "support/test_clock.hpp"
#include "support/watchdog.hpp"

// Named, not anonymous: the lock is explicitly instantiated on this
// platform below, which needs its members to have external linkage.
namespace pathlock::platform_test {

// Uses of each part of the platform, over all locks of this test binary.
struct Uses {
  std::atomic<long> atomic_ops{0};
  std::atomic<long> spin_locks{0};
  std::atomic<long> mutex_locks{0};
  std::atomic<long> waits{0};
  std::atomic<long> notifies{0};
  std::atomic<long> clock_reads{0};
  std::atomic<long> stop_callbacks{0};
  std::atomic<long> pauses{0};
  std::atomic<long> thread_slots{0};
  std::atomic<long> task_ids{0};
};
Uses g_uses;

struct CountingPlatform {
  template <typename T>
  class Atomic {
   public:
    T load(std::memory_order order = std::memory_order_seq_cst) const noexcept {
      count();
      return v_.load(order);
    }
    void store(T value, std::memory_order order = std::memory_order_seq_cst) noexcept {
      count();
      v_.store(value, order);
    }
    T exchange(T value, std::memory_order order = std::memory_order_seq_cst) noexcept {
      count();
      return v_.exchange(value, order);
    }
    T fetch_add(T delta, std::memory_order order = std::memory_order_seq_cst) noexcept {
      count();
      return v_.fetch_add(delta, order);
    }
    T fetch_sub(T delta, std::memory_order order = std::memory_order_seq_cst) noexcept {
      count();
      return v_.fetch_sub(delta, order);
    }
    T fetch_and(T bits, std::memory_order order = std::memory_order_seq_cst) noexcept {
      count();
      return v_.fetch_and(bits, order);
    }
    bool compare_exchange_strong(T& expected, T desired, std::memory_order order = std::memory_order_seq_cst) noexcept {
      count();
      return v_.compare_exchange_strong(expected, desired, order);
    }
    bool compare_exchange_weak(T& expected, T desired, std::memory_order order = std::memory_order_seq_cst) noexcept {
      count();
      return v_.compare_exchange_weak(expected, desired, order);
    }

   private:
    static void count() noexcept { g_uses.atomic_ops.fetch_add(1, std::memory_order_relaxed); }
    std::atomic<T> v_{};
  };

  class PATHLOCK_CAPABILITY("mutex") SpinLock {
   public:
    // The analysis checks the lock's use of this capability, not the
    // wrapper's own body.
    void lock() PATHLOCK_ACQUIRE() PATHLOCK_NO_THREAD_SAFETY_ANALYSIS {
      g_uses.spin_locks.fetch_add(1, std::memory_order_relaxed);
      mu_.lock();
    }
    void unlock() PATHLOCK_RELEASE() PATHLOCK_NO_THREAD_SAFETY_ANALYSIS { mu_.unlock(); }
    void assert_held() const PATHLOCK_ASSERT_CAPABILITY(this) {}

   private:
    impl::SpinLock mu_;
  };

  class Mutex {
   public:
    void lock() {
      g_uses.mutex_locks.fetch_add(1, std::memory_order_relaxed);
      mu_.lock();
    }
    void unlock() { mu_.unlock(); }

   private:
    std::mutex mu_;
  };

  // A steady clock of its own (its time_point is not steady_clock's).
  struct CountedSteadyNow {
    std::chrono::nanoseconds::rep operator()() const noexcept {
      g_uses.clock_reads.fetch_add(1, std::memory_order_relaxed);
      return std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::steady_clock::now().time_since_epoch())
          .count();
    }
  };
  using Clock = testing_support::TestClock<CountedSteadyNow>;

  class CondVar {
   public:
    void notify_one() {
      g_uses.notifies.fetch_add(1, std::memory_order_relaxed);
      cv_.notify_one();
    }
    void wait(std::unique_lock<Mutex>& lock) {
      g_uses.waits.fetch_add(1, std::memory_order_relaxed);
      cv_.wait(lock);
    }
    std::cv_status wait_until(std::unique_lock<Mutex>& lock, Clock::time_point deadline) {
      g_uses.waits.fetch_add(1, std::memory_order_relaxed);
      return cv_.wait_until(lock, std::chrono::steady_clock::time_point(deadline.time_since_epoch()));
    }

   private:
    std::condition_variable_any cv_;
  };

  using StopToken = std::stop_token;
  template <typename F>
  class StopCallback {
   public:
    StopCallback(const StopToken& token, F f) : callback_(token, std::move(f)) {
      g_uses.stop_callbacks.fetch_add(1, std::memory_order_relaxed);
    }

   private:
    std::stop_callback<F> callback_;
  };

  static void pause() noexcept { g_uses.pauses.fetch_add(1, std::memory_order_relaxed); }
  static void yield() noexcept { std::this_thread::yield(); }
  static std::size_t thread_slot() noexcept {
    g_uses.thread_slots.fetch_add(1, std::memory_order_relaxed);
    return impl::StdPlatform::thread_slot();
  }
  static impl::TaskId next_task_id() noexcept {
    g_uses.task_ids.fetch_add(1, std::memory_order_relaxed);
    return impl::StdPlatform::next_task_id();
  }
};

}  // namespace pathlock::platform_test

// Every member, used here or not, compiles against the contract alone.
template class pathlock::BasicPathLock<pathlock::platform_test::CountingPlatform>;

namespace pathlock {
namespace {

using namespace std::chrono_literals;
using model::Path;
using platform_test::g_uses;
using testing_support::current_test_name;
using testing_support::eventually;
using testing_support::ThreadPhase;
using testing_support::Watchdog;
using CountingLock = BasicPathLock<platform_test::CountingPlatform>;

Path P(std::string_view s) { return Path::parse(s); }

TEST(PathLockPlatform, EveryPartOfTheContractIsUsedThroughThePlatform) {
  CountingLock lock(impl::path_rwa_joined_scheme());
  Watchdog watchdog(current_test_name());
  watchdog.watch("lock", lock);  // describe_waits() compiles against the contract too
  const long ids_before = g_uses.task_ids.load();
  // Uncontended: the first time under the shards' spin locks (opening the
  // gates), the second through the gates (a slot in the thread's block).
  lock.read(P("/a/b")).release();
  lock.read(P("/a/b")).release();
  EXPECT_EQ(g_uses.task_ids.load() - ids_before, 2);
  EXPECT_GT(g_uses.atomic_ops.load(), 0);
  EXPECT_GT(g_uses.spin_locks.load(), 0);
  EXPECT_GT(g_uses.thread_slots.load(), 0);
  // A deadline already past is read on the platform's clock.
  const long clock_before = g_uses.clock_reads.load();
  EXPECT_TRUE(lock.acquire_until(model::write(P("/a")).request(), CountingLock::Clock::now() - 1s));
  EXPECT_GT(g_uses.clock_reads.load(), clock_before);
  // A waiter spins (pause), sleeps on its condition variable with a stop
  // callback, and is woken under its mutex by the releasing thread.
  auto holder = lock.write(P("/a"));
  std::stop_source stop;
  std::atomic<bool> granted{false};
  const auto write_below = model::write(P("/a/b")).request();
  auto& waiter_note = watchdog.thread("waiter");
  std::thread waiter([&] {
    waiter_note.at(ThreadPhase::kAcquiring, write_below);
    granted = lock.acquire(write_below, stop.get_token()).owns_lock();
    waiter_note.at(ThreadPhase::kDone);
  });
  ASSERT_TRUE(eventually([&] { return lock.waiting_acquisitions() == 1 && g_uses.waits.load() > 0; }))
      << "the waiter never slept on the platform's condition variable";
  EXPECT_GT(g_uses.pauses.load(), 0);
  EXPECT_EQ(g_uses.stop_callbacks.load(), 1);
  EXPECT_EQ(lock.check_invariants(), "");
  holder.release();
  waiter.join();
  EXPECT_TRUE(granted.load());
  EXPECT_GT(g_uses.notifies.load(), 0);
  EXPECT_GT(g_uses.mutex_locks.load(), 0);
  // A timed wait runs out on the platform's clock and condition variable.
  auto again = lock.write(P("/a"));
  EXPECT_EQ(lock.acquire_for(model::read(P("/a")).request(), 5ms).status(), AcquireStatus::kTimedOut);
  again.release();
  EXPECT_EQ(lock.active_locks(), 0u);
  EXPECT_EQ(lock.check_invariants(), "");
}

}  // namespace
}  // namespace pathlock
