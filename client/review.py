"""Reading and writing game records for the review screen, by file name.

``.json`` is the project's own record (everything), ``.psq`` the Piskvork /
Gomocup file, anything else a move list (``h8 i9 j10``), unless its text is plainly
one of the other two (a JSON object, a Piskvork header). The formats
themselves live in :mod:`engine.record`; this module only picks one.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from engine.errors import RecordError
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


def record_format(path: Path) -> str:
    """``json``, ``psq`` or ``moves``, from the file's extension."""
    suffix = path.suffix.lower()
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


def read_as_freestyle_hint(path: Path, error: Exception, rule_given: bool) -> str:
    """A hint for a move refused while reading a file that does not record its rule
    (``move 16 (x23): the game is over`` may be the rule's doing), else ``""``."""
    if rule_given or path.suffix.lower() == ".json" or "): " not in str(error):
        return ""
    return " (read as freestyle: this format does not record the rule; try --rule)"


def load_record(path: Path, *, rule: Rule = Rule.FREESTYLE, size: int = 15) -> GameRecord:
    """Read and check the record in ``path``. ``rule`` and ``size`` apply to the
    formats that do not carry them (PSQ has a size but no rule; a move list has
    neither). A PSQ file that is not UTF-8 is read as Latin-1: Piskvork, a Windows
    program, writes players' names in the system's code page. Raises RecordError (bad
    content), UnicodeDecodeError (another format, not UTF-8) or OSError (unreadable)."""
    kind = record_format(path)
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        piskvork = kind == "psq" or (kind == "moves" and data.lstrip().startswith(b"Piskvorky"))
        if b"\0" in data or not piskvork:
            raise  # a binary file (no text has a NUL), or not a Piskvork file
        text = data.decode("latin-1")
        kind = "psq"
    if kind == "moves":
        kind = content_format(text)
    if not text.removeprefix("\ufeff").strip():
        raise RecordError("the file is empty")
    if kind == "json":
        return parse_json(text).checked()
    if kind == "psq":
        return parse_psq(text, rule=rule).checked()
    return parse_move_list(text, size=size, rule=rule).checked()


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
    player ids, rated, when it ended). Raises OSError if the file cannot be written."""
    kind = record_format(path)
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
    "RecordError",
    "content_format",
    "export_record",
    "load_record",
    "original_json",
    "read_as_freestyle_hint",
    "record_format",
    "unrecorded",
]
