"""When the store or every server is gone for a while: players get `unavailable` (and the
connection stays usable), and clocks do not charge the side to move for the outage."""

from __future__ import annotations

import asyncio
import collections
import logging
import re
import signal
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from redis_fixtures import RedisServer
from server_fixtures import Connect, TestClient, wait_healthy
from test_server_processes import ServerProcess
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from engine import Opening, Rule
from protocol import messages as m
from protocol.events import GameStarted, Moved, PlayerJoined, Presence
from protocol.values import Clocks, TimeControl
from server import connection as server_connection
from server import game
from server.app import GomokuServer
from server.config import Timers
from server.game import GameRules, apply
from server.metrics import Metrics
from server.outage import give_back
from server.room import Room, Seat
from server.store import Attachment, Attendance, Outage
from server.store.redis import RedisStore

MakeServer = Callable[..., Awaitable[GomokuServer]]
RULES = GameRules(offline_after_ms=0)  # a player gone is offline at once
BASE_MS = 3_000
OUTAGE_S = 3.5  # longer than the side to move has left: without the grace they would lose


def _timed_room(now: int, *, timed: bool = True) -> Room:
    """A started 10+0 room (``timed``; else one without a clock) where both players
    moved once at ``now``: Black's clock (or move limit) runs."""
    room = game.new_room(
        "r-1",
        rule=Rule.FREESTYLE,
        size=15,
        opening=Opening.FREE,
        time=TimeControl(base_ms=10_000, inc_ms=0) if timed else None,
        rated=False,
        private=False,
        code=None,
        now_ms=now,
    )
    for player in ("p-a", "p-b"):
        room = apply(room, game.Join(Seat(id=player, name=player)), now, RULES).room
    room = apply(room, game.Move("p-a", "h8"), now, RULES).room
    return apply(room, game.Move("p-b", "a1"), now, RULES).room


def test_outage_time_is_given_back_once_and_bounded() -> None:
    """The running clock gets back the part of an outage it ran through, at most the cap,
    once; a disconnected player's claim countdown too; a clock started later gets nothing."""
    room = _timed_room(0)
    assert give_back(room, Outage(1_000, 6_000), cap_ms=60_000)
    assert room.remaining_ms(0, 7_000) == 10_000 - 2_000  # 7 s passed, 5 s of them an outage
    assert not give_back(room, Outage(1_000, 6_000), cap_ms=60_000)  # each outage once
    assert room.remaining_ms(0, 7_000) == 8_000

    capped = _timed_room(0)
    assert give_back(capped, Outage(1_000, 30_000), cap_ms=4_000)
    assert capped.deadline_ms() == 4_000 + 10_000

    later = _timed_room(7_000)
    assert not give_back(later, Outage(1_000, 6_000), cap_ms=60_000)
    assert later.deadline_ms() == 17_000

    away = _timed_room(0)
    here = {p: Attachment(1) for p in ("p-a", "p-b")}
    away = apply(away, game.Tick(Attendance(2, here)), 100, RULES).room
    gone = {"p-a": Attachment(1), "p-b": Attachment(0, 500)}
    away = apply(away, game.Tick(Attendance(1, gone)), 500, RULES).room
    assert give_back(away, Outage(1_000, 6_000), cap_ms=60_000)
    seat = away.seats[1]
    assert seat is not None
    assert seat.offline_since_ms == 500 + 5_000


def test_an_untimed_games_move_limit_gets_an_outage_back() -> None:
    """Without a clock, the move limit is the game's only clock: the part of an outage
    it ran through is given back, once (a restart took 50 of a player's 120 s, and the
    opponent's claim came at the limit as if it had not)."""
    room = _timed_room(0, timed=False)
    assert room.move_deadline_ms(120_000) == 120_000
    assert give_back(room, Outage(5_000, 50_000), cap_ms=600_000)
    assert room.move_deadline_ms(120_000) == 165_000
    assert not give_back(room, Outage(5_000, 50_000), cap_ms=600_000)
    assert room.move_deadline_ms(120_000) == 165_000


async def _moved(client: TestClient) -> Moved:
    return await client.until_event(Moved)


async def _timed_game(alice: TestClient, bob: TestClient) -> tuple[str, Clocks]:
    """Alice (Black) and Bob play h8 a1 in a 3+0 game: Black's clock runs."""
    snap = await alice.create(seat="black", time=TimeControl(base_ms=BASE_MS, inc_ms=0))
    room = snap.room.id
    await bob.join(room)
    await alice.event(PlayerJoined, room)
    await alice.event(GameStarted, room)
    for client, point in ((alice, "h8"), (bob, "a1")):
        await client.move(room, point)
        for watcher in (alice, bob):
            moved = await _moved(watcher)
    assert moved.clocks is not None
    return room, moved.clocks


