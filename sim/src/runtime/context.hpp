#pragma once
// Per OS thread: which run's logical thread it is, and whether it is inside
// the runtime's own code or an allocation-failure injection scope.

#include <cstdint>

#include "pathlock/sim/runtime/choice.hpp"

namespace pathlock::sim::runtime::detail {

class Executor;

struct Context {
  Executor* executor = nullptr;
  std::uint32_t thread = kNoThread;
  int runtime_depth = 0;    // > 0 inside RuntimeSection
  int injection_depth = 0;  // > 0 inside AllocationFailureScope
};

Context& context() noexcept;

}  // namespace pathlock::sim::runtime::detail
