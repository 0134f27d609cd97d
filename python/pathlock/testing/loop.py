"""A controlled asyncio event loop: the schedule is a sequence of choices.

In asyncio a task switch happens only at an await, and the loop decides
which ready callback runs next. ``ControlledLoop`` makes each such decision a
choice asked of a ``Chooser``: at every step it runs one of the ready
callbacks (index 0 is the one plain asyncio would run), or fires the earliest
timer early. Time is virtual: it moves only when a timer fires, so a timeout
is a choice like any other, and a run never sleeps.

Choosers: ``FifoChooser`` (plain asyncio's order), ``RandomChooser(seed)``,
``ReplayChooser(schedule)`` (a printed schedule) and ``HypothesisChooser(data)``
(choices drawn from Hypothesis, so schedules shrink with the scenario,
towards asyncio's own order).

The loop runs callbacks, tasks and timers; it has no I/O (no sockets, no
subprocesses, no executor). A lock under test that hands work to the loop
from another thread (``call_soon_threadsafe`` off the loop's thread) is
reported, since its timing is outside the schedule.
"""

from __future__ import annotations

import asyncio
import enum
import heapq
import random
import threading
from asyncio import events
from typing import List, Optional, Sequence


class Chooser:
    """Picks one of ``n`` options (``n >= 2``); records what it picked."""

    def __init__(self) -> None:
        self.schedule: List[int] = []

    def choose(self, n: int) -> int:
        choice = self._pick(n)
        self.schedule.append(choice)
        return choice

    def _pick(self, n: int) -> int:
        raise NotImplementedError


class FifoChooser(Chooser):
    """Always the first option: the order plain asyncio runs callbacks in."""

    def _pick(self, n: int) -> int:
        return 0


