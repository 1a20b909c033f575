"""The instance's single pub/sub connection to Redis: room bells, the lobby channel
and player channels all arrive here and go to the handler of their channel.

A lost connection is made again with a short back-off and every channel that has a
handler is subscribed again; the store is told (``on_connect`` on each connection,
``after_reconnect`` after a reconnect) so it can re-read what it may have missed: the
stream is the truth and pub/sub only a wake-up, so a lost message costs latency, not
events.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from server.store.redis.codecs import text
from server.store.redis.lane import Lane
from server.store.redis.push import PushConnection

log = logging.getLogger("gomoku.store")

Handler = Callable[[bytes], None]
"""Takes one message's data; must not block (it runs in the bus's read loop)."""


class Bus:
    """The instance's single pub/sub connection: channel -> handler, re-subscribed on reconnect.

    :meth:`subscribe` returns once Redis confirmed the subscription, so a message
    published right after it is not missed.
    """

    RECONNECT_DELAYS_S = (0.05, 0.1, 0.2, 0.5, 1.0)

    def __init__(
        self,
        redis: Redis,
        *,
        on_connect: Callable[[], None],
        after_reconnect: Callable[[], Awaitable[None]],
        lane: Lane | None = None,
    ) -> None:
        self.redis = redis
        self.lane = lane
        """With a lane, the connection is a :class:`PushConnection` to the lane's Redis
        (messages dispatched as they are read); without, redis-py's ``PubSub``."""
        self.on_connect = on_connect
        """Called each time the connection is made (bells may have been missed before)."""
        self.after_reconnect = after_reconnect
        """Awaited after a lost connection is made again and its channels subscribed."""
        self.handlers: dict[str, Handler] = {}
        self._pubsub: PubSub | PushConnection | None = None
        self._confirmed: dict[str, asyncio.Future[None]] = {}
        self._task: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[None]] = set()
        self._closing = False
        self.connected = asyncio.Event()

    def handle(self, channel: str, handler: Handler) -> None:
        """Dispatch ``channel`` to ``handler`` from :meth:`start` on (before it: no wait)."""
        self.handlers[channel] = handler

    async def start(self) -> None:
        await self._connect()
        self._task = asyncio.create_task(self._listen(), name="redis-pubsub")

    async def close(self) -> None:
        self._closing = True
        if self._task is not None:
            await stop_task(self._task)
        for task in list(self._background):
            await stop_task(task)
        await self._drop_connection()

    async def _connect(self) -> None:
        pubsub: PubSub | PushConnection
        if self.lane is not None:
            pubsub = await PushConnection.open(self.lane, self._dispatch)
        else:
            pubsub = self.redis.pubsub()
        # Published before the snapshot of channels, so a concurrent subscribe() either is
        # in the snapshot or sends its own SUBSCRIBE on this connection.
        self._pubsub = pubsub
        channels = list(self.handlers)
        waits = [self._expect(channel) for channel in channels]
        await pubsub.subscribe(*channels)
        self.on_connect()
        # Confirmations are read by the listener; on the first connect nobody reads yet.
        if self._task is None:
            await self._read_until_confirmed(pubsub, waits)
        self.connected.set()

    async def _read_until_confirmed(
        self, pubsub: PubSub | PushConnection, waits: list[asyncio.Future[None]]
    ) -> None:
        if isinstance(pubsub, PushConnection):  # it dispatches the confirmations itself
            if waits:
                done, _ = await asyncio.wait(waits, timeout=5.0)
                if len(done) < len(waits):
                    raise RedisConnectionError("redis did not confirm the subscriptions")
            return
        while not all(w.done() for w in waits):
            message = await pubsub.get_message(timeout=1.0)
            if message is not None:
                self._dispatch(message)

    async def _drop_connection(self) -> None:
        self.connected.clear()
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            with contextlib.suppress(RedisError, OSError):
                await pubsub.aclose()

    def _expect(self, channel: str) -> asyncio.Future[None]:
        future = self._confirmed.get(channel)
        if future is None or future.done():
            future = asyncio.get_running_loop().create_future()
            self._confirmed[channel] = future
        return future

    async def subscribe(self, channel: str, handler: Handler) -> None:
        self.handlers[channel] = handler
        pubsub = self._pubsub
        if pubsub is None:
            return  # not connected: the reconnect subscribes every handler's channel
        confirmed = self._expect(channel)
        try:
            await pubsub.subscribe(channel)
        except (RedisError, OSError) as exc:  # the listener reconnects, then subscribes it
            log.info("subscribing to %s failed (%s); it follows the reconnect", channel, exc)
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5.0):
                await asyncio.shield(confirmed)

    def forget(self, channel: str) -> None:
        """Stop dispatching a channel now; the UNSUBSCRIBE follows in the background."""
        self.handlers.pop(channel, None)
        if self._pubsub is not None:
            task = asyncio.create_task(self._quiet_unsubscribe(channel))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _quiet_unsubscribe(self, channel: str) -> None:
        with contextlib.suppress(RedisError, OSError):
            await self.unsubscribe(channel)

    async def unsubscribe(self, channel: str) -> None:
        self.handlers.pop(channel, None)
        self._confirmed.pop(channel, None)
        if self._pubsub is not None:
            # Without a handler the channel is neither dispatched nor subscribed again
            # on reconnect, so a connection that fails now loses nothing.
            with contextlib.suppress(RedisError, OSError):
                await self._pubsub.unsubscribe(channel)

    def _dispatch(self, message: dict[str, Any]) -> None:
        channel = text(message["channel"])
        if message["type"] == "subscribe":
            future = self._confirmed.get(channel)
            if future is not None and not future.done():
                future.set_result(None)
        elif message["type"] == "message":
            handler = self.handlers.get(channel)
            if handler is not None:
                try:
                    handler(message["data"])
                except Exception:  # one bad message must not stop every instance's fan-out
                    log.exception("bad pub/sub message on %s", channel)

    async def _listen(self) -> None:
        while not self._closing:
            pubsub = self._pubsub
            try:
                if pubsub is None:
                    raise RedisConnectionError("pub/sub is not connected")
                if isinstance(pubsub, PushConnection):
                    await pubsub.closed()  # it dispatches every message as it comes
                    raise RedisConnectionError("pub/sub connection lost")
                message = await pubsub.get_message(timeout=1.0)
                if message is not None:
                    self._dispatch(message)
            except (RedisError, OSError) as exc:
                log.warning("redis pub/sub connection lost (%s); reconnecting", exc)
                await self._reconnect()

    async def _reconnect(self) -> None:
        await self._drop_connection()
        attempt = 0
        while not self._closing:
            delay = self.RECONNECT_DELAYS_S[min(attempt, len(self.RECONNECT_DELAYS_S) - 1)]
            await asyncio.sleep(delay)
            attempt += 1
            try:
                await self._connect()
                await self.after_reconnect()
            except (RedisError, OSError) as exc:
                await self._drop_connection()
                if attempt in (1, 10) or attempt % 60 == 0:
                    log.warning("redis still unreachable (%s); retrying", exc)
                continue
            log.info("redis pub/sub reconnected after %d attempt(s)", attempt)
            return


async def stop_task(task: asyncio.Task[None]) -> None:
    """Cancel a background task and wait for it to end.

    redis-py can absorb a cancellation that arrives while a command is in flight,
    so the loops also check a stop flag; the wait is bounded in case a command hangs.
    """
    task.cancel()
    await asyncio.wait({task}, timeout=10.0)
    if task.done() and not task.cancelled() and task.exception() is not None:
        log.warning("background task %s failed: %r", task.get_name(), task.exception())
