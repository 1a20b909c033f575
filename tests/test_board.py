"""The board: wins by each rule in every direction, overlines, draws, undo and errors."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engine.board import Board
from engine.errors import (
    ForbiddenMoveError,
    GameOverError,
    IllegalMoveError,
    NotationError,
    OccupiedError,
    OffBoardError,
    UndoError,
)
from engine.notation import parse_moves, parse_point
from engine.types import Color, Foul, Point, Reason, Result, Rule

DIRECTIONS = {
    "horizontal": (1, 0),
    "vertical": (0, 1),
    "diagonal": (1, 1),
    "anti-diagonal": (1, -1),
}

# Stones that never make a line of their own: every other point of an edge column.
BLACK_FILLERS = [Point(0, y) for y in range(0, 15, 2)]  # a15, a13, ..
WHITE_FILLERS = [Point(14, y) for y in range(0, 15, 2)]  # o15, o13, ..


def line_from(start: Point, direction: tuple[int, int], length: int) -> list[Point]:
    dx, dy = direction
    return [Point(start.x + k * dx, start.y + k * dy) for k in range(length)]


def game(winner_stones: Sequence[Point], color: Color) -> list[Point]:
    """Moves in which ``color`` plays ``winner_stones`` in order and the other
    colour plays fillers, Black first."""
    moves: list[Point] = []
    if color is Color.BLACK:
        for i, p in enumerate(winner_stones):
            moves.append(p)
            if i < len(winner_stones) - 1:
                moves.append(WHITE_FILLERS[i])
    else:
        for i, p in enumerate(winner_stones):
            moves += [BLACK_FILLERS[i], p]
    return moves


def interleave(first: Sequence[Point], second: Sequence[Point]) -> list[Point]:
    """first[0], second[0], first[1], ...; ``first`` may be one longer."""
    moves: list[Point] = []
    for i, p in enumerate(first):
        moves.append(p)
        if i < len(second):
            moves.append(second[i])
    return moves


def along_line(points: Sequence[Point]) -> tuple[Point, ...]:
    """``points`` in the order the board reports a line: top row first, left first."""
    return tuple(sorted(points, key=lambda p: (p.y, p.x)))


FIVE_CASES = [
    pytest.param(rule, color, name, last, id=f"{rule}-{color}-{name}-last{last}")
    for rule in Rule
    for color in Color
    for name in DIRECTIONS
    for last in (0, 2, 4)
]


@pytest.mark.parametrize(("rule", "color", "direction", "last"), FIVE_CASES)
def test_five_wins(rule: Rule, color: Color, direction: str, last: int) -> None:
    """Exactly five in a row wins for either colour in every rule and direction,
    whichever stone of the five comes last."""
    line = line_from(Point(7, 7), DIRECTIONS[direction], 5)
    order = [p for i, p in enumerate(line) if i != last] + [line[last]]
    board = Board(15, rule)
    moves = game(order, color)
    for p in moves[:-1]:
        assert board.play(p) is None
    result = board.play(moves[-1])
    assert result == Result(color, Reason.FIVE, along_line(line))
    assert board.result == result
    assert board.is_over()


def overline_moves(color: Color) -> tuple[list[Point], list[Point]]:
    """Moves ending with ``color`` filling the gap of XX.XXX into six; and the six."""
    six = line_from(Point(4, 7), (1, 0), 6)
    order = [six[0], six[1], six[3], six[4], six[5], six[2]]
    return game(order, color), six


@pytest.mark.parametrize(
    ("rule", "color", "wins"),
    [
        (Rule.FREESTYLE, Color.BLACK, True),
        (Rule.FREESTYLE, Color.WHITE, True),
        (Rule.STANDARD, Color.BLACK, False),
        (Rule.STANDARD, Color.WHITE, False),
        (Rule.RENJU, Color.WHITE, True),
    ],
)
def test_overline(rule: Rule, color: Color, wins: bool) -> None:
    """Six in a row wins in freestyle (both colours) and for White in renju,
    and wins for neither colour in standard, where the game goes on."""
    moves, six = overline_moves(color)
    board = Board(15, rule)
    board.play_all(moves[:-1])
    result = board.play(moves[-1])
    if wins:
        assert result == Result(color, Reason.OVERLINE, along_line(six))
    else:
        assert result is None
        assert board.turn is color.other
        board.play(parse_point("h1"))  # the game goes on
        assert board.result is None


def test_renju_black_overline_is_forbidden() -> None:
    """In renju Black may not make an overline; the board stays as it was."""
    moves, _ = overline_moves(Color.BLACK)
    board = Board(15, Rule.RENJU)
    board.play_all(moves[:-1])
    before = board.copy()
    with pytest.raises(ForbiddenMoveError) as info:
        board.play(moves[-1])
    assert info.value.foul is Foul.OVERLINE
    assert info.value.point == moves[-1]
    assert isinstance(info.value, IllegalMoveError)
    assert board == before
    assert board.zobrist == before.zobrist


def test_standard_five_and_overline_at_once_wins() -> None:
    """In standard a move that makes a five in one line wins even if it also
    makes an overline in another."""
    crossing = Point(4, 7)
    row = [Point(x, 7) for x in (2, 3, 5, 6, 7)]  # XX.XXX once the crossing is filled
    column = [Point(4, y) for y in (3, 4, 5, 6)]  # four above the crossing
    black = [*row, *column, crossing]
    white = [*WHITE_FILLERS, Point(12, 0)]
    moves = interleave(black, white)
    board = Board(15, Rule.STANDARD)
    result = board.play_all(moves)
    assert moves[-1] == crossing
    assert result == Result(Color.BLACK, Reason.FIVE, (*column, crossing))


# A full 5x5 board without five in a row (X black, O white): 13 black, 12 white.
DRAW_5X5 = [
    "XXOOX",
    "OOXXO",
    "XXOOX",
    "OOXXO",
    "XXOOX",
]


@pytest.mark.parametrize("rule", [Rule.FREESTYLE, Rule.STANDARD])
def test_full_board_is_a_draw(rule: Rule) -> None:
    """Filling the board with no five is a draw, and the game is then over."""
    black = [Point(x, y) for y, row in enumerate(DRAW_5X5) for x, c in enumerate(row) if c == "X"]
    white = [Point(x, y) for y, row in enumerate(DRAW_5X5) for x, c in enumerate(row) if c == "O"]
    moves = interleave(black, white)
    board = Board(5, rule)
    for p in moves[:-1]:
        assert board.play(p) is None
    assert board.play(moves[-1]) == Result(None, Reason.BOARD_FULL)
    assert len(board) == 25
    assert board.legal_moves() == []
    board.undo()
    assert board.result is None
    assert board.legal_moves() == [moves[-1]]


@pytest.mark.parametrize("size", range(5, 27))
def test_every_size_plays_to_the_edges(size: int) -> None:
    """Every size from 5 to 26 detects fives along its bottom edge and right edge."""
    bottom = [Point(x, size - 1) for x in range(5)]
    top = [Point(x, 0) for x in range(4)]
    board = Board(size)
    moves = interleave(bottom, top)
    assert board.play_all(moves) == Result(Color.BLACK, Reason.FIVE, tuple(bottom))

    right = [Point(size - 1, y) for y in range(size - 5, size)]
    left = [Point(0, y) for y in range(size - 4, size)]
    board = Board(size)
    moves = [Point(2, 0), *interleave(right, left)]  # Black opens away from both lines
    assert board.play_all(moves) == Result(Color.WHITE, Reason.FIVE, tuple(right))


@pytest.mark.parametrize("size", [5, 15, 26])
def test_lines_do_not_wrap_around_rows(size: int) -> None:
    """Stones at the end of one row and the start of the next are not a line."""
    black = [Point(size - 2, 1), Point(size - 1, 1), Point(0, 2), Point(1, 2), Point(2, 2)]
    white = [Point(0, 4), Point(1, 4), Point(3, 4), Point(4, 4)]
    moves = interleave(black, white)
    board = Board(size)
    assert board.play_all(moves) is None


@pytest.mark.parametrize("size", [4, 27])
def test_unsupported_board_sizes(size: int) -> None:
    """A board outside 5..26 cannot be made."""
    with pytest.raises(NotationError, match="not between 5 and 26"):
        Board(size)


def test_turn_history_and_last_move() -> None:
    """Colours alternate from Black; moves and the last move are kept."""
    board = Board()
    assert board.turn is Color.BLACK
    assert board.last_move is None
    board.play(parse_point("h8"))
    board.play(parse_point("i9"))
    assert board.turn is Color.BLACK
    assert board.moves == parse_moves("h8 i9")
    assert board.last_move == parse_point("i9")
    assert board[parse_point("h8")] is Color.BLACK
    assert board[parse_point("i9")] is Color.WHITE
    assert board[parse_point("a1")] is None
    assert board.stones(Color.WHITE) == [parse_point("i9")]


@pytest.mark.parametrize("count", range(0, 10))
def test_undo_any_number(count: int) -> None:
    """Undoing n moves gives the position after the first len - n moves."""
    moves = parse_moves("h8 i9 h9 i10 h10 i11 h11 i12 a1")
    board = Board.from_moves(moves)
    taken = board.undo(count)
    assert taken == moves[::-1][:count]
    assert board == Board.from_moves(moves[: len(moves) - count])
    assert board.zobrist == Board.from_moves(moves[: len(moves) - count]).zobrist
    assert board.turn is (Color.BLACK if (len(moves) - count) % 2 == 0 else Color.WHITE)


def test_undo_too_many() -> None:
    """Undoing more moves than were played is refused and changes nothing."""
    board = Board.from_moves("h8 i9")
    with pytest.raises(UndoError, match="cannot undo 3 of 2 moves"):
        board.undo(3)
    assert board == Board.from_moves("h8 i9")


def test_undo_reopens_a_finished_game() -> None:
    """Taking back the winning move clears the result."""
    board = Board.from_moves("h8 a1 i8 a3 j8 a5 k8 a7 l8")
    assert board.result is not None
    board.undo()
    assert board.result is None
    assert board.play(parse_point("g8")) is not None


@pytest.mark.parametrize(
    "moves",
    [
        "h8 a1 i8 a3 j8 a5 k8 a7 l8",  # Black five
        "a1 h8 a3 i8 a5 j8 a7 k8 a9 l8",  # White five
    ],
)
def test_no_move_after_the_result(moves: str) -> None:
    """Once the game is won, every further move raises GameOverError."""
    board = Board.from_moves(moves)
    assert board.result is not None
    with pytest.raises(GameOverError, match="the game is over"):
        board.play(parse_point("o15"))
    assert not board.is_legal(parse_point("o15"))
    assert board.legal_moves() == []
    assert board.forbidden_points() == []
    assert len(board) == len(parse_moves(moves))


def test_occupied_point() -> None:
    """Playing on a stone raises OccupiedError naming the point, and changes nothing."""
    board = Board.from_moves("h8 i9")
    with pytest.raises(OccupiedError, match=r"^h8 is occupied$"):
        board.play(parse_point("h8"))
    assert board == Board.from_moves("h8 i9")
    assert not board.is_legal(parse_point("i9"))


@pytest.mark.parametrize("point", [Point(15, 0), Point(0, 15), Point(-1, 3), Point(3, -1)])
def test_off_board_point(point: Point) -> None:
    """Playing off the board raises OffBoardError, and changes nothing."""
    board = Board.from_moves("h8")
    with pytest.raises(OffBoardError, match="off a 15x15 board"):
        board.play(point)
    assert board == Board.from_moves("h8")
    assert not board.is_legal(point)


@pytest.mark.parametrize("move", ["h9", (7.0, 9.0), (1, 2, 3), None])
def test_a_move_that_is_not_a_point(move: object) -> None:
    """A move given as text or another shape is refused with a TypeError that says what a
    move is (it was "'<=' not supported" or "too many values to unpack"), and changes
    nothing."""
    board = Board.from_moves("h8")
    with pytest.raises(TypeError, match=r"a move is a Point like Point\(7, 7\)"):
        board.play(move)  # type: ignore[arg-type]
    assert board == Board.from_moves("h8")


def test_from_moves_and_repr_round_trip() -> None:
    """A board's repr rebuilds the same position."""
    board = Board.from_moves("h8 i9 j10", size=19, rule=Rule.STANDARD)
    again = eval(repr(board), {"Board": Board, "Rule": Rule})
    assert again == board
    assert again.zobrist == board.zobrist


