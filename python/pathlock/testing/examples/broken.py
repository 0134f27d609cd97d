"""Deliberately broken async path locks, each with the design notes'
interface; ``check_async_lock`` catches every one (python/tests run it):

- ``NoAncestorLock``: a read/write lock on each named path only, none on
  ancestors: a write of /a and a write of /a/b hold at once (unsafe).
- ``RequestOrderLock``: a dict of per-path read/write locks (read on the
  ancestors, write on the named paths, as the notes' scheme 3), taken in the
  order the request names its paths instead of one global order: rename
  /a /b beside rename /b /a (deadlock). Each per-path lock is taken after
  an await that stands in for a lock service's round trip, as a lock kept
  in a store would take it.
- ``BargingReadersLock``: one read/write lock for the whole tree whose
  readers enter whenever no writer holds, past a queued writer: safe and
  deadlock-free, but not FIFO (a measurement; ``fifo=Policy.REQUIRE`` fails it).
"""

from __future__ import annotations

import asyncio
import contextlib
from contextlib import AsyncExitStack

from .design_notes import ReadWriteLock


class NoAncestorLock:
    """Read locks on the read paths, write locks on the written ones, and
    nothing on their ancestors."""

    def __init__(self):
        self._locks = {}

    @contextlib.asynccontextmanager
    async def __call__(self, read, write):
        write = set(write)
        planned = [(p, "write") for p in write] + [(p, "read") for p in set(read) - write]
        planned.sort(key=lambda item: item[0].as_posix())
        async with AsyncExitStack() as stack:
            for path, mode in planned:
                lock = self._locks.setdefault(path, ReadWriteLock())
                await stack.enter_async_context(lock.write() if mode == "write" else lock.read())
            yield


class RequestOrderLock:
    """The notes' scheme 3 taken in request order: for each path as the
    request names it (reads, then writes), its ancestors (read) and then the
    path itself (write), skipping what it already took."""

    def __init__(self):
        self._locks = {}

    @contextlib.asynccontextmanager
    async def __call__(self, read, write):
        planned = {}
        for path in [*read, *write]:
            for ancestor in reversed(path.parents):
                planned.setdefault(ancestor, "read")
            planned[path] = "write"
        async with AsyncExitStack() as stack:
            for path, mode in planned.items():
                await asyncio.sleep(0)  # the round trip to the lock service
                lock = self._locks.setdefault(path, ReadWriteLock())
                await stack.enter_async_context(lock.write() if mode == "write" else lock.read())
            yield


class BargingReadersLock:
    """A request that only reads shares the tree with other readers; any
    other request has it alone. A reader enters whenever no writer holds,
    even while a writer waits."""

    def __init__(self):
        self._readers = 0
        self._writing = False
        self._changed = asyncio.Condition()

    @contextlib.asynccontextmanager
    async def __call__(self, read, write):
        exclusive = bool(list(write))
        async with self._changed:
            await self._changed.wait_for(
                lambda: not self._writing and (not exclusive or self._readers == 0))
            if exclusive:
                self._writing = True
            else:
                self._readers += 1
        try:
            yield
        finally:
            async with self._changed:
                if exclusive:
                    self._writing = False
                else:
                    self._readers -= 1
                self._changed.notify_all()
