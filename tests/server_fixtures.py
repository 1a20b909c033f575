"""A real server on 127.0.0.1 (a free port) and a small protocol client for tests.

Fixtures: ``server`` (a running :class:`GomokuServer` with short timings),
``make_server`` (start one with a custom :class:`ServerConfig`),
``connect`` (open a :class:`TestClient`; closed at teardown) and ``clients`` (a list
the test fills with clients it opens itself; closed at teardown). Everything goes
through :mod:`protocol`: the client encodes and decodes real frames.
"""

from __future__ import annotations

import asyncio
import dataclasses
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import msgspec
import pytest
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect

from protocol import messages as m
from protocol.codec import decode_server, encode
from protocol.events import GameStarted, Moved, Offered, PlayerJoined, RoomEvent
from server.app import GomokuServer
from server.config import ConnectionLimits, Matchmaking, ServerConfig, Timers
from server.game import GameRules
from server.store import Store

RECV_TIMEOUT_S = 5.0
M = TypeVar("M", bound=msgspec.Struct)
E = TypeVar("E", bound=msgspec.Struct)


def make_config(**overrides: Any) -> ServerConfig:
    """Short timings so clocks, pairing and keepalive finish within a test; a player
    gone is announced at once (tests of the wait before it set their own)."""
    base = ServerConfig(
        host="127.0.0.1",
        port=0,
        limits=ConnectionLimits(ping_interval_s=None, ping_timeout_s=None),
        game=GameRules(grace_ms=60_000, takeback_cooldown_ms=5_000, offline_after_ms=0),
        matchmaking=Matchmaking(interval_s=0.05),
        timers=Timers(tick_interval_s=0.02),
    )
    return dataclasses.replace(base, **overrides)


class TestClient:
    """One WebSocket speaking the protocol, with helpers that wait for replies."""

    __test__ = False  # not a test class, despite the name

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.player = ""
        self.token = ""
        self.welcome: m.Welcome | None = None
        self._next_id = 0

    async def send(self, message: msgspec.Struct) -> None:
        await self.ws.send(encode(message))

    async def send_raw(self, data: bytes | str) -> None:
        await self.ws.send(data)

    async def recv(self, wait_s: float = RECV_TIMEOUT_S) -> m.ServerMessage:
        data = await asyncio.wait_for(self.ws.recv(), wait_s)
        return decode_server(data)

    async def expect(self, kind: type[M], wait_s: float = RECV_TIMEOUT_S) -> M:
        """The next message, which must be of type ``kind``."""
        message = await self.recv(wait_s)
        assert isinstance(message, kind), f"expected {kind.__name__}, got {message!r}"
        return message

    async def expect_error(self, code: str) -> m.Error:
        error = await self.expect(m.Error)
        assert error.code == code, error
        return error

    async def event(self, kind: type[E], room: str | None = None) -> E:
        """The next message, which must be an ``event`` carrying ``kind``."""
        envelope = await self.expect(m.Event)
        assert room is None or envelope.room == room
        assert isinstance(envelope.event, kind), f"expected {kind.__name__}, got {envelope!r}"
        return envelope.event

    async def until(self, predicate: Callable[[m.ServerMessage], bool]) -> m.ServerMessage:
        """Skip messages until one satisfies ``predicate``."""
        while True:
            message = await self.recv()
            if predicate(message):
                return message

    async def until_event(self, kind: type[E]) -> E:
        """Skip messages until an event of type ``kind`` arrives."""
        message = await self.until(lambda x: isinstance(x, m.Event) and isinstance(x.event, kind))
        assert isinstance(message, m.Event)
        event = message.event
        assert isinstance(event, kind)
        return event

    async def events(self, count: int) -> list[tuple[int, RoomEvent]]:
        """The next ``count`` messages, all events: (seq, event)."""
        out = []
        for _ in range(count):
            envelope = await self.expect(m.Event)
            out.append((envelope.seq, envelope.event))
        return out

    async def silent(self, seconds: float = 0.1) -> None:
        """Assert that nothing arrives for a while."""
        try:
            message = await self.recv(seconds)
        except TimeoutError:
            return
        raise AssertionError(f"unexpected message {message!r}")

    async def hello(self, name: str, token: str | None = None) -> m.Welcome:
        await self.send(m.Hello(name=name, token=token))
        welcome = await self.expect(m.Welcome)
        self.player, self.token, self.welcome = welcome.player, welcome.token, welcome
        return welcome

    async def create(self, **fields: Any) -> m.Snapshot:
        await self.send(m.CreateRoom(**fields))
        return await self.expect(m.Snapshot)

    async def join(self, room: str, role: str = "player") -> m.Snapshot:
        await self.send(m.Join(room=room, role=role))  # type: ignore[arg-type]
        return await self.expect(m.Snapshot)

    async def move(self, room: str, point: str) -> None:
        await self.send(m.Move(room=room, point=point))


