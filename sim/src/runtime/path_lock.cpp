// BasicPathLock on the deterministic runtime, instantiated once.
#include "pathlock/sim/runtime/path_lock.hpp"

#include "pathlock/impl/path_lock_definitions.hpp"

namespace pathlock {
template class BasicPathLock<sim::runtime::DeterministicPlatform>;
}  // namespace pathlock
