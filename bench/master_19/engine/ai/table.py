"""Transposition tables that outlive one search.

A table maps a position's Zobrist hash to what a search learnt there: the
depth searched, whether the score is exact or a bound, the score, and the best
move. Keeping it between moves of a game (the process plays the next move on a
position two plies on, whose subtrees were mostly searched already) saves the
first iterations of every search. Tables are kept per *key* (board size, rule
and level: a weak level must not read a strong level's results), a few at a
time, each bounded in entries; the oldest entries go first.

An entry is one int, so that a table of a few hundred thousand entries stays
small: ``(score + SCORE_OFFSET) << 24 | (move + 1) << 12 | depth << 2 | flag``.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Hashable

EXACT, LOWER, UPPER = 0, 1, 2
SCORE_OFFSET = 1 << 22
LIMIT = 250_000  # entries a table may hold; the search clears it if a search overfills it
TRIM_TO = LIMIT // 2  # entries kept when a table is trimmed before a search
TABLES_KEPT = 3

_tables: OrderedDict[Hashable, dict[int, int]] = OrderedDict()


def pack(depth: int, flag: int, score: int, move: int) -> int:
    """An entry; ``move`` is -1 when there is none, ``depth`` at most 1023."""
    return (score + SCORE_OFFSET) << 24 | (move + 1) << 12 | min(depth, 1023) << 2 | flag


def unpack(entry: int) -> tuple[int, int, int, int]:
    """(depth, flag, score, move) of an entry."""
    return (entry >> 2) & 1023, entry & 3, (entry >> 24) - SCORE_OFFSET, ((entry >> 12) & 4095) - 1


def table_for(key: Hashable) -> dict[int, int]:
    """The table for ``key``, trimmed to leave room for a search; a new one the
    first time (the least recently used table is dropped beyond TABLES_KEPT)."""
    table = _tables.pop(key, None)
    if table is None:
        table = {}
    _tables[key] = table
    while len(_tables) > TABLES_KEPT:
        _tables.popitem(last=False)
    if len(table) > TRIM_TO:
        for stale in list(itertools.islice(table, len(table) - TRIM_TO)):
            del table[stale]
    return table


def forget() -> None:
    """Drop every table (a new game, or a test that wants a cold start)."""
    _tables.clear()
