"""AI workers for tests: a server that accepts a bot key, in-process workers
sharing one search pool, worker processes, and a "person" who plays on.

Fixtures: ``thinker`` (one warm process pool for the whole session),
``ai_server`` (a running server with short heartbeat and lease timings, on the memory
store and on a real redis-server) and
``start_worker`` (start an in-process :class:`AiWorker` against it and wait
until the server has accepted it; stopped at teardown).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import pytest
from server_fixtures import TestClient, make_config

from engine import Board, Rule, parse_point
from protocol import messages as m
from protocol.backoff import Backoff
from protocol.events import GameOver, Moved, RoomEvent, Undone
from server.app import GomokuServer
from server.config import Bots, ServerConfig
from server.game import GameRules
from server.store.redis import RedisStore
from worker.config import WorkerConfig
from worker.control import AiWorker
from worker.thinker import Thinker

BOT_KEY = "test-bot-key"
FAST_BOTS = Bots(heartbeat_ms=300, lease_ms=800, hint_ms=150, hint_timeout_ms=3_000)
GAME_TIMEOUT_S = 30.0

StartWorker = Callable[..., Awaitable[AiWorker]]


def ai_config(**overrides: Any) -> ServerConfig:
    """Test timings plus a bot key and quick worker liveness checks, and the server's own
    wait before a person is said to be gone (an AI seat's going must still be seen at
    once: the watchdog hands a dead worker's seat over by it)."""
    base = make_config(bot_keys=frozenset({BOT_KEY}), bots=FAST_BOTS)
    rules = dataclasses.replace(base.game, offline_after_ms=GameRules().offline_after_ms)
    return dataclasses.replace(base, **{"game": rules, **overrides})


def worker_config(server: GomokuServer, **overrides: Any) -> WorkerConfig:
    base = WorkerConfig(
        server=f"ws://127.0.0.1:{server.port}",
        bot_key=BOT_KEY,
        seats=2,
        move_time_s=0.15,
        pace_ms=0,
        overhead_ms=100,
        linger_s=0.3,
        backoff=Backoff(initial=0.05, maximum=0.3),
    )
    return dataclasses.replace(base, **overrides)


@pytest.fixture(scope="session")
def thinker() -> Iterator[Thinker]:
    """One warm search pool shared by every in-process worker of the session."""
    pool = Thinker(2)
    pool.start_blocking()
    yield pool
    pool.close()


@pytest.fixture(params=["memory", "redis"])
async def ai_server(
    make_server: Callable[..., Awaitable[GomokuServer]], request: pytest.FixtureRequest
) -> GomokuServer:
    """A server with the AI test timings, on each store: memory, and a real redis-server
    (its AI seats and hints then go through Redis streams)."""
    if request.param == "redis":
        store = RedisStore(request.getfixturevalue("redis_url"))
        return await make_server(ai_config(), store=store)
    return await make_server(ai_config())


@contextlib.asynccontextmanager
async def worker_on(
    server: GomokuServer, thinker: Thinker, **overrides: Any
) -> AsyncIterator[AiWorker]:
    """An in-process worker connected to ``server`` (ready), stopped at the end."""
    worker = AiWorker(worker_config(server, **overrides), thinker=thinker)
    running = asyncio.create_task(worker.run())
    await asyncio.wait_for(worker.ready.wait(), 10)
    try:
        yield worker
    finally:
        await worker.stop()
        await asyncio.wait_for(running, 10)


@pytest.fixture
async def start_worker(ai_server: GomokuServer, thinker: Thinker) -> AsyncIterator[StartWorker]:
    """Start in-process workers against ``ai_server`` (or ``to=``); all stop at teardown."""
    running: list[tuple[AiWorker, asyncio.Task[None]]] = []

    async def start(*, to: GomokuServer | None = None, **overrides: Any) -> AiWorker:
        worker = AiWorker(worker_config(to or ai_server, **overrides), thinker=thinker)
        task = asyncio.create_task(worker.run())
        running.append((worker, task))
        await asyncio.wait_for(worker.ready.wait(), 10)
        return worker

    yield start
    for worker, _ in running:
        await worker.stop()
    for _, task in running:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 10)


