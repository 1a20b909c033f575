"""Notices: a note from the server to a player's connections, on whatever instance
they are connected to (published through the store, :meth:`Store.publish_player`,
delivered here by the hub's inbox to :mod:`server.players`)."""

from __future__ import annotations

import msgspec


class Notice(msgspec.Struct, kw_only=True):
    """A note from the server to a player's connections, on any instance:
    ``matched`` (a quick match found a room), ``watch`` (follow a room) or
    ``revoke`` (close the connections that said hello with the token whose hash is
    ``token``: an AI seat moved to another worker) or ``worker`` (an AI worker said
    ``bot_ready`` on connection ``conn``: close its other worker connections, on any
    instance, as a second ``bot_ready`` on one instance does)."""

    kind: str
    room: str = ""
    token: str = ""
    conn: str = ""


_notice_decoder = msgspec.msgpack.Decoder(Notice)
_notice_encoder = msgspec.msgpack.Encoder()


def encode_notice(notice: Notice) -> bytes:
    return _notice_encoder.encode(notice)


def decode_notice(data: bytes) -> Notice:
    return _notice_decoder.decode(data)
