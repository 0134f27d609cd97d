// PathLock's asynchronous acquire, under every built-in scheme: a handler
// runs exactly once, inline when every lock is free, else on the thread
// whose release (or cancel) completes the grant; FIFO holds as for a
// blocking acquire; a cancelled acquisition holds nothing and unblocks those
// queued behind it; a handler that releases at once does not recurse; the
// C++20 awaitable suspends only when it must. Most cases need no second
// thread: an acquisition that waits blocks none.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <coroutine>
#include <cstdio>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "pathlock/impl/plan.hpp"
#include "pathlock/model/conflict.hpp"
#include "pathlock/model/request.hpp"
#include "pathlock/path_lock.hpp"
#include "support/detached_coroutine.hpp"
#include "support/path_lock_support.hpp"
#include "support/watchdog.hpp"

namespace pathlock {
namespace {

using model::Path;
using testing_support::current_test_name;
using testing_support::eventually;
using testing_support::GlobalMutex;
using testing_support::GlobalRw;
using testing_support::PathRw;
using testing_support::PathRwa;
using testing_support::PathRwaJoined;
using testing_support::Watchdog;

Path P(std::string_view s) { return Path::parse(s); }

// What a handler saw: how often it ran, the guard it got, on which thread.
struct Outcome {
  int calls = 0;
  PathLock::Guard guard;
  AcquireStatus resumed_with = AcquireStatus::kReleased;  // a coroutine's: what its co_await returned
  std::thread::id thread;
  auto handler() {
    return [this](PathLock::Guard g) {
      ++calls;
      thread = std::this_thread::get_id();
      guard = std::move(g);
    };
  }
  AcquireStatus status() const { return guard.status(); }
};

template <typename S>
class PathLockAsync : public ::testing::Test {
 protected:
  // path-rwa's defects are known: its grants are still judged here.
  PathLockAsync()
      : lock_(S::scheme(), PathLockOptions{.shards = 8, .scheme_admission = SchemeAdmission::kAllowDefective}) {
    watchdog_.watch("lock_", lock_);
  }
  void TearDown() override {
    EXPECT_EQ(lock_.check_invariants(), "");
    EXPECT_EQ(lock_.waiting_acquisitions(), 0U);
  }
  PathLock lock_;
  Watchdog watchdog_{current_test_name()};
};
using AllSchemes = ::testing::Types<GlobalMutex, GlobalRw, PathRw, PathRwa, PathRwaJoined>;
TYPED_TEST_SUITE(PathLockAsync, AllSchemes);

TYPED_TEST(PathLockAsync, AFreeRequestIsGrantedInlineBeforeTheCallReturns) {
  Outcome done;
  auto acquisition = this->lock_.async_acquire(model::write(P("/a/b")).request(), done.handler());
  ASSERT_EQ(done.calls, 1);
  EXPECT_EQ(done.status(), AcquireStatus::kGranted);
  EXPECT_EQ(done.thread, std::this_thread::get_id());
  EXPECT_EQ(done.guard.lock_count(), impl::plan_for(this->lock_.scheme(), model::write(P("/a/b")).request()).size());
  EXPECT_EQ(acquisition.cancel(), CancelOutcome::kAlreadyCompleted);
  EXPECT_EQ(done.calls, 1);
  done.guard.release();
  EXPECT_EQ(this->lock_.active_locks(), 0U);
}

TYPED_TEST(PathLockAsync, AWaitingRequestBlocksNoThreadAndIsGrantedByTheRelease) {
  auto holder = this->lock_.acquire(model::write(P("/a")).request());
  Outcome done;
  auto acquisition = this->lock_.async_acquire(model::write(P("/a/b")).request(), done.handler());
  EXPECT_EQ(done.calls, 0) << "granted beside a conflicting holder";
  EXPECT_EQ(this->lock_.waiting_acquisitions(), 1U);
  EXPECT_NE(this->lock_.describe_waits().find("W{/a/b}"), std::string::npos) << this->lock_.describe_waits();
  holder.release();  // grants it, and runs its handler here, on this thread
  ASSERT_EQ(done.calls, 1);
  EXPECT_EQ(done.status(), AcquireStatus::kGranted);
  EXPECT_EQ(done.thread, std::this_thread::get_id());
  EXPECT_EQ(acquisition.cancel(), CancelOutcome::kAlreadyCompleted);
  EXPECT_EQ(done.status(), AcquireStatus::kGranted) << "a cancel after the grant took the guard away";
  done.guard.release();
  EXPECT_EQ(this->lock_.active_locks(), 0U);
}

TYPED_TEST(PathLockAsync, ALaterCompatibleRequestQueuesBehindAWaitingConflictingOne) {
  // A reader holds /docs; an async writer queues; a later async reader must
  // not pass the writer, though it is compatible with the holder.
  auto first = this->lock_.acquire(model::read(P("/docs")).request());
  if (this->lock_.try_acquire(model::read(P("/docs")).request()).status() != AcquireStatus::kGranted) {
    GTEST_SKIP() << "readers of one folder conflict under this scheme";
  }
  std::vector<std::string> order;
  PathLock::Guard writer_guard;
  PathLock::Guard reader_guard;
  auto writer = this->lock_.async_acquire(model::write(P("/docs")).request(), [&](PathLock::Guard g) {
    order.push_back("writer");
    writer_guard = std::move(g);
  });
  auto reader = this->lock_.async_acquire(model::read(P("/docs")).request(), [&](PathLock::Guard g) {
    order.push_back("reader");
    reader_guard = std::move(g);
  });
  EXPECT_TRUE(order.empty()) << "the later reader overtook the waiting writer";
  first.release();
  ASSERT_EQ(order, std::vector<std::string>{"writer"});
  writer_guard.release();
  ASSERT_EQ(order, (std::vector<std::string>{"writer", "reader"}));
  reader_guard.release();
}

TYPED_TEST(PathLockAsync, ACancelledRequestHoldsNothingAndUnblocksThoseBehindIt) {
  auto holder = this->lock_.acquire(model::read(P("/a")).request());
  Outcome writer;
  Outcome reader;
  auto writing = this->lock_.async_acquire(model::write(P("/a")).request(), writer.handler());
  auto reading = this->lock_.async_acquire(model::read(P("/a/b")).request(), reader.handler());
  ASSERT_EQ(writer.calls, 0);
  // The reader waits behind the writer (FIFO) or, under a global scheme,
  // behind the holder: cancelling the writer must not leave it stuck.
  EXPECT_EQ(writing.cancel(), CancelOutcome::kCancelled);
  ASSERT_EQ(writer.calls, 1) << "the handler of a queued acquisition runs before cancel() returns";
  EXPECT_EQ(writer.status(), AcquireStatus::kCancelled);
  EXPECT_EQ(writer.guard.lock_count(), 0U);
  EXPECT_EQ(writing.cancel(), CancelOutcome::kCancelled) << "a second cancel reports the first";
  EXPECT_EQ(writer.calls, 1);
  if (this->lock_.try_acquire(model::read(P("/a")).request()).status() == AcquireStatus::kGranted) {
    EXPECT_EQ(reader.calls, 1) << "a reader compatible with the holder stays queued behind a cancelled writer";
  }
  holder.release();
  ASSERT_EQ(reader.calls, 1);
  EXPECT_EQ(reader.status(), AcquireStatus::kGranted);
  EXPECT_EQ(reading.cancel(), CancelOutcome::kAlreadyCompleted);
  reader.guard.release();
  EXPECT_EQ(this->lock_.active_locks(), 0U);
}

TYPED_TEST(PathLockAsync, ATimerCancelsWithTimedOutAndOnlyWithdrawalReasonsAreAccepted) {
  auto holder = this->lock_.acquire(model::write(P("/a")).request());
  Outcome done;
  auto acquisition = this->lock_.async_acquire(model::write(P("/a")).request(), done.handler());
  EXPECT_THROW((void)acquisition.cancel(AcquireStatus::kGranted), std::invalid_argument);
  EXPECT_EQ(done.calls, 0);
  EXPECT_EQ(acquisition.cancel(AcquireStatus::kTimedOut), CancelOutcome::kCancelled);
  ASSERT_EQ(done.calls, 1);
  EXPECT_EQ(done.status(), AcquireStatus::kTimedOut);
}

TYPED_TEST(PathLockAsync, AMultiStepPlanWaitsAtEachBusyLockInTurn) {
  // rename(/a, /b) writes both: it waits for /a's holder, then for /b's.
  auto on_a = this->lock_.acquire(model::write(P("/a/x")).request());
  auto on_b = this->lock_.try_acquire(model::write(P("/b/y")).request());
  if (!on_b) GTEST_SKIP() << "writers of /a/x and /b/y conflict under this scheme";
  Outcome done;
  auto acquisition = this->lock_.async_acquire(model::rename(P("/a"), P("/b")).request(), done.handler());
  EXPECT_EQ(done.calls, 0);
  on_a.release();
  EXPECT_EQ(done.calls, 0) << "granted while /b/y is written";
  on_b.release();
  ASSERT_EQ(done.calls, 1);
  EXPECT_EQ(done.status(), AcquireStatus::kGranted);
  // It holds both now: a reader of either waits.
  EXPECT_EQ(this->lock_.try_acquire(model::read(P("/a")).request()).status(), AcquireStatus::kWouldBlock);
  EXPECT_EQ(this->lock_.try_acquire(model::read(P("/b/z")).request()).status(), AcquireStatus::kWouldBlock);
}

TYPED_TEST(PathLockAsync, DestroyingTheHandleDoesNotCancel) {
  auto holder = this->lock_.acquire(model::write(P("/a")).request());
  Outcome done;
  { auto detached = this->lock_.async_acquire(model::write(P("/a")).request(), done.handler()); }
  EXPECT_EQ(this->lock_.waiting_acquisitions(), 1U);
  holder.release();
  ASSERT_EQ(done.calls, 1);
  EXPECT_EQ(done.status(), AcquireStatus::kGranted);
}

// A long chain of acquisitions of one path, each handler releasing its guard
// at once: every release grants the next. Resumed one after another by the
// first release, not inside each other (a stack that deep would
// overflow).
TEST(PathLockAsyncChain, HandlersThatReleaseAtOnceDoNotRecurse) {
  PathLock lock(impl::path_rwa_joined_scheme());
  constexpr int kChain = 2000;
  int completed = 0;
  int depth = 0;
  int max_depth = 0;
  auto holder = lock.acquire(model::write(P("/hot")).request());
  const auto request = model::write(P("/hot")).request();
  std::vector<PathLock::AsyncAcquisition> chain;
  chain.reserve(kChain);
  for (int i = 0; i < kChain; ++i) {
    chain.push_back(lock.async_acquire(request, [&](PathLock::Guard g) {
      ++depth;
      max_depth = std::max(max_depth, depth);
      EXPECT_EQ(g.status(), AcquireStatus::kGranted);
      ++completed;
      g.release();  // grants the next one, which must not run inside this handler
      --depth;
    }));
  }
  EXPECT_EQ(lock.waiting_acquisitions(), static_cast<std::size_t>(kChain));
  holder.release();
  EXPECT_EQ(completed, kChain);
  EXPECT_EQ(max_depth, 1);
  EXPECT_EQ(lock.active_locks(), 0U);
  EXPECT_EQ(lock.check_invariants(), "");
}

// A handler that stores its guard where the releasing guard lives: the
// release must be over (its state final) before the handler runs, or the
// assignment would release the old holds twice and lose the new ones.
TEST(PathLockAsyncReentry, AHandlerMayAssignToTheGuardWhoseReleaseGrantedIt) {
  PathLock lock(impl::path_rwa_joined_scheme());
  const auto request = model::write(P("/a")).request();
  PathLock::Guard g = lock.acquire(request);
  int runs = 0;
  auto acquisition = lock.async_acquire(request, [&](PathLock::Guard granted) {
    ++runs;
    g = std::move(granted);
  });
  g.release();  // grants the async one, whose handler moves its guard into g
  ASSERT_EQ(runs, 1);
  EXPECT_TRUE(g.owns_lock());
  g.release();
  EXPECT_EQ(lock.active_locks(), 0U) << "a lock leaked: " << lock.describe_waits();
  EXPECT_EQ(lock.try_acquire(request).status(), AcquireStatus::kGranted);
  EXPECT_EQ(lock.check_invariants(), "");
}

// A handler that releases and starts the next acquisition, granted at once:
// that one's handler runs after this one returns, not inside it.
TEST(PathLockAsyncReentry, AHandlerThatAcquiresAgainInlineDoesNotNest) {
  PathLock lock(impl::path_rwa_joined_scheme());
  const auto request = model::write(P("/a/b")).request();
  constexpr int kChain = 20'000;
  int started = 0;
  int depth = 0;
  int max_depth = 0;
  std::vector<PathLock::AsyncAcquisition> handles;
  handles.reserve(kChain);
  std::function<void(PathLock::Guard)> step = [&](PathLock::Guard g) {
    ++depth;
    max_depth = std::max(max_depth, depth);
    EXPECT_EQ(g.status(), AcquireStatus::kGranted);
    g.release();
    if (++started < kChain) handles.push_back(lock.async_acquire(request, step));
    --depth;
  };
  handles.push_back(lock.async_acquire(request, step));
  EXPECT_EQ(started, kChain);
  EXPECT_EQ(max_depth, 1);
  EXPECT_EQ(lock.active_locks(), 0U);
}

// --- C++20 coroutines ----------------------------------------------------------

// The calling thread's id, read afresh: a compiler may keep a thread's
// identity (pthread_self is declared const) across a co_await, after which
// the coroutine can be running on another thread (clang did). A call
// through a volatile pointer is one it cannot see through.
std::thread::id this_thread_id() { return std::this_thread::get_id(); }
std::thread::id (*volatile running_thread)() = this_thread_id;

using testing_support::Detached;

Detached hold_until_told(PathLock& lock, model::Request request, std::stop_token stop, Outcome& out,
                         std::atomic<bool>& release_now) {
  PathLock::Guard g = co_await lock.acquire_async(request, stop);
  out.thread = running_thread();
  out.resumed_with = g.status();
  ++out.calls;
  if (g.owns_lock() && release_now.load()) g.release();
  out.guard = std::move(g);
}

TEST(PathLockAsyncCoroutine, AFreeRequestDoesNotSuspendAndABusyOneResumesOnTheGrantingThread) {
  PathLock lock(impl::path_rwa_joined_scheme());
  std::atomic<bool> release_now{false};
  Outcome inline_case;
  hold_until_told(lock, model::read(P("/a")).request(), {}, inline_case, release_now);
  ASSERT_EQ(inline_case.calls, 1) << "a free request suspended";
  EXPECT_EQ(inline_case.status(), AcquireStatus::kGranted);

  Outcome waiting_case;
  release_now = true;
  hold_until_told(lock, model::write(P("/a/b")).request(), {}, waiting_case, release_now);
  EXPECT_EQ(waiting_case.calls, 0) << "resumed beside a conflicting reader";
  std::thread releaser([&] { inline_case.guard.release(); });
  const auto releaser_id = releaser.get_id();
  releaser.join();
  ASSERT_EQ(waiting_case.calls, 1);
  EXPECT_EQ(waiting_case.thread, releaser_id) << "not resumed on the granting thread";
  EXPECT_EQ(lock.active_locks(), 0U);
}

TEST(PathLockAsyncCoroutine, AStopRequestCancelsTheWait) {
  PathLock lock(impl::path_rwa_joined_scheme());
  auto holder = lock.acquire(model::write(P("/a")).request());
  std::stop_source stop;
  std::atomic<bool> release_now{false};
  Outcome done;
  hold_until_told(lock, model::write(P("/a")).request(), stop.get_token(), done, release_now);
  EXPECT_EQ(done.calls, 0);
  stop.request_stop();
  ASSERT_EQ(done.calls, 1);
  EXPECT_EQ(done.status(), AcquireStatus::kCancelled);
  EXPECT_EQ(lock.waiting_acquisitions(), 0U);
  EXPECT_EQ(lock.check_invariants(), "");
}

// As a blocking acquire with that token: nothing is taken, even where
// everything is free, and the coroutine does not suspend.
TEST(PathLockAsyncCoroutine, AStopRequestedBeforeTheAwaitCancelsItFreeOrBusy) {
  PathLock lock(impl::path_rwa_joined_scheme());
  std::stop_source stop;
  stop.request_stop();
  std::atomic<bool> release_now{false};
  Outcome free_case;
  hold_until_told(lock, model::write(P("/a/b")).request(), stop.get_token(), free_case, release_now);
  ASSERT_EQ(free_case.calls, 1) << "suspended";
  EXPECT_EQ(free_case.status(), AcquireStatus::kCancelled);
  EXPECT_EQ(free_case.guard.lock_count(), 0U);
  free_case.guard.release();  // (held only if the test fails: the rest would wait for it)
  EXPECT_EQ(lock.active_locks(), 0U);
  EXPECT_EQ(lock.acquire(model::write(P("/a/b")).request(), stop.get_token()).status(), AcquireStatus::kCancelled)
      << "the blocking acquire it must agree with";

  auto holder = lock.acquire(model::write(P("/a")).request());
  Outcome busy_case;
  hold_until_told(lock, model::write(P("/a/b")).request(), stop.get_token(), busy_case, release_now);
  ASSERT_EQ(busy_case.calls, 1) << "suspended";
  EXPECT_EQ(busy_case.status(), AcquireStatus::kCancelled);
  EXPECT_EQ(lock.waiting_acquisitions(), 0U);
  holder.release();
  EXPECT_EQ(lock.active_locks(), 0U);
  EXPECT_EQ(lock.check_invariants(), "");
}

// A stop and the grant race: the coroutine resumes exactly once, granted
// (then it releases) or cancelled (holding nothing), and nothing is left
// held or queued either way.
TEST(PathLockAsyncCoroutine, AStopRacingTheGrantResumesTheCoroutineOnceGrantedOrCancelled) {
  PathLock lock(impl::path_rwa_joined_scheme());
  Watchdog watchdog(current_test_name());
  watchdog.watch("lock", lock);
  constexpr int kRounds = 2000;
  int granted = 0;
  int cancelled = 0;
  for (int round = 0; round < kRounds; ++round) {
    auto holder = lock.acquire(model::write(P("/a")).request());
    std::stop_source stop;
    std::atomic<bool> release_now{true};
    Outcome out;
    hold_until_told(lock, model::write(P("/a/b")).request(), stop.get_token(), out, release_now);
    ASSERT_EQ(out.calls, 0) << "resumed beside the holder of /a";
    std::atomic<int> ready{0};
    const auto together = [&ready] {
      ready.fetch_add(1);
      while (ready.load() < 2) {
      }
    };
    std::thread releaser([&] {
      together();
      holder.release();
    });
    std::thread stopper([&] {
      together();
      stop.request_stop();
    });
    releaser.join();
    stopper.join();
    ASSERT_EQ(out.calls, 1) << "round " << round;
    const AcquireStatus status = out.resumed_with;
    ASSERT_TRUE(status == AcquireStatus::kGranted || status == AcquireStatus::kCancelled)
        << "round " << round << ": " << to_string(status);
    (status == AcquireStatus::kGranted ? granted : cancelled) += 1;
    EXPECT_FALSE(out.guard.owns_lock()) << "round " << round << ": the coroutine released what it was granted";
    ASSERT_EQ(lock.waiting_acquisitions(), 0U) << "round " << round;
    ASSERT_EQ(lock.active_locks(), 0U) << "round " << round;
  }
  std::printf("%d rounds granted, %d cancelled\n", granted, cancelled);
  EXPECT_EQ(lock.check_invariants(), "");
}

// A coroutine resumed by a grant runs as that grant's handler: a free
// request it then awaits is granted at once, but its continuation waits
// until that handler returns (handlers never nest), so the coroutine
// suspends there and is resumed from the releasing thread's queue, before
// the release that granted the first returns.
// An awaitable as the coroutine sees it, and whether the coroutine asked
// to suspend at it (await_ready returned false).
template <typename Awaitable>
struct SuspensionSpy {
  Awaitable inner;
  bool& suspended;
  bool await_ready() { return inner.await_ready(); }
  bool await_suspend(std::coroutine_handle<> coroutine) {
    suspended = true;
    return inner.await_suspend(coroutine);
  }
  auto await_resume() { return inner.await_resume(); }
};

Detached take_two_in_turn(PathLock& lock, model::Request first, model::Request second, Outcome& out,
                          bool& suspended_at_second) {
  PathLock::Guard a = co_await lock.acquire_async(first);
  // Named: GCC 12 destroys an aggregate co_await operand's members twice.
  SuspensionSpy<PathLock::AcquireAwaitable> spy{lock.acquire_async(second), suspended_at_second};
  PathLock::Guard b = co_await spy;
  out.thread = running_thread();
  ++out.calls;
  EXPECT_EQ(a.status(), AcquireStatus::kGranted);
  out.guard = std::move(b);
}

TEST(PathLockAsyncCoroutine, AFreeRequestAwaitedInsideAGrantsHandlerResumesOnTheGrantingThread) {
  PathLock lock(impl::path_rwa_joined_scheme());
  auto holder = lock.acquire(model::write(P("/a")).request());
  Outcome out;
  bool suspended_at_second = false;
  take_two_in_turn(lock, model::write(P("/a")).request(), model::write(P("/b")).request(), out,
                   suspended_at_second);
  EXPECT_EQ(out.calls, 0) << "resumed beside the holder of /a";
  std::thread releaser([&] { holder.release(); });
  const auto releaser_id = releaser.get_id();
  releaser.join();
  ASSERT_EQ(out.calls, 1) << "the second co_await never resumed";
  // Granted at once but not ready: had it gone on, the code after it would
  // have run inside the first grant's handler (nested).
  EXPECT_TRUE(suspended_at_second) << "the second co_await went on inside the first one's grant";
  EXPECT_EQ(out.thread, releaser_id);
  EXPECT_EQ(out.status(), AcquireStatus::kGranted);
  out.guard.release();
  EXPECT_EQ(lock.active_locks(), 0U);
  EXPECT_EQ(lock.check_invariants(), "");
}

// --- many threads ----------------------------------------------------------------

// Threads mix blocking and async acquires of random requests, cancel some
// async ones at random points, and check by the model that no two
// conflicting requests ever hold at once (a hold is marked inside the
// handler or after the blocking call, and unmarked before release).
TEST(PathLockAsyncStress, BlockingAndAsyncAcquiresNeverHoldConflictingRequestsTogether) {
  PathLock lock(impl::path_rwa_joined_scheme(), PathLockOptions{.shards = 4, .max_idle_locks_per_shard = 2});
  Watchdog watchdog(current_test_name());
  watchdog.watch("lock", lock);
  const std::vector<Path> paths = {P("/a"), P("/a/b"), P("/a/b/c"), P("/a/bc"), P("/d"), P("/d/e")};
  std::vector<model::Request> requests;
  for (const auto& p : paths) {
    requests.push_back(model::read(p).request());
    requests.push_back(model::write(p).request());
  }
  requests.push_back(model::rename(P("/a/b"), P("/d")).request());
  requests.push_back(model::copy(P("/d/e"), P("/a/bc")).request());

  std::mutex held_mu;  // guards `held` only: never held across a lock call
  std::vector<const model::Request*> held;
  std::atomic<int> violations{0};
  std::atomic<int> completions{0};
  const auto mark = [&](const model::Request* r) {
    std::lock_guard<std::mutex> hold(held_mu);
    for (const auto* other : held) {
      if (model::conflicts(*other, *r)) violations.fetch_add(1);
    }
    held.push_back(r);
  };
  const auto unmark = [&](const model::Request* r) {
    std::lock_guard<std::mutex> hold(held_mu);
    held.erase(std::find(held.begin(), held.end(), r));
  };
  constexpr int kThreads = 4;
  constexpr int kRounds = 20000;
  std::atomic<int> issued{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      std::mt19937 rng(static_cast<unsigned>(1234 + t));
      for (int i = 0; i < kRounds; ++i) {
        const model::Request* r = &requests[rng() % requests.size()];
        if (rng() % 2 == 0) {
          auto g = lock.acquire(*r);
          mark(r);
          unmark(r);
          g.release();
          continue;
        }
        issued.fetch_add(1);
        auto acquisition = lock.async_acquire(*r, [&, r](PathLock::Guard g) {
          if (g.owns_lock()) {
            mark(r);
            unmark(r);
            g.release();
          }
          completions.fetch_add(1);
        });
        if (rng() % 3 == 0) (void)acquisition.cancel();
      }
    });
  }
  for (auto& th : pool) th.join();
  ASSERT_TRUE(eventually([&] { return completions.load() == issued.load(); }))
      << completions.load() << " of " << issued.load() << " async acquisitions completed\n"
      << lock.describe_waits();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(lock.active_locks(), 0U);
  EXPECT_EQ(lock.check_invariants(), "");
}

