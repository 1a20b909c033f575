"""Plain value types of the game: colours, rules, points, results.

They carry no behaviour beyond what a value needs, so every layer (engine,
protocol, server, client) can share them without importing any logic.
"""

from __future__ import annotations

import enum
from typing import NamedTuple


class Color(enum.IntEnum):
    """A stone colour. The integer values are the board's cell codes."""

    BLACK = 1
    WHITE = 2

    @property
    def other(self) -> Color:
        return Color.WHITE if self is Color.BLACK else Color.BLACK

    @classmethod
    def _missing_(cls, value: object) -> Color | None:
        """A colour by its name too, in any case: ``Color("black")``."""
        if isinstance(value, str):
            return cls.__members__.get(value.strip().upper())
        return None

    def __repr__(self) -> str:
        return f"Color.{self.name}"

    def __str__(self) -> str:
        return self.name.lower()


class Rule(enum.StrEnum):
    """How a game is won, and which moves Black may not play."""

    FREESTYLE = "freestyle"  # five or more wins, for both colours
    STANDARD = "standard"  # exactly five wins; an overline wins for neither
    RENJU = "renju"  # Black: exactly five, no 3x3 / 4x4 / overline; White: five or more

    @classmethod
    def _missing_(cls, value: object) -> Rule | None:
        """A rule's name in any case: ``Rule("RENJU")``."""
        if isinstance(value, str):
            return cls.__members__.get(value.strip().upper())
        return None

    def __repr__(self) -> str:
        return f"Rule.{self.name}"


class Opening(enum.StrEnum):
    """How the first stones are placed and who ends up with which colour."""

    FREE = "free"
    SWAP2 = "swap2"

    def __repr__(self) -> str:
        return f"Opening.{self.name}"


class Foul(enum.StrEnum):
    """Why a renju move is forbidden for Black."""

    DOUBLE_THREE = "double-three"
    DOUBLE_FOUR = "double-four"
    OVERLINE = "overline"

    def __repr__(self) -> str:
        return f"Foul.{self.name}"


class Reason(enum.StrEnum):
    """Why a game ended. The engine decides the first three; the server the rest."""

    FIVE = "five"
    OVERLINE = "overline"  # six or more in a row, where that wins (freestyle; White in renju)
    BOARD_FULL = "board-full"  # a draw: no point left (in renju, none Black may play)
    RESIGN = "resign"
    TIMEOUT = "timeout"
    AGREEMENT = "agreement"
    ABANDON = "abandon"

    def __repr__(self) -> str:
        return f"Reason.{self.name}"


class Point(NamedTuple):
    """A board point in Gomocup coordinates: x is the column from the left,
    y the row from the top, both 0-based. Notation (``h8``) lives in
    :mod:`engine.notation`, the one place that converts."""

    x: int
    y: int


class Result(NamedTuple):
    """How a game ended: the winner (None for a draw), the reason, and for a
    win on the board the points of the winning line, in order along it."""

    winner: Color | None
    reason: Reason
    line: tuple[Point, ...] | None = None
