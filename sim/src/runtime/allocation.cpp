#include "pathlock/sim/runtime/allocation.hpp"

#include "context.hpp"
#include "executor.hpp"

namespace pathlock::sim::runtime {

AllocationFailureScope::AllocationFailureScope() noexcept { ++detail::context().injection_depth; }
AllocationFailureScope::~AllocationFailureScope() { --detail::context().injection_depth; }

namespace detail {

bool allocation_should_fail() {
  const Context& c = context();
  if (c.executor == nullptr || c.runtime_depth > 0 || c.injection_depth == 0) return false;
  return c.executor->allocation_fails();
}

}  // namespace detail
}  // namespace pathlock::sim::runtime
