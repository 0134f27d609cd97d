// The README's asynchronous example: a callback, a cancel, a coroutine.
#include <coroutine>
#include <cstdio>
#include <exception>

#include <pathlock/pathlock.hpp>

using pathlock::AcquireStatus;
using pathlock::Path;
using pathlock::PathLock;

// A fire-and-forget coroutine type (any coroutine library works the same).
struct Task {
  struct promise_type {
    Task get_return_object() noexcept { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { std::terminate(); }
  };
};

Task copy_folder(PathLock& lock, const pathlock::Request& copy) {
  pathlock::Guard guard = co_await lock.acquire_async(copy);  // suspends while /photos is written
  std::printf("copy: %s, %zu locks held\n", pathlock::to_string(guard.status()).data(), guard.lock_count());
}  // released here

int main() {
  PathLock lock(pathlock::path_rwa_joined_scheme());
  const auto write = pathlock::write(Path::parse("/photos/2024")).request();
  const auto copy = pathlock::copy(Path::parse("/photos"), Path::parse("/backup")).request();

  pathlock::Guard writing;
  // Free: the handler runs inline, before async_acquire returns.
  auto first = lock.async_acquire(write, [&](pathlock::Guard g) { writing = std::move(g); });

  // Busy: nothing runs yet, and no thread waits. Cancel it, as a timer would.
  auto second = lock.async_acquire(write, [](pathlock::Guard g) {
    std::printf("second write: %s\n", pathlock::to_string(g.status()).data());  // "timed out"
  });
  if (second.cancel(AcquireStatus::kTimedOut) == pathlock::CancelOutcome::kCancelled) {
    std::printf("second write withdrawn\n");
  }

  copy_folder(lock, copy);  // waits for the write: the coroutine is suspended
  writing.release();        // grants the copy and resumes the coroutine, here
  return lock.active_locks() == 0 ? 0 : 1;
}
