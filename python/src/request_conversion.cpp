#include "request_conversion.hpp"

#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pathlock/model/error.hpp"

namespace pathlock::python {

namespace {

void append_paths(py::handle items, std::vector<model::Path>& out) {
  PyObject* obj = items.ptr();
  if (obj == Py_None) return;
  if (PyUnicode_Check(obj)) {
    out.push_back(to_path(items));
    return;
  }
  if (PyList_CheckExact(obj) || PyTuple_CheckExact(obj)) {  // the common case, without an iterator
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
    PyObject** item = PySequence_Fast_ITEMS(obj);
    out.reserve(out.size() + static_cast<std::size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) out.push_back(to_path(item[i]));
    return;
  }
  if (PyBytes_Check(obj)) {
    throw py::type_error("paths are text (str or pathlib.PurePosixPath), not bytes: " + std::string(py::repr(items)));
  }
  if (py::hasattr(items, "__fspath__")) {
    out.push_back(to_path(items));
    return;
  }
  if (!py::isinstance<py::iterable>(items)) {
    throw py::type_error("read= and write= take a path or an iterable of paths (str or pathlib.PurePosixPath), not " +
                         std::string(py::str(py::type::of(items).attr("__name__"))));
  }
  for (py::handle item : items) out.push_back(to_path(item));
}

}  // namespace

model::Path to_path(py::handle item) {
  py::object text;
  if (PyUnicode_Check(item.ptr())) {
    text = py::reinterpret_borrow<py::object>(item);
  } else {
    PyObject* fs = PyOS_FSPath(item.ptr());  // TypeError for a non-path object
    if (fs == nullptr) throw py::error_already_set();
    text = py::reinterpret_steal<py::object>(fs);
    if (!PyUnicode_Check(text.ptr())) {
      throw py::type_error("paths are text: " + std::string(py::repr(item)) + " is a bytes path");
    }
  }
  Py_ssize_t size = 0;
  const char* bytes = PyUnicode_AsUTF8AndSize(text.ptr(), &size);  // UnicodeEncodeError is a ValueError
  if (bytes == nullptr) throw py::error_already_set();
  const std::string_view path(bytes, static_cast<std::size_t>(size));
  try {
    return model::Path::parse(path);
  } catch (const model::InputError& e) {
    // The model names the problem, and the path where that is short enough
    // to quote; the error always names it (a long one cut short).
    const std::string message = e.what();
    if (message.find(path) != std::string::npos) throw py::value_error(message);
    constexpr std::size_t kQuoted = 60;
    std::string quoted(py::repr(text.ptr() == item.ptr() ? text : py::reinterpret_borrow<py::object>(item)));
    if (quoted.size() > kQuoted) quoted = quoted.substr(0, kQuoted) + "...";
    throw py::value_error("path " + quoted + ": " + message);
  }
}

model::Request to_request(py::handle read, py::handle write) {
  std::vector<model::Path> reads;
  std::vector<model::Path> writes;
  append_paths(read, reads);
  append_paths(write, writes);
  try {
    return model::Request(std::move(reads), std::move(writes));
  } catch (const model::InputError& e) {
    throw py::value_error(std::string(e.what()) + " (give read=[...] or write=[...] at least one path)");
  }
}

std::optional<std::chrono::nanoseconds> to_timeout(py::handle timeout) {
  if (timeout.is_none()) return std::nullopt;
  const double seconds = py::cast<double>(timeout);  // TypeError for a non-number
  if (!(seconds >= 0.0 && seconds <= kMaxTimeoutSeconds)) {  // also rejects NaN
    throw py::value_error("timeout=" + std::string(py::repr(timeout)) +
                          " is not a number of seconds in [0, 1e9]; give None to wait forever");
  }
  return std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(seconds * 1e9)));
}

void raise_timeout(const std::string& message) {
  PyErr_SetString(PyExc_TimeoutError, message.c_str());
  throw py::error_already_set();
}

}  // namespace pathlock::python
