#pragma once
// BasicPathLock on the deterministic runtime's platform, instantiated once in
// the sim library (deterministic_path_lock.cpp).

#include "pathlock/path_lock.hpp"
#include "pathlock/sim/runtime/platform.hpp"

namespace pathlock::sim::lockcheck {
using DeterministicPathLock = BasicPathLock<runtime::DeterministicPlatform>;
}  // namespace pathlock::sim::lockcheck

extern template class pathlock::BasicPathLock<pathlock::sim::runtime::DeterministicPlatform>;
