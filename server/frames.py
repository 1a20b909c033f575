"""One message written to many sockets, its WebSocket frame built once.

``websockets.broadcast`` hands the message to each connection's protocol, which builds
the frame again for every peer. A server's frames are never masked, and with no
extension negotiated (the listener turns compression off) they are the same bytes for
every peer, so this builds the frame once and writes those bytes to each socket: an
event to a room's two players or its thousand spectators costs one frame and one write
per peer. A connection that did negotiate an extension still goes through its protocol.

As with ``broadcast``: connections that are not open (closing, closed) are skipped, and
a write that fails on one connection is logged and does not stop the others. The server
never sends a fragmented message, so no frame can land inside one.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Iterable

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.protocol import State

log = logging.getLogger(__name__)

_OPEN = State.OPEN
_FIN_TEXT = 0x81  # FIN, opcode 1 (RFC 6455, 5.2)
_FIN_BINARY = 0x82  # FIN, opcode 2
_LENGTH_16 = struct.Struct("!BBH")
_LENGTH_64 = struct.Struct("!BBQ")


def unmasked_frame(data: bytes, *, text: bool) -> bytes:
    """The bytes of one unmasked, unfragmented frame carrying ``data`` (RFC 6455, 5.2):
    what ``websockets.frames.Frame(...).serialize(mask=False)`` makes, without its checks
    for frames a server never sends here (control frames, reserved bits)."""
    head = _FIN_TEXT if text else _FIN_BINARY
    length = len(data)
    if length < 126:
        return bytes((head, length)) + data
    if length < 65536:
        return _LENGTH_16.pack(head, 126, length) + data
    return _LENGTH_64.pack(head, 127, length) + data


def write_message(sockets: Iterable[ServerConnection], data: bytes, *, text: bool) -> None:
    """Send ``data`` as one text (``text``) or binary message on each of ``sockets``."""
    frame: bytes | None = None
    for ws in sockets:
        protocol = ws.protocol
        if protocol.state is not _OPEN:
            continue
        if protocol.extensions:
            broadcast((ws,), data, text=text)  # its own frame
            continue
        if frame is None:
            frame = unmasked_frame(data, text=text)
        try:
            ws.transport.write(frame)
        except Exception as exc:  # as broadcast: one peer's failure is not the others'
            log.warning("skipped a write to a connection: %s", exc)
