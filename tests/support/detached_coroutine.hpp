#pragma once
// A minimal fire-and-forget coroutine for the tests: it starts at once,
// and its frame is freed when it ends.

#include <coroutine>
#include <exception>

namespace pathlock::testing_support {

struct Detached {
  struct promise_type {
    Detached get_return_object() noexcept { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { std::terminate(); }
  };
};

}  // namespace pathlock::testing_support
