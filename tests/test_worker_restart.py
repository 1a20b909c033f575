"""AI seats across a server restart with the Redis store: the server learns its AI
seats in play from the store, so a seat whose worker died while the server was down
is handed to another worker, a seat whose game ended meanwhile is released, and a
seat played through another server instance is left to it."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import shutil
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from redis_fixtures import free_port
from server_fixtures import TestClient
from websockets.asyncio.client import connect as ws_connect
from worker_fixtures import (
    BOT_KEY,
    FAST_BOTS,
    Person,
    StartWorker,
    ai_config,
    eventually,
    worker_process,
)

from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.events import GameOver, GameStarted, PlayerJoined
from server.app import GomokuServer
from server.store.redis import RedisStore

MakeServer = Callable[..., Awaitable[GomokuServer]]
LEASE_S = FAST_BOTS.lease_ms / 1000


@pytest.fixture
async def ai_server(make_server: MakeServer) -> GomokuServer:
    """Unused here (these tests make their own servers on Redis); kept in memory, so it
    is not one more instance on their Redis."""
    return await make_server(ai_config())


@contextlib.asynccontextmanager
async def person_on(port: int, name: str, token: str | None = None) -> AsyncIterator[TestClient]:
    """A person's connection to the server on ``port`` (said hello; closed at the end)."""
    ws = await ws_connect(f"ws://127.0.0.1:{port}/", compression=None, max_size=1 << 20)
    client = TestClient(ws)
    try:
        await client.hello(name, token=token)
        yield client
    finally:
        await ws.close()


async def seat_ai(client: TestClient, *, wait_s: float = 0.0) -> Person:
    """A room without a clock where ``client`` plays White against a novice AI (asking
    again for up to ``wait_s`` while no worker is there yet)."""
    snapshot = await client.create(seat="white")
    person = Person(client, snapshot.room.id, snapshot.room.rule)
    person.follow(snapshot)
    deadline = time.monotonic() + wait_s
    while True:
        await client.send(m.SeatAi(room=person.room, level="novice"))
        reply = await client.recv()
        if not (isinstance(reply, m.Error) and reply.code == ErrorCode.NO_AI_AVAILABLE):
            break
        assert time.monotonic() < deadline, reply
        await asyncio.sleep(0.1)
    assert isinstance(reply, m.Event), reply
    assert isinstance(reply.event, PlayerJoined), reply
    await client.event(GameStarted, person.room)
    return person


async def play_on_after_restart(port: int, token: str, room: str) -> Person:
    """Ann comes back with her token and plays the game to its end, which the AI, handed
    over, wins with five."""
    async with person_on(port, "ann", token=token) as client:
        again = Person(client, room)
        again.follow(await client.join(room))
        await again.play()
    assert again.over is not None
    assert (again.over.winner, again.over.reason) == ("black", "five")
    return again


async def recorded_seats(redis_url: str) -> dict[str, bytes]:
    """The AI seats the store holds as in play (read through a store of our own)."""
    store = RedisStore(redis_url)
    await store.start()
    try:
        return await store.ai_seats()
    finally:
        await store.close()


async def test_a_seat_whose_worker_died_during_a_restart_goes_to_another_worker(
    make_server: MakeServer, start_worker: StartWorker, redis_url: str
) -> None:
    """The server stops, its worker process is killed meanwhile, the server comes back
    on the same Redis and a new worker connects: after one lease (the time a worker has
    to come back) the AI seat is handed to it, the game is played to the end, and the
    released seat is forgotten."""
    first = await make_server(ai_config(), store=RedisStore(redis_url))
    port = first.port
    doomed = await worker_process(first, "--seats", "1", "--processes", "1")
    try:
        async with person_on(port, "ann") as client:
            person = await seat_ai(client)
            await person.play(until=lambda p: len(p.moves) >= 4)  # AI, us, AI, us
            token = client.token
            await first.stop()
        doomed.kill()  # dies while no server runs: its seat never says hello again
        await doomed.wait()
    finally:
        with contextlib.suppress(ProcessLookupError):
            doomed.kill()
        await doomed.wait()
    assert len(await recorded_seats(redis_url)) == 1

    restarting = time.monotonic()
    second = await make_server(ai_config(port=port), store=RedisStore(redis_url))
    heir = await start_worker(to=second)
    handovers = second.metrics.counters
    await eventually(lambda: handovers["gomoku_ai_handovers_total"] == 1, 3 * LEASE_S + 5)
    assert time.monotonic() - restarting >= LEASE_S  # the lost worker had its lease
    again = await play_on_after_restart(port, token, person.room)
    assert heir.stats.moves >= 1
    assert heir.stats.refused == 0
    again.replay()
    for _ in range(100):  # the heir leaves the finished game: the seat is released
        if not await recorded_seats(redis_url):
            break
        await asyncio.sleep(0.05)
    assert await recorded_seats(redis_url) == {}


