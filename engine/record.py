"""Game records: one value type and three text formats to export and import.

* move list: ``"h8 i9 j10"`` (or compact ``"h8i9j10"``), the moves only;
* PSQ: the Piskvork / Gomocup game file. A header ``Piskvorky 15x15, 11:11, 0``,
  then one line ``x,y,ms`` per move with 1-based ``x, y`` and the time the move
  took, then free trailing lines (Piskvork writes the two players' names and
  more). The rule, opening and result are not in the file;
* JSON: a versioned object carrying everything (see :func:`record_to_dict`).

Every import replays the moves on a :class:`~engine.board.Board` and raises
:class:`~engine.errors.RecordError` naming the first illegal move, so a record
that comes back from ``parse_*`` is always a legal game. Coordinates convert
only through :mod:`engine.notation`.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from engine.board import Board
from engine.errors import IllegalMoveError, NotationError, RecordError
from engine.notation import (
    as_point,
    check_size,
    check_text,
    format_moves,
    format_point,
    format_psq_point,
    parse_moves,
    parse_point,
    parse_psq_point,
)
from engine.types import Color, Opening, Point, Reason, Result, Rule

JSON_FORMAT = "gomoku-arena-record"
JSON_VERSION = 1

_Enum = TypeVar("_Enum", Rule, Opening, Reason)
_WINNERS = {"black": Color.BLACK, "white": Color.WHITE}

# Reasons the board itself decides; a record claiming one must agree with its moves.
_BOARD_REASONS = frozenset({Reason.FIVE, Reason.OVERLINE, Reason.BOARD_FULL})


_WON_ONLY = frozenset({Reason.FIVE, Reason.OVERLINE, Reason.RESIGN})
"""Reasons a game ends with a winner (a flag fallen may be a draw: the other side could
not have won; an abandonment too, when both left)."""
_DRAWN_ONLY = frozenset({Reason.AGREEMENT, Reason.BOARD_FULL})


@dataclasses.dataclass(frozen=True, slots=True)
class TimedMove:
    """A move and when it was played, in milliseconds since the game started
    (None when unknown)."""

    point: Point
    t: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Players:
    """The names of the players who held each colour (None when unknown)."""

    black: str | None = None
    white: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished or unfinished game as data.

    ``moves`` are in board order (Black first, colours alternating), whatever
    the opening rule decided about which *player* placed them. The constructor
    checks only the shape (size, non-negative and non-decreasing times); the
    ``parse_*`` functions and :meth:`board` also check that the moves are legal.
    """

    rule: Rule = Rule.FREESTYLE
    size: int = 15
    opening: Opening = Opening.FREE
    players: Players = Players()
    moves: tuple[TimedMove, ...] = ()
    result: Result | None = None
    started_at: str | None = None  # ISO 8601, as the server writes it

    def __post_init__(self) -> None:
        # Accept the plain values a caller may pass (a list of moves, points without
        # times, "renju", a pair of names).
        object.__setattr__(self, "rule", _enum(Rule, self.rule, "rule"))
        object.__setattr__(self, "opening", _enum(Opening, self.opening, "opening"))
        moves = tuple(m if isinstance(m, TimedMove) else _timed(m) for m in self.moves)
        object.__setattr__(self, "moves", moves)
        if not isinstance(self.players, Players):
            object.__setattr__(self, "players", _players_given(self.players))
        try:
            check_size(self.size)
        except NotationError as exc:
            raise RecordError(str(exc)) from None
        result = self.result
        if result is not None and result.winner is None and result.reason in _WON_ONLY:
            raise RecordError(f"result.reason {result.reason} needs a winner (it is no draw)")
        if result is not None and result.winner is not None and result.reason in _DRAWN_ONLY:
            raise RecordError(
                f"result.reason {result.reason} is a draw: result.winner must be null"
            )
        last = 0
        for number, move in enumerate(self.moves, 1):
            if move.t is None:
                continue
            if move.t < 0:
                raise RecordError(f"move {number}: negative time {move.t} ms", move=number)
            if move.t < last:
                raise RecordError(
                    f"move {number}: time {move.t} ms is before the previous move's {last} ms",
                    move=number,
                )
            last = move.t

    @property
    def points(self) -> list[Point]:
        return [m.point for m in self.moves]

    def board(self) -> Board:
        """Replay the moves on a fresh board.

        Raises RecordError naming the first illegal move (number, point and the
        reason the board gave), or when the stated result contradicts the moves.
        """
        board = Board(self.size, self.rule)
        for number, move in enumerate(self.moves, 1):
            try:
                board.play(move.point)
            except IllegalMoveError as exc:
                raise RecordError(
                    f"move {number} ({self._name(move.point)}): {exc}", move=number
                ) from exc
        self._check_result(board.result)
        return board

    def _name(self, point: Point) -> str:
        try:
            return format_point(point, self.size)
        except NotationError:
            return f"{point.x},{point.y}"

    def _check_result(self, on_board: Result | None) -> None:
        stated = self.result
        if stated is None:
            return
        if on_board is None:
            if stated.reason in _BOARD_REASONS:
                raise RecordError(
                    f"the record says {_describe(stated)} but the moves do not end the game"
                )
            return
        if (stated.winner, stated.reason) != (on_board.winner, on_board.reason):
            raise RecordError(
                f"the record says {_describe(stated)} but the moves give {_describe(on_board)}"
            )

    def checked(self) -> GameRecord:
        """This record after a replay, with the result filled in from the board
        when the moves decide it (with the winning line). A result the board does not
        decide (a resignation, a timeout) has no line: one given is dropped. Raises
        RecordError."""
        on_board = self.board().result
        if on_board is None:
            if self.result is None or self.result.line is None:
                return self
            return dataclasses.replace(self, result=self.result._replace(line=None))
        if self.result == on_board:
            return self
        return dataclasses.replace(self, result=on_board)

    @classmethod
    def from_board(
        cls,
        board: Board,
        *,
        opening: Opening = Opening.FREE,
        players: Players = Players(),
        times: Iterable[int | None] | None = None,
        result: Result | None = None,
        started_at: str | None = None,
    ) -> GameRecord:
        """The record of the game on ``board``; ``result`` (for example a
        resignation) is used when the board itself has none."""
        points = board.moves
        stamps = list(times) if times is not None else [None] * len(points)
        if len(stamps) != len(points):
            raise RecordError(f"{len(stamps)} times given for {len(points)} moves")
        return cls(
            rule=board.rule,
            size=board.size,
            opening=opening,
            players=players,
            moves=tuple(TimedMove(p, t) for p, t in zip(points, stamps, strict=True)),
            result=board.result if board.result is not None else result,
            started_at=started_at,
        )


