"""Helpers of the bad-input and abuse suites (tests/test_abuse_*.py): connection limits
with the keepalive off, waiting for the server's state, a refused handshake's status, a
close code, and a WebSocket opened by hand (a raw socket whose reading the test controls)."""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import struct
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from server_fixtures import TestClient
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from server.app import GomokuServer
from server.config import ConnectionLimits

MakeServer = Callable[..., Awaitable[GomokuServer]]


QUIET = {"ping_interval_s": None, "ping_timeout_s": None}


def limits(**fields: Any) -> ConnectionLimits:
    return ConnectionLimits(**{**QUIET, **fields})


async def wait_for(predicate: Callable[[], bool], seconds: float = 10.0) -> None:
    """Poll until ``predicate`` holds (server-side state changes asynchronously)."""
    for _ in range(int(seconds / 0.02)):
        if predicate():
            return
        await asyncio.sleep(0.02)
    assert predicate(), "timed out waiting for the server"


async def refused_status(port: int, **kwargs: Any) -> int | None:
    """The HTTP status that refused a WebSocket handshake, or None if it was accepted."""
    try:
        ws = await ws_connect(f"ws://127.0.0.1:{port}/", compression=None, **kwargs)
    except InvalidStatus as exc:
        return exc.response.status_code
    await ws.close()
    return None


async def close_code(client: TestClient) -> int:
    """Read until the server closes the connection; its close code."""

    async def read_until_closed() -> None:
        while True:
            await client.recv()

    with pytest.raises(ConnectionClosed) as closed:
        await read_until_closed()
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code


async def raw_handshake(
    port: int, *, rcvbuf: int | None = None
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A WebSocket opened by hand, so the test controls (and can stop) its reading."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    reader, writer = await asyncio.open_connection(sock=sock)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        (
            "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101")
    return reader, writer


def client_frame(payload: bytes, *, first: int = 0x82) -> bytes:
    """One masked frame, as a client must send it: by default a whole binary message;
    ``first`` is the frame's first byte (FIN, reserved bits, opcode; RFC 6455, 5.2)."""
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    if len(payload) < 126:
        head = bytes([first, 0x80 | len(payload)])
    else:
        head = bytes([first, 0x80 | 126]) + struct.pack("!H", len(payload))
    return head + mask + body