Connect = Callable[..., Awaitable[TestClient]]


@pytest.fixture
async def make_server() -> AsyncIterator[Callable[..., Awaitable[GomokuServer]]]:
    """Start servers with custom settings; all are stopped at teardown."""
    started: list[GomokuServer] = []

    async def start(
        config: ServerConfig | None = None, *, store: Store | None = None, **overrides: Any
    ) -> GomokuServer:
        server = GomokuServer(config or make_config(**overrides), store=store)
        await server.start()
        started.append(server)
        return server

    yield start
    for server in started:
        await server.stop()


@pytest.fixture
async def server(make_server: Callable[..., Awaitable[GomokuServer]]) -> GomokuServer:
    """A running server with test timings on a free 127.0.0.1 port."""
    return await make_server()


@pytest.fixture
async def connect(server: GomokuServer) -> AsyncIterator[Connect]:
    """Open clients to ``server`` (or another server passed in); closed at teardown."""
    clients: list[TestClient] = []

    async def open_client(
        name: str | None = None, *, to: GomokuServer | None = None, **kwargs: Any
    ) -> TestClient:
        target = to or server
        # No limit on frames received and not read (unless a test sets one): a client
        # that reads only what a test needs would stop reading the socket at 16, and its
        # close at teardown wait 10 s for a close frame behind them.
        kwargs.setdefault("max_queue", None)
        ws = await ws_connect(
            f"ws://127.0.0.1:{target.port}/", compression=None, max_size=1 << 20, **kwargs
        )
        client = TestClient(ws)
        clients.append(client)
        if name is not None:
            await client.hello(name)
        return client

    yield open_client
    for client in clients:
        await client.ws.close()


@pytest.fixture
async def clients() -> AsyncIterator[list[TestClient]]:
    """Clients a test opens itself (to server processes, say); closed at teardown."""
    opened: list[TestClient] = []
    yield opened
    for client in opened:
        await client.ws.close()


async def seated_pair(
    connect: Connect, *, to: GomokuServer | None = None, **room: Any
) -> tuple[TestClient, TestClient, str]:
    """Alice creates a room as Black, Bob joins as White (on ``to``, or the test's
    server); both have seen the start."""
    where = {} if to is None else {"to": to}  # a connect bound to a server keeps it
    alice = await connect("alice", **where)
    bob = await connect("bob", **where)
    snap = await alice.create(seat="black", **room)
    room_id = snap.room.id
    await bob.join(room_id)
    # Alice sees Bob join and the game start; Bob's snapshot already holds both.
    await alice.event(PlayerJoined)
    await alice.event(GameStarted)
    return alice, bob, room_id


async def private_pair(connect: Connect) -> tuple[TestClient, TestClient, m.Snapshot]:
    """Alice creates a private room as Black, Bob joins it by its invite code: both, and
    Alice's snapshot of the room (with its code)."""
    alice = await connect("alice")
    snap = await alice.create(private=True, seat="black")
    assert snap.room.code is not None
    bob = await connect("bob")
    await bob.send(m.Join(code=snap.room.code))
    await bob.expect(m.Snapshot)
    return alice, bob, snap


async def agree_rematch(offerer: TestClient, answerer: TestClient, room: str) -> None:
    """``offerer`` proposes a rematch of the finished game in ``room``; ``answerer`` sees
    the offer and accepts it."""
    await offerer.send(m.Offer(room=room, kind="rematch"))
    await answerer.until_event(Offered)
    await answerer.send(m.Answer(room=room, kind="rematch", accept=True))


async def play_moves(black: TestClient, white: TestClient, room: str, moves: list[str]) -> None:
    """Play ``moves`` alternately from Black; both players see each one (skipping other
    messages on the way)."""
    for i, point in enumerate(moves):
        await (black if i % 2 == 0 else white).move(room, point)
        for client in (black, white):
            moved = await client.until_event(Moved)
            assert moved.point == point


def healthz(port: int) -> int:
    """The HTTP status of the server's ``/healthz`` (blocking: call it in a thread)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as error:
        return error.code


async def wait_healthy(port: int, timeout_s: float = 10.0) -> None:
    """Wait until ``/healthz`` answers 200 (the store and its pub/sub are back)."""
    for _ in range(int(timeout_s / 0.05)):
        if await asyncio.to_thread(healthz, port) == 200:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"/healthz stayed unhealthy for {timeout_s} s")
