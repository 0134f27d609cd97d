// The production lock, PathLock = BasicPathLock<impl::StdPlatform>, compiled
// once here (path_lock.hpp declares it `extern template`).

#include "pathlock/path_lock.hpp"

#include "pathlock/impl/path_lock_definitions.hpp"
#include "pathlock/impl/platform.hpp"

namespace pathlock {

std::string_view to_string(AcquireStatus status) noexcept {
  switch (status) {
    case AcquireStatus::kGranted: return "granted";
    case AcquireStatus::kWouldBlock: return "would block";
    case AcquireStatus::kTimedOut: return "timed out";
    case AcquireStatus::kCancelled: return "cancelled";
    case AcquireStatus::kReleased: return "released";
    case AcquireStatus::kFailed: return "failed";
    case AcquireStatus::kLeaseLost: return "lease lost";
  }
  return "?";
}

std::string_view to_string(CancelOutcome outcome) noexcept {
  switch (outcome) {
    case CancelOutcome::kCancelled: return "cancelled";
    case CancelOutcome::kAlreadyCompleted: return "already completed";
  }
  return "?";
}

template class BasicPathLock<impl::StdPlatform>;

}  // namespace pathlock
