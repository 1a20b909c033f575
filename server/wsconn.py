"""The server's WebSocket connections: websockets' own, with the client's pings limited,
a lone message read without the parser, and able to change process.

websockets answers each ping with a pong as it parses it, below any limit the server
puts on messages: a client that sent pings as fast as its socket took them, and read
no pong, grew the server by 200 MB in 12 s; four that read them stalled every other
player's moves for seconds. :class:`GuardedConnection` allows a client the pings of the
message rate (``protocol.limits``: 20 a second, bursts of 40; a library's keepalive
sends one every 20 s or so) and closes the connection (1008) on the first beyond it.

When websockets' parser stands between two frames, with nothing of the next one read, a
read that is all of one short, whole, masked text or binary frame (what a client's move
is, one to a read) is unmasked and handed to the connection's reader as the parser would
have, without going through the parser: that saves 8% of the memory server's
instructions for a move. Anything else (a frame split over reads, several in one, a
fragment, a control frame, a longer one, a frame against the rules) is parsed, checked
and refused by websockets as ever. Whether the parser stands between frames is read from
the parser itself (it waits for the next frame's first byte): should a version of
websockets parse otherwise, every read goes through the parser, as before, and no
connection moves to a sibling process (below).

Such a message also skips websockets' queue of messages when the server's reader waits
with nothing queued (:meth:`GuardedConnection.next_message`): it is handed to the reader
at once, which saves another 5% of a move's instructions. Anything that goes to the
queue meanwhile (a message the parser read, the connection's end) sends the reader to
the queue, so messages keep their order and an end is told as websockets tells it; text
that is not UTF-8 goes to the queue, which refuses it (1007).

With ``gomoku-server --processes``, a connection's socket may be handed to the sibling
process that holds the connection's game (:mod:`server.handoff`). The TCP stream goes
with it, so that is safe only between two of the client's frames, with nothing read
but not yet handled: :meth:`MovableConnection.between_frames` asks the parser, as the
reads above do, websockets' queue and the connection's reader (a message handed to it
and not taken yet stops a move). A connection made from a handed socket (:func:`adopted`)
starts open: the handshake was done by the process that accepted it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any, TypedDict

from websockets.asyncio.connection import Connection as _Connection
from websockets.asyncio.server import Server, ServerConnection
from websockets.exceptions import ProtocolError
from websockets.frames import CloseCode, Frame, Opcode
from websockets.protocol import Event, State
from websockets.server import ServerProtocol
from websockets.streams import StreamReader
from websockets.typing import Data, Subprotocol

from protocol.limits import RATE_BURST, RATE_PER_S
from server.ratelimit import TokenBucket

try:  # as websockets.frames unmasks
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - websockets built without its C extension
    from websockets.utils import apply_mask

log = logging.getLogger("gomoku.server")

_FIN_TEXT = 0x81  # FIN, no reserved bits, opcode 1 (RFC 6455, 5.2)
_FIN_BINARY = 0x82
_PARSE = ServerProtocol.parse.__code__  # the parser, until it only discards
_NEXT_FRAME = StreamReader.at_eof.__code__  # where the parser waits between two frames
TOO_MANY_PINGS = "too many pings"


class GuardedConnection(ServerConnection):
    """A server connection whose client may send pings at the message rate only, and
    whose lone whole messages skip the parser."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        pings = TokenBucket(RATE_PER_S, RATE_BURST, time.monotonic())
        sans_io = self.protocol
        answer = sans_io.recv_frame

        def recv_frame(frame: Frame) -> None:
            # Before the protocol queues the ping's pong. The close frame says why (1008);
            # the parser's error ends the parsing of what the client sent after it.
            if frame.opcode is Opcode.PING and not pings.take(time.monotonic()):
                log.warning("closing a connection that sent %s (1008)", TOO_MANY_PINGS)
                sans_io.fail(CloseCode.POLICY_VIOLATION, TOO_MANY_PINGS)
                raise ProtocolError(TOO_MANY_PINGS)
            answer(frame)

        sans_io.recv_frame = recv_frame  # type: ignore[method-assign]
        self._reader: asyncio.Future[Data | None] | None = None
        """The server's reader, waiting in :meth:`next_message` with nothing queued: a
        lone message is handed to it (None: look in websockets' queue instead)."""

    def data_received(self, data: bytes) -> None:
        payload = _lone_message(self.protocol, data)
        if payload is None:
            super().data_received(data)
            return
        text = data[0] == _FIN_TEXT
        reader = self._reader
        if reader is not None and not reader.done():
            # Nothing is queued (anything queued wakes the reader), so this message is
            # the next one: handed over as websockets' queue would give it.
            if not text:
                reader.set_result(payload)
                return
            with contextlib.suppress(UnicodeDecodeError):  # queued instead: refused there
                reader.set_result(payload.decode())
                return
        self.process_event(Frame(Opcode.TEXT if text else Opcode.BINARY, payload))

    def process_event(self, event: Event) -> None:
        super().process_event(event)
        self.wake_reader()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.wake_reader()

    def wake_reader(self) -> None:
        """Send the waiting reader to websockets' queue: something went there (or the
        connection ended, which the queue tells)."""
        reader = self._reader
        if reader is not None and not reader.done():
            reader.set_result(None)

    async def next_message(self) -> Data:
        """The client's next message, as :meth:`recv` gives it; a lone message read
        while this waits with nothing queued comes straight from :meth:`data_received`,
        not through websockets' queue."""
        messages = self.recv_messages
        if len(messages.frames) or messages.closed:
            return await self.recv()
        reader = self._reader = self.loop.create_future()
        try:
            message = await reader
        finally:
            self._reader = None
        return await self.recv() if message is None else message

    def holds_message(self) -> bool:
        """Whether a message was handed to the reader and it has not taken it yet."""
        reader = self._reader
        return reader is not None and reader.done() and not reader.cancelled()


