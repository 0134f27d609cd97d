"""Requests and scenarios: what the tasks of one test run ask a lock for.

The text forms are those of the C++ harness (``pathlock.scenario/1`` files):
a request is ``"copy /a /a/b"``, a scenario ``"T0: write /a/c; T1: copy /a /a/b"``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
from typing import Iterable, Optional, Tuple

from .. import _native

PurePath = pathlib.PurePosixPath

#: The five operations on pseudo-folders and how many paths each takes.
ARITY = {"read": 1, "write": 1, "delete": 1, "rename": 2, "copy": 2}
OPERATIONS: Tuple[str, ...] = tuple(ARITY)


def _checked_path(path, where: str) -> PurePath:
    # The C++ model's parser is the one judge of a well-formed path (before
    # PurePosixPath folds "/a//b" into "/a/b"): ValueError naming the path
    # and the problem.
    try:
        return PurePath(_native.parse_path(os.fspath(path)))
    except (ValueError, TypeError) as e:
        raise ValueError(f"{where}: {e}") from None


@dataclasses.dataclass(frozen=True)
class Request:
    """One operation of a task: ``Request("copy", ("/a", "/a/b"))``.

    ``timeout``: virtual seconds the task waits for the grant before it gives
    up (``None``: forever). Under the controlled loop time is virtual, so when
    a timeout fires is a schedule choice like any other."""

    op: str
    paths: Tuple[PurePath, ...]
    timeout: Optional[float] = None

    def __post_init__(self) -> None:
        if self.op not in ARITY:
            raise ValueError(f"unknown operation {self.op!r}: expected one of {', '.join(OPERATIONS)}")
        paths = tuple(_checked_path(p, f"request {self.op}") for p in self.paths)
        if len(paths) != ARITY[self.op]:
            raise ValueError(f"{self.op} takes {ARITY[self.op]} path(s), got {len(paths)}")
        if self.timeout is not None and not (0 <= self.timeout <= 1e9):
            raise ValueError(f"timeout {self.timeout} is outside [0, 1e9] seconds")
        object.__setattr__(self, "paths", paths)

    @property
    def read(self) -> Tuple[PurePath, ...]:
        """The paths the request reads (the notes' ``read=``)."""
        return self.paths[:1] if self.op in ("read", "copy") else ()

    @property
    def write(self) -> Tuple[PurePath, ...]:
        """The paths the request writes (the notes' ``write=``)."""
        if self.op == "read":
            return ()
        if self.op == "copy":
            return self.paths[1:]
        return self.paths

    def conflicts_with(self, other: "Request") -> bool:
        """The model's verdict (C++ ``model::conflicts``)."""
        return _native.conflicts([p.as_posix() for p in self.read], [p.as_posix() for p in self.write],
                                 [p.as_posix() for p in other.read], [p.as_posix() for p in other.write])

    @classmethod
    def parse(cls, text: str) -> "Request":
        """``"copy /a /a/b"``, optionally followed by ``"timeout 1.5"``."""
        words = text.split()
        timeout = None
        if len(words) >= 2 and words[-2] == "timeout":
            try:
                timeout = float(words[-1])
            except ValueError:
                raise ValueError(f"request {text!r}: timeout {words[-1]!r} is not a number") from None
            words = words[:-2]
        if not words:
            raise ValueError(f"request {text!r} is empty: expected '<operation> <path> [<path>]'")
        op = "delete" if words[0] == "remove" else words[0]
        return cls(op, tuple(words[1:]), timeout)

    def __str__(self) -> str:
        text = " ".join([self.op, *(p.as_posix() for p in self.paths)])
        return text if self.timeout is None else f"{text} timeout {self.timeout!r}"


@dataclasses.dataclass(frozen=True)
class Scenario:
    """Tasks that run at once, each a sequence of requests it takes in turn
    (holding one at a time)."""

    tasks: Tuple[Tuple[Request, ...], ...]

    def __post_init__(self) -> None:
        tasks = tuple(tuple(task) for task in self.tasks)
        if not tasks:
            raise ValueError("a scenario needs at least one task")
        for i, task in enumerate(tasks):
            if not task:
                raise ValueError(f"task T{i} has no request")
        object.__setattr__(self, "tasks", tasks)

    @classmethod
    def of(cls, *tasks: Iterable[str]) -> "Scenario":
        """``Scenario.of(["write /a/c"], ["copy /a /a/b"])``."""
        return cls(tuple(tuple(Request.parse(r) for r in task) for task in tasks))

    @classmethod
    def parse(cls, text: str) -> "Scenario":
        """The printed form: ``"T0: write /a/c; T1: copy /a /a/b, read /a"``."""
        tasks = []
        for number, part in enumerate(p.strip() for p in text.split(";")):
            label, sep, body = part.partition(":")
            if not sep or label.strip() != f"T{number}":
                raise ValueError(f"scenario {text!r}: part {part!r} should start with 'T{number}:'")
            tasks.append(tuple(Request.parse(r) for r in body.split(",")))
        return cls(tuple(tasks))

    @classmethod
    def from_json(cls, text: str) -> "Scenario":
        """A ``pathlock.scenario/1`` file's text (the C++ harness's format)."""
        doc = json.loads(text)
        if not isinstance(doc, dict) or doc.get("schema") != "pathlock.scenario/1":
            raise ValueError("not a pathlock.scenario/1 document (its \"schema\" must be \"pathlock.scenario/1\")")
        tasks = doc.get("tasks")
        if not isinstance(tasks, list):
            raise ValueError("\"tasks\" must be a list of tasks, each a list of requests such as \"copy /a /a/b\"")
        for number, task in enumerate(tasks):
            if not isinstance(task, list) or not all(isinstance(r, str) for r in task):
                # Nesting, withdrawal, try-acquire and per-task orders are the
                # C++ harness's; a lock under test here takes one request at a time.
                raise ValueError(f"task T{number} is not a list of plain requests such as \"copy /a /a/b\": "
                                 "pathlock.testing runs neither nested holds, withdrawals, try-acquires nor "
                                 "per-task orders")
        return cls(tuple(tuple(Request.parse(r) for r in task) for task in tasks))

    def to_json(self, name: str = "") -> str:
        """The ``pathlock.scenario/1`` form, for ``pathlock explore``."""
        return json.dumps({"schema": "pathlock.scenario/1", "name": name or str(self),
                           "tasks": [[str(r) for r in task] for task in self.tasks]}, indent=2)

    def requests(self):
        """(task number, request number, request) for every request."""
        for t, task in enumerate(self.tasks):
            for r, request in enumerate(task):
                yield t, r, request

    def __str__(self) -> str:
        return "; ".join(f"T{t}: " + ", ".join(str(r) for r in task) for t, task in enumerate(self.tasks))