async def worker_process(server: GomokuServer, *args: str) -> asyncio.subprocess.Process:
    """``python -m worker`` against ``server``, ready (registered) when this returns."""
    before = {w.id for w in server.bots.live_workers()}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "worker",
        "--server",
        f"ws://127.0.0.1:{server.port}",
        "--log-level",
        "WARNING",
        *args,
        env={**os.environ, "GOMOKU_BOT_KEY": BOT_KEY},
        stdin=asyncio.subprocess.DEVNULL,
    )
    async with asyncio.timeout(30):
        while not {w.id for w in server.bots.live_workers()} - before:
            assert process.returncode is None, "the worker process exited"
            await asyncio.sleep(0.05)
    return process


async def eventually(predicate: Callable[[], object], timeout_s: float = 20.0) -> None:
    """Wait until ``predicate()`` is true (polling), or fail after ``timeout_s``."""
    for _ in range(int(timeout_s / 0.05)):
        if predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"still not true after {timeout_s} s")


class Person:
    """A player who always answers with the first free point of a fixed list far from
    the centre (never five of their own), and records everything that happened."""

    def __init__(self, client: TestClient, room: str, rule: Rule = Rule.FREESTYLE) -> None:
        self.client = client
        self.room = room
        self.rule = rule
        self.moves: list[str] = []
        self.events: list[tuple[int, RoomEvent]] = []
        self.errors: list[m.Error] = []
        self.over: GameOver | None = None
        self.color: str | None = None
        self.clocks_after_ai: list[int] = []

    def follow(self, snapshot: m.Snapshot) -> None:
        view = snapshot.room
        self.moves = list(view.moves)
        if view.players.black is not None and view.players.black.id == self.client.player:
            self.color = "black"
        elif view.players.white is not None and view.players.white.id == self.client.player:
            self.color = "white"

    def to_move(self) -> str:
        return "white" if len(self.moves) % 2 else "black"

    def next_point(self) -> str:
        for row in range(1, 16, 2):
            for col in "acegikmo":
                point = f"{col}{row}"
                if point not in self.moves:
                    return point
        raise AssertionError("no free point left")

    async def play(
        self,
        *,
        until: Callable[[Person], bool] | None = None,
        before_move: Callable[[Person], Awaitable[None]] | None = None,
    ) -> None:
        """Play on (when it is our turn) until the game is over or ``until`` holds."""
        async with asyncio.timeout(GAME_TIMEOUT_S):
            if self.color == self.to_move() and self.over is None:
                await self.client.move(self.room, self.next_point())
            while self.over is None and not (until and until(self)):
                message = await self.client.recv(GAME_TIMEOUT_S)
                if isinstance(message, m.Error):
                    self.errors.append(message)
                    continue
                if not isinstance(message, m.Event) or message.room != self.room:
                    continue
                event = message.event
                self.events.append((message.seq, event))
                if isinstance(event, Moved):
                    self.moves.append(event.point)
                    if event.color != self.color and event.clocks is not None:
                        ai_ms = (
                            event.clocks.black_ms
                            if event.color == "black"
                            else (event.clocks.white_ms)
                        )
                        self.clocks_after_ai.append(ai_ms)
                elif isinstance(event, Undone):
                    del self.moves[len(self.moves) - len(event.points) :]
                elif isinstance(event, GameOver):
                    self.over = event
                    return
                if until and until(self):
                    return
                if self.color == self.to_move() and isinstance(event, Moved | Undone):
                    if before_move is not None:
                        await before_move(self)
                    await self.client.move(self.room, self.next_point())

    def ai_moves(self) -> list[str]:
        return [p for i, p in enumerate(self.moves) if (i % 2 == 0) != (self.color == "black")]

    def replay(self) -> Board:
        """The game on a board of its rule: raises if any move was illegal."""
        board = Board(15, self.rule)
        for point in self.moves:
            board.play(parse_point(point, 15))
        return board
