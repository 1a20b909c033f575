"""AI workers when things go wrong: a worker killed mid-game, a network drop, a
silent worker, a server restart, an external brain that crashes; and the
worker the server starts by itself."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import msgspec
import pytest
from server_fixtures import Connect, TestClient
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed
from worker_fixtures import (
    BOT_KEY,
    FAST_BOTS,
    Person,
    StartWorker,
    ai_config,
    eventually,
    worker_config,
    worker_process,
)

from protocol import messages as m
from protocol.backoff import Backoff
from protocol.events import ChatPosted, GameOver, GameStarted, Moved, PlayerJoined
from protocol.values import TimeControl
from server.app import GomokuServer
from server.config import Bots
from server.store.redis import RedisStore
from worker.config import WorkerConfig
from worker.control import AiWorker
from worker.thinker import Thinker

MakeServer = Callable[..., Awaitable[GomokuServer]]


async def raw_client(server: GomokuServer) -> TestClient:
    """A bare connection to ``server`` (nothing said yet)."""
    ws = await ws_connect(f"ws://127.0.0.1:{server.port}/", compression=None)
    return TestClient(ws)


async def hand_made_worker(client: TestClient, token: str | None = None) -> m.Welcome:
    """``client`` says hello with the bot key (and ``token``) and offers one seat at
    level ``hand``: a worker written from protocol.md, played by the test."""
    await client.send(m.Hello(name="hand-made bot", bot_key=BOT_KEY, token=token, id=1))
    welcome = await client.expect(m.Welcome)
    await client.send(m.BotReady(seats=1, levels=["hand"], id=2))
    await client.expect(m.BotAccepted)
    return welcome


@contextlib.asynccontextmanager
async def beating_worker(server: GomokuServer) -> AsyncIterator[TestClient]:
    """A hand-made worker (:func:`hand_made_worker`) that sends its heartbeats until the
    block ends, so the server keeps it; closed at the end."""
    worker = await raw_client(server)
    await hand_made_worker(worker)

    async def beat() -> None:
        while True:
            await asyncio.sleep(FAST_BOTS.heartbeat_ms / 2000)
            await worker.send(m.BotHeartbeat())

    beating = asyncio.create_task(beat())
    try:
        yield worker
    finally:
        beating.cancel()
        await worker.ws.close()


async def ann_seats_the_hand_made_ai(
    person: TestClient, worker: TestClient
) -> tuple[str, m.BotSeat]:
    """``person`` says hello as ann, opens a room as Black and seats an AI of level
    ``hand``: the room, and the seat order ``worker`` gets for it."""
    await person.hello("ann")
    room = (await person.create(seat="black")).room.id
    await person.send(m.SeatAi(room=room, level="hand"))
    return room, await worker.expect(m.BotSeat)


def moved(point: str) -> Callable[[m.ServerMessage], bool]:
    """Whether a message is the event of a move at ``point``."""

    def match(x: m.ServerMessage) -> bool:
        return isinstance(x, m.Event) and isinstance(x.event, Moved) and x.event.point == point

    return match


async def ann_and_the_seat_move(person: TestClient, seat: TestClient, room: str) -> None:
    """ann plays h8, the AI seat's connection answers a1, and ann sees it."""
    await person.move(room, "h8")
    await seat.until_event(Moved)
    await seat.move(room, "a1")
    await person.until(
        lambda x: isinstance(x, m.Event) and isinstance(x.event, Moved) and x.event.point == "a1"
    )


async def seat_connection(server: GomokuServer, order: m.BotSeat) -> TestClient:
    """The connection a worker opens for the AI seat ``order`` gives it (said hello)."""
    seat = await raw_client(server)
    await seat.send(m.Hello(name=order.name, token=order.token, bot_key=BOT_KEY, id=1))
    await seat.expect(m.Welcome)
    return seat


@pytest.fixture
async def server(ai_server: GomokuServer) -> GomokuServer:
    """The ``connect`` fixture's server: the one that accepts the test bot key."""
    return ai_server


async def seat_ai(client: TestClient, level: str, **room: object) -> Person:
    snapshot = await client.create(seat="white", **room)
    person = Person(client, snapshot.room.id, snapshot.room.rule)
    person.follow(snapshot)
    await client.send(m.SeatAi(room=person.room, level=level))
    await client.event(PlayerJoined, person.room)
    await client.event(GameStarted, person.room)
    return person


