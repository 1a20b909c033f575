"""The AI: pattern evaluation, threat-space search and alpha-beta, at several levels.

    >>> from engine import Board
    >>> from engine.ai import think, hint
    >>> result = think(Board.from_moves("h8 i9 h9"), level="master", time_limit=0.5)
    >>> result.best, result.win_in  # a Point, and plies to a forced win or None

Pure: no I/O and no threads. The clock is a parameter (``time.perf_counter`` by
default) and is only read, so a caller can run the search under any timing.
A search never runs past its budget: it checks the clock every 64
nodes and answers with the best move of the last completed iteration (or one that
the unfinished iteration has already proved better).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from engine.ai.levels import LEVEL_NAMES, LEVELS, Level, get_level, human_move
from engine.ai.position import Position
from engine.ai.search import MATE_BOUND, WIN, Outcome, Searcher
from engine.ai.table import table_for
from engine.ai.threats import Budget
from engine.board import Board
from engine.errors import GameOverError
from engine.notation import format_point
from engine.types import Point

__all__ = [
    "LEVELS",
    "LEVEL_NAMES",
    "WIN",
    "Hint",
    "Level",
    "SearchResult",
    "analysis",
    "get_level",
    "hint",
    "move_budget",
    "think",
]

DEFAULT_MOVE_TIME = 1.0
_SAFETY = 0.9  # share of the budget the search may use; the rest covers set-up and reply


@dataclass(frozen=True)
class SearchResult:
    """The AI's answer: the move, its score for the side to move (``WIN - n`` for a
    forced win in ``n`` plies), the principal variation, plies to a forced win (or
    None), the depth of the last completed iteration, nodes searched, seconds
    spent, and why the move was chosen ("win", "block", "threat", "positional")."""

    best: Point
    score: int
    pv: list[Point]
    win_in: int | None
    depth: int
    nodes: int
    elapsed: float
    reason: str


@dataclass(frozen=True)
class Hint:
    """A suggested move for the side to move and why."""

    point: Point
    reason: str


def move_budget(
    time_limit: float | None,
    time_left: float | None,
    stones: int,
    cells: int,
    cap: float | None = None,
) -> float:
    """Seconds to spend on one move: at most ``time_limit`` (per move) and a share
    of ``time_left`` (the whole-game clock) that leaves time for the moves to come."""
    budget = DEFAULT_MOVE_TIME if time_limit is None else time_limit
    if time_left is not None:
        moves_to_come = max(12, min(40, (cells - stones) // 4))
        budget = min(budget, time_left / moves_to_come) if time_limit else time_left / moves_to_come
        budget = min(budget, time_left * 0.5)
    if cap is not None:
        budget = min(budget, cap)
    return max(0.0, budget)


def think(
    board: Board,
    *,
    level: Level | str = "master",
    time_limit: float | None = None,
    time_left: float | None = None,
    node_limit: int | None = None,
    clock: Callable[[], float] = time.perf_counter,
    rng: random.Random | None = None,
) -> SearchResult:
    """The AI's move for the side to move on ``board`` (which is left unchanged).

    ``time_limit`` is the most seconds this move may take (default 1 s);
    ``time_left`` the remaining game clock, from which a per-move share is taken.
    Raises GameOverError if the game has ended.
    """
    start = clock()
    if board.is_over():
        raise GameOverError("the game is over")
    chosen = get_level(level)
    rng = rng or random.Random()
    budget_s = move_budget(time_limit, time_left, len(board), board.size**2, chosen.max_time)
    pos = Position.from_board(board)
    if chosen.search is None:
        cell, reason = human_move(pos, chosen, rng)
        point = pos.point(cell)
        win = 1 if reason == "win" else None
        score = WIN - 1 if win else 0
        return SearchResult(point, score, [point], win, 1, 1, clock() - start, reason)
    budget = Budget(clock, start + budget_s * _SAFETY, node_limit)
    table = table_for((board.size, board.rule, chosen.name))
    outcome = Searcher(pos, chosen.search, budget, table).run(start)
    if chosen.noise and outcome.root_scores and outcome.win_in is None:
        outcome = _with_noise(outcome, chosen.noise, rng)
    return SearchResult(
        best=pos.point(outcome.best),
        score=outcome.score,
        pv=[pos.point(i) for i in outcome.pv],
        win_in=outcome.win_in,
        depth=outcome.depth,
        nodes=budget.nodes,
        elapsed=clock() - start,
        reason=outcome.reason,
    )


def _with_noise(outcome: Outcome, noise: int, rng: random.Random) -> Outcome:
    """Pick at random among root moves scored within ``noise`` of the best (never
    one that is known to lose)."""
    best = outcome.score
    close = [m for m, s in outcome.root_scores.items() if s >= best - noise and s > -MATE_BOUND]
    if not close:
        return outcome
    move = rng.choice(sorted(close))
    if move == outcome.best:
        return outcome
    score = outcome.root_scores[move]
    return Outcome(move, score, [move], None, outcome.depth, outcome.reason, outcome.nodes)


def hint(
    board: Board, *, time_limit: float = 0.5, clock: Callable[[], float] = time.perf_counter
) -> Hint:
    """The strongest move the AI finds for the side to move within ``time_limit``."""
    result = think(board, level="master", time_limit=time_limit, clock=clock)
    return Hint(result.best, result.reason)


def analysis(board: Board, *, time_limit: float = 1.0) -> dict[str, object]:
    """The AI's fields of ``gomoku analyze --json``: ``best`` (an ``h8`` point or
    null when the game is over), ``score``, ``pv`` (``h8`` points) and ``win_in``."""
    if board.is_over():
        return {"best": None, "score": None, "pv": [], "win_in": None}
    result = think(board, level="master", time_limit=time_limit)
    return {
        "best": format_point(result.best, board.size),
        "score": result.score,
        "pv": [format_point(p, board.size) for p in result.pv],
        "win_in": result.win_in,
    }
