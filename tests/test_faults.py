"""Faults under load: with the Redis store, a server instance killed with SIGKILL and
restarted, and redis-server itself killed and restarted, while several games are
being played across two real ``gomoku-server`` processes; and an AI worker process
killed while it plays several games.

Players are resilient clients: when their connection drops they reconnect to
their own instance (retrying until it is back), say hello with their token,
resume their room after the last event they saw, and play on; a move that got
no answer is sent again (the server refuses a duplicate, it never applies it
twice). Every ``moved`` event any player received is an acknowledged move. At
the end every game must be over, its event log numbered 1, 2, 3... without gaps,
its final move list exactly the moves the players meant to play, and every
acknowledged move in it at the number it was acknowledged with.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from redis_fixtures import RedisServer, free_port
from server_fixtures import Connect, TestClient
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from worker_fixtures import Person, StartWorker, eventually, worker_process

from engine import Board, Rule, format_point
from engine.types import Point
from protocol import events as ev
from protocol import messages as m
from protocol.codec import decode_server, encode
from protocol.values import TimeControl
from server.app import GomokuServer

GAMES = 6
MOVES = 40  # a quiet sequence: nobody makes five; Black resigns after it
FINISH_TIMEOUT_S = 90.0
RETRY_S = 1.0  # a move without an answer is sent again after this
RETRY_ERRORS = {"not_your_turn", "occupied", "unavailable", "internal"}
"""Refusals a player shrugs off: a resent move that had landed, or Redis being away."""


def quiet_sequence(moves: int, seed: int) -> list[str]:
    """A legal freestyle sequence on 15x15 in which nobody makes five."""
    rng = random.Random(seed)
    board = Board(15, Rule.FREESTYLE)
    points = [Point(x, y) for x in range(15) for y in range(15)]
    rng.shuffle(points)
    sequence: list[str] = []
    for point in points:
        if len(sequence) == moves:
            break
        if board.play(point) is not None:
            board.undo(1)
            continue
        sequence.append(format_point(point, 15))
    return sequence


# --- server processes ----------------------------------------------------------------------


class Instance:
    """A ``gomoku-server --redis`` process on a fixed port, so it can come back there."""

    def __init__(self, redis_url: str, log_dir: Path, name: str) -> None:
        self.redis_url = redis_url
        self.port = free_port()
        self.url = f"ws://127.0.0.1:{self.port}/"
        self.log = log_dir / f"{name}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        script = shutil.which("gomoku-server", path=str(Path(sys.executable).parent))
        assert script is not None, "gomoku-server is not installed in this environment"
        args = [script, "--host", "127.0.0.1", "--port", str(self.port), "--redis", self.redis_url]
        args += ["--grace", "60", "--rate-limit", "1000", "--rate-burst", "1000", "--bots", "0"]
        with self.log.open("ab") as err:
            self.process = subprocess.Popen(
                args,
                stdout=subprocess.PIPE,
                stderr=err,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        assert self.process.stdout is not None
        for _ in range(10):  # "store: redis at ..." comes first
            line = self.process.stdout.readline().decode()
            if "listening on port" in line or not line:
                break
        assert f"port {self.port}" in line, f"{line!r}\n{self.log.read_text()}"

    def kill(self) -> None:
        """SIGKILL: no shutdown, no goodbye to anyone."""
        assert self.process is not None
        self.process.kill()
        self.process.wait()
        self._close_pipe()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._close_pipe()

    def _close_pipe(self) -> None:
        if self.process is not None and self.process.stdout is not None:
            self.process.stdout.close()

    def tracebacks(self) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(line for line in text.splitlines() if "Traceback" in line)


@pytest.fixture
async def instances(persistent_redis: RedisServer, tmp_path: Path) -> AsyncIterator[list[Instance]]:
    """Two server processes sharing one redis-server (with append-only persistence)."""
    started = [Instance(persistent_redis.url, tmp_path, name) for name in ("a", "b")]
    try:
        for instance in started:
            instance.start()
        yield started
    finally:
        for instance in started:
            instance.stop()


# --- resilient players ------------------------------------------------------------------


@dataclasses.dataclass
class Ledger:
    """What the players saw, across all games."""

    acked: dict[str, dict[int, str]] = dataclasses.field(default_factory=dict)
    """room -> move number -> point, from every ``moved`` event any player received."""
    problems: list[str] = dataclasses.field(default_factory=list)
    reconnects: int = 0
    refusals: dict[str, int] = dataclasses.field(default_factory=dict)
    quarter: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)
    """Set once a quarter of all the moves have been acknowledged."""

    def moved(self, room: str, move_no: int, point: str) -> None:
        seen = self.acked.setdefault(room, {})
        if seen.setdefault(move_no, point) != point:
            self.problems.append(f"{room}: move {move_no} was {seen[move_no]}, then {point}")
        if self.total() >= GAMES * MOVES // 4:
            self.quarter.set()

    def total(self) -> int:
        return sum(len(moves) for moves in self.acked.values())


class Player:
    """One seat of one game, playing ``sequence`` (its own colour's moves) to the end."""

    def __init__(
        self, name: str, url: str, parity: int, sequence: list[str], ledger: Ledger
    ) -> None:
        self.name, self.url, self.parity = name, url, parity
        self.sequence, self.ledger = sequence, ledger
        self.ws: ClientConnection | None = None
        self.token: str | None = None
        self.room = ""
        self.seq = 0
        self.moves: list[str] = []
        self.over = False
        self.sent_at = 0.0  # when the current move (or resignation) was last sent

    async def hello(self) -> None:
        self.ws = await connect(self.url, compression=None, open_timeout=5)
        await self.ws.send(encode(m.Hello(name=self.name, token=self.token)))
        welcome = await self.read_until(lambda x: isinstance(x, m.Welcome))
        assert isinstance(welcome, m.Welcome)
        self.token = welcome.token

    async def read_until(self, predicate: Callable[[m.ServerMessage], bool]) -> m.ServerMessage:
        assert self.ws is not None
        while True:
            message = decode_server(await asyncio.wait_for(self.ws.recv(), 20))
            if isinstance(message, m.Event | m.Snapshot):
                self.apply(message)
            if predicate(message):
                return message

    def apply(self, message: m.Event | m.Snapshot) -> None:
        if isinstance(message, m.Snapshot):
            if message.room.id == self.room:
                self.moves, self.seq = list(message.room.moves), message.room.seq
                self.over = message.room.state == "over"
            return
        if message.room != self.room or message.seq <= self.seq:
            return  # a resume may repeat events already seen
        if message.seq != self.seq + 1:
            self.ledger.problems.append(f"{self.name}: event {message.seq} after {self.seq}")
        self.seq = message.seq
        event = message.event
        if isinstance(event, ev.Moved):
            self.moves.append(event.point)
            self.ledger.moved(self.room, event.move_no, event.point)
            if event.move_no != len(self.moves):
                self.ledger.problems.append(f"{self.name}: move_no {event.move_no} {self.moves}")
            self.sent_at = 0.0
        elif isinstance(event, ev.GameOver):
            self.over = True

    async def reconnect(self) -> None:
        """Back to our instance (retrying while it is down), then resume the room."""
        self.ledger.reconnects += 1
        deadline = time.monotonic() + FINISH_TIMEOUT_S
        while True:
            try:
                await self.hello()
                break
            except (OSError, InvalidHandshake, TimeoutError, ConnectionClosed):
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)
        assert self.ws is not None
        await self.ws.send(encode(m.Resume(room=self.room, after=self.seq)))
        self.sent_at = 0.0

    async def play(self) -> None:
        while not self.over:
            try:
                if self.ws is None:
                    await self.reconnect()
                await self.step()
            except (ConnectionClosed, OSError, InvalidStatus):
                self.ws = None
                await asyncio.sleep(0.05)

    async def step(self) -> None:
        assert self.ws is not None
        my_turn = len(self.moves) % 2 == self.parity
        now = time.monotonic()
        if now - self.sent_at > RETRY_S:
            if len(self.moves) == len(self.sequence) and self.parity == 0:
                await self.ws.send(encode(m.Resign(room=self.room)))
                self.sent_at = now
            elif my_turn and len(self.moves) < len(self.sequence):
                point = self.sequence[len(self.moves)]
                await self.ws.send(encode(m.Move(room=self.room, point=point)))
                self.sent_at = now
        try:
            message = decode_server(await asyncio.wait_for(self.ws.recv(), 0.2))
        except TimeoutError:
            return
        if isinstance(message, m.Event | m.Snapshot):
            self.apply(message)
        elif isinstance(message, m.Error):
            refusals = self.ledger.refusals
            refusals[message.code] = refusals.get(message.code, 0) + 1
            if message.code not in RETRY_ERRORS:
                self.ledger.problems.append(f"{self.name}: {message}")