def _describe(result: Result) -> str:
    if result.winner is None:
        return f"a draw ({result.reason})"
    return f"{result.winner} wins ({result.reason})"


# -- move list -------------------------------------------------------------


def format_move_list(record: GameRecord, *, compact: bool = False) -> str:
    """The moves as ``"h8 i9 j10"`` (``"h8i9j10"`` when ``compact``)."""
    return format_moves(record.points, record.size, compact=compact)


def parse_move_list(
    text: str, *, size: int = 15, rule: Rule = Rule.FREESTYLE, check: bool = True
) -> GameRecord:
    """A record of the moves in ``text``, replayed and checked (with ``check`` False,
    as read: :meth:`GameRecord.checked` replays them). Raises RecordError."""
    try:
        moves = check_text(text, "a move list").removeprefix("\ufeff")
        points = parse_moves(moves, check_size(size))
    except NotationError as exc:
        raise RecordError(str(exc)) from None
    record = GameRecord(rule=_rule(rule), size=size, moves=tuple(TimedMove(p) for p in points))
    return record.checked() if check else record


def _rule(rule: Rule | str) -> Rule:
    """``rule`` as a Rule; RecordError, as the readers promise, for one that is not."""
    try:
        return Rule(rule)
    except ValueError:
        raise RecordError(f"unknown rule {rule!r}: one of {[r.value for r in Rule]}") from None