async def test_store_outage_gives_unavailable_then_play_resumes_fairly(
    make_server: MakeServer, connect: Connect, persistent_redis: RedisServer
) -> None:
    """Redis goes away mid-game for longer than Black has left: requests get `unavailable`
    on a connection that stays open; once Redis is back, Black moves with the time they
    had, not flagged for the outage."""
    server = await make_server(store=RedisStore(persistent_redis.url, poll_interval_s=0.2))
    alice = await connect("alice", to=server)
    bob = await connect("bob", to=server)
    room, _ = await _timed_game(alice, bob)

    persistent_redis.stop(kill=True)
    await alice.send(m.Move(room=room, point="h9", id=7))
    refused = await alice.expect(m.Error, wait_s=20)
    assert (refused.code, refused.re, refused.room) == ("unavailable", 7, room)
    await alice.send(m.GetProfile(id=8))
    assert (await alice.expect_error("unavailable")).re == 8
    await asyncio.sleep(OUTAGE_S)
    persistent_redis.start()
    await wait_healthy(server.port)

    await alice.move(room, "h9")
    moved = await _moved(alice)
    assert moved.point == "h9"
    assert moved.clocks is not None
    assert moved.clocks.black_ms > BASE_MS - 1_500  # the outage was not charged
    assert (await _moved(bob)).point == "h9"


async def a_game_on_a_with_its_renewals_stopped(
    make_server: MakeServer, connect: Connect, redis_url: str
) -> tuple[GomokuServer, TestClient, TestClient, str]:
    """Instances A and B on one Redis with a 1 s lease; Alice and Bob play a game on A;
    then A stops renewing its lease (as a paused process would): A, the players, the room."""
    timers = Timers(tick_interval_s=0.02, instance_lease_ms=1_000)
    a, _b = [await make_server(store=RedisStore(redis_url), timers=timers) for _ in range(2)]
    alice = await connect("alice", to=a)
    bob = await connect("bob", to=a)
    room = (await alice.create(seat="black")).room.id
    await bob.join(room)
    await alice.until_event(GameStarted)
    renewals = next(t for t in a._tasks if "keep_lease" in repr(t.get_coro()))
    renewals.cancel()
    return a, alice, bob, room


async def test_after_a_redis_hang_an_instance_waits_a_lease_before_reaping_another(
    make_server: MakeServer, connect: Connect, persistent_redis: RedisServer
) -> None:
    """Redis hangs longer than an instance's lease, for every instance on it. When it
    answered again, the first instance to renew found the others' leases run out and
    reaped their live connections at once: players still connected went offline, and
    their game was lost by abandon at the end of the grace (seen with two `gomoku-server`
    processes and a 15 s SIGSTOP of redis-server). Here instance A's renewals are
    stopped during the hang: B waits a whole lease of its own renewals first (A, alive,
    would have renewed by then), then reaps A as dead."""
    _, alice, _, _ = await a_game_on_a_with_its_renewals_stopped(
        make_server, connect, persistent_redis.url
    )
    persistent_redis.hang(on=True)
    try:
        await asyncio.sleep(2.0)
    finally:
        persistent_redis.hang(on=False)
    with pytest.raises(TimeoutError):  # not within B's first lease after the hang
        await asyncio.wait_for(alice.until_event(Presence), 0.6)
    gone = await asyncio.wait_for(alice.until_event(Presence), 5)  # A is dead: reaped
    assert not gone.online


async def test_an_instance_whose_lease_was_taken_attaches_its_connections_again(
    make_server: MakeServer, connect: Connect, persistent_redis: RedisServer
) -> None:
    """Instance A stops renewing its lease for longer than a lease (its process was
    paused, or Redis was cut off from it alone) while B goes on: B reaps A's connections
    and both players, still connected to A, go offline. They stayed offline until they
    acted, and the game ended by abandon at the end of the grace; A now finds its lease
    taken at its next renewal and attaches them again, and the game goes on."""
    a, alice, bob, room = await a_game_on_a_with_its_renewals_stopped(
        make_server, connect, persistent_redis.url
    )
    offline = {(await asyncio.wait_for(alice.until_event(Presence), 10)) for _ in range(2)}
    assert {(p.player, p.online) for p in offline} == {(alice.player, False), (bob.player, False)}
    a._background(a.housekeeping.keep_lease())  # A renews again
    back = {(await asyncio.wait_for(alice.until_event(Presence), 5)) for _ in range(2)}
    assert {(p.player, p.online) for p in back} == {(alice.player, True), (bob.player, True)}
    with pytest.raises(TimeoutError):  # B reaps nothing more: A's lease is its own again
        await asyncio.wait_for(alice.until_event(Presence), 3)
    await alice.move(room, "h8")
    assert (await _moved(bob)).point == "h8"


