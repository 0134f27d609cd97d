"""The lock from asyncio: every pair category blocking and non-blocking
under every scheme, FIFO among conflicting requests, cancellation and
timeouts (task.cancel(), asyncio.timeout, wait_for, timeout=) that hold
nothing and unblock those queued behind, grants handed over from other
threads, and the event loop never blocked while a task waits."""

import asyncio
import sys
import threading
import time

import pytest

from support import PAIR_CASES, PROMPT_S, case_id, expected_allowed, request


async def until(predicate, limit_s=PROMPT_S):
    deadline = time.monotonic() + limit_s
    while not predicate():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.0005)
    return True


async def hold(acquisition, events, label, release):
    """A task that enters `acquisition`, notes it, and holds until `release` is set."""
    async with acquisition:
        events.append(label)
        await release.wait()


@pytest.mark.parametrize("case", PAIR_CASES, ids=case_id)
async def test_an_async_acquire_follows_the_category(any_lock, case):
    category, holder_access, holder_path, asker_access, asker_path = case
    events, release = [], asyncio.Event()
    async with request(any_lock, holder_access, holder_path):
        asker = asyncio.create_task(hold(request(any_lock, asker_access, asker_path), events, "asker", release))
        await asyncio.sleep(0)  # the asker's first step: granted at once, or queued
        if expected_allowed(any_lock, category):
            assert events == ["asker"], "an allowed pair waited"
        else:
            assert events == [] and any_lock.waiting_acquisitions() == 1
    assert await until(lambda: events == ["asker"]), "the release did not hand the grant to the waiting task"
    release.set()
    await asyncio.wait_for(asker, PROMPT_S)
    assert any_lock.active_locks() == 0


async def test_conflicting_requests_are_granted_in_arrival_order(lock):
    events, release_writer, release_reader = [], asyncio.Event(), asyncio.Event()
    holder = lock.read("/a")
    await holder.__aenter__()
    writer = asyncio.create_task(hold(lock.write("/a"), events, "writer", release_writer))
    await asyncio.sleep(0)
    reader = asyncio.create_task(hold(lock.read("/a/b"), events, "reader", release_reader))
    await asyncio.sleep(0)
    assert lock.waiting_acquisitions() == 2, "the reader overtook the queued writer"
    await holder.__aexit__(None, None, None)
    assert await until(lambda: events == ["writer"])
    await asyncio.sleep(0.01)
    assert events == ["writer"]
    release_writer.set()
    assert await until(lambda: events == ["writer", "reader"])
    release_reader.set()
    await asyncio.gather(writer, reader)


async def blocked_wait_with_one_behind(lock, cancel_the_writer):
    """The holder reads /a/b; a writer of /a waits; a reader of /a/c queues
    behind it. Ending the writer's wait (by `cancel_the_writer`) grants the
    reader although the holder still holds, and leaves nothing held."""
    events, release = [], asyncio.Event()
    async with lock.read("/a/b"):
        writer = asyncio.create_task(hold(lock.write("/a"), events, "writer", release))
        await asyncio.sleep(0)
        reader = asyncio.create_task(hold(lock.read("/a/c"), events, "reader", release))
        await asyncio.sleep(0)
        assert lock.waiting_acquisitions() == 2
        outcome = await cancel_the_writer(writer)
        assert await until(lambda: events == ["reader"]), "the ended wait still blocks the reader behind it"
        assert lock.waiting_acquisitions() == 0
        release.set()
        await reader
    assert lock.active_locks() == 0
    return outcome


async def test_a_cancelled_task_holds_nothing_and_unblocks_those_behind_it(lock):
    async def cancel(writer):
        writer.cancel()
        with pytest.raises(asyncio.CancelledError):
            await writer
        return "cancelled"

    assert await blocked_wait_with_one_behind(lock, cancel) == "cancelled"


