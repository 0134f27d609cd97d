"""The cases the suites share: the model's six pair categories, the paths
that make each, and what each built-in scheme allows."""

import threading
import time
from dataclasses import dataclass

#: How long a test waits for something that should happen at once.
PROMPT_S = 10.0


@dataclass(frozen=True)
class Category:
    number: int  # 1..6, as in the design notes
    first: str  # "R" or "W": the stronger access first
    second: str
    related: bool

    def __str__(self):
        return f"{self.number}-{self.first}{self.second}-{'related' if self.related else 'unrelated'}"


CATEGORIES = [
    Category(1, "W", "R", True),  # must block
    Category(2, "W", "W", True),  # must block
    Category(3, "W", "W", False),
    Category(4, "W", "R", False),
    Category(5, "R", "R", True),
    Category(6, "R", "R", False),
]
MUST_BLOCK = {1, 2}

# Path pairs of each relation: equal, ancestor, descendant; siblings,
# cousins, and a name that is a prefix but not an ancestor.
RELATED_PAIRS = [("/a/b", "/a/b"), ("/a", "/a/b/c"), ("/a/b/c", "/a")]
UNRELATED_PAIRS = [("/a/b", "/a/c"), ("/a/x", "/b/y"), ("/a/b", "/a/bc")]

# Categories 3-6 that each scheme never blocks (its score out of 4, as the
# scheme documentation gives it); 1 and 2 are blocked by every scheme.
SCHEME_ALLOWS = {
    "global-mutex": set(),
    "global-rw": {5, 6},
    "path-rw": {3, 4, 6},
    "path-rwa": {3, 4, 5, 6},
    "path-rwa-joined": {3, 4, 5, 6},
}


def expected_allowed(lock, category):
    return category.number not in MUST_BLOCK and category.number in SCHEME_ALLOWS[lock.scheme]


def pair_cases():
    """(category, holder access, holder path, asker access, asker path), both ways round."""
    for category in CATEGORIES:
        for a, b in RELATED_PAIRS if category.related else UNRELATED_PAIRS:
            yield category, category.first, a, category.second, b
            yield category, category.second, b, category.first, a


def case_id(case):
    category, holder_access, holder_path, asker_access, asker_path = case
    return f"{category}:{holder_access}{holder_path}-then-{asker_access}{asker_path}"


PAIR_CASES = list(pair_cases())


def request(lock, access, path, **kwargs):
    return lock(read=[path], **kwargs) if access == "R" else lock(write=[path], **kwargs)


def eventually(predicate, limit_s=PROMPT_S):
    deadline = time.monotonic() + limit_s
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.0005)
    return True


class Waiter(threading.Thread):
    """A thread that enters `acquisition` and records what happened."""

    def __init__(self, acquisition, events=None, name=None):
        super().__init__(daemon=True)
        self.acquisition = acquisition
        self.events = events if events is not None else []
        self.label = name or acquisition.request
        self.outcome = None  # "granted" or the exception's type name
        self.release = threading.Event()

    def run(self):
        try:
            with self.acquisition:
                self.events.append(self.label)
                self.outcome = "granted"
                self.release.wait(PROMPT_S)
        except Exception as e:  # noqa: BLE001 - recorded for the test to judge
            self.outcome = type(e).__name__
