"""Threads and asyncio tasks on one lock at once, with timeouts ending some
waits: grants cross between threads and the loop in both directions. Judged
by the conflict predicate on every grant; a hang fails by the suite's
faulthandler limit."""

import asyncio
import os
import random
import threading
import time

import pytest

import pathlock
from test_threads import conflict

PATHS = ["/", "/a", "/b", "/a/a", "/a/b", "/b/a", "/a/b/c"]


def random_request(rng):
    reads = rng.sample(PATHS, rng.randint(0, 1))
    writes = rng.sample(PATHS, rng.randint(0 if reads else 1, 2))
    return reads, writes


@pytest.mark.parametrize("scheme", ["path-rwa-joined", "path-rw", "global-rw"])
def test_threads_and_tasks_never_hold_conflicting_requests_together(scheme):
    seed = int(os.environ.get("PATHLOCK_TEST_SEED", random.randrange(2**32)))
    print(f"seed {seed} (replay: PATHLOCK_TEST_SEED={seed})")
    lock = pathlock.PathLock(scheme)
    holding, mu, failures, outcomes = {}, threading.Lock(), [], {"granted": 0, "timed out": 0}

    def enter(owner, request):
        with mu:
            failures.extend((request, other) for other in holding.values() if conflict(request, other))
            holding[owner] = request
            outcomes["granted"] += 1

    def leave(owner):
        with mu:
            del holding[owner]

    def thread_worker(index):
        rng = random.Random(seed * 7 + index)
        for _ in range(150):
            reads, writes = random_request(rng)
            try:
                with lock(read=reads, write=writes, timeout=rng.choice([None, 0.001])):
                    enter(("thread", index), (reads, writes))
                    time.sleep(0.0001)  # holds with the GIL released: tasks queue behind
                    leave(("thread", index))
            except TimeoutError:
                with mu:
                    outcomes["timed out"] += 1

    async def task_worker(index, rng):
        for _ in range(150):
            reads, writes = random_request(rng)
            try:
                async with lock(read=reads, write=writes, timeout=rng.choice([None, 0.001])):
                    enter(("task", index), (reads, writes))
                    await asyncio.sleep(rng.choice([0, 0.0001]))
                    leave(("task", index))
            except TimeoutError:
                with mu:
                    outcomes["timed out"] += 1

    async def tasks():
        rng = random.Random(seed)
        await asyncio.gather(*(task_worker(i, random.Random(rng.random())) for i in range(8)))

    threads = [threading.Thread(target=thread_worker, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    asyncio.run(tasks())
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads), lock.describe_waits()
    assert failures == [], f"seed {seed}"
    print(outcomes)
    assert outcomes["granted"] > 0
    assert lock.active_locks() == 0 and lock.waiting_acquisitions() == 0
    assert lock.check_invariants() == ""