async def test_a_killed_worker_hands_its_seat_to_another(
    connect: Connect, start_worker: StartWorker, ai_server: GomokuServer
) -> None:
    """SIGKILL the worker mid-game: after the lease another worker plays on to the end."""
    doomed = await worker_process(ai_server, "--seats", "2", "--processes", "1")
    try:
        client = await connect("ann")
        person = await seat_ai(client, "novice", time=TimeControl(base_ms=30_000))
        heir = await start_worker(seats=2)  # arrives after the seat was given out
        await person.play(until=lambda p: len(p.moves) >= 3)  # AI, us, AI: AI to answer us
        doomed.send_signal(signal.SIGKILL)
        await doomed.wait()
        await person.play()
    finally:
        with contextlib.suppress(ProcessLookupError):
            doomed.kill()
        await doomed.wait()
    assert person.over is not None
    assert (person.over.winner, person.over.reason) == ("black", "five")
    assert heir.stats.moves >= 1
    assert heir.stats.refused == 0
    assert ai_server.metrics.counters["gomoku_ai_handovers_total"] == 1
    person.replay()


async def test_worker_reconnects_after_a_network_drop(
    connect: Connect, start_worker: StartWorker, ai_server: GomokuServer
) -> None:
    """Every worker connection drops at once: it comes back as the same worker and plays on."""
    worker = await start_worker()
    first_id = worker.worker_id
    client = await connect("ann")
    person = await seat_ai(client, "novice")

    async def cut(_: Person) -> None:
        if worker.stats.reconnects == 0:
            for conn in list(ai_server.connections):
                if conn.identity is not None and conn.identity.bot:
                    conn.ws.transport.abort()  # no close handshake: the network is gone
            await asyncio.sleep(0.2)

    await person.play(before_move=cut)
    assert person.over is not None
    assert person.over.reason == "five"
    assert worker.stats.reconnects >= 2  # the worker's own connection and its seat's
    assert worker.worker_id == first_id
    assert ai_server.metrics.counters["gomoku_ai_handovers_total"] == 0


async def test_a_silent_worker_is_closed(connect: Connect, ai_server: GomokuServer) -> None:
    """A worker that stops sending heartbeats is disconnected (1008)."""
    silent = await connect()
    await silent.send(m.Hello(name="sleepy", bot_key=BOT_KEY, id=1))
    await silent.expect(m.Welcome)
    await silent.send(m.BotReady(seats=1, levels=["novice"], id=2))
    accepted = await silent.expect(m.BotAccepted)
    assert accepted.heartbeat_ms == FAST_BOTS.heartbeat_ms
    await asyncio.wait_for(silent.ws.wait_closed(), 4 * accepted.heartbeat_ms / 1000 + 2)
    assert silent.ws.close_code == 1008
    assert ai_server.bots.live_workers() == []


async def test_the_server_starts_its_own_worker(make_server: MakeServer, connect: Connect) -> None:
    """With ``bots`` set, the server runs a local worker process: an AI is there at once."""
    own = await make_server(ai_config(bots=Bots(embedded=1, embedded_seats=1)))
    await eventually(own.bots.live_workers, 30)
    client = await connect("ann", to=own)
    snapshot = await client.create(seat="white")
    await client.send(m.SeatAi(room=snapshot.room.id, level="novice"))
    first = await client.until_event(Moved)
    assert first.color == "black"


async def test_an_external_brain_plays_and_is_replaced_when_it_crashes(
    connect: Connect, start_worker: StartWorker, tmp_path: Path
) -> None:
    """A Gomocup brain seated with --brain plays; when it crashes it is reported and replaced."""
    brain = tmp_path / "tiny_brain.py"
    brain.write_text(TINY_BRAIN.replace("MARKER", str(tmp_path / "crashed")))
    worker = await start_worker(brain=f"{sys.executable} {brain}", move_time_s=1.0)
    client = await connect("ann")
    person = await seat_ai(client, "brain:tiny_brain")
    await person.play()
    assert person.over is not None
    assert person.over.winner == "black"
    reports = [e for _, e in person.events if isinstance(e, ChatPosted)]
    assert len(reports) == 1
    assert "failed" in reports[0].text
    assert worker.stats.brain_failures == 1
    assert (tmp_path / "crashed").exists()
    person.replay()


