"""The engine's exceptions. All are ValueErrors: the caller passed a value
(a move, a coordinate, a record) that does not fit the game."""

from __future__ import annotations

from typing import Any

from engine.types import Foul, Point


def _rebuilt(cls: type[BaseException], args: tuple[Any, ...], fields: dict[str, Any]) -> Any:
    """An exception of ``cls`` made again from its ``args`` and attributes, without
    calling its ``__init__`` (whose keyword-only fields ``pickle`` cannot pass)."""
    error = cls.__new__(cls, *args)
    BaseException.__init__(error, *args)
    error.__dict__.update(fields)
    return error


class _Pickled:
    """Pickles (to another process, a pool's worker) with its keyword-only fields: an
    exception is otherwise made again from its message alone."""

    def __reduce__(self) -> tuple[Any, ...]:
        error: Any = self
        return (_rebuilt, (type(self), error.args, dict(error.__dict__)))


class IllegalMoveError(_Pickled, ValueError):
    """A move that the position does not allow. ``point``: the point it was about, where
    the message names one (in board notation, ``h8``, at its start), so that a caller
    speaking another notation (the Gomocup brain's ``7,7``) can name it its own way."""

    def __init__(self, message: str, *, point: Point | None = None) -> None:
        super().__init__(message)
        self.point = point


class OffBoardError(IllegalMoveError):
    """The point lies outside the board."""


class OccupiedError(IllegalMoveError):
    """A stone already stands on the point."""


class GameOverError(IllegalMoveError):
    """The game has already ended."""


class ForbiddenMoveError(IllegalMoveError):
    """Black tried a renju foul; ``foul`` says which one."""

    def __init__(self, message: str, *, point: Point, foul: Foul) -> None:
        super().__init__(message, point=point)
        self.point: Point = point
        self.foul = foul


class UndoError(ValueError):
    """A takeback of more moves than were played, or of a negative number: the board is
    left as it was."""


class NotationError(ValueError):
    """Text that is not a point or move list on the given board."""


class RecordError(_Pickled, ValueError):
    """A game record that cannot be read, or that holds an illegal move. ``move``: the
    number (from 1) of the move it is about, where it is about one; an illegal move's
    :class:`IllegalMoveError` (with its point) is the ``__cause__``."""

    def __init__(self, message: str, *, move: int | None = None) -> None:
        super().__init__(message)
        self.move = move
