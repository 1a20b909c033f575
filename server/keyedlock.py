"""One asyncio lock per key: work on one key runs in turn, work on different keys at once.

A single lock over every key queues all of them behind each other's awaits; under load
each await waits a turn of a busy event loop, so the queue grows with the number of keys
in use. A lock exists only while someone holds it or waits for it, so the table stays as
small as the work in progress.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


@dataclasses.dataclass
class _Entry:
    lock: asyncio.Lock = dataclasses.field(default_factory=asyncio.Lock)
    users: int = 0
    """Tasks holding or waiting for ``lock``: the entry goes when the last one leaves."""


class KeyedLock:
    """``async with locks.hold(key):`` excludes other holders of ``key`` only."""

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = _Entry()
        entry.users += 1
        try:
            async with entry.lock:
                yield
        finally:  # also when cancelled while waiting
            entry.users -= 1
            if entry.users == 0:
                del self._entries[key]

    def __len__(self) -> int:
        """Keys held or waited for now."""
        return len(self._entries)
