"""check_async_lock and check_thread_lock on real targets: pathlock's own
lock passes; the design notes' scheme 4 and deliberately broken locks fail,
each with its minimal counterexample."""

import asyncio
import contextlib
import threading
import time

import pytest

import pathlock
from pathlock.testing import (LockTestFailure, Policy, Scenario, Verdict, check_async_lock, check_thread_lock,
                              replay_async)
from pathlock.testing import strategies as pst
from pathlock.testing.examples import broken, design_notes

SOUND_SCHEMES = [s for s in pathlock.SCHEMES if s != "path-rwa"]


def failure_of(check, *args, **kwargs) -> LockTestFailure:
    with pytest.raises(LockTestFailure) as caught:
        check(*args, **kwargs)
    return caught.value


@pytest.mark.parametrize("scheme", SOUND_SCHEMES)
def test_pathlocks_own_lock_passes_with_every_sound_scheme(scheme):
    report = check_async_lock(lambda: pathlock.PathLock(scheme), max_examples=150, seed=11)
    assert report.runs == 150 and report.seed == 11


def test_pathlock_never_over_blocks_with_the_recommended_scheme():
    check_async_lock(pathlock.PathLock, max_examples=300, seed=12, over_blocking=Policy.REQUIRE)


def test_over_blocking_is_measured_where_a_scheme_blocks_readers_of_one_lineage():
    report = check_async_lock(lambda: pathlock.PathLock("path-rw"), max_examples=200, seed=13)
    assert report.over_blocking_runs > 0


def test_pathlocks_defective_scheme_is_caught_too():
    failure = failure_of(check_async_lock, lambda: pathlock.PathLock("path-rwa", allow_defective=True),
                         max_examples=500, seed=14)
    assert failure.outcome.verdict is Verdict.SAFETY_VIOLATION
    assert len(failure.outcome.scenario.tasks) == 2


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_design_notes_scheme_4_fails_with_a_copy_into_its_own_subtree_shrunk_to_two_tasks(seed):
    start = time.perf_counter()
    failure = failure_of(check_async_lock, design_notes.AncestorModePathLock, seed=seed)
    assert time.perf_counter() - start < 10
    outcome = failure.outcome
    assert outcome.verdict is Verdict.SAFETY_VIOLATION
    assert len(outcome.scenario.tasks) == 2 and all(len(t) == 1 for t in outcome.scenario.tasks)
    copy = next(r for _, _, r in outcome.scenario.requests() if r.op == "copy")
    source, target = copy.paths
    assert source in target.parents, f"{copy} is not a copy into its own subtree"
    text = str(failure)
    assert f"seed {seed}" in text and "replay: pathlock.testing.replay_async(AncestorModePathLock" in text
    assert "held at once" in text and f"{copy}" in text


def test_a_printed_failure_replays():
    failure = failure_of(check_async_lock, design_notes.AncestorModePathLock, seed=4)
    outcome = replay_async(design_notes.AncestorModePathLock, str(failure.outcome.scenario), failure.outcome.schedule)
    assert outcome.verdict is Verdict.SAFETY_VIOLATION
    assert outcome.describe() == failure.outcome.describe()


def test_a_replay_whose_schedule_does_not_fit_says_so():
    outcome = replay_async(pathlock.PathLock, "T0: write /a; T1: write /a", [7, 7, 7])
    assert "the schedule did not fit this run" in outcome.detail
    assert "did not fit" not in replay_async(pathlock.PathLock, "T0: write /a; T1: write /a", []).detail


def test_a_check_replays_from_its_seed():
    first = str(failure_of(check_async_lock, broken.RequestOrderLock, seed=21))
    assert str(failure_of(check_async_lock, broken.RequestOrderLock, seed=21)) == first


def test_the_notes_scheme_3_is_safe_but_over_blocks():
    report = check_async_lock(design_notes.ReadWritePathLock, max_examples=300, seed=5)
    assert report.over_blocking_runs > 0


def test_a_lock_without_ancestor_locks_is_unsafe():
    failure = failure_of(check_async_lock, broken.NoAncestorLock, seed=6)
    assert failure.outcome.verdict is Verdict.SAFETY_VIOLATION
    assert len(failure.outcome.scenario.tasks) == 2


def test_per_path_locks_taken_in_request_order_deadlock():
    failure = failure_of(check_async_lock, broken.RequestOrderLock, seed=7)
    outcome = failure.outcome
    assert outcome.verdict is Verdict.DEADLOCK
    assert sorted(str(r) for _, _, r in outcome.scenario.requests()) == ["rename /a /b", "rename /b /a"]
    assert len(outcome.waits) == 2 and all("waits at" in w for w in outcome.waits)


ONE_PATH = pst.scenarios(pst.requests(pst.paths(("a",), max_depth=1, root=False), operations=("read", "write")),
                         max_tasks=3, max_requests=2)


def test_readers_barging_past_a_queued_writer_break_fifo_and_pathlock_does_not():
    failure = failure_of(check_async_lock, broken.BargingReadersLock, scenarios=ONE_PATH, seed=8,
                         fifo=Policy.REQUIRE)
    assert failure.outcome.verdict is Verdict.FIFO_VIOLATION
    assert "which asked earlier" in str(failure)
    check_async_lock(pathlock.PathLock, scenarios=ONE_PATH, seed=8, fifo=Policy.REQUIRE)
    assert check_async_lock(broken.BargingReadersLock, seed=8).fifo_inversion_runs > 0


