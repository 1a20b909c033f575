"""Work run beside a connection: cancelled early, it leaves nothing behind."""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest

from server import background

log = logging.getLogger("test.background")


async def test_work_cancelled_before_it_ran_is_not_reported_never_awaited() -> None:
    """A ping spawned as its link closes, cancelled in the same turn, warns nothing."""
    tasks: set[asyncio.Task[None]] = set()
    background.start(
        asyncio.sleep(1), tasks, expected=(), failed=lambda: None, log=log, what="a ping"
    )
    for task in list(tasks):
        task.cancel()
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert not tasks
    gc.collect()  # pytest turns an unawaited coroutine's warning into a failure


async def test_a_failure_is_counted_and_logged_and_an_expected_one_is_not(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The unexpected error is counted once and logged with its name; the expected is quiet."""
    failures: list[None] = []
    tasks: set[asyncio.Task[None]] = set()

    async def broken() -> None:
        raise KeyError("lost")

    async def closed() -> None:
        raise ConnectionError("gone")

    for work in (broken(), closed()):
        background.start(
            work,
            tasks,
            expected=(ConnectionError,),
            failed=lambda: failures.append(None),
            log=log,
            what="a handoff",
        )
    await asyncio.gather(*tasks)
    assert failures == [None]
    assert [r.getMessage() for r in caplog.records] == ["a handoff failed"]
    assert not tasks
