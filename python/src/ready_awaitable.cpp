#include "ready_awaitable.hpp"

namespace pathlock::python {

namespace {

struct Ready {
  PyObject_HEAD
  PyObject* value;
};

void ready_dealloc(PyObject* self) {
  Py_XDECREF(reinterpret_cast<Ready*>(self)->value);
  PyObject_Free(self);
}

PyObject* ready_self(PyObject* self) {
  Py_INCREF(self);
  return self;
}

// The first send returns the value; the awaitable is spent afterwards.
PySendResult ready_send(PyObject* self, PyObject*, PyObject** result) {
  auto* ready = reinterpret_cast<Ready*>(self);
  *result = ready->value != nullptr ? ready->value : Py_NewRef(Py_None);
  ready->value = nullptr;
  return PYGEN_RETURN;
}

PyObject* ready_next(PyObject* self) {
  PyObject* value = nullptr;
  ready_send(self, Py_None, &value);
  _PyGen_SetStopIterationValue(value);  // StopIteration(value), a tuple value wrapped correctly
  Py_DECREF(value);
  return nullptr;
}

PyAsyncMethods ready_async = {ready_self, nullptr, nullptr, ready_send};

PyTypeObject ready_type = [] {
  PyTypeObject type{};
  Py_SET_REFCNT(reinterpret_cast<PyObject*>(&type), 1);  // a static type: never freed
  type.tp_name = "pathlock._native._Ready";
  type.tp_basicsize = sizeof(Ready);
  type.tp_dealloc = ready_dealloc;
  type.tp_as_async = &ready_async;
  type.tp_flags = Py_TPFLAGS_DEFAULT;
  type.tp_doc = "An awaitable already complete with a value.";
  type.tp_iter = ready_self;
  type.tp_iternext = ready_next;
  return type;
}();

}  // namespace

void add_ready_awaitable_type(py::module_& module) {
  if (PyType_Ready(&ready_type) < 0) throw py::error_already_set();
  Py_INCREF(&ready_type);
  module.add_object("_Ready", reinterpret_cast<PyObject*>(&ready_type));
}

py::object ready_awaitable(py::handle value) {
  Ready* ready = PyObject_New(Ready, &ready_type);
  if (ready == nullptr) throw py::error_already_set();
  ready->value = Py_NewRef(value.ptr());
  return py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(ready));
}

}  // namespace pathlock::python
