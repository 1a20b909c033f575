"""The AI's swap2 decisions, in both roles (see :mod:`engine.opening` for the rule).

* As the opener it places three stones (B, W, B) that leave the position as even
  as it can find: whoever takes either colour should gain nothing.
* As the second player, after three stones, it takes White (and plays the fourth
  stone) when White stands better, takes Black when Black does, and when the
  position is close to even places two more stones (W, B) that keep it even, so
  that the opener's choice gains nothing either.
* As the opener after five stones it takes the colour that stands better.

"Better" is the search's score for White, the side to move after three or five
stones, from a short search; "close to even" is within :data:`EVEN` of zero. The
balance heuristic scores a candidate shape by the absolute value of that score;
a little randomness among near-equal shapes keeps the openings from repeating.
Pure: no I/O; every search is node-limited, so a decision takes a bounded time.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from engine.ai import backend, new_core
from engine.ai.levels import Level
from engine.ai.search import SearchConfig
from engine.board import Board
from engine.types import Color, Point

Choice = Literal["black", "white", "place2"]

EVEN = 150
"""Scores (White's view, after a short search) within this of zero count as even."""
JUDGE = Level("swap2 judge", SearchConfig(max_depth=5, vct_depth=2, defend_vct=True), None)
"""A 5-ply read: an odd depth, so that the side to move's last word does not swing the
verdict (4 plies read the same openings 400-1500 points lower than 3 or 5)."""
JUDGE_NODES = 20_000
"""Most nodes for judging one position (a 5-ply read of an opening takes 3,000-8,000)."""
DEFAULT_BUDGET_S = 1.0


def _nodes(budget_s: float, judgements: int) -> int:
    """Nodes per judgement so that ``judgements`` of them fit in ``budget_s`` seconds
    (with a cautious speed for the core in use, compiled or plain Python)."""
    speed = 300_000 if backend.is_compiled(backend.CORE) else 3_000
    return max(200, min(JUDGE_NODES, int(budget_s * speed / max(1, judgements))))


@dataclass(frozen=True)
class Decision:
    """What to do at a swap2 choice: the colour to take, or ``place2`` with the two
    stones to place (White's, then Black's); ``move`` is the fourth stone to play
    when taking White after three stones (None otherwise); ``score`` White's score."""

    choice: Choice
    stones: tuple[Point, ...]
    move: Point | None
    score: int


def _judge(board: Board, nodes: int = JUDGE_NODES) -> tuple[Point, int]:
    """The best move and its score for the side to move, from a fresh search (no
    table shared with other searches, so equal positions get equal verdicts)."""
    core = new_core(board, tt_bits=16)
    assert JUDGE.search is not None
    best, score, *_ = core.search(JUDGE.search, 0.0, 0.0, nodes, None)
    return Point(*core.point(best)), score


def white_score(board: Board, nodes: int = JUDGE_NODES) -> int:
    """The search's score for White (to move) on ``board``: positive when White
    stands better. The same at any node limit that lets the 5-ply read finish."""
    _, score = _judge(board, nodes)
    return score if board.turn is Color.WHITE else -score


def _shapes(size: int) -> list[tuple[Point, Point, Point]]:
    """Candidate openings: Black on the centre, White touching it, Black within two
    steps of the centre; one of each up to the board's symmetries."""
    c = size // 2
    centre = Point(c, c)
    shapes = []
    for wx, wy in ((1, 0), (1, 1)):  # White direct or diagonal, as in renju's 26 openings
        white = Point(c + wx, c - wy)
        for dx in range(-2, 3):
            for dy in range(-2, 3):
                black = Point(c + dx, c + dy)
                if black in (centre, white):
                    continue
                shapes.append((centre, white, black))
    return shapes


def opening(
    board: Board, rng: random.Random, candidates: int = 10, budget_s: float = DEFAULT_BUDGET_S
) -> list[Point]:
    """The three stones the opener places on an empty ``board``: of a random sample
    of candidate shapes, one of the most even."""
    shapes = _shapes(board.size)
    sample = rng.sample(shapes, min(candidates, len(shapes)))
    nodes = _nodes(budget_s, len(sample))
    scored = []
    for shape in sample:
        trial = board.copy()
        for p in shape:
            trial.play(p)
        scored.append((abs(white_score(trial, nodes)), shape))
    scored.sort(key=lambda item: item[0])
    best = scored[0][0]
    even = [shape for score, shape in scored if score <= best + EVEN // 3]
    return list(rng.choice(even))


def after_three(
    board: Board, rng: random.Random, candidates: int = 4, budget_s: float = DEFAULT_BUDGET_S
) -> Decision:
    """The second player's choice on a board of three stones (White to move)."""
    nodes = _nodes(budget_s, 2 + candidates + candidates * candidates)
    best, white = _judge(board, nodes)
    if white > EVEN:
        return Decision("white", (), best, white)
    if white < -EVEN:
        return Decision("black", (), None, white)
    stones, balanced = _place_two(board, rng, candidates, nodes)
    return Decision("place2", stones, None, balanced)


def _place_two(
    board: Board, rng: random.Random, candidates: int, nodes: int
) -> tuple[tuple[Point, Point], int]:
    """Two stones (White's, then Black's) near the stones that leave the most even
    position: a few of White's best moves, each with a few of Black's best answers."""
    options: list[tuple[int, float, tuple[Point, Point]]] = []
    for white in _best_moves(board, candidates, nodes):
        after = board.copy()
        after.play(white)
        for black in _best_moves(after, candidates, nodes):
            trial = after.copy()
            trial.play(black)
            if trial.is_over():
                continue
            options.append((abs(white_score(trial, nodes)), rng.random(), (white, black)))
    if not options:  # no pair that leaves a game: fall back to White's best and any reply
        white = _judge(board, nodes)[0]
        after = board.copy()
        after.play(white)
        black = _judge(after, nodes)[0]
        return (white, black), 0
    options.sort()
    score, _, stones = options[0]
    return stones, score


def _best_moves(board: Board, count: int, nodes: int) -> list[Point]:
    """``count`` moves for the side to move: the search's best, then the points whose
    shape is worth most to either side."""
    best = _judge(board, nodes)[0]
    core = new_core(board, tt_bits=10)
    me = core.side()
    shape = sorted(
        (i for i in core.candidates() if core.legal_for(me, i)),
        key=lambda i: (-(core.value_of(1, i) + core.value_of(2, i)), i),
    )
    moves = [best]
    for i in shape:
        point = Point(*core.point(i))
        if point not in moves:
            moves.append(point)
    return moves[:count]


def after_five(board: Board, budget_s: float = DEFAULT_BUDGET_S) -> Decision:
    """The opener's choice on a board of five stones (White to move): the colour that
    stands better (White, which then plays the sixth stone, on a tie)."""
    best, white = _judge(board, _nodes(budget_s, 1))
    if white >= 0:
        return Decision("white", (), best, white)
    return Decision("black", (), None, white)
