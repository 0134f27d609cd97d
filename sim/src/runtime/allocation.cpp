#include "pathlock/sim/runtime/allocation.hpp"

#include "context.hpp"
#include "executor.hpp"

namespace pathlock::sim::runtime {

AllocationFailureScope::AllocationFailureScope() noexcept { ++detail::context().injection_depth; }
AllocationFailureScope::~AllocationFailureScope() { --detail::context().injection_depth; }

AllocationFailurePause::AllocationFailurePause() noexcept : saved_depth_(detail::context().injection_depth) {
  detail::context().injection_depth = 0;
}
AllocationFailurePause::~AllocationFailurePause() { detail::context().injection_depth = saved_depth_; }

namespace {
bool& injection_linked() noexcept {
  static bool linked = false;
  return linked;
}
}  // namespace

bool allocation_injection_linked() noexcept { return injection_linked(); }

namespace detail {

bool mark_allocation_injection_linked() noexcept { return injection_linked() = true; }

bool allocation_should_fail() {
  const Context& c = context();
  if (c.executor == nullptr || c.runtime_depth > 0 || c.injection_depth == 0) return false;
  return c.executor->allocation_fails();
}

}  // namespace detail
}  // namespace pathlock::sim::runtime
