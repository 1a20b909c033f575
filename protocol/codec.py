"""The protocol's two wire encodings, and validating decoding of messages.

The same messages travel in either encoding; a WebSocket connection chooses one with
its subprotocol (protocol.md, "Encodings"):

* :data:`MSGPACK` (the default: no subprotocol, or ``gomoku.msgpack``): one
  MessagePack map per **binary** frame;
* :data:`JSON` (``gomoku.json``): one JSON object per **text** frame, for browsers
  and scripting languages that have no MessagePack library at hand.

The module-level functions (:func:`encode`, :func:`decode_client`, ...) are
:data:`MSGPACK`'s, which is what the terminal client, the AI worker and the server's
event log speak.

Decoding never raises anything but :class:`ProtocolError` (or its subclass
:class:`UnknownMessageType`): whatever arrives from the network, the caller gets
either a typed message or an error it can send back as an ``error`` frame. Codes:
``bad_frame`` for a frame of the other kind (a text frame where binary ones are
expected, or the reverse) or anything that is neither ``bytes`` nor ``str``,
``too_large`` for an oversized frame, ``bad_message`` for a frame that is not a
message of the protocol (not MessagePack or JSON, not a map, unknown ``type``, a
missing field, a field of the wrong type), and ``bad_value`` for a field of the right
type whose value is out of range (a board size of 40, a 500-character chat line, an
unknown rule name).

No message carries a value only one encoding can hold: every map key is a string,
there are no byte strings and no MessagePack extension types, and every integer
fits in JavaScript's safe range (request ids are capped at 2^53-1 for that reason).
So a message converts between the encodings without loss.

MessagePack extension types are no part of the protocol: a client frame holding one
anywhere, even in a field the receiver does not know and would otherwise skip, is
``bad_message`` (:meth:`Codec.decode_client`).
"""

from __future__ import annotations

import datetime
import enum
import re
import typing
from typing import Any, NoReturn, TypeGuard

import msgspec

from protocol.errors import ErrorCode, ProtocolError, UnknownMessageType
from protocol.events import RoomEvent
from protocol.limits import ID_MAX, MAX_CLIENT_FRAME, MAX_REQUEST_ID, MAX_SERVER_FRAME
from protocol.messages import ClientMessage, Error, ServerMessage
from protocol.values import LEVEL_PATTERN, POINT_PATTERN

__all__ = [
    "ENCODINGS",
    "JSON",
    "MSGPACK",
    "Codec",
    "decode_client",
    "decode_event",
    "decode_server",
    "encode",
    "error_reply",
    "event_frame",
    "request_id",
]


class _Peek(msgspec.Struct):
    """The keys worth reporting from a message that failed to decode."""

    type: Any = None
    id: Any = None
    room: Any = None


