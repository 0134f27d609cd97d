// A waiter's spin (path_lock_waiter.hpp): it sleeps once its entry stands
// still for a round, and stays awake while the entry keeps granting, so a
// queue of short holds never turns into a convoy of wake-ups. Run on a
// scripted platform: each clock read is a round's length later, each pause
// may move the queue or grant the waiter, and yields are counted.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

#include "pathlock/impl/path_lock_definitions.hpp"
#include "pathlock/impl/platform.hpp"
#include "support/path_lock_test_peer.hpp"
#include "support/test_clock.hpp"

namespace pathlock::spin_test {

struct Script {
  std::function<void()> on_pause;
  long pauses = 0;
  long yields = 0;
  long locks = 0;  // of a waiter's mutex
};
Script g_script;

// A waiter's mutex that counts its locks (a queued thread takes it only to sleep).
struct CountingMutex {
  void lock() {
    ++g_script.locks;
    mu.lock();
  }
  bool try_lock() { return mu.try_lock(); }
  void unlock() { mu.unlock(); }
  std::mutex mu;
};

// A clock whose every read is kMicroseconds after the last.
template <int kMicroseconds>
struct MicrosecondsPerRead {
  std::chrono::nanoseconds::rep operator()() const noexcept {
    static std::chrono::nanoseconds::rep ticks = 0;
    ticks += std::chrono::nanoseconds(std::chrono::microseconds(kMicroseconds)).count();
    return ticks;
  }
};

struct ScriptedPlatform : impl::StdPlatform {
  // Every read is 20 us after the last: a round ends at its first look at the clock.
  using Clock = testing_support::TestClock<MicrosecondsPerRead<20>>;
  using Mutex = CountingMutex;
  using CondVar = std::condition_variable_any;
  static void pause() {
    ++g_script.pauses;
    if (g_script.on_pause) g_script.on_pause();
  }
  static void yield() noexcept { ++g_script.yields; }
};

// The same, but each clock read is one microsecond after the last: a round
// is twenty looks at the clock, and the yields within it can be counted.
struct MicrosecondPerReadPlatform : ScriptedPlatform {
  using Clock = testing_support::TestClock<MicrosecondsPerRead<1>>;
};

}  // namespace pathlock::spin_test

