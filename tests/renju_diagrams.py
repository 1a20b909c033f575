"""Renju positions as board diagrams, and the helpers that read them (tests/test_renju.py).

A diagram is one text row per board row, top row first (``y`` = 0), cells
separated by spaces: ``X`` black, ``O`` white, ``.`` empty, ``*`` the point
under test (empty). The position is reached by real moves (colours
alternate), so a diagram has as many white stones as black ones when Black is
to move; the stones on the bottom one or two rows only balance that count."""

from __future__ import annotations

from engine.board import Board
from engine.types import Color, Point, Rule


def parse(diagram: str) -> tuple[int, list[Point], list[Point], list[Point]]:
    """Size, black stones, white stones and marked points of a diagram."""
    rows = [line.split() for line in diagram.strip().splitlines()]
    size = len(rows)
    assert all(len(row) == size for row in rows), "a diagram must be square"
    found: dict[str, list[Point]] = {"X": [], "O": [], "*": [], ".": []}
    for y, row in enumerate(rows):
        for x, cell in enumerate(row):
            found[cell].append(Point(x, y))
    return size, found["X"], found["O"], found["*"]


def _reach(board: Board, blacks: list[Point], whites: list[Point]) -> bool:
    """Play the stones in some legal order that ends no game (backtracking)."""
    if not blacks and not whites:
        return True
    black = board.turn is Color.BLACK
    mine = blacks if black else whites
    for k, point in enumerate(mine):
        if not board.is_legal(point):
            continue
        if board.play(point) is None:
            rest = mine[:k] + mine[k + 1 :]
            if _reach(board, rest, whites) if black else _reach(board, blacks, rest):
                return True
        board.undo()
    return False


def position(diagram: str, rule: Rule = Rule.RENJU) -> tuple[Board, list[Point]]:
    """The board a diagram shows and its marked points."""
    size, blacks, whites, marks = parse(diagram)
    assert len(blacks) - len(whites) in (0, 1), "colours alternate, Black first"
    board = Board(size, rule)
    assert _reach(board, blacks, whites), "no legal move order reaches this diagram"
    return board, marks


def marked(diagram: str, rule: Rule = Rule.RENJU) -> tuple[Board, Point]:
    board, marks = position(diagram, rule)
    assert len(marks) == 1
    return board, marks[0]


DOUBLE_THREE = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . X . . . . .
. . . . . X . . . . .
. . . X X * . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . . . . . . .
"""

SPLIT_THREES = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . X . . . . .
. . . . . . . . . . .
. . . . . X . . . . .
. . X . X * . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . . . . . . .
"""

DOUBLE_FOUR_BROKEN = """
. . . . . . . . . . .
. . . . . X . . . . .
. . . . . . . . . . .
. . . . . X . . . . .
. . . . . X . . . . .
. X X . X * . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . O O . . . .
"""

DOUBLE_FOUR_ONE_LINE_3_1_3 = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. X X X . * . X X X .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . O O . . . .
"""

DOUBLE_FOUR_ONE_LINE_2_2_2 = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. X X . X * . X X . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . O . . . . .
"""

DOUBLE_FOUR_ONE_LINE_1_3_1 = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . X . X * X . X . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . . . . . . .
"""

DOUBLE_FOUR_STRAIGHT_AND_CLOSED = """
. . . . . . . . . . .
. . . . . O . . . . .
. . . . . X . . . . .
. . . . . X . . . . .
. . . . . X . . . . .
. . . X X * X . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . O . . . . .
"""

OVERLINE_SOLID = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . X X X * X X . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . O . . . . .
"""

OVERLINE_FILLED_GAP = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . X * X X X X . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . O . . . . .
"""

OVERLINE_NEXT_TO_FOUR = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. X X X X * X . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . O . . . . .
"""


# A stone beyond a gap does not spoil a five: X X X X * . X is exactly five.
FIVE_BESIDE_GAP = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
X X X X * . X . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . O . . . . .
"""

FIVE_AND_DOUBLE_FOUR = """
. . . . . . . . . . .
. . . . . . . . . . .
. . X . . X . . . . .
. . . X . X . . . . .
. . . . X X . . . . .
. X X X X * . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O . . . . . . . . . .
O O O O . O O O O . O
"""

FIVE_AND_DOUBLE_THREE = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . X . X . . . . .
. . . . X X . . . . .
. X X X X * . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . O O O O . .
"""


# Overline along the row, exactly five down the column: the five wins.
FIVE_AND_OVERLINE = """
. . . . . . . . . . .
. . . . . X . . . . .
. . . . . X . . . . .
. . . . . X . . . . .
. . . . . X . . . . .
. . X X X * X X . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . O O O O . O
"""


