// PathLock: one typed conformance suite run against every scheme, plus
// multi-threaded stress tests with a shadow checker that judges every grant
// by the model's conflict predicate. Run under TSan and ASan+UBSan in CI.
// Fairness: path_lock_fairness_test.cpp. Every test that runs threads on a
// lock does so under a Watchdog (support/watchdog.hpp): a hang fails within
// its limit, printing what each thread and acquisition waits for.

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <mutex>
#include <optional>
#include <thread>

#include "pathlock/impl/plan.hpp"
#include "pathlock/model/conflict.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/path_lock.hpp"
#include "pathlock/sim/rng.hpp"
#include "pathlock/sim/tree.hpp"
#include "support/path_lock_support.hpp"
#include "support/watchdog.hpp"

namespace pathlock {
namespace {

using namespace std::chrono_literals;
using model::Path;
using testing_support::current_test_name;
using testing_support::eventually;
using testing_support::GlobalMutex;
using testing_support::GlobalRw;
using testing_support::PathRw;
using testing_support::PathRwa;
using testing_support::PathRwaJoined;
using testing_support::ThreadPhase;
using testing_support::WatchedThread;
using testing_support::Watchdog;

// Every built-in scheme runs here, path-rwa included, which the lock refuses
// by default (a weak join).
constexpr SchemeAdmission kAnyScheme = SchemeAdmission::kAllowDefective;

template <typename S>
class PathLockConformance : public ::testing::Test {
 protected:
  PathLockConformance()
      : lock_(S::scheme(), PathLockOptions{.shards = 8, .scheme_admission = kAnyScheme}) {
    watchdog_.watch("lock_", lock_);
  }
  // Every test leaves the lock quiescent and consistent.
  void TearDown() override { EXPECT_EQ(lock_.check_invariants(), ""); }
  PathLock lock_;
  Watchdog watchdog_{current_test_name()};
};
using AllSchemes = ::testing::Types<GlobalMutex, GlobalRw, PathRw, PathRwa, PathRwaJoined>;
TYPED_TEST_SUITE(PathLockConformance, AllSchemes);

Path P(std::string_view s) { return Path::parse(s); }

// True if the request reads a proper ancestor of a path it writes: the shape
// on which the design notes' scheme 4 as written (path-rwa) is unsafe.
bool reads_above_own_write(const model::Request& r) {
  for (const auto& rp : r.reads()) {
    for (const auto& wp : r.writes()) {
      if (rp.is_proper_ancestor_of(wp)) return true;
    }
  }
  return false;
}

TYPED_TEST(PathLockConformance, GrantsHoldsTheWholePlanAndEvictsOnRelease) {
  const auto request = model::copy(P("/a/b"), P("/a/c/d")).request();
  {
    auto guard = this->lock_.acquire(request);
    ASSERT_EQ(guard.status(), AcquireStatus::kGranted);
    EXPECT_TRUE(guard);
    EXPECT_EQ(guard.lock_count(), impl::plan_for(TypeParam::scheme(), request).size());
    EXPECT_EQ(this->lock_.active_locks(), guard.lock_count());
  }
  EXPECT_EQ(this->lock_.active_locks(), 0u);  // idle entries are evicted at once
  EXPECT_GT(this->lock_.idle_locks(), 0u);
}

// Hold A, try B: granted exactly when impl's plans allow it, and never when
// the model says the requests conflict (safe pairs of the scheme).
TYPED_TEST(PathLockConformance, TryAcquireAgreesWithThePlansAndTheModel) {
  const auto paths = sim::generate_tree({2, 2});
  std::vector<model::Operation> ops;
  for (const auto& p : paths) {
    ops.push_back(model::read(p));
    ops.push_back(model::write(p));
  }
  ops.push_back(model::copy(P("/a"), P("/a/ab")));
  ops.push_back(model::copy(P("/a/a"), P("/ab")));
  ops.push_back(model::rename(P("/ab/a"), P("/a")));
  const auto& scheme = TypeParam::scheme();
  for (const auto& a : ops) {
    const auto ra = a.request();
    auto held = this->lock_.acquire(ra);
    ASSERT_TRUE(held);
    for (const auto& b : ops) {
      const auto rb = b.request();
      auto attempt = this->lock_.try_acquire(rb);
      const bool plans_allow = !impl::plans_conflict(scheme, impl::plan_for(scheme, ra), impl::plan_for(scheme, rb));
      EXPECT_EQ(attempt.owns_lock(), plans_allow) << a.to_string() << " then " << b.to_string();
      if (model::conflicts(ra, rb) && !reads_above_own_write(ra) && !reads_above_own_write(rb)) {
        EXPECT_EQ(attempt.status(), AcquireStatus::kWouldBlock) << a.to_string() << " then " << b.to_string();
      }
    }
    held.release();
    EXPECT_EQ(this->lock_.active_locks(), 0u);
  }
}

TYPED_TEST(PathLockConformance, AConflictingAcquireWaitsForTheRelease) {
  auto writer = this->lock_.write(P("/a"));
  const auto reader = model::read(P("/a/b")).request();
  EXPECT_EQ(this->lock_.acquire_for(reader, 20ms).status(), AcquireStatus::kTimedOut);
  std::atomic<bool> granted{false};
  auto& note = this->watchdog_.thread("reader");
  std::thread t([&] {
    note.at(ThreadPhase::kAcquiring, reader);
    auto g = this->lock_.acquire(reader);
    granted = g.owns_lock();
    note.at(ThreadPhase::kDone);
  });
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(granted.load());
  writer.release();
  t.join();
  EXPECT_TRUE(granted.load());
  EXPECT_EQ(this->lock_.active_locks(), 0u);
}

TYPED_TEST(PathLockConformance, ADeadlineAlreadyPastTriesOnce) {
  const auto past = std::chrono::steady_clock::now() - 1s;
  const auto request = model::write(P("/x/y")).request();
  {
    auto free = this->lock_.acquire_until(request, past);
    EXPECT_EQ(free.status(), AcquireStatus::kGranted);
    EXPECT_EQ(this->lock_.acquire_until(request, past).status(), AcquireStatus::kTimedOut);
  }
  EXPECT_EQ(this->lock_.active_locks(), 0u);
}

TYPED_TEST(PathLockConformance, BadInputIsRejectedBeforeAnyLockIsTaken) {
  // A malformed key, a malformed path, an empty request: each throws an
  // InputError naming the problem while the request is built.
  const auto problem_of = [](auto&& build) {
    try {
      build();
    } catch (const model::InputError& e) {
      return std::optional<model::InputProblem>(e.problem());
    }
    return std::optional<model::InputProblem>();
  };
  EXPECT_TRUE(problem_of([&] { return this->lock_.write(model::Path::from_key("a//b")); }).has_value());
  EXPECT_TRUE(problem_of([&] { return this->lock_.read(model::Path::parse("/a/")); }).has_value());
  EXPECT_EQ(problem_of([&] { return this->lock_.acquire(model::Request({}, {})); }),
            model::InputProblem::kEmptyRequest);
  EXPECT_EQ(this->lock_.active_locks(), 0u);
  // The lock still works afterwards.
  EXPECT_TRUE(this->lock_.try_acquire(model::write(P("/a/b")).request()));
}

// Stop-token cancellation of an acquire that is queued, not one that has not
// started waiting yet: the test waits until the lock reports the acquire
// queued, and only then requests the stop. A cancellation that does not wake
// the waiter fails within seconds instead of hanging (the holder is then
// released, so the thread can finish and be joined).
enum class CancelledWait { kForever, kWithDeadline };
TYPED_TEST(PathLockConformance, AWaitingAcquireCanBeCancelled) {
  auto holder = this->lock_.write(P("/a"));
  const std::size_t held = this->lock_.active_locks();
  const auto request = model::write(P("/a/b")).request();
  auto& note = this->watchdog_.thread("waiter");
  for (const CancelledWait wait : {CancelledWait::kForever, CancelledWait::kWithDeadline}) {
    SCOPED_TRACE(wait == CancelledWait::kForever ? "acquire(request, stop)" : "acquire_for(request, 60s, stop)");
    std::stop_source stop;
    constexpr int kWaiting = -1;
    std::atomic<int> status{kWaiting};
    std::thread waiter([&] {
      note.at(ThreadPhase::kAcquiring, request);
      auto g = wait == CancelledWait::kForever ? this->lock_.acquire(request, stop.get_token())
                                               : this->lock_.acquire_for(request, 60s, stop.get_token());
      status = static_cast<int>(g.status());
      note.at(ThreadPhase::kDone);
    });
    ASSERT_TRUE(eventually([&] { return this->lock_.waiting_acquisitions() == 1; }))
        << "the acquire never queued behind the holder: the test would not reach its case";
    EXPECT_EQ(this->lock_.check_invariants(), "");  // with one sleeper record for the queued acquire
    EXPECT_EQ(status.load(), kWaiting);
    stop.request_stop();
    if (!eventually([&] { return status.load() != kWaiting; })) {
      ADD_FAILURE() << "the stop did not wake the queued acquire";
      holder.release();
    }
    waiter.join();
    ASSERT_EQ(status.load(), static_cast<int>(AcquireStatus::kCancelled));
    EXPECT_EQ(this->lock_.waiting_acquisitions(), 0u);
    EXPECT_EQ(this->lock_.active_locks(), held);  // the withdrawn waiter left nothing behind
  }
  // A stop requested before the call: nothing is taken.
  std::stop_source already;
  already.request_stop();
  EXPECT_EQ(this->lock_.acquire(model::read(P("/z")).request(), already.get_token()).status(),
            AcquireStatus::kCancelled);
  EXPECT_EQ(this->lock_.active_locks(), held);
}

TYPED_TEST(PathLockConformance, GuardsMoveAndReleaseOnce) {
  PathLock::Guard outer;
  EXPECT_EQ(outer.status(), AcquireStatus::kReleased);
  {
    auto inner = this->lock_.rename(P("/a"), P("/b"));
    outer = std::move(inner);
    EXPECT_EQ(inner.status(), AcquireStatus::kReleased);  // NOLINT(bugprone-use-after-move)
  }
  EXPECT_TRUE(outer);
  EXPECT_GT(this->lock_.active_locks(), 0u);
  PathLock::Guard moved(std::move(outer));
  moved.release();
  moved.release();
  EXPECT_EQ(this->lock_.active_locks(), 0u);
}

// The table shapes the stress tests run under: an LRU cache of idle
// entries, and shapes where (nearly) every release evicts and every acquire
// re-creates its entries, so that a race between an eviction and a thread
// about to queue on the entry is exercised on every step, not by chance.
struct TableShape {
  std::size_t shards;
  std::size_t max_idle;
};
constexpr TableShape kStressShapes[] = {{4, 2}, {2, 1}, {1, 0}};
constexpr std::uint64_t kStressSeed = 7;
// Rounds of the stress test: fewer under a sanitizer, whose instrumentation
// catches a race on the first occurrence and makes each round many times
// slower.
constexpr int kStressRounds = Watchdog::under_sanitizer() ? 3 : 12;

// N threads do random operations on a small tree, some with timeouts and
// some with try_acquire; a shadow registry checks every grant against every
// request holding at the time, with model::conflicts (the requests must not
// conflict) and with impl::plans_conflict (the lock must enforce its plans,
// even where the scheme blocks more than the model needs, as the global
// schemes do: a lost hold shows there too). The threads are joined
// after each round, a quiescent point where the lock's invariants, its
// active count and its idle bound are checked: a corrupted table is caught
// at the round that corrupted it, whether or not it crashed anything.
template <typename S>
void stress(const std::vector<model::Operation>& ops, int threads, int rounds, int iterations) {
  std::vector<model::Request> requests;
  std::vector<impl::Plan> plans;
  for (const auto& op : ops) {
    requests.push_back(op.request());
    plans.push_back(impl::plan_for(S::scheme(), requests.back()));
  }
  for (const TableShape shape : kStressShapes) {
    SCOPED_TRACE(::testing::Message() << "shards " << shape.shards << ", max idle " << shape.max_idle << ", seed "
                                      << kStressSeed);
    PathLock lock(S::scheme(), PathLockOptions{.shards = shape.shards,
                                              .max_idle_locks_per_shard = shape.max_idle,
                                              .scheme_admission = kAnyScheme});
    Watchdog watchdog(current_test_name());
    watchdog.watch("lock", lock);
    std::vector<WatchedThread*> notes;
    for (int t = 0; t < threads; ++t) notes.push_back(&watchdog.thread("thread " + std::to_string(t)));
    std::mutex shadow_mu;
    std::vector<std::size_t> shadow;  // indices of the requests holding now
    std::atomic<int> violations{0};
    std::atomic<int> plan_violations{0};
    std::atomic<int> granted{0};
    for (int round = 0; round < rounds; ++round) {
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
          WatchedThread& note = *notes[static_cast<std::size_t>(t)];
          sim::Rng rng(sim::derive_seed(kStressSeed, static_cast<std::uint64_t>(round * threads + t)));
          for (int i = 0; i < iterations; ++i) {
            const std::size_t index = rng.below(requests.size());
            const auto& r = requests[index];
            note.at(ThreadPhase::kAcquiring, r);
            PathLock::Guard g;
            switch (rng.below(3)) {
              case 0: g = lock.acquire(r); break;
              case 1: g = lock.acquire_for(r, std::chrono::microseconds(rng.below(200))); break;
              default: g = lock.try_acquire(r); break;
            }
            if (!g) continue;
            note.at(ThreadPhase::kHolding, r);
            ++granted;
            {
              std::lock_guard<std::mutex> hold(shadow_mu);
              for (const std::size_t other : shadow) {
                if (model::conflicts(r, requests[other])) ++violations;
                if (impl::plans_conflict(S::scheme(), plans[index], plans[other])) ++plan_violations;
              }
              shadow.push_back(index);
            }
            if (rng.below(2) == 0) std::this_thread::yield();
            {
              std::lock_guard<std::mutex> hold(shadow_mu);
              shadow.erase(std::find(shadow.begin(), shadow.end(), index));
            }
            note.at(ThreadPhase::kReleasing, r);
          }
          note.at(ThreadPhase::kDone);
        });
      }
      for (auto& th : pool) th.join();
      // Quiescent: nothing held, nothing waiting.
      ASSERT_EQ(lock.check_invariants(), "") << "after round " << round;
      ASSERT_EQ(lock.active_locks(), 0u) << "after round " << round;
      ASSERT_LE(lock.idle_locks(), shape.shards * shape.max_idle) << "after round " << round;
      ASSERT_EQ(violations.load(), 0) << "conflicting requests held together, by round " << round;
      ASSERT_EQ(plan_violations.load(), 0) << "requests whose plans conflict held together, by round " << round;
    }
    EXPECT_GT(granted.load(), 0);
  }
}

