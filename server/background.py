"""Work run beside a read loop or an accept loop, tracked so that it can be cancelled.

A coroutine handed over here is owned by its task: if the task is cancelled before it
ever ran (its connection closed in the same turn of the loop), the coroutine is closed,
not left for the garbage collector to report as "never awaited" (the server's ping of a
link that had just closed was reported so, from a run under load).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any


def start(
    work: Awaitable[Any],
    tasks: set[asyncio.Task[None]],
    *,
    expected: tuple[type[BaseException], ...],
    failed: Callable[[], None],
    log: logging.Logger,
    what: str,
) -> None:
    """Run ``work`` in a task kept in ``tasks`` until it ends.

    Exceptions in ``expected`` end it quietly; any other is logged as ``what`` failing,
    with its traceback, and ``failed`` is called (to count it): never lost, never raised
    into the loop's handler.
    """

    async def run() -> None:
        try:
            await work
        except expected:
            pass
        except Exception:
            failed()
            log.exception("%s failed", what)

    task = asyncio.create_task(run())
    tasks.add(task)
    task.add_done_callback(tasks.discard)
    if inspect.iscoroutine(work):
        # A no-op once it ran; closes it quietly if the task was cancelled first.
        task.add_done_callback(lambda _: work.close())
