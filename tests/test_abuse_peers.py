"""Peers that never answer or stop reading are dropped without holding up anyone, a
shutdown included; a bug in a handler is reported, counted and survived.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
from typing import Any

import pytest
from abuse_fixtures import MakeServer, client_frame, limits, raw_handshake, wait_for
from server_fixtures import Connect, TestClient, make_config, seated_pair
from websockets.asyncio.client import connect as ws_connect

from protocol import messages as m
from protocol.codec import encode
from protocol.events import ChatPosted, Moved
from server import handlers
from server.app import GomokuServer
from server.config import ConnectionLimits
from server.handlers import Session

# --- peers that never answer or stop reading -------------------------------------------------


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


async def long_room(alice: TestClient, lines: int) -> str:
    """A room whose event log holds ``lines`` chat lines of 300 characters."""
    room = (await alice.create()).room.id
    for i in range(lines):
        await alice.send(m.Chat(room=room, text=f"{i:04d}" + "x" * 296))
    for _ in range(lines):
        await alice.until_event(ChatPosted)
    return room


@pytest.mark.parametrize("by", ["send_buffer", "send_timeout"])
async def test_a_reader_that_stops_reading_is_dropped(
    make_server: MakeServer, connect: Connect, by: str
) -> None:
    """A client that asks for lots of data and reads none is dropped, either when its
    unread frames pass the send buffer or when they make no progress for the send
    timeout; its buffers are freed and everyone else carries on."""
    fields: dict[str, Any] = {
        "rate_per_s": 1000,
        "rate_burst": 1000,
        "chat_per_window": 1000,
        "close_timeout_s": 0.5,
    }
    if by == "send_buffer":
        fields |= {"send_buffer": 64 * 1024, "send_timeout_s": 60.0}
    else:
        fields |= {"send_buffer": 64 << 20, "send_timeout_s": 0.5}
    server = await make_server(limits=limits(**fields))
    alice = await connect("alice", to=server)
    room = await long_room(alice, 150)  # about 55 KB of events
    _, writer = await raw_handshake(server.port, rcvbuf=4096)
    writer.write(client_frame(encode(m.Hello(name="sloth"))))
    for _ in range(120):  # ask for the whole log 120 times (about 6.5 MB) and read nothing
        writer.write(client_frame(encode(m.Resume(room=room, after=0))))
    await writer.drain()
    counter = "gomoku_slow_readers_dropped_total"
    await wait_for(lambda: server.metrics.counters[counter] == 1, 30)
    await wait_for(lambda: len(server.connections) == 1, 10)  # aborted after close_timeout
    await alice.send(m.Chat(room=room, text="still here"))
    assert (await alice.until_event(ChatPosted)).text == "still here"
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()


async def test_shutdown_is_not_held_up_by_a_peer_that_reads_nothing() -> None:
    """Stopping the server finishes within its close timeout even when a peer's
    buffers are full and its close frame can never be delivered."""
    config = make_config(
        limits=limits(
            rate_per_s=1000,
            rate_burst=1000,
            chat_per_window=1000,
            close_timeout_s=0.5,
            send_buffer=64 << 20,
            send_timeout_s=600.0,
        )
    )
    server = GomokuServer(config)
    await server.start()
    stopped = False
    try:
        ws = await ws_connect(f"ws://127.0.0.1:{server.port}/", compression=None)
        alice = TestClient(ws)
        await alice.hello("alice")
        room = await long_room(alice, 150)
        _, writer = await raw_handshake(server.port, rcvbuf=4096)
        writer.write(client_frame(encode(m.Hello(name="sloth"))))
        for _ in range(120):
            writer.write(client_frame(encode(m.Resume(room=room, after=0))))
        await writer.drain()

        def stuck() -> bool:
            return any(c.waiting_bytes() > 1 << 20 for c in server.connections)

        await wait_for(stuck)
        await asyncio.wait_for(server.stop(), 5)
        stopped = True
        assert not server.connections
        await ws.close()
        writer.close()
    finally:
        if not stopped:
            await server.stop()


# --- a bug in a handler ----------------------------------------------------------------------


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
