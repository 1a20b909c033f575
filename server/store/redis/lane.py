"""One pipelined Redis connection for the store's hot path: a room's commit and load.

Why not redis-py for these two: measured on the project's 2-core machine (see
``/work/notes/redis-path.md`` and bench/RESULTS.md), one commit through redis-py's
pool costs 58 us of the calling process's CPU as a bare ``evalsha`` and 95 us as the
store called it (pool, retry, socket timeout, a shielded task); the same EVALSHA sent
on one connection that every caller shares, its replies parsed by hiredis (which
redis-py already installs), costs 8 us. A move is one commit, so that difference is
most of the server's extra CPU per move on Redis. Everything else stays on redis-py.

Contract (the same as the store's other calls, see
:func:`server.store.redis.core.runs_to_completion`):

- :meth:`Lane.call` writes its commands together, in order, in one write, and answers
  their replies in order (an error reply is returned as a
  :class:`redis.exceptions.ResponseError`, not raised). Callers share the connection:
  Redis answers in the order it was written to, which is the order of the queue here.
- A command once written runs to completion: a caller cancelled meanwhile gets
  CancelledError at once, and its reply is read and dropped.
- A lost connection, or a reply that takes longer than ``timeout_s``: the connection
  is dropped and every call under way is written again on a new one, up to
  ``RETRIES`` times with back-off, then :class:`StoreUnavailable`. So only commands
  that may run twice go through the lane: a commit and a detach carry their token (the
  script answers a resent call with its first result), a load is a read.
- :meth:`Lane.close` waits (up to 10 s) for the replies still due, then closes the
  connection; a call after it is refused with :class:`StoreUnavailable`.

Plain TCP and Unix-socket URLs (with user, password and database) are served;
``rediss://`` is not (:func:`lane_for` answers None and the store keeps redis-py).
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import hiredis
from redis.asyncio.connection import SSLConnection, parse_url
from redis.commands.core import AsyncScript
from redis.exceptions import ResponseError

from server.store.base import StoreUnavailable

Arg = bytes | str | int
_P = TypeVar("_P", bound=asyncio.Protocol)
Command = Sequence[Arg]

RETRIES = 3
"""How many times the calls under way are written again after a lost connection."""

LANE_NAME = "gomoku-server-lane"
"""The lane's connection's name in Redis (``CLIENT LIST``)."""


def lane_for(url: str, *, timeout_s: float = 5.0) -> Lane | None:
    """A lane to the Redis at ``url``, or None for a URL it does not serve (TLS)."""
    options = parse_url(url)
    if options.get("connection_class") is SSLConnection:
        return None
    return Lane(dict(options), timeout_s=timeout_s)


def pack(commands: Sequence[Command]) -> bytes:
    """The commands in RESP, as one payload (hiredis packs them)."""
    # hiredis's stub types its argument as a 1-tuple; any tuple of these values packs.
    return b"".join(hiredis.pack_command(cast(Any, tuple(c))) for c in commands)


_PASSWORD_WANTED = ("NOAUTH", "HELLO must be called with the client already authenticated")
"""What Redis answers a client that gave no password to a Redis that wants one."""

PASSWORD_WANTED = "redis asks for a password: give it in the URL (redis://:PASSWORD@host:port/db)"

_PASSWORD_WRONG = ("WRONGPASS", "invalid username-password pair")
"""What Redis answers a password (or user) it does not take."""

PASSWORD_WRONG = "redis refused the password in the URL (or its user): check it"


def wants_password(exc: BaseException) -> bool:
    """Whether ``exc`` is Redis refusing a client that gave no password (it was
    reached: "unreachable" and Redis's own words about HELLO misled)."""
    return any(marker in str(exc) for marker in _PASSWORD_WANTED)


def password_trouble(exc: BaseException) -> str | None:
    """What to say of ``exc`` if it is Redis refusing the client for its password (none
    given, or one it does not take): Redis was reached, so not "unreachable"."""
    if wants_password(exc):
        return PASSWORD_WANTED
    if any(marker in str(exc) for marker in _PASSWORD_WRONG):
        return PASSWORD_WRONG
    return None


def unreachable(exc: BaseException) -> StoreUnavailable:
    """The store-neutral error for a Redis that could not be reached, with its reason
    (a timeout's own text is empty: its type says it)."""
    if (trouble := password_trouble(exc)) is not None:
        return StoreUnavailable(trouble)
    return StoreUnavailable(f"redis is unreachable: {str(exc) or type(exc).__name__}")


class _Call:
    """A call written to the connection: its future and the replies gathered so far."""

    __slots__ = ("expected", "future", "replies", "sent_at")

    def __init__(self, future: asyncio.Future[list[Any]], expected: int) -> None:
        self.future = future
        self.expected = expected
        self.replies: list[Any] = []
        self.sent_at = time.monotonic()


class _Wire(asyncio.Protocol):
    """The connection: replies are matched to calls in the order they were written."""

    def __init__(self) -> None:
        self.reader = hiredis.Reader(replyError=ResponseError)
        self.calls: collections.deque[_Call] = collections.deque()
        self.transport: asyncio.Transport | None = None
        self.lost: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.outgoing: list[bytes] = []
        """Payloads written in this turn of the event loop, sent together at its end."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is no subclass

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        calls = self.calls
        while (reply := self.reader.gets()) is not False:
            call = calls[0]
            call.replies.append(reply)
            if len(call.replies) == call.expected:
                calls.popleft()
                if not call.future.done():  # its caller may have been cancelled
                    call.future.set_result(call.replies)

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        if not self.lost.done():
            self.lost.set_result(None)
        error = ConnectionError(f"redis connection lost: {exc or 'closed'}")
        while self.calls:
            call = self.calls.popleft()
            if not call.future.done():
                call.future.set_exception(error)

    def write(self, payload: bytes, expected: int) -> asyncio.Future[list[Any]]:
        """Queue ``payload``: what is queued in one turn of the event loop goes out in one
        write at its end (one system call for the commits of many rooms)."""
        if self.transport is None or self.transport.is_closing():
            raise ConnectionError("redis connection lost")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[list[Any]] = loop.create_future()
        self.calls.append(_Call(future, expected))
        if not self.outgoing:
            loop.call_soon(self._flush)
        self.outgoing.append(payload)
        return future

    def _flush(self) -> None:
        outgoing, self.outgoing = self.outgoing, []
        if self.transport is not None:
            self.transport.write(b"".join(outgoing))


class Lane:
    """One shared, pipelined connection (see the module's contract)."""

    def __init__(self, options: dict[str, Any], *, timeout_s: float = 5.0) -> None:
        self.options = options
        self.timeout_s = timeout_s
        self._wire: _Wire | None = None
        self._connecting: asyncio.Task[_Wire] | None = None
        self._watchdog: asyncio.TimerHandle | None = None
        self.closed = False
        self.preloaded: list[AsyncScript] = []
        """Scripts loaded on every new connection, before any call is written on it: a
        call whose caller was cancelled never meets NOSCRIPT (nobody would send it again)."""

    async def call(self, *commands: Command) -> list[Any]:
        """The replies to ``commands``, written together in this order."""
        payload = pack(commands)
        for attempt in range(RETRIES + 1):
            if self.closed:
                raise StoreUnavailable("the redis store is closed")
            try:
                wire = self._wire
                if wire is None or wire.transport is None:
                    wire = await self._connected()
                return await wire.write(payload, len(commands))
            except (ConnectionError, OSError, TimeoutError) as exc:
                if attempt == RETRIES:
                    raise unreachable(exc) from exc
                await asyncio.sleep(min(1.0, 0.05 * 2**attempt))
        raise AssertionError("unreachable")

    async def evalsha(self, script: AsyncScript, keys: Sequence[Arg], args: Sequence[Arg]) -> Any:
        """Run a registered script (loaded first if this Redis does not have it): its
        reply (an error reply is raised)."""
        return (await self.call_with_script((), script, keys, args))[-1]

    async def call_with_script(
        self,
        before: Sequence[Command],
        script: AsyncScript,
        keys: Sequence[Arg],
        args: Sequence[Arg],
    ) -> list[Any]:
        """``before`` and then the script, written together; their replies. A Redis
        that lost its scripts (a restart) gets the script loaded and everything again."""
        run = ("EVALSHA", script.sha, len(keys), *keys, *args)
        replies = await self.call(*before, run)
        if isinstance(replies[-1], ResponseError) and str(replies[-1]).startswith("NOSCRIPT"):
            load = ("SCRIPT", "LOAD", cast(str, script.script))
            replies = (await self.call(load, *before, run))[1:]
        if isinstance(replies[-1], ResponseError):
            raise replies[-1]
        return replies

    async def _connected(self) -> _Wire:
        task = self._connecting
        if task is None:
            task = self._connecting = asyncio.ensure_future(self._connect())
        try:
            return await asyncio.shield(task)
        finally:
            if self._connecting is task and task.done():
                self._connecting = None

    def setup(self, name: str) -> list[Command]:
        """What a new connection sends first: AUTH (with the URL's user and password),
        SELECT (its database), CLIENT SETNAME ``name``."""
        options = self.options
        setup: list[Command] = []
        if options.get("password") is not None:
            user = options.get("username")
            password = options["password"]
            setup.append(("AUTH", user, password) if user else ("AUTH", password))
        if options.get("db"):
            setup.append(("SELECT", int(options["db"])))
        setup.append(("CLIENT", "SETNAME", name))
        return setup

    async def open_connection(self, factory: Callable[[], _P]) -> _P:
        """A new connection to the lane's Redis, speaking ``factory``'s protocol
        (within the connect timeout: ``timeout_s``, at most 2 s)."""
        loop = asyncio.get_running_loop()
        options = self.options
        async with asyncio.timeout(min(2.0, self.timeout_s)):
            if "path" in options:
                _, protocol = await loop.create_unix_connection(factory, options["path"])
            else:
                host, port = options.get("host", "localhost"), options.get("port", 6379)
                _, protocol = await loop.create_connection(factory, host, port)
        return protocol

    async def _connect(self) -> _Wire:
        wire = await self.open_connection(_Wire)
        setup = self.setup(LANE_NAME)
        setup += [("SCRIPT", "LOAD", cast(str, script.script)) for script in self.preloaded]
        async with asyncio.timeout(min(2.0, self.timeout_s)):
            replies = await wire.write(pack(setup), len(setup))
        for reply in replies:
            if isinstance(reply, ResponseError):
                assert wire.transport is not None
                wire.transport.close()
                raise ConnectionError(f"redis refused the connection's AUTH/SELECT: {reply}")
        if self.closed:
            assert wire.transport is not None
            wire.transport.close()
            raise ConnectionError("the redis store is closed")
        self._wire = wire
        if self._watchdog is None:
            self._watch()
        return wire

    def _watch(self) -> None:
        """Every second (or half ``timeout_s`` if that is shorter): a reply overdue by
        ``timeout_s`` drops the connection (the calls under way are written again on a
        new one)."""
        wire = self._wire
        if self.closed or wire is None:
            return
        overdue = wire.calls and time.monotonic() - wire.calls[0].sent_at > self.timeout_s
        if overdue and wire.transport is not None:
            wire.transport.abort()
        period = min(1.0, self.timeout_s / 2)
        self._watchdog = asyncio.get_running_loop().call_later(period, self._watch)

    async def close(self) -> None:
        """Let the replies still due arrive (up to 10 s), then close the connection."""
        self.closed = True
        if self._watchdog is not None:
            self._watchdog.cancel()
        if self._connecting is not None:
            self._connecting.cancel()
            await asyncio.gather(self._connecting, return_exceptions=True)
        wire = self._wire
        if wire is None or wire.transport is None:
            return
        for _ in range(1000):  # up to 10 s for the replies still due (read as they come)
            if not wire.calls or wire.transport is None:
                break
            await asyncio.sleep(0.01)
        if wire.transport is not None:
            wire.transport.close()
            await asyncio.wait([wire.lost], timeout=1.0)