async def seat_games(instances: list[Instance], ledger: Ledger) -> list[tuple[Player, Player]]:
    """GAMES rooms, Black on one instance and White on the other, both seated."""
    games = []
    for i in range(GAMES):
        sequence = quiet_sequence(MOVES, seed=i)
        first, second = instances[i % 2], instances[(i + 1) % 2]
        black = Player(f"black{i}", first.url, 0, sequence, ledger)
        white = Player(f"white{i}", second.url, 1, sequence, ledger)
        await black.hello()
        await white.hello()
        assert black.ws is not None
        assert white.ws is not None
        await black.ws.send(encode(m.CreateRoom(seat="black")))
        snap = await black.read_until(lambda x: isinstance(x, m.Snapshot))
        assert isinstance(snap, m.Snapshot)
        black.room = white.room = snap.room.id
        black.seq = snap.room.seq
        await white.ws.send(encode(m.Join(room=black.room)))
        joined = await white.read_until(lambda x: isinstance(x, m.Snapshot))
        assert isinstance(joined, m.Snapshot)
        white.seq = joined.room.seq
        games.append((black, white))
    return games


async def check_games(
    instance: Instance, games: list[tuple[Player, Player]], ledger: Ledger
) -> None:
    """Every game is over by Black's resignation after exactly the intended moves, its
    log is gap-free, and no acknowledged move is missing or moved."""
    assert not ledger.problems, ledger.problems[:5]
    ws = await connect(instance.url, compression=None, max_size=1 << 22)
    try:
        await ws.send(encode(m.Hello(name="auditor")))
        for index, (black, _) in enumerate(games):
            await ws.send(encode(m.Join(room=black.room, role="spectator", id=index)))
            snap = None
            while not isinstance(snap, m.Snapshot):
                snap = decode_server(await asyncio.wait_for(ws.recv(), 20))
            view = snap.room
            assert view.moves == black.sequence, (view.id, view.moves)
            assert view.state == "over"
            assert view.result is not None
            assert (view.result.winner, view.result.reason) == ("white", "resign")
            for move_no, point in ledger.acked[view.id].items():
                assert view.moves[move_no - 1] == point, (view.id, move_no, point)
            await ws.send(encode(m.Resume(room=view.id, after=0)))
            seqs: list[int] = []
            moved: list[str] = []
            while not seqs or seqs[-1] < view.seq:
                message = decode_server(await asyncio.wait_for(ws.recv(), 20))
                if isinstance(message, m.Event) and message.room == view.id:
                    seqs.append(message.seq)
                    if isinstance(message.event, ev.Moved):
                        moved.append(message.event.point)
            assert seqs == list(range(1, view.seq + 1)), (view.id, seqs)
            assert moved == view.moves
            await ws.send(encode(m.Leave(room=view.id)))
    finally:
        await ws.close()


