"""The lock from threads: every pair category blocking and non-blocking
under every scheme, FIFO among conflicting requests, timeouts that hold
nothing and unblock those queued behind, and a stress run judged by the
conflict predicate."""

import os
import random
import threading

import pytest

import pathlock
from support import PAIR_CASES, PROMPT_S, SCHEME_ALLOWS, Waiter, case_id, eventually, expected_allowed, request


def test_every_builtin_scheme_has_an_expectation():
    assert set(pathlock.SCHEMES) == set(SCHEME_ALLOWS)


@pytest.mark.parametrize("case", PAIR_CASES, ids=case_id)
def test_try_acquire_follows_the_category(any_lock, case):
    category, holder_access, holder_path, asker_access, asker_path = case
    with request(any_lock, holder_access, holder_path):
        asker = request(any_lock, asker_access, asker_path)
        granted = asker.acquire(blocking=False)
        assert granted == expected_allowed(any_lock, category)
        assert asker.held == granted
        asker.release()
    assert any_lock.active_locks() == 0


@pytest.mark.parametrize("case", PAIR_CASES, ids=case_id)
def test_a_blocked_acquire_waits_for_the_release(any_lock, case):
    category, holder_access, holder_path, asker_access, asker_path = case
    holder = request(any_lock, holder_access, holder_path)
    holder.acquire()
    waiter = Waiter(request(any_lock, asker_access, asker_path))
    waiter.start()
    if expected_allowed(any_lock, category):
        assert eventually(lambda: waiter.outcome == "granted"), "an allowed pair waited"
    else:
        assert eventually(lambda: any_lock.waiting_acquisitions() == 1), "the acquire never queued"
        assert waiter.outcome is None
        holder.release()
        assert eventually(lambda: waiter.outcome == "granted"), "the release did not wake the waiter"
    waiter.release.set()
    waiter.join(PROMPT_S)
    holder.release()
    assert any_lock.active_locks() == 0


def test_conflicting_requests_are_granted_in_arrival_order(lock):
    # A reader holds /a; a writer of /a queues; a reader of /a/b arrives: it is
    # compatible with the holder but not with the queued writer, so it waits
    # behind it (FIFO among conflicting requests) instead of overtaking.
    events = []
    holder = lock.read("/a")
    holder.acquire()
    writer = Waiter(lock.write("/a"), events, "writer")
    writer.start()
    assert eventually(lambda: lock.waiting_acquisitions() == 1)
    reader = Waiter(lock.read("/a/b"), events, "reader")
    reader.start()
    assert eventually(lambda: lock.waiting_acquisitions() == 2)
    holder.release()
    assert eventually(lambda: events == ["writer"])
    assert reader.outcome is None
    writer.release.set()
    assert eventually(lambda: events == ["writer", "reader"])
    reader.release.set()
    writer.join(PROMPT_S)
    reader.join(PROMPT_S)


def test_a_timed_out_wait_holds_nothing_and_unblocks_those_behind_it(lock):
    # The holder reads /a/b; a writer of /a waits with a timeout; a reader of
    # /a/c queues behind the writer. When the writer times out, the reader is
    # granted although the holder still holds.
    holder = lock.read("/a/b")
    holder.acquire()
    writer = Waiter(lock.write("/a", timeout=0.2), name="writer")
    writer.start()
    assert eventually(lambda: lock.waiting_acquisitions() == 1)
    reader = Waiter(lock.read("/a/c"), name="reader")
    reader.start()
    assert eventually(lambda: lock.waiting_acquisitions() == 2)
    assert eventually(lambda: writer.outcome == "TimeoutError")
    assert eventually(lambda: reader.outcome == "granted"), "the timed-out writer still blocks the reader"
    assert not writer.acquisition.held
    reader.release.set()
    reader.join(PROMPT_S)
    writer.join(PROMPT_S)
    holder.release()
    assert lock.active_locks() == 0


def test_acquire_with_a_timeout_returns_false_and_holds_nothing(lock):
    with lock.write("/a"):
        attempt = lock.read("/a/b")
        assert attempt.acquire(timeout=0.01) is False
        assert not attempt.held
        with pytest.raises(TimeoutError, match=r"R\{/a/b\}.*timed out after 0.01 s"):
            with lock.read("/a/b", timeout=0.01):
                pass
    assert lock.active_locks() == 0


def test_an_acquisition_holds_once_at_a_time(lock):
    acquisition = lock.write("/a")
    with acquisition:
        with pytest.raises(ValueError, match="already holds"):
            acquisition.acquire()
    with acquisition:  # entered again after the release
        assert acquisition.held


def related(a, b):
    a, b = a.rstrip("/") + "/", b.rstrip("/") + "/"
    return a.startswith(b) or b.startswith(a)


def conflict(x, y):
    """The conflict predicate: some path written by one is related to a path of the other."""
    (x_reads, x_writes), (y_reads, y_writes) = x, y
    return any(related(w, p) for w in x_writes for p in y_reads + y_writes) or any(
        related(w, p) for w in y_writes for p in x_reads + x_writes)


def test_stress_no_conflicting_requests_ever_hold_together(any_lock):
    seed = int(os.environ.get("PATHLOCK_TEST_SEED", random.randrange(2**32)))
    print(f"seed {seed} (replay: PATHLOCK_TEST_SEED={seed})")
    paths = ["/", "/a", "/b", "/a/a", "/a/b", "/b/a", "/a/b/c"]
    holding = {}
    mu = threading.Lock()
    failures = []

    def worker(index):
        rng = random.Random(seed * 31 + index)
        for _ in range(300):
            reads = rng.sample(paths, rng.randint(0, 1))
            writes = rng.sample(paths, rng.randint(0 if reads else 1, 2))
            me = (reads, writes)
            with any_lock(read=reads, write=writes):
                with mu:
                    for other in holding.values():
                        if conflict(me, other):
                            failures.append((me, other))
                    holding[index] = me
                with mu:
                    del holding[index]

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(PROMPT_S * 3)
    assert not any(t.is_alive() for t in threads), any_lock.describe_waits()
    if any_lock.scheme != "path-rwa":  # the notes' scheme 4 as written is unsafe on such requests
        assert failures == [], f"seed {seed}"
    assert any_lock.active_locks() == 0
