"""Reading and writing game records for the review screen, by file name.

``.json`` is the project's own record (everything), ``.psq`` the Piskvork /
Gomocup file, anything else a move list (``h8 i9 j10``), unless its text is plainly
one of the other two (a JSON object, a Piskvork header). The formats
themselves live in :mod:`engine.record`; this module only picks one.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import NamedTuple

import msgspec

from client.usage import OptionError
from engine.errors import ForbiddenMoveError, GameOverError, RecordError
from engine.record import (
    GameRecord,
    format_json,
    format_move_list,
    format_psq,
    parse_json,
    parse_move_list,
    parse_psq,
)
from engine.types import Opening, Reason, Rule
from protocol.values import Clocks, TimeControl

FOREIGN_FORMATS = {".sgf": "SGF", ".rif": "RIF", ".lib": "RenLib", ".renlib": "RenLib"}
"""Other programs' record formats, known by their extension: neither read (their text
was refused move by move, as a move list) nor written (a move list went into a file an
SGF viewer then refused)."""
SUPPORTED = ".json, .psq or a move list like h8 i9 (any other name)"


class FormatError(ValueError):
    """A file named as a record format that is not read or written here."""


def record_format(path: Path) -> str:
    """``json``, ``psq`` or ``moves``, from the file's extension; FormatError for
    another program's format (:data:`FOREIGN_FORMATS`)."""
    suffix = path.suffix.lower()
    if suffix in FOREIGN_FORMATS:
        raise FormatError(f"{FOREIGN_FORMATS[suffix]} files are not supported: use {SUPPORTED}")
    if suffix == ".json":
        return "json"
    if suffix == ".psq":
        return "psq"
    return "moves"


def content_format(text: str) -> str:
    """The format a file's text shows, for a name that does not say (no extension, or
    ``.txt``): a JSON object, a Piskvork header, else a move list."""
    start = text.removeprefix("\ufeff").lstrip()
    if start.startswith("{"):
        return "json"
    if start[:9].lower() == "piskvorky":
        return "psq"
    return "moves"


_BOARD_REASONS = frozenset({Reason.FIVE, Reason.OVERLINE, Reason.BOARD_FULL})
"""Results the moves themselves give: read back, the engine finds them again."""


def unrecorded(record: GameRecord, kind: str) -> str | None:
    """What a file of format ``kind`` leaves out of ``record`` and how to read it back
    with it, or None when nothing is lost: PSQ records no rule, a move list neither rule
    nor board size (read back without them, a 19x19 renju game was 15x15 freestyle,
    and a standard game with an overline was refused as over). Neither keeps a result
    the board does not give (a resignation, a flag fallen, a draw agreed, an
    abandonment: read back, the game is unfinished) nor a swap2 opening; a move list
    keeps no players and no times either. Those are said as lost for good."""
    if kind not in ("psq", "moves"):
        return None
    lost: list[tuple[str, str]] = []
    if record.rule is not Rule.FREESTYLE:
        lost.append(("the rule", f"--rule {record.rule}"))
    if kind == "moves" and record.size != 15:
        lost.append(("the board size", f"--size {record.size}"))
    gone: list[str] = []
    result = record.result
    if result is not None and result.reason not in _BOARD_REASONS:
        ended = "a draw" if result.winner is None else f"{result.winner} wins"
        gone.append(f"the result ({ended}, {result.reason})")
    if record.opening is not Opening.FREE:
        gone.append(f"the {record.opening} opening")
    if kind == "moves" and (record.players.black or record.players.white):
        gone.append("the players")
    if kind == "moves" and any(move.t is not None for move in record.moves):
        gone.append("the times")
    if not lost and not gone:
        return None
    name = "a PSQ file" if kind == "psq" else "a move list"
    said = []
    if lost:
        what = " or ".join(what for what, _ in lost)
        options = " ".join(option for _, option in lost)
        said.append(f"{name} does not record {what}: read it back with {options}")
    if gone:
        listed = ", ".join(gone[:-1]) + (" or " if len(gone) > 1 else "") + gone[-1]
        said.append(f"nor {listed}" if lost else f"{name} does not record {listed}")
    return "; ".join(said)


def server_clock(original_json: str | None) -> tuple[TimeControl | None, Clocks | None] | None:
    """The time control and the clocks at the end that the server's record keeps (its
    ``game`` key), or None when it does not say (a file, or a record kept before)."""
    if original_json is None:
        return None
    try:
        facts = json.loads(original_json).get("game")
        if not isinstance(facts, dict) or "time" not in facts:
            return None
        time = None if facts["time"] is None else msgspec.convert(facts["time"], TimeControl)
        clocks = facts.get("clocks")
        return time, None if clocks is None else msgspec.convert(clocks, Clocks)
    except (ValueError, AttributeError, msgspec.ValidationError):
        return None


