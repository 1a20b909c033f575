"""Differential testing of renju fouls: positions from games, the oracle, the verdict.

Positions come from renju games played to their end, by a random player and by
the AI (:func:`engine.ai.think` at several levels), and every position in them
with Black to move (from the eighth stone on) is judged twice: by our engine
(:meth:`engine.board.Board.foul` at every empty point) and by the PyPI package
``renju`` (a port of the Piskvork/Gomocup judge's forbidden-move check, asked
point by point with its ``ForbidChecker``). The test suite runs a modest sample
(tests/test_renju_oracle.py); the big run is this module as a script::

    .venv/bin/python tests/renju_diff.py --positions 20000 --save /tmp/positions.txt
    .venv/bin/python tests/renju_diff.py --load /tmp/positions.txt

It prints how many positions and points were compared and every disagreement,
with the position's move list so that it can be replayed. ``--save`` writes
the positions (one ``source size moves`` line each) so that another version of
the engine can be judged on exactly the same ones with ``--load``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from renju.check_forbid import ForbidChecker

from engine.ai import think
from engine.board import Board
from engine.errors import IllegalMoveError
from engine.notation import format_moves, parse_moves
from engine.types import Color, Foul, Point, Rule

FIRST_STONES = 8  # fewer stones than this cannot hold a foul worth testing
AI_LEVELS = ("beginner", "novice", "intermediate", "advanced")
AI_NODE_LIMIT = 1500  # nodes per searched move: quick, and the same on a loaded machine

_ORACLE_FIVE = 9  # what the oracle answers, asked with five=_ORACLE_FIVE, at a five point
_ORACLE_CODES: dict[int, Foul | None] = {
    0: None,
    _ORACLE_FIVE: None,
    1: Foul.DOUBLE_THREE,
    2: Foul.DOUBLE_FOUR,
    3: Foul.OVERLINE,
}


# -- the oracle ------------------------------------------------------------


def oracle_grid(board: Board) -> list[list[int]]:
    """The oracle's board: ``grid[x][y]``, 1 black, 2 white, 0 empty."""
    grid = [[0] * board.size for _ in range(board.size)]
    for k, (x, y) in enumerate(board.moves):
        grid[x][y] = 1 if k % 2 == 0 else 2
    return grid


def oracle_fouls(board: Board) -> dict[Point, Foul | None]:
    """The oracle's foul (or None) at every empty point, Black to move."""
    grid = oracle_grid(board)
    # One checker serves every point: foulr places, judges and takes back its stone.
    checker = ForbidChecker(grid, 0, 0)
    return {
        Point(x, y): _ORACLE_CODES[checker.foulr(x, y, _ORACLE_FIVE)]
        for y in range(board.size)
        for x in range(board.size)
        if not grid[x][y]
    }


Disagreements = dict[Point, tuple[Foul | None, Foul | None]]
"""Points where the fouls differ, with (ours, the oracle's)."""


class _FiveCompletesThreeChecker(ForbidChecker):  # type: ignore[misc]
    """The oracle with issue 20's error put back: inside its recursion a stone
    that makes five counts as a legal straight-four point of a three."""

    def foulr(self, x: int, y: int, five: int) -> int:
        return int(super().foulr(x, y, 0 if five == 1 else five))


def five_decides(board: Board, oracle: dict[Point, Foul | None]) -> list[Point]:
    """The empty points whose verdict turns on the rule that a straight-four
    point that makes five makes no three: those where the oracle judges
    otherwise once that rule is reversed. ``oracle`` is the oracle's verdicts
    on ``board``; only a double-three or a legal point can turn on it."""
    checker = _FiveCompletesThreeChecker(oracle_grid(board), 0, 0)
    return [
        p
        for p, foul in oracle.items()
        if foul in (None, Foul.DOUBLE_THREE)
        and _ORACLE_CODES[checker.foulr(p.x, p.y, _ORACLE_FIVE)] is not foul
    ]


def disagreements(board: Board, oracle: dict[Point, Foul | None]) -> Disagreements:
    """Every empty point where our foul differs from ``oracle`` (the oracle's
    verdicts on ``board``). Also checks that ``forbidden_points()`` lists
    exactly the points ``foul()`` names."""
    forbidden = set(board.forbidden_points())
    found: Disagreements = {}
    for point, theirs in oracle.items():
        ours = board.foul(point)
        assert (ours is not None) is (point in forbidden), (board, point)
        if ours is not theirs:
            found[point] = (ours, theirs)
    return found


# -- the games ---------------------------------------------------------------


def _near(rng: random.Random, around: Point, spread: int) -> Point:
    return Point(around.x + rng.randint(-spread, spread), around.y + rng.randint(-spread, spread))


