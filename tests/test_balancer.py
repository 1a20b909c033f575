"""One public entry point: the compose stack's HAProxy configuration (deploy/haproxy.cfg,
the file docker-compose.yml mounts) run by Debian's haproxy in front of two real
``gomoku-server`` processes on one real Redis (tests/balancer_fixtures.py says how the
test plays Docker's part).

Players connect through the balancer and play; one server dies (SIGKILL), or is stopped
(SIGTERM: it drains, the balancer takes it out, then it closes its connections with
1001); every player reconnects through the balancer, resumes with their token on the
other server, and every game ends as planned with every acknowledged move in it.
Run alone with ``pytest -m balancer``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest
from balancer_fixtures import CONFIG, Balancer, DnsZone, Replica, free_port, haproxy_binary
from server_fixtures import TestClient
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from protocol import messages as m
from protocol.events import GameOver, Moved

# One xdist process runs both stacks, one after the other (scripts/test, --dist
# loadgroup): their replicas share the addresses 127.0.0.2 and 127.0.0.3.
pytestmark = [pytest.mark.balancer, pytest.mark.xdist_group("balancer")]

NAME = "gomoku.test"
HOSTS = ("127.0.0.2", "127.0.0.3")
RECONNECT_WITHIN_S = 30.0


def _plan() -> list[str]:
    """25 moves in which nobody makes five before Black's last move (h8-h12): the first
    moves are spread over rows 1, 3 and 5 with a gap between stones."""
    black = [f"{c}1" for c in "acegikmo"] + ["h8", "h9", "h10", "h11", "h12"]
    white = [f"{c}3" for c in "acegikmo"] + [f"{c}5" for c in "aceg"]
    moves = []
    for i in range(len(black)):
        moves.append(black[i])
        if i < len(white):
            moves.append(white[i])
    return moves


PLAN = _plan()
HOLD_AT = 12
"""Moves played before the games wait for the test (so no game can end before its
players have been moved to the other server)."""


@dataclasses.dataclass
class Stack:
    balancer: Balancer
    replicas: dict[str, Replica]
    zone: DnsZone


@contextlib.contextmanager
def stack(
    redis_url: str,
    tmp: Path,
    hosts: tuple[str, ...] = HOSTS,
    extra: tuple[str, ...] = (),
    named: tuple[str, ...] | None = None,
) -> Iterator[Stack]:
    """Replicas at ``hosts`` (one port), the DNS naming them (or only those ``named``),
    and the balancer, with every named replica UP."""
    port = free_port(*hosts)
    named = hosts if named is None else named
    zone = DnsZone(NAME, named)
    replicas = {
        host: Replica(host, port, redis_url, tmp / f"server-{host}.log", extra) for host in hosts
    }
    balancer = Balancer(tmp, servers=f"{NAME}:{port}", dns_port=zone.port)
    try:
        for replica in replicas.values():
            replica.start()
        balancer.start()
        balancer.wait_for(dict.fromkeys(named, "UP"))
        yield Stack(balancer, replicas, zone)
    finally:
        balancer.stop()
        for replica in replicas.values():
            replica.stop()
        zone.close()


async def open_client(url: str) -> tuple[TestClient, str]:
    """A protocol client through the balancer, and the instance that took it."""
    ws = await ws_connect(url, compression=None, open_timeout=5)
    assert ws.response is not None
    return TestClient(ws), ws.response.headers["X-Gomoku-Instance"]


@dataclasses.dataclass
class Seat:
    """One player of one game, who keeps playing the plan across reconnections."""

    name: str
    color: int
    """0: Black (plays the even moves of the plan), 1: White."""
    client: TestClient
    instance: str
    token: str = ""
    room: str = ""
    moves: list[str] = dataclasses.field(default_factory=list)
    """The game's moves as this player saw them, in order."""
    last_seq: int = 0
    acknowledged: list[tuple[int, str]] = dataclasses.field(default_factory=list)
    """(index, point) of each of this player's moves the server confirmed."""
    closes: list[int] = dataclasses.field(default_factory=list)
    """The close code of each connection the server ended."""
    resumed_at: list[float] = dataclasses.field(default_factory=list)
    instances: list[str] = dataclasses.field(default_factory=list)
    over: bool = False
    progress: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)
    """Set when this player sees a move or has resumed (:func:`run_games` shares one)."""

    def take(self, message: m.ServerMessage) -> None:
        """Follow the game: moves (each once, by seq) and its end; nothing else may come
        but presence and the like."""
        assert not isinstance(message, m.Error), (self.name, message)
        if isinstance(message, m.Snapshot):
            self.moves, self.last_seq = list(message.room.moves), message.room.seq
        elif isinstance(message, m.Event) and message.seq > self.last_seq:
            self.last_seq = message.seq
            if isinstance(message.event, Moved):
                index = len(self.moves)
                self.moves.append(message.event.point)
                if index % 2 == self.color:
                    self.acknowledged.append((index, message.event.point))
                self.progress.set()
            elif isinstance(message.event, GameOver):
                self.over = True

    async def play(self, url: str, hold: asyncio.Event) -> None:
        """Move whenever it is this player's turn (after a short pause) until the game is
        over; a connection the server ends is replaced through the balancer."""
        sent_for = -1
        while not self.over:
            turn = len(self.moves)
            mine = turn % 2 == self.color and turn < len(PLAN)
            try:
                if mine and sent_for != turn and (turn < HOLD_AT or hold.is_set()):
                    await asyncio.sleep(0.05)
                    await self.client.move(self.room, PLAN[turn])
                    sent_for = turn
                try:
                    self.take(await self.client.recv(0.2))
                except TimeoutError:
                    continue
            except ConnectionClosed as closed:
                # No close frame at all (a killed server) is 1006, "abnormal closure".
                self.closes.append(closed.rcvd.code if closed.rcvd else 1006)
                await self.reconnect(url)
                sent_for = -1  # the fence below says whether that move went through

    async def reconnect(self, url: str) -> None:
        """Through the balancer again: hello with the token, resume after the last event
        seen, then a get_profile whose answer comes after every missed event."""
        deadline = time.monotonic() + RECONNECT_WITHIN_S
        while True:
            try:
                client, instance = await open_client(url)
                break
            except (OSError, InvalidStatus, TimeoutError):
                assert time.monotonic() < deadline, f"{self.name} could not reconnect"
                await asyncio.sleep(0.1)
        await self.client.ws.close()
        self.client = client
        welcome = await client.hello(self.name, token=self.token)
        assert welcome.resumed
        await client.send(m.Resume(room=self.room, after=self.last_seq))
        await client.send(m.GetProfile())
        while not isinstance(message := await client.recv(), m.Profile):
            self.take(message)
        self.resumed_at.append(time.monotonic())
        self.instances.append(instance)
        self.progress.set()


