// Acquisition's asyncio side: PathLock::async_acquire bridged to an asyncio
// future. The handler runs inline (granted at once) or on whichever thread
// completes the grant; it takes the GIL and hands the result to the loop
// with call_soon_threadsafe, never running Python code of the waiter on a
// foreign thread.
#include <fmt/format.h>

#include <new>
#include <utility>

#include "acquisition.hpp"
#include "ready_awaitable.hpp"

namespace pathlock::python {

namespace {

py::handle await_grant() {
  static PyObject* function = py::object(py::module_::import("pathlock._waiting").attr("await_grant")).release().ptr();
  return function;
}

}  // namespace

// The handler given to async_acquire: holds a strong reference to the
// acquisition's Python object, given up under the GIL when it runs (exactly
// once).
struct Acquisition::GrantHandler {
  PyObject* self;
  Acquisition* acquisition;
  std::uint64_t generation;
  void operator()(PathLock::Guard guard) noexcept {
    py::gil_scoped_acquire gil;
    const auto owner = py::reinterpret_steal<py::object>(self);
    acquisition->on_guard(std::move(guard), generation, owner);
  }
};

void Acquisition::on_guard(PathLock::Guard guard, std::uint64_t generation, py::handle self) noexcept {
  if (generation != generation_) return;  // nobody waits for it: `guard` releases as it goes
  if (in_async_call_) {
    inline_status_ = guard.status();
    guard_ = std::move(guard);
    return;
  }
  guard_ = std::move(guard);
  try {
    future_.attr("get_loop")().attr("call_soon_threadsafe")(py::reinterpret_borrow<py::object>(self).attr("_deliver"),
                                                            generation);
  } catch (py::error_already_set& e) {
    // The loop is closed: nobody can await the grant any more.
    guard_.release();
    e.discard_as_unraisable("pathlock: handing a grant to a closed event loop");
  }
}

py::object Acquisition::async_enter(py::handle self) {
  require_idle();
  const std::uint64_t generation = ++generation_;
  inline_status_.reset();
  in_async_call_ = true;
  PathLock::AsyncAcquisition handle;
  self.inc_ref();  // the handler's reference
  try {
    handle = lock_.lock().async_acquire(request_, GrantHandler{self.ptr(), this, generation});
  } catch (...) {  // out of memory before queueing: the handler never runs
    in_async_call_ = false;
    self.dec_ref();
    throw;
  }
  in_async_call_ = false;
  if (inline_status_.has_value()) {
    if (guard_.owns_lock()) return ready_awaitable(self);  // `as` binds the acquisition
    throw std::bad_alloc();  // kFailed: the only way an inline completion holds nothing
  }
  pending_ = std::move(handle);
  future_ = py::module_::import("asyncio").attr("get_running_loop")().attr("create_future")();
  py::object timeout = timeout_.has_value() ? py::cast(std::chrono::duration<double>(*timeout_).count()) : py::none();
  return await_grant()(self, future_, timeout);
}

void Acquisition::deliver(std::uint64_t generation) {
  if (generation != generation_ || !future_) return;
  py::object future = std::exchange(future_, py::object());
  pending_ = {};
  if (future.attr("done")().cast<bool>()) return;  // cancelled: the coroutine's abandon() releases
  if (guard_.owns_lock()) {
    future.attr("set_result")(py::none());
  } else if (guard_.status() == AcquireStatus::kFailed) {
    future.attr("set_exception")(py::module_::import("builtins").attr("MemoryError")(
        "pathlock: out of memory while taking lock(" + request_.to_string() + ")"));
  } else {
    future.attr("set_exception")(py::module_::import("builtins").attr("RuntimeError")(fmt::format(
        "pathlock: lock({}) ended {} while awaited", request_.to_string(), to_string(guard_.status()))));
  }
}

void Acquisition::abandon() noexcept {
  ++generation_;  // a handler still to come releases what it brings
  PathLock::AsyncAcquisition pending = std::move(pending_);
  // kCancelled: withdrawn, its handler ran inside cancel() with the old
  // generation; kAlreadyCompleted: its guard is in guard_ (released here)
  // or still on its way (released by on_guard).
  (void)pending.cancel();
  guard_.release();
  future_ = py::object();
}

py::object Acquisition::async_exit() {
  guard_.release();
  pending_ = {};
  return ready_awaitable(py::none());  // false: exceptions propagate
}

}  // namespace pathlock::python
