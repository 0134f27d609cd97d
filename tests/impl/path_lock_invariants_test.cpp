// PathLock::check_invariants(): empty on every state the lock reaches (a
// gate closed with pseudo holders, a waiter queued behind them, the gate
// reopened), and naming the broken invariant when a test corrupts the
// table, a sleeper record or a gate's slots through PathLockTestPeer.
// The other PathLock tests call it after stress runs and in their fixture.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>

#include "pathlock/impl/path_lock_definitions.hpp"
#include "pathlock/path_lock.hpp"
#include "support/path_lock_support.hpp"
#include "support/path_lock_test_peer.hpp"
#include "support/watchdog.hpp"


namespace pathlock {
namespace {

using namespace std::chrono_literals;
using impl::PathLockTestPeer;
using model::Path;
using testing_support::current_test_name;
using testing_support::eventually;
using testing_support::ThreadPhase;
using testing_support::Watchdog;

Path P(std::string_view s) { return Path::parse(s); }

// A reader of /a, its second time, holds / and /a fast: the first read
// opened both gates and taught this thread where they are. A try and then a
// waiting writer of / close the root's gate, so the reader's fast hold
// becomes a pseudo holder that the writer queues behind; the reader leaves,
// the writer runs, and the next reader reopens the gate. The invariants hold
// at every one of these points.
void gate_round_trip(const impl::Scheme& scheme) {
  SCOPED_TRACE(scheme.name());
  PathLock lock(scheme, PathLockOptions{.shards = 2});
  const bool has_gate = PathLockTestPeer::has_gates(lock);
  lock.read(P("/a")).release();
  EXPECT_EQ(PathLockTestPeer::gate_closed(lock, "/"), !has_gate) << "a slow grant in a gate mode opens the gate";
  auto reader = lock.read(P("/a"));
  EXPECT_EQ(lock.check_invariants(), "");
  EXPECT_EQ(lock.active_locks(), scheme.name().starts_with("global") ? 1u : 2u) << "fast holds are active";
  const auto write_root = model::write(P("/")).request();
  EXPECT_EQ(lock.try_acquire(write_root).status(), AcquireStatus::kWouldBlock);
  EXPECT_TRUE(PathLockTestPeer::gate_closed(lock, "/"));
  EXPECT_EQ(PathLockTestPeer::pseudo_held(lock, "/") != 0, has_gate) << "the reader's fast hold became a pseudo hold";
  EXPECT_EQ(lock.check_invariants(), "");
  Watchdog watchdog(current_test_name() + " (" + scheme.name() + ")");
  watchdog.watch("lock", lock);
  auto& writer_note = watchdog.thread("writer of /");
  std::atomic<bool> writer_granted{false};
  std::thread writer([&] {
    writer_note.at(ThreadPhase::kAcquiring, write_root);
    writer_granted = lock.acquire(write_root).owns_lock();
    writer_note.at(ThreadPhase::kDone);
  });
  ASSERT_TRUE(eventually([&] { return lock.waiting_acquisitions() == 1; })) << "the writer never queued";
  EXPECT_EQ(lock.check_invariants(), "");
  reader.release();
  writer.join();
  EXPECT_TRUE(writer_granted.load());
  EXPECT_EQ(PathLockTestPeer::pseudo_held(lock, "/"), 0u);
  EXPECT_EQ(lock.check_invariants(), "");
  lock.read(P("/a")).release();
  EXPECT_EQ(PathLockTestPeer::gate_closed(lock, "/"), !has_gate) << "the next reader did not reopen the gate";
  EXPECT_EQ(lock.check_invariants(), "");
}

TEST(PathLockInvariants, HoldThroughTheGatesRoundTrip) {
  gate_round_trip(impl::path_rwa_joined_scheme());
  gate_round_trip(impl::global_rw_scheme());
  gate_round_trip(impl::path_rw_scheme());
  gate_round_trip(impl::global_mutex_scheme());  // an exclusive gate: its fast reader takes the word
}

// Each corruption is undone before the lock is destroyed.
class PathLockCorrupted : public ::testing::Test {
 protected:
  PathLockCorrupted() : lock_(impl::path_rwa_joined_scheme(), PathLockOptions{.shards = 1}) {}
  const impl::ModeId read_ancestor_ = impl::path_rwa_joined_scheme().mode_for(impl::Role::kReadAncestor);
  PathLock lock_;
};

TEST_F(PathLockCorrupted, AnIdleCountThatDisagreesWithTheIdleList) {
  lock_.write(P("/a/b")).release();
  ASSERT_EQ(lock_.check_invariants(), "");
  PathLockTestPeer::add_to_idle_count(lock_, "/a", 1);
  EXPECT_NE(lock_.check_invariants().find("idle_count is 4 but 3 nodes are flagged idle"), std::string::npos)
      << lock_.check_invariants();
  PathLockTestPeer::add_to_idle_count(lock_, "/a", -1);
  EXPECT_EQ(lock_.check_invariants(), "");
}

TEST_F(PathLockCorrupted, AGateRecordWhoseCopyOfThePathIsAnotherPath) {
  lock_.write(P("/a/b")).release();
  PathLockTestPeer::overwrite_record_key(lock_, "/a", "/z");
  EXPECT_NE(lock_.check_invariants().find("entry /a: its gate record's copy of the path (for the index) is not its path"),
            std::string::npos)
      << lock_.check_invariants();
  PathLockTestPeer::overwrite_record_key(lock_, "/a", "/a");
  EXPECT_EQ(lock_.check_invariants(), "");
}

TEST_F(PathLockCorrupted, AnEntryInUseFlaggedIdle) {
  auto guard = lock_.write(P("/a"));
  PathLockTestPeer::flip_idle_flag(lock_, "/a");
  EXPECT_NE(lock_.check_invariants().find("entry /a is flagged idle but its queue is in use"), std::string::npos)
      << lock_.check_invariants();
  PathLockTestPeer::flip_idle_flag(lock_, "/a");
  EXPECT_EQ(lock_.check_invariants(), "");
}

TEST_F(PathLockCorrupted, AnIdleEntryOutOfTheIdleList) {
  lock_.write(P("/a")).release();
  PathLockTestPeer::flip_listed_flag(lock_, "/a");
  EXPECT_NE(lock_.check_invariants().find("entry /a is idle but not in the idle list"), std::string::npos)
      << lock_.check_invariants();
  PathLockTestPeer::flip_listed_flag(lock_, "/a");
  EXPECT_EQ(lock_.check_invariants(), "");
}

// Taking an idle entry again leaves it listed (no other entry's links are
// written); the sweep drops it from the list only if it is still in use.
TEST_F(PathLockCorrupted, AnEntryTakenAgainStaysListedUntilTheSweep) {
  lock_.write(P("/a")).release();
  {
    auto guard = lock_.read(P("/a"));  // slowly: R closes the exclusive gate the write left open
    EXPECT_TRUE(PathLockTestPeer::node(lock_, "/a")->listed);
    EXPECT_FALSE(PathLockTestPeer::node(lock_, "/a")->idle);
    EXPECT_EQ(lock_.check_invariants(), "");
  }
  EXPECT_TRUE(PathLockTestPeer::node(lock_, "/a")->idle);
  EXPECT_EQ(lock_.check_invariants(), "");
}

TEST_F(PathLockCorrupted, ASleeperRecordWithoutAWaitingAcquisition) {
  auto guard = lock_.write(P("/a"));
  PathLockTestPeer::phantom_sleeper(lock_, "/a", PathLockTestPeer::Record::kPush);
  EXPECT_NE(lock_.check_invariants().find("entry /a: 1 sleeper records for 0 waiting acquisitions"),
            std::string::npos)
      << lock_.check_invariants();
  PathLockTestPeer::phantom_sleeper(lock_, "/a", PathLockTestPeer::Record::kPop);
  EXPECT_EQ(lock_.check_invariants(), "");
}

TEST_F(PathLockCorrupted, AFastHolderTheClosedGateDoesNotKnow) {
  auto guard = lock_.write(P("/"));  // the root's gate stays closed; no fast holders
  ASSERT_EQ(lock_.check_invariants(), "");
  PathLockTestPeer::phantom_fast_hold(lock_, "/", read_ancestor_, PathLockTestPeer::Slot::kSet);
  EXPECT_NE(lock_.check_invariants().find("closed with 1 fast holders of RA, but no pseudo task"), std::string::npos)
      << lock_.check_invariants();
  PathLockTestPeer::phantom_fast_hold(lock_, "/", read_ancestor_, PathLockTestPeer::Slot::kClear);
  EXPECT_EQ(lock_.check_invariants(), "");
}

TEST_F(PathLockCorrupted, AFastHolderInAModeTheOpenGateDoesNotAdmit) {
  lock_.read(P("/a")).release();  // opens the root's gate for RA and WA
  ASSERT_FALSE(PathLockTestPeer::gate_closed(lock_, "/"));
  const impl::ModeId write = impl::path_rwa_joined_scheme().mode_for(impl::Role::kWriteTarget);
  PathLockTestPeer::phantom_fast_hold(lock_, "/", write, PathLockTestPeer::Slot::kSet);
  EXPECT_NE(lock_.check_invariants().find("1 fast holders of W, which the open gate does not admit"),
            std::string::npos)
      << lock_.check_invariants();
  PathLockTestPeer::phantom_fast_hold(lock_, "/", write, PathLockTestPeer::Slot::kClear);
  EXPECT_EQ(lock_.check_invariants(), "");
}

}  // namespace
}  // namespace pathlock
