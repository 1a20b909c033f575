"""Renju fouls, table-driven from board diagrams.

A diagram is one text row per board row, top row first (``y`` = 0), cells
separated by spaces: ``X`` black, ``O`` white, ``.`` empty, ``*`` the point
under test (empty). The position is reached by real moves (colours
alternate), so a diagram has as many white stones as black ones when Black is
to move; the stones on the bottom one or two rows only balance that count.
"""

from __future__ import annotations

import pytest

from engine.board import Board
from engine.errors import ForbiddenMoveError
from engine.types import Color, Foul, Point, Reason, Result, Rule


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
# a black four already on the board (the diagonal from (4, 1)). A five is never
# forbidden, so by the letter of the rules the row three is real and the
# marked point (with the anti-diagonal three) is a double-three. (Piskvork's
# judge, used as the oracle in test_renju_oracle.py, counts such a three as
# fake; see there.)
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

CASES = [
    pytest.param(DOUBLE_THREE, Foul.DOUBLE_THREE, id="double-three"),
    pytest.param(SPLIT_THREES, Foul.DOUBLE_THREE, id="split-threes-count"),
    pytest.param(DOUBLE_FOUR_BROKEN, Foul.DOUBLE_FOUR, id="double-four-broken-fours"),
    pytest.param(DOUBLE_FOUR_ONE_LINE_3_1_3, Foul.DOUBLE_FOUR, id="double-four-XXX.X.XXX"),
    pytest.param(DOUBLE_FOUR_ONE_LINE_2_2_2, Foul.DOUBLE_FOUR, id="double-four-XX.XX.XX"),
    pytest.param(DOUBLE_FOUR_ONE_LINE_1_3_1, Foul.DOUBLE_FOUR, id="double-four-X.XXX.X"),
    pytest.param(DOUBLE_FOUR_STRAIGHT_AND_CLOSED, Foul.DOUBLE_FOUR, id="double-four-straight"),
    pytest.param(OVERLINE_SOLID, Foul.OVERLINE, id="overline"),
    pytest.param(OVERLINE_FILLED_GAP, Foul.OVERLINE, id="overline-X.XXXX-filled"),
    pytest.param(OVERLINE_NEXT_TO_FOUR, Foul.OVERLINE, id="overline-XXXX.X-filled"),
    pytest.param(FIVE_BESIDE_GAP, None, id="five-XXXX.-then-X"),
    pytest.param(FIVE_AND_DOUBLE_FOUR, None, id="five-and-double-four"),
    pytest.param(FIVE_AND_DOUBLE_THREE, None, id="five-and-double-three"),
    pytest.param(FIVE_AND_OVERLINE, None, id="five-and-overline"),
    pytest.param(FAKE_THREE_COMPLETION_OVERLINE, None, id="fake-three-completion-overline"),
    pytest.param(FAKE_THREE_COMPLETION_DOUBLE_FOUR, None, id="fake-three-completion-4x4"),
    pytest.param(REAL_THREE_COMPLETION_LEGAL, Foul.DOUBLE_THREE, id="real-three-control"),
    pytest.param(THREE_BLOCKED_BY_EDGE, None, id="three-blocked-by-edge"),
    pytest.param(THREE_ONE_FROM_EDGE, Foul.DOUBLE_THREE, id="three-one-from-edge"),
    pytest.param(THREE_BLOCKED_BY_WHITE, None, id="three-blocked-by-white"),
    pytest.param(THREE_WITHOUT_ROOM, None, id="three-without-room"),
    pytest.param(FOUR_THREE, None, id="four-three"),
    pytest.param(THREE_COMPLETED_BY_A_FIVE, Foul.DOUBLE_THREE, id="completion-is-a-five"),
    pytest.param(THREES_AGAINST_LEFT_EDGE, None, id="threes-against-left-edge"),
    pytest.param(THREES_AGAINST_RIGHT_EDGE, None, id="threes-against-right-edge"),
]


@pytest.mark.parametrize(("diagram", "foul"), CASES)
def test_foul_at_marked_point(diagram: str, foul: Foul | None) -> None:
    """The marked point is the given foul for Black (or legal), and forbidden_points agrees."""
    board, point = marked(diagram)
    assert board.turn is Color.BLACK
    assert board.foul(point) is foul
    assert (point in board.forbidden_points()) is (foul is not None)
    assert board.is_legal(point) is (foul is None)