# -- PSQ (Piskvork) --------------------------------------------------------

_PSQ_HEADER = re.compile(r"\s*Piskvorky\s+(\d{1,3})\s*x\s*(\d{1,3})\b.*", re.ASCII)
_PSQ_MOVE = re.compile(r"\s*(\d{1,6}\s*,\s*\d{1,6})\s*(?:,\s*(-?\d{1,12})\s*)?", re.ASCII)
_PSQ_BROKEN_MOVE = re.compile(r"\s*-?\d+\s*(,|\s-?\d)", re.ASCII)
"""The start of a move line (a number, then a comma, or a space or tab and another
number: ``8\t8\t0`` read as the end of the moves gave an empty game without a word) on
a line that is not a whole move."""


def format_psq(record: GameRecord) -> str:
    """The record as a Piskvork ``.psq`` file.

    The third number of a move line is the time that move took in ms (Piskvork's
    meaning), computed from the record's times since the start; 0 where unknown.
    The players' names follow the moves when both are known and fit on a line
    (and do not look like numbers or start like a move), then ``-1``.
    """
    lines = [f"Piskvorky {record.size}x{record.size}, 11:11, 0"]
    previous = 0
    for move in record.moves:
        took = 0 if move.t is None else move.t - previous
        if move.t is not None:
            previous = move.t
        lines.append(f"{format_psq_point(move.point)},{took}")
    black, white = record.players.black, record.players.white
    if black is not None and white is not None and _psq_name(black) and _psq_name(white):
        lines += [black, white]
    lines.append("-1")
    return "\n".join(lines) + "\n"


def parse_psq(text: str, *, rule: Rule = Rule.FREESTYLE) -> GameRecord:
    """A record from a ``.psq`` file, replayed and checked. Raises RecordError.

    The file does not say the rule: pass it (freestyle by default). Move times
    become times since the start; when every move took 0 ms (a file written
    by hand, or by :func:`format_psq` from a record without times) the times
    are unknown (None). The moves end at the first line that is not a
    move; of the lines after them, two that look like names (not numbers) become
    the players, in move order; any other trailing line is ignored. A line that
    starts like a move (``9,``, ``-1,5,0``) but is not one, or a move after the
    moves ended, is an error rather than the end: it would drop the moves after it.
    """
    lines = check_text(text, "a PSQ file").removeprefix("\ufeff").splitlines()
    if not lines:
        raise RecordError("empty PSQ file")
    header = _PSQ_HEADER.fullmatch(lines[0])
    if header is None:
        raise RecordError(f"{lines[0][:60]!r} is not a PSQ header like 'Piskvorky 15x15, 11:11, 0'")
    width, height = int(header.group(1)), int(header.group(2))
    if width != height:
        raise RecordError(f"a {width}x{height} board is not square")
    try:
        size = check_size(width)
    except NotationError as exc:
        raise RecordError(str(exc)) from None
    moves: list[TimedMove] = []
    elapsed = 0
    rest = 1
    for line in lines[1:]:
        m = _PSQ_MOVE.fullmatch(line)
        if m is None:
            _check_psq_trailer(lines, rest)
            break
        rest += 1
        number = len(moves) + 1
        try:
            point = parse_psq_point(m.group(1), size)
        except NotationError as exc:
            raise RecordError(f"move {number}: {exc}", move=number) from exc
        took = int(m.group(2) or 0)
        if took < 0:
            raise RecordError(f"move {number}: negative time {took} ms", move=number)
        elapsed += took
        moves.append(TimedMove(point, elapsed))
    if all(move.t == 0 for move in moves):
        moves = [TimedMove(move.point) for move in moves]
    trailing = [line.strip() for line in lines[rest:] if line.strip()]
    players = Players()
    if len(trailing) >= 2 and not any(_numeric(name) for name in trailing[:2]):
        players = Players(trailing[0], trailing[1])
    return GameRecord(rule=_rule(rule), size=size, players=players, moves=tuple(moves)).checked()