async def test_when_redis_loses_its_data_every_connection_is_closed_to_start_afresh(
    make_server: MakeServer, connect: Connect, persistent_redis: RedisServer
) -> None:
    """Redis restarted without its data (FLUSHALL here) mid-game: the rooms, sessions
    and leases were gone while the connections stayed open, and a player waiting for the
    opponent's move, or a spectator, was told nothing, ever. Each instance now closes its
    connections with 1012 saying why; a client that comes back hears its token is gone."""
    timers = Timers(tick_interval_s=0.02, instance_lease_ms=1_000)
    a, b = [
        await make_server(store=RedisStore(persistent_redis.url), timers=timers) for _ in range(2)
    ]
    alice = await connect("alice", to=a)
    bob = await connect("bob", to=b)
    room = (await alice.create(seat="black")).room.id
    await bob.join(room)
    await alice.until_event(GameStarted)
    persistent_redis.flushall()
    for client in (alice, bob):
        with pytest.raises(ConnectionClosed) as closed:
            await client.until(lambda _: False)  # every frame until the close
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 1012
        assert "lost its data" in closed.value.rcvd.reason
    again = await connect(to=a)
    await again.send(m.Hello(name="alice", token=alice.token))
    await again.expect_error("bad_token")


async def test_metrics_answer_while_redis_hangs(
    make_server: MakeServer, persistent_redis: RedisServer
) -> None:
    """A scrape while Redis hung got no answer (closed after 10 s): the cluster figures
    were read one after another with no bound. It answers within the read's bound now,
    with this instance's own figures, without the cluster's samples, and with
    gomoku_store_up 0 (nothing had said the store was away); 1 once it answers."""
    server = await make_server(store=RedisStore(persistent_redis.url))
    url = f"http://127.0.0.1:{server.port}/metrics"
    persistent_redis.hang(on=True)
    try:
        loop = asyncio.get_running_loop()
        started = loop.time()
        with await asyncio.to_thread(urllib.request.urlopen, url, timeout=10) as answer:
            page = answer.read().decode()
        waited = loop.time() - started
        live = url.replace("/metrics", "/livez")  # a liveness probe: alive, store or not
        with await asyncio.to_thread(urllib.request.urlopen, live, timeout=10) as answer:
            assert (answer.status, answer.read()) == (200, b"alive\n")
    finally:
        persistent_redis.hang(on=False)
    assert waited < 5, waited
    assert re.search(r"^gomoku_connections \d+$", page, re.MULTILINE)
    assert "# TYPE gomoku_cluster_players_online gauge" in page
    assert not re.search(r"^gomoku_cluster_players_online ", page, re.MULTILINE)
    assert re.search(r"^gomoku_store_up 0$", page, re.MULTILINE)
    with await asyncio.to_thread(urllib.request.urlopen, url, timeout=10) as answer:
        page = answer.read().decode()
    assert re.search(r"^gomoku_store_up 1$", page, re.MULTILINE)
    assert re.search(r"^gomoku_cluster_players_online 0$", page, re.MULTILINE)


async def test_no_cluster_figure_is_given_while_the_store_is_not_up() -> None:
    """The store answers the cluster's figures but is not up (Redis back, this
    instance's feed not yet): the page gives store_up 0 and none of those figures, as
    README says (figures read in that half second said no instance and no player)."""
    metrics = Metrics()

    async def rooms() -> int:
        return 3

    up = False

    async def store_up() -> bool:
        return up

    metrics.cluster_gauges["gomoku_rooms"] = rooms
    metrics.store_up = store_up
    page = await metrics.collect()
    assert re.search(r"^gomoku_store_up 0$", page, re.MULTILINE)
    assert not re.search(r"^gomoku_rooms ", page, re.MULTILINE)
    up = True
    assert re.search(r"^gomoku_rooms 3$", await metrics.collect(), re.MULTILINE)


