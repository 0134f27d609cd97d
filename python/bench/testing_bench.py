"""pathlock.testing's speed on pathlock's own async lock: schedules replayed
per second by the controlled-loop runner, and Hypothesis examples per
second (scenario and schedule drawn, run and judged) beside it.

    python3 testing_bench.py [--scenarios N] [--examples N] [--repetitions N] [--seed S] [--md FILE] [--json FILE]

Replay: --scenarios scenarios drawn from the default strategy with --seed,
each run under a seeded random schedule (RandomChooser). Hypothesis:
check_async_lock with --examples examples and the same seed. A figure is
the median over --repetitions. Prints the summary and writes it as Markdown
(--md) and the raw figures as JSON (--json). Exit 0 whether or not the
target is met (the summary says which); 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import platform
import statistics
import sys
import time

from hypothesis import given, settings
from hypothesis import seed as hypothesis_seed

import pathlock

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import summary_output  # noqa: E402
from pathlock.testing import AsyncRunner, RandomChooser, check_async_lock, default_scenarios

TARGET_SCHEDULES_PER_S = 1000.0


def draw_scenarios(count, seed):
    """``count`` scenarios of the default strategy, the same for a seed."""
    drawn = []

    @settings(max_examples=count, database=None, deadline=None)
    @given(default_scenarios())
    def collect(scenario):
        drawn.append(scenario)

    hypothesis_seed(seed)(collect)()
    return drawn[:count]


def replays_per_second(scenarios, seed):
    runner = AsyncRunner(pathlock.PathLock)
    start = time.perf_counter()
    for i, scenario in enumerate(scenarios):
        outcome = runner.run(scenario, RandomChooser(seed + i))
        if outcome.failed:
            raise AssertionError(outcome.describe())
    return len(scenarios) / (time.perf_counter() - start)


def examples_per_second(examples, seed):
    report = check_async_lock(pathlock.PathLock, max_examples=examples, seed=seed)
    return report.runs / report.elapsed_s


def measure(scenario_count, examples, repetitions, seed):
    scenarios = draw_scenarios(scenario_count, seed)
    replay, hypothesis = [], []
    for r in range(repetitions):
        replay.append(replays_per_second(scenarios, seed + r * scenario_count))
        hypothesis.append(examples_per_second(examples, seed + r))
    return scenarios, replay, hypothesis


def summarize(scenarios, replay, hypothesis, examples, repetitions, seed):
    replay_median = statistics.median(replay)
    return {
        "schema": "pathlock.python-testing-bench/1",
        "benchmark": "pathlock.testing on pathlock's own async lock",
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "pathlock": pathlock.__version__,
        "scheme": pathlock.DEFAULT_SCHEME,
        "seed": seed,
        "scenarios": len(scenarios),
        "mean_tasks": sum(len(s.tasks) for s in scenarios) / len(scenarios),
        "mean_requests": sum(sum(len(t) for t in s.tasks) for s in scenarios) / len(scenarios),
        "examples": examples,
        "repetitions": repetitions,
        "replay_per_s": {"median": replay_median, "runs": replay},
        "hypothesis_per_s": {"median": statistics.median(hypothesis), "runs": hypothesis},
        "target_schedules_per_s": TARGET_SCHEDULES_PER_S,
        "target_met": replay_median >= TARGET_SCHEDULES_PER_S,
    }


def markdown(summary):
    def runs(values):
        return ", ".join(f"{v:.0f}" for v in values)

    verdict = "met" if summary["target_met"] else "NOT met"
    lines = [
        f"pathlock.testing on pathlock's own async lock (scheme {summary['scheme']}), Python {summary['python']}, "
        f"{summary['cpus']} CPUs, seed {summary['seed']}; {summary['scenarios']} scenarios of the default strategy "
        f"({summary['mean_tasks']:.1f} tasks, {summary['mean_requests']:.1f} requests on average); median of "
        f"{summary['repetitions']} repetitions:",
        "",
        "| what | per second | runs |",
        "|---|---:|---|",
        f"| schedules replayed (runner, `RandomChooser`) | {summary['replay_per_s']['median']:.0f} | "
        f"{runs(summary['replay_per_s']['runs'])} |",
        f"| Hypothesis examples (`check_async_lock`, {summary['examples']} examples: draw, run, judge) | "
        f"{summary['hypothesis_per_s']['median']:.0f} | {runs(summary['hypothesis_per_s']['runs'])} |",
        "",
        f"The runner replays **{summary['replay_per_s']['median']:.0f}** schedules per second "
        f"(target >= {summary['target_schedules_per_s']:.0f}: {verdict}).",
        "",
    ]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", type=int, default=500, help="scenarios replayed per repetition")
    parser.add_argument("--examples", type=int, default=500, help="Hypothesis examples per repetition")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    summary_output.add_arguments(parser, pathlib)
    args = parser.parse_args(argv)
    if not 1 <= args.scenarios <= 100_000:
        parser.error(f"--scenarios {args.scenarios} is not in [1, 100000]")
    if not 1 <= args.examples <= 100_000:
        parser.error(f"--examples {args.examples} is not in [1, 100000]")
    if not 1 <= args.repetitions <= 100:
        parser.error(f"--repetitions {args.repetitions} is not in [1, 100]")
    if not 0 <= args.seed < 2**32:
        parser.error(f"--seed {args.seed} is not in [0, 2^32)")
    scenarios, replay, hypothesis = measure(args.scenarios, args.examples, args.repetitions, args.seed)
    summary = summarize(scenarios, replay, hypothesis, args.examples, args.repetitions, args.seed)
    return summary_output.emit("testing_bench", markdown(summary), summary, args.md, args.json)


if __name__ == "__main__":
    sys.exit(main())
