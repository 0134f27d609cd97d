"""Uncontended `async with lock(write=[p])` at depth 4: pathlock against the
design notes' own Python design (pathlock.testing.examples.design_notes) in
the same run.

    python3 async_bench.py [--min-time S] [--repetitions N] [--md FILE] [--json FILE]

Each repetition times every contender for at least --min-time seconds,
contenders interleaved so that drift hits them alike; a contender's figure
is the median over the repetitions. Prints the summary and writes it as
Markdown (--md) and the raw figures as JSON (--json). Exit 0 whether or not
the target is met (the summary says which); 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pathlib
import platform
import statistics
import sys
import time

import pathlock
from pathlock.testing.examples.design_notes import ReadWritePathLock

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import summary_output  # noqa: E402

PATH = pathlib.PurePosixPath("/a/b/c/d")  # depth 4
TARGET_RATIO = 20.0
BATCH = 1000  # operations per clock read


async def time_async_with(enter, min_time):
    """Seconds per operation of `async with enter():`, over at least min_time."""
    done, elapsed = 0, 0.0
    while elapsed < min_time:
        start = time.perf_counter()
        for _ in range(BATCH):
            async with enter():
                pass
        elapsed += time.perf_counter() - start
        done += BATCH
    return elapsed / done


def time_with(enter, min_time):
    done, elapsed = 0, 0.0
    while elapsed < min_time:
        start = time.perf_counter()
        for _ in range(BATCH):
            with enter():
                pass
        elapsed += time.perf_counter() - start
        done += BATCH
    return elapsed / done


def contenders():
    lock = pathlock.PathLock()
    seed = ReadWritePathLock()
    return {
        "pathlock": ("`async with lock(write=[p])`", "async", lambda: lock(write=[PATH])),
        "seed": ("the notes' design: `async with lock(read=[], write=[p])`", "async",
                 lambda: seed(read=[], write=[PATH])),
        "pathlock-threads": ("`with lock(write=[p])` (threads)", "sync", lambda: lock(write=[PATH])),
    }


async def measure(min_time, repetitions):
    runs = {name: [] for name in contenders()}
    table = contenders()
    for _ in range(repetitions):
        for name, (_, kind, enter) in table.items():
            seconds = await time_async_with(enter, min_time) if kind == "async" else time_with(enter, min_time)
            runs[name].append(seconds * 1e9)
    return runs


def summarize(runs, min_time, repetitions):
    median = {name: statistics.median(values) for name, values in runs.items()}
    ratio = median["seed"] / median["pathlock"]
    return {
        "schema": "pathlock.python-bench/1",
        "benchmark": "uncontended async with, one write path of depth 4",
        "path": str(PATH),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "pathlock": pathlock.__version__,
        "scheme": pathlock.DEFAULT_SCHEME,
        "min_time_s": min_time,
        "repetitions": repetitions,
        "results": {name: {"median_ns": median[name], "runs_ns": runs[name]} for name in runs},
        "ratio": ratio,
        "target_ratio": TARGET_RATIO,
        "target_met": ratio >= TARGET_RATIO,
    }


def markdown(summary):
    labels = {name: label for name, (label, _, _) in contenders().items()}
    lines = [
        f"Uncontended acquire and release of one write path of depth 4 (`{summary['path']}`), "
        f"Python {summary['python']}, {summary['cpus']} CPUs, scheme {summary['scheme']}; "
        f"median of {summary['repetitions']} "
        f"repetitions of at least {summary['min_time_s']:g} s each:",
        "",
        "| contender | per acquire + release | runs (ns) |",
        "|---|---:|---|",
    ]
    for name, result in summary["results"].items():
        runs = ", ".join(f"{v:.0f}" for v in result["runs_ns"])
        lines.append(f"| {labels[name]} | {result['median_ns'] / 1000:.2f} us | {runs} |")
    verdict = "met" if summary["target_met"] else "NOT met"
    lines += [
        "",
        f"`async with lock(write=[p])` is **{summary['ratio']:.1f}x** faster than the notes' design "
        f"(target >= {summary['target_ratio']:g}x: {verdict}).",
        "",
    ]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--min-time", type=float, default=0.5, help="seconds per contender per repetition")
    parser.add_argument("--repetitions", type=int, default=5)
    summary_output.add_arguments(parser, pathlib)
    args = parser.parse_args(argv)
    if not 0 < args.min_time <= 60:
        parser.error(f"--min-time {args.min_time:g} is not in (0, 60] seconds")
    if not 1 <= args.repetitions <= 100:
        parser.error(f"--repetitions {args.repetitions} is not in [1, 100]")
    runs = asyncio.run(measure(args.min_time, args.repetitions))
    summary = summarize(runs, args.min_time, args.repetitions)
    return summary_output.emit("async_bench", markdown(summary), summary, args.md, args.json)


if __name__ == "__main__":
    sys.exit(main())
