#pragma once
// The definitions of BasicPathLock<P>'s members, for the translation unit
// that instantiates the lock on a platform:
//
//   #include "pathlock/impl/path_lock_definitions.hpp"
//   template class pathlock::BasicPathLock<MyPlatform>;
//
// The library does this once for impl::StdPlatform (PathLock); users of
// PathLock include only pathlock/path_lock.hpp. The parts, one file each:
//
//   path_lock_table.hpp    entries, shards, idle list, eviction; counters
//   path_lock_waiter.hpp   spin-then-sleep, the wake protocol, stop callbacks
//   path_lock_gate.hpp     the gates: fast holds, the gate cache, close, drain, open, retire
//   path_lock_memo.hpp     the plan memo: a thread's one-path requests taken wholly fast
//   path_lock_acquire.hpp  acquire, rollback, release, Guard
//   path_lock_async.hpp    async_acquire: ops, resume on the granting thread, cancel
//   path_lock_nesting.hpp  the report of unsafe nested acquisition
//   path_lock_invariants.hpp  check_invariants()
//   path_lock_describe.hpp    describe_waits()

#include "pathlock/impl/path_lock_acquire.hpp"
#include "pathlock/impl/path_lock_async.hpp"
#include "pathlock/impl/path_lock_describe.hpp"
#include "pathlock/impl/path_lock_gate.hpp"
#include "pathlock/impl/path_lock_nesting.hpp"
#include "pathlock/impl/path_lock_invariants.hpp"
#include "pathlock/impl/path_lock_memo.hpp"
#include "pathlock/impl/path_lock_table.hpp"
#include "pathlock/impl/path_lock_waiter.hpp"
#include "pathlock/path_lock.hpp"
