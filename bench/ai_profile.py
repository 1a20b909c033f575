"""Where the AI's time goes: cProfile over a few master searches, and the raw speed.

Prints nodes per second of CPU time (node-limited searches, so the figure does
not depend on how loaded the machine is as much as wall-clock time would), the
cost of one move and undo on the search's board, and the profile's top entries
by own time.

    .venv/bin/python bench/ai_profile.py
    .venv/bin/python bench/ai_profile.py --nodes 30000 --top 25
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time

from engine import Board
from engine.ai import table, think
from engine.ai.position import Position

POSITIONS = (
    "h8 i9 h9 h10 g8 i8 i10 g10 j8 f8 j7",
    "h8 i9 h9 h7 g8 i8",
    "h8 i7 i8 g8 j9 k10 h9 h10 g9",
    "h8 h9 i8 g8 i9 i10 j10 k11 g10 h11",
    "h8 g9 h9 h10 i8 f8 i11 d6 e7 i9 j8 k8 g10 j7 f11 e12 h11 g11 h5 h7 f9 e8 f12",
)


def searches(nodes: int) -> tuple[int, float]:
    """Node-limited master searches of every position: (nodes, CPU seconds)."""
    table.forget()
    total = 0
    start = time.process_time()
    for moves in POSITIONS:
        result = think(Board.from_moves(moves), time_limit=60, node_limit=nodes)
        total += result.nodes
    return total, time.process_time() - start


def move_and_undo_cost(repeats: int = 300) -> float:
    """Microseconds of CPU time for one play and undo in a middle-game position."""
    pos = Position.from_board(Board.from_moves(POSITIONS[0]))
    moves = pos.candidates()[:20]
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for _ in range(repeats):
            for m in moves:
                pos.play(m)
                pos.undo()
        best = min(best, (time.process_time() - start) / (repeats * len(moves)))
    return best * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--nodes", type=int, default=20_000, help="node limit per search")
    parser.add_argument("--top", type=int, default=15, help="profile entries to print")
    args = parser.parse_args()
    think(Board.from_moves("h8"), time_limit=0.1)  # build the tables first
    best = float("inf")
    nodes = 0
    for _ in range(3):
        nodes, seconds = searches(args.nodes)
        best = min(best, seconds)
    print(f"{len(POSITIONS)} searches, {nodes} nodes, {best:.3f} s CPU: {nodes / best:.0f} nodes/s")
    print(f"play + undo: {move_and_undo_cost():.1f} us")
    profiler = cProfile.Profile()
    profiler.enable()
    searches(args.nodes)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(args.top)
    print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
