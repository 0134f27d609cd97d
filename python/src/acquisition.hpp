#pragma once
// What `lock(read=[...], write=[...])` returns: one request on one lock, a
// context manager for threads (`with`) and, in acquisition_async.cpp, for
// asyncio (`async with`). It holds at most one grant at a time; after a
// release it may be entered again.
#include <pybind11/pybind11.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "native_lock.hpp"
#include "pathlock/model/request.hpp"

namespace pathlock::python {

namespace py = pybind11;

class Acquisition {
 public:
  // `owner`: the Python lock object, kept alive while this exists, since the
  // lock must outlive every guard and pending acquisition.
  Acquisition(py::object owner, NativeLock& lock, model::Request request,
              std::optional<std::chrono::nanoseconds> timeout);

  // threading.Lock-style: blocks (the GIL released) until granted, or for
  // at most `timeout` seconds (None: this acquisition's own timeout), or not
  // at all with blocking=False. True iff granted; on False nothing is held.
  bool acquire(bool blocking, py::handle timeout);
  // Releases every lock now. Idempotent.
  void release() noexcept;
  // `with`: acquire(), raising TimeoutError if the timeout passed first.
  void enter();

  // `async with` (acquisition_async.cpp). __aenter__: takes the request
  // through the lock's async acquire, which never blocks the loop. Granted
  // at once: returns an awaitable already complete with the acquisition
  // (ready_awaitable.hpp), and nothing is allocated for the
  // wait. Otherwise: returns a coroutine awaiting a future that the
  // granting thread completes through loop.call_soon_threadsafe. If that
  // coroutine is cancelled (task.cancel(), asyncio.timeout, wait_for, or
  // this acquisition's own timeout) the wait is withdrawn: it holds nothing
  // and those queued behind it move up.
  py::object async_enter(py::handle self);
  // __aexit__: releases; returns an awaitable already complete with None.
  py::object async_exit();
  // On the loop's thread: completes the waiting future (call_soon_threadsafe).
  void deliver(std::uint64_t generation);
  // On the loop's thread, when the awaiting coroutine is cancelled or times
  // out: withdraws the wait, or releases the grant if it came first.
  void abandon() noexcept;

  bool held() const noexcept { return guard_.owns_lock(); }
  std::string describe() const;
  const model::Request& request() const noexcept { return request_; }

 private:
  void require_idle() const;

  py::object owner_;  // declared first: destroyed after guard_
  NativeLock& lock_;
  model::Request request_;
  std::optional<std::chrono::nanoseconds> timeout_;
  PathLock::Guard guard_;

  // The async acquire's state, touched only under the GIL.
  struct GrantHandler;
  void on_guard(PathLock::Guard guard, std::uint64_t generation, py::handle self) noexcept;
  PathLock::AsyncAcquisition pending_;
  py::object future_;  // null unless a wait is in progress
  // Bumped by each __aenter__ and each abandon: a handler that brings an
  // older generation's guard finds nobody waiting and lets it go.
  std::uint64_t generation_ = 0;
  // True while __aenter__ is inside async_acquire: a handler that runs then
  // runs inline, granted at once, and its result is read when it returns.
  bool in_async_call_ = false;
  std::optional<AcquireStatus> inline_status_;
};

}  // namespace pathlock::python
