"""Every finished game on the server, newest first, as CSV for a spreadsheet: what a
teacher wants at the end of a lesson, or a club at the end of an evening (``GET
/games.csv``, answered to the server's own machine only: it lists private games too).

One row a game, from its kept record (:func:`server.history.record_bytes`): when it
ended (UTC), its room, rule, board, opening and clock, both players' names and ids,
the winner (``black``, ``white``, ``draw``, or ``aborted``), how it ended, its stones,
whether it was rated and private, and the address of its record (``/games/<id>.json``,
also for the server's own machine: a private game's record is otherwise its players'
alone). The clock is written as the clients write it
(``5+3``, ``30s+0``); a name that begins like a spreadsheet formula is led by an
apostrophe. A record that cannot be read is left out.
"""

from __future__ import annotations

import asyncio
import csv
import datetime
import io
import json
import re
import urllib.parse
from typing import Any

from protocol.values import TimeControl
from server.store import Store

COLUMNS = (
    "ended_utc", "game", "rule", "size", "opening", "time", "black", "white", "winner",
    "reason", "moves", "rated", "private", "black_id", "white_id", "record",
)  # fmt: skip
RECORDS_PATH = "/games/"
"""Where a game's record is: ``/games/<id>.json``, to the server's own machine too."""
_RECORD_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
LIMIT = 1000
"""Games listed when ``limit`` is not given."""
MOST = 10_000
READ_AT_ONCE = 50
"""Records read together (not all at once: a Redis client opens a connection for each
command waiting)."""


class BadQuery(ValueError):
    """``since`` or ``limit`` in the address cannot be read (the message says which)."""


def query(target: str) -> tuple[int, int]:
    """``since`` (an ISO date or time, UTC unless it says otherwise) and ``limit``
    from a request's path, as (since in ms, limit)."""
    fields = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query)
    since_ms, limit = 0, LIMIT
    if "since" in fields:
        text = fields["since"][-1]
        try:
            when = datetime.datetime.fromisoformat(text)
        except ValueError:
            raise BadQuery(f"since={text!r} is not a date like 2026-11-30") from None
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.UTC)
        since_ms = int(when.timestamp() * 1000)
    if "limit" in fields:
        text = fields["limit"][-1]
        if not text.isdigit() or not 1 <= int(text) <= MOST:
            raise BadQuery(f"limit={text!r} is not a number from 1 to {MOST}")
        limit = int(text)
    return since_ms, limit


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet takes a cell to be a formula by (OWASP's list for CSV files)."""


def as_text(name: str) -> str:
    """A player's name as a cell a spreadsheet shows as text: one that begins like a
    formula (a player may be called ``=1+1 Dan``) is led by an apostrophe, which the
    spreadsheet does not show."""
    return "'" + name if name.startswith(FORMULA_STARTS) else name


def record_id(path: str) -> str | None:
    """The game that ``/games/<id>.json`` names, or None if ``path`` names none."""
    name = path.removeprefix(RECORDS_PATH)
    if name == path or not name.endswith(".json"):
        return None
    game_id = name.removesuffix(".json")
    return game_id if _RECORD_ID.fullmatch(game_id) else None


def row(data: dict[str, Any], ended_ms: int, records_at: str) -> list[object]:
    """One game's row from its record's data; its record is under ``records_at``."""
    facts = data.get("game") or {}
    result = data.get("result") or {}
    time = facts.get("time")
    winner = "aborted" if facts.get("aborted") else result.get("winner") or "draw"
    clock = "none" if not time else str(TimeControl(base_ms=time["base_ms"], inc_ms=time["inc_ms"]))
    players = data.get("players") or {}
    ended = datetime.datetime.fromtimestamp(ended_ms / 1000, datetime.UTC)
    return [
        ended.strftime("%Y-%m-%d %H:%M:%S"),
        facts.get("id", ""),
        data.get("rule", ""),
        data.get("size", ""),
        data.get("opening", ""),
        clock,
        as_text(players.get("black") or ""),
        as_text(players.get("white") or ""),
        winner if result or facts.get("aborted") else "",
        result.get("reason", ""),
        len(data.get("moves") or []),
        "yes" if facts.get("rated") else "no",
        "yes" if facts.get("private") else "no",
        facts.get("black", ""),
        facts.get("white", ""),
        f"{records_at}{facts['id']}.json" if facts.get("id") else "",
    ]


async def games_csv(
    store: Store, *, since_ms: int = 0, limit: int = LIMIT, records_at: str = RECORDS_PATH
) -> str:
    """The CSV of the finished games that ended at ``since_ms`` or later, newest first;
    each row's last cell is the address of its record, ``records_at`` + id + ``.json``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # as spreadsheets write it
    writer.writerow(COLUMNS)
    games = await store.recent_games(limit, since_ms)
    # Asked for a batch at a time: one round trip each, in turn, added up over 10,000.
    records: list[bytes | None] = []
    for start in range(0, len(games), READ_AT_ONCE):
        batch = games[start : start + READ_AT_ONCE]
        records += await asyncio.gather(*(store.get_record(game_id) for game_id, _ in batch))
    for (_, ended_ms), record in zip(games, records, strict=True):
        try:
            data = json.loads(record or b"")
        except ValueError:
            continue
        if isinstance(data, dict):
            writer.writerow(row(data, ended_ms, records_at))
    return out.getvalue()