class RandomChooser(Chooser):
    """Uniform random choices from ``seed``; replays exactly from it."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.seed = seed
        self._random = random.Random(seed)

    def _pick(self, n: int) -> int:
        return self._random.randrange(n)


class ReplayChooser(Chooser):
    """Replays a schedule (a list of choices, as a failure prints it); past
    its end, or where a choice is out of range, the first option."""

    def __init__(self, schedule: Sequence[int]) -> None:
        super().__init__()
        self._replay = list(schedule)
        self.diverged = 0  # choices out of range: the run is not the one that printed the schedule

    def _pick(self, n: int) -> int:
        i = len(self.schedule)
        choice = self._replay[i] if i < len(self._replay) else 0
        if not 0 <= choice < n:
            self.diverged += 1
            return 0
        return choice


class HypothesisChooser(Chooser):
    """Choices drawn from Hypothesis's ``st.data()``: they shrink towards 0,
    asyncio's own order. Past ``budget`` choices (a long run, a livelock)
    the rest come from a random generator seeded by one more draw, so that
    the run goes on to its verdict instead of overrunning Hypothesis's
    buffer; the schedule records every choice either way."""

    def __init__(self, data, budget: int = 400) -> None:
        super().__init__()
        from hypothesis import strategies as st  # only this chooser needs Hypothesis
        self._data = data
        self._integers = {}
        self._st = st
        self._budget = budget
        self._random: Optional[random.Random] = None

    def _pick(self, n: int) -> int:
        if len(self.schedule) >= self._budget:
            if self._random is None:
                self._random = random.Random(self._data.draw(self._st.integers(0, 2**32 - 1)))
            return self._random.randrange(n)
        strategy = self._integers.get(n)
        if strategy is None:
            strategy = self._integers[n] = self._st.integers(0, n - 1)
        return self._data.draw(strategy)


class StepOutcome(enum.Enum):
    """What ``ControlledLoop.step`` did: ran a callback, or nothing could run."""
    RAN = "ran"
    IDLE = "idle"


class ControlledLoop(asyncio.BaseEventLoop):
    """An event loop whose every scheduling decision is a ``Chooser``'s.
    Drive it with ``step()`` between ``enter()`` and ``leave()``, or with
    ``run(coroutine, chooser)``."""

    def __init__(self) -> None:
        super().__init__()
        self._virtual_now = 0.0
        self._chooser: Chooser = FifoChooser()
        self._driver_thread: Optional[int] = None
        self.foreign_thread_calls = 0
        self.callback_errors: List[dict] = []
        self.steps = 0

    # asyncio's hooks: virtual time, no self-pipe, no I/O.
    def time(self) -> float:
        return self._virtual_now

    def _write_to_self(self) -> None:
        pass

    def _process_events(self, event_list) -> None:
        pass

    def call_soon_threadsafe(self, callback, *args, context=None):
        if self._driver_thread is not None and threading.get_ident() != self._driver_thread:
            self.foreign_thread_calls += 1
        return super().call_soon_threadsafe(callback, *args, context=context)

    def call_exception_handler(self, context) -> None:
        # An exception no task caught (a callback's): the runner reports it.
        self.callback_errors.append(context)

    def _run_once(self) -> None:
        if self.step() == StepOutcome.IDLE:
            raise RuntimeError("ControlledLoop: nothing can run (every task waits): a deadlock")

    # Driving the loop.
    def reset(self, chooser: Chooser) -> None:
        """Starts a fresh run on this loop: no callbacks, time 0."""
        self._ready.clear()
        for handle in self._scheduled:
            handle._scheduled = False
        self._scheduled.clear()
        self._timer_cancelled_count = 0
        self._virtual_now = 0.0
        self._chooser = chooser
        self.foreign_thread_calls = 0
        self.callback_errors = []
        self.steps = 0

    def use(self, chooser: Chooser) -> None:
        """Makes ``chooser`` decide from the next step on."""
        self._chooser = chooser

    def enter(self) -> None:
        """Makes this the running loop of the calling thread. RuntimeError if
        another loop runs there (call the checks from a synchronous test)."""
        running = events._get_running_loop()
        if running is not None and running is not self:
            raise RuntimeError("pathlock.testing runs its own event loop: call it from a synchronous function, "
                               "not from inside a running event loop (an async test or asyncio.run)")
        self._driver_thread = threading.get_ident()
        self._thread_id = self._driver_thread
        events._set_running_loop(self)

    def leave(self) -> None:
        events._set_running_loop(None)
        self._thread_id = None

    def pending_timers(self) -> list:
        """The timers set and not cancelled."""
        return [h for h in self._scheduled if not h._cancelled]

    def ready_handles(self) -> list:
        """The callbacks that could run now, in asyncio's order."""
        return [h for h in self._ready if not h._cancelled]

    def _earliest_timer(self):
        heap = self._scheduled
        while heap and heap[0]._cancelled:
            heapq.heappop(heap)._scheduled = False
            self._timer_cancelled_count = max(0, self._timer_cancelled_count - 1)
        return heap[0] if heap else None

    def step(self) -> StepOutcome:
        """Runs one callback, the chooser's pick among the ready ones and the
        earliest timer; IDLE when nothing is ready and no timer is set."""
        ready = self._ready
        if any(h._cancelled for h in ready):
            live = [h for h in ready if not h._cancelled]
            ready.clear()
            ready.extend(live)
        timer = self._earliest_timer()
        n = len(ready) + (timer is not None)
        if n == 0:
            return StepOutcome.IDLE
        choice = self._chooser.choose(n) if n > 1 else 0
        self.steps += 1
        if choice == len(ready):
            heapq.heappop(self._scheduled)
            timer._scheduled = False
            self._virtual_now = max(self._virtual_now, timer._when)
            timer._run()
        else:
            if choice == 0:
                handle = ready.popleft()
            else:
                handle = ready[choice]
                del ready[choice]
            handle._run()
        return StepOutcome.RAN

    def has_work(self) -> bool:
        return bool(self._ready) or self._earliest_timer() is not None

    def run(self, coroutine, chooser: Optional[Chooser] = None, *, max_steps: int = 100_000):
        """Runs ``coroutine`` to its end under ``chooser`` (FIFO by default)
        and returns its result. RuntimeError if it cannot finish (every task
        waits) or takes more than ``max_steps`` steps."""
        self.reset(chooser or FifoChooser())
        self.enter()
        try:
            task = self.create_task(coroutine)
            while not task.done():
                if self.steps >= max_steps:
                    raise RuntimeError(f"ControlledLoop: not done after {max_steps} steps")
                if self.step() == StepOutcome.IDLE:
                    raise RuntimeError("ControlledLoop: nothing can run and the coroutine is not done (a deadlock)")
            return task.result()
        finally:
            self.leave()
