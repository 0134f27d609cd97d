"""The README's "Test your own lock" example: pytest fails the user's lock
and passes pathlock's, and the failure reads as the README shows it."""

import os
import pathlib
import subprocess
import sys

from test_readme_example import README, block_after


def test_the_readme_testing_example_finds_the_bug_and_prints_what_the_readme_shows(tmp_path):
    text = README.read_text()
    code = block_after("<!-- testing example -->", text)
    expected = block_after("<!-- testing example output -->", text)
    (tmp_path / "test_folder_lock.py").write_text(code)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "PYTHONDONTWRITEBYTECODE": "1"}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_folder_lock.py"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 failed, 1 passed" in run.stdout
    assert "FAILED test_folder_lock.py::test_folder_lock" in run.stdout
    message = subprocess.run(
        [sys.executable, "-c", "import test_folder_lock as t\ntry:\n    t.test_folder_lock()\n"
         "except AssertionError as e:\n    print(e)"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert message.returncode == 0, message.stderr
    assert message.stdout == expected
