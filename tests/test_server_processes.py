"""Real `gomoku-server` processes on one Redis: players on different processes play one
game, and a process killed with SIGKILL mid-game loses no acknowledged move."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from redis_fixtures import free_port
from server_fixtures import TestClient
from websockets.asyncio.client import connect as ws_connect

from protocol import messages as m
from protocol.events import ChatPosted, GameOver, GameStarted, Moved, PlayerJoined, Presence

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT_S = 20.0


class ServerProcess:
    """`python -m server` on a fixed port, told the Redis URL by ``--redis`` or (with
    ``via_env``) by GOMOKU_REDIS_URL; started and stopped by the test."""

    def __init__(
        self,
        redis_url: str,
        log: Path,
        *,
        via_env: bool = False,
        loop: str = "auto",
        extra: Sequence[str] = (),
    ) -> None:
        self.redis_url = redis_url
        self.via_env = via_env
        self.loop = loop
        self.extra = list(extra)
        self.port = free_port()
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [sys.executable, "-m", "server", "--host", "127.0.0.1"]
        command += ["--port", str(self.port), "--log-level", "WARNING", "--bots", "0"]
        command += ["--drain", "0"]  # stopped with players connected: no pause
        command += ["--loop", self.loop, *self.extra]
        env = {k: v for k, v in os.environ.items() if k != "GOMOKU_REDIS_URL"}
        if self.via_env:
            env["GOMOKU_REDIS_URL"] = self.redis_url
        else:
            command += ["--redis", self.redis_url]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"server exited: {self.log.read_text()[-2000:]}")
            try:
                url = f"http://127.0.0.1:{self.port}/healthz"
                with urllib.request.urlopen(url, timeout=1) as reply:
                    if reply.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                time.sleep(0.05)
        raise AssertionError(f"server did not become healthy: {self.log.read_text()[-2000:]}")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.send_signal(sig)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextlib.contextmanager
def running(*processes: ServerProcess) -> Iterator[list[ServerProcess]]:
    """Start the processes; stop every one of them on the way out, whatever happened."""
    try:
        for process in processes:
            process.start()
        yield list(processes)
    finally:
        for process in processes:
            process.stop()


@pytest.fixture
def processes(redis_url: str, tmp_path: Path) -> Iterator[list[ServerProcess]]:
    """Two server processes sharing the test's Redis (one told by --redis and running on
    uvloop, one by GOMOKU_REDIS_URL on asyncio's own loop); both stopped at teardown."""
    with running(
        ServerProcess(redis_url, tmp_path / "server-0.log", loop="uvloop"),
        ServerProcess(redis_url, tmp_path / "server-1.log", via_env=True, loop="asyncio"),
    ) as started:
        yield started


async def _client(opened: list[TestClient], server: ServerProcess) -> TestClient:
    ws = await ws_connect(f"ws://127.0.0.1:{server.port}/", compression=None)
    client = TestClient(ws)
    opened.append(client)
    return client


async def _moved(client: TestClient, room: str) -> tuple[int, str]:
    message = await client.until(lambda x: isinstance(x, m.Event) and isinstance(x.event, Moved))
    assert isinstance(message, m.Event)
    assert message.room == room
    assert isinstance(message.event, Moved)
    return message.seq, message.event.point


async def _seat_pair(
    opened: list[TestClient], black_on: ServerProcess, white_on: ServerProcess, n: int
) -> tuple[TestClient, TestClient, str]:
    black = await _client(opened, black_on)
    await black.hello(f"black{n}")
    white = await _client(opened, white_on)
    await white.hello(f"white{n}")
    room = (await black.create(seat="black")).room.id
    await white.join(room)
    await black.event(PlayerJoined, room)
    await black.event(GameStarted, room)
    return black, white, room


