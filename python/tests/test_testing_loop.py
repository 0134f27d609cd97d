"""pathlock.testing's controlled event loop: every scheduling decision is a
chooser's, time is virtual, and a schedule replays exactly."""

import asyncio

import pytest

from pathlock.testing import ControlledLoop, FifoChooser, RandomChooser, ReplayChooser


async def interleaving(log, tasks=3, awaits=3):
    async def worker(name):
        for i in range(awaits):
            log.append(f"{name}{i}")
            await asyncio.sleep(0)

    await asyncio.gather(*(worker(chr(ord("a") + t)) for t in range(tasks)))


def test_the_fifo_chooser_runs_callbacks_in_asyncios_own_order():
    ours, theirs = [], []
    ControlledLoop().run(interleaving(ours), FifoChooser())
    asyncio.run(interleaving(theirs))
    assert ours == theirs


def test_other_choices_interleave_the_tasks_otherwise_and_a_schedule_replays_exactly():
    loop = ControlledLoop()
    orders = set()
    for seed in range(20):
        chooser = RandomChooser(seed)
        first = []
        loop.run(interleaving(first), chooser)
        again = []
        loop.run(interleaving(again), ReplayChooser(chooser.schedule))
        assert again == first
        orders.add(tuple(first))
    assert len(orders) > 10


def test_time_is_virtual_a_long_sleep_takes_no_time():
    loop = ControlledLoop()

    async def sleeper():
        await asyncio.sleep(3600)
        return asyncio.get_running_loop().time()

    assert loop.run(sleeper()) == 3600


def test_a_timer_firing_early_is_a_choice():
    async def wait_with_timeout():
        ready = asyncio.Event()

        async def setter():
            await asyncio.sleep(0)
            ready.set()

        task = asyncio.get_running_loop().create_task(setter())
        try:
            async with asyncio.timeout(5):
                await ready.wait()
            outcome = "set"
        except TimeoutError:
            outcome = "timed out"
        await task
        return outcome

    loop = ControlledLoop()
    outcomes = {loop.run(wait_with_timeout(), RandomChooser(seed)) for seed in range(30)}
    assert outcomes == {"set", "timed out"}
    assert loop.run(wait_with_timeout(), FifoChooser()) == "set"


def test_nothing_left_to_run_is_reported_as_a_deadlock():
    async def forever():
        await asyncio.get_running_loop().create_future()

    with pytest.raises(RuntimeError, match="deadlock"):
        ControlledLoop().run(forever())


def test_a_run_that_does_not_end_is_stopped_at_its_step_limit():
    async def spin():
        while True:
            await asyncio.sleep(0)

    with pytest.raises(RuntimeError, match="not done after 100 steps"):
        ControlledLoop().run(spin(), max_steps=100)


def test_a_replayed_choice_out_of_range_takes_the_first_option():
    chooser = ReplayChooser([5, 1])
    assert [chooser.choose(3), chooser.choose(3), chooser.choose(3)] == [0, 1, 0]