// Coroutines on many threads await random requests: an acquisition that
// queues may be granted on another thread before its coroutine has
// suspended (the awaitable's hand-off decides who resumes it), and no two
// conflicting requests hold at once.
struct Holds {
  std::mutex mu;  // guards `held` only: never held across a lock call
  std::vector<const model::Request*> held;
  std::atomic<int> violations{0};
  std::atomic<int> completions{0};
  std::atomic<int> resumed_elsewhere{0};  // coroutines resumed by another thread's grant
  void mark(const model::Request* r) {
    std::lock_guard<std::mutex> hold(mu);
    for (const auto* other : held) {
      if (model::conflicts(*other, *r)) violations.fetch_add(1);
    }
    held.push_back(r);
  }
  void unmark(const model::Request* r) {
    std::lock_guard<std::mutex> hold(mu);
    held.erase(std::find(held.begin(), held.end(), r));
  }
};

Detached hold_briefly(PathLock& lock, const model::Request* request, Holds& holds, std::atomic<int>& in_flight) {
  const std::thread::id started_on = running_thread();
  PathLock::Guard g = co_await lock.acquire_async(*request);
  if (running_thread() != started_on) holds.resumed_elsewhere.fetch_add(1);
  if (g.owns_lock()) {
    holds.mark(request);
    holds.unmark(request);
    g.release();
  }
  holds.completions.fetch_add(1);
  in_flight.fetch_sub(1);
}