std::vector<model::Operation> stress_ops(bool multi_path) {
  std::vector<model::Operation> ops;
  const auto paths = sim::generate_tree({3, 2});
  for (const auto& p : paths) {
    ops.push_back(model::read(p));
    ops.push_back(model::write(p));
  }
  if (multi_path) {
    for (std::size_t i = 0; i + 3 < paths.size(); i += 3) {
      ops.push_back(model::rename(paths[i], paths[i + 3]));
      ops.push_back(model::copy(paths[i + 1], paths[i]));  // out of and into own subtrees
      ops.push_back(model::copy(paths[i], paths[i + 2]));
    }
  }
  return ops;
}

TYPED_TEST(PathLockConformance, StressNoConflictingRequestsEverHoldTogether) {
  // path-rwa is unsafe for reads above own writes (a known result), so it is
  // stressed on single-path requests only.
  const bool multi = TypeParam::scheme().name() != "path-rwa";
  stress<TypeParam>(stress_ops(multi), 4, kStressRounds, 500);
}

// Plans longer than the Guard's and StepBuffer's inline capacity (32 steps):
// a write 40 levels deep takes 41 locks, the rest on the heap. The guard
// holds all of them, blocks what conflicts with the deepest one, rolls back a
// blocked acquire that already holds more than 32, moves, and releases every
// lock (ASan checks the heap paths).
Path deep_path(int depth, std::string_view leaf = "") {
  std::string text;
  for (int i = 0; i < depth; ++i) text += "/d" + std::to_string(i);
  if (!leaf.empty()) text += "/" + std::string(leaf);
  return P(text);
}

