"""Hypothesis strategies for paths, trees, S3 keys, requests and scenarios.

Everything shrinks: a path towards ``/`` and then towards the first names,
a request towards a read, a scenario towards fewer tasks with fewer requests
and no timeouts. The default names include sibling prefixes (``/a`` and
``/ab``, ``/a/b`` and ``/a/bc``), the keys a prefix-based lock confuses.

    from hypothesis import given
    from pathlock.testing import strategies as pst

    @given(pst.scenarios(max_tasks=3))
    def test_my_lock(scenario): ...
"""

from __future__ import annotations

from typing import Optional, Sequence

from hypothesis import strategies as st

from ._scenario import ARITY, OPERATIONS, PurePath, Request, Scenario

#: Path names by default: two siblings and a name that has one of them as a prefix.
DEFAULT_NAMES = ("a", "b", "ab")


# Named functions, not lambdas: Hypothesis describes a map's function on
# every draw, and a lambda's description means reading its source.
def _path_of_parts(parts) -> PurePath:
    return PurePath("/" + "/".join(parts))


def _key_of(path_and_folder) -> str:
    path, folder = path_and_folder
    return path.as_posix()[1:] + ("/" if folder else "")


def _scenario_of(tasks) -> Scenario:
    return Scenario(tuple(tasks))


def paths(names: Sequence[str] = DEFAULT_NAMES, *, max_depth: int = 3, root: bool = True) -> st.SearchStrategy:
    """Absolute paths of at most ``max_depth`` components drawn from ``names``
    (``/`` itself when ``root``)."""
    names = tuple(names)
    if not names:
        raise ValueError("paths() needs at least one name")
    for name in names:
        if not name or "/" in name or name in (".", ".."):
            raise ValueError(f"path name {name!r} is not a single path component")
        if any(c in name for c in " \t\n,;:"):
            raise ValueError(f"path name {name!r} holds a space, ',', ';' or ':', which a printed scenario cannot carry")
    if not 1 <= max_depth <= 64:
        raise ValueError(f"max_depth {max_depth} is outside 1..64")
    return st.lists(st.sampled_from(names), min_size=0 if root else 1, max_size=max_depth).map(_path_of_parts)


def trees(names: Sequence[str] = DEFAULT_NAMES, *, max_depth: int = 3, max_paths: int = 6) -> st.SearchStrategy:
    """A tree: up to ``max_paths`` drawn paths with every ancestor of each
    (the root included), sorted by depth and then text."""
    if not 1 <= max_paths <= 1024:
        raise ValueError(f"max_paths {max_paths} is outside 1..1024")
    return st.lists(paths(names, max_depth=max_depth), min_size=1, max_size=max_paths).map(_closed_tree)


def _closed_tree(drawn) -> list:
    tree = {PurePath("/")}
    for path in drawn:
        tree.add(path)
        tree.update(path.parents)
    return sorted(tree, key=lambda p: (len(p.parts), p.as_posix()))


def keys(names: Sequence[str] = DEFAULT_NAMES, *, max_depth: int = 3) -> st.SearchStrategy:
    """S3 keys: an object's (``a/b``) or a folder marker's (``a/b/``);
    ``pathlock.path_of_key`` maps either to ``/a/b``."""
    return st.tuples(paths(names, max_depth=max_depth, root=False), st.booleans()).map(_key_of)


