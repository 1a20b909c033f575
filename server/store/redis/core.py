"""What every part of the Redis store shares: the connection pool, the key names
(:mod:`server.keys`), the Lua scripts, the instance's pub/sub bus, and the rule
that a store call runs to completion (:func:`runs_to_completion`).

The store's methods are spread over one class per concern (rooms, presence, lobby,
identity, player messages, queues, archive), each a subclass of :class:`RedisCore`;
:class:`~server.store.redis.store.RedisStore` puts them together. A part that keeps
state of its own (the rooms' feeds, the lobby's followers, the players' inboxes) sets it
up in its ``__init__`` and joins in the hooks below (its own work, then ``super()``).
"""

from __future__ import annotations

import asyncio
import functools
import os
import urllib.parse
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from typing import Any, ParamSpec, TypeVar, cast

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.commands.core import AsyncScript
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.keys import Keys
from server.store.base import Store, StoreUnavailable
from server.store.redis.bus import Bus
from server.store.redis.lane import Arg, Command, lane_for, password_trouble, unreachable
from server.store.redis.scripts import Scripts

DAY_MS = 86_400_000

MAX_REDIS_CONNECTIONS = 256
"""Redis connections one server instance opens at most (commands beyond wait for one)."""
START_TIMEOUT_S = 10.0
"""How long a starting server waits for Redis's first answer."""

_P = ParamSpec("_P")
_R = TypeVar("_R")
_T = TypeVar("_T")


class RedisCore(Store):
    """What the parts of the Redis store share (its options: see
    :class:`~server.store.redis.store.RedisStore`). The hooks below run through the parts
    in the order ``RedisStore`` lists them."""

    def __init__(
        self,
        url: str,
        *,
        max_events: int = 2000,
        prefix: str = "gomoku",
        session_ttl_ms: int = 30 * DAY_MS,
        poll_interval_s: float = 5.0,
        lane: bool = True,
    ) -> None:
        self.url = url
        self.max_events = max_events
        self.keys = Keys(prefix)
        self.session_ttl_ms = session_ttl_ms
        self.poll_interval_s = poll_interval_s
        # A blocking pool: when every connection is busy (a burst of players), a command
        # waits for one instead of failing with "Too many connections" (redis-py's
        # default pool holds 100 and refuses the 101st command in flight).
        pool = BlockingConnectionPool.from_url(
            url,
            max_connections=MAX_REDIS_CONNECTIONS,
            timeout=5.0,
            socket_timeout=5.0,
            socket_connect_timeout=2.0,
            health_check_interval=10,
            retry=Retry(ExponentialWithJitterBackoff(base=0.05, cap=1.0), retries=3),
            retry_on_error=[RedisConnectionError, RedisTimeoutError],
            client_name="gomoku-server",
        )
        self.redis: Redis = Redis(connection_pool=pool)
        self.scripts = Scripts(self.redis)
        self.lane = lane_for(url) if lane else None
        if self.lane is not None:
            hot = self.scripts
            self.lane.preloaded = [hot.commit, hot.attach, hot.announce, hot.lobby_put]
            self.lane.preloaded.append(hot.lobby_remove)
        """The hot path's own connection (a room's commit and load), None for a TLS URL
        (or when asked not to have one): then those calls go through redis-py too."""
        self.bus = Bus(
            self.redis,
            on_connect=self._pubsub_connected,
            after_reconnect=self._pubsub_reconnected,
            lane=self.lane,
        )
        self._inflight: set[asyncio.Future[Any]] = set()
        """Store calls under way in their own tasks (see :func:`runs_to_completion`)."""
        self._closed = False

    def __repr__(self) -> str:
        parts = urllib.parse.urlsplit(self.url)
        url = self.url
        if parts.password is not None:  # never log a password
            url = urllib.parse.urlunsplit(
                parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@", 1))
            )
        return f"RedisStore({url!r})"

    # -- lifecycle -----------------------------------------------------------

    async def start(self) -> None:
        """Check that Redis answers, then start the bus. Raises StoreUnavailable when
        nothing answers within :data:`START_TIMEOUT_S`: a port that accepts connections
        and never replies (a TLS-only Redis reached with ``redis://``, a firewall) held
        the server at start-up for good, deaf to SIGINT and SIGTERM."""
        try:
            async with asyncio.timeout(START_TIMEOUT_S):
                await self.redis.ping()
                if self.lane is not None:
                    await self.lane.call(("PING",))
        except RedisError as exc:
            if (trouble := password_trouble(exc)) is not None:
                raise StoreUnavailable(trouble) from None
            raise
        except TimeoutError:
            raise StoreUnavailable(
                f"it takes connections but does not answer within {START_TIMEOUT_S:g} s"
                " (is it Redis? a TLS one needs rediss://)"
            ) from None
        await self.bus.start()

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        await self.bus.close()
        await self._end_subscriptions()
        if self.lane is not None:
            await self.lane.close()
        if self._inflight:  # calls whose callers were cancelled: let them return their connection
            await asyncio.wait(set(self._inflight), timeout=10.0)
        await self.redis.aclose(close_connection_pool=True)  # the pool is ours

    async def healthy(self) -> bool:
        """Redis answers PING, and this instance's pub/sub connection (its live fan-out) is up."""
        try:
            async with asyncio.timeout(2.0):
                pong = await asyncio.shield(self.redis.ping())
            return bool(pong) and self.bus.connected.is_set()
        except (RedisError, OSError, TimeoutError):
            return False

    # -- hooks the parts join in (each does its own work, then calls super()) --------------

    def _pubsub_connected(self) -> None:
        """The bus (re)connected: bells may have been missed while it was down."""

    async def _pubsub_reconnected(self) -> None:
        """The bus is back after losing its connection: catch up with what was missed."""

    async def _end_subscriptions(self) -> None:
        """Closing (the bus is closed already): end every local subscription."""

    # -- calls ----------------------------------------------------------------------

    async def hot(self, *commands: Command) -> list[Any]:
        """The replies to ``commands``, sent together in order on the lane (redis-py's
        pool without one). Only for commands that may run twice (see :mod:`.lane`)."""
        if self.lane is not None:
            return await self.lane.call(*commands)
        return await _pooled(self, commands)

    async def hot_script(
        self,
        before: Sequence[Command],
        script: AsyncScript,
        keys: Sequence[Arg],
        args: Sequence[Arg],
    ) -> list[Any]:
        """``before`` and then ``script``, sent together: their replies (the script's
        last). Only for a script that may run twice."""
        if self.lane is not None:
            return await self.lane.call_with_script(before, script, keys, args)
        return await _pooled(self, before, (script, keys, args))

    def _call_done(self, task: asyncio.Future[Any]) -> None:
        """A store call's task ended. Its outcome went to its caller, unless the caller was
        cancelled meanwhile: then nobody wants it (an error is not worth a log line)."""
        self._inflight.discard(task)
        if not task.cancelled():
            task.exception()


