"""The design notes' two Python PathLocks, as locks under test and as the
baseline of the asyncio benchmark.

``ReadWritePathLock``: a faithful, runnable rendering of the notes'
"read/write locks on each path" design (scheme 3, 7/8): one asyncio read/write lock per path, held in a
weakref.WeakValueDictionary (a path's lock lives while someone uses it); a
request write-locks every path it reads or writes and read-locks their
ancestors; the locks are taken ancestor first (by depth, then by path text)
through an AsyncExitStack. The read/write lock is the one the notes import
(a FIFO queue of futures: every acquisition queues a future and awaits it,
also when it is granted at once). A waiter cancelled just as it was granted
gives the grant back: without that, a timeout racing a grant leaks the lock
(``check_async_lock`` finds it as a deadlock in four schedule choices).

The notes' listing leaves two names undefined; here `paths` is the request's
paths (read and write) and `_flatten` chains the parents' iterables. Nothing
else is changed, so that the benchmark measures that design's cost.

``AncestorModePathLock``: the notes' "read/write/ancestor locks on each path"
design (scheme 4, 8/8), which they give in prose only, written the same way:
one four-mode lock per path (RA, R, WA, W with the notes' compatibility
table, granting in arrival order), the modes of a request by the notes'
multi-path rule (W on the written paths; WA on their ancestors; R on the
read paths that are neither; RA on the remaining ancestors of read paths),
taken ancestor first. The rule loses R's conflict with WA on a path that a
request reads and that is an ancestor of a path it writes (a copy into its
own subtree), so this lock is unsafe: ``check_async_lock`` finds it.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import weakref
from contextlib import AsyncExitStack


class ReadWriteLock:
    """An asyncio read/write lock granting strictly in arrival order."""

    class _Reader(asyncio.Future):
        pass

    class _Writer(asyncio.Future):
        pass

    def __init__(self):
        self._queue = collections.deque()
        self._readers = 0
        self._writing = False

    def _take_front(self, kind):
        # Pops the waiters of `kind` (and cancelled ones) from the front.
        while self._queue:
            front = self._queue[0]
            if front.cancelled():
                self._queue.popleft()
            elif isinstance(front, kind):
                yield self._queue.popleft()
            else:
                return

    def _grant(self):
        if not self._writing:
            for waiter in self._take_front(self._Reader):
                self._readers += 1
                waiter.set_result(None)
        if not self._writing and not self._readers:
            for waiter in self._take_front(self._Writer):
                self._writing = True
                waiter.set_result(None)
                break

    def _read_released(self):
        self._readers -= 1

    def _write_released(self):
        self._writing = False

    @contextlib.asynccontextmanager
    async def _hold(self, kind, on_release):
        waiter = kind()
        self._queue.append(waiter)
        self._grant()
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                on_release()  # granted as the cancellation came: give it back
            self._grant()
            raise
        try:
            yield
        finally:
            on_release()
            self._grant()

    @contextlib.asynccontextmanager
    async def read(self):
        async with self._hold(self._Reader, self._read_released):
            yield

    @contextlib.asynccontextmanager
    async def write(self):
        async with self._hold(self._Writer, self._write_released):
            yield


def _flatten(iterables):
    return itertools.chain.from_iterable(iterables)


class ReadWritePathLock:
    """The notes' scheme 3: ``async with lock(read=[...], write=[...])``."""

    def __init__(self):
        self._locks = weakref.WeakValueDictionary()

    @staticmethod
    def _sort_key(path_lock):
        return len(path_lock[0].parents), path_lock[0].as_posix()

    def _with_locks(self, paths, locker):
        return [(path, self._locks.setdefault(path, default=ReadWriteLock()), locker) for path in paths]

    @contextlib.asynccontextmanager
    async def __call__(self, read, write):
        paths = set(read).union(set(write))
        writable_paths = paths
        writable_locks = self._with_locks(writable_paths, lambda lock: lock.write())

        ancestor_paths = _flatten(path.parents for path in paths)
        readable_paths = set(ancestor_paths) - writable_paths
        readable_locks = self._with_locks(readable_paths, lambda lock: lock.read())

        sorted_locks = sorted(readable_locks + writable_locks, key=self._sort_key)
        async with AsyncExitStack() as stack:
            for _, lock, lock_func in sorted_locks:
                await stack.enter_async_context(lock_func(lock))
            yield


# Scheme 4's modes and the notes' compatibility table (symmetric).
RA, R, WA, W = "RA", "R", "WA", "W"
_COMPATIBLE = {
    RA: {RA, R, WA},
    R: {RA, R},
    WA: {RA, WA},
    W: set(),
}


class ModeLock:
    """A four-mode asyncio lock granting strictly in arrival order, as the
    notes' ReadWriteLock does for two modes."""

    def __init__(self):
        self._queue = collections.deque()  # (mode, future)
        self._held = collections.Counter()

    def _compatible(self, mode):
        return all(count == 0 or held in _COMPATIBLE[mode] for held, count in self._held.items())

    def _grant(self):
        while self._queue:
            mode, waiter = self._queue[0]
            if waiter.cancelled():
                self._queue.popleft()
            elif self._compatible(mode):
                self._queue.popleft()
                self._held[mode] += 1
                waiter.set_result(None)
            else:
                return

    @contextlib.asynccontextmanager
    async def hold(self, mode):
        waiter = asyncio.get_running_loop().create_future()
        self._queue.append((mode, waiter))
        self._grant()
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._held[mode] -= 1  # granted as the cancellation came: give it back
            self._grant()
            raise
        try:
            yield
        finally:
            self._held[mode] -= 1
            self._grant()


class AncestorModePathLock:
    """The notes' scheme 4 with their multi-path rule: unsafe for a request
    that reads an ancestor of a path it writes."""

    def __init__(self):
        self._locks = weakref.WeakValueDictionary()

    @staticmethod
    def _sort_key(path_mode):
        return len(path_mode[0].parents), path_mode[0].as_posix()

    @staticmethod
    def modes(read, write):
        """The notes' rule: {path: mode} for a request."""
        write = set(write)
        read = set(read)
        write_ancestors = set(_flatten(p.parents for p in write))
        read_ancestors = set(_flatten(p.parents for p in read))
        modes = {p: W for p in write}
        modes.update({p: WA for p in write_ancestors - write})
        modes.update({p: R for p in read - write - write_ancestors})
        modes.update({p: RA for p in read_ancestors - write - write_ancestors - read})
        return modes

    @contextlib.asynccontextmanager
    async def __call__(self, read, write):
        planned = sorted(self.modes(read, write).items(), key=self._sort_key)
        async with AsyncExitStack() as stack:
            for path, mode in planned:
                lock = self._locks.setdefault(path, default=ModeLock())
                await stack.enter_async_context(lock.hold(mode))
            yield