async def run_games(
    games: list[tuple[Player, Player]], ledger: Ledger, fault: Callable[[], Awaitable[None]]
) -> None:
    """Play every game to its end; ``fault`` strikes once a quarter of the moves are in."""
    tasks = [asyncio.create_task(p.play()) for pair in games for p in pair]
    try:
        async with asyncio.timeout(FINISH_TIMEOUT_S):
            await ledger.quarter.wait()
            await fault()
            await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        for pair in games:
            for player in pair:
                if player.ws is not None:
                    with contextlib.suppress(Exception):
                        await player.ws.close()


# --- the tests -----------------------------------------------------------------------------


@pytest.mark.timeout(240)
async def test_a_server_killed_under_load_loses_no_acknowledged_move(
    instances: list[Instance],
) -> None:
    """SIGKILL one of two instances mid-games and start it again: its players come back
    with their tokens, no acknowledged move is lost, and every game finishes."""
    ledger = Ledger()
    games = await seat_games(instances, ledger)
    victim = instances[0]
    moves_at_kill = 0

    async def kill_and_restart() -> None:
        nonlocal moves_at_kill
        moves_at_kill = ledger.total()
        victim.kill()
        await asyncio.sleep(1.0)
        await asyncio.to_thread(victim.start)

    await run_games(games, ledger, kill_and_restart)
    assert 0 < moves_at_kill < GAMES * MOVES
    assert ledger.reconnects >= GAMES  # every player of the killed instance came back
    await check_games(instances[1], games, ledger)
    assert not instances[1].tracebacks()
    assert not victim.tracebacks()


