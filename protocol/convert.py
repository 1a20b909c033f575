"""Conversions between wire values and the engine's value types.

Points go through :mod:`engine.notation` only, so there is one place in the
project that knows how ``h8`` maps to Gomocup ``x, y``. Board-size checks need
the room's size, which only the caller knows; a point off that board raises
:class:`engine.errors.NotationError` (the server answers ``off_board``).
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.notation import format_point, parse_point
from engine.types import Color, Point, Result
from protocol.values import ColorName, GameResult

__all__ = [
    "color_from_wire",
    "color_to_wire",
    "point_from_wire",
    "point_to_wire",
    "points_from_wire",
    "points_to_wire",
    "result_to_wire",
]


def point_from_wire(text: str, size: int) -> Point:
    """``"h8"`` -> ``Point(7, 7)`` on a 15x15 board; NotationError if off that board."""
    return parse_point(text, size)


def point_to_wire(point: Point, size: int) -> str:
    """``Point(7, 7)`` -> ``"h8"`` on a 15x15 board."""
    return format_point(point, size)


def points_from_wire(texts: Iterable[str], size: int) -> list[Point]:
    return [parse_point(text, size) for text in texts]


def points_to_wire(points: Iterable[Point], size: int) -> list[str]:
    return [format_point(point, size) for point in points]


def color_to_wire(color: Color) -> ColorName:
    return "black" if color is Color.BLACK else "white"


def color_from_wire(name: ColorName) -> Color:
    return Color.BLACK if name == "black" else Color.WHITE


def result_to_wire(result: Result, size: int) -> GameResult:
    """An engine :class:`Result` as the wire's ``GameResult`` (winner, reason, line)."""
    return GameResult(
        winner=None if result.winner is None else color_to_wire(result.winner),
        reason=result.reason,
        line=None if result.line is None else points_to_wire(result.line, size),
    )