async def test_players_on_two_processes_play_with_spectators_on_both(
    processes: list[ServerProcess], clients: list[TestClient]
) -> None:
    """Black on process A, White on process B; spectators on A and B see every move in order."""
    a, b = processes
    black, white, room = await _seat_pair(clients, a, b, 0)
    watchers = [await _client(clients, a), await _client(clients, b)]
    for i, watcher in enumerate(watchers):
        await watcher.hello(f"watcher{i}")
        await watcher.join(room, "spectator")
    moves = ["h8", "a1", "h9", "a2", "h10", "a3", "h11", "a4", "h12"]
    seen: list[list[tuple[int, str]]] = [[], [], [], []]
    for i, point in enumerate(moves):
        await (black if i % 2 == 0 else white).move(room, point)
        for log, client in zip(seen, [black, white, *watchers], strict=True):
            log.append(await _moved(client, room))
    assert all(log == seen[0] for log in seen)
    assert [point for _, point in seen[0]] == moves
    for client in [black, white, *watchers]:
        over = await client.until_event(GameOver)
        assert (over.winner, over.reason) == ("black", "five")


async def test_sigkill_mid_game_loses_no_acknowledged_move(
    processes: list[ServerProcess], clients: list[TestClient]
) -> None:
    """Three games run on process A; A is killed with SIGKILL and started again. Every player
    resumes with their token, misses no event, and every game is finished normally."""
    a, _ = processes
    games = [await _seat_pair(clients, a, a, n) for n in range(3)]
    opening = ["h8", "a1", "h9", "a2"]
    last_seq: dict[str, int] = {}
    for black, white, room in games:
        for i, point in enumerate(opening):
            await (black if i % 2 == 0 else white).move(room, point)
            for client in (black, white):
                seq, moved = await _moved(client, room)
                assert moved == point
                last_seq[client.player] = seq

    a.stop(signal.SIGKILL)
    await asyncio.to_thread(a.start)

    resumed = []
    for black, white, room in games:
        pair = []
        for old in (black, white):
            new = await _client(clients, a)
            welcome = await new.hello(old.welcome.name if old.welcome else "x", token=old.token)
            assert (welcome.player, welcome.resumed, welcome.rooms) == (old.player, True, [room])
            await new.send(m.Resume(room=room, after=last_seq[old.player]))
            pair.append(new)
        resumed.append((pair[0], pair[1], room))

    for black, white, room in resumed:
        for i, point in enumerate(["h10", "a3", "h11", "a4", "h12"]):
            await (black if i % 2 == 0 else white).move(room, point)
            for client in (black, white):
                assert (await _moved(client, room))[1] == point
        for client in (black, white):
            over = await client.until_event(GameOver)
            assert (over.winner, over.reason) == ("black", "five")
        watcher = await _client(clients, a)
        await watcher.hello("auditor")
        snap = await watcher.join(room, "spectator")
        assert snap.room.moves == ["h8", "a1", "h9", "a2", "h10", "a3", "h11", "a4", "h12"]


async def test_a_killed_instance_keeps_nobody_online(
    redis_url: str, tmp_path: Path, clients: list[TestClient]
) -> None:
    """Process A is killed with SIGKILL: its connections never detach, but its lease runs
    out (1 s here) and B reaps it. Bob, whose only connection was on A, goes offline in
    Alice's room (on B); Eve, who also has a connection on B, stays online in Dan's."""
    lease = ["--instance-lease", "1"]
    with running(
        ServerProcess(redis_url, tmp_path / "a.log", extra=lease),
        ServerProcess(redis_url, tmp_path / "b.log", via_env=True, extra=lease),
    ) as (a, b):
        alice, bob, _ = await _seat_pair(clients, b, a, 1)
        dan, eve, other = await _seat_pair(clients, b, a, 2)
        eve_on_b = await _client(clients, b)
        await eve_on_b.hello("white2", token=eve.token)
        await eve_on_b.send(m.Resume(room=other, after=0))
        a.stop(signal.SIGKILL)

        offline = await alice.until_event(Presence)
        assert (offline.player, offline.online) == (bob.player, False)
        await dan.send(m.Chat(room=other, text="still there?"))
        message = await dan.until(
            lambda x: isinstance(x, m.Event) and isinstance(x.event, (ChatPosted, Presence))
        )
        assert isinstance(message, m.Event)
        assert isinstance(message.event, ChatPosted), message  # no presence change for Eve
        await dan.silent(0.3)
