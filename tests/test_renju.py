"""Renju fouls, table-driven from board diagrams (tests/renju_diagrams.py says how a
diagram reads)."""

from __future__ import annotations

import json

import pytest
from renju_diagrams import (
    DOUBLE_FOUR_BROKEN,
    DOUBLE_FOUR_ONE_LINE_1_3_1,
    DOUBLE_FOUR_ONE_LINE_2_2_2,
    DOUBLE_FOUR_ONE_LINE_3_1_3,
    DOUBLE_FOUR_STRAIGHT_AND_CLOSED,
    DOUBLE_THREE,
    FAKE_THREE_COMPLETION_DOUBLE_FOUR,
    FAKE_THREE_COMPLETION_OVERLINE,
    FIVE_AND_DOUBLE_FOUR,
    FIVE_AND_DOUBLE_THREE,
    FIVE_AND_OVERLINE,
    FIVE_BESIDE_GAP,
    FOUR_COMPLETED_ONLY_BY_AN_OVERLINE,
    FOUR_THREE,
    FOUR_WHOSE_FIVE_POINT_ALSO_OVERLINES,
    OVERLINE_FILLED_GAP,
    OVERLINE_NEXT_TO_FOUR,
    OVERLINE_SOLID,
    REAL_THREE_COMPLETION_LEGAL,
    SPLIT_THREES,
    THREE_BLOCKED_BY_EDGE,
    THREE_BLOCKED_BY_WHITE,
    THREE_COMPLETED_BY_A_FIVE,
    THREE_ONE_FROM_EDGE,
    THREE_WITHOUT_ROOM,
    THREES_AGAINST_LEFT_EDGE,
    THREES_AGAINST_RIGHT_EDGE,
    marked,
    position,
)

from client.cli import main as cli_main
from engine import renju
from engine.board import Board
from engine.errors import ForbiddenMoveError
from engine.notation import parse_moves, parse_point
from engine.types import Color, Foul, Point, Reason, Result, Rule

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
    pytest.param(THREE_COMPLETED_BY_A_FIVE, None, id="completion-is-a-five"),
    pytest.param(FOUR_COMPLETED_ONLY_BY_AN_OVERLINE, None, id="four-completed-only-by-six"),
    pytest.param(
        FOUR_WHOSE_FIVE_POINT_ALSO_OVERLINES, Foul.DOUBLE_FOUR, id="four-whose-five-point-overlines"
    ),
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


# -- a straight-four point that makes five makes no three (issue 20) ----------
#
# RIF, terms and definitions: THREE "A row with three stones to which you,
# without at the same time a five in a row is made, can add one more stone to
# attain a straight four." The positions are the issue's, given by Black's
# stones; White's sit in a far corner and only keep the count.

RIF_THREE = (
    "A row with three stones to which you, without at the same time a five in a row "
    "is made, can add one more stone to attain a straight four."
)
WHITES_BOTTOM_LEFT = "a1 b1 c1 d1 a2 b2 c2"
WHITES_BOTTOM_RIGHT = "o1 n1 m1 l1 o2 n2 m2"


def black_to_move(blacks: str, whites: str, size: int = 15) -> Board:
    """The renju position after Black's and White's stones, played alternately."""
    board = Board(size, Rule.RENJU)
    black, white = parse_moves(blacks, size), parse_moves(whites, size)
    assert len(black) == len(white)
    for b, w in zip(black, white, strict=True):
        assert board.play(b) is None
        assert board.play(w) is None
    return board


