#include "acquisition.hpp"

#include <utility>

#include <fmt/format.h>

#include "request_conversion.hpp"

namespace pathlock::python {

Acquisition::Acquisition(py::object owner, NativeLock& lock, model::Request request,
                         std::optional<std::chrono::nanoseconds> timeout)
    : owner_(std::move(owner)), lock_(lock), request_(std::move(request)), timeout_(timeout) {}

void Acquisition::require_idle() const {
  if (guard_.owns_lock()) {
    throw py::value_error("lock(" + request_.to_string() +
                          ") already holds its locks; release it first, or make a new lock(...) for a second hold");
  }
  if (future_) throw py::value_error("lock(" + request_.to_string() + ") is already being awaited");
}

bool Acquisition::acquire(bool blocking, py::handle timeout) {
  require_idle();
  const auto wait = timeout.is_none() ? timeout_ : to_timeout(timeout);
  if (!blocking) {
    if (wait.has_value() && !timeout.is_none()) {
      throw py::value_error("acquire(blocking=False) takes no timeout");
    }
    guard_ = lock_.lock().try_acquire(request_);
    return guard_.owns_lock();
  }
  PathLock::Guard granted;
  {
    py::gil_scoped_release unlocked;  // other Python threads run while this one waits
    granted = wait.has_value() ? lock_.lock().acquire_for(request_, *wait) : lock_.lock().acquire(request_);
  }
  guard_ = std::move(granted);
  return guard_.owns_lock();
}

void Acquisition::release() noexcept { guard_.release(); }

void Acquisition::enter() {
  if (acquire(true, py::none())) return;
  const double seconds = std::chrono::duration<double>(timeout_.value_or(std::chrono::nanoseconds(0))).count();
  raise_timeout(fmt::format("lock({}) timed out after {:g} s; nothing is held", request_.to_string(), seconds));
}

std::string Acquisition::describe() const {
  return "<pathlock acquisition " + request_.to_string() + (held() ? " held>" : " not held>");
}

}  // namespace pathlock::python
