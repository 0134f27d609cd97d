#pragma once
// The Python module's lock: a PathLock together with the scheme it runs
// (a built-in one, or one read from a scheme file and owned here).
#include <memory>
#include <string>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/path_lock.hpp"

namespace pathlock::python {

class NativeLock {
 public:
  // Raises ValueError naming the known schemes for an unknown name, and
  // naming the defects of a defective scheme unless `admission` allows it.
  static std::unique_ptr<NativeLock> builtin(const std::string& name, SchemeAdmission admission);
  // `json_text`: a scheme file's contents ("pathlock.scheme/1"); `source`
  // names it in errors. Raises ValueError naming the file and the field.
  static std::unique_ptr<NativeLock> from_scheme_text(const std::string& json_text, const std::string& source,
                                                      SchemeAdmission admission);

  PathLock& lock() noexcept { return lock_; }
  const impl::Scheme& scheme() const noexcept { return lock_.scheme(); }

 private:
  NativeLock(std::unique_ptr<impl::Scheme> owned, const impl::Scheme& scheme, SchemeAdmission admission);
  static PathLockOptions options(SchemeAdmission admission);
  std::unique_ptr<impl::Scheme> owned_;  // declared before lock_, so it outlives it
  PathLock lock_;
};

}  // namespace pathlock::python
