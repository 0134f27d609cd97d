"""The README's Python example runs and prints what the README says it prints."""

import os
import pathlib
import re
import subprocess
import sys

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def block_after(marker, text):
    match = re.search(re.escape(marker) + r"\n```\w+\n(.*?)```", text, re.S)
    assert match, f"README.md has no fenced block after {marker}"
    return match.group(1)


def test_the_readme_example_prints_what_the_readme_shows():
    text = README.read_text()
    code = block_after("<!-- python example -->", text)
    expected = block_after("<!-- python example output -->", text)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert run.returncode == 0, run.stderr
    assert run.stdout == expected
