"""Runs a scenario's tasks against a thread lock on real threads.

The lock is used with ``with lock(read=[...], write=[...]):``. One thread
per task takes its requests in turn and, holding one, pauses for a seeded
random few microseconds (or just yields), so that the threads meet inside
each other's critical sections. The shadow checker judges every grant by
the model; a run whose threads do not all finish within ``hang_timeout``
seconds is a hang (a deadlock, a lost wake-up or a lock slower than the
timeout), reported with each waiting thread's request and the line it
waits at. The operating system schedules the threads, so a run does
not replay exactly; its scenario and its pauses do. Threads of a deadlocked
run cannot be stopped: they are left blocked (daemon threads).
"""

from __future__ import annotations

import linecache
import random
import sys
import threading
import time
from typing import List

from ._outcome import Outcome
from ._scenario import Scenario
from ._shadow import Policy, Shadow, Verdict


def _where(thread: threading.Thread) -> str:
    frame = sys._current_frames().get(thread.ident)
    if frame is None:
        return "not running"
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    return f"{frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}: {line}"


class ThreadRunner:
    """Runs scenarios against locks made by ``make_lock``, a fresh one per run."""

    def __init__(self, make_lock, *, hang_timeout: float = 1.0, fifo: Policy = Policy.MEASURE) -> None:
        if not 0.01 <= hang_timeout <= 3600:
            raise ValueError(f"hang_timeout {hang_timeout} s is outside 0.01..3600 s")
        self.make_lock = make_lock
        self.hang_timeout = hang_timeout
        self.fifo = fifo

    def run(self, scenario: Scenario, seed: int) -> Outcome:
        # Over-blocking needs to know when the lock has nothing left to do,
        # which real threads do not tell: it is not measured here.
        shadow = Shadow(scenario, self.fifo, Policy.MEASURE)
        record = threading.Lock()  # the shadow's own bookkeeping, never held across an acquire
        errors: List[str] = []
        lock = self.make_lock()
        start = threading.Barrier(len(scenario.tasks))

        def body(task: int) -> None:
            pauses = random.Random(seed * 1000 + task)
            try:
                start.wait()
                for number, request in enumerate(scenario.tasks[task]):
                    rid = (task, number)
                    with record:
                        shadow.arrive(task, rid)
                    with lock(read=list(request.read), write=list(request.write)):
                        with record:
                            shadow.grant(task, rid)
                        pause = pauses.choice((0, 0, 1e-6, 2e-5))
                        time.sleep(pause)
                        with record:
                            shadow.release(task, rid)
            except BaseException as e:  # noqa: BLE001  (the lock's error is the finding)
                errors.append(f"T{task} raised {e!r}")

        threads = [threading.Thread(target=body, args=(t,), name=f"pathlock.testing T{t}", daemon=True)
                   for t in range(len(scenario.tasks))]
        for thread in threads:
            thread.start()
        # A hang: threads left and no event (ask, hold, release) for hang_timeout.
        seen, last_move = -1, time.monotonic()
        while any(thread.is_alive() for thread in threads):
            for thread in threads:
                thread.join(0.005)
            if len(shadow.events) != seen:
                seen, last_move = len(shadow.events), time.monotonic()
            elif time.monotonic() - last_move >= self.hang_timeout:
                break
        waits: List[str] = []
        with record:
            shadow.recording = False
            if any(thread.is_alive() for thread in threads):
                for t, thread in enumerate(threads):
                    if thread.is_alive() and t in shadow.waiting:
                        rid = shadow.waiting[t][1]
                        blockers = shadow.blockers(t)
                        why = ("by the model it waits for " + ", ".join(shadow.name(b) for b in blockers)) \
                            if blockers else "nothing that conflicts with it holds or asked before it"
                        waits.append(f"{shadow.name(rid)} waits at {_where(thread)}; {why}")
                    elif thread.is_alive():
                        waits.append(f"T{t} is stuck outside the lock at {_where(thread)}")
                shadow._fail(Verdict.HANG, f"no thread moved for {self.hang_timeout} s"
                             + "".join(f"; {e}" for e in errors))
            elif errors:
                shadow._fail(Verdict.LOCK_ERROR, "; ".join(errors))
        return Outcome(scenario, shadow.failure or Verdict.PASSED, shadow.detail, None, list(shadow.events), 0,
                       shadow.fifo_inversions, shadow.over_blocked, waits)
