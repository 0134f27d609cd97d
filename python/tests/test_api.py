"""The package's surface: paths, helpers, schemes, errors."""

import math
import pathlib

import pytest

import pathlock

REPO = pathlib.Path(__file__).resolve().parents[2]
P = pathlib.PurePosixPath


def test_str_and_pure_posix_paths_make_the_same_request(lock):
    assert lock(read=[P("/a")], write=[P("/b/c")]).request == lock(read=["/a"], write=["/b/c"]).request
    assert lock(write="/a/b").request == lock(write=[P("/a/b")]).request == "W{/a/b}"
    assert lock(write=P("/")).request == "W{/}"
    assert lock(read=("/x", "/y"), write=iter(["/z"])).request == "R{/x, /y} W{/z}"


def test_the_helpers_make_the_notes_requests(lock):
    assert lock.read("/a").request == "R{/a}"
    assert lock.write("/a").request == "W{/a}"
    assert lock.delete("/a").request == "W{/a}"
    assert lock.rename("/a", "/b").request == "W{/a, /b}"
    assert lock.copy("/a", "/b").request == "R{/a} W{/b}"
    with lock.copy(P("/photos/2024"), P("/backup/2024")) as held:
        assert held.held
        assert lock.active_locks() > 0
    assert lock.active_locks() == 0


@pytest.mark.parametrize("bad, problem", [
    ("a/b", "does not start with '/'"),
    ("/a/", "ends with '/'"),
    ("/a//b", "empty"),
    ("", "does not start with '/'"),
    ("/a\0b", "NUL"),
    ("/" + "x" * 1100, "1024"),
    (P("relative/path"), "does not start with '/'"),
], ids=["relative", "trailing-slash", "empty-component", "empty", "nul", "too-long", "relative-pure-path"])
def test_a_malformed_path_raises_value_error_naming_it(lock, bad, problem):
    with pytest.raises(ValueError) as info:
        lock(write=[bad])
    message = str(info.value)
    assert problem.lower() in message.lower().replace(",", "")
    assert str(bad)[:20] in message or repr(str(bad))[:20] in message
    assert lock.active_locks() == 0


def test_bad_arguments_raise_type_error(lock):
    with pytest.raises(TypeError, match="not bytes"):
        lock(write=b"/a")
    with pytest.raises(TypeError, match="not int"):
        lock(write=3)
    with pytest.raises(TypeError):
        lock(write=[3])
    with pytest.raises(TypeError, match="unexpected keyword argument 'wrte'"):
        lock(wrte=["/a"])
    with pytest.raises(TypeError, match="multiple values"):
        lock(["/a"], read=["/b"])
    with pytest.raises(TypeError, match="at most 2 positional"):
        lock(["/a"], ["/b"], 3)


def test_an_empty_request_is_rejected(lock):
    with pytest.raises(ValueError, match="no read paths and no write paths"):
        lock()
    with pytest.raises(ValueError, match="no read paths and no write paths"):
        lock(read=[], write=[])


@pytest.mark.parametrize("timeout", [-1, math.nan, math.inf, 1e10])
def test_a_timeout_out_of_range_is_rejected_naming_the_range(lock, timeout):
    with pytest.raises(ValueError, match=r"timeout=.* is not a number of seconds in \[0, 1e9\]"):
        lock(write=["/a"], timeout=timeout)


def test_a_timeout_of_zero_tries_once(lock):
    with lock(write=["/a"], timeout=0):
        with pytest.raises(TimeoutError):
            with lock(write=["/a"], timeout=0):
                pass


def test_s3_keys_map_to_their_folders():
    assert pathlock.path_of_key("a/b/c") == P("/a/b/c")
    assert pathlock.path_of_key("a/b/") == P("/a/b")
    for bad in ["", "a//b", "/a", "x" * 1025]:
        with pytest.raises(ValueError):
            pathlock.path_of_key(bad)


def test_every_builtin_scheme_and_the_default():
    assert pathlock.PathLock().scheme == pathlock.DEFAULT_SCHEME == "path-rwa-joined"
    for name in set(pathlock.SCHEMES) - {"path-rwa"}:
        assert pathlock.PathLock(name).scheme == name
        assert pathlock.PathLock(scheme=name).scheme == name
    with pytest.raises(ValueError, match='unknown scheme "nope" .*path-rwa-joined'):
        pathlock.PathLock("nope")


def test_a_defective_scheme_is_refused_naming_its_defects_unless_allowed():
    with pytest.raises(ValueError, match=r"path-rwa.*join.*allow_defective=True"):
        pathlock.PathLock("path-rwa")
    assert pathlock.PathLock("path-rwa", allow_defective=True).scheme == "path-rwa"


def test_a_scheme_file(tmp_path):
    lock = pathlock.PathLock(scheme_file=REPO / "sim/schemes/path-rwa-joined.json")
    with lock.copy("/a", "/a/b"):
        assert not lock.write("/a/c").acquire(blocking=False)
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "pathlock.scheme/1", "name": "x", "modes": 3}')
    with pytest.raises(ValueError, match="bad.json"):
        pathlock.PathLock(scheme_file=bad)
    with pytest.raises(FileNotFoundError):
        pathlock.PathLock(scheme_file=tmp_path / "missing.json")
    with pytest.raises(ValueError, match="not both"):
        pathlock.PathLock("path-rw", scheme_file=bad)


def test_an_acquisition_keeps_its_lock_alive():
    acquisition = pathlock.PathLock()(write=["/a"])
    with acquisition:  # the lock object has no other reference
        assert acquisition.held
    assert "W{/a}" in repr(acquisition)


def test_version_is_the_projects():
    assert pathlock.__version__.count(".") == 2
