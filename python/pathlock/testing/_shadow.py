"""The shadow checker: what the tasks asked, hold and wait for, judged by
the model's conflict predicate (the C++ ``model::conflicts``).

It sees a lock from outside: a task *arrives* when it asks, *holds* once its
``async with`` (or ``with``) body runs, and *releases* as the body ends.
Safety is judged at every grant; FIFO (a grant that overtakes an earlier
conflicting waiter) and over-blocking (a waiter with nothing conflicting
holding or waiting ahead of it, at a moment when the lock has nothing left
to do) are measured."""

from __future__ import annotations

import dataclasses
import enum
from typing import Dict, List, Optional, Tuple

from ._scenario import Request, Scenario

RequestId = Tuple[int, int]  # (task, request number in the task)


class Verdict(enum.Enum):
    PASSED = "passed"
    SAFETY_VIOLATION = "safety violation: conflicting requests held at once"
    DEADLOCK = "deadlock: every unfinished task waits and nothing else can run"
    HANG = ("hang: tasks left and none moved within the hang timeout (a deadlock, a lost wake-up, or a lock "
            "slower than the timeout)")
    STEP_LIMIT = "no end: the run did not finish within its step limit"
    LOCK_ERROR = "the lock raised"
    FIFO_VIOLATION = "FIFO violation: a grant overtook an earlier conflicting waiter"
    OVER_BLOCKING = "over-blocking: a request waited with nothing conflicting ahead of it"


class Policy(enum.Enum):
    """What a measured property (FIFO, over-blocking) does to the verdict."""
    MEASURE = "measure"   # counted in the report; the run passes
    REQUIRE = "require"   # the first instance fails the run


class EventKind(enum.Enum):
    ASKS = "asks"
    HOLDS = "holds"
    RELEASES = "releases"
    GIVES_UP = "gives up (timeout)"


@dataclasses.dataclass(frozen=True)
class Event:
    step: Optional[int]  # the event loop's step; None on real threads
    task: int
    request: Request
    kind: EventKind

    def __str__(self) -> str:
        where = f"step {self.step:>3}: " if self.step is not None else ""
        return f"{where}T{self.task} {self.kind.value} {self.request}"


class Shadow:
    """Holders and waiters of one run; ``failure`` is set by the first
    property the run breaks."""

    def __init__(self, scenario: Scenario, fifo: Policy, over_blocking: Policy) -> None:
        self.scenario = scenario
        self.fifo = fifo
        self.over_blocking_policy = over_blocking
        ids = [(t, r) for t, r, _ in scenario.requests()]
        requests = {(t, r): req for t, r, req in scenario.requests()}
        self.requests: Dict[RequestId, Request] = requests
        # Judged once per run: the scenario's pairs by the model.
        self._conflicts = {(a, b): requests[a].conflicts_with(requests[b]) for a in ids for b in ids if a < b}
        self.holding: Dict[int, RequestId] = {}
        self.waiting: Dict[int, Tuple[int, RequestId]] = {}  # task -> (arrival number, request)
        self._arrivals = 0
        self.events: List[Event] = []
        self.recording = True  # off while the runner unwinds what is left of a run
        self.step: Optional[int] = None
        self.failure: Optional[Verdict] = None
        self.detail = ""
        self.fifo_inversions: List[Tuple[RequestId, RequestId]] = []
        self.over_blocked: List[RequestId] = []

    def conflict(self, a: RequestId, b: RequestId) -> bool:
        if a == b:
            return False
        return self._conflicts[(a, b) if a < b else (b, a)]

    def _log(self, task: int, rid: RequestId, kind: EventKind) -> None:
        if self.recording:
            self.events.append(Event(self.step, task, self.requests[rid], kind))

    def _fail(self, verdict: Verdict, detail: str) -> None:
        if self.failure is None:
            self.failure, self.detail = verdict, detail

    def name(self, rid: RequestId) -> str:
        return f"T{rid[0]}'s {self.requests[rid]}"

    # Called by the task bodies.
    def arrive(self, task: int, rid: RequestId) -> None:
        self._arrivals += 1
        self.waiting[task] = (self._arrivals, rid)
        self._log(task, rid, EventKind.ASKS)

    def grant(self, task: int, rid: RequestId) -> None:
        arrival, _ = self.waiting.pop(task)
        self._log(task, rid, EventKind.HOLDS)
        for holder in self.holding.values():
            if self.conflict(rid, holder):
                self._fail(Verdict.SAFETY_VIOLATION,
                           f"{self.name(rid)} was granted while {self.name(holder)} held, and they conflict")
        for earlier, waiter in self.waiting.values():
            if earlier < arrival and self.conflict(rid, waiter):
                self.fifo_inversions.append((rid, waiter))
                if self.fifo is Policy.REQUIRE:
                    self._fail(Verdict.FIFO_VIOLATION,
                               f"{self.name(rid)} was granted before {self.name(waiter)}, which asked earlier "
                               "and conflicts with it")
        self.holding[task] = rid

    def release(self, task: int, rid: RequestId) -> None:
        del self.holding[task]
        self._log(task, rid, EventKind.RELEASES)

    def give_up(self, task: int, rid: RequestId) -> None:
        self.waiting.pop(task, None)
        self._log(task, rid, EventKind.GIVES_UP)

    # Called by the runner when the lock has nothing left to do.
    def blockers(self, task: int) -> List[RequestId]:
        """What ``task``'s waiting request may wait for, by the model: the
        conflicting holders and the conflicting waiters that asked earlier."""
        arrival, rid = self.waiting[task]
        found = [h for h in self.holding.values() if self.conflict(rid, h)]
        found += [w for a, w in self.waiting.values() if a < arrival and self.conflict(rid, w)]
        return found

    def judge_settled(self) -> None:
        """Every waiter must have a reason to wait."""
        for task in list(self.waiting):
            rid = self.waiting[task][1]
            if rid in self.over_blocked or self.blockers(task):
                continue
            self.over_blocked.append(rid)
            if self.over_blocking_policy is Policy.REQUIRE:
                self._fail(Verdict.OVER_BLOCKING,
                           f"{self.name(rid)} waits, yet nothing that conflicts with it holds or asked before it")
