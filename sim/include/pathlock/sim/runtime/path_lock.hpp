#pragma once
// The lock that ships, on the deterministic runtime: the same
// BasicPathLock<P> code as PathLock, with every atomic, lock, wait, clock
// read, stop token and task id a scheduling point. Compiled once in the
// simulator library.

#include "pathlock/path_lock.hpp"
#include "pathlock/sim/runtime/platform.hpp"

namespace pathlock {
extern template class BasicPathLock<sim::runtime::DeterministicPlatform>;
}  // namespace pathlock

namespace pathlock::sim::runtime {
using DeterministicPathLock = BasicPathLock<DeterministicPlatform>;
}  // namespace pathlock::sim::runtime