async def test_a_brain_that_fails_three_moves_in_a_row_resigns(
    connect: Connect, start_worker: StartWorker, tmp_path: Path
) -> None:
    """A brain that crashes at every move from some point on is replaced twice, with
    the built-in engine playing those moves; at the third failure in a row the AI
    resigns, and the room is told why, instead of the engine playing the whole game
    under the brain's name."""
    brain = tmp_path / "tiny_brain.py"
    brain.write_text(TINY_BRAIN)
    worker = await start_worker(brain=f"{sys.executable} {brain} late", move_time_s=1.0)
    client = await connect("ann")
    person = await seat_ai(client, "brain:tiny_brain")
    await person.play()
    assert person.over is not None
    assert (person.over.winner, person.over.reason) == ("white", "resign")
    reports = [e.text for _, e in person.events if isinstance(e, ChatPosted)]
    assert len(reports) == 3, reports
    assert all("a new one takes over" in text for text in reports[:2])
    assert "failed 3 moves in a row" in reports[2]
    assert "the AI resigns" in reports[2]
    assert worker.stats.brain_failures == 3
    person.replay()


async def test_a_brain_that_refuses_the_board_size_resigns_at_once(
    connect: Connect, start_worker: StartWorker, tmp_path: Path
) -> None:
    """A brain that answers START 19 with ERROR cannot play a 19x19 game: the AI
    resigns it before any move, saying why."""
    brain = tmp_path / "tiny_brain.py"
    brain.write_text(TINY_BRAIN)
    await start_worker(brain=f"{sys.executable} {brain} 15only", move_time_s=1.0)
    client = await connect("ann")
    person = await seat_ai(client, "brain:tiny_brain", size=19)
    await person.play()
    assert person.over is not None
    assert (person.over.winner, person.over.reason) == ("white", "resign")
    assert person.moves == []
    reports = [e.text for _, e in person.events if isinstance(e, ChatPosted)]
    assert len(reports) == 1, reports
    assert "cannot play this game" in reports[0]
    assert "ERROR no thanks" in reports[0]