def call_token() -> str:
    """A token for one call of a script that may run twice (the hot path writes a call
    again after a lost connection): the script keeps its answer under it, so a second run
    of the same call answers as the first did."""
    return os.urandom(8).hex()


def runs_to_completion(
    method: Callable[_P, Coroutine[Any, Any, _R]],
) -> Callable[_P, Coroutine[Any, Any, _R]]:
    """Run the store call in its own task and shield it from the caller's cancellation.

    redis-py 8.1 can absorb a task's cancellation that arrives while a command is in
    flight (the command then returns normally), which would make a cancelled server
    loop run on and ``asyncio.timeout`` around a store call never fire. Shielded, the
    caller gets CancelledError at once, and the Redis command still completes (so a
    commit is never cut in half between sending it and reading its reply).

    The store keeps each such task until it ends, and :meth:`RedisCore.close` waits for
    them before it closes the connection pool: a call whose caller was cancelled goes on
    in its task, and closing the pool under it would leave redis-py to reconnect a
    connection that nobody closes afterwards (an unclosed socket). A call made after
    ``close`` is refused with :class:`StoreUnavailable`.

    A Redis that cannot be reached (after redis-py's own retries) is reported as
    :class:`StoreUnavailable`, the store-neutral error the server turns into the
    ``unavailable`` error code.
    """

    @functools.wraps(method)
    async def shielded(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        store = args[0]
        assert isinstance(store, RedisCore)
        if store._closed:
            raise StoreUnavailable("the redis store is closed")
        task = asyncio.ensure_future(method(*args, **kwargs))
        store._inflight.add(task)
        task.add_done_callback(store._call_done)
        try:
            return await asyncio.shield(task)
        except StoreUnavailable:
            raise
        except (RedisConnectionError, RedisTimeoutError, ConnectionError) as exc:
            raise unreachable(exc) from exc

    return shielded


@runs_to_completion
async def _pooled(
    store: RedisCore,
    commands: Sequence[Command],
    script: tuple[AsyncScript, Sequence[Arg], Sequence[Arg]] | None = None,
) -> list[Any]:
    """:meth:`RedisCore.hot` and :meth:`RedisCore.hot_script` on redis-py's pool (a
    ``MULTI`` ... ``EXEC`` block as redis-py's transaction, answered as Redis would)."""
    if script is None and commands and commands[0] == ("MULTI",) and commands[-1] == ("EXEC",):
        inner = commands[1:-1]
        async with store.redis.pipeline(transaction=True) as pipe:
            for command in inner:
                pipe.execute_command(*command)
            return [b"OK", *[b"QUEUED"] * len(inner), await pipe.execute()]
    async with store.redis.pipeline(transaction=False) as pipe:
        for command in commands:
            pipe.execute_command(*command)
        if script is not None:
            run, keys, args = script
            await run(cast(list[str], keys), cast(list[str], args), client=pipe)
        return await pipe.execute()


CLOSED = None
"""What a local subscriber's queue is given when the store closes (see :func:`drain`)."""


async def drain(queue: asyncio.Queue[_T | None]) -> AsyncIterator[_T]:
    """The items put in ``queue`` until a None (the end: the store closed)."""
    while (item := await queue.get()) is not None:
        yield item