class _Extension(Exception):
    """An extension type met while checking a frame (its type code)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def _refuse_extension(code: int, data: memoryview) -> NoReturn:
    raise _Extension(code)


_plain_decoder = msgspec.msgpack.Decoder(ext_hook=_refuse_extension)
"""Decodes a whole frame, unknown fields too, and stops at the first extension type (but
for the timestamp type -1, which msgspec decodes into a datetime by itself)."""

_has_extension_head = re.compile(rb"[\xc7-\xc9\xd4-\xd8]").search
"""The bytes that start a MessagePack extension (ext 8/16/32, fixext 1/2/4/8/16). They
also occur inside strings, binaries and numbers, so a frame holding one is decoded whole
to be sure; most frames hold none and cost one scan."""


class _EventFrame(msgspec.Struct, frozen=True, tag_field="type", tag="event"):
    """An ``event`` message whose room event is already encoded (see :meth:`Codec.event_frame`)."""

    room: str
    seq: int
    event: msgspec.Raw


_AT_PATH = re.compile(r"^(?P<detail>.*) - at `\$(?P<path>[^`]*)`$", re.DOTALL)
_IN_KEY = re.compile(r" - at `key` in `\$(?P<path>[^`]*)`$")
_MISSING = re.compile(r"missing required field `([^`]+)`")
_PATTERNS = {
    POINT_PATTERN: "like h8 (a lower-case column letter and a row number)",
    LEVEL_PATTERN: "that is a level name like master (1 to 40 of a-z 0-9 _ . : + -)",
}

NESTING_READ = 500
"""Arrays and maps nested this deep are read, in fields the server does not know too
(protocol.md); the decoder gives up somewhat deeper, at Python's recursion limit
(about 1,000 levels on 3.11, 1,500 on 3.12; on 3.13 not within a client frame's size)."""

_stored_event_decoder = msgspec.msgpack.Decoder()  # untyped: events we stored ourselves

_NULL_AT = re.compile(r"^Expected `[^`]+`, got `(?:null|None)` - at `\$(?P<path>(?:\.[a-z_]+)+)`$")
"""msgspec's words for a null (JSON's, or MessagePack's nil) in a field of a map, at
any depth, that takes no null."""
_MAX_NULLS_TAKEN = 16  # more than any message has optional fields


class Codec:
    """One wire encoding: how messages become frames and frames become messages.

    A WebSocket library hands over a binary frame as ``bytes`` and a text frame as
    ``str``; each encoding accepts only its own kind. The encoders return ``bytes``
    either way (JSON as UTF-8), which a WebSocket library can send as a text frame
    without decoding it (``websockets``: ``send(data, text=True)``)."""

    def __init__(
        self,
        *,
        name: str,
        subprotocol: str,
        text: bool,
        module: Any,
        map_word: str,
    ) -> None:
        self.name = name
        """For people: ``MessagePack`` or ``JSON``."""
        self.subprotocol = subprotocol
        """The WebSocket subprotocol that selects this encoding."""
        self.text = text
        """True if frames are text frames (JSON), False if binary (MessagePack)."""
        self.map_word = map_word
        """What this encoding calls a map (for error messages)."""
        self._frame_types: tuple[type, ...] = (str,) if text else (bytes, bytearray, memoryview)
        self._encoder = module.Encoder()
        self._client = module.Decoder(ClientMessage)
        self._server = module.Decoder(ServerMessage)
        self._peek_decoder = module.Decoder(_Peek)
        self._untyped = module.Decoder()

    def __repr__(self) -> str:
        return f"<Codec {self.subprotocol}>"

    def encode(self, message: msgspec.Struct) -> bytes:
        """Encode any message (or room event) as one map of this encoding."""
        data: bytes = self._encoder.encode(message)
        return data

    def event_frame(self, room: str, seq: int, event: bytes) -> bytes:
        """The ``event`` message for a room event stored already encoded in MessagePack
        (by :func:`encode`), without decoding it into its type again: the same bytes as
        ``self.encode(Event(room=room, seq=seq, event=decode_event(event)))``."""
        if self is not MSGPACK:
            event = self._encoder.encode(_stored_event_decoder.decode(event))
        data: bytes = self._encoder.encode(
            _EventFrame(room=room, seq=seq, event=msgspec.Raw(event))
        )
        return data

    def decode_client(self, data: object) -> ClientMessage:
        """Decode one frame from a client; raise ``ProtocolError`` if it is not a valid
        message or (MessagePack) holds an extension type anywhere (``bad_message``)."""
        result: ClientMessage = self._decode(self._client, data, MAX_CLIENT_FRAME)
        if self.text:
            return result
        frame: bytes = data  # type: ignore[assignment]  # _decode refused anything but bytes
        if _has_extension_head(frame) and (found := _extension_in(frame)) is not None:
            tag = type(result).__struct_config__.tag
            raise ProtocolError(ErrorCode.BAD_MESSAGE, f"{tag} message: {found}", re=result.id)
        return result

    def decode_server(self, data: object) -> ServerMessage:
        """Decode one frame from the server; raise ``ProtocolError`` if it is not a valid
        message, ``UnknownMessageType`` (a ``ProtocolError``) for a type this version does
        not know, which a client should ignore."""
        result: ServerMessage = self._decode(self._server, data, MAX_SERVER_FRAME)
        return result

    def request_id(self, data: object) -> int | None:
        """The ``id`` of a client frame, read without validating the rest of it.

        For answering a frame the server drops unread (a rate-limited one) with the
        request it refers to, so the sender knows which of its messages to send again."""
        if not self._accepts(data) or len(data) > MAX_CLIENT_FRAME:
            return None
        return self._peek(data)[1]

    def _accepts(self, data: object) -> TypeGuard[str | bytes | bytearray | memoryview]:
        """Whether ``data`` is a frame of this encoding's kind (text or binary)."""
        return isinstance(data, self._frame_types)

    def _decode(self, decoder: Any, data: object, limit: int) -> Any:
        if not self._accepts(data):
            if isinstance(data, str | bytes | bytearray | memoryview):
                mine, other = ("text", "binary") if self.text else ("binary", "text")
                raise ProtocolError(
                    ErrorCode.BAD_FRAME,
                    f"{other} frames are not accepted with {self.subprotocol}; send {mine} frames",
                )
            raise ProtocolError(
                ErrorCode.BAD_FRAME, f"a frame must be bytes or str, not {type(data).__name__}"
            )
        check_frame_size(data, limit)
        try:
            return decoder.decode(data)
        except msgspec.ValidationError as exc:
            taken = self._nulls_as_absent(data, str(exc)) if decoder is self._client else None
            if taken is not None:
                return taken
            known = _CLIENT_TAGS if decoder is self._client else _SERVER_TAGS
            error = _from_validation(self, str(exc), data, known)
            error.room = self._peek_room(data)
            raise error from None
        except (msgspec.DecodeError, ValueError, RecursionError, MemoryError, TypeError) as exc:
            # ValueError covers UnicodeDecodeError from malformed strings; RecursionError a
            # nesting bomb; TypeError unhashable keys and the like. The id and room may
            # still be read (a bad string in another field): the error names them.
            failure = ProtocolError(
                ErrorCode.BAD_MESSAGE,
                f"frame is not a valid {self.name} message: {_decode_failure(exc, data)}",
                re=self._peek(data)[1],
            )
            failure.room = self._peek_room(data)
            raise failure from None

    def _nulls_as_absent(self, data: Any, failure: str) -> ClientMessage | None:
        """The client message in ``data`` read with each null that failed validation
        taken out, as if the field had not been sent: an optional field whose default
        is not null (``version``, ``size``, ``as`` ...) may be absent, and a null there
        can mean nothing else (protocol.md, "Encoding"). None if anything else fails,
        a null in a required field included (its error is then the one reported).
        Only refused frames get here: a valid one costs nothing more."""
        try:
            message = self._untyped.decode(data)
        except Exception:
            return None
        for _ in range(_MAX_NULLS_TAKEN):
            found = _NULL_AT.match(failure)
            if found is None:
                return None
            *parents, key = found.group("path")[1:].split(".")
            node = message
            for parent in parents:
                node = node.get(parent) if isinstance(node, dict) else None
            if not isinstance(node, dict) or key not in node or node[key] is not None:
                return None
            del node[key]
            try:
                taken: ClientMessage = self._client.decode(self._encoder.encode(message))
            except msgspec.ValidationError as exc:
                failure = str(exc)
            except Exception:
                return None
            else:
                return taken
        return None

    def _peek_room(self, data: Any) -> str | None:
        """The ``room`` of a frame that failed validation, if it reads as a room id (the
        error that answers it names the room, as the refusal of a valid message does)."""
        try:
            room = self._peek_decoder.decode(data).room
        except Exception:
            return None
        if isinstance(room, str) and 0 < len(room) <= ID_MAX and room.isprintable():
            return room
        return None

    def _peek(self, data: Any) -> tuple[str | None, int | None]:
        """The ``type`` and ``id`` of a frame that failed validation, if they can be read:
        also from a MessagePack map with a key that is no string (its ``id`` was not
        echoed though it was there to read)."""
        try:
            peek = self._peek_decoder.decode(data)
            msg_type, request_id = peek.type, peek.id
        except Exception:
            try:
                loose = self._untyped.decode(data)
            except Exception:
                return None, None
            if not isinstance(loose, dict):
                return None, None
            msg_type, request_id = loose.get("type"), loose.get("id")
        msg_type = msg_type if isinstance(msg_type, str) and len(msg_type) <= 40 else None
        if isinstance(request_id, bool) or not isinstance(request_id, int):
            request_id = None
        if request_id is not None and not 0 <= request_id <= MAX_REQUEST_ID:
            request_id = None
        return msg_type, request_id


_LONE_HIGH_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u)")