TYPED_TEST(PathLockConformance, DeepPlansBeyondTheInlineStepsHoldEveryLock) {
  const auto& scheme = TypeParam::scheme();
  const Path deep = deep_path(40);
  const auto write = model::write(deep).request();
  const std::size_t steps = impl::plan_for(scheme, write).size();
  ASSERT_GT(steps, 0u);
  auto guard = this->lock_.acquire(write);
  ASSERT_TRUE(guard);
  EXPECT_EQ(guard.lock_count(), steps);
  if (scheme.granularity() == impl::Granularity::kPerPath) {
    EXPECT_EQ(steps, 41u);
    EXPECT_GT(steps, impl::StepBuffer::kInline);
    EXPECT_EQ(this->lock_.active_locks(), steps);
  }
  // Conflicting requests on the deepest lock and below it are refused.
  EXPECT_EQ(this->lock_.try_acquire(write).status(), AcquireStatus::kWouldBlock);
  const auto below = model::write(deep_path(40, "x")).request();
  EXPECT_EQ(this->lock_.acquire_for(below, 1ms).status(), AcquireStatus::kTimedOut);
  EXPECT_EQ(this->lock_.active_locks(), guard.lock_count());  // the rollback released all it held
  // A reader beside the deep path but under its top folder may run (per-path
  // schemes that allow it) or not; either way its answer is the plans'.
  const auto beside = model::read(P("/d0/other")).request();
  const bool plans_allow = !impl::plans_conflict(scheme, impl::plan_for(scheme, write), impl::plan_for(scheme, beside));
  EXPECT_EQ(this->lock_.try_acquire(beside).owns_lock(), plans_allow);
  PathLock::Guard moved(std::move(guard));
  EXPECT_EQ(moved.lock_count(), steps);
  PathLock::Guard assigned;
  assigned = std::move(moved);
  EXPECT_EQ(assigned.lock_count(), steps);
  assigned.release();
  EXPECT_EQ(this->lock_.active_locks(), 0u);
  EXPECT_TRUE(this->lock_.try_acquire(below));  // everything was released
}