@pytest.mark.parametrize(
    ("blacks", "whites", "move", "five", "foul"),
    [
        # Row 10's only straight-four point i10 completes g12-h11-i10-j9-k8: no three there.
        pytest.param(
            "g12 h10 h11 j10 j9 k7 k8", WHITES_BOTTOM_LEFT, "k10", "i10", None, id="k10-legal"
        ),
        # Without g12 and h11 (moved to a15, c15) i10 makes a plain straight four: two threes.
        pytest.param(
            "a15 h10 c15 j10 j9 k7 k8",
            WHITES_BOTTOM_LEFT,
            "k10",
            None,
            Foul.DOUBLE_THREE,
            id="k10-control",
        ),
        # b9-c8-d7's only straight-four point e6 completes e6-f7-g8-h9-i10: no three there.
        pytest.param("b9 c8 f7 g7 g8 h9 i10", WHITES_BOTTOM_RIGHT, "d7", "e6", None, id="d7-legal"),
        # Without h9 and i10 (moved to a15, c15) e6 makes a plain straight four: two threes.
        pytest.param(
            "b9 c8 f7 g7 g8 a15 c15",
            WHITES_BOTTOM_RIGHT,
            "d7",
            None,
            Foul.DOUBLE_THREE,
            id="d7-control",
        ),
    ],
)
def test_a_straight_four_point_that_makes_five_makes_no_three(
    blacks: str, whites: str, move: str, five: str | None, foul: Foul | None
) -> None:
    """Issue 20's examples: the move's verdict, and the straight-four point that
    makes five (when there is one) wins on the spot."""
    board = black_to_move(blacks, whites)
    point = parse_point(move)
    assert board.foul(point) is foul, RIF_THREE
    assert (point in board.forbidden_points()) is (foul is not None)
    if five is not None:
        won = board.copy()
        result = won.play(parse_point(five))
        assert result is not None
        assert (result.winner, result.reason) == (Color.BLACK, Reason.FIVE)
        assert board.play(point) is None  # the move is played and the game goes on
        assert board[point] is Color.BLACK


# The same rule one level down, in a position from a random game (19x19) that
# the engine used to let Black play. j10 makes a four (row 10, h10-k10) and
# threes down column j (straight-four point j8) and up the anti-diagonal
# (straight-four point k11). With j10 placed, j8 makes a four (column j) and a
# "three" on the diagonal whose only straight-four point, i9, completes the
# five f9-g9-h9-i9-j9: no three, so j8 is a legal four-three, the column three
# is real and j10 is a four-three-three, a double-three. (Before the fix i9
# counted as a legal completion, j8 was a double-three, the column three was
# fake and j10 was allowed; the oracle in test_renju_oracle.py says foul.)
FOUR_THREE_THREE_ONE_LEVEL_DOWN = (
    "i12 g14 i10 i13 j9 f13 g11 h15 h10 k14 j7 d15 h12 d14 g12 f17 g9 e18 e11 j15 g13 "
    "i17 h6 b12 h9 b13 j4 b14 f7 j16 k13 f15 g5 a13 i8 h16 e4 c15 l12 g15 g2 d13 l2 k16 "
    "d19 f18 m13 e14 k10 f16 f9 d18"
)


def test_a_five_point_one_level_down_makes_a_double_three() -> None:
    """j10 is a four-three-three: j8, its column three's straight-four point, is a
    legal four-three because i9 makes five rather than a straight four."""
    board = Board.from_moves(FOUR_THREE_THREE_ONE_LEVEL_DOWN, size=19, rule=Rule.RENJU)
    j10, j8, i9 = (parse_point(p, 19) for p in ("j10", "j8", "i9"))
    assert board.foul(j10) is Foul.DOUBLE_THREE, RIF_THREE
    assert j10 in board.forbidden_points()
    # The position one level down, with j10 placed: renju.foul_at reads only the
    # stones, so a freestyle board (where j10 may be played) can hold it.
    deeper = Board.from_moves(board.moves, size=19, rule=Rule.FREESTYLE)
    deeper.play_all([j10, parse_point("a1", 19)])
    assert renju.foul_at(deeper, deeper.index(j8)) is None
    won = deeper.copy()
    assert won.play_all([j8, parse_point("b1", 19), i9]) == Result(
        Color.BLACK, Reason.FIVE, tuple(parse_moves("f9 g9 h9 i9 j9", 19))
    )


def test_gomoku_analyze_replays_the_freed_move(capsys: pytest.CaptureFixture[str]) -> None:
    """`gomoku analyze` replays a record with Black's k10 from the first example
    (it used to stop: "k10 is forbidden for Black (double-three)")."""
    moves = "g12 a1 h10 b1 h11 c1 j10 d1 j9 a2 k7 b2 k8 c2"
    assert cli_main(["analyze", "--rule", "renju", "--json", "--moves", moves]) == 0
    before = json.loads(capsys.readouterr().out)
    assert "k10" not in before["forbidden"]
    assert cli_main(["analyze", "--rule", "renju", "--json", "--moves", moves + " k10"]) == 0
    after = json.loads(capsys.readouterr().out)
    assert (after["moves"], after["last_move"], after["to_move"]) == (15, "k10", "white")
