"""Property-based testing of path locks: point the harness at your own lock.

    from pathlock.testing import check_async_lock

    def test_my_lock():
        check_async_lock(MyLock)     # MyLock()(read=[...], write=[...]) -> async context manager

``check_async_lock`` draws scenarios (tasks taking read, write, delete,
rename and copy requests on small trees, some with timeouts) and schedules
(which ready task runs at each await, on a controlled event loop with
virtual time) from Hypothesis, runs your lock, and judges every run by the
model's conflict predicate (the C++ ``model::conflicts``): no two
conflicting requests hold at once, no deadlock, every task ends; FIFO and
over-blocking are measured. A failure is shrunk, scenario and schedule
together, and raised as ``LockTestFailure`` printing the minimal scenario,
the await points in order, the verdict, the seed and a replay line.
``check_thread_lock`` does the same for a lock used with ``with`` on real
threads (scenarios replay; thread schedules do not).

Modules: ``strategies`` (Hypothesis strategies for paths, S3 keys, requests,
scenarios), ``loop`` (the controlled event loop and its choosers),
``examples`` (the design notes' locks and broken ones).
"""

from ._outcome import LockTestFailure, Outcome
from ._scenario import OPERATIONS, Request, Scenario
from ._shadow import Event, EventKind, Policy, Verdict
from .async_runner import AsyncRunner
from .thread_runner import ThreadRunner
from .check import Report, check_async_lock, check_thread_lock, default_scenarios, replay_async
from .loop import (Chooser, ControlledLoop, FifoChooser, HypothesisChooser, RandomChooser, ReplayChooser,
                   StepOutcome)

__all__ = [
    "AsyncRunner", "Chooser", "ControlledLoop", "Event", "EventKind", "FifoChooser", "HypothesisChooser",
    "LockTestFailure", "OPERATIONS", "Outcome", "Policy", "RandomChooser", "Report", "ReplayChooser", "Request",
    "Scenario", "StepOutcome", "ThreadRunner", "Verdict", "check_async_lock", "check_thread_lock", "default_scenarios", "replay_async",
]
