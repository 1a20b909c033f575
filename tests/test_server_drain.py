"""Stopping a real ``gomoku-server`` process: the drain (``--drain``). With players
connected, SIGTERM first makes ``/healthz`` answer 503 while everything else is served
as usual, so a load balancer takes the server out of rotation; then connections close
with 1001 and the process exits 0. A second signal ends the drain at once; with nobody
connected there is no drain. (Through a real load balancer: tests/test_balancer.py.)"""

from __future__ import annotations

import asyncio
import re
import signal
import time
import urllib.error
import urllib.request
from pathlib import Path

from live_server import LiveServer, start, stop
from server_fixtures import TestClient
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from protocol.events import GameStarted, Moved, PlayerJoined

EXIT_WITHIN_S = 30.0
"""Far beyond any drain these tests do not ask for: waiting longer means it hangs."""


def healthz(server: LiveServer, path: str = "/healthz") -> tuple[int, str]:
    """/healthz's status and body, or another path's (blocking)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}", timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def wait_draining(server: LiveServer) -> None:
    """Wait until /healthz says the server drains (blocking)."""
    while healthz(server) != (503, "draining\n"):
        assert server.process.poll() is None, server.log_text()
        time.sleep(0.02)


async def until_draining(server: LiveServer) -> None:
    await asyncio.wait_for(asyncio.to_thread(wait_draining, server), EXIT_WITHIN_S)


async def closed_with(client: TestClient) -> int | None:
    """Read until the server closes the connection: its close code (None: no close frame)."""
    try:
        while True:
            await client.ws.recv()
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else None


async def player(server: LiveServer, name: str, clients: list[TestClient]) -> TestClient:
    client = TestClient(await ws_connect(server.url, compression=None))
    clients.append(client)
    await client.hello(name)
    return client


async def test_sigterm_drains_then_closes_with_1001(
    tmp_path: Path, clients: list[TestClient]
) -> None:
    """During the drain /healthz answers 503 ``draining`` while the game goes on (a move
    is played and seen by both), and /livez 200 (a liveness probe restarted a draining
    instance); then both players are closed with 1001, exit 0."""
    server = start(["--drain", "2"], tmp_path / "server.log")
    try:
        alice = await player(server, "alice", clients)
        bob = await player(server, "bob", clients)
        room = (await alice.create(seat="black")).room.id
        await bob.join(room)
        await alice.event(PlayerJoined)
        await alice.event(GameStarted)
        server.process.send_signal(signal.SIGTERM)
        await until_draining(server)
        assert await asyncio.to_thread(healthz, server, "/livez") == (200, "alive\n")
        # Named while there is still time to think again (it came after the drain).
        assert (
            "1 game in progress will end with this stop, unrated and unrecorded (games "
            f"being played live in this process only, with this store): {room} (alice vs "
            "bob, 0 moves)"
        ) in server.log_text()
        await alice.move(room, "h8")
        assert (await alice.event(Moved)).point == "h8"
        assert (await bob.event(Moved)).point == "h8"
        assert await closed_with(alice) == 1001
        assert await closed_with(bob) == 1001
        assert await asyncio.to_thread(server.process.wait, EXIT_WITHIN_S) == 0
        assert "draining: /healthz answers 503 for 2 s" in server.log_text()
    finally:
        stop(server.process)


async def test_a_second_signal_ends_the_drain(tmp_path: Path, clients: list[TestClient]) -> None:
    """An hour's drain, cut short by a second signal (SIGINT, as a second Ctrl-C)."""
    server = start(["--drain", "3600"], tmp_path / "server.log")
    try:
        alice = await player(server, "alice", clients)
        server.process.send_signal(signal.SIGTERM)
        await until_draining(server)
        server.process.send_signal(signal.SIGINT)
        assert await asyncio.wait_for(closed_with(alice), EXIT_WITHIN_S) == 1001
        assert await asyncio.to_thread(server.process.wait, EXIT_WITHIN_S) == 0
        assert "SIGINT: stopping now" in server.log_text()
    finally:
        stop(server.process)


async def test_no_drain_without_players(tmp_path: Path) -> None:
    """Nobody to move: SIGTERM stops the server without the hour's drain."""
    server = start(["--drain", "3600"], tmp_path / "server.log")
    try:
        server.process.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(server.process.wait, EXIT_WITHIN_S) == 0
        assert "draining" not in server.log_text()
    finally:
        stop(server.process)


async def test_sighup_stops_as_sigterm_does_unless_ignored(
    tmp_path: Path, clients: list[TestClient]
) -> None:
    """SIGHUP (a terminal or SSH link closing, a log rotation's habit) stops the server
    as SIGTERM does: its players closed with 1001, exit 0 (it ended the process at once,
    status 129, its games unlogged). Started ignoring it (``nohup``), it runs on."""
    server = start([], tmp_path / "server.log")
    try:
        alice = await player(server, "alice", clients)
        server.process.send_signal(signal.SIGHUP)
        assert await asyncio.wait_for(closed_with(alice), EXIT_WITHIN_S) == 1001
        assert await asyncio.to_thread(server.process.wait, EXIT_WITHIN_S) == 0
    finally:
        stop(server.process)
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as nohup starts it
    try:
        nohup = start([], tmp_path / "nohup.log")
    finally:
        signal.signal(signal.SIGHUP, before)
    try:
        bob = await player(nohup, "bob", clients)
        nohup.process.send_signal(signal.SIGHUP)
        await asyncio.sleep(1)
        assert nohup.process.poll() is None
        await bob.create(seat="black")  # still serving
    finally:
        stop(nohup.process)


async def test_the_log_says_when_the_server_started_with_the_time_zone(tmp_path: Path) -> None:
    """The log has a line for the start (version and port), and every line's time says
    its zone: the log held no start at all (the banner goes to standard output, without
    a time), and a time without a zone read wrong on another machine."""
    server = start([], tmp_path / "server.log")
    try:
        server.process.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(server.process.wait, EXIT_WITHIN_S) == 0
    finally:
        stop(server.process)
    lines = server.log_text().splitlines()
    stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}[+-]\d{4} INFO "
    assert re.fullmatch(
        stamp + rf"started: gomoku-server \S+, instance \w+, listening on 127.0.0.1:{server.port}$",
        lines[0],
    )
    assert all(re.match(stamp, line) for line in lines), lines