@pytest.mark.timeout(240)
async def test_a_redis_restart_under_load_corrupts_no_game(
    instances: list[Instance], persistent_redis: RedisServer
) -> None:
    """redis-server is killed and started again (from its append-only file) mid-games:
    the servers ride it out, and every game finishes intact with every acknowledged
    move in place."""
    ledger = Ledger()
    games = await seat_games(instances, ledger)
    moves_at_outage = 0

    async def restart_redis() -> None:
        nonlocal moves_at_outage
        moves_at_outage = ledger.total()
        await asyncio.to_thread(persistent_redis.stop, kill=True)
        await asyncio.sleep(1.0)
        await asyncio.to_thread(persistent_redis.start)

    await run_games(games, ledger, restart_redis)
    assert 0 < moves_at_outage < GAMES * MOVES
    await check_games(instances[0], games, ledger)


@pytest.fixture
async def server(ai_server: GomokuServer) -> GomokuServer:
    """The ``connect`` fixture's server: one that accepts the test bot key."""
    return ai_server


async def ai_game(client: TestClient) -> Person:
    """A room where ``client`` plays White and asks for an AI in Black's seat."""
    snapshot = await client.create(seat="white", time=TimeControl(base_ms=60_000))
    person = Person(client, snapshot.room.id, snapshot.room.rule)
    person.follow(snapshot)
    await client.send(m.SeatAi(room=person.room, level="novice"))
    await client.event(ev.PlayerJoined, person.room)
    await client.event(ev.GameStarted, person.room)
    return person


@pytest.mark.timeout(240)
async def test_a_worker_killed_in_the_middle_of_games_hands_every_seat_over(
    connect: Connect, start_worker: StartWorker, ai_server: GomokuServer
) -> None:
    """SIGKILL the AI worker playing three games at once: after the lease each seat goes
    to the other worker, and every game is played to a legal end."""
    doomed = await worker_process(ai_server, "--seats", "3", "--processes", "1")
    try:
        people = [await ai_game(await connect(f"p{i}")) for i in range(3)]
        await eventually(lambda: len(ai_server.bots.owner) == 3)  # doomed took them all
        heir = await start_worker(seats=3)  # arrives after the seats were given out
        await asyncio.gather(*(p.play(until=lambda p: len(p.moves) >= 3) for p in people))
        doomed.kill()
        await doomed.wait()
        await asyncio.gather(*(p.play() for p in people))
    finally:
        with contextlib.suppress(ProcessLookupError):
            doomed.kill()
        await doomed.wait()
    # Each of the three seats was handed over; on a loaded machine one may be handed over
    # again when the heir's connection for it comes after the test's 0.8 s lease (a
    # fresh-clone CI run counted 4), which is the design, not a lost seat.
    assert ai_server.metrics.counters["gomoku_ai_handovers_total"] >= 3
    assert heir.stats.moves >= 3
    for person in people:
        assert person.over is not None
        board = person.replay()  # raises on an illegal move
        if person.over.reason == "five":
            assert board.result is not None
