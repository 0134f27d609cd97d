"""CTest python_bench_smoke: runs the asyncio benchmark briefly and checks
that it writes a complete summary (not that it meets its target), and that
the committed summary (reports/bench/python.md, which the README quotes) is
the rendering of the committed figures (reports/bench/python.json).

    python3 smoke.py OUT_DIR
"""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import async_bench  # noqa: E402

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


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    md, js = out / "python.md", out / "python.json"
    assert async_bench.main(["--min-time", "0.02", "--repetitions", "2", "--md", str(md), "--json", str(js)]) == 0
    check_summary(json.loads(js.read_text()), md.read_text())
    committed = REPO / "reports/bench"
    check_summary(json.loads((committed / "python.json").read_text()), (committed / "python.md").read_text())
    for bad in (["--min-time", "0"], ["--repetitions", "0"]):
        try:
            async_bench.main(bad)
        except SystemExit as e:
            assert e.code == 2, (bad, e.code)
        else:
            raise AssertionError(f"{bad} was accepted")
    print("python_bench_smoke: summary written and consistent; committed summary matches its figures")


if __name__ == "__main__":
    main()