def test_gomoku_ai_refuses_a_brain_that_does_not_start(tmp_path: Path) -> None:
    """``gomoku-ai --brain`` starts the brain once before it offers it: one that answers
    START with ERROR stops the worker with one line and status 2, before it connects."""
    brain = tmp_path / "tiny_brain.py"
    brain.write_text(TINY_BRAIN)
    done = subprocess.run(
        [sys.executable, "-m", "worker", "--server", "ws://127.0.0.1:9", "--bot-key", "k",
         "--brain", f"{sys.executable} {brain} nostart"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"gomoku-ai: the brain cannot play: {sys.executable} {brain} nostart "
        "answered 'ERROR no thanks' instead of OK"
    ]


async def test_a_worker_given_two_instances_goes_to_the_other_when_its_own_stops(
    make_server: MakeServer, start_worker: StartWorker, redis_url: str, connect: Connect
) -> None:
    """``--server A --server B``: A stops, and the worker (with its seats) carries on at
    B, where a player gets an AI (a worker tied to one instance left the whole cluster
    without AI until that instance came back)."""
    first = await make_server(ai_config(), store=RedisStore(redis_url))
    second = await make_server(ai_config(), store=RedisStore(redis_url))
    worker = await start_worker(to=first, also=(f"ws://127.0.0.1:{second.port}",))
    await first.stop()
    await eventually(second.bots.live_workers, 10)
    assert worker.url == f"ws://127.0.0.1:{second.port}"
    client = await connect("ann", to=second)
    person = await seat_ai(client, "novice")
    await person.play()
    assert person.over is not None
    assert person.over.reason == "five"


async def test_games_survive_a_server_restart_with_redis(
    make_server: MakeServer, start_worker: StartWorker, redis_url: str
) -> None:
    """The server restarts on the same port with its Redis store: worker and game go on."""
    first = await make_server(ai_config(), store=RedisStore(redis_url))
    port = first.port
    worker = await start_worker(to=first)
    ws = await ws_connect(f"ws://127.0.0.1:{port}/", compression=None, max_size=1 << 20)
    client = TestClient(ws)
    await client.hello("ann")
    person = await seat_ai(client, "novice")
    await person.play(until=lambda p: len(p.moves) >= 3)
    await first.stop()
    await ws.close()
    second = await make_server(ai_config(port=port), store=RedisStore(redis_url))
    await eventually(second.bots.live_workers)
    ws = await ws_connect(f"ws://127.0.0.1:{port}/", compression=None, max_size=1 << 20)
    client = TestClient(ws)
    try:
        await client.hello("ann", token=person.client.token)
        snapshot = await client.join(person.room)
        again = Person(client, person.room)
        again.follow(snapshot)
        await again.play()
    finally:
        await ws.close()
    assert again.over is not None
    assert again.over.reason == "five"
    assert worker.stats.reconnects >= 1
    assert second.metrics.counters["gomoku_ai_handovers_total"] == 0


async def test_a_seat_played_through_another_instance_is_not_taken_away(
    make_server: MakeServer, redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Two servers share Redis; a worker registered on one plays its seat through the
    other: nobody hands the seat over, and the game goes on across both. The other does
    not log that the worker "did not come back" to it (it never came: with
    ``--processes 2`` that line followed almost every AI game)."""
    caplog.set_level(logging.INFO, logger="gomoku.server")
    first = await make_server(ai_config(), store=RedisStore(redis_url))
    second = await make_server(ai_config(), store=RedisStore(redis_url))

    person, seat = await raw_client(first), await raw_client(second)
    async with beating_worker(first) as worker:
        await person.hello("ann")
        room = (await person.create(seat="white")).room.id
        await person.send(m.SeatAi(room=room, level="hand"))
        order = await worker.expect(m.BotSeat)
        await seat.send(m.Hello(name=order.name, token=order.token, bot_key=BOT_KEY, id=1))
        await seat.expect(m.Welcome)
        await seat.join(room)
        await seat.move(room, "h8")
        assert (await person.until_event(Moved)).point == "h8"
        await asyncio.sleep(3 * FAST_BOTS.lease_ms / 1000)  # leases come and go
        await person.move(room, "a1")
        assert (await person.until_event(Moved)).point == "a1"
        await seat.until_event(Moved)  # the seat sees a1
        await seat.move(room, "h9")
        assert (await person.until_event(Moved)).point == "h9"
        await worker.silent(0.1)  # no bot_release, no second bot_seat
    for client in (person, seat):
        await client.ws.close()
    for instance in (first, second):
        assert instance.metrics.counters["gomoku_ai_handovers_total"] == 0
    assert not [r for r in caplog.records if "did not come back" in r.getMessage()]


async def a_seat_that_left_its_game(
    server: GomokuServer, person: TestClient, worker: TestClient
) -> tuple[str, m.BotSeat, TestClient]:
    """Ann seats the hand-made AI, its seat's connection joins and both move once, then
    the seat's connection sends ``leave`` and stays open: the room, the seat order and
    the seat's connection."""
    room, order = await ann_seats_the_hand_made_ai(person, worker)
    seat = await seat_connection(server, order)
    await seat.join(room)
    await ann_and_the_seat_move(person, seat, room)
    await seat.send(m.Leave(room=room))
    await seat.until(lambda x: isinstance(x, m.Left))
    return room, order, seat


@pytest.fixture(params=["memory", "redis"])
async def long_lease_server(
    make_server: MakeServer, request: pytest.FixtureRequest
) -> GomokuServer:
    """``ai_server`` with a 2.5 s lease instead of 0.8 s: long enough for a test to open a
    seat's connection and join before the seat is handed over again, even on a loaded
    machine (a CI run took more than 0.8 s over it on Redis)."""
    config = ai_config(bots=dataclasses.replace(FAST_BOTS, lease_ms=2_500))
    if request.param == "redis":
        return await make_server(config, store=RedisStore(request.getfixturevalue("redis_url")))
    return await make_server(config)


async def test_a_seat_that_leaves_its_game_but_stays_connected_is_handed_over(
    long_lease_server: GomokuServer,
) -> None:
    """A worker's seat connection sends ``leave`` in its running game and stays open:
    the room showed it offline, but the server judged the seat by its open connection and
    never handed it over (the game waited for the player to claim it). After the lease
    the seat is released and given out again; the old connection is closed."""
    server = long_lease_server
    person = await raw_client(server)
    async with beating_worker(server) as worker:
        room, order, seat = await a_seat_that_left_its_game(server, person, worker)
        release = await worker.until(lambda x: isinstance(x, m.BotRelease))
        assert isinstance(release, m.BotRelease)
        assert release.player == order.player
        again = await worker.expect(m.BotSeat)
        assert (again.room, again.player) == (room, order.player)
        # At once, as a worker would: a seat given out is handed over again if it is not
        # back in its game within the lease.
        heir = await seat_connection(server, again)
        await heir.join(room)
        with pytest.raises(ConnectionClosed):
            await seat.recv(5)
        await person.move(room, "h9")
        assert (await heir.until_event(Moved)).point == "h9"
        await heir.move(room, "a2")
        await person.until(moved("a2"))
    await person.ws.close()


async def test_a_seat_that_leaves_and_comes_back_keeps_its_game(server: GomokuServer) -> None:
    """The seat's connection leaves its game and joins it again within the lease: it is
    not handed over, and plays on."""
    person = await raw_client(server)
    async with beating_worker(server) as worker:
        room, order, seat = await a_seat_that_left_its_game(server, person, worker)
        await seat.join(room)
        await asyncio.sleep(3 * FAST_BOTS.lease_ms / 1000)
        await worker.silent(0.1)  # no bot_release, no second bot_seat
        kept = server.bots.tracked(order.player)  # still this worker's, and played here
        assert kept is not None
        assert kept.away_since is None
        await person.move(room, "h9")
        assert (await seat.until_event(Moved)).point == "h9"
        await seat.move(room, "a2")
        await person.until(moved("a2"))
    await person.ws.close()


async def test_ai_versus_ai_on_a_short_clock_never_flags(
    connect: Connect, start_worker: StartWorker
) -> None:
    """Two strong AIs on a 3-second clock share their time out and finish without a flag."""
    worker = await start_worker(seats=2, move_time_s=2.0)
    watcher = await connect("cy")
    await watcher.send(
        m.CreateAiGame(black="master", white="master", time=TimeControl(base_ms=3_000))
    )
    view = (await watcher.expect(m.Snapshot)).room
    assert view.time == TimeControl(base_ms=3_000)
    lowest = 3_000
    while True:
        message = await watcher.recv(30)
        if isinstance(message, m.Event) and isinstance(message.event, Moved):
            clocks = message.event.clocks
            assert clocks is not None
            lowest = min(lowest, clocks.black_ms, clocks.white_ms)
        if isinstance(message, m.Event) and isinstance(message.event, GameOver):
            break
    assert message.event.reason != "timeout"
    assert lowest > 0
    assert worker.stats.moves > 10
    assert worker.stats.refused == 0


async def test_the_worker_command_refuses_a_wrong_bot_key(ai_server: GomokuServer) -> None:
    """``gomoku-ai`` with a key the server does not accept says so and exits with 2."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "worker",
        "--server",
        f"ws://127.0.0.1:{ai_server.port}",
        "--bot-key",
        "wrong",
        "--processes",
        "1",
        stderr=asyncio.subprocess.PIPE,
        stdin=asyncio.subprocess.DEVNULL,
    )
    _, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 2
    assert b"refused the bot key" in err


STOP_HANG_S = 30.0
"""Only a stop that waits for what it should cut short (a longer search, a longer wait
to reconnect) takes this long. How quick a stop is, bench/worker_stop.py measures."""


async def test_a_worker_process_told_to_stop_mid_search_exits_at_once(
    connect: Connect, ai_server: GomokuServer
) -> None:
    """SIGTERM reaches ``gomoku-ai`` while a search with a minute left runs: it exits
    with status 0 without waiting for the search to end (cut short, not waited for)."""
    process = await worker_process(
        ai_server, *("--seats", "2", "--processes", "1", "--move-time", "60", "--pace", "0")
    )
    try:
        watcher = await connect("cy")
        await watcher.send(m.CreateAiGame(black="master", white="master"))
        await watcher.expect(m.Snapshot)
        while not isinstance(message := await watcher.recv(30), m.Event) or not isinstance(
            message.event, Moved
        ):
            pass  # the game is under way: the next search has a 60-second budget
        await asyncio.sleep(0.5)
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), STOP_HANG_S)
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
    assert code == 0


async def test_the_stats_file_writes_counts_as_whole_numbers(
    ai_server: GomokuServer, tmp_path: Path
) -> None:
    """``--stats`` wrote every counter as a float ("moves": 0.0, "games": 0.0)."""
    stats = tmp_path / "stats.json"
    process = await worker_process(ai_server, "--processes", "1", "--stats", str(stats))
    process.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(process.wait(), STOP_HANG_S) == 0
    counters = json.loads(stats.read_text())
    assert '"moves": 0,' in stats.read_text()
    assert all(type(counters[name]) is int for name in ("moves", "games", "reconnects"))
    assert type(counters["loop_max_gap_ms"]) is float  # a time, measured


@contextlib.asynccontextmanager
async def stopped_at_the_end(worker: AiWorker) -> AsyncIterator[None]:
    """``worker`` runs while the block does; at its end ``stop()`` must have ``run()``
    return within STOP_HANG_S (the task is cancelled if the block fails)."""
    running = asyncio.create_task(worker.run())
    try:
        yield
        await worker.stop()
        await asyncio.wait_for(running, STOP_HANG_S)
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running


async def test_a_worker_stopped_while_waiting_to_reconnect_stops_at_once(
    make_server: MakeServer, connect: Connect, thinker: Thinker
) -> None:
    """The server is gone and the worker and its seat wait (a minute) to reconnect: a
    stop does not wait for that, ``run()`` returns (the wait is cut short)."""
    own = await make_server(ai_config())
    worker = AiWorker(
        worker_config(own, backoff=Backoff(initial=60.0, maximum=60.0, jitter=0)), thinker=thinker
    )
    async with stopped_at_the_end(worker):
        await asyncio.wait_for(worker.ready.wait(), 10)
        person = await seat_ai(await connect("ann", to=own), "novice")
        await person.play(until=lambda p: len(p.moves) >= 2)
        await own.stop()
        await eventually(lambda: worker.stats.reconnects >= 2)  # the worker's and its seat's


async def test_a_worker_that_cannot_connect_says_so(
    thinker: Thinker, caplog: pytest.LogCaptureFixture
) -> None:
    """Pointed at a port where nothing listens, the worker logs that the connection
    could not be made (not that it was lost: it never was made) and when it tries again,
    and keeps trying: the first failure and every tenth are said (each one was, 800
    lines an hour)."""
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = WorkerConfig(
        server=f"ws://127.0.0.1:{port}",
        bot_key=BOT_KEY,
        backoff=Backoff(initial=0.05, maximum=0.05, jitter=0),
    )
    worker = AiWorker(config, thinker=thinker)
    caplog.set_level("INFO", logger="gomoku.worker")
    async with stopped_at_the_end(worker):
        await eventually(lambda: worker.stats.reconnects >= 12)
    said = [r.getMessage() for r in caplog.records if "worker: connection to" in r.getMessage()]
    assert len(said) == 1 + worker.stats.reconnects // 10, said  # attempts 1, 10, 20...
    assert all("could not be made" in line for line in said), said
    assert said[0].endswith("; trying again in 0.1 s (attempt 1)"), said


TINY_BRAIN = r'''
"""A tiny Gomocup brain for tests: plays the free point nearest the centre, and
crashes once (exit code 3) on its third move, leaving a marker file. With "late" it
crashes instead at every move once four stones are down (a fresh process too); with
"nostart" it answers START with ERROR, and with "15only" START of another size."""
import os
import sys

size = 15
stones = set()
played = 0
mode = sys.argv[1] if len(sys.argv) > 1 else "once"


def move():
    global played
    played += 1
    if mode == "late" and len(stones) >= 4:
        sys.exit(3)
    if mode == "once" and played == 3 and not os.path.exists("MARKER"):
        open("MARKER", "w").close()
        sys.exit(3)
    c = size // 2
    free = [(x, y) for x in range(size) for y in range(size) if (x, y) not in stones]
    x, y = min(free, key=lambda p: (abs(p[0] - c) + abs(p[1] - c), p[1], p[0]))
    stones.add((x, y))
    print(f"{x},{y}", flush=True)


board_mode = False
for line in sys.stdin:
    words = line.strip().upper()
    if board_mode:
        if words == "DONE":
            board_mode = False
            move()
        else:
            x, y, _ = (int(v) for v in words.split(","))
            stones.add((x, y))
        continue
    if words.startswith("START"):
        size = int(words.split()[1])
        stones.clear()
        if mode == "nostart" or (mode == "15only" and size != 15):
            print("ERROR no thanks", flush=True)
        else:
            print("OK", flush=True)
    elif words == "BEGIN":
        move()
    elif words.startswith("TURN"):
        x, y = (int(v) for v in words.split()[1].split(","))
        stones.add((x, y))
        move()
    elif words == "BOARD":
        stones.clear()
        board_mode = True
    elif words.startswith("INFO"):
        pass
    elif words == "ABOUT":
        print('name="tiny"', flush=True)
    elif words == "END":
        break
    else:
        print("UNKNOWN " + words, flush=True)
'''


async def test_a_workers_hint_that_is_no_legal_move_never_reaches_the_player(
    make_server: MakeServer,
) -> None:
    """A hand-made worker answers hints with an occupied point, a point off the board, no
    point with words of its own, and an unknown reason: the player gets no_ai_available
    (in the server's words) for the first three and the legal point with reason
    "positional" for the last, never a move they cannot make."""
    server = await make_server(ai_config())

    worker, person = await raw_client(server), await raw_client(server)
    try:
        await hand_made_worker(worker)
        room, order = await ann_seats_the_hand_made_ai(person, worker)
        seat = await seat_connection(server, order)
        await seat.join(room)
        await person.until_event(GameStarted)
        await ann_and_the_seat_move(person, seat, room)
        answers = [("h8", "block"), ("z26", "win"), (None, "ask me later"), ("j9", "a hunch")]
        for n, (point, reason) in enumerate(answers, start=10):
            await person.send(m.Hint(room=room, id=n))
            asked = await worker.expect(m.HintRequest)
            await worker.send(m.HintResult(request=asked.request, point=point, reason=reason))
            if point == "j9":
                suggestion = await person.expect(m.Suggestion)
                assert (suggestion.point, suggestion.reason, suggestion.re) == (
                    point,
                    "positional",
                    n,
                )
            else:
                error = await person.expect_error("no_ai_available")
                assert error.re == n
                assert "ask me" not in error.message  # a worker's words are not the server's
        await seat.ws.close()
    finally:
        for c in (worker, person):
            await c.ws.close()


async def test_an_ai_seat_plays_only_the_game_it_was_given(make_server: MakeServer) -> None:
    """An AI seat's connection may join its own room and play, but not open a room,
    start an AI game, queue, seat an AI, or sit down in a person's room (where it made
    a game against an AI nobody asked for look rated): ``ai_not_allowed`` each; nor
    speak for a worker, said as a seat's (not as a hello without a key, which it had)."""
    server = await make_server(ai_config())

    worker, person, other = (
        await raw_client(server),
        await raw_client(server),
        await raw_client(server),
    )
    try:
        await hand_made_worker(worker)
        room, order = await ann_seats_the_hand_made_ai(person, worker)
        await other.hello("bob")
        elsewhere = (await other.create(seat="black", rated=True)).room.id
        seat = await seat_connection(server, order)
        for n, refused in enumerate(
            [
                m.CreateRoom(),
                m.CreateAiGame(),
                m.Queue(),
                m.SeatAi(room=room),
                m.Join(room=elsewhere),
                m.Join(room=elsewhere, role="spectator"),
            ],
            start=10,
        ):
            await seat.send(msgspec.structs.replace(refused, id=n))
            error = await seat.expect_error("ai_not_allowed")
            assert error.re == n
        await seat.send(m.BotReady(seats=1, levels=["hand"], id=20))
        said = (await seat.expect_error("not_a_bot")).message
        assert said == "only a worker's own connection, not an AI seat's, may do that"
        snapshot = await seat.join(room)
        assert snapshot.room.state == "playing"
        await ann_and_the_seat_move(person, seat, room)
    finally:
        for c in (worker, person, other):
            await c.ws.close()


@pytest.mark.parametrize("through", ["the same instance", "another instance"])
async def test_a_worker_that_connects_again_replaces_its_old_connection(
    make_server: MakeServer, redis_url: str, through: str
) -> None:
    """A second connection with the worker's token takes over the worker; the first is
    closed (1008) saying why, instead of having its next heartbeat refused. Through
    another instance on the same Redis the old connection stayed open (seats went to it
    and to the new one)."""
    first_instance = await make_server(ai_config(), store=RedisStore(redis_url))
    second_instance = first_instance
    if through == "another instance":
        second_instance = await make_server(ai_config(), store=RedisStore(redis_url))
    first, second = await raw_client(first_instance), await raw_client(second_instance)
    try:
        welcome = await hand_made_worker(first)
        assert (await hand_made_worker(second, token=welcome.token)).resumed
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(first.ws.recv(), 5)
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 1008
        assert "connected again" in closed.value.rcvd.reason
        await second.send(m.BotHeartbeat())
        await second.silent(0.3)  # still open, nothing refused
        [live] = second_instance.bots.live_workers()
        assert live.id == welcome.player
    finally:
        for c in (first, second):
            await c.ws.close()


async def test_a_hint_the_worker_does_not_answer_is_asked_of_it_once(
    make_server: MakeServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A worker that never answers a hint: past the pool's idle time the one instance took
    the job over from itself and asked the same worker again ("taken over from a gone
    instance", on a server alone). It is asked once; the player hears no AI answered.
    Its answer after that, and one to a request never made, are logged (a worker author
    had no way to find out that their request ids were wrong)."""
    bots = dataclasses.replace(FAST_BOTS, hint_timeout_ms=2_000, job_idle_ms=300)
    server = await make_server(ai_config(bots=bots))
    person, bob = await raw_client(server), await raw_client(server)
    async with beating_worker(server) as worker:
        await person.hello("ann")
        await bob.hello("bob")
        room = (await person.create(seat="black")).room.id
        await bob.join(room)
        await person.until_event(GameStarted)
        await person.send(m.Hint(room=room, id=5))
        asked = await worker.expect(m.HintRequest)
        refused = await person.expect_error("no_ai_available")
        assert refused.re == 5
        await worker.silent(0.2)  # no second hint_request
        with caplog.at_level(logging.INFO, logger="gomoku.server"):
            await worker.send(m.HintResult(request=asked.request, point="a1", reason="late"))
            await worker.send(m.HintResult(request=asked.request + 100, point="a1"))
            await worker.silent(0.2)  # no reply, as protocol.md says; but the log says so
        dropped = [r.getMessage() for r in caplog.records if "hint request" in r.getMessage()]
        assert len(dropped) == 2, dropped
    for client in (person, bob):
        await client.ws.close()


async def test_a_worker_before_bot_ready_is_told_so(make_server: MakeServer) -> None:
    """A connection with the bot key that has not sent ``bot_ready``: a heartbeat was
    ``wrong_phase`` but a ``hint_result`` got no answer at all. Both are ``wrong_phase``."""
    server = await make_server(ai_config())
    early = await raw_client(server)
    try:
        await early.send(m.Hello(name="early bot", bot_key=BOT_KEY, id=1))
        await early.expect(m.Welcome)
        await early.send(m.BotHeartbeat(id=2))
        assert (await early.expect_error("wrong_phase")).re == 2
        await early.send(m.HintResult(request=1, point="h8", reason="win", id=3))
        assert (await early.expect_error("wrong_phase")).re == 3
    finally:
        await early.ws.close()


async def test_an_ai_game_with_one_free_seat_says_it_needs_two(make_server: MakeServer) -> None:
    """One idle worker with one seat: an AI-vs-AI game is refused saying it needs two
    free seats (it said "every AI is busy" with nothing busy), and takes none."""
    server = await make_server(ai_config())

    worker, person = await raw_client(server), await raw_client(server)
    try:
        await hand_made_worker(worker)
        await person.hello("ann")
        await person.send(m.CreateAiGame(black="hand", white="hand", id=3))
        error = await person.expect_error("no_ai_available")
        assert error.message == "an AI-vs-AI game needs 2 free AI seats; fewer are free now"
        assert await server.store.ai_seats() == {}
    finally:
        for c in (worker, person):
            await c.ws.close()
