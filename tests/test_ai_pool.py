"""The shared AI pool across server instances on one real Redis: AI workers are worker
processes (``python -m worker``) connected to one instance each, and players on any
instance get their AI seats and hints; a worker killed mid-game (SIGKILL) leaves its
seat to a worker of another instance and the game ends normally."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from redis_fixtures import RedisServer, free_port
from server_fixtures import TestClient
from test_server_ops import http_get
from test_worker_restart import person_on, seat_ai
from test_worker_robustness import beating_worker
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed
from worker_fixtures import (
    BOT_KEY,
    Person,
    StartWorker,
    ai_config,
    eventually,
    worker_process,
)

from engine import Rule
from protocol import messages as m
from protocol.events import GameOver, Moved, PlayerJoined
from server import cluster
from server.app import GomokuServer
from server.bots import jobs
from server.bots.registry import AiSeat, SeatRecord
from server.service import now_ms
from server.store.redis import RedisStore

MakeServer = Callable[..., Awaitable[GomokuServer]]


@contextlib.asynccontextmanager
async def worker_on(server: GomokuServer) -> AsyncIterator[asyncio.subprocess.Process]:
    """A worker process connected to ``server`` (ready), stopped at the end."""
    process = await worker_process(server, "--seats", "2", "--move-time", "0.1")
    try:
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
        try:
            await asyncio.wait_for(process.wait(), 10)
        except TimeoutError:
            process.kill()
            await process.wait()


async def two_instances(make_server: MakeServer, redis_url: str) -> tuple[GomokuServer, ...]:
    first = await make_server(ai_config(), store=RedisStore(redis_url))
    second = await make_server(ai_config(), store=RedisStore(redis_url))
    return first, second


def seat_holder(servers: tuple[GomokuServer, ...], player: str) -> tuple[GomokuServer, str]:
    """The instance whose worker plays the AI seat ``player``, and that worker."""
    for server in servers:
        owner = server.bots.owner.get(player)
        if owner is not None:
            return server, owner
    raise AssertionError(f"no instance holds AI seat {player}")


def live_holder(servers: tuple[GomokuServer, ...], player: str) -> GomokuServer | None:
    """The instance whose connected worker plays the AI seat ``player`` (None: no
    connected worker has it, e.g. while it waits for a dead worker's lease)."""
    for server in servers:
        owner = server.bots.owner.get(player)
        worker = None if owner is None else server.bots.workers.get(owner)
        if worker is not None and worker.link is not None:
            return server
    return None


async def resync(client: TestClient, person: Person) -> m.Snapshot:
    """Join the person's room again: a fresh snapshot (the moves the person's client read
    past meanwhile are in it; events that come before it are older, so skipped)."""
    await client.send(m.Join(room=person.room, id=99))
    snapshot = await client.until(lambda msg: isinstance(msg, m.Snapshot) and msg.re == 99)
    assert isinstance(snapshot, m.Snapshot)
    person.follow(snapshot)
    return snapshot


def ai_player(client: TestClient, snapshot: m.Snapshot) -> str:
    """The other player seated in the snapshot's room."""
    players = snapshot.room.players
    seated = [ref.id for ref in (players.black, players.white) if ref is not None]
    [ai] = [p for p in seated if p != client.player]
    return ai


async def test_a_room_on_an_instance_without_workers_plays_an_ai_of_another(
    make_server: MakeServer, redis_url: str
) -> None:
    """One worker, connected to A; a person on B seats an AI, gets a hint, and plays the
    game to its end against the worker on A."""
    a, b = await two_instances(make_server, redis_url)
    async with worker_on(a), person_on(b.port, "ann") as client:
        assert not b.bots.live_workers()
        person = await seat_ai(client)
        await person.play(until=lambda p: len(p.moves) >= 4)
        await client.send(m.Hint(room=person.room, id=7))
        suggestion = await client.until(lambda msg: isinstance(msg, m.Suggestion))
        assert isinstance(suggestion, m.Suggestion)
        assert suggestion.re == 7
        assert suggestion.point not in person.moves
        snapshot = await resync(client, person)
        holder, _ = seat_holder((a, b), ai_player(client, snapshot))
        assert holder is a
        await person.play()
    assert person.over is not None
    assert (person.over.winner, person.over.reason) == ("black", "five")


async def test_the_ai_pool_goes_on_after_redis_lost_its_data(
    make_server: MakeServer, redis_server: RedisServer, redis_url: str
) -> None:
    """Redis restarted without its data (FLUSHALL here): the AI pool's consumer groups
    were gone, taking over jobs raised NOGROUP every second before any job was taken,
    and no AI moved again until the server restarted. Now the next game's AI plays."""
    server = await make_server(ai_config(), store=RedisStore(redis_url))
    async with worker_on(server):
        async with person_on(server.port, "ann") as client:
            person = await seat_ai(client)
            await person.play(until=lambda p: len(p.moves) >= 2)
            redis_server.flushall()
            # the server closes what it held (1012) once it sees the data gone; a
            # player who connected before that would be closed with the rest
            with pytest.raises(ConnectionClosed) as closed:
                await client.until(lambda _: False)
            assert closed.value.rcvd is not None
            assert closed.value.rcvd.code == 1012
        async with person_on(server.port, "bob") as client:
            person = await seat_ai(client, wait_s=5)
            await asyncio.wait_for(person.play(until=lambda p: len(p.moves) >= 4), 20)
    assert len(person.moves) >= 4


async def test_an_ai_is_seated_while_the_workers_records_are_written_again(
    make_server: MakeServer, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workers' records in Redis lapse in an outage longer than three heartbeats and
    are written again a second or so after it: meanwhile a player asking for an AI was
    told "no AI worker is connected", the worker connected all along. The instance's own
    live workers count then."""
    server = await make_server(ai_config(), store=RedisStore(redis_url))
    async with worker_on(server), person_on(server.port, "ann") as client:
        await eventually(lambda: bool(server.bots.live_workers()))

        async def not_now() -> None:  # the records stay lapsed for this test
            return None

        monkeypatch.setattr(server.taker, "publish", not_now)
        for worker in server.bots.live_workers():
            await server.store.drop_worker(worker.id)
        person = await seat_ai(client)
        await asyncio.wait_for(person.play(until=lambda p: len(p.moves) >= 2), 20)
    assert len(person.moves) >= 2


async def test_a_worker_killed_mid_game_leaves_its_seat_to_a_worker_of_another_instance(
    make_server: MakeServer, redis_url: str
) -> None:
    """Workers on A and on B; the one playing the AI seat is killed (SIGKILL) a few moves
    in; the seat goes back to the pool, the other worker takes it, and the game ends with
    five, as a game does."""
    a, b = await two_instances(make_server, redis_url)
    async with worker_on(a) as on_a, worker_on(b) as on_b, person_on(b.port, "ann") as client:
        person = await seat_ai(client)
        await person.play(until=lambda p: len(p.moves) >= 6)
        snapshot = await resync(client, person)
        ai = ai_player(client, snapshot)
        holder, worker = seat_holder((a, b), ai)
        killed, other = (on_a, b) if holder is a else (on_b, a)
        killed.send_signal(signal.SIGKILL)
        await killed.wait()
        await eventually(lambda: live_holder((a, b), ai) is not None)
        assert live_holder((a, b), ai) is other
        await person.play()
    assert person.over is not None
    assert (person.over.winner, person.over.reason) == ("black", "five")
    # either instance may hand the seat over (the first to judge it), once in all
    assert sum(s.metrics.counters["gomoku_ai_handovers_total"] for s in (a, b)) == 1
    assert worker not in holder.bots.workers or holder.bots.workers[worker].link is None


async def test_a_seat_both_instances_release_is_logged_as_released_once(
    make_server: MakeServer, redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Both instances judge a dead worker's seat and release it at once: the operator
    reads "released" once in the cluster's logs, not once per instance."""
    a, b = await two_instances(make_server, redis_url)
    seat = AiSeat("p-gone", "AI novice", "novice", "its token's hash", worker="w-dead")
    await a.store.put_ai_seat(seat.player, seat.record())
    with caplog.at_level(logging.INFO, logger="gomoku.server"):
        await asyncio.gather(a.watchdog._release(seat), b.watchdog._release(seat))
    said = [r.getMessage() for r in caplog.records if "released" in r.getMessage()]
    assert said == ["AI seat p-gone released"]
    assert await b.store.ai_seats() == {}


async def test_a_seat_whose_game_ended_while_it_waited_in_the_pool_frees_its_place(
    make_server: MakeServer,
) -> None:
    """The worker playing a novice seat is killed; the seat goes back to the pool, where
    no worker plays novice; the person resigns. The seat no longer counts against the
    capacity: a one-seat master worker then plays a new game (it was "every AI is
    busy" for as long as no novice worker came)."""
    server = await make_server(ai_config())
    novice = await worker_process(server, "--seats", "1", "--levels", "novice")
    async with person_on(server.port, "ann") as client:
        person = await seat_ai(client)
        await person.play(until=lambda p: len(p.moves) >= 2)
        novice.send_signal(signal.SIGKILL)
        await novice.wait()
        queue = jobs.seat_queue("novice")
        for _ in range(200):  # the seat is handed back to the pool after the lease
            depths = await server.store.pool_depths()
            if queue in depths and depths[queue][0] == 1:
                break
            await asyncio.sleep(0.05)
        assert (await server.store.pool_depths())[queue][0] == 1
        await client.send(m.Resign(room=person.room))
        await client.until(
            lambda msg: (
                isinstance(msg, m.Event)
                and msg.room == person.room
                and isinstance(msg.event, GameOver)
            )
        )
        master = await worker_process(server, "--seats", "1", "--levels", "master")
        try:
            room = (await client.create(seat="white")).room.id
            for _ in range(100):
                await client.send(m.SeatAi(room=room, level="master", id=5))
                reply = await client.until(
                    lambda msg: (
                        getattr(msg, "re", None) == 5
                        or (
                            isinstance(msg, m.Event)
                            and msg.room == room
                            and isinstance(msg.event, PlayerJoined)
                        )
                    )
                )
                if not isinstance(reply, m.Error):
                    break
                assert "busy" in reply.message, reply
                await asyncio.sleep(0.1)
            assert isinstance(reply, m.Event), reply
            assert len(await server.store.ai_seats()) == 1  # the new game's seat only
        finally:
            master.kill()
            await master.wait()


async def test_seats_are_given_within_the_capacity_of_every_instances_workers(
    make_server: MakeServer, redis_url: str
) -> None:
    """A worker with two seats on A: two people on B get an AI each, a third is told
    every AI is busy; the cluster's workers and queues are in the store."""
    a, b = await two_instances(make_server, redis_url)
    async with worker_on(a) as _, contextlib.AsyncExitStack() as stack:
        people = [await stack.enter_async_context(person_on(b.port, f"p{i}")) for i in range(3)]
        await seat_ai(people[0])
        await seat_ai(people[1])
        room = (await people[2].create(seat="white")).room.id
        await people[2].send(m.SeatAi(room=room, level="novice", id=3))
        busy = await people[2].expect_error("no_ai_available")
        assert "busy" in busy.message
        [record] = (await b.store.workers(now_ms())).values()
        worker = jobs.decode(record, jobs.WorkerRecord)
        assert (worker.instance, worker.seats) == (a.housekeeping.instance_id, 2)
        queue = jobs.seat_queue("novice")
        for _ in range(200):  # both jobs taken and done
            if (await b.store.pool_depths())[queue] == (0, 0):
                break
            await asyncio.sleep(0.05)
        assert (await b.store.pool_depths())[queue] == (0, 0)


async def test_a_level_whose_workers_are_full_is_busy_though_other_levels_have_seats(
    make_server: MakeServer, redis_url: str
) -> None:
    """One master seat on A, two novice seats on B: a second master is refused as busy at
    once (it had been seated, to wait for a worker that never came), a novice is given."""
    a, b = await two_instances(make_server, redis_url)
    options = ("--processes", "1", "--move-time", "0.1")
    master = await worker_process(a, "--seats", "1", "--levels", "master", *options)
    novice = await worker_process(b, "--seats", "2", "--levels", "novice", *options)
    try:
        async with contextlib.AsyncExitStack() as stack:
            people = [await stack.enter_async_context(person_on(b.port, f"p{i}")) for i in range(3)]
            for i, person in enumerate(people[:2]):
                room = (await person.create(seat="white")).room.id
                await person.send(m.SeatAi(room=room, level="master", id=i + 1))
                if i == 0:
                    await person.event(PlayerJoined, room)
            busy = await people[1].expect_error("no_ai_available")
            assert "busy" in busy.message
            assert [s.level for s in await seats_in_play(b)] == ["master"]
            await seat_ai(people[2])  # novice
    finally:
        for process in (master, novice):
            process.kill()
            await process.wait()


async def test_a_seat_played_through_another_instance_still_fills_its_workers_place(
    make_server: MakeServer, redis_url: str
) -> None:
    """A one-seat worker on A is given a seat whose connection plays through B (a sibling
    process, or another replica behind a balancer): A lets B look after it, but still
    counts it against the worker, and publishes the worker as holding 1 of 1."""
    a, b = await two_instances(make_server, redis_url)
    async with (
        beating_worker(a) as worker,
        person_on(b.port, "ann") as ann,
        person_on(b.port, "bob") as bob,
    ):
        room = (await ann.create(seat="black")).room.id
        await ann.send(m.SeatAi(room=room, level="hand"))
        order = await worker.expect(m.BotSeat)
        seat = TestClient(await ws_connect(f"ws://127.0.0.1:{b.port}/", compression=None))
        try:
            await seat.send(m.Hello(name=order.name, token=order.token, bot_key=BOT_KEY))
            await seat.expect(m.Welcome)
            await seat.join(room)
            await eventually(lambda: order.player not in a.bots.owner)  # B looks after it

            async def published() -> jobs.WorkerRecord:
                [record] = (await a.store.workers(now_ms())).values()
                return jobs.decode(record, jobs.WorkerRecord)

            await asyncio.sleep(3 * a.taker.tick_s)  # published again since then
            assert (await published()).held == 1  # status: "holds 1/1 seats"
            other = (await bob.create(seat="white")).room.id
            await bob.send(m.SeatAi(room=other, level="hand", id=7))
            assert "busy" in (await bob.expect_error("no_ai_available")).message
        finally:
            await seat.ws.close()


async def seats_in_play(server: GomokuServer) -> list[SeatRecord]:
    records = await server.store.ai_seats()
    return [jobs.decode(data, SeatRecord) for data in records.values()]


async def test_metrics_and_status_show_the_cluster_from_any_instance(
    make_server: MakeServer, redis_url: str
) -> None:
    """A worker on A and an AI seat in a room on B: B's /metrics gives its own workers (none)
    apart from the cluster's (one, its seats, the seat in play, the pool's queues) and
    counts the one person online, and ``gomoku-server status`` prints both instances, the
    worker and the queues."""
    a, b = await two_instances(make_server, redis_url)
    async with worker_on(a), person_on(b.port, "ann") as client:
        await seat_ai(client)
        await client.until_event(Moved)  # the worker on A has the seat: its job is done
        _, _, text = await http_get(b.port, "/metrics")
        values = dict(re.findall(r"^(gomoku_\w+(?:\{[^}]*\})?) (\d+)$", text, re.MULTILINE))
        assert values["gomoku_ai_workers"] == "0"  # this instance's own
        assert values["gomoku_cluster_ai_workers"] == "1"
        assert values["gomoku_cluster_ai_seats"] == "2"
        assert values["gomoku_cluster_ai_seats_in_play"] == "1"
        assert values["gomoku_cluster_instances"] == "2"
        assert values["gomoku_games_in_progress"] == "1"
        # People only: ann on B; the worker and the AI seat it plays on A are no players.
        assert values["gomoku_players_online"] == "1"
        for _ in range(50):  # each instance publishes its figures every second
            if values["gomoku_cluster_players_online"] == "1":
                break
            await asyncio.sleep(0.1)
            _, _, text = await http_get(b.port, "/metrics")
            values = dict(re.findall(r"^(gomoku_\w+(?:\{[^}]*\})?) (\d+)$", text, re.MULTILINE))
        assert values["gomoku_cluster_players_online"] == "1"
        assert values['gomoku_ai_queue_jobs{queue="seat:novice",state="waiting"}'] == "0"
        helps = dict(re.findall(r"^# HELP (\w+) (.*)$", text, re.MULTILINE))
        assert helps["gomoku_ai_workers"].endswith("This instance only.")
        assert helps["gomoku_cluster_ai_workers"].endswith("read from the store.")
        assert helps["gomoku_ai_queue_jobs"].endswith("read from the store.")
        [worker] = a.bots.live_workers()
        done = await run_status("--redis", redis_url)
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert "instances: 2" in out
    for server in (a, b):
        assert server.housekeeping.instance_id in out
    assert f"{worker.id} (AI worker)  on {a.housekeeping.instance_id}  holds 1/2 seats" in out
    assert "AI workers: 1 (2 seats; 1 AI players in games or waiting for a worker)" in out
    assert re.search(r"^  seat:novice +0 / 0$", out, re.MULTILINE)
    assert "rooms: 1 (1 in the lobby); games in progress: 1" in out


async def test_status_writes_an_ipv6_listener_as_a_url_does(
    make_server: MakeServer, redis_url: str
) -> None:
    """An instance listening on an IPv6 address is listed as ``[::1]:PORT``, not
    ``::1:PORT`` (``:::9633`` for ``::``), which reads as part of the address."""
    server = await make_server(store=RedisStore(redis_url), host="::1")
    done = await run_status("--redis", redis_url)
    assert done.returncode == 0, done.stderr
    assert f"  [::1]:{server.port}  up " in done.stdout.decode()


async def test_status_says_in_one_line_when_redis_cannot_be_reached() -> None:
    """No Redis at the address: exit 2 and one line that says so, no traceback."""
    done = await run_status("--redis", f"redis://127.0.0.1:{free_port()}/0")
    assert done.returncode == 2
    assert done.stdout == b""
    [line] = done.stderr.decode().splitlines()
    assert line.startswith("gomoku-server status: cannot reach redis at redis://127.0.0.1:")


async def test_status_answers_within_seconds_when_redis_hangs(
    persistent_redis: RedisServer,
) -> None:
    """A Redis that takes connections and answers nothing (stopped): one line and exit 2
    after the 5 s read bound, not 15.6 s (the store's close waited 10 s more)."""
    persistent_redis.hang(on=True)
    try:
        started = time.monotonic()
        done = await run_status("--redis", persistent_redis.url)
        took = time.monotonic() - started
    finally:
        persistent_redis.hang(on=False)
    assert done.returncode == 2
    assert "cannot reach redis" in done.stderr.decode()
    assert took < 9, took


async def test_status_finds_the_redis_the_servers_use_in_the_environment(
    make_server: MakeServer, redis_url: str
) -> None:
    """GOMOKU_REDIS_URL, the variable the servers read (as in the compose file), is the
    one ``gomoku-server status`` reads too."""
    a, b = await two_instances(make_server, redis_url)
    done = await run_status(env={"GOMOKU_REDIS_URL": redis_url})
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert a.housekeeping.instance_id in out
    assert b.housekeeping.instance_id in out


async def test_status_tells_a_silent_instance_from_a_live_one(
    make_server: MakeServer, redis_url: str
) -> None:
    """An instance killed 7 s ago is still listed (its record outlives it by three
    heartbeats), but status says it was last heard 7 s ago and marks it silent, and
    its players are not counted in the cluster's (they have come back elsewhere, and
    were counted twice); a live one, just now."""
    live = await make_server(ai_config(), store=RedisStore(redis_url))
    now = now_ms()
    killed = jobs.InstanceRecord("10.0.0.9:8765", now - 60_000, 3, 2, 1, heard_ms=now - 7_000)
    await live.store.put_instance_info("killed-one", jobs.encode(killed), now + 8_000)
    its_worker = jobs.WorkerRecord("killed-one", 6, ["master"], 0, "gone-worker")
    await live.store.put_worker("p-gone", jobs.encode(its_worker), now + 8_000)
    started = time.monotonic()
    done = await run_status("--redis", redis_url)
    took = time.monotonic() - started  # a loaded machine starts the command slowly
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()

    def heard(line: str) -> int:
        found = re.search(r"heard (\d+)s ago$", line)
        assert found is not None, line
        return int(found.group(1))

    [dead] = [line for line in lines if line.startswith("  killed-one")]
    assert dead.endswith("SILENT"), dead
    assert 7 <= heard(dead.removesuffix("  SILENT")) <= 8 + took, dead
    [alive] = [line for line in lines if live.housekeeping.instance_id in line]
    assert heard(alive) <= 1 + took, alive
    assert "instances: 2 (1 silent: stopped or cut off, not counted)" in lines
    [gone] = [line for line in lines if "gone-worker" in line]  # nor its AI worker's seats
    assert gone.endswith("(its instance is SILENT: not counted)"), gone
    page = await live.metrics.collect()
    assert re.search(r"^gomoku_cluster_instances 1$", page, re.MULTILINE), page
    assert re.search(r"^gomoku_cluster_players_online 0$", page, re.MULTILINE), page
    assert re.search(r"^gomoku_cluster_ai_seats 0$", page, re.MULTILINE), page  # no worker


async def test_an_instance_stopped_cleanly_leaves_the_cluster_at_once(
    make_server: MakeServer, redis_url: str
) -> None:
    """A planned stop (SIGTERM, a rolling restart) withdraws the instance's record: status
    and /metrics stop counting it at once, not three heartbeats later as for a kill; with
    none left, status says no server publishes there (a mistyped database read as all
    servers down)."""
    a, b = await two_instances(make_server, redis_url)
    gone = b.housekeeping.instance_id
    for _ in range(200):  # both publish at start; wait until b's record is there
        if gone in await cluster.instances(a.store):
            break
        await asyncio.sleep(0.05)
    assert gone in await cluster.instances(a.store)
    await b.stop()
    assert list(await cluster.instances(a.store)) == [a.housekeeping.instance_id]
    done = await run_status("--redis", redis_url)
    assert "instances: 1" in done.stdout.decode()
    assert gone not in done.stdout.decode()
    await a.stop()  # the last one: said in words, not left to a bare 0
    done = await run_status("--redis", redis_url)
    said = done.stdout.decode().splitlines()
    assert "instances: 0 (no server publishes to this store: is it the one?)" in said
    assert done.returncode == 1  # a script's check tells it from a live cluster (0)


def test_status_refuses_a_malformed_url_as_the_server_does() -> None:
    """Not a Redis URL: the usage line and one line saying so (not "cannot reach"), 2."""
    done = subprocess.run(
        [sys.executable, "-m", "server", "status", "--redis", "notaurl"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "usage: gomoku-server status [-h] [--redis URL]",
        "gomoku-server status: error: argument --redis: 'notaurl' is not a redis://, "
        "rediss:// or unix:// URL",
    ]


async def run_status(
    *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """``gomoku-server status ARGS`` as a process of its own (``env``: more variables)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "server",
        "status",
        *args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )
    out, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode is not None
    return subprocess.CompletedProcess(["status", *args], process.returncode, out, err)


async def test_a_seat_outlives_the_instance_and_worker_that_played_it(
    make_server: MakeServer, redis_url: str
) -> None:
    """The worker playing the seat is on A; A stops and the worker is killed: B, which
    never held the seat, finds it looked after by nobody, puts it back in the pool, and
    its own worker plays the game to the end."""
    a, b = await two_instances(make_server, redis_url)
    async with worker_on(a) as on_a, person_on(b.port, "ann") as client:
        person = await seat_ai(client)
        await person.play(until=lambda p: len(p.moves) >= 4)
        async with worker_on(b):
            on_a.send_signal(signal.SIGKILL)
            await on_a.wait()
            await a.stop()
            await person.play()
    assert person.over is not None
    assert (person.over.winner, person.over.reason) == ("black", "five")
    assert b.metrics.counters["gomoku_ai_handovers_total"] == 1


async def test_a_hint_nobody_waits_for_any_more_is_dropped_unthought(
    ai_server: GomokuServer, start_worker: StartWorker
) -> None:
    """Hint jobs left in the pool while no worker was there: when one comes, the job
    whose asker gave up is dropped without an answer; a live one is answered."""
    stale = jobs.HintJob("late", "r-x", Rule.FREESTYLE, 15, ["h8"], 150, now_ms() - 1)
    fresh = jobs.HintJob("live", "r-y", Rule.FREESTYLE, 15, ["h8"], 150, now_ms() + 60_000)
    for job in (stale, fresh):
        await ai_server.store.pool_put(jobs.HINT_QUEUE, jobs.encode(job))
    await start_worker()
    answer = await ai_server.store.pool_answer_wait("live", 10_000)
    assert answer is not None
    assert jobs.decode(answer, jobs.HintAnswer).point not in (None, "h8")
    assert await ai_server.store.pool_answer_wait("late", 300) is None
    assert (await ai_server.store.pool_depths())[jobs.HINT_QUEUE] == (0, 0)
