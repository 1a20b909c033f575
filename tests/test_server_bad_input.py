"""Bad input and abuse: each gets a stable error code (or a documented close code),
and the connection and the game stay usable."""

from __future__ import annotations

import asyncio
import base64
import os
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import pytest
from server_fixtures import Connect, TestClient, seated_pair
from websockets.exceptions import ConnectionClosed

from protocol import messages as m
from protocol.events import Moved
from server import handlers
from server.app import GomokuServer
from server.config import ConnectionLimits
from server.handlers import Session

MakeServer = Callable[..., Awaitable[GomokuServer]]


async def assert_still_playable(
    alice: TestClient, bob: TestClient, room: str, moves: list[str]
) -> None:
    """The room's snapshot holds exactly the accepted moves: nothing was corrupted."""
    snap = await bob.join(room)
    assert snap.room.moves == moves
    assert snap.room.state == "playing"


async def test_malformed_unknown_and_mistyped_frames(connect: Connect) -> None:
    """Garbage bytes, unknown types, wrong field types and text frames get error frames."""
    alice = await connect()
    await alice.send_raw(b"\xc1\xff\x00garbage")
    await alice.expect_error("bad_message")
    await alice.send_raw(msgspec.msgpack.encode([1, 2, 3]))
    await alice.expect_error("bad_message")
    await alice.send_raw(msgspec.msgpack.encode({"type": "teleport", "id": 4}))
    error = await alice.expect_error("bad_message")
    assert error.re == 4
    await alice.send_raw(msgspec.msgpack.encode({"type": "hello", "name": 42, "id": 5}))
    error = await alice.expect_error("bad_message")
    assert "name" in error.message
    assert error.re == 5
    await alice.send_raw("a text frame")
    await alice.expect_error("bad_frame")
    await alice.send(m.CreateRoom())
    await alice.expect_error("not_hello")
    await alice.send_raw(msgspec.msgpack.encode({"type": "hello", "name": "alice", "version": 9}))
    await alice.expect_error("unsupported_version")
    await alice.hello("alice")
    await alice.send_raw(msgspec.msgpack.encode({"type": "create_room", "size": 40}))
    await alice.expect_error("bad_value")
    await alice.send(m.Hello(name="again"))
    await alice.expect_error("wrong_phase")
    snap = await alice.create(size=19)  # the connection is still fine
    assert snap.room.size == 19
    await alice.send_raw(
        msgspec.msgpack.encode({"type": "chat", "room": snap.room.id, "text": "x" * 301})
    )
    await alice.expect_error("bad_value")
    await alice.send(m.Chat(room=snap.room.id, text="x" * 300))
    assert (await alice.expect(m.Event)).seq == 2


async def test_extension_types_are_refused_even_where_they_would_be_ignored(
    connect: Connect,
) -> None:
    """A frame with a MessagePack extension type anywhere, even in a field the server
    does not know, is refused with bad_message and has no effect; the connection stays
    usable (SECURITY.md, protocol.md "Encoding")."""
    alice = await connect()
    hidden = {"future": [1, {"x": msgspec.msgpack.Ext(1, b"")}]}
    await alice.send_raw(msgspec.msgpack.encode({"type": "hello", "name": "a", "id": 1, **hidden}))
    assert (await alice.expect_error("bad_message")).re == 1
    await alice.hello("alice")  # the refused hello identified nobody
    snap = await alice.create()
    chat = {"type": "chat", "room": snap.room.id, "text": "hi", "id": 2, **hidden}
    await alice.send_raw(msgspec.msgpack.encode(chat))
    assert (await alice.expect_error("bad_message")).re == 2
    await alice.send(m.Chat(room=snap.room.id, text="\u01c7 still here"))
    assert (await alice.expect(m.Event)).seq == 2


async def test_oversized_frame_closes_1009(connect: Connect) -> None:
    """A frame above the 4096-byte limit closes the connection with 1009."""
    alice = await connect("alice")
    await alice.send_raw(b"\x80" + os.urandom(5000))
    with pytest.raises(ConnectionClosed) as closed:
        await alice.recv()
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1009


