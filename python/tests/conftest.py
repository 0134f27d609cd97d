"""Shared fixtures. A hang fails the run within its limit instead of stalling CI:
faulthandler dumps every thread's stack and exits the process when one test
runs longer than HANG_LIMIT_S."""

import faulthandler
import sys

import pytest
from hypothesis import settings

# No example database in the source tree: every search replays from its seed.
settings.register_profile("pathlock", database=None)
settings.load_profile("pathlock")

import pathlock

HANG_LIMIT_S = 60


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    # Setup, call and teardown of one test, fixtures included.
    faulthandler.dump_traceback_later(HANG_LIMIT_S, exit=True, file=sys.stderr)
    yield
    faulthandler.cancel_dump_traceback_later()


def pytest_unconfigure(config):
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(params=pathlock.SCHEMES)
def any_lock(request):
    """A lock of each built-in scheme (the defective one too, as the C++
    conformance suite runs it); its invariants hold afterwards."""
    lock = pathlock.PathLock(request.param, allow_defective=True)
    yield lock
    assert lock.check_invariants() == ""
    assert lock.waiting_acquisitions() == 0


@pytest.fixture
def lock():
    lock = pathlock.PathLock()
    yield lock
    assert lock.check_invariants() == ""
    assert lock.waiting_acquisitions() == 0