async def test_an_outage_is_logged_once_not_once_a_request(
    make_server: MakeServer,
    connect: Connect,
    persistent_redis: RedisServer,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each request refused for an unreachable store was a warning of its own (67 lines
    in a 12 s outage, with an empty reason for a timeout): one warning now, with the
    reason, for every 10 s of them; each player still gets ``unavailable``."""
    monkeypatch.setattr(server_connection, "_unavailable_logged", -1e9)
    server = await make_server(store=RedisStore(persistent_redis.url))
    alice = await connect("alice", to=server)
    persistent_redis.stop(kill=True)
    try:
        with caplog.at_level(logging.INFO, logger="gomoku.server"):
            for request in range(1, 5):
                await alice.send(m.GetProfile(id=request))
                assert (await alice.expect_error("unavailable")).re == request
    finally:
        persistent_redis.start()
    warnings = [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.WARNING and "store unavailable" in r.getMessage()
    ]
    assert len(warnings) == 1, warnings
    assert re.match(
        r"store unavailable handling GetProfile: redis is unreachable: \S", warnings[0]
    ), warnings[0]


@pytest.fixture
def lone_process(redis_url: str, tmp_path: Path) -> Iterator[ServerProcess]:
    """One `gomoku-server --redis` process (so nobody else serves while it is down)."""
    process = ServerProcess(redis_url, tmp_path / "server.log")
    try:
        process.start()
        yield process
    finally:
        process.stop()


async def test_killed_server_restarts_without_charging_the_outage(
    lone_process: ServerProcess,
) -> None:
    """The only server is killed with SIGKILL while Black's clock runs and comes back after
    longer than Black had left: both players resume with their tokens and Black moves,
    not flagged, with about the time they had."""
    opened: list[TestClient] = []

    async def client(name: str, token: str | None = None) -> TestClient:
        ws = await ws_connect(f"ws://127.0.0.1:{lone_process.port}/", compression=None)
        opened.append(TestClient(ws))
        await opened[-1].hello(name, token)
        return opened[-1]

    try:
        alice, bob = await client("alice"), await client("bob")
        room, clocks = await _timed_game(alice, bob)
        lone_process.stop(signal.SIGKILL)
        await asyncio.sleep(OUTAGE_S)
        await asyncio.to_thread(lone_process.start)
        metrics = await asyncio.to_thread(_metrics, lone_process.port)
        assert re.search(r"^gomoku_outages_total 1$", metrics, re.MULTILINE)  # found at start

        back = {}
        for old in (alice, bob):
            new = await client(old.welcome.name if old.welcome else "?", old.token)
            assert new.welcome is not None
            welcome = new.welcome
            assert (new.player, welcome.resumed, welcome.rooms) == (old.player, True, [room])
            snap = await _ask_snapshot(new, room)
            assert snap.room.state == "playing"
            back[old.player] = new
        alice, bob = back[alice.player], back[bob.player]
        await alice.move(room, "h9")
        moved = await _moved(alice)
        assert moved.point == "h9"
        assert moved.clocks is not None
        assert moved.clocks.black_ms > clocks.black_ms - 1_500
        assert (await _moved(bob)).point == "h9"
    finally:
        for c in opened:
            await c.ws.close()


async def _ask_snapshot(client: TestClient, room: str) -> m.Snapshot:
    await client.send(m.Join(room=room))
    return await client.until(lambda x: isinstance(x, m.Snapshot))  # type: ignore[return-value]


def _metrics(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text: str = response.read().decode()
    return text


async def test_a_redis_outage_is_said_once_by_each_loop_not_on_every_turn(
    make_server: MakeServer,
    connect: Connect,
    persistent_redis: RedisServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Redis gone for 3 s with a game followed and a scrape of /metrics: the room feeds,
    the lease, the AI pool's loops and the scrapes each say it once (the feeds said it
    for every room followed, twice a second each; a scrape once per cluster figure, and
    each scrape again),
    and once more that the store answers again."""
    server = await make_server(store=RedisStore(persistent_redis.url, poll_interval_s=0.2))
    alice = await connect("alice", to=server)
    bob = await connect("bob", to=server)
    room = (await alice.create(seat="black")).room.id
    await bob.join(room)
    await alice.until_event(GameStarted)
    url = f"http://127.0.0.1:{server.port}/metrics"
    with caplog.at_level(logging.INFO):
        persistent_redis.stop(kill=True)
        try:
            await asyncio.sleep(1.5)
            for _ in range(2):  # a scraper's every scrape said it again
                with await asyncio.to_thread(urllib.request.urlopen, url, timeout=10) as answer:
                    answer.read()
            await asyncio.sleep(1.5)
        finally:
            persistent_redis.start()
        await wait_healthy(server.port)
        await alice.move(room, "h8")
        await _moved(bob)
    said = collections.Counter(
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.INFO and r.name.startswith("gomoku")
    )
    again = said.pop("the store answers again", 0)  # once by each loop that waited
    assert again <= sum(1 for line in said if line.startswith("the store is unreachable"))
    repeated = {line: count for line, count in said.items() if count > 1}
    assert not repeated, repeated
    assert sum(1 for line in said if "cluster metrics not read" in line) == 1, said
    assert any("the rooms followed here wait for it" in line for line in said), said
