"""Our renju fouls against an independent referee on random dense positions.

The oracle is the PyPI package ``renju`` (module ``renju``; a Python port of
the Piskvork/Gomocup judge's forbidden-move check), asked point by point with
its ``ForbidChecker``. For every empty point of every position, with Black to
move, our foul must equal the oracle's, kind included.

One narrow case is judged by the letter of the rules rather than by the
oracle. Inside its recursion the oracle counts a point that makes a five as
forbidden, so a three whose straight-four point is also a five point (of a
black four elsewhere) is, to the oracle, no three. A five is never forbidden,
so by RIF (and our brief) that three is real. Where we disagree with the
oracle, the test therefore asks it again with that one value changed (a five
is legal in the recursion too) and accepts our answer only if the oracle's
verdict at that point changed with it and now equals ours.
``test_renju.py::...[completion-is-a-five]`` pins the case.
"""

from __future__ import annotations

import random
from collections import Counter

from renju.check_forbid import ForbidChecker

from engine.board import Board
from engine.types import Color, Foul, Point, Rule

POSITIONS = 1000
SEED = 20240611

_FIVE = 9  # what the oracle returns, asked with five=_FIVE, for a point that makes five
_CODES: dict[int, Foul | None] = {
    0: None,
    _FIVE: None,
    1: Foul.DOUBLE_THREE,
    2: Foul.DOUBLE_FOUR,
    3: Foul.OVERLINE,
}


class _FiveIsLegalChecker(ForbidChecker):  # type: ignore[misc]
    """The oracle, except that in its recursion a five is legal (see the module doc)."""

    def foulr(self, x: int, y: int, five: int) -> int:
        return int(super().foulr(x, y, 0 if five == 1 else five))


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


def oracle_grid(board: Board) -> list[list[int]]:
    """The oracle's board: ``grid[x][y]``, 1 black, 2 white, 0 empty."""
    grid = [[0] * board.size for _ in range(board.size)]
    for k, (x, y) in enumerate(board.moves):
        grid[x][y] = 1 if k % 2 == 0 else 2
    return grid


def oracle_fouls(board: Board) -> dict[Point, int]:
    """The oracle's code at every empty point: 0 legal, 1 double-three,
    2 double-four, 3 overline, ``_FIVE`` a five."""
    grid = oracle_grid(board)
    # One checker serves every point: foulr places, judges and takes back its stone.
    checker = ForbidChecker(grid, 0, 0)
    return {
        Point(x, y): int(checker.foulr(x, y, _FIVE))
        for y in range(board.size)
        for x in range(board.size)
        if not grid[x][y]
    }


def five_is_legal_code(board: Board, point: Point) -> int:
    return int(_FiveIsLegalChecker(oracle_grid(board), 0, 0).foulr(point.x, point.y, _FIVE))


def fake_double_threes(board: Board, codes: dict[Point, int]) -> int:
    """Legal points that would be double-threes if every three counted."""
    checker = _ThreesUncheckedChecker(oracle_grid(board), 0, 0)
    return sum(
        1 for p, code in codes.items() if _CODES[code] is None and checker.foulr(p.x, p.y, 0) == 1
    )


def test_fouls_match_the_oracle_on_random_dense_positions() -> None:
    """On 1,000 random dense positions every point's foul (or none) equals the oracle's."""
    rng = random.Random(SEED)
    kinds: Counter[Foul] = Counter()
    with_fouls = fakes = by_the_letter = 0
    for n in range(POSITIONS):
        board = grow_position(rng)
        codes = oracle_fouls(board)
        forbidden = set(board.forbidden_points())
        wrong: dict[Point, tuple[Foul | None, Foul | None]] = {}
        for point, code in codes.items():
            ours = board.foul(point)
            assert (ours is not None) is (point in forbidden)
            if ours is _CODES[code]:
                continue
            letter = five_is_legal_code(board, point)
            if _CODES[letter] is not _CODES[code] and ours is _CODES[letter]:
                by_the_letter += 1  # the oracle's five-in-the-recursion case; see the module doc
                continue
            wrong[point] = (ours, _CODES[code])
        assert not wrong, (
            f"position {n}: {board!r}\n{board.diagram(marks=wrong)}\n"
            f"(ours, oracle) at the marked points: {wrong}"
        )
        fouls = [foul for point in forbidden if (foul := board.foul(point)) is not None]
        kinds.update(fouls)
        with_fouls += bool(fouls)
        if n % 4 == 0:  # a quarter of the sample is enough to show the recursion at work
            fakes += fake_double_threes(board, codes)
    # The sample must be one where getting the rules wrong shows.
    assert with_fouls >= POSITIONS // 2, with_fouls
    assert min(kinds[foul] for foul in Foul) >= 100, kinds
    assert fakes >= 20, fakes
    assert by_the_letter < POSITIONS // 10, by_the_letter