async def seat_games(url: str, games: int) -> list[tuple[Seat, Seat]]:
    """``games`` rooms, each with Black and White connected through the balancer (the
    balancer gives each new connection to the server with the fewest, so each game has
    a player on each server)."""
    pairs = []
    for n in range(games):
        seats = []
        for color in (0, 1):
            client, instance = await open_client(url)
            seat = Seat(f"p{n}{'bw'[color]}", color, client, instance)
            await client.hello(seat.name)
            seat.token = client.token
            seats.append(seat)
        black, white = seats
        black.room = white.room = (await black.client.create(seat="black")).room.id
        snapshot = await white.client.join(black.room)
        white.last_seq = snapshot.room.seq
        pairs.append((black, white))
    return pairs


async def finished(url: str, pairs: list[tuple[Seat, Seat]]) -> None:
    """Every game ended as planned: each player saw every move once, in order, and an
    auditor joining afterwards finds the whole plan in the room."""
    auditor, _ = await open_client(url)
    await auditor.hello("auditor")
    for black, white in pairs:
        assert black.moves == white.moves == PLAN
        for seat in (black, white):
            assert all(PLAN[i] == point for i, point in seat.acknowledged)
        snapshot = await auditor.join(black.room, "spectator")
        assert snapshot.room.moves == PLAN
    await auditor.ws.close()