def test_repr_of_a_position_play_could_not_reach_round_trips() -> None:
    """A renju position set up stone by stone with a double-three among Black's stones
    (as a Gomocup BOARD may give it) reprs as from_stones, which evals back to it (the
    from_moves form raised ForbiddenMoveError)."""
    black = [parse_point(p) for p in ["f8", "g8", "h6", "h7", "h8"]]
    white = [parse_point(p) for p in ["a1", "c1", "e1", "g1", "i1"]]
    board = Board.from_stones(black, white, rule=Rule.RENJU)
    assert repr(board).startswith("Board.from_stones(")
    again = eval(repr(board), {"Board": Board, "Rule": Rule, "Point": Point})
    assert again == board
    assert again.zobrist == board.zobrist


def test_copy_is_independent() -> None:
    """Playing on a copy leaves the original alone."""
    board = Board.from_moves("h8 i9")
    other = board.copy()
    other.play(parse_point("j10"))
    assert len(board) == 2
    assert len(other) == 3
    assert board.zobrist != other.zobrist


def test_diagram_marks_points() -> None:
    """The diagram shows X for Black, O for White and * for marked points."""
    board = Board.from_moves("a1 b1", size=5)
    lines = board.diagram(marks=[parse_point("e5", 5)]).splitlines()
    assert lines[0] == "5 . . . . *"
    assert lines[4] == "1 X O . . ."
    assert lines[5] == "  a b c d e"