// Many threads hit few paths with very short timeouts and no idle entries
// kept: entries are created, waited on, withdrawn and evicted all the time,
// under every scheme (the global ones have one lock, the root, so every
// release that leaves it idle evicts it). The table must be consistent at
// the quiescent point after each round. More threads than cores, so that a
// thread is often preempted inside the lock while another releases.
constexpr int kChurnThreads = 8;
constexpr int kChurnRounds = Watchdog::under_sanitizer() ? 4 : 128;
TYPED_TEST(PathLockConformance, EntriesComeAndGoUnderChurn) {
  PathLock lock(TypeParam::scheme(),
                PathLockOptions{.shards = 1, .max_idle_locks_per_shard = 0, .scheme_admission = kAnyScheme});
  Watchdog watchdog(current_test_name());
  watchdog.watch("lock", lock);
  const auto a = model::write(P("/hot/a")).request();
  const auto b = model::write(P("/hot")).request();
  std::vector<WatchedThread*> notes;
  for (int t = 0; t < kChurnThreads; ++t) notes.push_back(&watchdog.thread("thread " + std::to_string(t)));
  std::atomic<int> granted{0};
  for (int round = 0; round < kChurnRounds; ++round) {
    std::vector<std::thread> pool;
    for (int t = 0; t < kChurnThreads; ++t) {
      pool.emplace_back([&, t] {
        WatchedThread& note = *notes[static_cast<std::size_t>(t)];
        for (int i = 0; i < 500; ++i) {
          const auto& r = (i + t) % 2 ? a : b;
          note.at(ThreadPhase::kAcquiring, r);
          auto g = lock.acquire_for(r, std::chrono::microseconds(i % 50));
          if (g) ++granted;
        }
        note.at(ThreadPhase::kDone);
      });
    }
    for (auto& th : pool) th.join();
    ASSERT_EQ(lock.check_invariants(), "") << "after round " << round;
    ASSERT_EQ(lock.active_locks(), 0u) << "after round " << round;
    ASSERT_EQ(lock.idle_locks(), 0u) << "after round " << round;
  }
  EXPECT_GT(granted.load(), 0);
}

}  // namespace
}  // namespace pathlock

