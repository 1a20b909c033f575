"""Identities: player ids, resume tokens (stored only as hashes), room ids and
invite codes, and the session record kept in the store."""

from __future__ import annotations

import hashlib
import secrets
import unicodedata

import msgspec

INVITE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
"""The 31 characters of invite codes: digits and capitals without the look-alikes
0/O and 1/I/L, so a code read aloud or from a screen is typed right."""
INVITE_GROUPS = 3
INVITE_GROUP_SIZE = 3
"""An invite code is 3 groups of 3 (``K7Q-XMP-4RW``): 31**9, about 2**44.6 codes."""
_INVITE_SEPARATORS = frozenset("_.\u2212\u30fc")
"""Besides every kind of space, dash and invisible format character: the underscore,
the dot, the minus sign (a maths symbol to Unicode, a dash to the person typing) and
the katakana long-vowel mark ``ー``, which a Japanese keyboard types for the dash key
(a letter to Unicode; the half-width one becomes it in NFKC)."""


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
    """A fresh invite code as people see it: ``K7Q-XMP-4RW``."""
    groups = (
        "".join(secrets.choice(INVITE_ALPHABET) for _ in range(INVITE_GROUP_SIZE))
        for _ in range(INVITE_GROUPS)
    )
    return "-".join(groups)


def invite_key(code: str) -> str:
    """The form an invite code is stored and looked up in: upper case, without the
    separators people type or leave out (``k7q xmp-4rw`` and ``K7QXMP4RW`` are the same
    code), in NFKC so that the full-width letters a CJK keyboard types are the same
    letters; any dash or space counts (an en dash from a phone's keyboard, a no-break
    space from a copied link). Codes of older servers (6 characters, no groups) keep
    working."""
    return "".join(
        c
        for c in unicodedata.normalize("NFKC", code).upper()
        if c not in _INVITE_SEPARATORS and unicodedata.category(c) not in _SEPARATOR_CATEGORIES
    )


_SEPARATOR_CATEGORIES = frozenset(("Zs", "Pd", "Cf"))