def test_from_stones_judges_only_the_final_position() -> None:
    """Six in a row listed left to right (five of them first) under exact five: no win,
    the same position as a game that closed the six in its middle."""
    listed = [Point(x, 5) for x in (2, 3, 4, 5, 6, 7)]
    played = [Point(x, 5) for x in (2, 3, 4, 6, 7, 5)]
    fillers = [Point(14, y) for y in range(0, 12, 2)]
    board = Board.from_stones(listed, fillers, rule=Rule.STANDARD)
    game = Board.from_moves(
        [p for pair in zip(played, fillers, strict=True) for p in pair], rule=Rule.STANDARD
    )
    assert board.result is None
    assert game.result is None
    assert board.cells == game.cells
    assert board.turn is Color.BLACK
    assert board.zobrist == game.zobrist
    freestyle = Board.from_stones(listed, fillers, rule=Rule.FREESTYLE)
    assert freestyle.result is not None
    assert (freestyle.result.winner, freestyle.result.reason) == (Color.BLACK, Reason.OVERLINE)


def test_from_stones_skips_the_renju_foul_check_and_finds_the_last_movers_five() -> None:
    """A renju position whose listed order passes a forbidden point is set up as given;
    White's five (White moved last) is the result."""
    black = [Point(7, 7), Point(7, 8), Point(8, 7), Point(8, 8), Point(0, 0)]
    white = [Point(3, 0), Point(3, 1), Point(3, 2), Point(3, 3), Point(3, 4)]
    board = Board.from_stones(black, white, rule=Rule.RENJU)
    assert board.result is not None
    assert board.result.winner is Color.WHITE
    with pytest.raises(ValueError, match="cannot alternate"):
        Board.from_stones(black, [*white, Point(9, 9)])
    with pytest.raises(OccupiedError):
        Board.from_stones([Point(1, 1), Point(1, 1)], [Point(2, 2)])
    with pytest.raises(OffBoardError):
        Board.from_stones([Point(15, 1)], [])