async def run_games(
    url: str, pairs: list[tuple[Seat, Seat]], fault: Coroutine[Any, Any, str]
) -> list[Seat]:
    """Play every game; once every Black has made 3 moves, ``fault`` runs (it returns the
    instance id of the server it took away). The games wait at move HOLD_AT until every
    player who was on that server has resumed elsewhere. Returns those players."""
    hold, progress = asyncio.Event(), asyncio.Event()
    seats = [seat for pair in pairs for seat in pair]
    for seat in seats:
        seat.progress = progress
    players = [asyncio.create_task(seat.play(url, hold)) for seat in seats]

    async def until(done: Callable[[], bool]) -> None:
        while not done():
            await progress.wait()
            progress.clear()

    try:
        await until(lambda: min(len(black.moves) for black, _ in pairs) >= 3)
        gone = await fault
        moved = [seat for seat in seats if seat.instance == gone]
        await until(lambda: all(seat.resumed_at for seat in moved))
        hold.set()
        await asyncio.wait_for(asyncio.gather(*players), 60)
    finally:
        for task in players:
            task.cancel()
        for seat in seats:
            await seat.client.ws.close()
    return moved


def test_the_projects_config_is_valid() -> None:
    """`haproxy -c` accepts deploy/haproxy.cfg as compose runs it (the defaults) and as
    this test runs it (other addresses)."""
    for env in (
        {},
        {"GOMOKU_LISTEN": "127.0.0.1:1", "GOMOKU_SERVERS": "x.test:2", "GOMOKU_DNS": "127.0.0.1:3"},
    ):
        checked = subprocess.run(
            [haproxy_binary(), "-c", "-f", str(CONFIG)],
            env={"PATH": os.environ.get("PATH", ""), **env},
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "Configuration file is valid" in checked.stdout


async def test_a_killed_server_loses_no_move(redis_url: str, tmp_path: Path) -> None:
    """Four games, each with a player on each server; one server is killed with SIGKILL
    while they play. Its players reconnect through the balancer, resume on the other
    server, and every game ends as planned."""
    with stack(redis_url, tmp_path) as s:
        victim, survivor = (s.replicas[host] for host in HOSTS)
        pairs = await seat_games(s.balancer.url, 4)
        at: list[float] = []

        async def kill() -> str:
            instance = await instance_of(victim)
            at.append(time.monotonic())
            victim.signal(signal.SIGKILL)
            return instance

        moved = await run_games(s.balancer.url, pairs, kill())
        await finished(s.balancer.url, pairs)
        assert len(moved) == 4
        assert all(seat.closes == [1006] for seat in moved)  # no closing handshake: killed
        elsewhere = await instance_of(survivor)
        assert all(seat.instances == [elsewhere] for seat in moved)
        report("SIGKILL", at[0], moved)


def cluster_status(redis_url: str, wait_s: float = 3.0) -> str:
    """``gomoku-server status`` once it lists an instance as draining (each publishes
    its record every second), or after ``wait_s``."""
    deadline = time.monotonic() + wait_s
    while True:
        done = subprocess.run(
            [sys.executable, "-m", "server", "status", "--redis", redis_url],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        if "DRAINING" in done.stdout or time.monotonic() > deadline:
            return done.stdout
        time.sleep(0.2)


async def test_a_stopped_server_drains_then_its_players_move(
    redis_url: str, tmp_path: Path
) -> None:
    """SIGTERM with the default drain: the server's /healthz answers 503 (and status says
    it drains), the balancer takes it out and sends new connections to the other server
    while the draining one still serves its games; then its players are told to go
    (1001) and resume through the balancer on the other server. Every game ends as
    planned."""
    with stack(redis_url, tmp_path) as s:
        victim, survivor = (s.replicas[host] for host in HOSTS)
        pairs = await seat_games(s.balancer.url, 4)
        at: dict[str, float] = {}

        async def stop() -> str:
            instance = await instance_of(victim)
            at["signal"] = time.monotonic()
            victim.signal(signal.SIGTERM)
            await asyncio.to_thread(victim.wait_healthz, 503)
            # The operator's view says it too (a draining instance was listed like any).
            said = await asyncio.to_thread(cluster_status, redis_url)
            [line] = [line for line in said.splitlines() if instance in line]
            assert line.endswith("DRAINING"), said
            await asyncio.to_thread(s.balancer.wait_for, {HOSTS[0]: "DOWN"}, 10.0)
            at["out"] = time.monotonic()
            assert victim.process is not None
            assert victim.process.poll() is None  # still serving its players
            newcomer, where = await open_client(s.balancer.url)
            await newcomer.ws.close()
            assert where == await instance_of(survivor)
            return instance

        moved = await run_games(s.balancer.url, pairs, stop())
        assert await asyncio.to_thread(victim.wait) == 0
        await finished(s.balancer.url, pairs)
        assert len(moved) == 4
        assert all(seat.closes == [1001] for seat in moved)
        elsewhere = await instance_of(survivor)
        assert all(seat.instances == [elsewhere] for seat in moved)
        print(f"SIGTERM: the balancer took the server out {at['out'] - at['signal']:.2f} s after")
        report("SIGTERM", at["signal"], moved)


async def test_replicas_join_and_leave_the_rotation_by_dns(
    redis_url: str, tmp_path: Path, clients: list[TestClient]
) -> None:
    """`--scale server=N` changes what Docker's DNS answers for the service name, and
    nothing else: a replica the DNS starts naming joins the rotation (and gets the next
    connection, having the fewest), one it stops naming leaves it."""
    with stack(redis_url, tmp_path, named=HOSTS[:1]) as s:
        first, second = [await instance_of(s.replicas[host]) for host in HOSTS]
        assert HOSTS[1] not in s.balancer.states()
        client, where = await open_client(s.balancer.url)
        clients.append(client)
        assert where == first
        s.zone.addresses = list(HOSTS)
        await asyncio.to_thread(s.balancer.wait_for, {HOSTS[1]: "UP"})
        client, where = await open_client(s.balancer.url)
        clients.append(client)
        assert where == second
        s.zone.addresses = [HOSTS[0]]
        await asyncio.to_thread(s.balancer.wait_for, {HOSTS[1]: None})
        for _ in range(3):
            client, where = await open_client(s.balancer.url)
            clients.append(client)
            assert where == first


async def test_the_per_address_limit_counts_the_client_behind_the_balancer(
    redis_url: str, tmp_path: Path
) -> None:
    """The server trusts the balancer's X-Forwarded-For: two connections from one client
    address are its limit, a third is refused (429) while another address gets in; a
    client that sends its own X-Forwarded-For naming the full address is still counted
    by the address the balancer saw."""
    extra = ("--trusted-proxy", "127.0.0.1", "--max-conns-per-ip", "2")
    with stack(redis_url, tmp_path, hosts=HOSTS[:1], extra=extra) as s:
        url = s.balancer.url
        opened = [
            await ws_connect(url, compression=None, local_addr=("127.0.0.5", 0)) for _ in range(2)
        ]
        try:
            with pytest.raises(InvalidStatus) as refused:
                await ws_connect(url, compression=None, local_addr=("127.0.0.5", 0))
            assert refused.value.response.status_code == 429
            opened.append(await ws_connect(url, compression=None, local_addr=("127.0.0.6", 0)))
            opened.append(
                await ws_connect(
                    url,
                    compression=None,
                    local_addr=("127.0.0.7", 0),
                    additional_headers={"X-Forwarded-For": "127.0.0.5"},
                )
            )
        finally:
            for ws in opened:
                await ws.close()


async def instance_of(replica: Replica) -> str:
    """The instance id of a replica, asked directly (not through the balancer)."""

    def ask() -> str:
        url = f"http://{replica.host}:{replica.port}/metrics"
        with urllib.request.urlopen(url, timeout=5) as reply:
            return str(reply.headers["X-Gomoku-Instance"])

    return await asyncio.to_thread(ask)


def report(fault: str, at: float, moved: list[Seat]) -> None:
    """Print how long the moved players took to resume elsewhere (a figure, not a test)."""
    delays = sorted(seat.resumed_at[0] - at for seat in moved)
    print(
        f"{fault}: {len(moved)} players resumed on the other server "
        f"{delays[0]:.2f} to {delays[-1]:.2f} s after the signal"
    )
