"""The players connected to this server instance, each with their connections here: whom
a note from any instance (:class:`~server.notices.Notice`) goes to, and each player's
chat flood limit (shared by their connections here)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from typing import Protocol

import msgspec

from server.config import ConnectionLimits
from server.hub import Hub
from server.notices import Notice, decode_notice
from server.ratelimit import SlidingWindow
from server.room import Seat
from server.sessions import SessionRecord


class PlayerConnection(Protocol):
    """What the players' registry and matchmaking need from a player's connection."""

    identity: SessionRecord | None
    queue: str | None
    """The matchmaking queue the connection waits in, if any."""

    @property
    def attached(self) -> AbstractSet[str]:
        """The rooms it is attached to (its player is present there)."""

    def send(self, message: msgspec.Struct) -> None: ...

    def seat(self) -> Seat: ...

    async def notice(self, notice: Notice) -> None: ...


class LocalPlayers:
    """Player id -> their connections to this instance (players with none are left out).
    A player's first connection here subscribes this instance to their notices (the
    hub's inbox); their last one leaving unsubscribes it."""

    def __init__(self, hub: Hub, limits: ConnectionLimits) -> None:
        self.hub = hub
        self.limits = limits
        self._conns: dict[str, set[PlayerConnection]] = {}
        self._chat: dict[str, SlidingWindow] = {}
        """Chat flood limit per player (shared by the player's connections here)."""
        self._people: set[str] = set()
        """The players here who are people: not an AI worker, nor an AI seat it plays."""

    def __len__(self) -> int:
        return len(self._conns)

    def people(self) -> int:
        """How many of the players here are people (``players online`` in /metrics and
        ``status``: with each AI worker and AI seat counted, 4 people read as 9)."""
        return len(self._people)

    def connections(self, player_id: str) -> Iterable[PlayerConnection]:
        """The player's connections here (none if they have none)."""
        return list(self._conns.get(player_id, ()))

    async def attach(self, player_id: str, conn: PlayerConnection) -> None:
        first = player_id not in self._conns
        self._conns.setdefault(player_id, set()).add(conn)
        if conn.identity is not None and not conn.identity.bot:
            self._people.add(player_id)
        if first:
            await self.hub.add_player(player_id)

    def detach(self, player_id: str, conn: PlayerConnection) -> bool:
        """Forget a closed connection; True if the player has others here."""
        conns = self._conns.get(player_id)
        if conns is None:
            return False
        conns.discard(conn)
        if conns:
            return True
        del self._conns[player_id]
        self._chat.pop(player_id, None)
        self._people.discard(player_id)
        asyncio.get_running_loop().create_task(self.hub.remove_player(player_id))
        return False

    def chat_window(self, player_id: str) -> SlidingWindow:
        """The player's chat flood limit: one window for all their connections here."""
        window = self._chat.get(player_id)
        if window is None:
            window = SlidingWindow(self.limits.chat_per_window, self.limits.chat_window_ms)
            self._chat[player_id] = window
        return window

    async def deliver_notice(self, player_id: str, data: bytes) -> None:
        """A note for the player from any instance (the hub's inbox): to each connection."""
        notice = decode_notice(data)
        for conn in self.connections(player_id):
            await conn.notice(notice)
