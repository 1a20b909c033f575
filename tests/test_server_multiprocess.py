"""``gomoku-server --processes N``: N real server processes sharing one port
(SO_REUSEPORT) on one real Redis, under one supervisor. Connections land on every
process, players on different processes play one game, a process that dies is started
again, a signal stops them all, a killed supervisor leaves none behind; the embedded
store (where the processes could not share rooms) is refused before anything starts."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import signal
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from live_server import LiveServer, start, stop
from redis_fixtures import free_port
from server_fixtures import TestClient
from test_startup_checks import assert_refused, run
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from protocol import messages as m
from protocol.events import GameOver, GameStarted, Moved, PlayerJoined, Presence
from server import options
from server.keys import Keys

WITHIN_S = 30.0
INFO = re.compile(
    r'^gomoku_instance_info\{instance_id="(\w+)",pid="(\d+)",process="(\d+)"\} 1$', re.M
)
MOVES = re.compile(r'^gomoku_moves_total\{process="(\d+)"\} (\d+)$', re.M)


@pytest.fixture
def two(redis_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    """``gomoku-server --processes 2`` on the test's Redis."""
    server = start(["--processes", "2", "--redis", redis_url], tmp_path / "server.log")
    try:
        yield server
    finally:
        stop(server.process)


def processes(server: LiveServer, requests: int = 40) -> dict[str, tuple[int, str]]:
    """The processes that answered ``requests`` fresh GET /metrics: process index ->
    (pid, instance id); each answer's X-Gomoku-Instance header names the same instance."""
    seen = {}
    for _ in range(requests):
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/metrics", timeout=5) as r:
            header = r.headers["X-Gomoku-Instance"]
            infos = {found[1]: found.groups() for found in INFO.finditer(r.read().decode())}
        instance, pid, index = infos[header]  # the one that answered, among the others
        seen[index] = (int(pid), instance)
    return seen


def moves_counted(server: LiveServer) -> dict[str, int]:
    """``gomoku_moves_total`` of each process, as one fresh GET /metrics gives them."""
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/metrics", timeout=5) as r:
        return {index: int(count) for index, count in MOVES.findall(r.read().decode())}


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_until_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + WITHIN_S
    while any(alive(pid) for pid in pids):
        assert time.monotonic() < deadline, f"still running: {[p for p in pids if alive(p)]}"
        time.sleep(0.05)


async def client_on(server: LiveServer, instance: str, opened: list[TestClient]) -> TestClient:
    """A connection that the kernel gave to the process with this instance id (connect
    until one lands there)."""
    for _ in range(100):
        ws = await ws_connect(server.url, compression=None)
        assert ws.response is not None
        if ws.response.headers["X-Gomoku-Instance"] == instance:
            client = TestClient(ws)
            opened.append(client)
            return client
        await ws.close()
    raise AssertionError(f"100 connections and none on {instance}")


async def pair_over_both(
    server: LiveServer, seen: dict[str, tuple[int, str]], clients: list[TestClient]
) -> tuple[TestClient, TestClient, str]:
    """Black connected to process 1 and White to process 2 (``seen``: :func:`processes`),
    seated in one room: Black, White and the room's id."""
    black = await client_on(server, seen["1"][1], clients)
    white = await client_on(server, seen["2"][1], clients)
    await black.hello("black")
    await white.hello("white")
    room = (await black.create(seat="black")).room.id
    await white.join(room)
    return black, white, room


async def play(black: TestClient, white: TestClient, room: str, moves: list[str]) -> None:
    """Black and White play ``moves`` in turn, each seen by both."""
    for i, point in enumerate(moves):
        await (black if i % 2 == 0 else white).move(room, point)
        for client in (black, white):
            assert (await client.until_event(Moved)).point == point


