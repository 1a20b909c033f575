"""Identities: player ids, resume tokens (stored only as hashes), room ids and
invite codes, and the session record kept in the store."""

from __future__ import annotations

import hashlib
import secrets

import msgspec

_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I


class SessionRecord(msgspec.Struct, kw_only=True):
    """What a resume token leads to."""

    player: str
    name: str
    rating: int = 1500
    bot: bool = False
    worker: str | None = None
    """For an AI seat: the player id of the worker that plays it."""
    level: str | None = None
    """For an AI seat: the level it plays at."""
    seen_ms: int | None = None
    """For an AI seat: when a connection last said hello with this token (on any
    server instance), so an instance that gave the seat out knows it is played."""


_session_decoder = msgspec.msgpack.Decoder(SessionRecord)
_encoder = msgspec.msgpack.Encoder()


def encode_session(record: SessionRecord) -> bytes:
    return _encoder.encode(record)


def decode_session(data: bytes) -> SessionRecord:
    return _session_decoder.decode(data)


def new_token() -> str:
    """A secret resume token (192 random bits)."""
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    """The key a session is stored under: a leaked store reveals no tokens."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_player_id() -> str:
    return "p-" + secrets.token_hex(6)


def new_room_id() -> str:
    return "r-" + secrets.token_hex(5)


def new_invite_code() -> str:
    return "".join(secrets.choice(_CODE_ALPHABET) for _ in range(6))
