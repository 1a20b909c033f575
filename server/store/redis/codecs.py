"""How the Redis store's values look in Redis: what its commands answer (bytes or
str, stream entries), room bells, rating standings, rated-game markers and queue
entries. Pure functions, no I/O."""

from __future__ import annotations

from typing import Any, NamedTuple

import msgspec

from server.rating import PlayerRating, Rating
from server.store.archive import RatedGame
from server.store.base import QueueEntry, StoredEvent


def text(value: bytes | str) -> str:
    """A Redis reply as text (replies are bytes: the pool does not decode)."""
    return value.decode() if isinstance(value, bytes) else value


# -- room logs ------------------------------------------------------------------------


def seq_of(entry_id: bytes | str) -> int:
    """The sequence number a stream entry id ``<seq>-0`` stands for."""
    return int(text(entry_id).split("-", 1)[0])


def events(entries: list[Any]) -> list[StoredEvent]:
    """A room log's stream entries (XRANGE's reply: each entry's fields as redis-py's
    dict or as the raw list ``[b"d", data]`` of the lane) as stored events."""
    return [
        StoredEvent(seq_of(entry_id), fields[b"d"] if isinstance(fields, dict) else fields[1])
        for entry_id, fields in entries
    ]


def chat_lines(entries: list[Any]) -> list[StoredEvent]:
    """A room's kept chat lines (LRANGE's reply: each ``<seq>:<event>``) as stored events."""
    lines = []
    for entry in entries:
        seq, _, data = bytes(entry).partition(b":")
        lines.append(StoredEvent(int(seq), data))
    return lines


class Bell(NamedTuple):
    """What a room's bell says: the log ends at ``seq`` and the room is at ``version``;
    a bell rung by a commit or an append also carries the events it logged (from
    ``first``) and a commit's bell the room's new state, so an instance following the
    room needs no read to deliver them or to answer the room's next load."""

    seq: int
    version: int
    first: int = 0
    state: bytes | None = None
    events: tuple[bytes, ...] | None = None


UNREADABLE_BELL = Bell(1 << 62, 0)
"""For a bell that cannot be read: a seq beyond any, so it still wakes the reader."""


def bell(data: bytes) -> Bell:
    """A room bell: ``seq:version``, or ``seq:version:first:state length:event lengths``
    (comma-separated; a state length of -1 for none), a newline, then the state and the
    events' bytes one after the other (``lua/commit.lua``, ``lua/lib/append_events.lua``)."""
    head, newline, body = data.partition(b"\n")
    parts = head.split(b":")
    try:
        seq, version = int(parts[0]), int(parts[1] or 0) if len(parts) > 1 else 0
        if not newline or len(parts) != 5:
            return Bell(seq, version)
        first, state_length = int(parts[2]), int(parts[3])
        lengths = [int(n) for n in parts[4].split(b",")] if parts[4] else []
    except ValueError:
        return UNREADABLE_BELL
    state = None
    at = 0
    if state_length >= 0:
        state, at = body[:state_length], state_length
    events = []
    for length in lengths:
        events.append(body[at : at + length])
        at += length
    if at != len(body) or first + len(events) - 1 != seq:
        return Bell(seq, version)  # not what it says it is: read the log instead
    return Bell(seq, version, first, state, tuple(events))


# -- ratings ----------------------------------------------------------------------------


def encode_standing(standing: PlayerRating) -> bytes:
    r = standing.rating
    return msgspec.msgpack.encode(
        (r.rating, r.rd, r.volatility, standing.wins, standing.losses, standing.draws)
    )


def decode_standing(data: bytes | None) -> PlayerRating:
    """A stored standing; a new player's default for None (never rated)."""
    if data is None:
        return PlayerRating()
    rating, rd, volatility, wins, losses, draws = msgspec.msgpack.decode(
        data, type=tuple[float, float, float, int, int, int]
    )
    return PlayerRating(Rating(rating, rd, volatility), wins, losses, draws)


def encode_rated(rated: RatedGame) -> bytes:
    return msgspec.msgpack.encode([encode_standing(s) for s in (*rated.before, *rated.after)])


def decode_rated(data: bytes) -> RatedGame | None:
    """A rated-once marker's record of what the game did; None for a marker written
    before markers kept the figures (it holds ``1``)."""
    parts = msgspec.msgpack.decode(data)
    if not isinstance(parts, list) or len(parts) != 4:
        return None
    black, white, new_black, new_white = (decode_standing(p) for p in parts)
    return RatedGame((black, white), (new_black, new_white))


# -- matchmaking queues -------------------------------------------------------------------


def encode_waiting(entry: QueueEntry) -> bytes:
    """What a queue's hash keeps of an entry besides its rating: since when, and the name."""
    return msgspec.msgpack.encode((entry.since_ms, entry.name))


def queue_entries(
    ratings: list[tuple[bytes, float]], since: dict[bytes, bytes]
) -> list[QueueEntry]:
    """A queue's entries from its sorted set (ratings) and hash (since, name), lowest
    rating first."""
    entries = []
    for player, score in ratings:
        waiting = since.get(player)
        since_ms, name = (0, "") if waiting is None else _decode_waiting(waiting)
        entries.append(QueueEntry(text(player), float(score), since_ms, name))
    return sorted(entries, key=lambda e: (e.rating, e.since_ms))


def _decode_waiting(data: bytes) -> tuple[int, str]:
    return msgspec.msgpack.decode(data, type=tuple[int, str])