def _decode_failure(exc: Exception, data: Any) -> str:
    """What is wrong with a frame that could not be decoded, in words a bot author can
    act on: the decoder's own texts name a lone surrogate escape "truncated" input and
    quote Python's codec for a bad UTF-8 byte."""
    if isinstance(exc, RecursionError):  # Python's words: "maximum recursion depth..."
        return f"arrays or maps are nested too deeply ({NESTING_READ} levels are always read)"
    if isinstance(exc, UnicodeDecodeError):  # msgspec before 0.23
        return f"a string is not valid UTF-8 (byte 0x{exc.object[exc.start]:02x})"
    text = str(exc)
    if text == "Invalid UTF-8 encoded string" and isinstance(data, bytes | bytearray):
        bad = _first_bad_utf8_byte(bytes(data))  # msgspec 0.23 on names no byte
        return "a string is not valid UTF-8" + ("" if bad is None else f" (byte 0x{bad:02x})")
    truncated = text == "Input data was truncated"
    if truncated and isinstance(data, str) and _LONE_HIGH_SURROGATE.search(data):
        return "a \\u escape is half of a UTF-16 surrogate pair with no other half"
    return text or type(exc).__name__


# How many bytes follow each MessagePack head byte before the next head, for the heads
# whose length is fixed (containers' heads carry only a count: their items follow).
_FIXED_TAIL = {
    0xC0: 0, 0xC2: 0, 0xC3: 0, 0xCA: 4, 0xCB: 8, 0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8,
    0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8, 0xD4: 2, 0xD5: 3, 0xD6: 5, 0xD7: 9, 0xD8: 17,
    0xDC: 2, 0xDD: 4, 0xDE: 2, 0xDF: 4,
}  # fmt: skip
# Heads followed by a length of 1, 2 or 4 bytes, then that many bytes (and for an
# extension one type byte): bin, ext and str.
_SIZED = {0xC4: 1, 0xC5: 2, 0xC6: 4, 0xC7: 1, 0xC8: 2, 0xC9: 4, 0xD9: 1, 0xDA: 2, 0xDB: 4}


