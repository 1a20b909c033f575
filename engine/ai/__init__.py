"""The AI: pattern evaluation, threat-space search and alpha-beta, at several levels.

    >>> from engine import Board
    >>> from engine.ai import think, hint
    >>> result = think(Board.from_moves("h8 i9 h9"), level="master", time_limit=0.5)
    >>> result.best, result.win_in  # a Point, and own moves to a proven win or None

No I/O, and it starts no threads; it may be called from several threads at once
(each search running at a time has its own core and table; the GIL lets one run at a
time). The clock is a parameter (``time.perf_counter`` by default) and is only read,
so a caller can run the search under any timing.
A search never runs past its budget: it checks the clock every 256 nodes and
answers with the best move of the last completed iteration (or one that the
unfinished iteration has already proved better). The search runs in
:mod:`engine.ai.core` (four layers), compiled when the install could build it
(:func:`engine_info` says which).
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from engine.ai import backend, patterns
from engine.ai.levels import LEVEL_NAMES, LEVELS, Level, get_level, human_move
from engine.ai.search import MATE_BOUND, REASONS, WIN, win_in
from engine.board import Board
from engine.errors import GameOverError
from engine.notation import format_point
from engine.types import Point, Rule

__all__ = [
    "LEVELS",
    "LEVEL_NAMES",
    "WIN",
    "Hint",
    "Level",
    "SearchResult",
    "analysis",
    "analysis_fields",
    "engine_info",
    "forget",
    "get_level",
    "hint",
    "move_budget",
    "new_core",
    "prepare",
    "prepare_tables",
    "think",
]

DEFAULT_MOVE_TIME = 1.0
_SAFETY = 0.8  # share of the budget the search may use: the rest covers set-up, the reply
# and a loaded machine that deschedules the process (bench/ai_strength.py: overrun)


@dataclass(frozen=True)
class SearchResult:
    """The AI's answer: the move, its score for the side to move (``WIN - n`` for a
    win proven ``n`` plies ahead), the principal variation, ``win_in`` (the side to
    move can force five in at most this many of its own moves, proven; None when no
    win is proven), the depth of the last completed iteration, nodes searched, seconds
    spent, and why the move was chosen ("win", "block", "threat", "positional"; "lost"
    when every move loses by force: it is the one that holds out longest)."""

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


_RULE_CODES = {Rule.FREESTYLE: 0, Rule.STANDARD: 1, Rule.RENJU: 2}
_CORES_KEPT = 3
_cores: OrderedDict[tuple[int, Rule, str], Any] = OrderedDict()
_cores_lock = threading.Lock()


def new_core(board: Board, module: ModuleType | None = None, tt_bits: int = 20) -> Any:
    """A fresh :class:`engine.ai.core.root.Core` of ``module`` (default: the one in use, see
    :mod:`engine.ai.backend`) holding ``board``'s position, with a transposition table
    of ``2 ** tt_bits`` entries (16 bytes each)."""
    core = (module or backend.CORE).Core(board.size, _RULE_CODES[board.rule], tt_bits)
    core.set_moves([core.index(p.x, p.y) for p in board.moves])
    return core


def _take_core(board: Board, level: str) -> Any:
    """A core (board and transposition table) for this size, rule and level, set to
    ``board``'s position, to be given back with :func:`_keep_core` after the search.
    Kept between calls, a few at a time: the next move's search finds most of its tree
    already in the table. Weak levels never read a strong level's table. A core is taken
    out of the kept ones while it searches, so a search running at the same time in
    another thread gets a core of its own (two searches in one core crashed the
    interpreter)."""
    with _cores_lock:
        core = _cores.pop((board.size, board.rule, level), None)
    if core is None:
        core = new_core(board)
    else:
        core.set_moves([core.index(p.x, p.y) for p in board.moves])
    return core


def _keep_core(board: Board, level: str, core: Any) -> None:
    """Keep a core a search has finished with, the most recent of its key."""
    with _cores_lock:
        _cores[(board.size, board.rule, level)] = core
        _cores.move_to_end((board.size, board.rule, level))
        while len(_cores) > _CORES_KEPT:
            _cores.popitem(last=False)


def prepare(size: int, rule: Rule, level: Level | str = "master") -> None:
    """Build what a first search of ``level`` on this size and rule would build (the
    pattern tables, a core and its table), so that the first move's clock is spent
    searching. Cheap when it is already done."""
    board, name = Board(size, rule), get_level(level).name
    _keep_core(board, name, _take_core(board, name))


def prepare_tables() -> None:
    """Build the line tables of every rule (about 0.2 s, once a process). A first search
    on a rule whose tables are not built yet builds them on its own clock: call this
    where time is free (a Gomocup brain's START) when the rule may still change."""
    patterns.line_table(True)
    patterns.line_table(False, 10)


def forget() -> None:
    """Drop every kept core and its table: the next search starts cold, its depth and
    nodes not helped by earlier searches (a benchmark, a test)."""
    with _cores_lock:
        _cores.clear()


def engine_info() -> dict[str, str]:
    """Which core runs (compiled or plain Python) and why: see :mod:`engine.ai.backend`."""
    return backend.engine_info()


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
    ``time_left`` the remaining game clock, from which a per-move share is taken; both
    must be finite and not negative (ValueError). Neither counts the set-up of a board
    size and rule's first search in a process (its tables, 0.2-0.5 s once):
    :func:`prepare` does that where time is free. ``node_limit`` also stops the search
    after about that many nodes (a reproducible budget, whatever the machine); ``rng``
    makes the weak levels' random choices repeatable.

    The transposition table of a size, rule and level is kept for the next search (the
    next move finds most of its tree there), so depth and nodes depend on what was
    searched before: :func:`forget` starts cold.
    Raises GameOverError if the game has ended.
    """
    for name, seconds in (("time_limit", time_limit), ("time_left", time_left)):
        if seconds is not None and not (math.isfinite(seconds) and seconds >= 0):
            raise ValueError(f"{name} must be a finite number of seconds >= 0, not {seconds!r}")
    if node_limit is not None and node_limit < 0:
        raise ValueError(f"node_limit must be >= 0, not {node_limit!r}")
    if board.is_over():
        raise GameOverError("the game is over")
    chosen = get_level(level)
    rng = rng or random.Random()
    # Set-up before the clock: a rule's first search in a process builds its tables
    # (0.2-0.5 s), which would otherwise leave the search itself no time at all.
    core = _take_core(board, chosen.name)
    try:
        return _search(board, core, chosen, time_limit, time_left, node_limit, clock, rng)
    finally:
        _keep_core(board, chosen.name, core)


def _search(
    board: Board,
    core: Any,
    chosen: Level,
    time_limit: float | None,
    time_left: float | None,
    node_limit: int | None,
    clock: Callable[[], float],
    rng: random.Random,
) -> SearchResult:
    start = clock()
    budget_s = move_budget(time_limit, time_left, len(board), board.size**2, chosen.max_time)
    if chosen.search is None:
        cell, reason = human_move(core, chosen, rng)
        point = Point(*core.point(cell))
        win = 1 if reason == "win" else None
        score = WIN - 1 if win else 0
        return SearchResult(point, score, [point], win, 1, 1, clock() - start, reason)
    deadline = start + budget_s * _SAFETY

    def read_clock() -> float:
        # A Python-level function on purpose: the compiled search holds the GIL and
        # calls this every 256 nodes; running Python code here lets the interpreter hand
        # the GIL to other threads (a worker process's stop watcher, for one).
        return clock()

    best, score, pv, plies, depth, reason, scores = core.search(
        chosen.search, start, deadline, node_limit or 0, read_clock
    )
    nodes = core.nodes
    if chosen.noise and scores and not plies:
        best, score, pv = _with_noise(best, score, pv, dict(scores), chosen.noise, rng)
    return SearchResult(
        best=Point(*core.point(best)),
        score=score,
        pv=[Point(*core.point(i)) for i in pv],
        win_in=win_in(plies),
        depth=depth,
        nodes=nodes,
        elapsed=clock() - start,
        # A proven loss: the move holds out longest, and a hint says so rather than
        # call it a block (the block may be a foul, or there may be two threats).
        reason="lost" if score <= -MATE_BOUND else REASONS[reason],
    )


def _with_noise(
    best: int, score: int, pv: list[int], scores: dict[int, int], noise: int, rng: random.Random
) -> tuple[int, int, list[int]]:
    """Pick at random among root moves scored within ``noise`` of the best (never
    one that is known to lose)."""
    close = [m for m, s in scores.items() if s >= score - noise and s > -MATE_BOUND]
    if not close:
        return best, score, pv
    move = rng.choice(sorted(close))
    if move == best:
        return best, score, pv
    return move, scores[move], [move]


def hint(
    board: Board, *, time_limit: float = 0.5, clock: Callable[[], float] = time.perf_counter
) -> Hint:
    """The strongest move the AI finds for the side to move within ``time_limit``."""
    result = think(board, level="master", time_limit=time_limit, clock=clock)
    return Hint(result.best, result.reason)


def analysis(board: Board, *, time_limit: float = 1.0) -> dict[str, object]:
    """The AI's fields of ``gomoku analyze --json`` after a master-level search of
    ``time_limit`` seconds (:func:`analysis_fields`)."""
    if board.is_over():
        return analysis_fields(board, None)
    return analysis_fields(board, think(board, level="master", time_limit=time_limit))


def analysis_fields(board: Board, result: SearchResult | None) -> dict[str, object]:
    """The AI's fields of ``gomoku analyze --json`` from a search of ``board``: ``best``
    (an ``h8`` point or null when there was no search: the game is over), ``score``,
    ``pv`` (``h8`` points) and ``win_in``."""
    if result is None:
        return {"best": None, "score": None, "pv": [], "win_in": None}
    return {
        "best": format_point(result.best, board.size),
        "score": result.score,
        "pv": [format_point(p, board.size) for p in result.pv],
        "win_in": result.win_in,
    }
