#pragma once
// What `lock(read=[...], write=[...])` returns: one request on one lock, a
// context manager for threads (`with`) and, in acquisition_async.cpp, for
// asyncio (`async with`). It holds at most one grant at a time; after a
// release it may be entered again.
#include <pybind11/pybind11.h>

#include <chrono>
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
};

}  // namespace pathlock::python
