"""The design notes' own Python PathLock: the baseline of the benchmark.

A faithful, runnable rendering of the notes' "read/write locks on each path"
design: one asyncio read/write lock per path, held in a
weakref.WeakValueDictionary (a path's lock lives while someone uses it); a
request write-locks every path it reads or writes and read-locks their
ancestors; the locks are taken ancestor first (by depth, then by path text)
through an AsyncExitStack. The read/write lock is the one the notes import
(a FIFO queue of futures: every acquisition queues a future and awaits it,
also when it is granted at once).

The notes' listing leaves two names undefined; here `paths` is the request's
paths (read and write) and `_flatten` chains the parents' iterables. Nothing
else is changed, so that the benchmark measures that design's cost.
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


class SeedPathLock:
    """The notes' PathLock: ``async with lock(read=[...], write=[...])``."""

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
