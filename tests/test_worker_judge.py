"""worker/judge.py: when a worker offers or accepts a draw (nobody can make five any more)
and when it resigns (its search proves the game lost)."""

from __future__ import annotations

from engine import Board, Color, Point, Rule
from engine.ai import think
from worker.judge import can_still_make_five, dead_draw, proven_lost


def _blocked_board() -> Board:
    """A 5x5 board filled so that no line of five is free of either colour, with one
    point left empty."""
    rows = ["XOXOX", "XOXOX", "OXOXO", "OXOXO", "XOXO."]
    black = [(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "X"]
    white = [(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "O"]
    order = []
    for i, b in enumerate(black):
        order.append(b)
        if i < len(white):
            order.append(white[i])
    return Board.from_moves([Point(*p) for p in order], size=5, rule=Rule.FREESTYLE)


def test_an_open_board_is_not_a_dead_draw() -> None:
    """With room for fives, nobody should agree to a draw."""
    board = Board.from_moves("h8 i9 h9")
    assert can_still_make_five(board, Color.WHITE)
    assert not dead_draw(board)


def test_a_board_where_no_five_fits_is_a_dead_draw() -> None:
    """When every line of five holds both colours, the game can only be drawn."""
    board = _blocked_board()
    assert not board.is_over()
    assert not can_still_make_five(board, Color.BLACK)
    assert not can_still_make_five(board, Color.WHITE)
    assert dead_draw(board)


def test_only_a_proven_loss_is_resigned() -> None:
    """Facing an open four the search proves the loss; an ordinary position is no loss."""
    lost = think(Board.from_moves("h8 a1 h9 a3 h10 a5 h11"), level="advanced", time_limit=0.3)
    assert proven_lost(lost.score)
    playable = think(Board.from_moves("h8 i9 h9"), level="advanced", time_limit=0.3)
    assert not proven_lost(playable.score)