async def test_connections_land_on_both_processes_and_their_players_meet(
    two: LiveServer, clients: list[TestClient]
) -> None:
    """Fresh connections are spread over both processes (each names itself in /metrics
    and a header); Black on one and White on the other play a game to its end."""
    seen = processes(two)
    assert set(seen) == {"1", "2"}
    assert len({pid for pid, _ in seen.values()}) == 2
    assert two.process.pid not in {pid for pid, _ in seen.values()}  # the supervisor serves none
    black, white, room = await pair_over_both(two, seen, clients)
    await black.event(PlayerJoined)
    await black.event(GameStarted)
    await play(black, white, room, ["h8", "a1", "h9", "a2", "h10", "a3", "h11", "a4", "h12"])
    for client in (black, white):
        over = await client.until_event(GameOver)
        assert (over.winner, over.reason) == ("black", "five")


async def test_any_scrape_of_the_shared_port_gives_every_processs_counters(
    two: LiveServer, clients: list[TestClient]
) -> None:
    """Whichever process answers /metrics, it gives both processes' own figures, each
    labelled with its process: the moves of a game add up to the same total at every
    scrape (each process answering for itself, a counter went down at every other
    scrape, and Prometheus counted a reset each time)."""
    black, white, room = await pair_over_both(two, processes(two), clients)
    await play(black, white, room, ["h8", "a1", "h9", "a2", "h10"])
    deadline = time.monotonic() + WITHIN_S
    while sum(moves_counted(two).values()) != 5:  # a sibling's figures are a second old
        assert time.monotonic() < deadline, moves_counted(two)
        await asyncio.sleep(0.2)
    for _ in range(20):
        counted = moves_counted(two)
        assert set(counted) == {"1", "2"}
        assert sum(counted.values()) == 5, counted


def instances_attached(redis_url: str, room: str) -> dict[str, str]:
    """Player -> the instance id of each connection of theirs attached to the room, as
    Redis has it (a player with connections on two instances appears as ``"several"``)."""
    with redis.Redis.from_url(redis_url, decode_responses=True) as store:
        conns: dict[str, str] = store.hgetall(Keys().room_conns(room))
    where: dict[str, str] = {}
    for conn, player in conns.items():
        instance = conn.partition("/")[0]
        where[player] = instance if where.get(player, instance) == instance else "several"
    return where


