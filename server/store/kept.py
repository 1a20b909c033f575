"""Games being played, kept over a restart by the embedded store: the memory store's
rooms (their states, logs and what the store knows of them) as one value the data file
keeps until the next start takes them up (:meth:`MemoryStore.keep_rooms`,
:meth:`MemoryStore.restore_rooms`). A club's server restarted between rounds (an
upgrade, a changed option) ended every game on its boards, unrecorded."""

from __future__ import annotations

import msgspec


class KeptRoom(msgspec.Struct, frozen=True, kw_only=True):
    """One room as the memory store held it."""

    id: str
    version: int
    state: bytes
    seq: int
    log: list[tuple[int, bytes]]
    """Its event log (seq, event bytes): a client resuming from a seq it saw catches up."""
    chat: list[tuple[int, bytes]]
    deadline_ms: int | None
    lobby: bytes | None
    """Its lobby line, for a public room."""
    in_progress: bool
    players: list[str]
    """The players whose rooms (``welcome``'s list) hold it."""
    invites: list[str]
    """The invite codes leading to it."""


class KeptRooms(msgspec.Struct, frozen=True, kw_only=True):
    """The rooms kept, and the store's last beat when they were."""

    beat_ms: int | None
    rooms: list[KeptRoom]


def encode_kept(kept: KeptRooms) -> bytes:
    return msgspec.msgpack.encode(kept)


def decode_kept(data: bytes) -> KeptRooms:
    """The value :func:`encode_kept` wrote; raises ``msgspec.DecodeError`` (a subclass of
    ValueError) for anything else."""
    return msgspec.msgpack.decode(data, type=KeptRooms)
