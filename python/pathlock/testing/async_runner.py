"""Runs a scenario's tasks against an async lock on the controlled loop.

The lock has the design notes' interface: ``lock(read=[...], write=[...])``
returns an async context manager (paths are ``pathlib.PurePosixPath``).
Each task takes its requests in turn; while it holds one it awaits
``hold_awaits`` times (``asyncio.sleep(0)``), so other tasks can run inside
its critical section. A request with a timeout waits under
``asyncio.timeout`` (virtual seconds).
"""

from __future__ import annotations

import asyncio
import gc
import linecache
import traceback
from typing import Callable, List, Optional

from ._outcome import Outcome
from ._scenario import Scenario
from ._shadow import Policy, Shadow, Verdict
from .loop import Chooser, ControlledLoop, FifoChooser, StepOutcome

LockFactory = Callable[[], object]

#: Steps one run may take before it is reported as not ending (a run of the
#: default scenarios takes tens of steps).
DEFAULT_MAX_STEPS = 2_000


async def _task_body(lock, task: int, scenario: Scenario, shadow: Shadow, hold_awaits: int) -> None:
    for number, request in enumerate(scenario.tasks[task]):
        rid = (task, number)
        context = lock(read=list(request.read), write=list(request.write))
        shadow.arrive(task, rid)
        if request.timeout is None:
            await context.__aenter__()
        else:
            try:
                async with asyncio.timeout(request.timeout):
                    await context.__aenter__()
            except TimeoutError:
                shadow.give_up(task, rid)
                continue
        shadow.grant(task, rid)
        try:
            for _ in range(hold_awaits):
                await asyncio.sleep(0)
        finally:
            shadow.release(task, rid)
            await context.__aexit__(None, None, None)


def _task_of(handle):
    """The task a ready callback steps or wakes, if it is one (asyncio's C
    and Python tasks both bind their step and wake-up methods)."""
    owner = getattr(handle._callback, "__self__", None)
    return owner if isinstance(owner, asyncio.Task) else None


def _where(task: asyncio.Task) -> str:
    """The innermost line a suspended task waits at: down its chain of
    awaited coroutines and generators, as far as they expose frames."""
    frame, awaited = None, task.get_coro()
    while awaited is not None:
        inner = getattr(awaited, "cr_frame", None) or getattr(awaited, "gi_frame", None) or \
            getattr(awaited, "ag_frame", None)
        if inner is None:
            # anext(agen) (an @asynccontextmanager's __aenter__) exposes its
            # generator only to the garbage collector.
            generators = [g for g in gc.get_referents(awaited) if getattr(g, "ag_frame", None) is not None]
            if not generators:
                break
            awaited = generators[0]
            continue
        frame = inner
        awaited = getattr(awaited, "cr_await", None) or getattr(awaited, "gi_yieldfrom", None) or \
            getattr(awaited, "ag_await", None)
    if frame is None:
        return "not started"
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    return f"{frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}: {line}"


