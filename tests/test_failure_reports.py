"""A failure pytest cannot draw (CPython 3.11's spurious AST SystemError) stays a failure."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

TESTS = Path(__file__).parent

CONFTEST = f"""
import sys
sys.path.insert(0, {str(TESTS)!r})
from failure_reports import pytest_runtest_makereport  # noqa: F401


def broken_drawing(excinfo):
    raise SystemError("AST constructor recursion depth mismatch (before=129, after=184)")


def pytest_collection_modifyitems(items):
    for item in items:
        item.repr_failure = broken_drawing
"""

PYTEST_INI = """
[pytest]
filterwarnings = error
asyncio_default_fixture_loop_scope = function
"""

TESTS_FILE = """
def test_fails():
    assert 1 == 2, "the real reason"


def test_runs_after_it():
    assert True
"""


def test_a_failure_pytest_cannot_draw_is_reported_and_the_run_goes_on(tmp_path: Path) -> None:
    """The session does not stop with INTERNALERROR: the test fails with its own reason."""
    (tmp_path / "conftest.py").write_text(textwrap.dedent(CONFTEST))
    (tmp_path / "pytest.ini").write_text(PYTEST_INI)
    (tmp_path / "test_sample.py").write_text(textwrap.dedent(TESTS_FILE))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "INTERNALERROR" not in run.stdout
    assert "1 failed, 1 passed" in run.stdout
    assert "the real reason" in run.stdout
    assert "test_sample.py" in run.stdout
