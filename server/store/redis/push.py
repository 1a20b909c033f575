"""The bus's pub/sub connection without redis-py: each message read by hiredis and
handed to the bus as it arrives, with no task switch, timeout or retry wrapper per
message (redis-py's ``PubSub.get_message`` costs about as much per bell as the rest of
a move's store work; see :mod:`server.store.redis.lane` for the measurements).

:class:`PushConnection` has the part of redis-py's ``PubSub`` that
:class:`~server.store.redis.bus.Bus` uses (``subscribe``, ``unsubscribe``, ``aclose``)
and hands every message, as the same dict redis-py makes (``type``, ``channel``,
``data``), to the bus's dispatch. A connection that says nothing for ``ping_every_s``
is sent a PING; one still silent after another ``ping_every_s`` is dropped, so a hung
Redis is noticed like a closed one (:meth:`PushConnection.closed` ends).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any, cast

import hiredis

from server.store.redis.lane import Arg, Lane, pack

Dispatch = Callable[[dict[str, Any]], None]

BUS_NAME = "gomoku-server-bus"
"""The pub/sub connection's name in Redis (``CLIENT LIST``)."""


class _PushWire(asyncio.Protocol):
    def __init__(self, dispatch: Dispatch) -> None:
        self.dispatch = dispatch
        self.reader = hiredis.Reader()
        self.transport: asyncio.Transport | None = None
        self.lost: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.heard = True
        """Something came since the last look of the watchdog."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is no subclass

    def data_received(self, data: bytes) -> None:
        self.heard = True
        self.reader.feed(data)
        while (push := self.reader.gets()) is not False:
            if isinstance(push, hiredis.ReplyError):  # a refused AUTH or SELECT
                if self.transport is not None:
                    self.transport.abort()
                return
            if isinstance(push, list) and len(push) == 3:
                kind = push[0].decode() if isinstance(push[0], bytes) else str(push[0])
                self.dispatch({"type": kind, "channel": push[1], "data": push[2]})

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        if not self.lost.done():
            self.lost.set_result(None)


class PushConnection:
    """One pub/sub connection to the Redis a lane talks to (see the module)."""

    def __init__(self, wire: _PushWire, ping_every_s: float) -> None:
        self._wire = wire
        self._ping_every_s = ping_every_s
        self._watchdog = asyncio.get_running_loop().call_later(ping_every_s, self._watch)

    @classmethod
    async def open(
        cls, lane: Lane, dispatch: Dispatch, ping_every_s: float = 10.0
    ) -> PushConnection:
        """Connect to the lane's Redis (its address, user, password and database);
        raises OSError or TimeoutError if Redis cannot be reached. A refused set-up (a
        wrong password) drops the connection: the bus sees it lost and tries again."""
        wire = await lane.open_connection(lambda: _PushWire(dispatch))
        connection = cls(wire, ping_every_s)
        assert wire.transport is not None
        wire.transport.write(pack(lane.setup(BUS_NAME)))
        return connection

    def _send(self, *args: Arg) -> None:
        transport = self._wire.transport
        if transport is None or transport.is_closing():
            raise ConnectionError("redis pub/sub connection lost")
        transport.write(pack([args]))

    async def subscribe(self, *channels: str) -> None:
        if channels:
            self._send("SUBSCRIBE", *channels)

    async def unsubscribe(self, channel: str) -> None:
        self._send("UNSUBSCRIBE", channel)

    def _watch(self) -> None:
        wire = self._wire
        if wire.transport is None:
            return
        if not wire.heard:
            wire.transport.abort()  # silent since the last PING: a hung Redis
            return
        wire.heard = False
        with contextlib.suppress(ConnectionError):
            self._send("PING")
        self._watchdog = asyncio.get_running_loop().call_later(self._ping_every_s, self._watch)

    async def closed(self) -> None:
        """Returns when the connection is lost."""
        await asyncio.shield(self._wire.lost)

    async def aclose(self) -> None:
        self._watchdog.cancel()
        if self._wire.transport is not None:
            self._wire.transport.close()
            await asyncio.wait([self._wire.lost], timeout=1.0)