class Swap2Story(NamedTuple):
    """Who placed a swap2 game's opening stones, from the server's record: the players'
    names (``opener`` placed stones 1 to 3, ``other`` stones 4 and 5 when there were
    five) and how many stones the opening placed."""

    opener: str
    other: str
    stones: int

    def placer(self, number: int) -> str | None:
        """Who placed stone ``number`` (from 1) in the opening; None after it."""
        if number > self.stones:
            return None
        return self.opener if number <= 3 else self.other


def swap2_story(original_json: str | None, record: GameRecord) -> Swap2Story | None:
    """A swap2 game's opening as the server's record tells it (its ``game.swap2``:
    the colour the opener ended with, or none when the game ended before the choice,
    and the stones the opening placed), with the players' names; None when it does not
    say (a free opening, a file, a record kept before)."""
    if original_json is None or record.opening is not Opening.SWAP2:
        return None
    try:
        story = json.loads(original_json).get("game", {}).get("swap2")
        opener, stones = story.get("opener"), int(story["stones"])
    except (ValueError, AttributeError, KeyError, TypeError):
        return None
    black, white = record.players.black or "Black", record.players.white or "White"
    if opener == "white":
        return Swap2Story(white, black, stones)
    return Swap2Story(black, white, stones)  # Black's seat is the opener's until the choice


def read_as_freestyle_hint(path: Path, error: Exception, rule_given: bool) -> str:
    """A hint for a move refused while reading a file that does not record its rule,
    where the rule may be the cause (``move 16 (x23): the game is over`` under
    freestyle, an overline under standard; not an occupied point), else ``""``."""
    if rule_given or path.suffix.lower() == ".json":
        return ""
    if not isinstance(error.__cause__, GameOverError):
        return ""
    return " (read as freestyle: this format does not record the rule; try --rule)"


def read_with_size_hint(path: Path, error: Exception, size_given: bool) -> str:
    """A hint for a point off the board of a move list read at the default size."""
    if size_given or record_format(path) != "moves" or "is off a 15x15 board" not in str(error):
        return ""
    return " (a move list does not record the board's size: give --size for a bigger board)"


class Reading(NamedTuple):
    """A record read from a file, the format its text was read as (``json``, ``psq``,
    ``moves``), and what its reader should be told about the reading."""

    record: GameRecord
    kind: str
    notes: list[str]


def read_record(path: Path, *, rule: Rule | None = None, size: int | None = None) -> Reading:
    """:func:`load_record`, with notes for the reader: an option the file's own
    facts overrule (a JSON record's rule, a PSQ or JSON record's size), and a renju
    record that ends on Black's foul, read up to the move before it (a foul ends a renju
    game; the engine refuses to play one)."""
    record, kind = _unchecked(path, rule=rule or Rule.FREESTYLE, size=size or 15)
    notes: list[str] = []
    try:
        record = record.checked()
    except RecordError as error:
        foul = error.__cause__
        if not (isinstance(foul, ForbiddenMoveError) and error.move is not None):
            raise
        record = dataclasses.replace(record, moves=record.moves[: error.move - 1], result=None)
        notes.append(f"{error}: read up to move {error.move - 1}, before the foul")
    if rule is not None and record.rule is not rule:
        notes.append(f"--rule {rule} is not used: {path.name} records its rule ({record.rule})")
    if size is not None and record.size != size and kind != "moves":
        notes.append(f"--size {size} is not used: {path.name} records its size ({record.size})")
    return Reading(record, kind, notes)


