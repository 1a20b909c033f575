"""How the Redis store's values look in Redis: what its commands answer (bytes or
str, stream entries), room bells, rating standings, rated-game markers and queue
entries. Pure functions, no I/O."""

from __future__ import annotations

from typing import Any

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


def bell(data: bytes) -> tuple[int, int]:
    """A room bell's ``seq:version`` (for what cannot be read: a seq beyond any, so it
    still wakes the reader, and version 0)."""
    seq, _, version = data.partition(b":")
    try:
        return int(seq), int(version or 0)
    except ValueError:
        return 1 << 62, 0


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