def between_frames(protocol: ServerProtocol) -> bool:
    """Whether ``protocol``'s parser waits for the first byte of a frame, with nothing of
    one read: its innermost generator is the reader's wait for more bytes between two
    frames (False once the parser only discards: after a close, or a failure)."""
    waiting: Any = protocol.parser  # a generator, waiting in the generators it delegates to
    if waiting.gi_code is not _PARSE:
        return False
    while (inner := waiting.gi_yieldfrom) is not None:
        waiting = inner
    return waiting.gi_code is _NEXT_FRAME


def _lone_message(protocol: ServerProtocol, data: bytes) -> bytes | None:
    """The payload, unmasked, of the frame that ``data`` is, if it is all of one short,
    whole, masked text or binary message (its first byte says which) and the parser
    waits for a frame, with no fragmented message begun; None for anything else (which
    the parser then reads)."""
    if len(data) < 6 or protocol.current_size is not None or protocol.extensions:
        return None
    head = data[0]
    length = data[1] - 0x80  # the mask bit set (RFC 6455, 5.3), the length in 7 bits
    if (head != _FIN_TEXT and head != _FIN_BINARY) or not 0 <= length < 126:
        return None
    limit = protocol.max_message_size
    if len(data) != length + 6 or (limit is not None and length > limit):
        return None
    if protocol.debug or not between_frames(protocol):  # (debug: the parser logs frames)
        return None
    return apply_mask(data[6:], data[2:6])


class MovableConnection(GuardedConnection):
    """A server connection that knows when it stands between two of the client's frames."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.adopted = False
        """Made from a socket another process handed over (no handshake here)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if self.adopted:  # no handshake, and the handler runs from the adopting code
            _Connection.connection_made(self, transport)
        else:
            super().connection_made(transport)

    def process_event(self, event: Event) -> None:
        if self.adopted:  # frames from the start: no request comes first
            _Connection.process_event(self, event)
            self.wake_reader()
        else:
            super().process_event(event)

    def between_frames(self) -> bool:
        """Whether everything read from the socket so far is whole frames that reached
        the server's reader, with no message begun and not ended, so the stream could
        go on in another process."""
        protocol = self.protocol
        return (
            protocol.state is State.OPEN
            and protocol.current_size is None
            and len(self.recv_messages.frames) == 0
            and not self.holds_message()
            and between_frames(protocol)
        )


class Options(TypedDict):
    """A server connection's options (websockets' names), the same for the connections
    the listener accepts and those it is handed."""

    max_size: int
    ping_interval: float | None
    ping_timeout: float | None
    max_queue: int
    write_limit: int


def adopted(server: Server, subprotocol: str | None, options: Options) -> MovableConnection:
    """A connection, already open, for a socket handed over by another process: its
    handshake chose ``subprotocol``."""
    protocol = ServerProtocol(state=State.OPEN, max_size=options["max_size"])
    protocol.subprotocol = Subprotocol(subprotocol) if subprotocol else None
    connection = MovableConnection(
        protocol,
        server,
        ping_interval=options["ping_interval"],
        ping_timeout=options["ping_timeout"],
        max_queue=options["max_queue"],
        write_limit=options["write_limit"],
    )
    connection.adopted = True
    return connection
