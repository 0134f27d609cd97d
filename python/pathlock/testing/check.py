"""One call that tests an async lock: ``check_async_lock(make_lock)``.

Hypothesis draws a scenario and then, step by step, the schedule (which
ready task runs at each await, and when timers fire); every run is judged by
the model (safety, deadlock, an end within the step limit, no exception
from the lock; FIFO and over-blocking measured). A failing run is shrunk on
Hypothesis's choice sequence, scenario first, and raised as a
``LockTestFailure`` that prints the minimal scenario, the trace of await
points, the verdict, the seed and a line that replays it.
"""

from __future__ import annotations

import dataclasses
import random
import time
from typing import List, Optional, Union

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import Flaky

from ._outcome import LockTestFailure, Outcome
from ._scenario import Scenario
from ._shrink import shrink, shrink_scenario
from ._shadow import Policy
from .async_runner import DEFAULT_MAX_STEPS, AsyncRunner, LockFactory
from .loop import HypothesisChooser, ReplayChooser
from .thread_runner import ThreadRunner
from .strategies import pooled_scenarios


@dataclasses.dataclass
class Report:
    """What a passing check ran and measured."""

    seed: int
    runs: int
    fifo_inversion_runs: int     # runs with a grant that overtook an earlier conflicting waiter
    over_blocking_runs: int      # runs with a waiter that had nothing conflicting ahead of it
    elapsed_s: float

    def __str__(self) -> str:
        return (f"{self.runs} runs passed in {self.elapsed_s:.2f} s (seed {self.seed}); FIFO inversions in "
                f"{self.fifo_inversion_runs}, over-blocking in {self.over_blocking_runs}")


def default_scenarios(max_tasks: int = 3, max_requests: int = 2, timeouts: bool = True):
    """The scenarios ``check_async_lock`` draws by default: up to 3 tasks of
    up to 2 requests of every operation, on a pool of up to 4 paths of depth
    <= 3 over the names a, b, ab; some requests time out."""
    return pooled_scenarios(timeouts=timeouts, max_tasks=max_tasks, max_requests=max_requests)


def _search_settings(max_examples: int) -> settings:
    # No example database: a search replays from its seed alone. Quiet: the
    # LockTestFailure says everything, shrunk further by our own pass.
    return settings(max_examples=max_examples, database=None, deadline=None, derandomize=False,
                    phases=(Phase.generate, Phase.shrink), verbosity=Verbosity.quiet, print_blob=False,
                    report_multiple_bugs=False, suppress_health_check=list(HealthCheck))


def _name(make_lock) -> str:
    # A name the replay line can use as code; "make_lock" for a lambda or a partial.
    name = getattr(make_lock, "__qualname__", "")
    return name if name.replace(".", "_").isidentifier() else "make_lock"


def replay_async(make_lock: LockFactory, scenario: Union[Scenario, str], schedule=(), **options) -> Outcome:
    """Runs one scenario under one schedule (as a failure prints them) and
    returns its Outcome; ``options`` as for ``check_async_lock``."""
    if isinstance(scenario, str):
        scenario = Scenario.parse(scenario)
    chooser = ReplayChooser(schedule)
    outcome = AsyncRunner(make_lock, **options).run(scenario, chooser)
    if chooser.diverged:
        outcome.detail += (f"{'; ' if outcome.detail else ''}the schedule did not fit this run ({chooser.diverged} "
                           "choice(s) out of range, taken as 0): the lock, the scenario or the options differ from "
                           "the run that printed it")
    return outcome


