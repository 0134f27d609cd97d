// A write takes the word of a gate open for reads (path_lock.hpp: GATES):
// a mode that conflicts with itself takes an open shared gate's word, as
// it takes its exclusive gate's, then gives it back if a reader's slot
// names the gate; a slow holder of the entry shuts takes out. Seen through
// the gate's word and the invariants at every point.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string_view>
#include <thread>

#include "pathlock/path_lock.hpp"
#include "support/fresh_thread.hpp"
#include "support/path_lock_support.hpp"
#include "support/path_lock_test_peer.hpp"
#include "support/watchdog.hpp"

namespace pathlock {
namespace {

using impl::PathLockTestPeer;
using testing_support::current_test_name;
using testing_support::eventually;
using testing_support::on_fresh_thread;
using testing_support::ThreadPhase;
using testing_support::tried_elsewhere;
using testing_support::Watchdog;

model::Path P(std::string_view text) { return model::Path::parse(text); }

std::uint32_t mask_of(const impl::Scheme& scheme, impl::Role role) { return 1U << scheme.mode_for(role).index; }

TEST(GateTake, AWriteOfAReadPathTakesItsReadGatesWordAndExcludes) {
  const impl::Scheme& scheme = impl::path_rwa_joined_scheme();
  const std::uint32_t write = mask_of(scheme, impl::Role::kWriteTarget);
  PathLock lock(scheme);
  lock.read(P("/a/b")).release();
  const std::uint32_t shared = PathLockTestPeer::admitted(lock, "/a/b");
  ASSERT_NE(shared, 0u);
  ASSERT_EQ(shared & write, 0u) << "the read opened a shared set";
  on_fresh_thread([&] {
    // This thread never took /a/b: it finds the gate through the index.
    auto guard = lock.write(P("/a/b"));
    ASSERT_TRUE(guard.owns_lock());
    EXPECT_EQ(PathLockTestPeer::taken(lock, "/a/b"), write) << "the write did not take the word";
    EXPECT_EQ(PathLockTestPeer::admitted(lock, "/a/b"), shared) << "the take closed the read gate";
    EXPECT_TRUE(PathLockTestPeer::node(lock, "/a/b")->idle) << "a fast hold leaves the entry's queue idle";
    EXPECT_EQ(tried_elsewhere(lock, model::read(P("/a/b")).request()), AcquireStatus::kWouldBlock);
    EXPECT_EQ(tried_elsewhere(lock, model::write(P("/a/b")).request()), AcquireStatus::kWouldBlock);
    EXPECT_EQ(tried_elsewhere(lock, model::read(P("/a")).request()), AcquireStatus::kWouldBlock);
    EXPECT_EQ(lock.check_invariants(), "");
  });
  EXPECT_EQ(PathLockTestPeer::taken(lock, "/a/b"), 0u);
  EXPECT_EQ(PathLockTestPeer::admitted(lock, "/a/b"), shared) << "the read after the write would not be fast";
  EXPECT_EQ(lock.check_invariants(), "");
}

TEST(GateTake, AFastReaderTurnsTheTakeBack) {
  const impl::Scheme& scheme = impl::path_rwa_joined_scheme();
  PathLock lock(scheme);
  lock.read(P("/a/b")).release();
  const std::uint32_t shared = PathLockTestPeer::admitted(lock, "/a/b");
  auto reader = lock.read(P("/a/b"));  // fast: a slot names the gate
  ASSERT_EQ(PathLockTestPeer::node(lock, "/a/b")->idle, true) << "the read was not fast";
  ASSERT_EQ(PathLockTestPeer::admitted(lock, "/a/b"), shared);
  EXPECT_EQ(tried_elsewhere(lock, model::write(P("/a/b")).request()), AcquireStatus::kWouldBlock);
  EXPECT_EQ(PathLockTestPeer::taken(lock, "/a/b"), 0u) << "the write kept the word beside a reader";
  EXPECT_EQ(lock.check_invariants(), "");
  reader.release();
  EXPECT_EQ(tried_elsewhere(lock, model::write(P("/a/b")).request()), AcquireStatus::kGranted);
  EXPECT_EQ(lock.check_invariants(), "");
}

TEST(GateTake, ASlowHolderShutsTheTakeOut) {
  const impl::Scheme& scheme = impl::path_rwa_joined_scheme();
  PathLock lock(scheme);
  // The entry's first read is slow: it opens the gate while it holds the entry in its queue.
  auto reader = lock.read(P("/a/b"));
  ASSERT_NE(PathLockTestPeer::admitted(lock, "/a/b"), 0u);
  ASSERT_FALSE(PathLockTestPeer::node(lock, "/a/b")->idle) << "the first read was not slow";
  EXPECT_TRUE(PathLockTestPeer::marks_slow_holders(lock, "/a/b"));
  EXPECT_EQ(lock.check_invariants(), "");
  EXPECT_EQ(tried_elsewhere(lock, model::write(P("/a/b")).request()), AcquireStatus::kWouldBlock);
  EXPECT_EQ(PathLockTestPeer::taken(lock, "/a/b"), 0u) << "the write took the word beside a slow holder";
  EXPECT_EQ(lock.check_invariants(), "");
  reader.release();
  EXPECT_FALSE(PathLockTestPeer::marks_slow_holders(lock, "/a/b")) << "the idle entry still shuts takes out";
  EXPECT_EQ(lock.check_invariants(), "");
  EXPECT_EQ(tried_elsewhere(lock, model::write(P("/a/b")).request()), AcquireStatus::kGranted);
}

TEST(GateTake, ASlowReadBesideATakenWriteClosesTheGateAndWaits) {
  const impl::Scheme& scheme = impl::path_rwa_joined_scheme();
  const std::uint32_t write = mask_of(scheme, impl::Role::kWriteTarget);
  PathLock lock(scheme);
  lock.read(P("/a/b")).release();
  auto writer = lock.write(P("/a/b"));
  ASSERT_EQ(PathLockTestPeer::taken(lock, "/a/b"), write);
  // A read's fast step sees the word taken and withdraws; its slow step closes the gate.
  EXPECT_EQ(tried_elsewhere(lock, model::read(P("/a/b")).request()), AcquireStatus::kWouldBlock);
  EXPECT_EQ(PathLockTestPeer::admitted(lock, "/a/b"), 0u) << "the slow read left the gate open";
  EXPECT_EQ(PathLockTestPeer::pseudo_held(lock, "/a/b"), write) << "the write became a pseudo hold";
  EXPECT_EQ(lock.check_invariants(), "");
  writer.release();  // finds the gate closed: drains
  EXPECT_EQ(PathLockTestPeer::pseudo_held(lock, "/a/b"), 0u);
  EXPECT_EQ(PathLockTestPeer::taken(lock, "/a/b"), 0u);
  EXPECT_EQ(lock.check_invariants(), "");
  EXPECT_EQ(tried_elsewhere(lock, model::read(P("/a/b")).request()), AcquireStatus::kGranted);
}

// A closer that finds a mode taken beside a slot in a conflicting mode (a
// take and a reader each half-way: one of them withdraws) waits until one
// is gone before it makes pseudo holds: a pseudo read beside a pseudo write
// would queue behind it, a pseudo task waiting, and never be released.
TEST(GateTake, ACloserWaitsOutATakeAndAReaderCaughtHalfWay) {
  const impl::Scheme& scheme = impl::path_rwa_joined_scheme();
  const std::uint32_t write = mask_of(scheme, impl::Role::kWriteTarget);
  PathLock lock(scheme);
  lock.read(P("/a")).release();
  auto writer = lock.write(P("/a"));
  ASSERT_EQ(PathLockTestPeer::taken(lock, "/a"), write);
  // A reader that set its slot, saw the word taken, and has not yet cleared the slot.
  PathLockTestPeer::phantom_fast_hold(lock, "/a", scheme.mode_for(impl::Role::kReadTarget),
                                      PathLockTestPeer::Slot::kSet);
  Watchdog watchdog(current_test_name());
  watchdog.watch("lock", lock);
  auto& closer_note = watchdog.thread("writer below /a (closes its gate)");
  std::atomic<bool> granted{false};
  std::thread closer([&] {
    const auto request = model::write(P("/a/x")).request();
    closer_note.at(ThreadPhase::kAcquiring, request);
    granted = lock.acquire(request).owns_lock();
    closer_note.at(ThreadPhase::kDone);
  });
  // The closer waits under /a's shard lock now: nothing here may take it until the reader is gone.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  PathLockTestPeer::phantom_fast_hold(lock, "/a", scheme.mode_for(impl::Role::kReadTarget),
                                      PathLockTestPeer::Slot::kClear);
  ASSERT_TRUE(eventually([&] { return lock.waiting_acquisitions() == 1; })) << "the closer never queued";
  EXPECT_EQ(PathLockTestPeer::pseudo_held(lock, "/a"), write) << "the closer stood for the reader half-way too";
  EXPECT_EQ(lock.check_invariants(), "");
  writer.release();  // finds the gate closed: drains, which grants the closer
  closer.join();
  EXPECT_TRUE(granted.load());
  EXPECT_EQ(lock.check_invariants(), "");
}

// Takes of /a/b that find no reader until its gate counts its readers
// (path_lock_gate.hpp: COUNTED READERS); each asserts the gate was not
// counting before its last take.
void count_readers_of(PathLock& lock, std::string_view path) {
  lock.read(P(path)).release();  // slow: opens the gate for reads
  for (int take = 1; take <= impl::calm_takes_to_count<impl::StdPlatform>(); ++take) {
    ASSERT_FALSE(PathLockTestPeer::readers_counted(lock, path)) << "counted after " << take - 1 << " takes";
    auto writer = lock.write(P(path));
    ASSERT_NE(PathLockTestPeer::taken(lock, path), 0u) << "the write did not take the word";
  }
  ASSERT_TRUE(PathLockTestPeer::readers_counted(lock, path));
}

TEST(GateTake, TakesThatFindNoReaderMakeTheGateCountItsReaders) {
  const impl::Scheme& scheme = impl::path_rwa_joined_scheme();
  const impl::ModeId read = scheme.mode_for(impl::Role::kReadTarget);
  PathLock lock(scheme);
  count_readers_of(lock, "/a/b");
  auto reader = lock.read(P("/a/b"));
  ASSERT_TRUE(PathLockTestPeer::node(lock, "/a/b")->idle) << "the read was not fast";
  EXPECT_EQ(PathLockTestPeer::counted_readers(lock, "/a/b", read), 1u);
  EXPECT_EQ(lock.check_invariants(), "");
  // The take reads the count: it gives the word back.
  EXPECT_EQ(tried_elsewhere(lock, model::write(P("/a/b")).request()), AcquireStatus::kWouldBlock);
  EXPECT_EQ(PathLockTestPeer::taken(lock, "/a/b"), 0u) << "the write kept the word beside a counted reader";
  EXPECT_EQ(tried_elsewhere(lock, model::read(P("/a/b")).request()), AcquireStatus::kGranted);
  reader.release();
  EXPECT_EQ(PathLockTestPeer::counted_readers(lock, "/a/b", read), 0u);
  EXPECT_EQ(tried_elsewhere(lock, model::write(P("/a/b")).request()), AcquireStatus::kGranted);
  EXPECT_TRUE(PathLockTestPeer::readers_counted(lock, "/a/b")) << "a calm take moved the readers back to slots";
  EXPECT_EQ(lock.check_invariants(), "");
}

TEST(GateTake, CountedReadersThatMeetGoBackToSlotsAtTheNextTake) {
  const impl::Scheme& scheme = impl::path_rwa_joined_scheme();
  PathLock lock(scheme);
  count_readers_of(lock, "/a/b");
  {
    auto first = lock.read(P("/a/b"));
    // A second reader, in while the first holds: the count's line moved between them.
    EXPECT_EQ(tried_elsewhere(lock, model::read(P("/a/b")).request()), AcquireStatus::kGranted);
    EXPECT_EQ(lock.check_invariants(), "");
  }
  EXPECT_TRUE(PathLockTestPeer::readers_counted(lock, "/a/b")) << "only a take switches the readers";
  lock.write(P("/a/b")).release();
  EXPECT_FALSE(PathLockTestPeer::readers_counted(lock, "/a/b")) << "the take kept counting contended readers";
  auto reader = lock.read(P("/a/b"));
  EXPECT_EQ(PathLockTestPeer::counted_readers(lock, "/a/b", scheme.mode_for(impl::Role::kReadTarget)), 0u)
      << "a reader counted itself at a gate of slots";
  EXPECT_EQ(tried_elsewhere(lock, model::write(P("/a/b")).request()), AcquireStatus::kWouldBlock);
  EXPECT_EQ(lock.check_invariants(), "");
}

TEST(GateTake, AGateClosedOnACountedReaderWaitsForItToLeave) {
  const impl::Scheme& scheme = impl::path_rwa_joined_scheme();
  PathLock lock(scheme);
  count_readers_of(lock, "/a/b");
  auto reader = lock.read(P("/a/b"));
  ASSERT_TRUE(PathLockTestPeer::node(lock, "/a/b")->idle) << "the read was not fast";
  // A write below /a/b conflicts with the read: it closes the gate, and a
  // pseudo hold stands for the counted reader.
  EXPECT_EQ(tried_elsewhere(lock, model::write(P("/a/b/c")).request()), AcquireStatus::kWouldBlock);
  EXPECT_TRUE(PathLockTestPeer::gate_closed(lock, "/a/b"));
  EXPECT_EQ(lock.check_invariants(), "");
  reader.release();  // drains the gate
  EXPECT_EQ(lock.check_invariants(), "");
  EXPECT_EQ(tried_elsewhere(lock, model::write(P("/a/b/c")).request()), AcquireStatus::kGranted);
  EXPECT_EQ(lock.check_invariants(), "");
}

}  // namespace
}  // namespace pathlock
