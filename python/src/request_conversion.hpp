#pragma once
// Python objects -> pathlock::model: paths (str or os.PathLike such as
// pathlib.PurePosixPath), sets of paths, timeouts. Errors become the Python
// exceptions a Python user expects: a malformed path raises ValueError with
// the model's message, which names the path and the problem.
#include <pybind11/pybind11.h>

#include <chrono>
#include <optional>

#include "pathlock/model/request.hpp"

namespace pathlock::python {

namespace py = pybind11;

// "/a/b" or PurePosixPath("/a/b") -> Path. Raises TypeError for anything that
// is neither str nor os.PathLike[str], ValueError for a malformed path.
model::Path to_path(py::handle item);

// read=[...], write=[...] -> Request. A single path (str or os.PathLike) is
// taken as a set of one; None as the empty set. Raises ValueError naming the
// path for a malformed one, and for a request with no path at all.
model::Request to_request(py::handle read, py::handle write);

// The largest timeout accepted, in seconds (about 31 years): beyond it the
// deadline would overflow the clock.
inline constexpr double kMaxTimeoutSeconds = 1e9;

// None -> nullopt (wait forever); a number of seconds in [0, kMaxTimeoutSeconds]
// -> that duration. Raises ValueError naming the value and the range.
std::optional<std::chrono::nanoseconds> to_timeout(py::handle timeout);

// Raises Python's TimeoutError (no pybind11 translation exists for it).
[[noreturn]] void raise_timeout(const std::string& message);

}  // namespace pathlock::python
