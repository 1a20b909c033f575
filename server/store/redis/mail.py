"""Messages to players on Redis: one pub/sub channel per player, published by any
instance; this instance subscribes to the channels of the players connected to it
(counted, so a player's channel is subscribed once) and hands each message to the
inboxes that asked for that player."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from server.store.base import PlayerInbox, PlayerMessage
from server.store.redis.core import CLOSED, RedisCore, drain, runs_to_completion


class RedisMail(RedisCore):
    """Publishing to a player, and this instance's inboxes of its players' messages."""

    def __init__(self, url: str, **options: Any) -> None:
        super().__init__(url, **options)
        self._inboxes: set[_RedisInbox] = set()
        self._player_refs: dict[str, int] = {}
        """Player -> how many inboxes here follow them (their channel is subscribed)."""

    async def _end_subscriptions(self) -> None:
        for inbox in self._inboxes:
            inbox.queue.put_nowait(CLOSED)
        await super()._end_subscriptions()

    @runs_to_completion
    async def publish_player(self, player_id: str, data: bytes) -> None:
        await self.redis.publish(self.keys.player_channel(player_id), data)

    async def _watch_player(self, player_id: str) -> None:
        self._player_refs[player_id] = self._player_refs.get(player_id, 0) + 1
        if self._player_refs[player_id] == 1:
            await self.bus.subscribe(
                self.keys.player_channel(player_id),
                lambda data: self._on_player(player_id, data),
            )

    async def _unwatch_player(self, player_id: str) -> None:
        refs = self._player_refs.get(player_id, 0) - 1
        if refs > 0:
            self._player_refs[player_id] = refs
            return
        self._player_refs.pop(player_id, None)
        await self.bus.unsubscribe(self.keys.player_channel(player_id))

    def _on_player(self, player_id: str, data: bytes) -> None:
        message = PlayerMessage(player_id, data)
        for inbox in self._inboxes:
            if player_id in inbox.players:
                inbox.queue.put_nowait(message)

    @asynccontextmanager
    async def _inbox(self) -> AsyncIterator[PlayerInbox]:
        inbox = _RedisInbox(self)
        self._inboxes.add(inbox)
        try:
            yield inbox
        finally:
            self._inboxes.discard(inbox)
            for player_id in list(inbox.players):
                await inbox.remove(player_id)

    def subscribe_players(self) -> AbstractAsyncContextManager[PlayerInbox]:
        return self._inbox()


class _RedisInbox(PlayerInbox):
    def __init__(self, store: RedisMail) -> None:
        self.store = store
        self.players: set[str] = set()
        self.queue: asyncio.Queue[PlayerMessage | None] = asyncio.Queue()

    async def add(self, player_id: str) -> None:
        if player_id not in self.players:
            self.players.add(player_id)
            await self.store._watch_player(player_id)

    async def remove(self, player_id: str) -> None:
        if player_id in self.players:
            self.players.discard(player_id)
            await self.store._unwatch_player(player_id)

    def __aiter__(self) -> AsyncIterator[PlayerMessage]:
        return drain(self.queue)
