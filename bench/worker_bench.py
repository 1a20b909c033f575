"""AI worker throughput: N concurrent AI games on one worker, a fixed time per move.

Starts a server in this process and one ``gomoku-ai`` worker process with
``2N`` seats, creates N AI-vs-AI rooms (no clock, so every move gets the fixed
budget ``--move-ms``), waits for every game to end, stops the worker and reads
the counters it wrote. Prints:

* moves per second over the run (all games together),
* the share of moves sent within their budget (from the moment the worker
  learnt it was its turn to the moment its move went out),
* the share of moves played by the quick level because the search pool had no
  time left for them (a pool with fewer processes than games queues searches),
* the event-loop stall: the longest gap between two ticks of a 10 ms heartbeat
  task inside the worker (about 10 ms when nothing blocks the loop), and the
  most CPU time the loop's thread used between two ticks (the part of a gap
  that was work on the loop rather than waiting for a CPU on a busy machine).

Run: ``.venv/bin/python bench/worker_bench.py [--games N] [--move-ms MS]
[--processes P] [--level LEVEL] [--limit-s S]``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import platform
import signal
import tempfile
import time
from pathlib import Path

from harness import BOT_KEY, worker_process
from websockets.asyncio.client import connect as ws_connect

from protocol import messages as m
from protocol.codec import decode_server, encode
from protocol.events import GameOver, Moved
from protocol.limits import MAX_SERVER_FRAME
from server.app import GomokuServer
from server.config import ConnectionLimits, ServerConfig


@dataclasses.dataclass
class Run:
    games: int
    finished: int
    moves_seen: int
    wall_s: float
    stats: dict[str, float]


async def run(games: int, move_ms: int, processes: int, level: str, limit_s: float) -> Run:
    config = ServerConfig(
        host="127.0.0.1",
        port=0,
        bot_keys=frozenset({BOT_KEY}),
        limits=ConnectionLimits(
            ping_interval_s=None,
            ping_timeout_s=None,
            max_conns_per_ip=0,
            new_players_per_ip=0,
            rooms_per_ip=0,
            rate_per_s=1000,
            max_rooms_per_player=1_000_000,  # one bench client starts every game
        ),
    )
    server = GomokuServer(config)
    await server.start()
    stats_file = Path(tempfile.mkdtemp()) / "stats.json"
    worker = await worker_process(
        server.port,
        "--seats",
        str(2 * games),
        "--processes",
        str(processes),
        "--move-time",
        str(move_ms / 1000),
        "--levels",
        level,
        "--linger",
        "0",
        "--pace",
        "0",
        "--stats",
        str(stats_file),
    )
    try:
        for _ in range(600):  # the worker process starts its pool, then registers
            if server.bots.live_workers():
                break
            await asyncio.sleep(0.05)
        async with ws_connect(
            f"ws://127.0.0.1:{server.port}/", compression=None, max_size=MAX_SERVER_FRAME
        ) as ws:
            await ws.send(encode(m.Hello(name="bench", id=0)))
            await ws.recv()
            start = time.perf_counter()
            for i in range(games):
                await ws.send(encode(m.CreateAiGame(black=level, white=level, id=i + 1)))
            rooms: set[str] = set()
            finished = moves = 0
            deadline = start + limit_s
            while finished < games and time.perf_counter() < deadline:
                try:
                    data = await asyncio.wait_for(ws.recv(), deadline - time.perf_counter())
                except TimeoutError:
                    break
                message = decode_server(data)
                if isinstance(message, m.Snapshot):
                    rooms.add(message.room.id)
                elif isinstance(message, m.Error):
                    raise SystemExit(f"the server refused a game: {message.message}")
                elif isinstance(message, m.Event) and message.room in rooms:
                    if isinstance(message.event, Moved):
                        moves += 1
                    elif isinstance(message.event, GameOver):
                        finished += 1
            wall = time.perf_counter() - start
    finally:
        worker.send_signal(signal.SIGTERM)
        await worker.wait()
        await server.stop()
    stats = json.loads(stats_file.read_text())
    return Run(games, finished, moves, wall, stats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=8, help="concurrent AI-vs-AI games (8)")
    parser.add_argument("--move-ms", type=int, default=200, help="time per move in ms (200)")
    parser.add_argument(
        "--processes", type=int, default=os.cpu_count() or 1, help="search processes (CPUs)"
    )
    parser.add_argument("--level", default="master", help="the level both sides play (master)")
    parser.add_argument("--limit-s", type=float, default=300.0, help="stop after this long (300)")
    args = parser.parse_args()
    result = asyncio.run(run(args.games, args.move_ms, args.processes, args.level, args.limit_s))
    s = result.stats
    moves = int(s["moves"]) or 1
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    print(
        f"worker: {args.games} concurrent games ({2 * args.games} seats), level {args.level}, "
        f"{args.move_ms} ms per move, {args.processes} search processes"
    )
    print(f"games finished:        {result.finished}/{result.games} in {result.wall_s:.1f} s")
    print(f"moves:                 {int(s['moves'])} ({result.moves_seen} seen by the server)")
    print(f"moves per second:      {s['moves'] / result.wall_s:.1f}")
    print(
        f"within budget:         {100 * s['within_budget'] / moves:.1f}% "
        f"(worst overrun {s['max_over_ms']:.1f} ms)"
    )
    print(f"mean time per move:    {s['think_ms_total'] / moves:.0f} ms")
    print(f"quick moves (no time): {100 * s['quick_moves'] / moves:.1f}%")
    print(f"event-loop stall:      longest gap {s['loop_max_gap_ms']:.1f} ms in a 10 ms heartbeat")
    print(f"  of which loop busy:  {s['loop_max_busy_ms']:.1f} ms CPU at most between two ticks")
    print(f"refused by the server: {int(s['refused'])}")


if __name__ == "__main__":
    main()