async def test_illegal_moves_are_refused_and_the_game_goes_on(connect: Connect) -> None:
    """Out of turn, occupied, off board, not seated: clear codes and an intact game."""
    alice, bob, room = await seated_pair(connect)
    await bob.move(room, "h8")
    await bob.expect_error("not_your_turn")
    await alice.move(room, "h8")
    await alice.event(Moved, room)
    await bob.event(Moved, room)
    await bob.move(room, "h8")
    error = await bob.expect_error("occupied")
    assert error.room == room
    await bob.move(room, "p16")
    error = await bob.expect_error("off_board")
    assert "off" in error.message
    await bob.move(room, "z9")
    await bob.expect_error("off_board")
    mallory = await connect("mallory")
    await mallory.move(room, "a1")
    await mallory.expect_error("not_in_room")
    await mallory.send(m.Move(room="r-nonexistent", point="a1"))
    await mallory.expect_error("no_such_room")
    await bob.send(m.Choose(room=room, choice="black"))
    await bob.expect_error("wrong_phase")
    await assert_still_playable(alice, bob, room, ["h8"])


async def test_someone_elses_identity_cannot_be_used(connect: Connect) -> None:
    """Moves act as the connection's own player: naming another player or a forged
    token does not let anyone move for them."""
    alice, bob, room = await seated_pair(connect)
    mallory = await connect()
    await mallory.send(m.Hello(name="mallory", token=alice.token[:-2] + "xx"))
    await mallory.expect_error("bad_token")
    await mallory.hello("mallory")
    forged: dict[str, Any] = {"type": "move", "room": room, "point": "h8", "player": alice.player}
    await mallory.send_raw(msgspec.msgpack.encode(forged))
    await mallory.expect_error("not_in_room")
    await alice.silent()
    await assert_still_playable(alice, bob, room, [])


async def test_chat_flood_is_limited(connect: Connect) -> None:
    """More than 5 chat lines in 10 s are refused with chat_rate_limited."""
    alice, _bob, room = await seated_pair(connect)
    for i in range(5):
        await alice.send(m.Chat(room=room, text=f"line {i}"))
    await alice.events(5)
    await alice.send(m.Chat(room=room, text="one too many"))
    await alice.expect_error("chat_rate_limited")
    await alice.move(room, "h8")  # other messages still go through
    await alice.event(Moved, room)


async def test_message_flood_rate_limited_then_closed(
    make_server: MakeServer, connect: Connect
) -> None:
    """Beyond the token bucket messages are refused, naming the dropped request; a
    sustained flood closes with 1008."""
    limits = ConnectionLimits(
        rate_per_s=5, rate_burst=5, flood_strikes=10, ping_interval_s=None, ping_timeout_s=None
    )
    server = await make_server(limits=limits)
    alice = await connect(to=server)
    await alice.hello("alice")  # takes one token
    for _ in range(4):
        await alice.send(m.LobbyWatch(on=False))  # accepted silently
    await alice.send(m.LobbyWatch(on=False, id=77))
    refused = await alice.expect_error("rate_limited")
    assert refused.re == 77  # the sender knows which message to send again
    await asyncio.sleep(0.5)  # the bucket refills
    await alice.send(m.LobbyWatch(on=True))
    await alice.expect(m.Lobby)
    for _ in range(30):
        await alice.send(m.LobbyWatch(on=False))

    async def drain() -> None:
        while True:
            await alice.expect_error("rate_limited")

    with pytest.raises(ConnectionClosed) as closed:
        await drain()
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1008


async def test_idle_half_open_connection_is_closed_by_keepalive(make_server: MakeServer) -> None:
    """A peer that never answers pings is disconnected after the ping timeout."""
    limits = ConnectionLimits(ping_interval_s=0.1, ping_timeout_s=0.1)
    server = await make_server(limits=limits)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        (
            "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101")
    assert len(server.connections) == 1
    # Never read or answer: the server's ping goes unanswered.
    async with asyncio.timeout(5):
        while await reader.read(1024):
            pass
    writer.close()
    for _ in range(50):
        if not server.connections:
            break
        await asyncio.sleep(0.02)
    assert not server.connections


async def test_internal_error_is_reported_counted_and_survived(
    connect: Connect, server: GomokuServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in one handler answers `internal`, bumps errors_internal, and nothing else breaks."""

    async def broken(session: Session, msg: m.Chat) -> None:
        raise RuntimeError("boom")

    monkeypatch.setitem(handlers.HANDLERS, m.Chat, broken)
    alice, bob, room = await seated_pair(connect)
    await alice.send(m.Chat(room=room, text="hi", id=9))
    error = await alice.expect_error("internal")
    assert error.re == 9
    assert server.metrics.counters["gomoku_errors_internal_total"] == 1
    assert "gomoku_errors_internal_total 1" in server.metrics.render()
    await alice.move(room, "h8")
    await bob.event(Moved, room)
