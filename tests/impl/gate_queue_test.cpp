// An exclusive gate's own queue (path_lock_gate.hpp): a blocking write that
// finds a path's word taken queues at the gate (the tail in the word)
// instead of closing it, and takes the word in turn, in arrival order; a
// conflicting step closes the gate, and its pseudo hold stands for the
// queue, so the writers queued first go first; a wait that may end early
// (a deadline) goes the slow way. Seen through the gate's word, the queue's
// tail, waiting_acquisitions() and the invariants at every quiet point.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "pathlock/impl/path_lock_definitions.hpp"
#include "pathlock/path_lock.hpp"
#include "support/path_lock_support.hpp"
#include "support/path_lock_test_peer.hpp"
#include "support/watchdog.hpp"

namespace pathlock {
namespace {

using impl::PathLockTestPeer;
using testing_support::current_test_name;
using testing_support::eventually;
using testing_support::ThreadPhase;
using testing_support::Watchdog;

model::Path P(std::string_view text) { return model::Path::parse(text); }

std::uint32_t write_mask() {
  return 1U << impl::path_rwa_joined_scheme().mode_for(impl::Role::kWriteTarget).index;
}

// Who was granted, in order: each thread appends its name once it holds.
class GrantOrder {
 public:
  void granted(std::string who) {
    const std::lock_guard<std::mutex> hold(mu_);
    order_.push_back(std::move(who));
  }
  std::vector<std::string> order() {
    const std::lock_guard<std::mutex> hold(mu_);
    return order_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> order_;
};

// A thread that takes `request` (blocking) and records its grant.
std::thread taker(PathLock& lock, Watchdog& watchdog, GrantOrder& order, std::string name, model::Request request) {
  auto& note = watchdog.thread(name);
  return std::thread([&lock, &order, &note, name, request] {
    note.at(ThreadPhase::kAcquiring, request);
    auto guard = lock.acquire(request);
    ASSERT_TRUE(guard.owns_lock());
    order.granted(name);
    note.at(ThreadPhase::kDone);
  });
}

class GateQueue : public ::testing::Test {
 protected:
  GateQueue() : lock_(impl::path_rwa_joined_scheme()), watchdog_(current_test_name()) {
    watchdog_.watch("lock", lock_);
    lock_.write(P("/a/b")).release();  // opens /a/b's exclusive gate
  }
  PathLock lock_;
  Watchdog watchdog_;
  GrantOrder order_;
};

TEST_F(GateQueue, ABlockingWriterQueuesAtTheOpenGate) {
  auto holder = lock_.write(P("/a/b"));
  ASSERT_EQ(PathLockTestPeer::taken(lock_, "/a/b"), write_mask()) << "the holder did not take the word";
  std::thread writer = taker(lock_, watchdog_, order_, "writer", model::write(P("/a/b")).request());
  ASSERT_TRUE(eventually([&] { return lock_.waiting_acquisitions() == 1; })) << "the writer never waited";
  EXPECT_NE(PathLockTestPeer::queue_tail(lock_, "/a/b"), 0u) << "the writer waits, but not at the gate";
  EXPECT_EQ(PathLockTestPeer::admitted(lock_, "/a/b"), write_mask()) << "the writer closed the gate";
  EXPECT_EQ(PathLockTestPeer::pseudo_held(lock_, "/a/b"), 0u);
  EXPECT_NE(lock_.describe_waits().find("queue at the gate"), std::string::npos) << lock_.describe_waits();
  EXPECT_EQ(lock_.check_invariants(), "");
  holder.release();
  writer.join();
  EXPECT_EQ(order_.order(), std::vector<std::string>{"writer"});
  EXPECT_EQ(PathLockTestPeer::queue_tail(lock_, "/a/b"), 0u);
  EXPECT_EQ(PathLockTestPeer::taken(lock_, "/a/b"), 0u);
  EXPECT_EQ(PathLockTestPeer::admitted(lock_, "/a/b"), write_mask()) << "the gate stayed open throughout";
  EXPECT_EQ(lock_.waiting_acquisitions(), 0u);
  EXPECT_EQ(lock_.check_invariants(), "");
}

TEST_F(GateQueue, WritersTakeTheWordInArrivalOrder) {
  auto holder = lock_.write(P("/a/b"));
  std::vector<std::thread> writers;
  for (int i = 0; i < 4; ++i) {
    writers.push_back(
        taker(lock_, watchdog_, order_, "writer " + std::to_string(i), model::write(P("/a/b")).request()));
    ASSERT_TRUE(eventually([&] { return lock_.waiting_acquisitions() == static_cast<std::size_t>(i) + 1; }))
        << "writer " << i << " never waited";
  }
  EXPECT_EQ(PathLockTestPeer::admitted(lock_, "/a/b"), write_mask());
  EXPECT_EQ(lock_.check_invariants(), "");
  holder.release();
  for (auto& t : writers) t.join();
  EXPECT_EQ(order_.order(), (std::vector<std::string>{"writer 0", "writer 1", "writer 2", "writer 3"}));
  EXPECT_EQ(PathLockTestPeer::queue_turns(lock_, "/a/b"), 4u) << "the threads queued behind watch the turns move";
  EXPECT_EQ(PathLockTestPeer::queue_tail(lock_, "/a/b"), 0u);
  EXPECT_EQ(lock_.check_invariants(), "");
}

TEST_F(GateQueue, AReaderThatClosesTheGateWaitsForTheWritersQueuedBeforeIt) {
  auto holder = lock_.write(P("/a/b"));
  std::thread first = taker(lock_, watchdog_, order_, "writer 1", model::write(P("/a/b")).request());
  ASSERT_TRUE(eventually([&] { return lock_.waiting_acquisitions() == 1; }));
  std::thread second = taker(lock_, watchdog_, order_, "writer 2", model::write(P("/a/b")).request());
  ASSERT_TRUE(eventually([&] { return lock_.waiting_acquisitions() == 2; }));
  std::thread reader = taker(lock_, watchdog_, order_, "reader", model::read(P("/a/b")).request());
  ASSERT_TRUE(eventually([&] { return lock_.waiting_acquisitions() == 3; })) << "the reader never queued";
  EXPECT_EQ(PathLockTestPeer::admitted(lock_, "/a/b"), 0u) << "the reader's step closed the gate";
  EXPECT_EQ(PathLockTestPeer::pseudo_held(lock_, "/a/b"), write_mask())
      << "no pseudo hold stands for the holder and the queue";
  EXPECT_EQ(lock_.check_invariants(), "");
  // A writer that comes now queues behind the reader (the gate is closed).
  std::thread late = taker(lock_, watchdog_, order_, "late writer", model::write(P("/a/b")).request());
  ASSERT_TRUE(eventually([&] { return lock_.waiting_acquisitions() == 4; }));
  EXPECT_EQ(lock_.check_invariants(), "");
  holder.release();
  for (std::thread* t : {&first, &second, &reader, &late}) t->join();
  EXPECT_EQ(order_.order(), (std::vector<std::string>{"writer 1", "writer 2", "reader", "late writer"}));
  EXPECT_EQ(PathLockTestPeer::pseudo_held(lock_, "/a/b"), 0u);
  EXPECT_EQ(PathLockTestPeer::queue_tail(lock_, "/a/b"), 0u);
  EXPECT_EQ(lock_.waiting_acquisitions(), 0u);
  EXPECT_EQ(lock_.check_invariants(), "");
}

TEST_F(GateQueue, AWaitWithADeadlineGoesTheSlowWay) {
  auto holder = lock_.write(P("/a/b"));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
  EXPECT_EQ(lock_.acquire_until(model::write(P("/a/b")).request(), deadline).status(), AcquireStatus::kTimedOut);
  EXPECT_EQ(PathLockTestPeer::queue_tail(lock_, "/a/b"), 0u) << "a timed wait queued at the gate";
  EXPECT_EQ(PathLockTestPeer::admitted(lock_, "/a/b"), 0u) << "its slow step closes the gate";
  EXPECT_EQ(lock_.check_invariants(), "");
}

// `threads` writers of /a/b, each taking it `rounds` times in a loop; then
// none overlapped, nobody waits or queues, and the word is free (a
// hand-over that went nowhere would leave it taken).
void write_one_path_in_turn(PathLock& lock, Watchdog& watchdog, int threads, int rounds) {
  std::atomic<int> inside{0};
  std::atomic<bool> overlapped{false};
  std::vector<std::thread> writers;
  for (int t = 0; t < threads; ++t) {
    auto& note = watchdog.thread("writer " + std::to_string(t));
    writers.emplace_back([&] {
      const auto request = model::write(P("/a/b")).request();
      note.at(ThreadPhase::kAcquiring, request);
      for (int i = 0; i < rounds; ++i) {
        auto guard = lock.acquire(request);
        if (inside.fetch_add(1) != 0) overlapped = true;
        inside.fetch_sub(1);
      }
      note.at(ThreadPhase::kDone);
    });
  }
  for (auto& w : writers) w.join();
  EXPECT_FALSE(overlapped.load());
  EXPECT_EQ(lock.waiting_acquisitions(), 0u);
  EXPECT_EQ(PathLockTestPeer::queue_tail(lock, "/a/b"), 0u);
  EXPECT_EQ(PathLockTestPeer::taken(lock, "/a/b"), 0u) << "the word is still taken: a hand-over went nowhere";
  EXPECT_EQ(lock.check_invariants(), "");
}

TEST_F(GateQueue, ManyWritersOfOnePathNeverOverlap) { write_one_path_in_turn(lock_, watchdog_, 6, 2000); }

// Two writers of one path, as a benchmark's threads: each takes the word,
// lets it go and queues again behind the other, so the word passes back
// and forth every way, many times: taken fast, handed to the thread queued
// behind, given back to a queue's first waiter. (A draft that also handed
// the word to a first waiter lost a wake-up under this load in
// scaling_bench: both threads slept for good.)
TEST_F(GateQueue, TwoWritersHandTheWordBackAndForthWithoutLosingAWakeUp) {
  write_one_path_in_turn(lock_, watchdog_, 2, Watchdog::under_sanitizer() ? 10000 : 200000);
}

// path_lock.hpp (GATES) quotes this: a queuer per block, 16 KiB a lock.
TEST(GateQueueMemory, TheQueuersTakeSixteenKiBALock) {
  EXPECT_EQ(PathLockTestPeer::gate_queuers_bytes(), std::size_t{16} * 1024);
}

}  // namespace
}  // namespace pathlock