class LeakOnCancelLock:
    """An asyncio.Lock per tree whose waiter, cancelled as it is granted,
    keeps the grant: a timeout racing a release leaks the lock."""

    def __init__(self):
        self._held = False
        self._waiters = []

    @contextlib.asynccontextmanager
    async def __call__(self, read, write):
        if self._held or self._waiters:
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
                raise  # a grant already handed over is lost here
        self._held = True
        try:
            yield
        finally:
            self._held = False
            while self._waiters:
                waiter = self._waiters.pop(0)
                if not waiter.done():
                    self._held = True
                    waiter.set_result(None)
                    break


def test_a_timeout_that_races_a_grant_is_a_schedule_choice_and_its_leak_is_found():
    failure = failure_of(check_async_lock, LeakOnCancelLock, seed=9)
    assert failure.outcome.verdict is Verdict.DEADLOCK
    assert "timeout" in str(failure.outcome.scenario)
    assert any("gives up" in str(e) for e in failure.outcome.events) or failure.outcome.schedule


class RaisingLock:
    @contextlib.asynccontextmanager
    async def __call__(self, read, write):
        if any(p.name == "b" for p in write):
            raise KeyError("b")
        yield


def test_an_exception_from_the_lock_is_reported():
    failure = failure_of(check_async_lock, RaisingLock, seed=10)
    assert failure.outcome.verdict is Verdict.LOCK_ERROR and "KeyError" in str(failure)


class SpinningLock:
    @contextlib.asynccontextmanager
    async def __call__(self, read, write):
        while True:
            await asyncio.sleep(0)
        yield


def test_a_lock_that_never_grants_is_stopped_at_the_step_limit():
    failure = failure_of(check_async_lock, SpinningLock, seed=11, max_steps=500)
    assert failure.outcome.verdict is Verdict.STEP_LIMIT


def test_bad_arguments_are_refused_naming_the_limit():
    with pytest.raises(ValueError, match="max_examples 0 is outside"):
        check_async_lock(pathlock.PathLock, max_examples=0)
    with pytest.raises(ValueError, match="hold_awaits -1 is outside"):
        check_async_lock(pathlock.PathLock, hold_awaits=-1)
    with pytest.raises(ValueError, match="hang_timeout 0 s is outside"):
        check_thread_lock(pathlock.PathLock, hang_timeout=0)


def test_pathlock_passes_on_threads():
    report = check_thread_lock(pathlock.PathLock, max_examples=60, seed=15)
    assert report.runs >= 60


class NoAncestorThreadLock:
    def __init__(self):
        self._locks = {}
        self._table = threading.Lock()

    @contextlib.contextmanager
    def __call__(self, read, write):
        with contextlib.ExitStack() as stack:
            for path in sorted({*read, *write}):
                with self._table:
                    lock = self._locks.setdefault(path, threading.Lock())
                stack.enter_context(lock)
            yield


def test_a_thread_lock_without_ancestor_locks_is_unsafe():
    failure = failure_of(check_thread_lock, NoAncestorThreadLock, seed=16)
    assert failure.outcome.verdict is Verdict.SAFETY_VIOLATION
    assert len(failure.outcome.scenario.tasks) == 2
    assert "real threads" in str(failure)


class PoliteLock:
    """A contender waits, spinning, while any other contender is there: two
    that arrive together spin for ever (a livelock under every schedule)."""

    def __init__(self):
        self._contenders = 0

    @contextlib.asynccontextmanager
    async def __call__(self, read, write):
        self._contenders += 1
        await asyncio.sleep(0)
        while self._contenders > 1:
            await asyncio.sleep(0)
        try:
            yield
        finally:
            self._contenders -= 1


def test_a_livelock_that_needs_many_choices_is_reported_not_dropped():
    two_writers = pst.scenarios(pst.requests(pst.paths(("a",), max_depth=1, root=False), operations=("write",)),
                                min_tasks=2, max_tasks=2, max_requests=1)
    failure = failure_of(check_async_lock, PoliteLock, scenarios=two_writers, seed=17, max_examples=50)
    assert failure.outcome.verdict is Verdict.STEP_LIMIT


class AwaitingReleaseMutex:
    """A correct global mutex whose release awaits once (a round trip)."""

    def __init__(self):
        self._mutex = asyncio.Lock()

    @contextlib.asynccontextmanager
    async def __call__(self, read, write):
        async with self._mutex:
            yield
            await asyncio.sleep(0)


ONE_PATH_WRITES = pst.scenarios(pst.requests(pst.paths(("a",), max_depth=1, root=False), operations=("write",)),
                                max_tasks=3, max_requests=2)


def test_a_release_that_awaits_is_not_over_blocking():
    check_async_lock(AwaitingReleaseMutex, scenarios=ONE_PATH_WRITES, seed=18, over_blocking=Policy.REQUIRE)


def test_calling_a_check_from_inside_a_running_loop_is_refused_clearly():
    async def inside():
        check_async_lock(pathlock.PathLock, max_examples=1, seed=1)

    with pytest.raises(RuntimeError, match="call it from a synchronous function"):
        asyncio.run(inside())