namespace pathlock {
namespace {

// NESTING: a blocking acquire by a thread that holds a guard of the same
// lock is reported, naming both requests, before anything is taken; one that
// can give up (a deadline, a stop token, a try) is not, nor is another
// thread's, nor one after the first guard is gone.
TEST(PathLockNesting, AnUnsafeNestedAcquireIsReportedNamingBothRequests) {
  using namespace std::chrono_literals;
  PathLock lock(impl::path_rwa_joined_scheme(), PathLockOptions{.unsafe_nesting = UnsafeNesting::kThrow});
  auto outer = lock.read(model::Path::parse("/a/x"));
  ASSERT_TRUE(outer);
  const auto inner = model::read(model::Path::parse("/a/y")).request();
  try {
    auto g = lock.acquire(inner);
    FAIL() << "not reported";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("R{/a/x}"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("R{/a/y}"), std::string::npos) << e.what();
  }
  EXPECT_EQ(lock.active_locks(), 3U);  // only the outer guard's: the report took nothing
  EXPECT_TRUE(lock.acquire_for(inner, 10ms));
  EXPECT_TRUE(lock.try_acquire(inner));
  std::stop_source stop;
  EXPECT_TRUE(lock.acquire(inner, stop.get_token()));
  {
    Watchdog watchdog(current_test_name());
    watchdog.watch("lock", lock);
    std::thread other([&] { EXPECT_TRUE(lock.acquire(inner)); });  // another thread holds nothing
    other.join();
  }
  outer.release();
  EXPECT_TRUE(lock.acquire(inner));
}

TEST(PathLockNesting, ReportedByDefaultOnlyInDebugBuilds) {
#ifdef NDEBUG
  EXPECT_EQ(PathLockOptions{}.unsafe_nesting, UnsafeNesting::kIgnore);
#else
  EXPECT_EQ(PathLockOptions{}.unsafe_nesting, UnsafeNesting::kAbort);
#endif
}

}  // namespace
}  // namespace pathlock

