#pragma once
// An awaitable that is already complete with a value: what `async with`'s
// __aenter__ returns when the request is granted at once, so that
// `async with lock(...) as held` binds the acquisition without a future.
// Awaiting it never suspends and raises no StopIteration (it returns its
// value through am_send; tp_iternext serves tracers and explicit next()).
#include <pybind11/pybind11.h>

namespace pathlock::python {

namespace py = pybind11;

// Readies the type; adds it to `module` as _Ready.
void add_ready_awaitable_type(py::module_& module);
// A new awaitable whose await returns `value`.
py::object ready_awaitable(py::handle value);

}  // namespace pathlock::python
