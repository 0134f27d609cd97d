"""The result of one run, and the failure a check raises."""

from __future__ import annotations

import dataclasses
from typing import List, Optional, Tuple

from ._scenario import Scenario
from ._shadow import Event, RequestId, Verdict


@dataclasses.dataclass
class Outcome:
    """One run of a scenario under one schedule."""

    scenario: Scenario
    verdict: Verdict
    detail: str
    schedule: Optional[List[int]]  # None: real threads, scheduled by the operating system
    events: List[Event]
    steps: int
    fifo_inversions: List[Tuple[RequestId, RequestId]]
    over_blocked: List[RequestId]
    waits: List[str] = dataclasses.field(default_factory=list)  # at a deadlock: who waits where

    @property
    def failed(self) -> bool:
        return self.verdict is not Verdict.PASSED

    def describe(self) -> str:
        lines = [f"{self.verdict.value}", f"  scenario: {self.scenario}"]
        if self.detail:
            lines.append(f"  {self.detail}")
        lines += [f"  {w}" for w in self.waits]
        if self.schedule is None:
            lines.append("  schedule: real threads, scheduled by the operating system (the scenario replays, "
                         "the interleaving may not)")
        elif self.schedule:
            lines.append(f"  schedule: {self.schedule} (the option taken at each choice of the {self.steps} loop steps; "
                         "0 is asyncio's own order, and 0 from the end on)")
        else:
            lines.append(f"  schedule: [] (asyncio's own order, {self.steps} loop steps)")
        if self.events:
            lines.append("  what the tasks did, in order" + (" (a step is one callback of the event loop):"
                                                           if self.schedule is not None else ":"))
            lines += [f"    {e}" for e in self.events]
        return "\n".join(lines)


class LockTestFailure(AssertionError):  # noqa: N818 (an AssertionError: pytest reports it as a failed test)
    """A check found a run that breaks the lock; ``outcome`` is the minimal
    one, ``seed`` replays the search and ``replay`` the run."""

    def __init__(self, outcome: Outcome, seed: Optional[int], replay: str) -> None:
        self.outcome = outcome
        self.seed = seed
        self.replay = replay
        seed_line = f"seed {seed} (check again with seed={seed})\n" if seed is not None else ""
        super().__init__(f"{outcome.describe()}\n{seed_line}replay: {replay}")


LockTestFailure.__module__ = "pathlock.testing"  # as users import it
