"""Hierarchical path locks for S3-style object stores, for threads and asyncio.

A PathLock makes folder operations (write, delete, rename, copy, whole-folder
read) atomic with respect to each other: two requests that conflict (a path
written by one is equal to, an ancestor of, or a descendant of a path read or
written by the other) never hold their locks at once; everything else runs
concurrently. It is the C++ ``pathlock::PathLock``; waiting never blocks the
event loop, and a thread that waits releases the GIL.

    lock = pathlock.PathLock()                   # scheme "path-rwa-joined"

    async with lock(read=[src], write=[dst]):    # asyncio
        ...
    with lock.copy(src, dst):                    # threads
        ...

Paths are ``pathlib.PurePosixPath`` or ``str``, absolute (``/a/b``); an S3 key
maps to its folder's path with ``path_of_key("a/b/")``. A malformed path
raises ValueError naming it and the problem.

Timeouts: ``lock(..., timeout=s)``; threads get TimeoutError, asyncio too
(as do ``asyncio.timeout()`` and ``asyncio.wait_for()`` around the
``async with``); a cancelled task gets CancelledError. A wait that times out
or is cancelled holds nothing, and those queued behind it move up.

On an event loop's thread use ``async with``, never ``with``: a blocking wait
there stops the loop, and with it the tasks that would release.

Do not acquire while holding: name every path of one operation in one
request (as ``copy`` and ``rename`` do), or a task holding one request and
waiting for a second can deadlock with a writer queued between them.
"""

from __future__ import annotations

import os
import pathlib
from typing import Iterable, Optional, Union

from . import _native

__all__ = ["PathLock", "Acquisition", "SCHEMES", "DEFAULT_SCHEME", "path_of_key"]

PathLike = Union[str, "os.PathLike[str]"]
Paths = Union[PathLike, Iterable[PathLike], None]

#: The built-in schemes, by name.
SCHEMES: tuple = _native.SCHEMES
#: The recommended scheme (Gray's IS/S/IX/SIX/X modes on every path).
DEFAULT_SCHEME = "path-rwa-joined"
#: What ``lock(...)`` returns: a context manager for ``with`` and ``async with``.
Acquisition = _native.Acquisition
__version__: str = _native.VERSION


def path_of_key(key: str) -> pathlib.PurePosixPath:
    """The pseudo-folder path of an S3 key: ``"a/b/c"`` -> ``/a/b/c``,
    ``"a/b/"`` -> ``/a/b``. ValueError for a malformed key (empty, ``a//b``,
    longer than 1,024 bytes, ...)."""
    return pathlib.PurePosixPath(_native.path_of_key(key))


class PathLock(_native.Lock):
    """A lock over paths. ``lock(read=[...], write=[...], timeout=None)``
    returns an Acquisition: ``with`` / ``async with`` it, or call its
    ``acquire(blocking=True, timeout=None)`` and ``release()``.

    ``scheme``: a built-in scheme's name (see ``SCHEMES``), or
    ``scheme_file``: a JSON scheme file (schema ``pathlock.scheme/1``).
    A defective scheme (one whose plans can deadlock or let conflicting
    requests in, such as the notes' "path-rwa" as written) raises
    ValueError naming its defects, unless ``allow_defective=True``.
    """

    def __init__(self, scheme: Optional[str] = None, *, scheme_file: Optional[PathLike] = None,
                 allow_defective: bool = False) -> None:
        if scheme_file is None:
            super().__init__(scheme if scheme is not None else DEFAULT_SCHEME, allow_defective=allow_defective)
            return
        if scheme is not None:
            raise ValueError("give scheme= or scheme_file=, not both")
        with open(scheme_file, encoding="utf-8") as f:  # FileNotFoundError names the file
            text = f.read()
        super().__init__(scheme_text=text, source=os.fspath(scheme_file), allow_defective=allow_defective)

    # The design notes' operations: each returns lock(read=..., write=...).
    def read(self, path: PathLike, *, timeout: Optional[float] = None) -> Acquisition:
        """Read the folder at ``path`` (an atomic view of everything below it)."""
        return self(read=[path], timeout=timeout)

    def write(self, path: PathLike, *, timeout: Optional[float] = None) -> Acquisition:
        """Write the folder at ``path`` (or the object whose key it is)."""
        return self(write=[path], timeout=timeout)

    def delete(self, path: PathLike, *, timeout: Optional[float] = None) -> Acquisition:
        """Delete the folder at ``path``: a write of it."""
        return self(write=[path], timeout=timeout)

    def rename(self, source: PathLike, target: PathLike, *, timeout: Optional[float] = None) -> Acquisition:
        """Rename ``source`` to ``target``: a write of both."""
        return self(write=[source, target], timeout=timeout)

    def copy(self, source: PathLike, target: PathLike, *, timeout: Optional[float] = None) -> Acquisition:
        """Copy ``source`` to ``target``: a read of the source, a write of the target."""
        return self(read=[source], write=[target], timeout=timeout)

    def __repr__(self) -> str:
        return f"PathLock(scheme={self.scheme!r})"
