#pragma once
// pathlock's public API in one header: everything a program that locks
// needs, in namespace pathlock.
//
//   #include <pathlock/pathlock.hpp>
//
//   pathlock::PathLock lock(pathlock::path_rwa_joined_scheme());
//   {
//     auto guard = lock.rename(pathlock::Path::from_key("photos/2024"),
//                              pathlock::Path::from_key("archive/2024"));
//     ...  // list, copy and delete the folder's keys
//   }      // released here
//
// The names below are the supported surface; what else lives in
// pathlock::impl and pathlock::model (plans, queues, the conflict predicate)
// serves the lock and its verification harness, and may change.

#include "pathlock/impl/scheme.hpp"
#include "pathlock/impl/scheme_admission.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/model/path.hpp"
#include "pathlock/model/request.hpp"
#include "pathlock/path_lock.hpp"
#include "pathlock/version.hpp"

namespace pathlock {

// Paths ("/a/b", or S3 keys and prefixes: Path::from_key) and requests.
using model::Access;
using model::Operation;
using model::OpKind;
using model::Path;
using model::Request;
// The five operations; .request() is what an acquire takes. Build hot
// requests once: an acquire then allocates nothing.
using model::copy;
using model::read;
using model::remove;
using model::rename;
using model::write;
// Bad keys, paths and requests throw InputError naming the problem.
using model::InputError;
using model::InputProblem;

// Schemes: the built-ins (use path_rwa_joined_scheme: it blocks exactly the
// conflicting requests), and what makes one defective.
using impl::builtin_schemes;
using impl::find_builtin_scheme;
using impl::global_mutex_scheme;
using impl::global_rw_scheme;
using impl::path_rw_scheme;
using impl::path_rwa_joined_scheme;
using impl::path_rwa_scheme;
using impl::Scheme;
using impl::scheme_defects;
using impl::SchemeDefect;
using impl::SchemeDefectKind;

// The lock (PathLock, PathLockOptions, SchemeAdmission, UnsafeNesting,
// AcquireStatus and to_string are declared in namespace pathlock already)
// and the guard its acquires return.
using Guard = PathLock::Guard;

}  // namespace pathlock