def _check_psq_trailer(lines: list[str], first: int) -> None:
    """Raise RecordError if ``lines[first:]``, the lines after a PSQ file's moves, start
    with a broken move or hold a move: the moves would be cut short without a word."""
    if _PSQ_BROKEN_MOVE.match(lines[first]):
        raise RecordError(
            f"line {first + 1}: {lines[first][:40]!r} is not a move like '8,8,0' (x,y,ms)"
        )
    for number, line in enumerate(lines[first + 1 :], first + 2):
        if _PSQ_MOVE.fullmatch(line):
            raise RecordError(
                f"line {number}: a move after line {first + 1}, "
                f"{lines[first][:40]!r}, which is not one"
            )


def _numeric(line: str) -> bool:
    return re.fullmatch(r"[-\d,\s]+", line) is not None


def _psq_name(name: str) -> bool:
    """Whether ``name`` survives a trip through a PSQ file's trailing lines: one line,
    not a number and not starting like a move (``7,7 fan`` would be read as a broken one)."""
    return (
        name == name.strip()
        and bool(name)
        and len(name.splitlines()) == 1
        and not _numeric(name)
        and not _PSQ_BROKEN_MOVE.match(name)
    )


# -- JSON ------------------------------------------------------------------


def move_entry(move: str, t: int | None) -> dict[str, Any]:
    """One move as the JSON record keeps it: the point in ``h8`` notation and the time in
    ms since the start (``"t"`` left out when unknown). For a caller that holds its moves
    in notation already (the server) and so need not parse and format each again."""
    entry: dict[str, Any] = {"move": move}
    if t is not None:
        entry["t"] = t
    return entry


def record_to_dict(record: GameRecord) -> dict[str, Any]:
    """The record as plain JSON data: points in ``h8`` notation, times in ms
    since the start (``"t"`` left out when unknown), and the result with the
    winning line when the board decided it."""
    moves = [move_entry(format_point(move.point, record.size), move.t) for move in record.moves]
    result: dict[str, Any] | None = None
    if record.result is not None:
        winner = record.result.winner
        result = {
            "winner": None if winner is None else str(winner),
            "reason": str(record.result.reason),
        }
        if record.result.line is not None:
            result["line"] = [format_point(p, record.size) for p in record.result.line]
    return {
        "format": JSON_FORMAT,
        "version": JSON_VERSION,
        "rule": str(record.rule),
        "size": record.size,
        "opening": str(record.opening),
        "players": {"black": record.players.black, "white": record.players.white},
        "moves": moves,
        "result": result,
        "started_at": record.started_at,
    }


def record_from_dict(data: Mapping[str, Any]) -> GameRecord:
    """A record from :func:`record_to_dict`'s data, replayed and checked.

    Raises RecordError for a wrong format or version, a missing or mistyped
    field, a bad point, or an illegal move. A result the board decides must
    agree with the moves.
    """
    if not isinstance(data, Mapping):
        raise RecordError("a JSON record is an object")
    if data.get("format") != JSON_FORMAT:
        raise RecordError(f"not a {JSON_FORMAT} (format is {data.get('format')!r})")
    version = data.get("version")
    if type(version) is not int or version != JSON_VERSION:  # not 1.0, not true
        raise RecordError(f"unsupported record version {data.get('version')!r}")
    rule = _enum(Rule, data.get("rule"), "rule")
    size = data.get("size")
    if type(size) is not int:
        raise RecordError(f"size must be an integer, not {size!r}")
    try:
        check_size(size)
    except NotationError as exc:
        raise RecordError(str(exc)) from None
    opening = _enum(Opening, data.get("opening", Opening.FREE.value), "opening")
    players = _players(data.get("players"))
    raw_moves = data.get("moves")
    if not isinstance(raw_moves, list):
        raise RecordError("moves must be a list")
    moves = tuple(_timed_move(entry, number, size) for number, entry in enumerate(raw_moves, 1))
    result = _result(data.get("result"), size)
    started_at = data.get("started_at")
    if started_at is not None and not isinstance(started_at, str):
        raise RecordError(f"started_at must be a string, not {started_at!r}")
    record = GameRecord(rule, size, opening, players, moves, result, started_at)
    return record.checked()


