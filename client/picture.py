"""What the board shows, as a plain value: stones and the marks on them.

Kept apart from the view model's game state so the board widget, the review
screen and tests can draw any position without a room or a server.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Mapping

from engine.board import Board
from engine.types import Color, Point, Rule


@dataclasses.dataclass(frozen=True, slots=True)
class BoardPicture:
    """A position to draw: ``stones`` by point, the last move, the winning
    line (empty while the game goes on), Black's forbidden points (renju,
    only while Black is to move) and an AI's suggested move (a hint)."""

    size: int = 15
    stones: Mapping[Point, Color] = dataclasses.field(default_factory=dict)
    last: Point | None = None
    line: frozenset[Point] = frozenset()
    forbidden: frozenset[Point] = frozenset()
    hint: Point | None = None

    @classmethod
    def from_moves(
        cls,
        moves: Iterable[Point],
        *,
        size: int = 15,
        rule: Rule = Rule.FREESTYLE,
        line: Iterable[Point] = (),
        show_forbidden: bool = True,
        hint: Point | None = None,
    ) -> BoardPicture:
        """The picture after ``moves`` (Black first, alternating).

        Forbidden points are computed with the engine only for renju, only when
        Black is to move and the game is not over (``line`` empty). The moves
        come from the server, which already refused illegal ones; should a
        move still not fit (a desynchronised client) the stones are drawn
        anyway so the player sees what the server said.
        """
        points = list(moves)
        stones = {p: Color.BLACK if i % 2 == 0 else Color.WHITE for i, p in enumerate(points)}
        win = frozenset(line)
        forbidden: frozenset[Point] = frozenset()
        if show_forbidden and rule is Rule.RENJU and not win and len(points) % 2 == 0:
            board = Board(size, rule)
            try:
                board.play_all(points)
            except ValueError:
                pass
            else:
                if not board.is_over():
                    forbidden = frozenset(board.forbidden_points())
        return cls(
            size=size,
            stones=stones,
            last=points[-1] if points else None,
            line=win,
            forbidden=forbidden,
            hint=hint if hint not in stones else None,
        )


def renju_foul(moves: Iterable[Point], size: int, point: Point) -> str | None:
    """The renju foul Black would commit at ``point`` after ``moves`` (``double-three``,
    ``double-four``, ``overline``), or None: the words a refusal names it by."""
    board = Board(size, Rule.RENJU)
    try:
        board.play_all(moves)
    except ValueError:
        return None
    foul = board.foul(point)
    return None if foul is None else str(foul)


@functools.cache
def star_points(size: int) -> frozenset[Point]:
    """The marked intersections (hoshi) of a ``size`` board: the centre of an
    odd board, and from 13x13 up the four points three lines in from each
    corner (two in on 9..12); from 19x19 up the four side midpoints too."""
    points: set[Point] = set()
    mid = size // 2
    if size % 2 == 1:
        points.add(Point(mid, mid))
    if size >= 9:
        edge = 3 if size >= 13 else 2
        far = size - 1 - edge
        points.update({Point(edge, edge), Point(edge, far), Point(far, edge), Point(far, far)})
        if size >= 19 and size % 2 == 1:
            points.update({Point(mid, edge), Point(mid, far), Point(edge, mid), Point(far, mid)})
    return frozenset(points)
