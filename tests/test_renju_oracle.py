"""Our renju fouls against an independent referee, on random dense positions and
on positions from random and AI-played renju games.

The oracle is the PyPI package ``renju`` (module ``renju``; a Python port of
the Piskvork/Gomocup judge's forbidden-move check), asked point by point with
its ``ForbidChecker`` (see tests/renju_diff.py). For every empty point of every
position, with Black to move, our foul must equal the oracle's, kind included;
there is no exception. In its recursion the oracle counts a straight-four point
that makes five as no completion of a three, as RIF does (a three is "a row
with three stones to which you, without at the same time a five in a row is
made, can add one more stone to attain a straight four"; issue 20). The test on
game positions also shows that its sample holds positions where that rule
decides a verdict.

The game positions are ``GOMOKU_RENJU_DIFF_POSITIONS`` (600 by default, about
15 s); the big run is tests/renju_diff.py as a script.
"""

from __future__ import annotations

import os
import random
from collections import Counter

from renju.check_forbid import ForbidChecker
from renju_diff import (
    disagreements,
    five_decides,
    game_positions,
    oracle_fouls,
    oracle_grid,
)

from engine.board import Board
from engine.types import Color, Foul, Point, Rule

POSITIONS = 1000
SEED = 20240611
GAME_POSITIONS = int(os.environ.get("GOMOKU_RENJU_DIFF_POSITIONS", "600"))
GAME_SEED = 20


class _ThreesUncheckedChecker(ForbidChecker):  # type: ignore[misc]
    """The oracle without the recursion: every three counts. Used only to show
    that the sample holds fake double-threes that the recursion must clear."""

    def A3(self, line: object, f: object) -> bool:
        return bool(line.A3(self.N))  # type: ignore[attr-defined]


_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


def _black_five_points_near(board: Board, last: Point) -> list[Point]:
    """Empty points on the lines through ``last`` (a black stone) where Black
    would make exactly five."""
    blacks = set(board.stones(Color.BLACK))
    size = board.size

    def run(x: int, y: int, dx: int, dy: int) -> int:
        count = 0
        while (x, y) in blacks:
            count += 1
            x, y = x + dx, y + dy
        return count

    found = []
    for dx, dy in _DIRECTIONS:
        for k in range(-4, 5):
            x, y = last.x + k * dx, last.y + k * dy
            if not (0 <= x < size and 0 <= y < size) or board[Point(x, y)] is not None:
                continue
            if any(
                run(x + ex, y + ey, ex, ey) + run(x - ex, y - ey, -ex, -ey) == 4
                for ex, ey in _DIRECTIONS
            ):
                found.append(Point(x, y))
    return found


def grow_position(rng: random.Random) -> Board:
    """A random renju position, Black to move, no five on the board: Black's
    stones cluster so that threes and fours (and so fouls) are common; White
    mostly blocks a four Black has just made, as a player would."""
    size = rng.choice((15, 15, 15, 11, 19))
    board = Board(size, Rule.RENJU)
    stones = rng.randint(30, 80)
    cx, cy = rng.randrange(3, size - 3), rng.randrange(3, size - 3)
    fives: dict[int, list[Point]] = {}  # Black's five points by move number, for White
    for _ in range(stones * 40):
        if len(board) >= stones:
            break
        last = board.last_move
        if board.turn is Color.WHITE and last is not None and len(board) not in fives:
            fives = {len(board): _black_five_points_near(board, last)}
        if board.turn is Color.BLACK:
            blacks = board.stones(Color.BLACK)
            if blacks and rng.random() < 0.85:
                bx, by = rng.choice(blacks)
                point = Point(bx + rng.randint(-2, 2), by + rng.randint(-2, 2))
            else:
                point = Point(cx + rng.randint(-4, 4), cy + rng.randint(-4, 4))
        elif fives[len(board)] and rng.random() < 0.9:
            point = rng.choice(fives[len(board)])
        elif rng.random() < 0.6:
            point = Point(cx + rng.randint(-5, 5), cy + rng.randint(-5, 5))
        else:
            point = Point(rng.randrange(size), rng.randrange(size))
        if board.is_legal(point) and board.play(point) is not None:
            board.undo()
    if board.turn is Color.WHITE:
        board.undo()
    return board


def fake_double_threes(board: Board, oracle: dict[Point, Foul | None]) -> int:
    """Legal points that would be double-threes if every three counted."""
    checker = _ThreesUncheckedChecker(oracle_grid(board), 0, 0)
    return sum(1 for p, foul in oracle.items() if foul is None and checker.foulr(p.x, p.y, 0) == 1)


def test_fouls_match_the_oracle_on_random_dense_positions() -> None:
    """On 1,000 random dense positions every point's foul (or none) equals the oracle's."""
    rng = random.Random(SEED)
    kinds: Counter[Foul] = Counter()
    with_fouls = fakes = 0
    for n in range(POSITIONS):
        board = grow_position(rng)
        oracle = oracle_fouls(board)
        wrong = disagreements(board, oracle)
        assert not wrong, (
            f"position {n}: {board!r}\n{board.diagram(marks=wrong)}\n"
            f"(ours, oracle's) at the marked points: {wrong}"
        )
        fouls = [foul for foul in oracle.values() if foul is not None]
        kinds.update(fouls)
        with_fouls += bool(fouls)
        if n % 4 == 0:  # a quarter of the sample is enough to show the recursion at work
            fakes += fake_double_threes(board, oracle)
    # The sample must be one where getting the rules wrong shows.
    assert with_fouls >= POSITIONS // 2, with_fouls
    assert min(kinds[foul] for foul in Foul) >= 100, kinds
    assert fakes >= 20, fakes


def test_fouls_match_the_oracle_on_positions_from_games() -> None:
    """Every Black-to-move position of random and AI-played renju games (from the
    eighth stone on): every point's foul (or none) equals the oracle's."""
    kinds: Counter[Foul] = Counter()
    sources: Counter[str] = Counter()
    decided_by_five = 0
    for source, board in game_positions(GAME_POSITIONS, GAME_SEED):
        oracle = oracle_fouls(board)
        wrong = disagreements(board, oracle)
        assert not wrong, (
            f"{source} game position: {board!r}\n{board.diagram(marks=wrong)}\n"
            f"(ours, oracle's) at the marked points: {wrong}"
        )
        sources[source] += 1
        kinds.update(foul for foul in oracle.values() if foul is not None)
        decided_by_five += bool(five_decides(board, oracle))
    assert sources.keys() == {"random", "ai"}, sources
    assert sum(sources.values()) == GAME_POSITIONS
    # Enough fouls of every kind, and of the positions issue 20 is about, to fail on.
    assert min(kinds[foul] for foul in Foul) >= GAME_POSITIONS // 30, kinds
    assert decided_by_five >= GAME_POSITIONS // 100, decided_by_five
