"""Search speed and depth: nodes per second and the depth reached, before and after.

Gives the same positions, one at a time through ``BOARD``, to Gomocup brains with a
fixed time per move, and reads each brain's own figures from its ``--verbose``
MESSAGE line (depth, nodes, thinking time). Every position is given ``--rounds``
times, A and B alternating, so that a change of machine load hits both alike;
medians are reported. By default A is today's master and B the master of issue 19's
start (``bench/master_19``); the header gives the load averages.

Also, in this process: the cost of one move and undo on the core's board, and
node-limited searches of the same positions (CPU time) with the compiled core and
with the plain-Python one.

    .venv/bin/python bench/ai_speed.py                     # 1 s a position, 3 rounds
    .venv/bin/python bench/ai_speed.py --turn-ms 500 --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

from engine import Board
from engine.ai import LEVELS, backend, new_core
from gomocup.driver import Brain

ROOT = Path(__file__).resolve().parent.parent
FROZEN = ROOT / "bench" / "master_19" / "pbrain.py"
# Middle-game positions from real games (h8 notation), Black or White to move.
POSITIONS = (
    "h8 i9 h9 h10 g8 i8 i10 g10 j8 f8 j7",
    "h8 i9 h9 h7 g8 i8",
    "h8 i7 i8 g8 j9 k10 h9 h10 g9",
    "h8 h9 i8 g8 i9 i10 j10 k11 g10 h11",
    "h8 g9 h9 h10 i8 f8 i11 d6 e7 i9 j8 k8 g10 j7 f11 e12 h11 g11 h5 h7 f9 e8 f12",
    "h8 i8 h9 h10 i9 g7 j10 k11 j9 k9 g9 f9 i10",
    "h8 j9 h10 i8 i9 g9 j7 g10 k8 g8 g7",
    "h8 h9 j9 i8 j8 j7 i10 g8 h7 k10 f7",
    "h8 i9 j8 h10 j10 j9 i11 k9 h9 g9",
    "h8 g7 i9 j10 g9 h9 f8 i10 e7 d6 g10 h11",
)


async def brain_figures(command: str, turn_ms: int) -> list[tuple[int, int, float]]:
    """(depth, nodes, seconds) per position from one run of the brain over them all."""
    brain = await Brain.popen(command)
    figures = []
    try:
        await brain.start(15)
        await brain.info(timeout_turn=turn_ms, timeout_match=0, rule=0)
        for moves in POSITIONS:
            board = Board.from_moves(moves)
            own = len(board) % 2  # the brain is the side to move
            stones = [(p, 1 if n % 2 == own else 2) for n, p in enumerate(board.moves)]
            brain.messages.clear()
            await brain.restart()
            await brain.board(stones, limit=turn_ms / 1000 + 5)
            line = next(m for m in brain.messages if "nodes" in m)
            words = line.split()
            figures.append(
                (
                    int(words[words.index("depth") + 1]),
                    int(words[words.index("nodes") + 1]),
                    float(words[words.index("time") + 1].rstrip("s")),
                )
            )
    finally:
        await brain.quit()
    return figures


def summary(runs: list[list[tuple[int, int, float]]]) -> str:
    nps = [n / t for run in runs for _, n, t in run if t > 0]
    depths = [d for run in runs for d, _, _ in run]
    return (
        f"median {statistics.median(nps):9.0f} nodes/s (range {min(nps):.0f}-{max(nps):.0f}),"
        f" median depth {statistics.median(depths):4.1f} (range {min(depths)}-{max(depths)})"
    )


def play_undo_us(module: ModuleType, repeats: int = 300) -> float:
    """Microseconds of CPU time for one play and undo in a middle-game position."""
    core = new_core(Board.from_moves(POSITIONS[0]), module)
    moves = core.candidates()[:20]
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for _ in range(repeats):
            for m in moves:
                core.play(m)
                core.undo()
        best = min(best, (time.process_time() - start) / (repeats * len(moves)))
    return best * 1e6


def node_limited(module: ModuleType, nodes: int) -> tuple[int, float]:
    """Master searches of every position, ``nodes`` each, fresh tables: (nodes, CPU s)."""
    config = LEVELS["master"].search
    total = 0
    start = time.process_time()
    for moves in POSITIONS:
        core = new_core(Board.from_moves(moves), module)
        core.search(config, 0.0, 0.0, nodes, None)
        total += core.nodes
    return total, time.process_time() - start


def _load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--turn-ms", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--engine-a", default=f"{sys.executable} -m gomocup.brain --level master --verbose"
    )
    parser.add_argument("--engine-b", default=f"{sys.executable} -S {FROZEN} --verbose")
    parser.add_argument("--no-brains", action="store_true", help="only the in-process figures")
    args = parser.parse_args()
    print(
        f"{datetime.datetime.now():%Y-%m-%d %H:%M}  {os.cpu_count()} cores, load {_load()};"
        f" {len(POSITIONS)} positions, AI core in use: {backend.engine_info()['core']}",
        flush=True,
    )
    if not args.no_brains:
        a_runs, b_runs = [], []
        for _ in range(args.rounds):
            a_runs.append(asyncio.run(brain_figures(args.engine_a, args.turn_ms)))
            b_runs.append(asyncio.run(brain_figures(args.engine_b, args.turn_ms)))
        print(f"A {args.engine_a}\n  {summary(a_runs)}")
        print(f"B {args.engine_b}\n  {summary(b_runs)}")
        print(f"  ({args.rounds} rounds of {len(POSITIONS)} positions at {args.turn_ms} ms)")
    compiled = backend.compiled_core()
    for name, module, nodes in (
        ("compiled", compiled, 200_000),
        ("python", backend.pure_core(), 5_000),
    ):
        if module is None:
            print(f"{name:9} core: not installed")
            continue
        total, seconds = node_limited(module, nodes)
        print(
            f"{name:9} core: play+undo {play_undo_us(module):6.2f} us,"
            f" master search {total / seconds:9.0f} nodes per CPU second"
            f" ({total} nodes, {nodes} a position)"
        )
    print(f"load after: {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
