"""The shared AI pool across server instances on one real Redis: AI workers are worker
processes (``python -m worker``) connected to one instance each, and players on any
instance get their AI seats and hints; a worker killed mid-game (SIGKILL) leaves its
seat to a worker of another instance and the game ends normally."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator, Awaitable, Callable

from server_fixtures import TestClient
from test_worker_restart import person_on, seat_ai
from worker_fixtures import ai_config, worker_process

from protocol import messages as m
from server.app import GomokuServer
from server.bots import jobs
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
        assert isinstance(suggestion, m.Suggestion) and suggestion.re == 7
        assert suggestion.point not in person.moves
        snapshot = await client.join(person.room)  # the moves made meanwhile
        person.follow(snapshot)
        holder, _ = seat_holder((a, b), ai_player(client, snapshot))
        assert holder is a
        await person.play()
    assert person.over is not None
    assert (person.over.winner, person.over.reason) == ("black", "five")


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
        snapshot = await client.join(person.room)
        person.follow(snapshot)
        ai = ai_player(client, snapshot)
        holder, worker = seat_holder((a, b), ai)
        killed, other = (on_a, b) if holder is a else (on_b, a)
        killed.send_signal(signal.SIGKILL)
        await killed.wait()
        await person.play()
        survivor, _ = seat_holder((a, b), ai)
        assert survivor is other
    assert person.over is not None
    assert (person.over.winner, person.over.reason) == ("black", "five")
    assert holder.metrics.counters["gomoku_ai_handovers_total"] == 1
    assert worker not in holder.bots.workers or holder.bots.workers[worker].link is None


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
        assert worker.instance == a.housekeeping.instance_id and worker.seats == 2
        queue = jobs.seat_queue("novice")
        async with asyncio.timeout(10):  # both jobs taken and done
            while (await b.store.pool_depths())[queue] != (0, 0):
                await asyncio.sleep(0.05)