def format_json(record: GameRecord, *, indent: int | None = None) -> str:
    return json.dumps(record_to_dict(record), indent=indent, ensure_ascii=False)


def parse_json(text: str) -> GameRecord:
    """A record from JSON text; see :func:`record_from_dict`. Raises RecordError."""
    try:
        data = json.loads(check_text(text, "a JSON record").removeprefix("\ufeff"))
    except (ValueError, RecursionError) as exc:  # a number of 5,000 digits is a ValueError
        raise RecordError(f"not JSON: {exc}") from None
    return record_from_dict(data)


def _timed(move: object) -> TimedMove:
    """A move given as a Point (or a pair of numbers): its time unknown."""
    try:
        return TimedMove(as_point(move))
    except TypeError:
        raise TypeError(f"a record's move is a TimedMove or a Point, not {move!r:.60}") from None


def _players_given(value: object) -> Players:
    """Players given as a pair of names (black, white)."""
    if isinstance(value, tuple | list) and len(value) == 2:
        black, white = value
        if all(name is None or isinstance(name, str) for name in (black, white)):
            return Players(black, white)
    raise TypeError(f"a record's players are Players(black, white), not {value!r:.60}")


def _enum(kind: type[_Enum], value: object, field: str) -> _Enum:
    if isinstance(value, kind):  # already a member: every record the server makes
        return value
    if isinstance(value, str):
        try:
            return kind(value)
        except ValueError:
            pass
    choices = ", ".join(member.value for member in kind)
    raise RecordError(f"{field} must be one of {choices}, not {value!r}")


def _players(value: object) -> Players:
    if value is None:
        return Players()
    if not isinstance(value, Mapping):
        raise RecordError("players must be an object like {'black': name, 'white': name}")
    names = []
    for colour in ("black", "white"):
        name = value.get(colour)
        if name is not None and not isinstance(name, str):
            raise RecordError(f"players.{colour} must be a string or null, not {name!r}")
        names.append(name)
    return Players(names[0], names[1])


def _point(value: object, size: int, where: str, move: int | None = None) -> Point:
    if not isinstance(value, str):
        raise RecordError(f"{where}: {value!r} is not a point like h8", move=move)
    try:
        return parse_point(value, size)
    except NotationError as exc:
        raise RecordError(f"{where}: {exc}", move=move) from exc


def _timed_move(entry: object, number: int, size: int) -> TimedMove:
    if not isinstance(entry, Mapping):
        raise RecordError(
            f"move {number}: expected an object like {{'move': 'h8', 't': 0}}", move=number
        )
    point = _point(entry.get("move"), size, f"move {number}", number)
    t = entry.get("t")
    if t is not None and (type(t) is not int or t < 0):
        raise RecordError(
            f"move {number}: t must be a non-negative integer (ms), not {t!r}", move=number
        )
    return TimedMove(point, t)


def _result(value: object, size: int) -> Result | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise RecordError("result must be an object or null")
    winner_text = value.get("winner")
    winner = _WINNERS.get(winner_text) if isinstance(winner_text, str) else None
    if winner_text is not None and winner is None:
        raise RecordError(f"result.winner must be 'black', 'white' or null, not {winner_text!r}")
    reason = _enum(Reason, value.get("reason"), "result.reason")
    line_data = value.get("line")
    line: tuple[Point, ...] | None = None
    if line_data is not None:
        if not isinstance(line_data, list):
            raise RecordError("result.line must be a list of points")
        line = tuple(_point(p, size, "result.line") for p in line_data)
    return Result(winner, reason, line)
