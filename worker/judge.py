"""Judgements about a position that decide draws and resignations."""

from __future__ import annotations

from engine import Board, Color, Point
from engine.ai.search import MATE_BOUND

_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (-1, 1))
LINE = 5


def can_still_make_five(board: Board, color: Color) -> bool:
    """Whether some line of five cells holds no stone of the other colour, so
    ``color`` could still fill it (conservative: renju's rules on overlines and
    fouls are not considered, so this may say True for a line Black cannot use)."""
    other = color.other
    size = board.size
    for y in range(size):
        for x in range(size):
            for dx, dy in _DIRECTIONS:
                ex, ey = x + (LINE - 1) * dx, y + (LINE - 1) * dy
                if not (0 <= ex < size and 0 <= ey < size):
                    continue
                if all(board[Point(x + k * dx, y + k * dy)] is not other for k in range(LINE)):
                    return True
    return False


def dead_draw(board: Board) -> bool:
    """No empty point can still become part of a five for either side: whatever is
    played, the game can only end in a draw."""
    return not board.is_over() and not any(
        can_still_make_five(board, color) for color in (Color.BLACK, Color.WHITE)
    )


def proven_lost(score: int) -> bool:
    """The search found a forced win for the opponent (its score for the side to move
    is a mate score against it): the only position in which the AI resigns."""
    return score <= -MATE_BOUND
