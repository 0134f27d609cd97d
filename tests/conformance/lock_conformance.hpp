#pragma once
// One conformance suite for every implementation of the lock interface
// (the in-process PathLock, the etcd lock), in the manner of RocksDB's
// lock-manager tests: the same typed tests, instantiated once per backend
// (conformance_test.cpp, etcd/etcd_lock_test.cpp). A backend provides
//   using Lock = ...;                       acquire / try_acquire / acquire_for /
//                                           acquire_until, Guard with status(),
//                                           owns_lock(), release()
//   static std::unique_ptr<Lock> make();    a fresh lock (for etcd: its own prefix)
//   static constexpr auto kSettle = ...;    how long a blocked acquire needs to queue
// Grants are judged by the model's conflict predicate (model::conflicts).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

#include "pathlock/model/conflict.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/model/request.hpp"
#include "pathlock/path_lock.hpp"
#include "pathlock/sim/rng.hpp"
#include "conformance/sample_requests.hpp"

namespace pathlock::conformance {

using namespace std::chrono_literals;


// No path of one is related to a path of the other: every lock grants both.
inline bool disjoint(const model::Request& a, const model::Request& b) {
  const auto paths = [](const model::Request& r) {
    auto all = r.reads();
    all.insert(all.end(), r.writes().begin(), r.writes().end());
    return all;
  };
  for (const auto& x : paths(a)) {
    for (const auto& y : paths(b)) {
      if (model::related(x, y)) return false;
    }
  }
  return true;
}

template <typename Backend>
class LockConformance : public ::testing::Test {
 protected:
  using Lock = typename Backend::Lock;
  LockConformance() : lock_(Backend::make()) {}
  std::unique_ptr<Lock> lock_;
};
TYPED_TEST_SUITE_P(LockConformance);

TYPED_TEST_P(LockConformance, GrantsThenReleases) {
  const auto request = model::copy(P("/a/b"), P("/a/c/d")).request();
  auto guard = this->lock_->acquire(request);
  ASSERT_EQ(guard.status(), AcquireStatus::kGranted);
  EXPECT_TRUE(guard);
  EXPECT_GE(guard.lock_count(), 2u);
  guard.release();
  EXPECT_EQ(guard.status(), AcquireStatus::kReleased);
  guard.release();  // idempotent
  EXPECT_TRUE(this->lock_->try_acquire(model::write(P("/a")).request()));
}

// Hold A, try B: never granted when the model says they conflict; always
// granted when no path of one is related to a path of the other.
TYPED_TEST_P(LockConformance, TryAcquireNeverGrantsAConflict) {
  const auto requests = sample_requests();
  for (const auto& a : requests) {
    auto held = this->lock_->acquire(a);
    ASSERT_TRUE(held) << a.to_string();
    for (const auto& b : requests) {
      auto attempt = this->lock_->try_acquire(b);
      if (model::conflicts(a, b)) {
        EXPECT_EQ(attempt.status(), AcquireStatus::kWouldBlock) << a.to_string() << " then " << b.to_string();
      } else if (disjoint(a, b)) {
        EXPECT_EQ(attempt.status(), AcquireStatus::kGranted) << a.to_string() << " then " << b.to_string();
      }
    }
  }
}

TYPED_TEST_P(LockConformance, AConflictingAcquireWaitsForTheRelease) {
  auto writer = this->lock_->write(P("/a"));
  const auto reader = model::read(P("/a/b")).request();
  std::atomic<bool> granted{false};
  std::thread t([&] {
    auto g = this->lock_->acquire(reader);
    granted = g.owns_lock();
  });
  std::this_thread::sleep_for(TypeParam::kSettle);
  EXPECT_FALSE(granted.load());
  writer.release();
  t.join();
  EXPECT_TRUE(granted.load());
}

TYPED_TEST_P(LockConformance, ADeadlineAlreadyPastTriesOnce) {
  const auto past = std::chrono::steady_clock::now() - 1s;
  const auto request = model::write(P("/x/y")).request();
  auto free = this->lock_->acquire_until(request, past);
  EXPECT_EQ(free.status(), AcquireStatus::kGranted);
  EXPECT_EQ(this->lock_->acquire_until(request, past).status(), AcquireStatus::kTimedOut);
}

// A timed-out or cancelled acquire leaves nothing behind: once the holder
// is gone, a third conflicting request is granted at once.
TYPED_TEST_P(LockConformance, TimeoutsAndCancellationsLeaveNothingBehind) {
  auto holder = this->lock_->write(P("/a"));
  const auto waiter = model::write(P("/a/b")).request();
  EXPECT_EQ(this->lock_->acquire_for(waiter, TypeParam::kSettle).status(), AcquireStatus::kTimedOut);
  std::stop_source stop;
  AcquireStatus cancelled = AcquireStatus::kGranted;
  std::thread t([&] { cancelled = this->lock_->acquire(waiter, stop.get_token()).status(); });
  std::this_thread::sleep_for(TypeParam::kSettle);
  stop.request_stop();
  t.join();
  EXPECT_EQ(cancelled, AcquireStatus::kCancelled);
  holder.release();
  EXPECT_TRUE(this->lock_->try_acquire(model::write(P("/a/b/c")).request()));
}

// FIFO among conflicting requests: a writer queued behind a reader is not
// overtaken by a later reader, although that reader is compatible with the
// holder.
TYPED_TEST_P(LockConformance, AQueuedWriterIsNotOvertakenByLaterReaders) {
  auto first_reader = this->lock_->read(P("/a"));
  std::atomic<bool> writer_granted{false};
  std::thread writer([&] {
    auto g = this->lock_->write(P("/a"));
    writer_granted = g.owns_lock();
  });
  std::this_thread::sleep_for(TypeParam::kSettle);
  EXPECT_EQ(this->lock_->try_acquire(model::read(P("/a/b")).request()).status(), AcquireStatus::kWouldBlock);
  EXPECT_TRUE(this->lock_->try_acquire(model::read(P("/b")).request()));  // unrelated: granted
  first_reader.release();
  writer.join();
  EXPECT_TRUE(writer_granted.load());
}

TYPED_TEST_P(LockConformance, BadInputIsRejectedBeforeAnyLockIsTaken) {
  EXPECT_THROW((void)this->lock_->acquire(model::Request({}, {})), model::InputError);
  EXPECT_THROW((void)this->lock_->write(model::Path::from_key("a//b")), model::InputError);
  EXPECT_TRUE(this->lock_->try_acquire(model::write(P("/a/b")).request()));
}

// Threads acquire random requests over a small tree; a shadow registry of
// the granted requests checks each grant against every one still held.
TYPED_TEST_P(LockConformance, ConcurrentGrantsNeverConflict) {
  const auto requests = sample_requests();
  std::mutex mu;
  std::vector<const model::Request*> holding;
  std::vector<std::string> violations;
  std::atomic<int> grants{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < TypeParam::kThreads; ++t) {
    threads.emplace_back([&, t] {
      sim::Rng rng(static_cast<std::uint64_t>(t) + 1);
      for (int i = 0; i < TypeParam::kOpsPerThread; ++i) {
        const auto& r = requests[rng.below(requests.size())];
        auto g = this->lock_->acquire(r);
        if (!g) {
          std::lock_guard lock(mu);
          violations.push_back("not granted: " + r.to_string() + " (" + std::string(to_string(g.status())) + ")");
          continue;
        }
        {
          std::lock_guard lock(mu);
          for (const auto* other : holding) {
            if (model::conflicts(*other, r)) violations.push_back(other->to_string() + " and " + r.to_string());
          }
          holding.push_back(&r);
        }
        grants.fetch_add(1);
        std::this_thread::yield();
        {
          std::lock_guard lock(mu);
          holding.erase(std::find(holding.begin(), holding.end(), &r));
        }
        g.release();
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_TRUE(violations.empty()) << violations.front();
  EXPECT_EQ(grants.load(), TypeParam::kThreads * TypeParam::kOpsPerThread);
}

REGISTER_TYPED_TEST_SUITE_P(LockConformance, GrantsThenReleases, TryAcquireNeverGrantsAConflict,
                            AConflictingAcquireWaitsForTheRelease, ADeadlineAlreadyPastTriesOnce,
                            TimeoutsAndCancellationsLeaveNothingBehind, AQueuedWriterIsNotOvertakenByLaterReaders,
                            BadInputIsRejectedBeforeAnyLockIsTaken, ConcurrentGrantsNeverConflict);

}  // namespace pathlock::conformance
