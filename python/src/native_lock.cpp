#include "native_lock.hpp"

#include <pybind11/pybind11.h>

#include <utility>

#include "pathlock/impl/scheme_file.hpp"
#include "pathlock/model/error.hpp"

namespace pathlock::python {

namespace py = pybind11;

NativeLock::NativeLock(std::unique_ptr<impl::Scheme> owned, const impl::Scheme& scheme)
    : owned_(std::move(owned)), lock_(scheme, options()) {}

PathLockOptions NativeLock::options() {
  PathLockOptions options;
  // Nested acquisitions are tracked per thread, but every asyncio task of a
  // loop runs on one thread, so tracking would report tasks that merely
  // share a thread. Python code gets the release build's behaviour in every
  // build.
  options.unsafe_nesting = UnsafeNesting::kIgnore;
  return options;
}

std::unique_ptr<NativeLock> NativeLock::builtin(const std::string& name) {
  if (const impl::Scheme* scheme = impl::find_builtin_scheme(name)) {
    return std::unique_ptr<NativeLock>(new NativeLock(nullptr, *scheme));
  }
  std::string known;
  for (const impl::Scheme* scheme : impl::builtin_schemes()) {
    known += (known.empty() ? "" : ", ") + scheme->name();
  }
  throw py::value_error("unknown scheme \"" + name + "\" (known: " + known + "; or give scheme_file=)");
}

std::unique_ptr<NativeLock> NativeLock::from_scheme_text(const std::string& json_text, const std::string& source) {
  try {
    auto scheme = std::make_unique<impl::Scheme>(impl::parse_scheme(json_text, source));
    const impl::Scheme& ref = *scheme;
    return std::unique_ptr<NativeLock>(new NativeLock(std::move(scheme), ref));
  } catch (const model::InputError& e) {
    throw py::value_error(e.what());  // names the file and the field
  }
}

}  // namespace pathlock::python
