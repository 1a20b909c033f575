"""The analysis of a position as plain data, ready for JSON.

One pure function, :func:`analyze`, shared by ``gomoku analyze --json`` and
anything else that reports a position (and :func:`run_through`, a line's length).
Points are in ``h8`` notation. The AI adds its own keys (best move, score, principal
variation) to the same object.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.board import Board
from engine.notation import format_point
from engine.types import Color, Point, Result


def analyze(board: Board) -> dict[str, Any]:
    """The position on ``board`` as a JSON-ready dict.

    Keys: ``size``, ``rule``, ``moves`` (the number played), ``to_move``
    (``"black"``/``"white"``, the colour whose turn it would be even after the
    game ended), ``last_move`` (a point or null), ``result`` (null, or
    ``{"winner": "black"|"white"|null, "reason": ...}``), ``winning_line``
    (the points of the winning line in order along it, or null) and
    ``forbidden``: the points Black may not play, empty unless the rule is renju,
    Black is to move and the game goes on. ``forbidden`` is sorted by column,
    then by row number, as a reader scans the board (``a1, a2, .., b1, ..``);
    ``fouls`` maps each of them to its foul (``"double-three"``, ``"double-four"``,
    ``"overline"``).
    """
    size = board.size
    result = board.result
    last = board.last_move
    forbidden = sorted_points(board.forbidden_points(), size)
    return {
        "size": size,
        "rule": str(board.rule),
        "moves": len(board),
        "to_move": str(board.turn),
        "last_move": None if last is None else format_point(last, size),
        "result": _result(result),
        "winning_line": (
            None
            if result is None or result.line is None
            else [format_point(p, size) for p in result.line]
        ),
        "forbidden": [format_point(p, size) for p in forbidden],
        "fouls": {format_point(p, size): str(board.foul(p)) for p in forbidden},
    }


def sorted_points(points: list[Point], size: int) -> list[Point]:
    """``points`` in reading order of ``h8`` names: by column, then row number."""
    return sorted(points, key=lambda p: (p.x, size - p.y))


def _result(result: Result | None) -> dict[str, Any] | None:
    if result is None:
        return None
    winner = result.winner
    return {"winner": None if winner is None else str(winner), "reason": str(result.reason)}


def run_through(stones: Mapping[Point, Color], point: Point) -> int:
    """The most stones of ``point``'s colour in a row through it, along any of the four
    lines (0 for an empty point): a client tells a player why six in a row did not
    win under the standard rule."""
    color = stones.get(point)
    if color is None:
        return 0
    longest = 0
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            x, y = point.x + sign * dx, point.y + sign * dy
            while stones.get(Point(x, y)) is color:
                run += 1
                x, y = x + sign * dx, y + sign * dy
        longest = max(longest, run)
    return longest