async def test_a_seat_whose_game_ends_before_its_lease_is_over_is_released(
    make_server: MakeServer, start_worker: StartWorker, redis_url: str
) -> None:
    """After a restart whose worker never returns, the person resigns before the lease
    is over: the seat is then released and forgotten, not handed to a new worker."""
    first = await make_server(ai_config(), store=RedisStore(redis_url))
    port = first.port
    worker = await start_worker(to=first)
    async with person_on(port, "ann") as client:
        person = await seat_ai(client)
        await person.play(until=lambda p: len(p.moves) >= 2)
        token = client.token
        await first.stop()
    await worker.stop()  # while no server runs: its seat never says hello again
    assert len(await recorded_seats(redis_url)) == 1
    slow = ai_config(port=port, bots=dataclasses.replace(FAST_BOTS, lease_ms=2_000))
    second = await make_server(slow, store=RedisStore(redis_url))
    await start_worker(to=second)
    async with person_on(port, "ann", token=token) as client:
        await client.join(person.room)
        await client.send(m.Resign(room=person.room))
        await client.until_event(GameOver)
    for _ in range(int(6 / 0.05)):
        if not await recorded_seats(redis_url):
            break
        await asyncio.sleep(0.05)
    assert await recorded_seats(redis_url) == {}
    assert second.metrics.counters["gomoku_ai_handovers_total"] == 0


async def test_a_new_instance_leaves_a_seat_played_through_another_alone(
    make_server: MakeServer, start_worker: StartWorker, redis_url: str
) -> None:
    """A second server instance starts on the same Redis while an AI seat plays through
    the first: it learns the seat, sees it online in its room and leaves it be."""
    first = await make_server(ai_config(), store=RedisStore(redis_url))
    worker = await start_worker(to=first)
    async with person_on(first.port, "ann") as client:
        person = await seat_ai(client)
        await person.play(until=lambda p: len(p.moves) >= 2)
        second = await make_server(ai_config(), store=RedisStore(redis_url))
        await asyncio.sleep(3 * LEASE_S)  # its lease for the seat comes and goes
        await person.play()
    assert person.over is not None
    assert person.over.reason == "five"
    for instance in (first, second):
        assert instance.metrics.counters["gomoku_ai_handovers_total"] == 0
    assert worker.stats.refused == 0
    assert worker.stats.reconnects == 0


async def test_a_seat_of_a_killed_server_goes_to_another_worker(
    make_server: MakeServer, start_worker: StartWorker, redis_url: str, tmp_path: Path
) -> None:
    """A ``gomoku-server`` process is killed (SIGKILL: its rooms still show the AI seat
    online) and its worker dies too; the server comes back after a while on the same
    Redis: the AI seat is handed to a new worker and the game is played to the end."""
    port = free_port()
    script = shutil.which("gomoku-server", path=str(Path(sys.executable).parent))
    assert script is not None, "gomoku-server is not installed in this environment"
    command = [script, "--host", "127.0.0.1", "--port", str(port), "--redis", redis_url]
    command += ["--bots", "0", "--bot-key", BOT_KEY, "--log-level", "WARNING"]
    with (tmp_path / "server.log").open("wb") as log:
        killed = await asyncio.create_subprocess_exec(
            *command, stdout=asyncio.subprocess.PIPE, stderr=log
        )
    url = f"ws://127.0.0.1:{port}"
    doomed = None
    try:
        assert killed.stdout is not None
        async with asyncio.timeout(20):
            while b"listening on port" not in await killed.stdout.readline():
                assert killed.returncode is None, (tmp_path / "server.log").read_text()
        doomed = await asyncio.create_subprocess_exec(
            sys.executable,
            *("-m", "worker", "--server", url, "--seats", "1", "--processes", "1"),
            *("--log-level", "WARNING"),
            env={**os.environ, "GOMOKU_BOT_KEY": BOT_KEY},
            stdin=asyncio.subprocess.DEVNULL,
        )
        async with person_on(port, "ann") as client:
            person = await seat_ai(client, wait_s=30)
            await person.play(until=lambda p: len(p.moves) >= 4)
            token = client.token
            killed.kill()
            doomed.kill()
            await killed.wait()
            await doomed.wait()
    finally:
        for process in (killed, doomed):
            if process is not None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
    await asyncio.sleep(2.5)  # longer than an outage takes to count (2 s)
    second = await make_server(ai_config(port=port), store=RedisStore(redis_url))
    await start_worker(to=second)
    handovers = second.metrics.counters
    await eventually(lambda: handovers["gomoku_ai_handovers_total"] == 1, 3 * LEASE_S + 5)
    again = await play_on_after_restart(port, token, person.room)
    again.replay()
