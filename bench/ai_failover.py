"""AI pool failover: how long AI games stand still when the worker playing them is killed.

Starts a throw-away redis-server, two server instances on it in this process (A and B,
the AI lease ``--lease-ms``), and a worker process connected to A that takes every seat
of ``--games`` AI-vs-AI games (no clock, ``--move-ms`` per move), each watched by a
spectator (paced: each move takes ``--move-ms``, so the games last long enough to be
killed in the middle). Then a second worker process joins through B, the first is
killed with SIGKILL (the games are a few moves in by then), and the games are played to
their end. Prints, per game, the longest it stood still after the kill (the recovery:
the lease, the handover back to the pool, the other worker taking the seat, its first
move, paced), and checks that no move the spectators saw was lost: every game's moves
were announced numbered without a gap.

Run: ``.venv/bin/python bench/ai_failover.py [--games N] [--lease-ms MS] [--move-ms MS]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import itertools
import signal
import time
from collections.abc import Callable

from harness import BOT_KEY, environment, percentile, record, redis_server, worker_process
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect

from protocol import messages as m
from protocol.codec import decode_server, encode
from protocol.events import GameOver, Moved
from server.app import GomokuServer
from server.config import Bots, ServerConfig
from server.store.redis import RedisStore


@dataclasses.dataclass
class Watched:
    """One AI-vs-AI game as its spectator saw it."""

    room: str
    moves: list[int] = dataclasses.field(default_factory=list)
    """``move_no`` of every move announced, in order."""
    after_kill: list[float] = dataclasses.field(default_factory=list)
    """When each move after the kill was announced (monotonic seconds)."""
    over: GameOver | None = None

    def stall_s(self, killed_at: float) -> float | None:
        """The longest the game stood still after the kill: the longest wait for a move,
        counted from the kill for the first (a move already on its way when the worker
        died arrives at once and does not hide the stall that follows)."""
        if not self.after_kill:
            return None
        times = [killed_at, *self.after_kill]
        return max(later - earlier for earlier, later in itertools.pairwise(times))


async def worker(server: GomokuServer, seats: int, move_ms: int) -> asyncio.subprocess.Process:
    """``python -m worker`` connected to ``server``, once the server has it."""
    before = {w.id for w in server.bots.live_workers()}
    process = await worker_process(
        server.port,
        "--seats",
        str(seats),
        "--levels",
        "novice",
        "--move-time",
        str(move_ms / 1000),
        "--pace",
        str(move_ms),
    )
    await until(lambda: bool({w.id for w in server.bots.live_workers()} - before), 60)
    return process


async def until(predicate: Callable[[], bool], timeout_s: float) -> None:
    """Wait (polling) until ``predicate()`` holds; give up after ``timeout_s``."""
    for _ in range(int(timeout_s / 0.05)):
        if predicate():
            return
        await asyncio.sleep(0.05)
    raise SystemExit(f"still waiting after {timeout_s} s")


async def watch(ws: ClientConnection, game: Watched, killed_at: list[float]) -> None:
    """Follow the game to its end, noting each move and the first one after the kill."""
    while game.over is None:
        message = decode_server(await ws.recv())
        if not isinstance(message, m.Event) or message.room != game.room:
            continue
        if isinstance(message.event, Moved):
            game.moves.append(message.event.move_no)
            if killed_at:
                game.after_kill.append(time.monotonic())
        elif isinstance(message.event, GameOver):
            game.over = message.event


async def spectator(port: int, name: str) -> tuple[ClientConnection, Watched]:
    """A player on ``port`` who creates an AI-vs-AI game and watches it."""
    ws = await ws_connect(f"ws://127.0.0.1:{port}/", compression=None, max_size=1 << 22)
    await ws.send(encode(m.Hello(name=name, id=1)))
    while not isinstance(decode_server(await ws.recv()), m.Welcome):
        pass
    await ws.send(encode(m.CreateAiGame(black="novice", white="novice", id=2)))
    while True:
        reply = decode_server(await ws.recv())
        if isinstance(reply, m.Snapshot):
            return ws, Watched(reply.room.id)
        if isinstance(reply, m.Error):
            raise SystemExit(f"create_ai_game refused: {reply.code}: {reply.message}")


async def run(games: int, lease_ms: int, move_ms: int) -> list[str]:
    bots = Bots(lease_ms=lease_ms, heartbeat_ms=min(5_000, lease_ms))
    config = ServerConfig(host="127.0.0.1", port=0, bot_keys=frozenset({BOT_KEY}), bots=bots)
    with redis_server() as url:
        servers = [GomokuServer(config, store=RedisStore(url)) for _ in range(2)]
        for server in servers:
            await server.start()
        a, b = servers
        doomed = await worker(a, 2 * games, move_ms)
        heir: asyncio.subprocess.Process | None = None
        sockets: list[ClientConnection] = []
        try:
            watched = []
            for i in range(games):  # on B: the rooms' instance has no worker of its own
                ws, game = await spectator(b.port, f"watcher{i}")
                sockets.append(ws)
                watched.append(game)
            killed_at: list[float] = []
            watchers = [
                asyncio.create_task(watch(ws, game, killed_at))
                for ws, game in zip(sockets, watched, strict=True)
            ]
            await until(lambda: len(a.bots.owner) == 2 * games, 120)  # all on the doomed one
            heir = await worker(b, 2 * games, move_ms)
            at_kill = [len(g.moves) for g in watched]
            doomed.send_signal(signal.SIGKILL)
            killed_at.append(time.monotonic())
            await doomed.wait()
            async with asyncio.timeout(600):
                await asyncio.gather(*watchers)
            lost = 0
            for game in watched:
                if game.moves != list(range(1, len(game.moves) + 1)):
                    lost += 1
            stalls = [g.stall_s(killed_at[0]) for g in watched]
            recoveries = [stall for stall in stalls if stall is not None]
            finished = [g.over for g in watched if g.over is not None]
            reasons = sorted({o.reason for o in finished})
            handovers = sum(s.metrics.counters["gomoku_ai_handovers_total"] for s in servers)
        finally:
            for ws in sockets:
                await ws.close()
            for process in (doomed, heir):
                if process is not None and process.returncode is None:
                    process.terminate()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(process.wait(), 10)
            for server in servers:
                await server.stop()
    return [
        *environment(),
        f"{games} AI-vs-AI games (novice, paced to {move_ms} ms a move, no clock) in rooms "
        f"on instance B; their worker on instance A killed (SIGKILL) once a second worker joined B "
        f"(moves made by then: {', '.join(map(str, at_kill))})",
        f"AI lease: {lease_ms} ms (how long a gone worker's seats wait for it; the recovery "
        f"is about the lease plus one paced move)",
        f"recovery, the longest a game stood still after the kill: "
        f"p50 {percentile(recoveries, 50):.2f} s, max {max(recoveries):.2f} s "
        f"(n={len(recoveries)})",
        f"seats handed over: {handovers} of {2 * games}",
        f"games finished: {len(finished)} of {games} ({', '.join(reasons)})",
        f"games whose announced moves had a gap: {lost}",
        *(
            f"  {g.room}: {len(g.moves)} moves, "
            f"{'no move' if stall is None else f'stood still {stall:.2f} s'} after the kill, "
            f"{'not over' if g.over is None else f'{g.over.winner} by {g.over.reason}'}"
            for g, stall in zip(watched, stalls, strict=True)
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--lease-ms", type=int, default=Bots().lease_ms)
    parser.add_argument("--move-ms", type=int, default=300)
    args = parser.parse_args()
    lines = asyncio.run(run(args.games, args.lease_ms, args.move_ms))
    print("\n".join(lines))
    record("AI pool failover (bench/ai_failover.py)", lines)


if __name__ == "__main__":
    main()