namespace pathlock {
namespace {

using Lock = BasicPathLock<spin_test::ScriptedPlatform>;
using Peer = impl::PathLockTestPeer;
using spin_test::g_script;

// Pauses in one round: a round ends at its first look at the clock.
constexpr long kRound = 64;
constexpr int kRounds = impl::max_spin_rounds<spin_test::ScriptedPlatform>();
constexpr int kYieldsBeforeSleep = 8;
constexpr long kGrantedAt = 5 * kRound + 10;  // a pause in the sixth round

struct SpinTest : ::testing::Test {
  void SetUp() override { g_script = {}; }
  void TearDown() override { g_script = {}; }
  Peer::SpinningWaiter<Lock> waiter;
  std::atomic<std::uint32_t> entry_grants{0};
};

TEST_F(SpinTest, AnEntryThatStandsStillSendsTheWaiterToSleepAfterOneRound) {
  waiter.watch_entry(&entry_grants);
  EXPECT_FALSE(waiter.spin_for_grant());
  EXPECT_EQ(g_script.pauses, kRound);
  EXPECT_EQ(g_script.yields, kYieldsBeforeSleep);
}

TEST_F(SpinTest, AnEntryThatKeepsGrantingKeepsTheWaiterSpinningUpToTheRoundLimit) {
  waiter.watch_entry(&entry_grants);
  g_script.on_pause = [this] { entry_grants.fetch_add(1); };
  EXPECT_FALSE(waiter.spin_for_grant());
  EXPECT_EQ(g_script.pauses, kRound * kRounds);
  // One yield between rounds (a core shared with the next grantee), then the last ones.
  EXPECT_EQ(g_script.yields, (kRounds - 1) + kYieldsBeforeSleep);
}

TEST_F(SpinTest, TheQueueMovingForThreeRoundsThenStoppingGivesFourRounds) {
  waiter.watch_entry(&entry_grants);
  g_script.on_pause = [this] {
    if (g_script.pauses <= 3 * kRound) entry_grants.fetch_add(1);
  };
  EXPECT_FALSE(waiter.spin_for_grant());
  EXPECT_EQ(g_script.pauses, 4 * kRound);
}

TEST_F(SpinTest, AGrantWhileTheQueueMovesEndsTheSpinAtOnce) {
  waiter.watch_entry(&entry_grants);
  g_script.on_pause = [this] {
    entry_grants.fetch_add(1);
    if (g_script.pauses == kGrantedAt) waiter.grant();
  };
  EXPECT_TRUE(waiter.spin_for_grant());
  EXPECT_EQ(g_script.pauses, kGrantedAt);
}

TEST_F(SpinTest, AWaiterWithNoEntryToWatchSpinsOneRound) {
  g_script.on_pause = [this] { entry_grants.fetch_add(1); };
  EXPECT_FALSE(waiter.spin_for_grant());
  EXPECT_EQ(g_script.pauses, kRound);
}

// A thread queued at a gate spins alike, watching the gate's queue turn
// (each new head bumps its count), so a queue of writers of one path does
// not fall into a convoy of wake-ups either. ready() also ends the wait
// once it would sleep, so a wrong spin fails the count instead of hanging.
struct GateQueueSpinTest : SpinTest {
  Peer::GateQueueWaiter<Lock> queued;
  // True from the last yield before sleeping on; valid while the tests end
  // their spin before the eighth round (seven yields between rounds).
  bool would_sleep() const { return g_script.yields >= kYieldsBeforeSleep && g_script.pauses % kRound == 0; }
};
static_assert(kGrantedAt < 7 * kRound, "would_sleep() tells the last yield from the yields between rounds");

TEST_F(GateQueueSpinTest, AQueueThatTurnsKeepsTheQueuedThreadSpinning) {
  g_script.on_pause = [this] { queued.turn(); };
  queued.wait([this] { return g_script.pauses >= kGrantedAt || would_sleep(); });
  EXPECT_EQ(g_script.pauses, kGrantedAt) << "the queued thread stopped spinning while its queue turned";
}

TEST_F(GateQueueSpinTest, AQueueThatStandsStillSendsTheQueuedThreadToSleepAfterOneRound) {
  queued.wait([this] { return g_script.pauses >= kGrantedAt || would_sleep(); });
  EXPECT_EQ(g_script.pauses, kRound);
  EXPECT_EQ(g_script.yields, kYieldsBeforeSleep);
}

// Once the spin ends, the queued thread looks at ready() again only under
// its mutex, before it sleeps: no look in between, which on the checked
// platform would be one more step in every schedule that sleeps.
TEST_F(GateQueueSpinTest, AfterTheSpinTheQueuedThreadLooksAgainOnlyUnderItsMutex) {
  long looks = 0;
  queued.wait([&looks] {
    ++looks;
    return g_script.locks > 0;
  });
  EXPECT_EQ(g_script.locks, 1);
  EXPECT_EQ(looks, kRound + kYieldsBeforeSleep + 1) << "a look between the spin and the mutex";
}

// With more threads than cores, the thread a FIFO queue hands the lock to
// may be off its core, and spinners that keep theirs keep it off: a waiter
// yields within a round too, every kYieldEvery (path_lock_waiter.hpp).
using MicrosecondLock = BasicPathLock<spin_test::MicrosecondPerReadPlatform>;

TEST_F(SpinTest, AWaiterYieldsTheCoreEveryFewMicrosecondsWithinARound) {
  using Spin = Peer::SpinConstants<MicrosecondLock>;
  constexpr long kLooksPerRound = std::chrono::microseconds(Spin::kRoundLength).count();  // a microsecond a look
  constexpr long kLooksPerYield = std::chrono::microseconds(Spin::kYieldEvery).count();
  static_assert(kLooksPerYield > 0 && kLooksPerYield < kLooksPerRound);
  Peer::SpinningWaiter<MicrosecondLock> slow;
  // Granted just after the round's last look but one: every yield of the
  // round has come by then.
  constexpr long kLooksBeforeGrant = kLooksPerRound - 1;
  const long granted_at = kLooksBeforeGrant * Spin::kPausesPerClockLook + 1;
  g_script.on_pause = [&] {
    if (g_script.pauses == granted_at) slow.grant();
  };
  EXPECT_TRUE(slow.spin_for_grant());
  EXPECT_EQ(g_script.pauses, granted_at);
  // One yield at each look kYieldEvery after the round's start or the last yield.
  EXPECT_EQ(g_script.yields, kLooksBeforeGrant / kLooksPerYield) << "a waiter kept its core for a whole round";
}

}  // namespace
}  // namespace pathlock
