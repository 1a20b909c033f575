"""Ending the terminal UI cleanly when the process is told to stop from outside."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
from collections.abc import Awaitable, Callable
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

HANGUP_WAIT_S = 3.0
"""The wait after SIGHUP: the terminal is gone, so nothing is left to draw, and the
screen writer is the likely one stuck (a terminal closed as the server stopped left the
client waiting the whole :data:`STOP_WAIT_S`); closing the connections is all there is
to wait for."""


def exit_on_stop_signals(
    app: App[Any], *, before: Callable[[], Awaitable[None]] | None = None
) -> None:
    """Make the stop signals end ``app`` as its quit key does, with exit status 128 + the
    signal's number: ``before`` first (the client closes its connections there, with
    1000 as on ^Q: ended by the app's exit instead, they closed with 1011, which the
    server logs as a fault), then the terminal is given back (alternate screen left,
    mouse reporting off, cursor shown) and whatever the app started is stopped. Python's
    default for SIGTERM ended the process at once and left the terminal on the frozen
    screen, typing unseen, until ``reset``. Headless apps (tests) keep the process's
    handlers."""
    if app.is_headless:
        return
    loop = asyncio.get_running_loop()
    for stop in STOP_SIGNALS:
        loop.add_signal_handler(stop, _stop, app, 128 + stop, before)


_stopping: set[asyncio.Task[None]] = set()


def _stop(app: App[Any], status: int, before: Callable[[], Awaitable[None]] | None) -> None:
    """End ``app`` with ``status`` (after ``before``, given half the wait); and the process
    with it, on a thread of its own, if the app has not ended within :data:`STOP_WAIT_S`
    (:data:`HANGUP_WAIT_S` after SIGHUP). What it started that outlives it, a ``--local``
    server, stops when its standard input closes."""
    wait = HANGUP_WAIT_S if status == 128 + signal.SIGHUP else STOP_WAIT_S
    last_resort = threading.Timer(wait, os._exit, args=(status,))
    last_resort.daemon = True  # an app that ends in time ends the process, timer and all
    last_resort.start()

    async def stop() -> None:
        if before is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(before(), wait / 2)
        app.exit(return_code=status)

    task = asyncio.get_running_loop().create_task(stop())
    _stopping.add(task)
    task.add_done_callback(_stopping.discard)