@pytest.mark.parametrize(
    ("diagram", "foul"),
    [
        pytest.param(DOUBLE_THREE, Foul.DOUBLE_THREE, id="double-three"),
        pytest.param(DOUBLE_FOUR_ONE_LINE_3_1_3, Foul.DOUBLE_FOUR, id="double-four"),
        pytest.param(OVERLINE_FILLED_GAP, Foul.OVERLINE, id="overline"),
    ],
)
def test_play_raises_forbidden_move_error_and_keeps_the_board(diagram: str, foul: Foul) -> None:
    """Playing a foul raises ForbiddenMoveError naming it; the position is untouched."""
    board, point = marked(diagram)
    before = board.copy()
    cells = bytes(board.cells)
    with pytest.raises(ForbiddenMoveError) as raised:
        board.play(point)
    assert raised.value.foul is foul
    assert raised.value.point == point
    assert str(foul) in str(raised.value)
    assert board == before
    assert bytes(board.cells) == cells
    assert board.zobrist == before.zobrist
    assert board.turn is Color.BLACK
    assert board[point] is None
    assert board.result is None


# White to move, with O O * O O O on the row (the black stones only keep the count).
WHITE_OVERLINE = """
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. O O * O O O . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
. . . . . . . . . . .
X . X . X . X . X . X
"""


def test_white_overline_is_allowed_and_wins() -> None:
    """White has no fouls: six in a row is a legal move and wins in renju."""
    board, point = marked(WHITE_OVERLINE)
    assert board.turn is Color.WHITE
    assert board.foul(point) is None
    assert board.forbidden_points() == []
    result = board.play(point)
    assert result is not None
    assert result.winner is Color.WHITE
    assert result.reason is Reason.OVERLINE
    assert result.line == tuple(Point(x, 5) for x in range(1, 7))


@pytest.mark.parametrize(
    ("diagram", "line"),
    [
        pytest.param(FIVE_AND_DOUBLE_FOUR, [Point(x, 5) for x in range(1, 6)], id="double-four"),
        pytest.param(FIVE_AND_DOUBLE_THREE, [Point(x, 5) for x in range(1, 6)], id="double-three"),
        pytest.param(FIVE_AND_OVERLINE, [Point(5, y) for y in range(1, 6)], id="overline"),
        pytest.param(FIVE_BESIDE_GAP, [Point(x, 5) for x in range(5)], id="beside-a-gap"),
    ],
)
def test_exact_five_wins_whatever_else_it_makes(diagram: str, line: list[Point]) -> None:
    """A black move making exactly five is legal and wins, with the five as the line."""
    board, point = marked(diagram)
    assert board.play(point) == Result(Color.BLACK, Reason.FIVE, tuple(line))


def test_four_three_is_played() -> None:
    """A four-three is legal: the stone is placed and the game goes on."""
    board, point = marked(FOUR_THREE)
    assert board.play(point) is None
    assert board[point] is Color.BLACK
    assert board.turn is Color.WHITE


# Every forbidden point of one position, of all three kinds, and no other.
SEVERAL_FOULS = """
. . . . . . . . . . . . . . .
. X X X * X X . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . . . . . . . . . . . . .
. . . X X * . . . . . . . . .
. . . . . X . . . . . . . . .
. . . . . X . . . . X . . . .
. . . . . . . . . . X . . . .
. . . . . . . . . . X . . . .
. . . . . . . X X X * . . . .
. . . . . . . . . . . . . . .
O O O O . O O O O . O O O O .
O O O . . . . . . . . . . . .
"""


def test_forbidden_points_lists_exactly_the_fouls() -> None:
    """forbidden_points() returns every foul in row order and nothing else."""
    board, marks = position(SEVERAL_FOULS)
    assert board.forbidden_points() == sorted(marks, key=lambda p: (p.y, p.x))
    assert [board.foul(p) for p in board.forbidden_points()] == [
        Foul.OVERLINE,
        Foul.DOUBLE_THREE,
        Foul.DOUBLE_FOUR,
    ]


def test_no_forbidden_points_when_white_is_to_move() -> None:
    """With White to move nothing is forbidden, and White may play Black's foul point."""
    rows = DOUBLE_THREE.strip().splitlines()
    rows[0] = "X " + rows[0][2:]  # one more black stone, far away: White's turn
    board, point = marked("\n".join(rows))
    assert board.turn is Color.WHITE
    assert board.forbidden_points() == []
    assert board.foul(point) is None
    assert board.play(point) is None


@pytest.mark.parametrize("rule", [Rule.FREESTYLE, Rule.STANDARD])
def test_no_forbidden_points_under_other_rules(rule: Rule) -> None:
    """Outside renju Black may play a double-three, double-four or overline."""
    for diagram in (DOUBLE_THREE, DOUBLE_FOUR_ONE_LINE_3_1_3, OVERLINE_FILLED_GAP):
        board, point = marked(diagram, rule)
        assert board.forbidden_points() == []
        assert board.foul(point) is None
        board.play(point)
        assert board[point] is Color.BLACK
