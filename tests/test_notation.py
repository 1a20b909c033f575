"""Notation: h8 points, Gomocup and PSQ coordinates, move lists, and their errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engine.errors import NotationError
from engine.notation import (
    check_size,
    format_gomocup,
    format_moves,
    format_point,
    format_psq_point,
    parse_gomocup,
    parse_moves,
    parse_point,
    parse_psq_point,
)
from engine.types import Point


@pytest.mark.parametrize(
    ("text", "size", "point"),
    [
        ("h8", 15, Point(7, 7)),  # the centre of 15x15
        ("a1", 15, Point(0, 14)),  # bottom left
        ("a15", 15, Point(0, 0)),  # top left
        ("o1", 15, Point(14, 14)),  # bottom right
        ("o15", 15, Point(14, 0)),  # top right
        ("H8", 15, Point(7, 7)),
        (" j10 ", 19, Point(9, 9)),  # the centre of 19x19
        ("k10", 20, Point(10, 10)),
        ("z26", 26, Point(25, 0)),
        ("e5", 5, Point(4, 0)),
        ("i9", 15, Point(8, 6)),  # no letter is skipped: i is the ninth column
    ],
)
def test_parse_point(text: str, size: int, point: Point) -> None:
    """h8 notation reads columns from the left and rows from the bottom."""
    assert parse_point(text, size) == point


@pytest.mark.parametrize(
    ("point", "size", "text"),
    [(Point(7, 7), 15, "h8"), (Point(0, 14), 15, "a1"), (Point(19, 0), 20, "t20")],
)
def test_format_point(point: Point, size: int, text: str) -> None:
    """Formatting writes lower-case h8 notation."""
    assert format_point(point, size) == text


@pytest.mark.parametrize(
    ("text", "size", "message"),
    [
        ("z99", 15, "z99 is off a 15x15 board"),
        ("p1", 15, "p1 is off a 15x15 board"),
        ("h16", 15, "h16 is off a 15x15 board"),
        ("h0", 15, "h0 is off a 15x15 board"),
        ("f1", 5, "f1 is off a 5x5 board"),
        ("h100", 15, "h100 is off a 15x15 board"),
        ("8h", 15, "'8h' is not a point like h8"),
        ("", 15, "'' is not a point like h8"),
        ("h", 15, "'h' is not a point like h8"),
    ],
)
def test_parse_point_errors(text: str, size: int, message: str) -> None:
    """A bad point says what is wrong with it."""
    with pytest.raises(NotationError) as info:
        parse_point(text, size)
    assert str(info.value) == message


def test_format_point_off_board() -> None:
    """Formatting a point off the board is an error, not a made-up name."""
    with pytest.raises(NotationError, match="off a 15x15 board"):
        format_point(Point(15, 0), 15)


@pytest.mark.parametrize(
    ("text", "point"), [("7,7", Point(7, 7)), ("0,14", Point(0, 14)), (" 3 , 4 ", Point(3, 4))]
)
def test_gomocup_points(text: str, point: Point) -> None:
    """Gomocup x,y is 0-based with y from the top, the same as Point."""
    assert parse_gomocup(text, 15) == point
    assert format_gomocup(point) == text.replace(" ", "")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("15,0", "15,0 is off a 15x15 board"),
        ("7", "not a Gomocup point"),
        ("-1,3", "not a Gomocup point"),
        ("7,7,7", "not a Gomocup point"),
        ("\u00b2,1", "not a Gomocup point"),  # a superscript digit is no digit here
    ],
)
def test_gomocup_errors(text: str, message: str) -> None:
    """Bad Gomocup coordinates raise NotationError with a clear message."""
    with pytest.raises(NotationError, match=message):
        parse_gomocup(text, 15)


def test_psq_points_count_from_one() -> None:
    """PSQ files count x and y from 1, so 8,8 is the centre of 15x15."""
    assert parse_psq_point("8,8", 15) == parse_point("h8", 15)
    assert parse_psq_point("1,1", 15) == parse_point("a15", 15)
    assert format_psq_point(parse_point("a1", 15)) == "1,15"
    with pytest.raises(NotationError, match="0,1 is off a 15x15 board"):
        parse_psq_point("0,1", 15)


@pytest.mark.parametrize(
    ("text", "size", "names"),
    [
        ("h8 i9 j10", 15, ["h8", "i9", "j10"]),
        ("h8i9j10", 15, ["h8", "i9", "j10"]),  # compact
        ("a15b14c13", 15, ["a15", "b14", "c13"]),  # compact with two-digit rows
        ("a1b1", 15, ["a1", "b1"]),
        ("H8, I9;j10\n", 15, ["h8", "i9", "j10"]),
        ("t20s19", 20, ["t20", "s19"]),
        ("", 15, []),
        ("   ", 15, []),
    ],
)
def test_parse_moves(text: str, size: int, names: list[str]) -> None:
    """Move lists accept spaces, commas and the compact form."""
    assert parse_moves(text, size) == [parse_point(n, size) for n in names]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("h8 z99", "move 2: z99 is off a 15x15 board"),
        ("h8i16", "move 2: i16 is off a 15x15 board"),
        ("h8 i9 ?", "move 3: '?' is not a point like h8"),
        ("h8 9", "move 2: '9' is not a point like h8"),
    ],
)
def test_parse_moves_errors(text: str, message: str) -> None:
    """A bad move list names the offending move by number."""
    with pytest.raises(NotationError) as info:
        parse_moves(text, 15)
    assert str(info.value) == message


def test_format_moves_compact_and_spaced() -> None:
    """A move list formats spaced or compact, and both parse back."""
    points = parse_moves("h8 i9 j10 a15", 15)
    assert format_moves(points, 15) == "h8 i9 j10 a15"
    assert format_moves(points, 15, compact=True) == "h8i9j10a15"
    assert parse_moves(format_moves(points, 15, compact=True), 15) == points


@pytest.mark.parametrize("size", [5, 15, 19, 20, 26])
def test_supported_sizes(size: int) -> None:
    """Sizes 5 to 26 are supported."""
    assert check_size(size) == size


@pytest.mark.parametrize("size", [4, 27, 0, -15])
def test_unsupported_sizes(size: int) -> None:
    """Sizes outside 5..26 raise NotationError."""
    with pytest.raises(NotationError, match=f"board size {size} is not between 5 and 26"):
        check_size(size)


def test_sizes_beyond_the_letters_are_refused_both_ways() -> None:
    """``a1`` on a 100x100 board was read, and column 27 was written as ``{27``."""
    with pytest.raises(NotationError, match="board size 100"):
        parse_point("a1", 100)
    with pytest.raises(NotationError, match="board size 100"):
        parse_gomocup("0,0", 100)
    with pytest.raises(NotationError, match="board size 27"):
        format_point(Point(26, 0), 27)
    with pytest.raises(NotationError, match="off any board"):
        format_gomocup(Point(-1, 0))


@pytest.mark.parametrize(
    ("call", "given", "says"),
    [
        (parse_point, ("h8", 15.0), "a board size is a whole number like 15, not 15.0"),
        (parse_point, ("h8", "15"), "a board size is a whole number like 15, not '15'"),
        (parse_point, (None,), "a point to read, like 'h8', is text (str), not None"),
        (parse_moves, (None,), "a move list is text (str), not None"),
        (parse_gomocup, (b"7,7",), "a Gomocup point, like '7,7', is text (str), not b'7,7'"),
        (
            format_point,
            ("h8",),
            "a point is a Point like Point(7, 7), not 'h8' "
            "(text like 'h8' is read with engine.notation.parse_point)",
        ),
    ],
)
def test_a_value_of_the_wrong_type_is_a_type_error_that_says_what_was_wanted(
    call: Callable[..., object], given: tuple[Any, ...], says: str
) -> None:
    """A float size made points of floats (``h8.0`` when written), None failed on a
    missing ``strip``: each is refused saying what the call takes."""
    with pytest.raises(TypeError) as refused:
        call(*given)
    assert str(refused.value) == says


def test_a_plain_pair_is_written_as_a_point() -> None:
    """format_point takes a pair of whole numbers as Board.play does."""
    assert format_point((7, 7)) == "h8"
