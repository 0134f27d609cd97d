// How this compiler destroys the operand of a co_await, in each form a user
// may wrap PathLock's AcquireAwaitable in (path_lock.hpp: acquire_async).
// GCC 12.2 (Debian 12's compiler) destroys each member of an
// aggregate-initialized operand twice, `co_await Awaiter{}` included: an
// AcquireAwaitable there would release its stop token's state twice and
// corrupt the heap. The forms the header recommends must destroy once.

#include <gtest/gtest.h>

#include <coroutine>
#include <string>
#include <utility>

namespace {

// Made and destroyed counts of the objects of one run.
struct Lifetimes {
  int made = 0;
  int destroyed = 0;
};
Lifetimes* g_lifetimes = nullptr;

struct Counted {
  Counted() { ++g_lifetimes->made; }
  Counted(const Counted&) { ++g_lifetimes->made; }
  Counted(Counted&&) noexcept { ++g_lifetimes->made; }
  Counted& operator=(const Counted&) = default;
  Counted& operator=(Counted&&) noexcept = default;
  ~Counted() { ++g_lifetimes->destroyed; }
};

// An awaitable that owns something, as AcquireAwaitable owns its stop token.
struct OwningAwaitable {
  Counted owned;
  bool await_ready() noexcept { return true; }
  void await_suspend(std::coroutine_handle<>) noexcept {}
  int await_resume() noexcept { return 1; }
};
OwningAwaitable make_awaitable() { return OwningAwaitable{}; }

// A wrapper, as a user writes one around an awaitable (to log, to time).
struct AggregateWrapper {
  OwningAwaitable inner;
  bool await_ready() noexcept { return inner.await_ready(); }
  void await_suspend(std::coroutine_handle<> h) noexcept { inner.await_suspend(h); }
  int await_resume() noexcept { return inner.await_resume(); }
};
struct ConstructedWrapper {
  explicit ConstructedWrapper(OwningAwaitable inner) : inner_(std::move(inner)) {}
  bool await_ready() noexcept { return inner_.await_ready(); }
  void await_suspend(std::coroutine_handle<> h) noexcept { inner_.await_suspend(h); }
  int await_resume() noexcept { return inner_.await_resume(); }

 private:
  OwningAwaitable inner_;
};

struct Eager {
  struct promise_type {
    Eager get_return_object() noexcept { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { std::terminate(); }
  };
};

Eager await_a_call(int& sum) { sum += co_await make_awaitable(); }
Eager await_a_named_wrapper(int& sum) {
  AggregateWrapper wrapper{make_awaitable()};
  sum += co_await wrapper;
}
Eager await_a_constructed_wrapper(int& sum) { sum += co_await ConstructedWrapper(make_awaitable()); }
Eager await_an_aggregate_wrapper(int& sum) { sum += co_await AggregateWrapper{make_awaitable()}; }

template <typename Coroutine>
Lifetimes run(Coroutine coroutine) {
  Lifetimes lifetimes;
  g_lifetimes = &lifetimes;
  int sum = 0;
  coroutine(sum);
  g_lifetimes = nullptr;
  EXPECT_EQ(sum, 1) << "the coroutine did not run to its end";
  return lifetimes;
}

TEST(CoroutineOperand, ACalledAwaitableIsDestroyedOnce) {
  const Lifetimes l = run(await_a_call);
  EXPECT_EQ(l.destroyed, l.made);
}

TEST(CoroutineOperand, ANamedWrapperIsDestroyedOnce) {
  const Lifetimes l = run(await_a_named_wrapper);
  EXPECT_EQ(l.destroyed, l.made);
}

TEST(CoroutineOperand, AWrapperWithAConstructorIsDestroyedOnce) {
  const Lifetimes l = run(await_a_constructed_wrapper);
  EXPECT_EQ(l.destroyed, l.made);
}

// Not a property of pathlock, but of the compiler: told, not failed.
TEST(CoroutineOperand, AnAggregateInitializedOperandIsDestroyedOnceOrTheCompilerIsTold) {
  const Lifetimes l = run(await_an_aggregate_wrapper);
  if (l.destroyed != l.made) {
    GTEST_SKIP() << "this compiler (" << __VERSION__ << ") destroys the members of an aggregate-initialized co_await "
                 << "operand more than once (" << l.made << " made, " << l.destroyed << " destroyed): never "
                 << "co_await Wrapper{lock.acquire_async(...)} with it; name the wrapper first or give it a "
                 << "constructor (path_lock.hpp, acquire_async)";
  }
}

}  // namespace
