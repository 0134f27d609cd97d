// pathlock._native: the C++ lock for the `pathlock` Python package
// (python/pathlock/__init__.py is the public face; see its docstring).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "acquisition.hpp"
#include "fast_methods.hpp"
#include "native_lock.hpp"
#include "ready_awaitable.hpp"
#include "pathlock/model/conflict.hpp"
#include "pathlock/model/path.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/version.hpp"
#include "request_conversion.hpp"

namespace py = pybind11;
using pathlock::python::Acquisition;
using pathlock::python::NativeLock;

namespace {

std::vector<std::string> builtin_scheme_names() {
  std::vector<std::string> names;
  for (const auto* scheme : pathlock::impl::builtin_schemes()) names.push_back(scheme->name());
  return names;
}

// Python's keyword is a flag, as Python APIs go; the lock takes the enum.
pathlock::SchemeAdmission admission(bool allow_defective) {
  return allow_defective ? pathlock::SchemeAdmission::kAllowDefective : pathlock::SchemeAdmission::kRequireSound;
}

std::string path_of_key(const std::string& key) {
  try {
    return pathlock::model::Path::from_key(key).str();
  } catch (const pathlock::model::InputError& e) {
    throw py::value_error(e.what());
  }
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "The C++ PathLock behind the pathlock package.";
  m.attr("VERSION") = PATHLOCK_VERSION;
  m.attr("SCHEMES") = py::tuple(py::cast(builtin_scheme_names()));
  m.def("path_of_key", &path_of_key, py::arg("key"),
        "The path of an S3 key: 'a/b/c' -> '/a/b/c', 'a/b/' -> '/a/b'. ValueError for a malformed key.");
  m.def(
      "parse_path", [](py::handle path) { return pathlock::python::to_path(path).str(); }, py::arg("path"),
      "The path's canonical text; ValueError naming the path and the problem for a malformed one.");
  // The model's judgement, for pathlock.testing's verdicts (the lock never
  // asks it: it follows its scheme's plans).
  m.def(
      "conflicts",
      [](py::handle a_read, py::handle a_write, py::handle b_read, py::handle b_write) {
        return pathlock::model::conflicts(pathlock::python::to_request(a_read, a_write),
                                          pathlock::python::to_request(b_read, b_write));
      },
      py::arg("a_read"), py::arg("a_write"), py::arg("b_read"), py::arg("b_write"),
      "Whether request A (reads, writes) and request B conflict: a path one writes is equal to, an ancestor of or a "
      "descendant of a path the other reads or writes.");

  auto lock_class = py::class_<NativeLock>(m, "Lock", py::dynamic_attr())
      .def(py::init([](const std::string& scheme, bool allow_defective) {
             return NativeLock::builtin(scheme, admission(allow_defective));
           }),
           py::arg("scheme"), py::kw_only(), py::arg("allow_defective") = false)
      .def(py::init([](const std::string& scheme_text, const std::string& source, bool allow_defective) {
             return NativeLock::from_scheme_text(scheme_text, source, admission(allow_defective));
           }),
           py::arg("scheme_text"), py::arg("source"), py::kw_only(), py::arg("allow_defective") = false)
      .def_property_readonly("scheme", [](const NativeLock& l) { return l.scheme().name(); })
      .def("active_locks", [](NativeLock& l) { return l.lock().active_locks(); })
      .def("idle_locks", [](NativeLock& l) { return l.lock().idle_locks(); })
      .def("waiting_acquisitions", [](NativeLock& l) { return l.lock().waiting_acquisitions(); })
      .def("check_invariants", [](NativeLock& l) { return l.lock().check_invariants(); })
      .def("describe_waits", [](NativeLock& l) { return l.lock().describe_waits(); });

  auto acquisition_class = py::class_<Acquisition>(m, "Acquisition")
      .def("acquire", &Acquisition::acquire, py::arg("blocking") = true, py::arg("timeout") = py::none())
      .def("release", &Acquisition::release)
      .def_property_readonly("held", &Acquisition::held)
      .def_property_readonly("request", [](const Acquisition& a) { return a.request().to_string(); })
      .def("_deliver", &Acquisition::deliver)
      .def("_abandon", &Acquisition::abandon)
      .def("__repr__", &Acquisition::describe);
  pathlock::python::install_fast_methods(lock_class, acquisition_class);
  pathlock::python::add_ready_awaitable_type(m);
}
