// How this compiler destroys the operand of a co_await, in each form a user
// may wrap PathLock's AcquireAwaitable in (path_lock.hpp: acquire_async).
// GCC 12.2 (Debian 12's compiler) destroys the member of an
// aggregate-initialized operand twice (`co_await Wrapper{make()}`, and an
// aggregate awaiter's own members in `co_await Awaiter{}`); clang 14 does
// not. An AcquireAwaitable destroyed twice is undefined behaviour: with a
// stop token, ASan reports a heap-use-after-free. The forms the header
// recommends (a call, a named wrapper, a wrapper with a constructor that
// makes its awaitable) must destroy once. Each case runs twice: ready at
// once, and suspended and resumed, as a busy acquire_async is.

#include <gtest/gtest.h>

#include <coroutine>

#include "support/detached_coroutine.hpp"

namespace {

// Made and destroyed counts of the objects of one run.
struct Lifetimes {
  int made = 0;
  int destroyed = 0;
};
Lifetimes* g_lifetimes = nullptr;
// The coroutine a suspending awaitable parked, for the test to resume.
std::coroutine_handle<> g_parked;

struct Counted {
  Counted() { ++g_lifetimes->made; }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;
  ~Counted() { ++g_lifetimes->destroyed; }
};

enum class Suspends : bool { kNo, kYes };

// Owns something, as AcquireAwaitable owns its stop token, and is neither
// copied nor moved, as AcquireAwaitable is not: a wrapper holds it by
// guaranteed elision only.
class OwningAwaitable {
 public:
  explicit OwningAwaitable(Suspends suspends) : suspends_(suspends) {}
  OwningAwaitable(const OwningAwaitable&) = delete;
  OwningAwaitable& operator=(const OwningAwaitable&) = delete;
  bool await_ready() noexcept { return suspends_ == Suspends::kNo; }
  void await_suspend(std::coroutine_handle<> coroutine) noexcept { g_parked = coroutine; }
  int await_resume() noexcept { return 1; }

 private:
  Counted owned_;
  Suspends suspends_;
};
OwningAwaitable make_awaitable(Suspends suspends) { return OwningAwaitable(suspends); }

// Wrappers, as a user writes one around acquire_async (to log, to time).
struct AggregateWrapper {
  OwningAwaitable inner;
  bool await_ready() noexcept { return inner.await_ready(); }
  void await_suspend(std::coroutine_handle<> h) noexcept { inner.await_suspend(h); }
  int await_resume() noexcept { return inner.await_resume(); }
};
class ConstructedWrapper {
 public:
  explicit ConstructedWrapper(Suspends suspends) : inner_(make_awaitable(suspends)) {}
  bool await_ready() noexcept { return inner_.await_ready(); }
  void await_suspend(std::coroutine_handle<> h) noexcept { inner_.await_suspend(h); }
  int await_resume() noexcept { return inner_.await_resume(); }

 private:
  OwningAwaitable inner_;
};
// An aggregate awaiter that owns something itself.
struct AggregateAwaitable {
  Counted owned;
  Suspends suspends;
  bool await_ready() noexcept { return suspends == Suspends::kNo; }
  void await_suspend(std::coroutine_handle<> coroutine) noexcept { g_parked = coroutine; }
  int await_resume() noexcept { return 1; }
};

using pathlock::testing_support::Detached;

Detached await_a_call(Suspends s, int& sum) { sum += co_await make_awaitable(s); }
Detached await_a_named_wrapper(Suspends s, int& sum) {
  AggregateWrapper wrapper{make_awaitable(s)};
  sum += co_await wrapper;
}
Detached await_a_constructed_wrapper(Suspends s, int& sum) { sum += co_await ConstructedWrapper(s); }
Detached await_a_braced_constructed_wrapper(Suspends s, int& sum) { sum += co_await ConstructedWrapper{s}; }
Detached await_an_aggregate_wrapper(Suspends s, int& sum) { sum += co_await AggregateWrapper{make_awaitable(s)}; }
Detached await_an_aggregate_awaitable(Suspends s, int& sum) { sum += co_await AggregateAwaitable{{}, s}; }

template <typename Coroutine>
Lifetimes run(Coroutine coroutine, Suspends suspends) {
  Lifetimes lifetimes;
  g_lifetimes = &lifetimes;
  g_parked = nullptr;
  int sum = 0;
  coroutine(suspends, sum);
  if (suspends == Suspends::kYes) {
    EXPECT_TRUE(g_parked) << "the coroutine did not suspend";
    EXPECT_EQ(sum, 0) << "the coroutine went on past a suspension";
    if (g_parked) g_parked.resume();  // runs it to its end, which frees its frame
  }
  g_lifetimes = nullptr;
  EXPECT_EQ(sum, 1) << "the coroutine did not run to its end";
  return lifetimes;
}

template <typename Coroutine>
void expect_each_destroyed_once(Coroutine coroutine) {
  for (const Suspends s : {Suspends::kNo, Suspends::kYes}) {
    const Lifetimes l = run(coroutine, s);
    EXPECT_EQ(l.made, 1);
    EXPECT_EQ(l.destroyed, l.made) << (s == Suspends::kYes ? "suspended" : "ready at once");
  }
}

TEST(CoroutineOperand, ACalledAwaitableIsDestroyedOnce) { expect_each_destroyed_once(await_a_call); }

TEST(CoroutineOperand, ANamedWrapperIsDestroyedOnce) { expect_each_destroyed_once(await_a_named_wrapper); }

TEST(CoroutineOperand, AWrapperWithAConstructorIsDestroyedOnce) {
  expect_each_destroyed_once(await_a_constructed_wrapper);
  expect_each_destroyed_once(await_a_braced_constructed_wrapper);
}

// Not a property of pathlock but of the compiler: a compiler that destroys
// an aggregate operand's members twice is told (the test is skipped, with
// the reason); any other miscount fails.
TEST(CoroutineOperand, AnAggregateInitializedOperandIsDestroyedOnceOrTheCompilerIsTold) {
  int twice = 0;
  for (const auto coroutine : {await_an_aggregate_wrapper, await_an_aggregate_awaitable}) {
    for (const Suspends s : {Suspends::kNo, Suspends::kYes}) {
      const Lifetimes l = run(coroutine, s);
      EXPECT_EQ(l.made, 1);
      if (l.destroyed > l.made) {
        ++twice;
      } else {
        EXPECT_EQ(l.destroyed, l.made);
      }
    }
  }
  if (twice != 0) {
    GTEST_SKIP() << "this compiler (" << __VERSION__ << ") destroys the members of an aggregate-initialized co_await "
                 << "operand more than once (in " << twice << " of 4 cases): never co_await "
                 << "Wrapper{lock.acquire_async(...)} with it; await a named wrapper, or give the wrapper a "
                 << "constructor that calls acquire_async (path_lock.hpp, acquire_async)";
  }
}

}  // namespace
