"""A last shrinking pass after Hypothesis's: scenario first, then schedule.

Hypothesis shrinks the whole choice sequence, and removing a task shifts
every schedule choice after it, so it can stop at a scenario with a task
too many. This pass tries each smaller scenario (a task, a request or a
timeout fewer) under the failing schedule, asyncio's own order and a few
seeded random schedules, keeps any that fails the same way, and repeats;
then it sets the schedule's choices to 0 (asyncio's order) one by one where
the failure stays. Deterministic: its random schedules come from the seed.
"""

from __future__ import annotations

from typing import Callable, Iterator, Optional

from ._outcome import Outcome
from ._scenario import Request, Scenario
from ._shadow import Verdict
from .loop import FifoChooser, RandomChooser, ReplayChooser

#: Random schedules tried per smaller scenario.
SCHEDULES_PER_CANDIDATE = 64


def _smaller(scenario: Scenario) -> Iterator[Scenario]:
    tasks = scenario.tasks
    if len(tasks) > 1:
        for t in range(len(tasks)):
            yield Scenario(tasks[:t] + tasks[t + 1:])
    for t, task in enumerate(tasks):
        if len(task) > 1:
            for r in range(len(task)):
                yield Scenario(tasks[:t] + (task[:r] + task[r + 1:],) + tasks[t + 1:])
    for t, task in enumerate(tasks):
        for r, request in enumerate(task):
            if request.timeout is not None:
                plain = Request(request.op, request.paths)
                yield Scenario(tasks[:t] + (task[:r] + (plain,) + task[r + 1:],) + tasks[t + 1:])


def _fails_alike(runner, scenario: Scenario, failing: Outcome, seed: int) -> Optional[Outcome]:
    choosers = [ReplayChooser(failing.schedule), FifoChooser()]
    # A run that hits the step limit is long: fewer tries of those.
    tries = SCHEDULES_PER_CANDIDATE // 8 if failing.verdict is Verdict.STEP_LIMIT else SCHEDULES_PER_CANDIDATE
    choosers += [RandomChooser(seed * SCHEDULES_PER_CANDIDATE + i) for i in range(tries)]
    for chooser in choosers:
        outcome = runner.run(scenario, chooser)
        if outcome.verdict is failing.verdict:
            return outcome
    return None


def shrink(runner, failing: Outcome, seed: int) -> Outcome:
    """The smallest failing run this pass finds, starting from ``failing``."""
    best = failing
    improved = True
    while improved:
        improved = False
        for candidate in _smaller(best.scenario):
            found = _fails_alike(runner, candidate, best, seed)
            if found is not None:
                best, improved = found, True
                break
    i = 0
    while i < len(best.schedule):
        if best.schedule[i] != 0:
            trial = best.schedule[:i] + [0] + best.schedule[i + 1:]
            outcome = runner.run(best.scenario, ReplayChooser(trial))
            if outcome.verdict is best.verdict:
                best = outcome
        i += 1
    # The final run replays the printed schedule exactly.
    return runner.run(best.scenario, ReplayChooser(best.schedule))


def shrink_scenario(fails: Callable[[Scenario], Optional[Outcome]], failing: Outcome) -> Outcome:
    """Scenario shrinking alone, for runs that do not replay (real threads):
    ``fails(scenario)`` runs it a few times and returns a failing outcome or
    None."""
    best = failing
    improved = True
    while improved:
        improved = False
        for candidate in _smaller(best.scenario):
            found = fails(candidate)
            if found is not None and found.verdict is best.verdict:
                best, improved = found, True
                break
    return best
