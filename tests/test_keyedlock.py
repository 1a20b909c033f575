"""The keyed lock: one key's holders in turn, different keys at once, no lock kept idle."""

from __future__ import annotations

import asyncio

import pytest

from server.keyedlock import KeyedLock


async def test_holders_of_one_key_take_turns() -> None:
    """A second holder of the same key waits until the first lets go."""
    locks = KeyedLock()
    order: list[str] = []
    release = asyncio.Event()

    async def first() -> None:
        async with locks.hold("room"):
            order.append("first in")
            await release.wait()
            order.append("first out")

    async def second() -> None:
        async with locks.hold("room"):
            order.append("second in")

    tasks = [asyncio.create_task(first()), asyncio.create_task(second())]
    await asyncio.sleep(0.01)
    assert order == ["first in"]
    release.set()
    await asyncio.gather(*tasks)
    assert order == ["first in", "first out", "second in"]


async def test_another_key_is_not_held_up() -> None:
    """While one key is held, another key's holder goes in and out."""
    locks = KeyedLock()
    async with locks.hold("a"):
        async with asyncio.timeout(1):
            async with locks.hold("b"):
                assert len(locks) == 2


async def test_no_lock_is_kept_once_nobody_holds_or_waits() -> None:
    """Keys come and go with their holders, a waiter cancelled or a holder that raised too."""
    locks = KeyedLock()
    async with locks.hold("a"):
        waiter = asyncio.create_task(locks.hold("a").__aenter__())
        await asyncio.sleep(0.01)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        assert len(locks) == 1
    with pytest.raises(RuntimeError):
        async with locks.hold("b"):
            raise RuntimeError("boom")
    assert len(locks) == 0
