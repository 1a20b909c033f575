"""The lobby on Redis: a hash of public rooms' summaries and a pub/sub channel of
changes, written together by one script (``lua/lobby_put.lua``,
``lua/lobby_remove.lua``). This instance's lobby followers get the changes from the
bus; after the bus reconnects they are told what changed while it was down (the
hash is compared with a mirror of what they were last told)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import msgspec

from server.store.base import LobbyChange
from server.store.redis.codecs import text
from server.store.redis.core import CLOSED, RedisCore, drain, runs_to_completion


class RedisLobby(RedisCore):
    """Public rooms' summaries, and this instance's followers of their changes."""

    def __init__(self, url: str, **options: Any) -> None:
        super().__init__(url, **options)
        self._lobby_followers: set[asyncio.Queue[LobbyChange | None]] = set()
        self._lobby_mirror: dict[str, bytes] | None = None
        """The lobby as followers were last told it (while anyone follows)."""
        self.bus.handle(self.keys.lobby_channel, self._on_lobby)

    async def _pubsub_reconnected(self) -> None:
        await self._resync_lobby()
        await super()._pubsub_reconnected()

    async def _end_subscriptions(self) -> None:
        for lobby_queue in self._lobby_followers:
            lobby_queue.put_nowait(CLOSED)
        await super()._end_subscriptions()

    # On the hot path: sent twice, a lobby line is written (and announced) again as it was.

    async def lobby_put(self, room_id: str, summary: bytes) -> None:
        message = msgspec.msgpack.encode((room_id, summary))
        args: list[bytes | str | int] = [self.keys.lobby_channel, room_id, summary, message]
        await self.hot_script((), self.scripts.lobby_put, [self.keys.lobby], args)

    async def lobby_remove(self, room_id: str) -> None:
        message = msgspec.msgpack.encode((room_id, None))
        args: list[bytes | str | int] = [self.keys.lobby_channel, room_id, message]
        await self.hot_script((), self.scripts.lobby_remove, [self.keys.lobby], args)

    @runs_to_completion
    async def lobby_list(self) -> dict[str, bytes]:
        rooms: dict[Any, Any] = await self.redis.hgetall(self.keys.lobby)
        return {text(room_id): summary for room_id, summary in rooms.items()}

    def _on_lobby(self, message: bytes) -> None:
        room_id, summary = msgspec.msgpack.decode(message, type=tuple[str, bytes | None])
        self._tell_lobby(LobbyChange(room_id, summary))

    def _tell_lobby(self, change: LobbyChange) -> None:
        if self._lobby_mirror is not None:
            if change.summary is None:
                self._lobby_mirror.pop(change.room_id, None)
            else:
                self._lobby_mirror[change.room_id] = change.summary
        for lobby_queue in self._lobby_followers:
            lobby_queue.put_nowait(change)

    async def _resync_lobby(self) -> None:
        """After a pub/sub outage, tell lobby followers what changed while we were deaf."""
        if self._lobby_mirror is None:
            return
        before, now = dict(self._lobby_mirror), await self.lobby_list()
        for room_id, summary in now.items():
            if before.get(room_id) != summary:
                self._tell_lobby(LobbyChange(room_id, summary))
        for room_id in before.keys() - now.keys():
            self._tell_lobby(LobbyChange(room_id, None))

    @asynccontextmanager
    async def _follow_lobby(self) -> AsyncIterator[AsyncIterator[LobbyChange]]:
        queue: asyncio.Queue[LobbyChange | None] = asyncio.Queue()
        if self._lobby_mirror is None:
            self._lobby_mirror = await self.lobby_list()
        self._lobby_followers.add(queue)
        try:
            yield drain(queue)
        finally:
            self._lobby_followers.discard(queue)
            if not self._lobby_followers:
                self._lobby_mirror = None

    def subscribe_lobby(self) -> AbstractAsyncContextManager[AsyncIterator[LobbyChange]]:
        return self._follow_lobby()

    @runs_to_completion
    async def count_lobby(self) -> int:
        return int(await self.redis.hlen(self.keys.lobby))