def _first_bad_utf8_byte(data: bytes) -> int | None:
    """The first byte of a MessagePack frame's strings that is not valid UTF-8, found by
    reading the frame's items one after another (a head says its own length, so the
    nesting need not be followed). None if none is found where the frame can be read."""
    at = 0
    while at < len(data):
        head = data[at]
        at += 1
        start = end = at
        if 0xA0 <= head <= 0xBF:
            end = at + (head & 0x1F)
        elif head in _SIZED:
            width = _SIZED[head]
            start = at + width + (1 if 0xC7 <= head <= 0xC9 else 0)
            end = start + int.from_bytes(data[at : at + width], "big")
        elif head in _FIXED_TAIL:
            at += _FIXED_TAIL[head]
            continue
        else:
            continue  # one byte: a fixint, fixmap or fixarray head (0xc1 is never sent)
        if head >= 0xD9 or head <= 0xBF:  # a string
            try:
                data[start:end].decode("utf-8")
            except UnicodeDecodeError as exc:
                return data[start + exc.start]
        at = end
    return None


def _extension_in(data: bytes) -> str | None:
    """What is wrong with a frame that decoded as a message and holds a byte that may
    start an extension (:data:`_has_extension_head`): an extension type in it
    (anywhere: the typed decoder skips unknown fields unread), or, in an unknown field, a
    map key that no MessagePack map of the protocol has (so the whole frame could not be
    read to look). None if it holds neither."""
    try:
        value = _plain_decoder.decode(data)
    except _Extension as found:
        return _no_extensions(found.code)
    except (msgspec.DecodeError, ValueError, TypeError, RecursionError, MemoryError) as exc:
        return f"frame could not be read whole: {exc or type(exc).__name__}"
    stack = [value]
    while stack:  # not recursive: the frame may nest as deep as msgspec allows
        item = stack.pop()
        if isinstance(item, datetime.datetime):
            return _no_extensions(-1)  # the timestamp type
        if isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return None


