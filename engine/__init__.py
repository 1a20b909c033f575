"""Gomoku Arena's game engine: pure game logic with no I/O.

The names most callers need are re-exported here::

    >>> from engine import Board, Rule, parse_point
    >>> board = Board(15, Rule.RENJU)
    >>> board.play(parse_point("h8"))
"""

from engine.board import Board
from engine.errors import (
    ForbiddenMoveError,
    GameOverError,
    IllegalMoveError,
    NotationError,
    OccupiedError,
    OffBoardError,
    RecordError,
    UndoError,
)
from engine.notation import (
    format_gomocup,
    format_moves,
    format_point,
    parse_gomocup,
    parse_moves,
    parse_point,
)
from engine.types import Color, Foul, Opening, Point, Reason, Result, Rule

__all__ = [
    "Board",
    "Color",
    "ForbiddenMoveError",
    "Foul",
    "GameOverError",
    "IllegalMoveError",
    "NotationError",
    "OccupiedError",
    "OffBoardError",
    "Opening",
    "Point",
    "Reason",
    "RecordError",
    "Result",
    "Rule",
    "UndoError",
    "format_gomocup",
    "format_moves",
    "format_point",
    "parse_gomocup",
    "parse_moves",
    "parse_point",
]