# The row three O . * X X . has one straight-four point, (8, 5); once the
# marked stone stands, (8, 5) would make an overline down column 8, so it is
# forbidden, the row three is not a three, and the marked point (one real
# three, down column 5) is legal.
FAKE_THREE_COMPLETION_OVERLINE = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . X . .
. . . . . X . . X . .
. . . . . X . . X . .
. . . O . * X X . . .
. . . . . . . . X . .
. . . . . . . . X . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . O O O O . .
"""


# As above, but the completing point (8, 5) would make a double-four (the row
# straight four plus the column four), so it is forbidden and the three is fake.
FAKE_THREE_COMPLETION_DOUBLE_FOUR = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . X . . . . .
. . . . . X . . X . .
. . . O . * X X . . .
. . . . . . . . X . .
. . . . . . . . X . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . O O . . . .
"""


# The control: column 8 holds one stone, (8, 5) is a fine move, both threes are real.
REAL_THREE_COMPLETION_LEGAL = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . X . . . . .
. . . . . X . . . . .
. . . O . * X X . . .
. . . . . . . . X . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . . . . . . .
"""


# The column three X X * touches the top edge: filling (5, 3) gives a four
# with one end on the edge, never a straight four. Only the row three counts.
THREE_BLOCKED_BY_EDGE = """
. . . . . X . . . . .
. . . . . X . . . . .
. . . X X * . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . . . . . . .
"""


# One row further from the edge the column three can become . X X X X . : real.
THREE_ONE_FROM_EDGE = """
. . . . . . . . . . .
. . . . . X . . . . .
. . . . . X . . . . .
. . . X X * . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . . . . . . .
"""

THREE_BLOCKED_BY_WHITE = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . X . . . . .
. . . . . X . . . . .
. . O X X * . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O . . . . . . . .
"""


# O . X X * . O: no point gives . X X X X . between the white stones.
THREE_WITHOUT_ROOM = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . X . . . . .
. . . . . X . . . . .
. O . X X * . O . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O . . . . . . . . .
"""

FOUR_THREE = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . X . . . . .
. . . . . X . . . . .
. O X X X * . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . . . . . . .
"""


# The row three's only straight-four point, (8, 5), is also the five point of
# a black four already on the board (the diagonal from (4, 1)). A stone there
# makes five, not a straight four (RIF: a three is "a row with three stones to
# which you, without at the same time a five in a row is made, can add one more
# stone to attain a straight four"), so the row holds no three and the marked
# point (with the one anti-diagonal three) is legal.
THREE_COMPLETED_BY_A_FIVE = """
. . . . . . . . . . .
. . . . X . . . . . .
. . . . . X . . . . .
. . . . . . X . . . .
. . . . . . . X . . .
. . . O . * X X . . .
. . . . X . . . . . .
. . . X . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . O O O . . .
"""


# Fours in a double-four get no recursive check, and need none. RIF: a FOUR is
# "a row with four stones to which you can add one more stone to attain five
# in a row", and five in a row is "an unbroken row with five stones" (six or
# more is an overline). Here the row O X X X * . X has no four: its only
# completion makes six. With the column's straight four the marked point makes
# one four, and is legal.
FOUR_COMPLETED_ONLY_BY_AN_OVERLINE = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . X . . . . .
. . . . . X . . . . .
. . . . . X . . . . .
. O X X X * . X . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
O O O O . O O . . . .
"""


# The row four O X X X * has one five point, (6, 5), and a stone there would
# also make six down column 6. A five wins whatever else the stone makes, so
# the point is a five point all the same, the row is a four, and with the
# column's straight four the marked point is a double-four (the oracle agrees).
FOUR_WHOSE_FIVE_POINT_ALSO_OVERLINES = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . X X . . . .
. . . . . X X . . . .
. . . . . X X . . . .
. O X X X * . . . . .
. . . . . . X . . . .
. . . . . . X . . . .
. . . . . . . . . . .
O . . . . . . . . . .
O O O O . O O O O . O
"""


# Left edge: the row and both diagonals from the marked point run into the edge
# (| * X X), so none is a three; stones at the end of the row above sit next to
# it in memory but not on the board. Only the column three is real.
THREES_AGAINST_LEFT_EDGE = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
X . X . . . . . . . .
X X . . . . . . . X X
* X X . . . . . . . .
. X . . . . . . . . .
. . X . . . . . . . .
. . . . . . . . . . .
O . . . . . . . . . .
O O O O . O O O O . O
"""


# Right edge: the same, mirrored, with the stones at the start of the next row.
THREES_AGAINST_RIGHT_EDGE = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . X . X
. . . . . . . . . X X
. . . . . . . . X X *
X X . . . . . . . X .
. . . . . . . . X . .
. . . . . . . . . . .
O . . . . . . . . . .
O O O O . O O O O . O
"""