TEST(PathLockAsyncStress, CoroutinesOnManyThreadsNeverHoldConflictingRequestsTogether) {
  PathLock lock(impl::path_rwa_joined_scheme(), PathLockOptions{.shards = 4, .max_idle_locks_per_shard = 2});
  Watchdog watchdog(current_test_name());
  watchdog.watch("lock", lock);
  std::vector<model::Request> requests;
  for (const char* p : {"/a", "/a/b", "/a/b/c", "/d"}) {
    requests.push_back(model::read(P(p)).request());
    requests.push_back(model::write(P(p)).request());
  }
  Holds holds;
  constexpr int kThreads = 4;
  constexpr int kRounds = 20000;
  constexpr int kInFlight = 4;
  // Held until every thread has an acquisition queued behind it: those are
  // granted by this thread's release, so the hand-off is exercised however
  // the threads happen to interleave afterwards.
  auto first_holder = lock.acquire(model::write(P("/a")).request());
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      std::mt19937 rng(static_cast<unsigned>(4321 + t));
      // A few coroutines in flight per thread: queues stay short.
      std::atomic<int> in_flight{0};
      for (int i = 0; i < kRounds; ++i) {
        while (in_flight.load() >= kInFlight) std::this_thread::yield();
        in_flight.fetch_add(1);
        hold_briefly(lock, &requests[rng() % requests.size()], holds, in_flight);
      }
      while (in_flight.load() != 0) std::this_thread::yield();
    });
  }
  const bool all_queued = eventually([&] { return lock.waiting_acquisitions() >= kThreads; });
  first_holder.release();
  for (auto& th : pool) th.join();
  ASSERT_TRUE(all_queued) << "fewer than " << kThreads << " acquisitions queued behind a held /a\n"
                          << lock.describe_waits();
  ASSERT_TRUE(eventually([&] { return holds.completions.load() == kThreads * kRounds; }))
      << holds.completions.load() << " of " << kThreads * kRounds << " coroutines resumed\n"
      << lock.describe_waits();
  EXPECT_EQ(holds.violations.load(), 0);
  EXPECT_EQ(lock.active_locks(), 0U);
  EXPECT_EQ(lock.check_invariants(), "");
  std::printf("%d of %d coroutines were resumed by another thread's grant\n", holds.resumed_elsewhere.load(),
              kThreads * kRounds);
  EXPECT_GE(holds.resumed_elsewhere.load(), kThreads)
      << "the acquisitions queued behind /a were not resumed by its release";
}

}  // namespace
}  // namespace pathlock