class AsyncRunner:
    """Runs scenarios against locks made by ``make_lock``, one fresh lock per
    run, on one reused controlled loop."""

    def __init__(self, make_lock: LockFactory, *, hold_awaits: int = 1, fifo: Policy = Policy.MEASURE,
                 over_blocking: Policy = Policy.MEASURE, max_steps: int = DEFAULT_MAX_STEPS) -> None:
        if not 1 <= hold_awaits <= 1000:
            # 0 would grant and release in one step: no overlap could be seen.
            raise ValueError(f"hold_awaits {hold_awaits} is outside 1..1000")
        if not 1 <= max_steps <= 10_000_000:
            raise ValueError(f"max_steps {max_steps} is outside 1..10,000,000")
        self.make_lock = make_lock
        self.hold_awaits = hold_awaits
        self.fifo = fifo
        self.over_blocking = over_blocking
        self.max_steps = max_steps
        self.loop = ControlledLoop()

    def run(self, scenario: Scenario, chooser: Optional[Chooser] = None) -> Outcome:
        chooser = chooser or FifoChooser()
        loop = self.loop
        shadow = Shadow(scenario, self.fifo, self.over_blocking)
        loop.reset(chooser)
        loop.enter()
        tasks: List[asyncio.Task] = []
        waits: List[str] = []
        try:
            lock = self.make_lock()
            tasks = [loop.create_task(_task_body(lock, t, scenario, shadow, self.hold_awaits), name=f"T{t}")
                     for t in range(len(scenario.tasks))]
            verdict = self._drive(loop, shadow, tasks, waits)
            steps = loop.steps
        finally:
            shadow.recording = False
            self._clean_up(loop, tasks)
            loop.leave()
        schedule = list(chooser.schedule)
        while schedule and schedule[-1] == 0:
            schedule.pop()  # a replay takes the first option past its schedule's end
        return Outcome(scenario, verdict, shadow.detail, schedule, shadow.events, steps,
                       shadow.fifo_inversions, shadow.over_blocked, waits)

    def _drive(self, loop: ControlledLoop, shadow: Shadow, tasks, waits: List[str]) -> Verdict:
        unfinished = len(tasks)
        while unfinished:
            if loop.steps >= self.max_steps:
                shadow._fail(Verdict.STEP_LIMIT, f"still running after {self.max_steps} steps (a livelock, or "
                             "raise max_steps)")
                break
            shadow.step = loop.steps + 1
            if loop.step() is StepOutcome.IDLE:
                self._report_deadlock(shadow, tasks, waits)
                break
            if shadow.failure is not None:
                break
            if self._lock_error(loop, shadow, tasks):
                break
            unfinished = sum(not t.done() for t in tasks)
            if shadow.waiting and self._settled(loop, shadow, tasks):
                shadow.judge_settled()
                if shadow.failure is not None:
                    break
        if loop.foreign_thread_calls and shadow.failure is None:
            shadow._fail(Verdict.LOCK_ERROR, f"the lock called the loop from another thread "
                         f"{loop.foreign_thread_calls} time(s): such a run's timing is outside the schedule")
        return shadow.failure or Verdict.PASSED

    @staticmethod
    def _settled(loop: ControlledLoop, shadow: Shadow, tasks) -> bool:
        # The lock has nothing left to do when every ready callback steps a
        # holder inside its critical section (not a task that waits, nor one
        # inside a release that may await), and no timer is set but the
        # requests' timeouts (a lock may retry on a timer).
        holders = {tasks[t] for t in shadow.holding}
        for handle in loop.ready_handles():
            if _task_of(handle) not in holders:
                return False
        return all(isinstance(getattr(timer._callback, "__self__", None), asyncio.Timeout)
                   for timer in loop.pending_timers())

    @staticmethod
    def _lock_error(loop: ControlledLoop, shadow: Shadow, tasks) -> bool:
        for task in tasks:
            if task.done() and not task.cancelled() and task.exception() is not None:
                error = task.exception()
                trace = "".join(traceback.format_exception(type(error), error, error.__traceback__)).rstrip()
                shadow._fail(Verdict.LOCK_ERROR, f"{task.get_name()} raised {error!r}:\n{trace}")
                return True
        if loop.callback_errors:
            context = loop.callback_errors[0]
            shadow._fail(Verdict.LOCK_ERROR, f"a callback raised: {context.get('message')}: "
                         f"{context.get('exception')!r}")
            return True
        return False

    @staticmethod
    def _report_deadlock(shadow: Shadow, tasks, waits: List[str]) -> None:
        for t, task in enumerate(tasks):
            if task.done():
                continue
            if t in shadow.waiting:
                rid = shadow.waiting[t][1]
                blockers = shadow.blockers(t)
                why = ("by the model it waits for " + ", ".join(shadow.name(b) for b in blockers)) if blockers \
                    else ("nothing that conflicts with it holds or asked before it: it waits for what the lock "
                          "took for a request still waiting (a partial acquisition), or for a lost wake-up")
                waits.append(f"{shadow.name(rid)} waits at {_where(task)}; {why}")
            else:
                waits.append(f"T{t} is suspended outside the lock at {_where(task)}")
        shadow._fail(Verdict.DEADLOCK, "")

    @staticmethod
    def _clean_up(loop: ControlledLoop, tasks) -> None:
        # Cancel what is left and let it unwind (bounded); a lock broken
        # enough to hang here is dropped with its tasks.
        loop.use(FifoChooser())
        for task in tasks:
            if not task.done():
                task.cancel()
        for _ in range(10_000):
            if all(t.done() for t in tasks) or loop.step() is StepOutcome.IDLE:
                break
        for task in tasks:
            task._log_destroy_pending = False
            if task.done() and not task.cancelled():
                task.exception()  # retrieved: no "never retrieved" warning
        loop.reset(FifoChooser())