def test_renju_ends_in_a_draw_when_black_has_no_point_left() -> None:
    """Renju on 7x7: after White's last stone every empty point (f5) is an overline for
    Black, who is to move; the rules would let Black pass, this engine calls it a draw
    (board-full) rather than leave a game nobody can continue. Not so in freestyle."""
    moves = (
        "a2 a1 b1 b2 c1 c3 c2 g2 g6 g3 f7 f2 c5 d2 e3 e2 e4 f1 b4 f4 d1 f6 b7 g7 c7 a5 "
        "c6 a6 b5 b6 c4 a7 a3 g4 d4 e6 d3 d5 b3 d6 e1 f3 e5 e7 g5 g1 d7 a4"
    )
    board = Board.from_moves(moves, size=7, rule=Rule.RENJU)
    assert list(board.empty_points()) == [parse_point("f5", 7)]  # g6-b1 would be six
    assert board.result == Result(None, Reason.BOARD_FULL)
    with pytest.raises(GameOverError):
        board.play(parse_point("f5", 7))
    board.undo(1)
    assert board.result is None
    free = Board.from_moves(moves, size=7, rule=Rule.FREESTYLE)
    assert free.result is None
    points = parse_moves(moves, 7)
    given = Board.from_stones(points[0::2], points[1::2], size=7, rule=Rule.RENJU)
    assert given.result == Result(None, Reason.BOARD_FULL)
