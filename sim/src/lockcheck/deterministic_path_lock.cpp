// The lock that ships, instantiated on the deterministic runtime's platform:
// the same member definitions as PathLock, compiled once more.
#include "pathlock/impl/path_lock_definitions.hpp"
#include "pathlock/sim/lockcheck/deterministic_path_lock.hpp"

template class pathlock::BasicPathLock<pathlock::sim::runtime::DeterministicPlatform>;
