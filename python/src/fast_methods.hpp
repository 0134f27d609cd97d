#pragma once
// The per-acquisition calls (lock(...), __enter__, __exit__, __aenter__,
// __aexit__) as plain CPython fast-call methods: pybind11's general
// dispatcher costs more than the lock itself on these paths.
#include <pybind11/pybind11.h>

namespace pathlock::python {

namespace py = pybind11;

// Installs __call__ on the lock class and the context-manager methods on
// the acquisition class.
void install_fast_methods(py::handle lock_class, py::handle acquisition_class);

}  // namespace pathlock::python