def requests(path_strategy: Optional[st.SearchStrategy] = None, *, operations: Sequence[str] = OPERATIONS,
             timeouts: bool = False, timeout: float = 1.0) -> st.SearchStrategy:
    """Requests of the given operations (read, write, delete, rename, copy)
    on paths from ``path_strategy``; with ``timeouts``, some requests give
    up after ``timeout`` virtual seconds."""
    operations = tuple(operations)
    for op in operations:
        if op not in ARITY:
            raise ValueError(f"unknown operation {op!r}: expected some of {', '.join(OPERATIONS)}")
    if not operations:
        raise ValueError("requests() needs at least one operation")
    if not 0 <= timeout <= 1e9:
        raise ValueError(f"timeout {timeout} is outside [0, 1e9] seconds")
    path_strategy = paths() if path_strategy is None else path_strategy
    timeout_strategy = st.one_of(st.none(), st.just(timeout)) if timeouts else st.none()

    @st.composite
    def request(draw):
        op = draw(st.sampled_from(operations))
        chosen = tuple(draw(path_strategy) for _ in range(ARITY[op]))
        return Request(op, chosen, draw(timeout_strategy))

    return request()


def scenarios(request_strategy: Optional[st.SearchStrategy] = None, *, max_tasks: int = 3,
              max_requests: int = 2, min_tasks: int = 1) -> st.SearchStrategy:
    """Scenarios of ``min_tasks``..``max_tasks`` tasks, each taking
    1..``max_requests`` requests in turn."""
    _check_sizes(min_tasks, max_tasks, max_requests)
    request_strategy = requests() if request_strategy is None else request_strategy
    task = st.lists(request_strategy, min_size=1, max_size=max_requests).map(tuple)
    return st.lists(task, min_size=min_tasks, max_size=max_tasks).map(_scenario_of)


def pooled_scenarios(path_strategy: Optional[st.SearchStrategy] = None, *, pool_size: int = 4,
                     operations: Sequence[str] = OPERATIONS, timeouts: bool = False, timeout: float = 1.0,
                     max_tasks: int = 3, max_requests: int = 2, min_tasks: int = 1) -> st.SearchStrategy:
    """Scenarios whose requests share a few paths: first 1..``pool_size``
    paths, then every request's paths from that pool or, as often, freshly
    drawn. Tasks meet on the same
    paths far more often than with independent draws (two renames of the
    same pair in opposite directions, say), and the pool shrinks too. A
    two-path request is sometimes an earlier task's mirrored (rename /b /a
    beside rename /a /b)."""
    _check_sizes(min_tasks, max_tasks, max_requests)
    if not 1 <= pool_size <= 64:
        raise ValueError(f"pool_size {pool_size} is outside 1..64")
    path_strategy = paths() if path_strategy is None else path_strategy

    @st.composite
    def scenario(draw):
        pool = draw(st.lists(path_strategy, min_size=1, max_size=pool_size, unique=True))
        # Mostly the pool's paths, sometimes a fresh one (which shrinks to /).
        request_strategy = requests(st.one_of(st.sampled_from(pool), path_strategy), operations=operations,
                                    timeouts=timeouts, timeout=timeout)
        task_count = draw(st.integers(min_tasks, max_tasks))
        tasks = []
        for _ in range(task_count):
            task = []
            for _ in range(draw(st.integers(1, max_requests))):
                task.append(_mirrored(draw, tasks) or draw(request_strategy))
            tasks.append(tuple(task))
        return Scenario(tuple(tasks))

    return scenario()


def _mirrored(draw, tasks) -> Optional[Request]:
    """Sometimes an earlier task's two-path request in the opposite direction
    (rename /b /a for rename /a /b): the classic pair that deadlocks a lock
    taking its paths in request order."""
    earlier = [r for task in tasks for r in task if len(r.paths) == 2 and r.paths[0] != r.paths[1]]
    if not earlier or not draw(st.booleans()):
        return None
    original = draw(st.sampled_from(earlier))
    return Request(original.op, original.paths[::-1], original.timeout)


def _check_sizes(min_tasks: int, max_tasks: int, max_requests: int) -> None:
    if not 1 <= min_tasks <= max_tasks <= 64:
        raise ValueError(f"tasks {min_tasks}..{max_tasks}: need 1 <= min_tasks <= max_tasks <= 64")
    if not 1 <= max_requests <= 64:
        raise ValueError(f"max_requests {max_requests} is outside 1..64")