def _no_extensions(code: int) -> str:
    return f"MessagePack extension types are not part of the protocol (found type {code})"


def _tags(union: Any) -> frozenset[str]:
    return frozenset(str(member.__struct_config__.tag) for member in typing.get_args(union))


_CLIENT_TAGS = _tags(ClientMessage)
_SERVER_TAGS = _tags(ServerMessage)
_CLASSES: dict[str, type[msgspec.Struct]] = {
    str(member.__struct_config__.tag): member
    for union in (ClientMessage, ServerMessage)
    for member in typing.get_args(union)
}


def _choices(msg_type: str | None, field: str | None) -> list[str]:
    """The values a message's field of a fixed set takes (``rule``: freestyle, standard,
    renju), for a refusal to name them; none for a field this cannot tell."""
    cls = _CLASSES.get(msg_type or "")
    if cls is None or field is None:
        return []
    for info in msgspec.structs.fields(cls):
        if info.encode_name != field:
            continue
        for kind in (info.type, *typing.get_args(info.type)):  # X, or X | None
            if isinstance(kind, type) and issubclass(kind, enum.Enum):
                return [str(member.value) for member in kind]
            if typing.get_origin(kind) is typing.Literal:
                return [str(value) for value in typing.get_args(kind)]
    return []


def _from_validation(codec: Codec, text: str, data: Any, known: frozenset[str]) -> ProtocolError:
    """Turn msgspec's validation message into a ProtocolError that names the field."""
    text = text.replace("got `None`", "got `null`")  # MessagePack's nil, as protocol.md says
    msg_type, request_id = codec._peek(data)
    what = f"{msg_type} message" if msg_type else "message"
    key_match = _IN_KEY.search(text)
    if key_match is not None:
        field = key_match.group("path").lstrip(".") or None
        where = f"in `{field}`" if field else "at the top level"
        return ProtocolError(
            ErrorCode.BAD_MESSAGE,
            f"{what}: map keys must be strings ({where})",
            field=field,
            re=request_id,
        )
    m = _AT_PATH.match(text)
    detail = m.group("detail") if m else text
    field = (m.group("path").lstrip(".") or None) if m else None
    if detail.startswith("Expected `object`"):
        return ProtocolError(
            ErrorCode.BAD_MESSAGE,
            f"a message must be a {codec.name} {codec.map_word} with a `type` key, "
            f"not {_got(detail)}"
            if field is None
            else f"{what}: field `{field}` must be a map, not {_got(detail)}",
            field=field,
            re=request_id,
        )
    missing = _MISSING.search(detail)
    if missing is not None:
        name = missing.group(1)
        field = f"{field}.{name}" if field else name
        if field == "type":
            return ProtocolError(
                ErrorCode.BAD_MESSAGE, "message has no `type` field", field=field, re=request_id
            )
        return ProtocolError(
            ErrorCode.BAD_MESSAGE,
            f"{what}: missing required field `{field}`",
            field=field,
            re=request_id,
        )
    if field is not None and (field == "type" or field.endswith(".type")):
        value = detail.removeprefix("Invalid value ").strip("'\"")
        if field == "type" and detail.startswith("Invalid value") and value in known:
            # The decoder took the first `type` and met another, naming a known message.
            return ProtocolError(
                ErrorCode.BAD_MESSAGE,
                f"the `type` key is given more than once (`{value}` is one of them)",
                field=field,
                re=request_id,
            )
        if detail.startswith("Invalid value"):
            name = field.removesuffix("type").rstrip(".")
            kind = f"`{name}` type" if name else "message type"
            return UnknownMessageType(
                ErrorCode.BAD_MESSAGE,
                f"unknown {kind} {detail.removeprefix('Invalid value ')}",
                field=field,
                re=request_id,
            )
        return ProtocolError(
            ErrorCode.BAD_MESSAGE,
            f"field `{field}` must be a string, not {_got(detail)}",
            field=field,
            re=request_id,
        )
    code = ErrorCode.BAD_MESSAGE if ", got `" in detail else ErrorCode.BAD_VALUE
    for pattern, meaning in _PATTERNS.items():
        detail = detail.replace(f"matching regex {pattern!r}", meaning)
    detail = detail[:1].lower() + detail[1:]
    if detail.startswith("invalid enum value ") and (choices := _choices(msg_type, field)):
        value = detail.removeprefix("invalid enum value ")
        detail = f"{value} is not one of {', '.join(choices)}"  # (not "invalid enum value")
    if field is None and detail.startswith("field `"):
        # A __post_init__ check: its message starts by naming the field.
        field = detail.split("`", 2)[1]
        return ProtocolError(code, f"{what}: {detail}", field=field, re=request_id)
    if field is None:
        return ProtocolError(code, f"{what}: {detail}", re=request_id)
    return ProtocolError(code, f"{what}: field `{field}`: {detail}", field=field, re=request_id)