@pytest.fixture(params=["uvloop", "asyncio"])
def two_on(request: pytest.FixtureRequest, redis_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    """``gomoku-server --processes 2`` on the test's Redis, on each event loop (their
    transports hand over and take sockets each in their own way)."""
    argv = ["--processes", "2", "--redis", redis_url, "--loop", request.param]
    server = start(argv, tmp_path / "server.log")
    try:
        yield server
    finally:
        stop(server.process)


async def test_a_game_split_over_two_processes_moves_to_one(
    two_on: LiveServer, clients: list[TestClient], redis_url: str
) -> None:
    """Black lands on one process and White on the other: once White joins, one of their
    connections is handed to the other's process (Redis then has both attached from one
    instance). Neither player sees anyone go offline, each gets every event once and in
    order, the one that moved is sent the lobby's list again (both watch it), and the
    moved one's resume token still works."""
    two = two_on
    seen = processes(two)
    black = await client_on(two, seen["1"][1], clients)
    white = await client_on(two, seen["2"][1], clients)
    for client, name in ((black, "black"), (white, "white")):
        await client.hello(name)
        await client.send(m.LobbyWatch(on=True, id=1))
        assert (await client.expect(m.Lobby)).re == 1
    await black.send(m.CreateRoom(seat="black"))
    snapshot = await black.until(lambda x: isinstance(x, m.Snapshot))
    assert isinstance(snapshot, m.Snapshot)
    room = snapshot.room.id
    await white.send(m.Join(room=room))
    await white.until(lambda x: isinstance(x, m.Snapshot))
    deadline = time.monotonic() + WITHIN_S
    while len(set(instances_attached(redis_url, room).values())) != 1:
        assert time.monotonic() < deadline, instances_attached(redis_url, room)
        await asyncio.sleep(0.02)
    where = instances_attached(redis_url, room)
    assert set(where) == {black.player, white.player}
    assert set(where.values()) <= {seen["1"][1], seen["2"][1]}

    last = {black: 0, white: 0}
    lobby_again = {black: 0, white: 0}

    async def until_moved(client: TestClient, point: str) -> None:
        while True:
            message = await client.recv()
            if isinstance(message, m.Lobby):
                assert message.re is None
                lobby_again[client] += 1
            if not isinstance(message, m.Event):
                continue
            assert last[client] == 0 or message.seq == last[client] + 1, (last, message)
            last[client] = message.seq
            assert not (isinstance(message.event, Presence) and not message.event.online)
            if isinstance(message.event, Moved) and message.event.point == point:
                return

    moves = ["h8", "a1", "h9", "a2", "h10", "a3", "h11", "a4"]
    for i, point in enumerate(moves):
        await (black if i % 2 == 0 else white).move(room, point)
        for client in (black, white):
            await until_moved(client, point)
    assert sorted(lobby_again.values()) == [0, 1]

    token, after = white.token, last[white]
    await white.ws.close()
    again = TestClient(await ws_connect(two.url, compression=None))
    clients.append(again)
    assert (await again.hello("white", token=token)).resumed
    await again.send(m.Resume(room=room, after=after))
    await black.move(room, "h12")
    assert (await again.until_event(Moved)).point == "h12"
    for client in (black, again):
        over = await client.until_event(GameOver)
        assert (over.winner, over.reason) == ("black", "five")


def test_a_process_that_dies_is_started_again(two: LiveServer) -> None:
    """SIGKILL one process: the supervisor starts a new one in its place (a new pid and
    instance id under the same index) and the port keeps answering; once the supervisor
    has seen it die, no scrape gives the dead one's figures (they stayed for 10 s, its
    players counted twice once they were back on the sibling)."""
    before = processes(two)
    pid, instance = before["2"]
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + WITHIN_S
    while f"(pid {pid}) exited" not in two.log_text():
        assert time.monotonic() < deadline, two.log_text()
        time.sleep(0.02)
    with urllib.request.urlopen(f"http://127.0.0.1:{two.port}/metrics", timeout=5) as r:
        assert f'pid="{pid}"' not in r.read().decode()
    now = before
    while now["2"][0] == pid:
        assert time.monotonic() < deadline, "process 2 was not started again"
        # Queued on process 2 as it died: reset while reading, or while connecting (which
        # urllib reports as a URLError).
        with contextlib.suppress(ConnectionError, urllib.error.URLError):
            now = {**before, **processes(two, 10)}
    assert now["2"][1] != instance
    assert "server process 2" in two.log_text()
    assert "starting it again" in two.log_text()


async def test_sigterm_stops_every_process(two: LiveServer, clients: list[TestClient]) -> None:
    """SIGTERM to the supervisor: every process drains and closes its players with 1001,
    and the supervisor exits 0 once they have all stopped."""
    pids = [pid for pid, _ in processes(two).values()]
    client = TestClient(await ws_connect(two.url, compression=None))
    clients.append(client)
    await client.hello("alice")
    two.process.send_signal(signal.SIGTERM)
    with pytest.raises(ConnectionClosed) as closed:
        await client.ws.recv()
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1001
    assert two.process.wait(WITHIN_S) == 0
    wait_until_gone(pids)


def figures_folder(pid: int) -> Path:
    """The folder where process ``pid`` shares its figures (its environment says)."""
    variable = b"GOMOKU_PROCESS_FIGURES="
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    [folder] = [v.removeprefix(variable) for v in environ if v.startswith(variable)]
    return Path(os.fsdecode(folder))


def test_a_killed_supervisor_leaves_no_process_behind(two: LiveServer) -> None:
    """SIGKILL to the supervisor: its processes see their standard input close and stop,
    and take away the folder where they shared their figures (left in /tmp before)."""
    pids = [pid for pid, _ in processes(two).values()]
    folder = figures_folder(pids[0])
    assert folder.is_dir()
    two.process.kill()
    two.process.wait(WITHIN_S)
    wait_until_gone(pids)
    assert not folder.exists()


def test_the_processes_run_the_installed_server_from_any_directory(
    redis_url: str, tmp_path: Path
) -> None:
    """Started from a directory holding a package named ``server`` of its own, the
    processes still run Gomoku Arena's server (``python -m`` looks in the current
    directory first): both answer."""
    decoy = tmp_path / "server"
    decoy.mkdir()
    (decoy / "__init__.py").write_text("raise SystemExit('not the gomoku server')\n")
    (decoy / "__main__.py").write_text("")
    server = start(["--processes", "2", "--redis", redis_url], tmp_path / "log", cwd=tmp_path)
    try:
        assert len(processes(server)) == 2
    finally:
        stop(server.process)


def test_processes_need_redis() -> None:
    """With the embedded store each process would keep rooms of its own: refused at start,
    in one line that says why, from the option and from GOMOKU_PROCESSES."""
    status, out, err = run("gomoku-server", ["--processes", "2"])
    line = assert_refused("gomoku-server", status, out, err, "--processes", "need --redis")
    assert "players on different processes could never meet" in line
    status, out, err = run("gomoku-server", ["--ephemeral"], {"GOMOKU_PROCESSES": "auto"})
    assert_refused("gomoku-server", status, out, err, "GOMOKU_PROCESSES", "need --redis")
    for value, what in (("-1", "less than 0"), ("lots", "not a whole number")):
        status, out, err = run("gomoku-server", ["--processes", value])
        assert_refused("gomoku-server", status, out, err, "argument --processes", what)


def test_processes_need_an_os_that_spreads_a_port(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where SO_REUSEPORT does not spread connections (not Linux) several processes are
    refused, naming the system."""
    monkeypatch.setattr(options, "reuse_port_spreads_connections", lambda: False)
    with pytest.raises(SystemExit) as exited:
        options.parse_args(["--processes", "2", "--redis", "redis://127.0.0.1:1/0"])
    assert exited.value.code == 2
    assert "spreads connections only on Linux" in capsys.readouterr().err


def test_no_redis_at_the_url_is_said_once(redis_url: str) -> None:
    """No Redis at the URL, or no such database there: the supervisor says so in one line
    and exits with 1 before starting any process (which would each have said it again)."""
    no_database = redis_url.rsplit("/", 1)[0] + "/99"  # redis-server has 16
    for url in (f"redis://127.0.0.1:{free_port()}/0", no_database):
        status, out, err = run("gomoku-server", ["--processes", "2", "--redis", url, "--port", "0"])
        assert status == 1, (out, err)
        [line] = err.splitlines()
        assert line.startswith(f"gomoku-server: cannot use redis at {url}: "), line
        assert "listening" not in out


def test_a_port_another_server_listens_on_is_refused(two: LiveServer) -> None:
    """SO_REUSEPORT would let a second ``--processes`` server of the same user share the
    first one's port without a word: it finds the port answering and refuses it."""
    status, out, err = run(
        "gomoku-server",
        ["--processes", "2", "--redis", "redis://127.0.0.1:1/0", "--port", str(two.port)],
    )
    assert status == 1, (out, err)
    assert f"cannot listen on 0.0.0.0:{two.port}" in err
    assert "the port is in use" in err


def test_auto_is_one_process_per_cpu() -> None:
    """``auto`` and 0 mean one process per CPU this process may use."""
    assert options.process_count("auto") == options.process_count("0") == 0
    args = options.parse_args(["--processes", "auto", "--redis", "redis://127.0.0.1:1/0"])
    assert args.processes == len(os.sched_getaffinity(0))
    assert isinstance(args, argparse.Namespace)
