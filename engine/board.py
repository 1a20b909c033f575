"""The board: stones, turn, history, hash, and the result by the rules.

Cells live in a flat ``bytearray`` with one guard column at the end of each row
and a guard row above and below, so walking a line stops at a guard cell
without any bounds checks. Index ``(y + 1) * (size + 1) + x`` holds point
``(x, y)``; directions are ``1``, ``stride``, ``stride + 1`` and ``stride - 1``.
Stones always alternate Black, White, Black...; opening rules such as swap2
decide which *player* holds which colour (see :mod:`engine.opening`), never the
order of colours on the board.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence

from engine import renju
from engine.errors import (
    ForbiddenMoveError,
    GameOverError,
    IllegalMoveError,
    OccupiedError,
    OffBoardError,
    UndoError,
)
from engine.notation import as_point, check_size, format_moves, format_point, parse_moves
from engine.types import Color, Foul, Point, Reason, Result, Rule

EMPTY = 0
BLACK = 1
WHITE = 2
WALL = 3

_GLYPHS = {BLACK: "X", WHITE: "O"}
_ZOBRIST_SEED = 0x60E0C0  # fixed so that hashes agree across processes


def _zobrist_keys(cells: int) -> tuple[list[int], list[int]]:
    rng = random.Random(_ZOBRIST_SEED)
    black = [rng.getrandbits(64) for _ in range(cells)]
    white = [rng.getrandbits(64) for _ in range(cells)]
    return black, white


_ZOBRIST_BLACK, _ZOBRIST_WHITE = _zobrist_keys(27 * 28)  # enough for 26x26


class Board:
    """A position and the moves that led to it.

    ``play`` validates by the rule (occupied, off board, game over, renju fouls)
    and updates the result; ``undo`` takes moves back, any number of them. A point is a
    :class:`~engine.types.Point` or a plain pair of whole numbers ``(x, y)``.

    ``size``, ``rule``, ``stride`` and ``cells`` (the flat cells, see the module) are
    for reading: the position changes through ``play`` and ``undo`` only, which keep
    the moves, the hash and the result in step with the cells. ``copy.copy``,
    ``copy.deepcopy`` and ``pickle`` give independent boards.
    """

    __slots__ = ("_dirs", "_hash", "_history", "_result", "cells", "rule", "size", "stride")

    def __init__(self, size: int = 15, rule: Rule = Rule.FREESTYLE) -> None:
        self.size = check_size(size)
        self.rule = Rule(rule)
        self.stride = size + 1
        self.cells = bytearray([WALL]) * ((size + 2) * self.stride + 1)
        for y in range(size):
            base = (y + 1) * self.stride
            self.cells[base : base + size] = bytes(size)
        self._history: list[int] = []
        self._hash = 0
        self._result: Result | None = None
        self._dirs = (1, self.stride, self.stride + 1, self.stride - 1)

    # -- conversions -------------------------------------------------------

    def index(self, point: Point | tuple[int, int]) -> int:
        """The cell index of ``point``; raises OffBoardError if it is off the board,
        TypeError if it is no pair of whole numbers."""
        x, y = as_point(point)
        if not (0 <= x < self.size and 0 <= y < self.size):
            raise OffBoardError(
                f"{x},{y} is off a {self.size}x{self.size} board", point=Point(x, y)
            )
        return (y + 1) * self.stride + x

    def point(self, index: int) -> Point:
        """The point of a cell index (:meth:`index`'s inverse); raises OffBoardError for
        an index that is no point of the board (a guard cell, or beyond the cells)."""
        y, x = divmod(index, self.stride)
        if not (0 <= x < self.size and 1 <= y <= self.size):
            raise OffBoardError(f"cell {index} is no point of a {self.size}x{self.size} board")
        return Point(x, y - 1)

    # -- reading -----------------------------------------------------------

    def __getitem__(self, point: Point | tuple[int, int]) -> Color | None:
        """The colour of the stone on ``point``, None if it is empty."""
        cell = self.cells[self.index(point)]
        return Color(cell) if cell else None

    @property
    def turn(self) -> Color:
        """The colour to move. Black moves first; colours alternate."""
        return Color.WHITE if len(self._history) & 1 else Color.BLACK

    @property
    def moves(self) -> list[Point]:
        """The moves played so far, oldest first (a copy)."""
        return [self.point(i) for i in self._history]

    @property
    def last_move(self) -> Point | None:
        return self.point(self._history[-1]) if self._history else None

    def __len__(self) -> int:
        """The number of stones on the board."""
        return len(self._history)

    @property
    def zobrist(self) -> int:
        """A 64-bit hash of the stones; equal positions hash equal in any process."""
        return self._hash

    @property
    def result(self) -> Result | None:
        """How the game ended, or None while it goes on."""
        return self._result

    def is_over(self) -> bool:
        return self._result is not None

    def empty_points(self) -> Iterator[Point]:
        size, stride, cells = self.size, self.stride, self.cells
        for y in range(size):
            base = (y + 1) * stride
            for x in range(size):
                if not cells[base + x]:
                    yield Point(x, y)

    def stones(self, color: Color | str) -> list[Point]:
        """The stones of ``color`` (a Color, or its name: ``"black"``), in the order
        played; ValueError for what is no colour."""
        code = Color(color)  # type: ignore[arg-type]  # a name too: Color._missing_
        return [self.point(i) for i in self._history if self.cells[i] == code]

    # -- rules -------------------------------------------------------------

    def foul(self, point: Point | tuple[int, int]) -> Foul | None:
        """The renju foul Black would commit at ``point`` (None if none or not
        applicable: another rule, White to move, or an occupied point)."""
        if self.rule is not Rule.RENJU or len(self._history) & 1:
            return None
        i = self.index(point)
        if self.cells[i]:
            return None
        return renju.foul_at(self, i)

    def forbidden_points(self) -> list[Point]:
        """Every point Black may not play now; empty unless renju with Black to move."""
        if self.rule is not Rule.RENJU or len(self._history) & 1 or self._result is not None:
            return []
        return [self.point(i) for i in renju.forbidden_indices(self)]

    def is_legal(self, point: Point | tuple[int, int]) -> bool:
        """Whether the side to move may play ``point`` now (False off the board too)."""
        if self._result is not None:
            return False
        x, y = as_point(point)
        if not (0 <= x < self.size and 0 <= y < self.size):
            return False
        i = (y + 1) * self.stride + x
        if self.cells[i]:
            return False
        return self.foul(point) is None

    def legal_moves(self) -> list[Point]:
        if self._result is not None:
            return []
        forbidden = set(self.forbidden_points())
        return [p for p in self.empty_points() if p not in forbidden]

    # -- playing -----------------------------------------------------------

    def play(self, point: Point | tuple[int, int]) -> Result | None:
        """Place the side to move's stone on ``point`` and return the result
        (None while the game goes on).

        Raises OffBoardError, OccupiedError, GameOverError or, for Black in
        renju, ForbiddenMoveError naming the foul. A raise leaves the board as it was.
        """
        if self._result is not None:
            raise GameOverError("the game is over")
        size = self.size
        cells = self.cells
        x, y = as_point(point, "a move")
        if not (0 <= x < size and 0 <= y < size):
            raise OffBoardError(f"{x},{y} is off a {size}x{size} board", point=Point(x, y))
        i = (y + 1) * self.stride + x
        if cells[i]:
            raise OccupiedError(f"{format_point(Point(x, y), size)} is occupied", point=Point(x, y))
        history = self._history
        color = WHITE if len(history) & 1 else BLACK
        if color == BLACK and self.rule is Rule.RENJU:
            foul = renju.foul_at(self, i)
            if foul is not None:
                raise ForbiddenMoveError(
                    f"{format_point(Point(x, y), size)} is forbidden for Black ({foul})",
                    point=Point(x, y),
                    foul=foul,
                )
        cells[i] = color
        history.append(i)
        self._hash ^= (_ZOBRIST_BLACK if color == BLACK else _ZOBRIST_WHITE)[i]
        result = self._check_win(i, color)
        if result is None and self._no_move_left():
            result = Result(None, Reason.BOARD_FULL)
        self._result = result
        return result

    def _no_move_left(self) -> bool:
        """Whether the side to move has no point to play: the board is full, or, in
        renju, every empty point is a foul for Black. Either is a draw (the rules let
        Black pass there, and this engine has no pass)."""
        history = self._history
        if len(history) == self.size * self.size:
            return True
        if self.rule is not Rule.RENJU or len(history) & 1:  # Black is not to move
            return False
        cells = self.cells
        i = cells.find(EMPTY)
        while i >= 0:  # a point with no foul is usually met at once
            if renju.foul_at(self, i) is None:
                return False
            i = cells.find(EMPTY, i + 1)
        return True

    def undo(self, count: int = 1) -> list[Point]:
        """Take back the last ``count`` moves; return them, most recent first. Raises
        :class:`UndoError` (changing nothing) for more moves than were played."""
        if not 0 <= count <= len(self._history):
            raise UndoError(f"cannot undo {count} of {len(self._history)} moves")
        taken: list[Point] = []
        cells = self.cells
        for _ in range(count):
            i = self._history.pop()
            color = cells[i]
            cells[i] = EMPTY
            self._hash ^= (_ZOBRIST_BLACK if color == BLACK else _ZOBRIST_WHITE)[i]
            taken.append(self.point(i))
        if count:
            self._result = None
        return taken

    def play_all(self, points: Iterable[Point | tuple[int, int]]) -> Result | None:
        """Play ``points`` in order and return the result, as :meth:`play`; a move that
        raises takes back those played before it, leaving the board as it was."""
        played = 0
        try:
            for p in points:
                self.play(p)
                played += 1
        except BaseException:
            self.undo(played)
            raise
        return self._result

    def _check_win(self, i: int, color: int) -> Result | None:
        """The result if the stone just placed at ``i`` completes a winning line."""
        cells = self.cells
        exact_five_only = self.rule is Rule.STANDARD or (self.rule is Rule.RENJU and color == BLACK)
        for d in self._dirs:
            lo = i - d
            hi = i + d
            if cells[lo] != color and cells[hi] != color:
                continue  # alone on this line (most lines of most stones): no run to measure
            while cells[lo] == color:
                lo -= d
            while cells[hi] == color:
                hi += d
            run = (hi - lo) // d - 1
            if run == 5 or (run > 5 and not exact_five_only):
                line = tuple(self.point(j) for j in range(lo + d, hi, d))
                reason = Reason.FIVE if run == 5 else Reason.OVERLINE
                return Result(Color(color), reason, line)
        return None

    # -- misc --------------------------------------------------------------

    def copy(self) -> Board:
        """An independent board with the same moves (also ``copy.copy``)."""
        other = Board.__new__(Board)
        other.size = self.size
        other.rule = self.rule
        other.stride = self.stride
        other.cells = bytearray(self.cells)
        other._history = list(self._history)
        other._hash = self._hash
        other._result = self._result
        other._dirs = self._dirs
        return other

    @classmethod
    def from_moves(
        cls, moves: str | Iterable[Point], *, size: int = 15, rule: Rule = Rule.FREESTYLE
    ) -> Board:
        """A board after ``moves`` (a move list like ``"h8 i9"`` or points)."""
        board = cls(size, rule)
        board.play_all(parse_moves(moves, size) if isinstance(moves, str) else moves)
        return board

    @classmethod
    def from_stones(
        cls,
        black: Sequence[Point],
        white: Sequence[Point],
        *,
        size: int = 15,
        rule: Rule = Rule.FREESTYLE,
    ) -> Board:
        """A board holding these stones, as moves with Black's and White's alternating in
        the order given, set up without judging how they came: no renju foul check and no
        game-over check on the way (a position given stone by stone, as a Gomocup
        manager's BOARD, may list an overline's stones so that five of them come first).
        The result is that of the final position: a winning line of the side that moved
        last, else of the other side, else a full board.

        Raises ValueError if the counts cannot alternate (White has one fewer stone than
        Black, or as many), OffBoardError, or OccupiedError for a point given twice."""
        if not len(black) - 1 <= len(white) <= len(black):
            raise ValueError(f"{len(black)} black and {len(white)} white stones cannot alternate")
        order: list[Point] = []
        for n, point in enumerate(black):
            order.append(point)
            if n < len(white):
                order.append(white[n])
        board = cls(size, rule)
        cells = board.cells
        for n, (x, y) in enumerate(order):
            if not (0 <= x < size and 0 <= y < size):
                raise OffBoardError(f"{x},{y} is off a {size}x{size} board")
            i = (y + 1) * board.stride + x
            if cells[i]:
                raise OccupiedError(
                    f"{format_point(Point(x, y), size)} is given twice", point=Point(x, y)
                )
            color = WHITE if n & 1 else BLACK
            cells[i] = color
            board._history.append(i)
            board._hash ^= (_ZOBRIST_BLACK if color == BLACK else _ZOBRIST_WHITE)[i]
        history = board._history
        last_mover = history[1 - len(history) % 2 :: 2] if history else []
        other = history[len(history) % 2 :: 2] if history else []
        for i in [*last_mover, *other]:
            board._result = board._check_win(i, cells[i])
            if board._result is not None:
                break
        if board._result is None and board._no_move_left():
            board._result = Result(None, Reason.BOARD_FULL)
        return board

    __copy__ = copy

    def __eq__(self, other: object) -> bool:
        """Equal boards have the same size, rule and moves in the same order (they are
        games, not only positions: the same stones reached in another order are not
        equal; compare ``zobrist``, ``size`` and ``rule`` for the stones alone)."""
        if not isinstance(other, Board):
            return NotImplemented
        return (
            self.size == other.size and self.rule == other.rule and self._history == other._history
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        """``Board.from_moves(...)``, or for a position set up with :meth:`from_stones`
        that play could not reach (a renju foul among its stones, say)
        ``Board.from_stones(...)``: either way ``eval`` gives an equal board."""
        moves = self.moves
        try:
            reachable = Board.from_moves(moves, size=self.size, rule=self.rule) == self
        except IllegalMoveError:
            reachable = False
        if reachable:
            text = format_moves(moves, self.size)
            return f"Board.from_moves({text!r}, size={self.size}, rule={self.rule!r})"
        return (
            f"Board.from_stones({moves[0::2]!r}, {moves[1::2]!r}, size={self.size}, "
            f"rule={self.rule!r})"
        )

    def diagram(self, *, marks: Iterable[Point] = ()) -> str:
        """A text diagram: ``X`` black, ``O`` white, ``.`` empty, ``*`` for ``marks``
        (for example forbidden points); rows numbered, columns lettered as in ``h8``."""
        marked = {self.index(p) for p in marks}
        width = len(str(self.size))
        lines = []
        for y in range(self.size):
            row = []
            for x in range(self.size):
                i = (y + 1) * self.stride + x
                cell = self.cells[i]
                row.append(_GLYPHS[cell] if cell else "*" if i in marked else ".")
            lines.append(f"{self.size - y:>{width}} " + " ".join(row))
        lines.append(" " * (width + 1) + " ".join(chr(ord("a") + x) for x in range(self.size)))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.diagram()

    def _repr_svg_(self) -> str:
        """The board as SVG (:func:`engine.svg.board_svg`) with Black's forbidden points
        crossed: how a Jupyter notebook shows a board."""
        from engine.svg import board_svg  # (it imports this module)

        return board_svg(self, marks=self.forbidden_points())
