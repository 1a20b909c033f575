"""Keep a failing test a failure when pytest cannot format it.

CPython 3.11 (before 3.11.8, gh-106905) can raise ``SystemError: AST constructor
recursion depth mismatch`` from ``ast.parse`` at random, mostly while other threads are
running. pytest parses the failing test's source to draw its traceback, so that
spurious error escapes from the report hook: pytest stops the whole session with
INTERNALERROR (exit code 3) and the real failure is never shown. This hook sits inside
every other ``pytest_runtest_makereport`` wrapper; when the report cannot be made, it
makes one itself from a plain traceback (no source parsing), so the run goes on and
says which test failed and why.
"""

from __future__ import annotations

import traceback
from collections.abc import Generator

import pytest


def plain_traceback(error: BaseException) -> str:
    """The traceback of ``error`` as text, without carets (drawing those parses source)."""
    frames = traceback.extract_tb(error.__traceback__)
    lines = [f'  File "{frame.filename}", line {frame.lineno}, in {frame.name}' for frame in frames]
    text = "\n".join(
        f"{where}\n    {frame.line}" if frame.line else where
        for where, frame in zip(lines, frames, strict=True)
    )
    return f"Traceback (most recent call last):\n{text}\n{type(error).__name__}: {error}"


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """The report pytest makes, or a plain one when making it raised SystemError."""
    try:
        return (yield)
    except SystemError as formatting_error:
        when = call.when
        if call.excinfo is None or when == "collect":
            raise
        longrepr = (
            f"{plain_traceback(call.excinfo.value)}\n\n"
            f"(pytest could not draw this failure: {formatting_error!r}; "
            "the traceback above is drawn without reading the source)"
        )
        return pytest.TestReport(
            item.nodeid,
            item.location,
            dict.fromkeys(item.keywords, 1),
            "failed",
            longrepr,
            when,
            [(f"Captured {key} {when}", text) for when, key, text in item._report_sections],
            call.duration,
            call.start,
            call.stop,
            user_properties=item.user_properties,
        )