def random_game(rng: random.Random, size: int = 15) -> Board:
    """A renju game played to its end (a five, or no legal move found) by a
    random player who mostly plays next to stones of its own colour, so that
    threes and fours, and with them fouls, are common."""
    board = Board(size, Rule.RENJU)
    centre = Point(size // 2, size // 2)
    misses = 0
    while not board.is_over() and misses < 200:
        mine = board.stones(board.turn)
        stones = mine if mine and rng.random() < 0.8 else board.moves
        around = rng.choice(stones) if stones else centre
        point = _near(rng, around, 2)
        if board.is_legal(point):
            board.play(point)
            misses = 0
        else:
            misses += 1
    return board


def ai_game(rng: random.Random, black: str, white: str, size: int = 15) -> Board:
    """A renju game played to its end by the AI at the given levels for each
    colour, after two to four random opening stones near the centre."""
    board = Board(size, Rule.RENJU)
    centre = Point(size // 2, size // 2)
    for _ in range(rng.randint(2, 4)):
        while not board.is_legal(point := _near(rng, centre, 2)):
            pass
        board.play(point)
    while not board.is_over() and board.legal_moves():  # Black may be left only fouls
        level = black if board.turn is Color.BLACK else white
        move = think(board, level=level, time_limit=60.0, node_limit=AI_NODE_LIMIT, rng=rng)
        board.play(move.best)
    return board


def black_to_move(game: Board) -> Iterator[Board]:
    """Every position of ``game`` with Black to move and at least FIRST_STONES stones."""
    moves = game.moves
    for n in range(FIRST_STONES, len(moves), 2):
        yield Board.from_moves(moves[:n], size=game.size, rule=Rule.RENJU)


SOURCES = ("random", "ai")


def games(seed: int, sources: Iterable[str] = SOURCES) -> Iterator[tuple[str, Board]]:
    """An endless, seeded stream of (source, finished game) from ``sources``:
    random games and AI games in turn, the AI's levels paired in every combination."""
    rng = random.Random(seed)
    wanted = set(sources)
    pairs = [(b, w) for b in AI_LEVELS for w in AI_LEVELS]
    n = 0
    while True:
        if "random" in wanted:
            yield "random", random_game(rng, rng.choice((15, 15, 15, 19)))
        if "ai" in wanted:
            black, white = pairs[n % len(pairs)]
            yield f"ai-{black}-{white}", ai_game(rng, black, white)
        n += 1


def game_positions(
    count: int, seed: int, sources: Iterable[str] = SOURCES
) -> Iterator[tuple[str, Board]]:
    """``count`` (source, position) pairs with Black to move, from :func:`games`."""
    made = 0
    for source, game in games(seed, sources):
        for board in black_to_move(game):
            if made == count:
                return
            yield source.split("-")[0], board
            made += 1


# -- the script --------------------------------------------------------------


@dataclass
class Tally:
    """What a differential run saw."""

    positions: Counter[str] = field(default_factory=Counter)  # by source
    points: int = 0
    with_fouls: int = 0  # positions where either side names a foul
    fouls: Counter[Foul] = field(default_factory=Counter)  # the oracle's, by kind
    disagreeing: list[tuple[str, Board, Disagreements]] = field(default_factory=list)
    not_replayed: list[str] = field(default_factory=list)
    decided_by_five: Counter[str] = field(default_factory=Counter)  # positions, by source

    def add(self, source: str, board: Board) -> None:
        theirs = oracle_fouls(board)
        self.positions[source] += 1
        self.points += len(theirs)
        named = [f for f in theirs.values() if f is not None]
        self.fouls.update(named)
        wrong = disagreements(board, theirs)
        self.with_fouls += bool(named or wrong)
        if five_decides(board, theirs):
            self.decided_by_five[source] += 1
        if wrong:
            self.disagreeing.append((source, board, wrong))

    def report(self, out: Iterable[str] = ()) -> str:
        pairs = Counter(pair for _, _, wrong in self.disagreeing for pair in wrong.values())
        sources = Counter(source for source, _, _ in self.disagreeing)
        lines = [
            f"positions: {sum(self.positions.values())} ({dict(self.positions)}), "
            f"empty points judged: {self.points}",
            f"positions with a foul: {self.with_fouls}; the oracle's fouls: {dict(self.fouls)}",
            f"positions where a straight-four point that makes five decides a verdict: "
            f"{sum(self.decided_by_five.values())} ({dict(self.decided_by_five)})",
            f"positions that did not replay: {len(self.not_replayed)}",
            f"disagreements: {len(self.disagreeing)} positions ({dict(sources)}), "
            f"{sum(len(w) for _, _, w in self.disagreeing)} points; (ours, oracle's): "
            + ", ".join(f"{a}/{b}: {n}" for (a, b), n in pairs.most_common()),
            *out,
        ]
        return "\n".join(lines)


def _load(path: str) -> Iterator[tuple[str, str]]:
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield tuple(line.rstrip("\n").split(" ", 1))  # type: ignore[misc]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--positions", type=int, default=20000, help="positions to compare")
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--save", help="write the positions to this file")
    parser.add_argument("--load", help="judge the positions in this file instead")
    parser.add_argument("--show", type=int, default=10, help="disagreeing positions to print")
    parser.add_argument("--only", choices=SOURCES, help="positions from this source only")
    args = parser.parse_args(argv)
    tally = Tally()
    started = time.perf_counter()
    saved = open(args.save, "w", encoding="utf-8") if args.save else None  # noqa: SIM115
    try:
        if args.load:
            for source, rest in _load(args.load):
                size_text, moves = rest.split(" ", 1) if " " in rest else (rest, "")
                size = int(size_text)
                try:
                    board = Board.from_moves(parse_moves(moves, size), size=size, rule=Rule.RENJU)
                except IllegalMoveError as e:
                    tally.not_replayed.append(f"{source} {size} {moves}: {e}")
                    continue
                tally.add(source, board)
        else:
            sources = [args.only] if args.only else SOURCES
            for source, board in game_positions(args.positions, args.seed, sources):
                if saved:
                    saved.write(f"{source} {board.size} {format_moves(board.moves, board.size)}\n")
                tally.add(source, board)
    finally:
        if saved:
            saved.close()
    shown = []
    for _, board, wrong in tally.disagreeing[: args.show]:
        shown += [repr(board), board.diagram(marks=wrong), f"(ours, oracle's): {wrong}"]
    shown += tally.not_replayed[: args.show]
    print(tally.report(shown))
    print(f"{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