def open_record(path: Path, option: str, *, rule: Rule | None, size: int | None) -> Reading:
    """:func:`read_record` for a command's ``option`` (``FILE``, ``--record``): every
    way it can fail is an OptionError of one line."""
    if path.is_dir():
        raise OptionError(option, f"{path} is a directory, not a record file")
    try:
        return read_record(path, rule=rule, size=size)
    except OSError as exc:
        raise OptionError(option, f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise OptionError(option, f"{path} is not a text file (UTF-8)") from None
    except FormatError as exc:
        raise OptionError(option, f"{path}: {exc}") from None
    except (RecordError, ValueError) as exc:
        hint = read_as_freestyle_hint(path, exc, rule is not None) or read_with_size_hint(
            path, exc, size is not None
        )
        raise OptionError(option, f"{path}: {exc}{hint}") from None


def rule_assumed(path: Path, kind: str, rule: Rule | None, out: Path) -> str | None:
    """The note for a record exported as JSON from a file (read as ``kind``) that does
    not record the rule, read with none given: the JSON states it as fact."""
    if rule is not None or record_format(out) != "json" or kind == "json":
        return None
    return (
        f"{path.name} does not record the rule: {out.name} says freestyle "
        "(export again with --rule renju or --rule standard if it was another)"
    )


def load_record(path: Path, *, rule: Rule = Rule.FREESTYLE, size: int = 15) -> GameRecord:
    """Read and check the record in ``path``. ``rule`` and ``size`` apply to the
    formats that do not carry them (PSQ has a size but no rule; a move list has
    neither). A PSQ file that is not UTF-8 is read as Latin-1: Piskvork, a Windows
    program, writes players' names in the system's code page. A move list may number
    its moves (``1. h8 2. i9``, ``1.h8``) and have comment lines (``#``); a file saved
    as UTF-16 (with its byte-order mark, as Windows' Notepad writes "Unicode") is read
    too. Raises RecordError (bad content; a move list's says what one is), FormatError
    (another program's format), UnicodeDecodeError (another format, not UTF-8) or
    OSError (unreadable)."""
    return _unchecked(path, rule=rule, size=size)[0].checked()


def _decoded(data: bytes, kind: str) -> tuple[str, str]:
    """The file's text and its format so far (a Piskvork file not in UTF-8 is ``psq``)."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") and len(data) % 2 == 0:
        text = data.decode("utf-16", errors="replace")
        if "\0" not in text and 2 * sum(c < "\x80" for c in text) > len(text):
            return text, kind  # mostly ASCII, as a record is: not a binary file's bytes
    try:
        return data.decode("utf-8"), kind
    except UnicodeDecodeError:
        piskvork = kind == "psq" or (kind == "moves" and data.lstrip().startswith(b"Piskvorky"))
        if b"\0" in data or not piskvork:
            raise  # a binary file (no text has a NUL), or not a Piskvork file
        return data.decode("latin-1"), "psq"


_MOVE_NUMBER = re.compile(r"(?<!\S)\d+\.")
"""A move's number in a numbered list (``1.`` before ``h8`` or ``1.h8``)."""


def _unchecked(path: Path, *, rule: Rule, size: int) -> tuple[GameRecord, str]:
    """The record in ``path``, its moves not replayed yet, and the format its text was
    read as."""
    text, kind = _decoded(path.read_bytes(), record_format(path))
    if kind == "moves":
        kind = content_format(text)
    if not text.removeprefix("\ufeff").strip():
        raise RecordError("the file is empty")
    if kind == "json":
        return parse_json(text), kind
    if kind == "psq":
        return parse_psq(text, rule=rule), kind
    lines = text.removeprefix("\ufeff").splitlines()
    moves = " ".join(line for line in lines if not line.lstrip().startswith("#"))
    try:
        record = parse_move_list(_MOVE_NUMBER.sub(" ", moves), size=size, rule=rule, check=False)
    except RecordError as error:
        if "is not a point like" not in str(error):
            raise
        raise RecordError(
            f"{error} (a move list is points like h8 i9 or h8i9; "
            ".json and .psq files are read by their name)",
            move=error.move,
        ) from error
    return record, kind


def original_json(path: Path) -> str | None:
    """The text of ``path`` when it is a JSON record (by its extension), to be shown and
    written again as it is: a record the server kept carries facts of the game that a
    :class:`GameRecord` does not (its clock, ratings, player ids, a swap2 opening).
    None for another format, or a file that cannot be read as UTF-8."""
    if path.suffix.lower() != ".json":
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def export_record(record: GameRecord, path: Path, *, original_json: str | None = None) -> str:
    """Write ``record`` to ``path`` in the format its extension names; returns
    the format's name. ``original_json``, a record as the server archived it, is
    written as it is for ``.json`` (it carries the server's facts about the game:
    player ids, rated, when it ended). Raises OSError if the file cannot be written,
    FormatError for a name of another program's format (``.sgf``)."""
    kind = record_format(path)  # FormatError before anything is written
    if kind == "json" and original_json is not None:
        text = original_json if original_json.endswith("\n") else original_json + "\n"
    elif kind == "json":
        text = format_json(record, indent=2) + "\n"
    elif kind == "psq":
        text = format_psq(record)
    else:
        text = format_move_list(record) + "\n"
    path.write_text(text, encoding="utf-8")
    return kind


__all__ = [
    "FormatError",
    "Reading",
    "RecordError",
    "content_format",
    "export_record",
    "load_record",
    "open_record",
    "original_json",
    "read_as_freestyle_hint",
    "read_record",
    "read_with_size_hint",
    "record_format",
    "rule_assumed",
    "server_clock",
    "swap2_story",
    "unrecorded",
]