def check_async_lock(make_lock: LockFactory, *, scenarios=None, max_examples: int = 300,
                     seed: Optional[int] = None, hold_awaits: int = 1, fifo: Policy = Policy.MEASURE,
                     over_blocking: Policy = Policy.MEASURE, max_steps: int = DEFAULT_MAX_STEPS) -> Report:
    """Tests the async lock that ``make_lock()`` returns (a fresh one per
    run) on ``max_examples`` scenarios with their schedules. Returns a Report,
    or raises LockTestFailure with the minimal failing run.

    ``seed``: replays a search exactly (a random one when None, printed in
    the report and in a failure). ``fifo`` / ``over_blocking``:
    ``Policy.REQUIRE`` turns the measurement into a property."""
    __tracebackhide__ = True  # pytest shows the failure, not this frame
    if not 1 <= max_examples <= 10_000_000:
        raise ValueError(f"max_examples {max_examples} is outside 1..10,000,000")
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    runner = AsyncRunner(make_lock, hold_awaits=hold_awaits, fifo=fifo, over_blocking=over_blocking,
                         max_steps=max_steps)
    scenario_strategy = default_scenarios() if scenarios is None else scenarios
    counts = {"runs": 0, "fifo": 0, "over": 0}
    options = {"hold_awaits": hold_awaits, "fifo": fifo, "over_blocking": over_blocking, "max_steps": max_steps}
    option_text = "".join(f", {k}={v}" for k, v in options.items()
                          if v != {"hold_awaits": 1, "fifo": Policy.MEASURE, "over_blocking": Policy.MEASURE,
                                   "max_steps": DEFAULT_MAX_STEPS}[k])

    @_search_settings(max_examples)
    @given(st.data())
    def run_one(data):
        scenario = data.draw(scenario_strategy, label="scenario")
        outcome = runner.run(scenario, HypothesisChooser(data))
        counts["runs"] += 1
        counts["fifo"] += bool(outcome.fifo_inversions)
        counts["over"] += bool(outcome.over_blocked)
        if outcome.failed:
            if not smallest or _size(outcome.scenario) < _size(smallest[0].scenario):
                smallest[:] = [outcome]
            raise LockTestFailure(outcome, seed, "")

    smallest: List[Outcome] = []
    start = time.perf_counter()
    try:
        hypothesis_seed(seed)(run_one)()
    except (LockTestFailure, Flaky) as failure:
        # Flaky: a failure that did not repeat (a factory whose locks share
        # state across runs, say); the smallest failing run seen stands.
        found = failure.outcome if isinstance(failure, LockTestFailure) else smallest[0]
        outcome = shrink(runner, found, seed)
        replay = (f"pathlock.testing.replay_async({_name(make_lock)}, \"{outcome.scenario}\", "
                  f"{outcome.schedule}{option_text})")
        raise LockTestFailure(outcome, seed, replay) from None
    return Report(seed, counts["runs"], counts["fifo"], counts["over"], time.perf_counter() - start)


def check_thread_lock(make_lock, *, scenarios=None, max_examples: int = 100, seed: Optional[int] = None,
                      runs_per_example: int = 3, hang_timeout: float = 1.0, fifo: Policy = Policy.MEASURE) -> Report:
    """Tests the thread lock that ``make_lock()`` returns (``with lock(read=[...],
    write=[...])``) on real threads: ``max_examples`` scenarios, each run
    ``runs_per_example`` times with seeded pauses inside the critical
    sections. Safety and deadlock (threads not done within ``hang_timeout``
    seconds) are judged; FIFO is measured (over-blocking is not: real
    threads do not say when the lock has nothing left to do). A failure is
    shrunk to its smallest scenario that still fails within a few runs and
    raised as LockTestFailure; scenarios replay, thread interleavings may not."""
    __tracebackhide__ = True
    if not 1 <= max_examples <= 10_000_000:
        raise ValueError(f"max_examples {max_examples} is outside 1..10,000,000")
    if not 1 <= runs_per_example <= 1000:
        raise ValueError(f"runs_per_example {runs_per_example} is outside 1..1000")
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    runner = ThreadRunner(make_lock, hang_timeout=hang_timeout, fifo=fifo)
    scenario_strategy = default_scenarios(timeouts=False) if scenarios is None else scenarios
    counts = {"runs": 0, "fifo": 0}
    smallest: List[Outcome] = []

    def run_repeatedly(scenario, pauses_seed) -> Optional[Outcome]:
        for i in range(runs_per_example):
            outcome = runner.run(scenario, pauses_seed + i)
            counts["runs"] += 1
            counts["fifo"] += bool(outcome.fifo_inversions)
            if outcome.failed:
                return outcome
        return None

    @_search_settings(max_examples)
    @given(st.data())
    def run_one(data):
        scenario = data.draw(scenario_strategy, label="scenario")
        failing = run_repeatedly(scenario, data.draw(st.integers(0, 2**31), label="pauses"))
        if failing is not None:
            if not smallest or _size(failing.scenario) < _size(smallest[0].scenario):
                smallest[:] = [failing]
            raise LockTestFailure(failing, seed, "")

    start = time.perf_counter()
    try:
        hypothesis_seed(seed)(run_one)()
    except (LockTestFailure, Flaky):
        outcome = shrink_scenario(lambda scenario: run_repeatedly(scenario, seed), smallest[0])
        replay = (f"pathlock.testing.check_thread_lock({_name(make_lock)}, scenarios=hypothesis.strategies.just("
                  f"pathlock.testing.Scenario.parse(\"{outcome.scenario}\")), seed={seed})")
        raise LockTestFailure(outcome, seed, replay) from None
    return Report(seed, counts["runs"], counts["fifo"], 0, time.perf_counter() - start)


def _size(scenario: Scenario):
    return (len(scenario.tasks), sum(len(t) for t in scenario.tasks), len(str(scenario)))