namespace pathlock {
namespace {

// Runs body(t, note, stop) on `threads` threads watched under this test's
// name for 300 ms, then stops and joins them. The body tells its note
// kDone before its requests go out of scope.
template <typename Body>
void run_for_a_while(PathLock& lock, unsigned threads, Body body) {
  using namespace std::chrono_literals;
  Watchdog watchdog(current_test_name());
  watchdog.watch("lock", lock);
  std::vector<WatchedThread*> notes;
  for (unsigned t = 0; t < threads; ++t) notes.push_back(&watchdog.thread("thread " + std::to_string(t)));
  std::atomic<bool> stop{false};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] { body(t, *notes[t], stop); });
  }
  std::this_thread::sleep_for(300ms);
  stop.store(true);
  for (auto& th : pool) th.join();
}

// The gates under 2-4 threads with no shadow mutex: the check is a pair
// of seq_cst counters (writers of the root; holders of anything below it),
// so nothing but the lock orders the threads and ThreadSanitizer sees the
// lock's own synchronisation. Readers and writers below the root hold it
// (and their folders) through the gates' fast path once they have taken
// them once; a writer of the root closes the root's gate.
TEST(PathLockGates, StressWithoutAShadowMutex) {
  for (unsigned threads : {2U, 3U, 4U}) {
    PathLock lock(impl::path_rwa_joined_scheme(), PathLockOptions{.shards = 4});
    std::atomic<int> root_writers{0};
    std::atomic<int> below{0};
    std::atomic<int> violations{0};
    run_for_a_while(lock, threads, [&](unsigned t, WatchedThread& note, const std::atomic<bool>& stop) {
      sim::Rng rng(1000 + t);
      const auto mine = model::Path::parse("/t" + std::to_string(t));
      const auto root_write = model::write(model::Path::parse("/")).request();
      const auto read_mine = model::read(mine).request();
      const auto write_below = model::write(model::Path::parse("/t" + std::to_string(t) + "/x")).request();
      while (!stop.load()) {
        const auto pick = rng.below(8);
        if (pick == 0) {
          note.at(ThreadPhase::kAcquiring, root_write);
          auto g = lock.acquire(root_write);
          if (root_writers.fetch_add(1) != 0 || below.load() != 0) violations.fetch_add(1);
          root_writers.fetch_sub(1);
        } else {
          const auto& r = pick < 5 ? read_mine : write_below;
          note.at(ThreadPhase::kAcquiring, r);
          auto g = lock.acquire(r);
          below.fetch_add(1);
          if (root_writers.load() != 0) violations.fetch_add(1);
          below.fetch_sub(1);
        }
      }
      note.at(ThreadPhase::kDone);
    });
    EXPECT_EQ(violations.load(), 0) << threads << " threads";
    EXPECT_EQ(lock.active_locks(), 0U);
    EXPECT_EQ(lock.check_invariants(), "");
  }
}