@pytest.mark.parametrize("how", ["asyncio.timeout", "wait_for", "timeout="])
async def test_a_timed_out_wait_raises_timeout_error_and_unblocks_those_behind_it(lock, how):
    async def time_out(_writer_task):
        # A second writer of /a, timed out by `how`, queued behind the first.
        assert lock.waiting_acquisitions() == 2
        with pytest.raises(TimeoutError):
            if how == "asyncio.timeout":
                async with asyncio.timeout(0.05):
                    async with lock.write("/a"):
                        pass
            elif how == "wait_for":
                await asyncio.wait_for(lock.write("/a").__aenter__(), 0.05)
            else:
                async with lock.write("/a", timeout=0.05):
                    pass
        assert lock.waiting_acquisitions() == 2
        _writer_task.cancel()
        return "timed out"

    # The timed-out second writer is checked to leave nothing queued; the
    # first writer is then cancelled so the reader behind both proceeds.
    assert await blocked_wait_with_one_behind(lock, time_out) == "timed out"


async def test_a_grant_that_races_the_cancel_is_released(lock):
    # The holder releases and the waiting task is cancelled in the same loop
    # iteration: the grant arrives first, so the cancelled task must release it.
    holder = lock.write("/a")
    await holder.__aenter__()
    waiter = asyncio.create_task(lock.write("/a/b").__aenter__())
    await asyncio.sleep(0)
    assert lock.waiting_acquisitions() == 1
    await holder.__aexit__(None, None, None)  # grants the waiter: its future completes
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert lock.active_locks() == 0
    async with lock.write("/a"):
        pass


async def test_a_release_on_another_thread_wakes_the_waiting_task(lock):
    acquired, release = threading.Event(), threading.Event()

    def holder():
        with lock.write("/a"):
            acquired.set()
            release.wait(PROMPT_S)

    thread = threading.Thread(target=holder)
    thread.start()
    assert acquired.wait(PROMPT_S)
    acquisition = lock.read("/a/b")
    waiting = asyncio.create_task(acquisition.__aenter__())
    await asyncio.sleep(0.01)
    assert not waiting.done()
    # The loop is not blocked: this task runs while the other waits.
    ticks = 0
    for _ in range(5):
        await asyncio.sleep(0)
        ticks += 1
    assert ticks == 5
    release.set()  # the thread's release runs the handler, which posts to this loop
    await asyncio.wait_for(waiting, PROMPT_S)
    assert acquisition.held
    await acquisition.__aexit__(None, None, None)
    thread.join(PROMPT_S)


async def test_as_binds_the_acquisition_granted_at_once_or_after_a_wait(lock):
    acquisition = lock.write("/a")
    async with acquisition as held:  # granted at once
        assert held is acquisition and held.held
        later = lock.read("/a/b")
        waiting = asyncio.create_task(later.__aenter__())
        await asyncio.sleep(0)
        assert not waiting.done()
    assert await waiting is later and later.held
    assert await later.__aexit__(None, None, None) is None  # false: exceptions propagate
    assert lock.active_locks() == 0


async def test_awaiting_under_a_tracer_takes_the_iterator_path(lock):
    # With a trace function set, the interpreter resumes awaitables through
    # next() (StopIteration carrying the value) instead of send().
    sys.settrace(lambda *args: None)
    try:
        async with lock.write("/a") as held:
            traced = held
    finally:
        sys.settrace(None)
    assert traced.request == "W{/a}" and not traced.held


async def test_an_acquisition_is_awaited_once_at_a_time(lock):
    acquisition = lock.write("/a")
    async with acquisition:
        with pytest.raises(ValueError, match="already holds"):
            await acquisition.__aenter__()
    async with acquisition:
        assert acquisition.held
    async with lock.write("/a"):  # the same acquisition cannot wait twice at once
        waiting = asyncio.create_task(acquisition.__aenter__())
        await asyncio.sleep(0)
        with pytest.raises(ValueError, match="already being awaited"):
            acquisition.acquire(blocking=False)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
    assert lock.active_locks() == 0


async def test_many_tasks_on_one_folder_all_finish_and_never_overlap(lock):
    inside = []
    writers = 0

    async def writer(i):
        nonlocal writers
        async with lock.write("/shared"):
            writers += 1
            inside.append(writers)
            await asyncio.sleep(0)
            writers -= 1

    async def reader(i):
        async with lock.read(f"/shared/{i % 3}"):
            inside.append(-writers)
            await asyncio.sleep(0)

    await asyncio.wait_for(asyncio.gather(*(writer(i) if i % 2 else reader(i) for i in range(200))), PROMPT_S)
    assert max(inside) == 1 and min(inside) == 0
    assert lock.active_locks() == 0
