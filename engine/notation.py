"""Coordinates and move lists as people and programs write them.

This is the only module that converts between notations:

* ``h8``: column letter ``a``.. from the left (no letter skipped), row number
  ``1``.. from the *bottom*. ``h8`` is the centre of a 15x15 board.
* Gomocup ``x,y``: 0-based, x = column from the left, y = row from the *top*.
  :class:`engine.types.Point` uses these coordinates.
* Move lists: ``"h8 i9 j10"`` (spaces or commas) or compact ``"h8i9j10"``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engine.errors import NotationError
from engine.types import Point

MIN_SIZE = 5
MAX_SIZE = 26  # one letter per column

_POINT_RE = re.compile(r"([a-z])(\d+)", re.ASCII)
_GOMOCUP_RE = re.compile(r"\s*(\d{1,6})\s*,\s*(\d{1,6})\s*", re.ASCII)


def check_text(text: object, what: str) -> str:
    """``text`` if it is text, else TypeError saying what was expected (``None``
    or bytes passed where a move list or a record goes failed on a missing method)."""
    if not isinstance(text, str):
        raise TypeError(f"{what} is text (str), not {text!r:.60}")
    return text


def check_size(size: int) -> int:
    """Return ``size`` if a board of that size is supported, else raise NotationError
    (TypeError for what is no whole number: ``15.0`` made points of floats, ``"15"`` an
    error about comparing ``int`` and ``str``)."""
    if not isinstance(size, int) or isinstance(size, bool):
        raise TypeError(f"a board size is a whole number like 15, not {size!r}")
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise NotationError(f"board size {size} is not between {MIN_SIZE} and {MAX_SIZE}")
    return size


def on_board(point: Point, size: int) -> bool:
    return 0 <= point.x < size and 0 <= point.y < size


def parse_point(text: str, size: int = 15) -> Point:
    """Parse ``h8`` (case-insensitive) into a :class:`Point` on a ``size`` board."""
    check_size(size)
    token = check_text(text, "a point to read, like 'h8',").strip().lower()
    m = _POINT_RE.fullmatch(token)
    if m is None:
        raise NotationError(f"{text!r} is not a point like h8")
    col = ord(m.group(1)) - ord("a")
    digits = m.group(2)
    row = int(digits) if len(digits) <= 3 else 0  # a longer number is off any board
    if col >= size or not 1 <= row <= size:
        raise NotationError(f"{token} is off a {size}x{size} board")
    return Point(col, size - row)


def as_point(value: object, what: str = "a point") -> Point:
    """A Point, or a pair of whole numbers as one; TypeError for anything else (text
    included: ``"h8"`` unpacks into two letters), saying what ``what`` is."""
    if isinstance(value, Point):
        return value
    if isinstance(value, tuple | list) and len(value) == 2:
        x, y = value
        if type(x) is int and type(y) is int:  # (not a bool, which is an int too)
            return Point(x, y)
    raise TypeError(
        f"{what} is a Point like Point(7, 7), not {value!r:.60} "
        "(text like 'h8' is read with engine.notation.parse_point)"
    )


def format_point(point: Point | tuple[int, int], size: int = 15) -> str:
    """Write ``point`` as ``h8``; the inverse of :func:`parse_point`. A plain pair of
    whole numbers is taken as a Point, as :meth:`Board.play` takes it."""
    check_size(size)
    point = as_point(point)
    if not on_board(point, size):
        raise NotationError(f"{tuple(point)} is off a {size}x{size} board")
    return f"{chr(ord('a') + point.x)}{size - point.y}"


def parse_gomocup(text: str, size: int = 15) -> Point:
    """Parse Gomocup ``x,y`` (0-based, y from the top)."""
    check_size(size)
    m = _GOMOCUP_RE.fullmatch(check_text(text, "a Gomocup point, like '7,7',"))
    if m is None:
        raise NotationError(f"{text!r} is not a Gomocup point like 7,7")
    point = Point(int(m.group(1)), int(m.group(2)))
    if not on_board(point, size):
        raise NotationError(f"{point.x},{point.y} is off a {size}x{size} board")
    return point


def format_gomocup(point: Point | tuple[int, int]) -> str:
    """Write ``point`` as Gomocup ``x,y``; the inverse of :func:`parse_gomocup`."""
    point = as_point(point)
    if point.x < 0 or point.y < 0:
        raise NotationError(f"{tuple(point)} is off any board")
    return f"{point.x},{point.y}"


def in_gomocup_words(error: Exception, size: int = 15) -> str:
    """``error``'s message with the point it starts with named as a Gomocup brain and
    its manager name points (``7,7 is occupied`` for ``h8 is occupied``): an
    :class:`~engine.errors.IllegalMoveError` carries that point; another message is
    kept as it is."""
    text = str(error)
    point = getattr(error, "point", None)
    if isinstance(point, Point) and on_board(point, size):
        label = format_point(point, size)
        if text.startswith(label):
            return f"{format_gomocup(point)}{text[len(label) :]}"
    return text


def parse_psq_point(text: str, size: int = 15) -> Point:
    """Parse a point as a Piskvork ``.psq`` game file writes it: ``x,y`` like
    Gomocup but 1-based (``8,8`` is the centre of 15x15)."""
    check_size(size)
    m = _GOMOCUP_RE.fullmatch(check_text(text, "a PSQ point, like '8,8',"))
    if m is None:
        raise NotationError(f"{text!r} is not a PSQ point like 8,8")
    x, y = int(m.group(1)), int(m.group(2))
    point = Point(x - 1, y - 1)
    if not on_board(point, size):
        raise NotationError(f"{x},{y} is off a {size}x{size} board (PSQ counts from 1)")
    return point


def format_psq_point(point: Point | tuple[int, int]) -> str:
    """Write ``point`` as a ``.psq`` file does; the inverse of :func:`parse_psq_point`."""
    point = as_point(point)
    return f"{point.x + 1},{point.y + 1}"


def parse_moves(text: str, size: int = 15) -> list[Point]:
    """Parse a move list: ``"h8 i9 j10"``, ``"h8,i9"`` or compact ``"h8i9j10"``.

    The compact form is unambiguous: every point starts with a letter, so a row
    number runs until the next letter. Errors name the move by number.
    """
    check_size(size)
    points: list[Point] = []
    lowered = check_text(text, "a move list").strip().lower()
    pos = 0
    n = len(lowered)
    while pos < n:
        ch = lowered[pos]
        if ch in " \t\r\n,;":
            pos += 1
            continue
        m = _POINT_RE.match(lowered, pos)
        if m is None:
            bad = re.match(r"\S+", lowered[pos:])
            token = bad.group(0) if bad else lowered[pos:]
            raise NotationError(f"move {len(points) + 1}: {token!r} is not a point like h8")
        token = m.group(0)
        try:
            points.append(parse_point(token, size))
        except NotationError as exc:
            raise NotationError(f"move {len(points) + 1}: {exc}") from None
        pos += len(token)
    return points


def format_moves(points: Iterable[Point], size: int = 15, *, compact: bool = False) -> str:
    """Write a move list; the inverse of :func:`parse_moves`."""
    return ("" if compact else " ").join(format_point(p, size) for p in points)