// Reads and writes of a few paths under 2-4 threads, as in the test above:
// each write takes its path's read gate's word, and takes that find no
// reader move the gate's readers to counts, readers that meet move them
// back (path_lock_gate.hpp: COUNTED READERS), so both ways and the
// switches between them run beside each other.
TEST(PathLockGates, CountedReadersStressWithoutAShadowMutex) {
  constexpr unsigned kPaths = 4;
  for (unsigned threads : {2U, 3U, 4U}) {
    PathLock lock(impl::path_rwa_joined_scheme(), PathLockOptions{.shards = 4});
    std::array<std::atomic<int>, kPaths> writers{};
    std::array<std::atomic<int>, kPaths> readers{};
    std::atomic<int> violations{0};
    run_for_a_while(lock, threads, [&](unsigned t, WatchedThread& note, const std::atomic<bool>& stop) {
      sim::Rng rng(2000 + t);
      std::vector<model::Request> reads;
      std::vector<model::Request> writes;
      for (unsigned i = 0; i < kPaths; ++i) {
        const auto path = model::Path::parse("/f/o" + std::to_string(i));
        reads.push_back(model::read(path).request());
        writes.push_back(model::write(path).request());
      }
      while (!stop.load()) {
        const auto i = rng.below(kPaths);
        if (rng.below(10) == 0) {
          note.at(ThreadPhase::kAcquiring, writes[i]);
          auto g = lock.acquire(writes[i]);
          if (writers[i].fetch_add(1) != 0 || readers[i].load() != 0) violations.fetch_add(1);
          writers[i].fetch_sub(1);
        } else {
          note.at(ThreadPhase::kAcquiring, reads[i]);
          auto g = lock.acquire(reads[i]);
          readers[i].fetch_add(1);
          if (writers[i].load() != 0) violations.fetch_add(1);
          readers[i].fetch_sub(1);
        }
      }
      note.at(ThreadPhase::kDone);
    });
    EXPECT_EQ(violations.load(), 0) << threads << " threads";
    EXPECT_EQ(lock.active_locks(), 0U);
    EXPECT_EQ(lock.check_invariants(), "");
  }
}

}  // namespace
}  // namespace pathlock
