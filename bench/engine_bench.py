"""Engine speed: play + win check per move, Black's play in renju, and
``forbidden_points()`` on dense renju positions.

Run: ``.venv/bin/python bench/engine_bench.py [--games N] [--positions N] [--seed S]``.
Prints medians next to the targets (play + win check <= 15 us per move,
``forbidden_points()`` <= 3 ms on ~60-stone renju positions). Every figure is
the median of many single calls timed with ``time.perf_counter_ns``, so it
includes the timer's own cost (well under a microsecond).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time

from engine.board import Board
from engine.errors import ForbiddenMoveError
from engine.types import Point, Rule

PLAY_TARGET_US = 15.0
FORBIDDEN_TARGET_MS = 3.0


def _random_order(rng: random.Random, size: int) -> list[Point]:
    points = [Point(x, y) for y in range(size) for x in range(size)]
    rng.shuffle(points)
    return points


def time_random_games(rule: Rule, games: int, rng: random.Random) -> list[int]:
    """Nanoseconds per ``Board.play`` (which includes the win check), over
    random games played to their end (a five, an overline win or a full board)."""
    samples: list[int] = []
    clock = time.perf_counter_ns
    for _ in range(games):
        board = Board(15, rule)
        for point in _random_order(rng, 15):
            if not board.is_legal(point):
                continue
            start = clock()
            result = board.play(point)
            samples.append(clock() - start)
            if result is not None:
                break
    return samples


def _near(rng: random.Random, around: Point, spread: int) -> Point:
    return Point(around.x + rng.randint(-spread, spread), around.y + rng.randint(-spread, spread))


def grow_renju_position(rng: random.Random, stones: int, size: int = 15) -> Board:
    """A renju position with about ``stones`` stones, Black to move and no five:
    Black's stones cluster (each new one near an earlier one), so threes and
    fours, and hence forbidden points, are common; White's are scattered round
    the middle."""
    board = Board(size, Rule.RENJU)
    centre = Point(size // 2, size // 2)
    for _ in range(stones * 50):
        if len(board) >= stones:
            break
        blacks = board.stones(board.turn) if board.turn == 1 else []
        if blacks and rng.random() < 0.85:
            point = _near(rng, rng.choice(blacks), 2)
        else:
            point = _near(rng, centre, 5)
        if not board.is_legal(point):
            continue
        if board.play(point) is not None:
            board.undo()
    if len(board) & 1:
        board.undo()
    return board


def time_black_renju_plays(games: int, rng: random.Random) -> list[int]:
    """Nanoseconds per legal Black ``Board.play`` in renju games grown as above
    (the foul check runs on every Black move)."""
    samples: list[int] = []
    clock = time.perf_counter_ns
    centre = Point(7, 7)
    for _ in range(games):
        board = Board(15, Rule.RENJU)
        for _ in range(2000):
            if board.is_over() or len(board) >= 120:
                break
            black = board.turn == 1
            blacks = board.stones(board.turn) if black else []
            point = _near(rng, rng.choice(blacks), 2) if blacks else _near(rng, centre, 5)
            if not (0 <= point.x < 15 and 0 <= point.y < 15) or board[point] is not None:
                continue
            start = clock()
            try:
                board.play(point)
            except ForbiddenMoveError:
                continue
            elapsed = clock() - start
            if black:
                samples.append(elapsed)
    return samples


def time_forbidden_points(positions: list[Board], repeats: int) -> list[int]:
    samples: list[int] = []
    clock = time.perf_counter_ns
    for _ in range(repeats):
        for board in positions:
            start = clock()
            board.forbidden_points()
            samples.append(clock() - start)
    return samples


def _us(ns: float) -> str:
    return f"{ns / 1000:8.2f} us"


def _ms(ns: float) -> str:
    return f"{ns / 1e6:8.3f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="random games per rule")
    parser.add_argument("--positions", type=int, default=300, help="dense renju positions")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    print(f"Python {platform.python_version()} ({platform.python_implementation()}), ", end="")
    print(f"{os.cpu_count()} cores, {platform.machine()}")

    for rule in (Rule.FREESTYLE, Rule.STANDARD):
        samples = time_random_games(rule, args.games, rng)
        median = statistics.median(samples)
        verdict = "ok" if median / 1000 <= PLAY_TARGET_US else "OVER TARGET"
        print(
            f"play + win check, {rule:<9}: median {_us(median)}  "
            f"(target <= {PLAY_TARGET_US:.0f} us, {verdict}; {len(samples)} moves)"
        )

    seed = rng.getrandbits(32)
    first = time_black_renju_plays(args.games // 2, random.Random(seed))  # fills the memo table
    samples = time_black_renju_plays(args.games // 2, random.Random(seed))  # same games again
    median = statistics.median(samples)
    p90 = statistics.quantiles(samples, n=10)[-1]
    print(
        f"play + foul check, renju Black: median {_us(median)}, p90 {_us(p90)}  "
        f"({len(samples)} moves; first run, memo table filling: "
        f"median {_us(statistics.median(first)).strip()})"
    )

    positions = [grow_renju_position(rng, rng.randint(56, 64)) for _ in range(args.positions)]
    stones = statistics.mean(len(b) for b in positions)
    first = time_forbidden_points(positions, 1)  # fills the memo table of line windows
    samples = time_forbidden_points(positions, 5)
    with_fouls = sum(1 for b in positions if b.forbidden_points())
    median = statistics.median(samples)
    p90 = statistics.quantiles(samples, n=10)[-1]
    verdict = "ok" if median / 1e6 <= FORBIDDEN_TARGET_MS else "OVER TARGET"
    print(
        f"forbidden_points(), renju ~{stones:.0f} stones: median {_ms(median)}, "
        f"p90 {_ms(p90)}, max {_ms(max(samples))}  "
        f"(target <= {FORBIDDEN_TARGET_MS:.0f} ms, {verdict}; {len(positions)} positions, "
        f"{with_fouls} with a forbidden point)"
    )
    first_median = _ms(statistics.median(first)).strip()
    print(f"forbidden_points(), first pass (memo table filling): median {first_median}")


if __name__ == "__main__":
    main()
