"""Ending the terminal UI cleanly when the process is told to stop from outside."""

from __future__ import annotations

import asyncio
import functools
import signal
from typing import Any

from textual.app import App

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""``kill``, a service manager stopping it, and the terminal (or SSH link) closing."""


def exit_on_stop_signals(app: App[Any]) -> None:
    """Make the stop signals end ``app`` as its quit key does, with exit status 128 + the
    signal's number: the terminal is given back (alternate screen left, mouse reporting
    off, cursor shown) and whatever the app started is stopped. Python's default for
    SIGTERM ended the process at once and left the terminal on the frozen screen, typing
    unseen, until ``reset``. Headless apps (tests) keep the process's handlers."""
    if app.is_headless:
        return
    loop = asyncio.get_running_loop()
    for stop in STOP_SIGNALS:
        loop.add_signal_handler(stop, functools.partial(app.exit, return_code=128 + stop))
