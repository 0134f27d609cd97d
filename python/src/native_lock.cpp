#include "native_lock.hpp"

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <utility>

#include "pathlock/io/scheme_file.hpp"
#include "pathlock/model/error.hpp"

namespace pathlock::python {

namespace py = pybind11;

namespace {

// The lock's constructor refuses a defective scheme with
// std::invalid_argument naming the scheme and its defects.
template <typename Build>
std::unique_ptr<NativeLock> refusing_defective(Build&& build) {
  try {
    return build();
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string(e.what()) + " (PathLock(..., allow_defective=True) takes it anyway)");
  }
}

}  // namespace

NativeLock::NativeLock(std::unique_ptr<impl::Scheme> owned, const impl::Scheme& scheme, SchemeAdmission admission)
    : owned_(std::move(owned)), lock_(scheme, options(admission)) {}

PathLockOptions NativeLock::options(SchemeAdmission admission) {
  PathLockOptions options;
  options.scheme_admission = admission;
  // Nested acquisitions are tracked per thread, but every asyncio task of a
  // loop runs on one thread, so tracking would report tasks that merely
  // share a thread. Python code gets the release build's behaviour in every
  // build.
  options.unsafe_nesting = UnsafeNesting::kIgnore;
  return options;
}

std::unique_ptr<NativeLock> NativeLock::builtin(const std::string& name, SchemeAdmission admission) {
  if (const impl::Scheme* scheme = impl::find_builtin_scheme(name)) {
    return refusing_defective(
        [&] { return std::unique_ptr<NativeLock>(new NativeLock(nullptr, *scheme, admission)); });
  }
  std::string known;
  for (const impl::Scheme* scheme : impl::builtin_schemes()) {
    known += (known.empty() ? "" : ", ") + scheme->name();
  }
  throw py::value_error("unknown scheme \"" + name + "\" (known: " + known + "; or give scheme_file=)");
}

std::unique_ptr<NativeLock> NativeLock::from_scheme_text(const std::string& json_text, const std::string& source,
                                                         SchemeAdmission admission) {
  std::unique_ptr<impl::Scheme> scheme;
  try {
    scheme = std::make_unique<impl::Scheme>(io::parse_scheme(json_text, source));
  } catch (const model::InputError& e) {
    throw py::value_error(e.what());  // names the file and the field
  }
  return refusing_defective([&] {
    const impl::Scheme& ref = *scheme;
    return std::unique_ptr<NativeLock>(new NativeLock(std::move(scheme), ref, admission));
  });
}

}  // namespace pathlock::python
