"""CTest python_bench_smoke: runs the Python benchmarks (the asyncio lock's,
pathlock.testing's) briefly and checks that each writes a complete summary
(not that it meets its target), and that each committed summary
(reports/bench/python.md and python_testing.md, which the README quotes) is
the rendering of its committed figures (the .json beside it).

    python3 smoke.py OUT_DIR
"""

import json
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import async_bench  # noqa: E402
import testing_bench  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]


def check_summary(summary, text):
    results = summary["results"]
    assert set(results) == {"pathlock", "seed", "pathlock-threads"}, results.keys()
    for name, result in results.items():
        assert result["median_ns"] > 0 and len(result["runs_ns"]) == summary["repetitions"], name
    ratio = results["seed"]["median_ns"] / results["pathlock"]["median_ns"]
    assert abs(summary["ratio"] - ratio) < 1e-9 * ratio, (summary["ratio"], ratio)
    assert summary["target_met"] == (ratio >= summary["target_ratio"])
    assert f"**{ratio:.1f}x**" in text, text
    assert text == async_bench.markdown(summary), "the Markdown is not the rendering of the figures"


def check_testing_summary(summary, text):
    for key in ("replay_per_s", "hypothesis_per_s"):
        figures = summary[key]
        assert len(figures["runs"]) == summary["repetitions"] and min(figures["runs"]) > 0, key
        assert figures["median"] == statistics.median(figures["runs"]), key
    assert summary["target_met"] == (summary["replay_per_s"]["median"] >= summary["target_schedules_per_s"])
    assert f"**{summary['replay_per_s']['median']:.0f}**" in text, text
    assert text == testing_bench.markdown(summary), "the Markdown is not the rendering of the figures"


def refuses(main, bad):
    try:
        main(bad)
    except SystemExit as e:
        assert e.code == 2, (bad, e.code)
    else:
        raise AssertionError(f"{bad} was accepted")


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    md, js = out / "python.md", out / "python.json"
    assert async_bench.main(["--min-time", "0.02", "--repetitions", "2", "--md", str(md), "--json", str(js)]) == 0
    check_summary(json.loads(js.read_text()), md.read_text())
    committed = REPO / "reports/bench"
    check_summary(json.loads((committed / "python.json").read_text()), (committed / "python.md").read_text())
    for bad in (["--min-time", "0"], ["--repetitions", "0"]):
        refuses(async_bench.main, bad)

    md, js = out / "python_testing.md", out / "python_testing.json"
    assert testing_bench.main(["--scenarios", "20", "--examples", "10", "--repetitions", "1",
                               "--md", str(md), "--json", str(js)]) == 0
    check_testing_summary(json.loads(js.read_text()), md.read_text())
    check_testing_summary(json.loads((committed / "python_testing.json").read_text()),
                          (committed / "python_testing.md").read_text())
    for bad in (["--scenarios", "0"], ["--examples", "0"], ["--repetitions", "0"], ["--seed", "-1"]):
        refuses(testing_bench.main, bad)
    print("python_bench_smoke: summaries written and consistent; committed summaries match their figures")


if __name__ == "__main__":
    main()
