// The lock-interface conformance suite (lock_conformance.hpp) against the
// in-process PathLock, with the recommended scheme. The etcd lock runs the
// same suite in etcd/etcd_lock_test.cpp.

#include "conformance/lock_conformance.hpp"
#include "pathlock/impl/scheme.hpp"

namespace pathlock::conformance {
namespace {

struct InProcessBackend {
  using Lock = PathLock;
  static std::unique_ptr<Lock> make() { return std::make_unique<Lock>(impl::path_rwa_joined_scheme()); }
  static constexpr auto kSettle = std::chrono::milliseconds(50);
  static constexpr int kThreads = 8;
  static constexpr int kOpsPerThread = 2000;
};

INSTANTIATE_TYPED_TEST_SUITE_P(InProcess, LockConformance, InProcessBackend);

}  // namespace
}  // namespace pathlock::conformance
