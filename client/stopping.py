"""Ending the terminal UI cleanly when the process is told to stop from outside."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from typing import Any

from textual.app import App

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""``kill``, a service manager stopping it, and the terminal (or SSH link) closing."""

STOP_WAIT_S = 10.0
"""How long a stop signal waits for the app to end cleanly before the process ends
without it. A terminal closed while events were being drawn left the app's shutdown
waiting for good on a screen writer that no longer wrote (Textual's), deaf to every
later signal (their handlers run on the blocked event loop): only ``kill -9`` ended it.
The wait runs on a thread of its own for that reason."""


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
        loop.add_signal_handler(stop, _stop, app, 128 + stop)


def _stop(app: App[Any], status: int) -> None:
    """End ``app`` with ``status``; and the process with it, on a thread of its own, if
    the app has not ended within :data:`STOP_WAIT_S` (what it started that outlives it,
    a ``--local`` server, stops when its standard input closes)."""
    app.exit(return_code=status)
    last_resort = threading.Timer(STOP_WAIT_S, os._exit, args=(status,))
    last_resort.daemon = True  # an app that ends in time ends the process, timer and all
    last_resort.start()