def _got(detail: str) -> str:
    m = re.search(r"got `([^`]+)`", detail)
    return m.group(1) if m else "something else"


MSGPACK = Codec(
    name="MessagePack",
    subprotocol="gomoku.msgpack",
    text=False,
    module=msgspec.msgpack,
    map_word="map",
)
"""The default encoding: MessagePack maps in binary frames."""

JSON = Codec(
    name="JSON", subprotocol="gomoku.json", text=True, module=msgspec.json, map_word="object"
)
"""JSON objects in text frames (subprotocol ``gomoku.json``)."""

ENCODINGS: dict[str, Codec] = {c.subprotocol: c for c in (MSGPACK, JSON)}
"""Subprotocol -> encoding, in the server's order of preference."""

_event_decoder = msgspec.msgpack.Decoder(RoomEvent)


def encode(message: msgspec.Struct) -> bytes:
    """Encode any message (or room event) as one MessagePack map."""
    return MSGPACK.encode(message)


def event_frame(room: str, seq: int, event: bytes) -> bytes:
    """MessagePack's :meth:`Codec.event_frame`."""
    return MSGPACK.event_frame(room, seq, event)


def check_frame_size(data: str | bytes | bytearray | memoryview, limit: int) -> None:
    """Raise ``too_large`` for a frame over ``limit`` bytes (a str's UTF-8 bytes, counted
    when its characters could be over it: at most four bytes each)."""
    size = len(data)
    if isinstance(data, str) and 4 * size > limit:
        size = len(data.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise ProtocolError(
            ErrorCode.TOO_LARGE, f"frame of {size} bytes is over the {limit}-byte limit"
        )


def decode_client(data: object) -> ClientMessage:
    """Decode one MessagePack frame from a client (see :meth:`Codec.decode_client`)."""
    return MSGPACK.decode_client(data)


def decode_server(data: object) -> ServerMessage:
    """Decode one MessagePack frame from the server (see :meth:`Codec.decode_server`)."""
    return MSGPACK.decode_server(data)


def decode_event(data: object) -> RoomEvent:
    """Decode a room event stored on its own (e.g. in a room's event log), MessagePack."""
    result: RoomEvent = MSGPACK._decode(_event_decoder, data, MAX_SERVER_FRAME)
    return result


def request_id(data: object) -> int | None:
    """The ``id`` of a MessagePack client frame (see :meth:`Codec.request_id`)."""
    return MSGPACK.request_id(data)


def error_reply(exc: ProtocolError, *, room: str | None = None) -> Error:
    """The ``error`` message that answers a frame that raised ``exc``."""
    return Error(code=exc.code, message=exc.message, re=exc.re, room=room)
