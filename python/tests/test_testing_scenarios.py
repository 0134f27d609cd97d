"""pathlock.testing's requests, scenarios and Hypothesis strategies."""

import json
import pathlib

import pytest
from hypothesis import find as hypothesis_find, given, settings
from hypothesis import strategies as st

import pathlock
from pathlock.testing import OPERATIONS, Request, Scenario
from pathlock.testing import strategies as pst


def find(strategy, condition):
    """hypothesis.find, derandomized: the same example on every run (a
    random search now and then stops shrinking one step short)."""
    return hypothesis_find(strategy, condition, settings=settings(derandomize=True, database=None))


REPO = pathlib.Path(__file__).resolve().parents[2]


def test_a_request_knows_what_it_reads_and_writes():
    copy = Request.parse("copy /a /a/b")
    assert [p.as_posix() for p in copy.read] == ["/a"]
    assert [p.as_posix() for p in copy.write] == ["/a/b"]
    rename = Request.parse("rename /a /b")
    assert copy.read == () or rename.read == ()
    assert [p.as_posix() for p in rename.write] == ["/a", "/b"]
    assert Request.parse("read /a").write == ()
    assert Request.parse("remove /a").op == "delete"


def test_the_conflict_predicate_is_the_models():
    assert Request.parse("write /a").conflicts_with(Request.parse("read /a/b"))
    assert not Request.parse("read /a").conflicts_with(Request.parse("read /a/b"))
    assert not Request.parse("write /a/b").conflicts_with(Request.parse("write /a/bc"))
    # The design notes' multi-path case: a copy into its own subtree reads /a.
    assert Request.parse("copy /a /a/b").conflicts_with(Request.parse("write /a/c"))


@pytest.mark.parametrize("text", ["T0: write /a/c; T1: copy /a /a/b, read /a timeout 1.5", "T0: read /"])
def test_a_scenario_prints_as_it_parses(text):
    assert str(Scenario.parse(text)) == text


@pytest.mark.parametrize("text, problem", [
    ("T0: write a/b", "a/b"),
    ("T0: write /a//b", "/a//b"),
    ("T0: frobnicate /a", "unknown operation 'frobnicate'"),
    ("T0: copy /a", "copy takes 2 path(s), got 1"),
    ("T1: read /a", "should start with 'T0:'"),
    ("T0: read /a timeout x", "timeout 'x' is not a number"),
    ("T0: read /a timeout -1", "timeout -1.0 is outside"),
])
def test_a_malformed_scenario_is_refused_naming_the_problem(text, problem):
    with pytest.raises(ValueError, match=None) as error:
        Scenario.parse(text)
    assert problem in str(error.value)


def test_the_harness_scenario_files_of_plain_requests_load_and_the_others_are_refused():
    loaded = refused = 0
    for path in sorted((REPO / "sim" / "scenarios").glob("*.json")):
        tasks = json.loads(path.read_text())["tasks"]
        if all(isinstance(task, list) and all(isinstance(r, str) for r in task) for task in tasks):
            assert json.loads(Scenario.from_json(path.read_text()).to_json())["tasks"] == tasks
            loaded += 1
        else:
            with pytest.raises(ValueError, match="not a list of plain requests"):
                Scenario.from_json(path.read_text())
            refused += 1
    assert loaded >= 5 and refused >= 3


def test_a_document_of_another_schema_is_refused():
    with pytest.raises(ValueError, match="pathlock.scenario/1"):
        Scenario.from_json('{"schema": "pathlock.scheme/1"}')


@settings(max_examples=200, database=None)
@given(pst.paths(max_depth=3))
def test_paths_are_absolute_and_shallow(path):
    assert path.is_absolute() and len(path.parts) - 1 <= 3
    assert pathlock._native.parse_path(path.as_posix()) == path.as_posix()


def test_paths_include_sibling_prefixes_and_the_root():
    assert find(pst.paths(), lambda p: p.as_posix() == "/").as_posix() == "/"
    assert find(pst.paths(), lambda p: p.name == "ab" and (p.parent / "a")).name == "ab"


@settings(max_examples=200, database=None)
@given(pst.trees())
def test_trees_hold_every_ancestor_once(tree):
    assert tree[0].as_posix() == "/"
    assert len(set(tree)) == len(tree)
    assert all(p.parent in tree for p in tree)


@settings(max_examples=200, database=None)
@given(pst.keys())
def test_keys_map_to_the_paths_they_name(key):
    assert pathlock.path_of_key(key).as_posix() == "/" + key.rstrip("/")


@pytest.mark.parametrize("op", OPERATIONS)
def test_requests_of_every_operation_are_drawn(op):
    assert find(pst.requests(), lambda r: r.op == op).op == op


@settings(max_examples=100, database=None)
@given(pst.pooled_scenarios(max_tasks=4, max_requests=3, timeouts=True))
def test_scenarios_stay_within_their_bounds(scenario):
    assert 1 <= len(scenario.tasks) <= 4
    assert all(1 <= len(task) <= 3 for task in scenario.tasks)
    assert Scenario.parse(str(scenario)) == scenario


def test_pooled_scenarios_draw_mirrored_two_path_requests():
    found = find(pst.pooled_scenarios(operations=("rename",)),
                 lambda s: len(s.tasks) == 2 and s.tasks[0][0].paths == s.tasks[1][0].paths[::-1]
                 and s.tasks[0][0].paths[0] != s.tasks[0][0].paths[1])
    assert str(found) in ("T0: rename / /a; T1: rename /a /", "T0: rename /a /; T1: rename / /a")


@pytest.mark.parametrize("call, problem", [
    (lambda: pst.paths(()), "at least one name"),
    (lambda: pst.paths(("a/b",)), "not a single path component"),
    (lambda: pst.paths(max_depth=0), "max_depth 0 is outside 1..64"),
    (lambda: pst.requests(operations=("move",)), "unknown operation 'move'"),
    (lambda: pst.scenarios(max_tasks=0), "need 1 <= min_tasks <= max_tasks <= 64"),
    (lambda: pst.pooled_scenarios(pool_size=0), "pool_size 0 is outside 1..64"),
])
def test_bad_strategy_arguments_are_refused_naming_the_limit(call, problem):
    with pytest.raises(ValueError) as error:
        call()
    assert problem in str(error.value)


def test_a_strategy_replays_from_its_seed():
    def draws(seed):
        seen = []

        @settings(max_examples=20, database=None)
        @given(pst.pooled_scenarios())
        def collect(scenario):
            seen.append(str(scenario))

        from hypothesis import seed as hypothesis_seed
        hypothesis_seed(seed)(collect)()
        return seen

    assert draws(5) == draws(5)
    assert draws(5) != draws(6)
