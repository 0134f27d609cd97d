#include "fast_methods.hpp"

#include <exception>
#include <memory>
#include <new>
#include <string>

#include "acquisition.hpp"
#include "native_lock.hpp"
#include "request_conversion.hpp"

namespace pathlock::python {

namespace {

// Runs `body`, turning a C++ exception into the Python error it stands for.
template <typename Body>
PyObject* guarded(Body&& body) noexcept {
  try {
    return body();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

// lock(read=None, write=None, *, timeout=None)
enum Argument : int { kRead, kWrite, kTimeout, kArgumentCount };
PyObject* argument_names[kArgumentCount];  // interned "read", "write", "timeout"

int argument_index(PyObject* name) {
  for (int i = 0; i < kArgumentCount; ++i) {
    if (name == argument_names[i]) return i;
  }
  for (int i = 0; i < kArgumentCount; ++i) {
    if (PyUnicode_Compare(name, argument_names[i]) == 0) return i;
  }
  return -1;
}

PyObject* lock_call(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guarded([&]() -> PyObject* {
    PyObject* values[kArgumentCount] = {Py_None, Py_None, Py_None};
    if (nargs > 2) throw py::type_error("lock() takes at most 2 positional arguments (read, write); timeout= is a keyword");
    for (Py_ssize_t i = 0; i < nargs; ++i) values[i] = args[i];
    const Py_ssize_t keywords = kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < keywords; ++k) {
      PyObject* name = PyTuple_GET_ITEM(kwnames, k);
      const int index = argument_index(name);
      if (index < 0) {
        throw py::type_error("lock() got an unexpected keyword argument " + std::string(py::repr(name)) +
                             " (it takes read=, write=, timeout=)");
      }
      if (index < nargs) throw py::type_error("lock() got multiple values for " + std::string(py::repr(name)));
      values[index] = args[nargs + k];
    }
    auto owner = py::reinterpret_borrow<py::object>(self);
    auto& lock = owner.cast<NativeLock&>();
    auto acquisition = std::make_unique<Acquisition>(owner, lock, to_request(values[kRead], values[kWrite]),
                                                     to_timeout(values[kTimeout]));
    py::object result = py::cast(acquisition.get(), py::return_value_policy::take_ownership);
    acquisition.release();  // owned by `result` now
    return result.release().ptr();
  });
}

Acquisition& acquisition_of(PyObject* self) { return py::handle(self).cast<Acquisition&>(); }

PyObject* acquisition_enter(PyObject* self, PyObject* const*, Py_ssize_t) {
  return guarded([&]() -> PyObject* {
    acquisition_of(self).enter();
    Py_INCREF(self);
    return self;
  });
}

PyObject* acquisition_exit(PyObject* self, PyObject* const*, Py_ssize_t) {
  return guarded([&]() -> PyObject* {
    acquisition_of(self).release();
    Py_RETURN_FALSE;  // exceptions propagate
  });
}

PyObject* acquisition_async_enter(PyObject* self, PyObject* const*, Py_ssize_t) {
  return guarded([&]() -> PyObject* { return acquisition_of(self).async_enter(self).release().ptr(); });
}

PyObject* acquisition_async_exit(PyObject* self, PyObject* const*, Py_ssize_t) {
  return guarded([&]() -> PyObject* { return acquisition_of(self).async_exit().release().ptr(); });
}

using FastCall = PyObject* (*)(PyObject*, PyObject* const*, Py_ssize_t);
using FastCallKeywords = PyObject* (*)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*);

PyMethodDef lock_methods[] = {
    {"__call__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(static_cast<FastCallKeywords>(lock_call))),
     METH_FASTCALL | METH_KEYWORDS,
     "lock(read=None, write=None, *, timeout=None) -> Acquisition: a request to read the folders in `read` and "
     "write those in `write` (paths or iterables of paths), entered with `with` or `async with`."},
};

PyMethodDef acquisition_methods[] = {
    {"__enter__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(static_cast<FastCall>(acquisition_enter))),
     METH_FASTCALL, "Blocks (the GIL released) until granted; TimeoutError if the timeout passes first."},
    {"__exit__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(static_cast<FastCall>(acquisition_exit))),
     METH_FASTCALL, "Releases every lock."},
    {"__aenter__",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(static_cast<FastCall>(acquisition_async_enter))),
     METH_FASTCALL,
     "Awaitable: granted without blocking the event loop; TimeoutError after the timeout, CancelledError if the task "
     "is cancelled (either way nothing is held)."},
    {"__aexit__",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(static_cast<FastCall>(acquisition_async_exit))),
     METH_FASTCALL, "Awaitable: releases every lock."},
};

void install(py::handle cls, PyMethodDef& def) {
  PyObject* descriptor = PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), &def);
  if (descriptor == nullptr) throw py::error_already_set();
  if (PyObject_SetAttrString(cls.ptr(), def.ml_name, descriptor) != 0) {
    Py_DECREF(descriptor);
    throw py::error_already_set();
  }
  Py_DECREF(descriptor);
}

}  // namespace

void install_fast_methods(py::handle lock_class, py::handle acquisition_class) {
  const char* names[kArgumentCount] = {"read", "write", "timeout"};
  for (int i = 0; i < kArgumentCount; ++i) {
    argument_names[i] = PyUnicode_InternFromString(names[i]);  // kept for the process's life
    if (argument_names[i] == nullptr) throw py::error_already_set();
  }
  for (auto& def : lock_methods) install(lock_class, def);
  for (auto& def : acquisition_methods) install(acquisition_class, def);
}

}  // namespace pathlock::python
