"""The protocol codec: every message round-trips, and no bytes from the network can make
decoding raise anything but ProtocolError. Each test runs with both wire encodings
(MessagePack in binary frames, JSON in text frames) unless it is about one of them.

Messages are generated from the types' own msgspec metadata (lengths, ranges, patterns,
enumerations), so a message type or field added later is covered without editing here.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import (
    MAX_CLIENT_FRAME,
    Chat,
    ClientMessage,
    CreateRoom,
    Error,
    ErrorCode,
    Event,
    Hello,
    Join,
    Move,
    Moved,
    Ping,
    ProtocolError,
    RoomEvent,
    ServerMessage,
    TimeControl,
    UnknownMessageType,
    decode_client,
    decode_event,
    decode_server,
    encode,
    error_reply,
)
from protocol.codec import ENCODINGS, JSON, MSGPACK, NESTING_READ, Codec, event_frame

CODECS = [MSGPACK, JSON]
by_codec = pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.subprotocol)
"""Run a test once per wire encoding."""

CLIENT_TYPES: tuple[type[msgspec.Struct], ...] = typing.get_args(ClientMessage)
SERVER_TYPES: tuple[type[msgspec.Struct], ...] = typing.get_args(ServerMessage)
EVENT_TYPES: tuple[type[msgspec.Struct], ...] = typing.get_args(RoomEvent)

# Printable characters (what names and chat lines allow), plus some outside ASCII.
_PRINTABLE = st.characters(
    codec="utf-8", categories=("L", "M", "N", "P", "S"), include_characters=" "
)


def _strategy(t: mi.Type, *, max_list: int = 4) -> st.SearchStrategy[Any]:
    """Values that satisfy the msgspec type ``t``, constraints included."""
    if isinstance(t, mi.NoneType):
        return st.none()
    if isinstance(t, mi.BoolType):
        return st.booleans()
    if isinstance(t, mi.IntType):
        lo = t.ge if t.ge is not None else (t.gt + 1 if t.gt is not None else -(2**63))
        hi = t.le if t.le is not None else (t.lt - 1 if t.lt is not None else 2**63 - 1)
        return st.integers(min_value=lo, max_value=hi)
    if isinstance(t, mi.StrType):
        if t.pattern is not None:
            return st.from_regex(t.pattern, fullmatch=True)
        return st.text(_PRINTABLE, min_size=t.min_length or 0, max_size=t.max_length or 50)
    if isinstance(t, mi.EnumType):
        return st.sampled_from(list(t.cls))
    if isinstance(t, mi.LiteralType):
        return st.sampled_from(t.values)
    if isinstance(t, mi.ListType):
        size = min(t.max_length if t.max_length is not None else max_list, max_list)
        return st.lists(_strategy(t.item_type), min_size=t.min_length or 0, max_size=size)
    if isinstance(t, mi.UnionType):
        return st.one_of([_strategy(member) for member in t.types])
    if isinstance(t, mi.StructType):
        return _struct_strategy(t)
    raise NotImplementedError(f"no strategy for {t!r}")


def _struct_strategy(info: mi.StructType) -> st.SearchStrategy[Any]:
    fields = {f.name: _strategy(f.type) for f in info.fields}

    def build(kwargs: dict[str, Any]) -> Any:
        try:
            return info.cls(**kwargs)
        except ValueError:  # a cross-field or printable check in __post_init__
            return None

    return st.fixed_dictionaries(fields).map(build).filter(lambda m: m is not None)


def messages(cls: type[msgspec.Struct]) -> st.SearchStrategy[Any]:
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    return _struct_strategy(info)


def frame(codec: Codec, value: object) -> bytes | str:
    """``value`` (a message or any plain data) as a frame of ``codec``'s kind: bytes for
    a binary frame, str for a text frame."""
    data = codec.encode(value)  # type: ignore[arg-type]  # msgspec encodes plain data too
    return data.decode() if codec.text else data


def plain(codec: Codec, data: bytes | str) -> Any:
    """A frame decoded without a schema, as a client in another language sees it."""
    if isinstance(data, str):
        return msgspec.json.decode(data)
    return msgspec.msgpack.decode(data)


def _as_map(message: msgspec.Struct, codec: Codec = MSGPACK) -> dict[str, Any]:
    decoded = plain(codec, frame(codec, message))
    assert isinstance(decoded, dict)
    return decoded


# --- round trips ------------------------------------------------------------------------


# Each drawn message is tried in both encodings: drawing dominates the cost.


@pytest.mark.parametrize("cls", CLIENT_TYPES, ids=lambda c: c.__name__)
@given(data=st.data())
def test_every_client_message_round_trips(cls: type[msgspec.Struct], data: st.DataObject) -> None:
    """Any valid client message decodes back to an equal message, in either encoding,
    and is the same map in both."""
    message = data.draw(messages(cls))
    for codec in CODECS:
        assert codec.decode_client(frame(codec, message)) == message
    assert _as_map(message, JSON) == _as_map(message, MSGPACK)


@pytest.mark.parametrize("cls", CLIENT_TYPES, ids=lambda c: c.__name__)
@given(data=st.data())
def test_a_null_in_an_optional_field_means_its_default(
    cls: type[msgspec.Struct], data: st.DataObject
) -> None:
    """A client that sends null for every optional field it leaves at its default (as
    "nil where there is nothing" suggests) is read as if it had left them out."""
    message = data.draw(messages(cls))
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    defaulted = [
        field
        for field in info.fields
        if not field.required and field.default not in (msgspec.NODEFAULT, None)
    ]
    expected = msgspec.structs.replace(message, **{f.name: f.default for f in defaulted})
    for codec in CODECS:
        raw = plain(codec, frame(codec, message))
        raw |= {field.encode_name: None for field in defaulted}
        assert codec.decode_client(frame(codec, raw)) == expected


@by_codec
def test_a_null_in_a_required_field_or_inside_one_is_still_refused(codec: Codec) -> None:
    """Null stands for a default only where there is one: a null point is refused naming
    the field; a null increment in a clock is its default (0)."""
    with pytest.raises(ProtocolError, match="field `point`") as refused:
        codec.decode_client(frame(codec, {"type": "move", "room": "r1", "point": None}))
    assert refused.value.code == "bad_message"
    clock = {"type": "create_room", "size": None, "time": {"base_ms": 60_000, "inc_ms": None}}
    assert codec.decode_client(frame(codec, clock)) == CreateRoom(
        time=TimeControl(base_ms=60_000, inc_ms=0)
    )


@pytest.mark.parametrize("cls", SERVER_TYPES, ids=lambda c: c.__name__)
@given(data=st.data())
def test_every_server_message_round_trips(cls: type[msgspec.Struct], data: st.DataObject) -> None:
    """Any valid server message decodes back to an equal message, in either encoding,
    and is the same map in both: nothing in the protocol needs a value only one of
    them can hold, so converting loses nothing."""
    message = data.draw(messages(cls))
    for codec in CODECS:
        assert codec.decode_server(frame(codec, message)) == message
    assert _as_map(message, JSON) == _as_map(message, MSGPACK)


@pytest.mark.parametrize("cls", EVENT_TYPES, ids=lambda c: c.__name__)
@given(data=st.data())
def test_every_room_event_round_trips_in_its_envelope(
    cls: type[msgspec.Struct], data: st.DataObject
) -> None:
    """Any room event survives the event envelope and the event log encoding, and the
    hub's fast path (an event stored in MessagePack, put in its envelope without being
    decoded into its type) gives the same frame as encoding the envelope, in either
    encoding."""
    event = data.draw(messages(cls))
    seq = data.draw(st.integers(min_value=1, max_value=2**40))
    envelope = Event(room="r1", seq=seq, event=event)
    assert decode_event(encode(event)) == event
    for codec in CODECS:
        assert codec.decode_server(frame(codec, envelope)) == envelope
        assert codec.event_frame("r1", seq, encode(event)) == codec.encode(envelope)


def test_encodings_are_chosen_by_subprotocol() -> None:
    """The two subprotocols name the two encodings; JSON is the text one."""
    assert ENCODINGS == {"gomoku.msgpack": MSGPACK, "gomoku.json": JSON}
    assert (MSGPACK.text, JSON.text) == (False, True)
    stored = encode(Moved(point="h8", color="black", move_no=1, clocks=None))
    assert event_frame("r1", 2, stored) == MSGPACK.event_frame("r1", 2, stored)


def test_catalogue_tags_are_unique_and_snake_case() -> None:
    """Each direction's message types have distinct, stable snake_case tags."""
    for group in (CLIENT_TYPES, SERVER_TYPES, EVENT_TYPES):
        tags = [mi.type_info(cls).tag for cls in group]  # type: ignore[attr-defined]
        assert len(set(tags)) == len(tags)
        assert all(
            isinstance(t, str) and t.replace("_", "").isalpha() and t.islower() for t in tags
        )


# --- the bytes on the wire --------------------------------------------------------------


@by_codec
def test_messages_are_plain_maps_with_a_type_key(codec: Codec) -> None:
    """A client in another language sees a map with string keys and the documented names."""
    assert _as_map(Move(id=7, room="r1", point="h8", move_no=3), codec) == {
        "type": "move",
        "id": 7,
        "room": "r1",
        "point": "h8",
        "move_no": 3,
    }
    assert _as_map(Join(room="r1", role="spectator"), codec)["as"] == "spectator"
    assert _as_map(CreateRoom(time=TimeControl(base_ms=300_000, inc_ms=3000)), codec)["time"] == {
        "base_ms": 300_000,
        "inc_ms": 3000,
    }
    moved = Event(room="r1", seq=5, event=Moved(point="h8", color="black", move_no=1, clocks=None))
    assert _as_map(moved, codec) == {
        "type": "event",
        "room": "r1",
        "seq": 5,
        "event": {"type": "moved", "point": "h8", "color": "black", "move_no": 1, "clocks": None},
    }


@by_codec
def test_minimal_maps_decode_with_defaults(codec: Codec) -> None:
    """Optional fields may be left out; absent means the documented default."""
    msg = codec.decode_client(frame(codec, {"type": "create_room"}))
    assert msg == CreateRoom()
    assert (msg.rule, msg.size, msg.opening, msg.time, msg.seat) == (
        "freestyle",
        15,
        "free",
        None,
        "any",
    )
    assert codec.decode_client(frame(codec, {"type": "hello", "name": "ann"})) == Hello(name="ann")


@by_codec
def test_unknown_fields_are_ignored_for_forward_compatibility(codec: Codec) -> None:
    """A newer peer's extra fields do not break an older decoder."""
    raw = {"type": "move", "room": "r1", "point": "h8", "premove": True, "x": [1, {"a": 2}]}
    assert codec.decode_client(frame(codec, raw)) == Move(room="r1", point="h8")
    welcome: dict[str, Any] = {"type": "welcome", "player": "p1", "name": "ann", "token": "t"}
    welcome |= {"resumed": False, "limits": {"max_frame": 4096, "future_limit": 3}}
    assert codec.decode_server(frame(codec, welcome)).limits.max_frame == 4096  # type: ignore[union-attr]


_EXT = msgspec.msgpack.Ext
_TIMESTAMP = b"\xd6\xff\x00\x00\x00\x00"  # the timestamp extension (type -1), epoch 0


@pytest.mark.parametrize(
    "frame",
    [
        msgspec.msgpack.encode({"type": "move", "room": "r1", "point": "h8", "x": _EXT(5, b"a")}),
        msgspec.msgpack.encode(
            {"type": "move", "room": "r1", "point": "h8", "x": [1, {"deep": [_EXT(0, b"")]}]}
        ),
        msgspec.msgpack.encode({"type": "move", "room": "r1", "point": "h8", "x": _EXT(-3, b"")}),
        b"\x84\xa4type\xa4move\xa4room\xa2r1\xa5point\xa2h8\xa1x" + _TIMESTAMP,
        msgspec.msgpack.encode({"type": "move", "room": "r1", "point": _EXT(5, b"h8")}),
    ],
    ids=["unknown field", "nested in an unknown field", "negative type", "timestamp", "known"],
)
def test_extension_types_are_refused_anywhere_in_a_frame(frame: bytes) -> None:
    """An extension type is bad_message wherever it is, even in a field the decoder
    would otherwise skip unread (SECURITY.md, protocol.md "Encoding")."""
    exc = _error(frame)
    assert exc.code == ErrorCode.BAD_MESSAGE
    assert "ext" in exc.message


def test_bytes_that_start_extensions_elsewhere_are_no_extension() -> None:
    """The bytes that open an extension also occur in text (U+01C7 is c7 87 in UTF-8),
    binaries and numbers, and such frames still decode."""
    chat = Chat(room="r1", text="\u01c7 \u05d0 \u01fd")
    assert decode_client(encode(chat)) == chat
    raw = {"type": "move", "room": "r1", "point": "h8", "id": 0xD4D5, "x": [b"\xc7\xd8", -40]}
    assert decode_client(msgspec.msgpack.encode(raw)) == Move(room="r1", point="h8", id=0xD4D5)


# --- bad input --------------------------------------------------------------------------


def _error(data: object, codec: Codec = MSGPACK) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        codec.decode_client(data)
    return info.value


def _refusal(decode: Callable[[object], object], data: bytes | str) -> ProtocolError | None:
    """The ProtocolError ``decode`` raises for ``data``, or None if it decodes."""
    try:
        decode(data)
    except ProtocolError as exc:
        return exc
    return None


@given(st.binary(max_size=MAX_CLIENT_FRAME + 16))
def test_arbitrary_bytes_raise_only_protocol_errors(data: bytes) -> None:
    """No byte string makes either decoder raise anything but ProtocolError."""
    for decode in (decode_client, decode_server):
        exc = _refusal(decode, data)
        if exc is not None:
            assert exc.code in {ErrorCode.BAD_MESSAGE, ErrorCode.BAD_VALUE, ErrorCode.TOO_LARGE}
            assert exc.message


_json_ish = st.text(alphabet='{}[]":,0123456789.-+eE truefalsn\\u' + "typeidnam", max_size=200)


@given(st.one_of(st.text(max_size=MAX_CLIENT_FRAME + 16), _json_ish))
def test_arbitrary_text_raises_only_protocol_errors(data: str) -> None:
    """No text frame makes either JSON decoder raise anything but ProtocolError."""
    for decode in (JSON.decode_client, JSON.decode_server):
        exc = _refusal(decode, data)
        if exc is not None:
            assert exc.code in {ErrorCode.BAD_MESSAGE, ErrorCode.BAD_VALUE, ErrorCode.TOO_LARGE}
            assert exc.message


_KNOWN_KEYS = sorted(
    {f.encode_name for cls in CLIENT_TYPES + SERVER_TYPES for f in mi.type_info(cls).fields}  # type: ignore[attr-defined]
)
_TAGS = [mi.type_info(cls).tag for cls in CLIENT_TYPES + SERVER_TYPES + EVENT_TYPES]  # type: ignore[attr-defined]
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=40)
    | st.binary(max_size=20)
    | st.sampled_from(_TAGS)
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(_KNOWN_KEYS) | st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
_maps = st.dictionaries(
    st.sampled_from(_KNOWN_KEYS) | st.just("type") | st.text(max_size=8), _values, max_size=8
)


@by_codec
@given(st.one_of(_maps, st.builds(lambda m, t: {**m, "type": t}, _maps, st.sampled_from(_TAGS))))
def test_arbitrary_maps_raise_only_protocol_errors(codec: Codec, raw: dict[str, Any]) -> None:
    """Maps with real keys and tags but random values either decode or raise ProtocolError.
    (In JSON a byte string becomes a base64 string, as msgspec writes it.)"""
    data = frame(codec, raw)
    for decode in (codec.decode_client, codec.decode_server):
        exc = _refusal(decode, data)
        assert exc is None or exc.message


@pytest.mark.parametrize("cls", CLIENT_TYPES, ids=lambda c: c.__name__)
@given(data=st.data())
def test_one_corrupted_field_gives_a_protocol_error_naming_it(
    cls: type[msgspec.Struct], data: st.DataObject
) -> None:
    """Replacing one field of a valid message with junk decodes or names that field,
    in either encoding (in JSON a byte string is written as a base64 string)."""
    raw = _as_map(data.draw(messages(cls)))
    key = data.draw(st.sampled_from(sorted(k for k in raw if k != "type")), label="key")
    raw[key] = data.draw(_values, label="junk")
    for codec in CODECS:
        exc = _refusal(codec.decode_client, frame(codec, raw))
        if exc is not None:
            assert exc.code in {ErrorCode.BAD_MESSAGE, ErrorCode.BAD_VALUE}
            assert exc.field is None or re.split(r"[.\[]", exc.field)[0] == key
            assert exc.field is not None or cls is Join  # only join has a cross-field check


def _string_fields(cls: type[msgspec.Struct]) -> list[tuple[str, int]]:
    """(wire name, max length) of each length-limited string field."""
    found = []
    for f in mi.type_info(cls).fields:  # type: ignore[attr-defined]
        options = f.type.types if isinstance(f.type, mi.UnionType) else (f.type,)
        for option in options:
            if isinstance(option, mi.StrType) and option.max_length is not None:
                found.append((f.encode_name, option.max_length))
    return found


_OVERSIZE_CASES = [
    (cls, name, limit) for cls in CLIENT_TYPES for name, limit in _string_fields(cls)
]


@pytest.mark.parametrize(
    ("cls", "name", "limit"),
    _OVERSIZE_CASES,
    ids=[f"{c.__name__}.{n}" for c, n, _ in _OVERSIZE_CASES],
)
@given(data=st.data())
def test_oversized_strings_are_rejected_naming_the_field(
    cls: type[msgspec.Struct], name: str, limit: int, data: st.DataObject
) -> None:
    """A string one character over its limit is a bad_value that names the field."""
    raw = _as_map(data.draw(messages(cls)))
    raw[name] = "x" * data.draw(st.integers(min_value=limit + 1, max_value=limit + 200))
    for codec in CODECS:
        exc = _error(frame(codec, raw), codec)
        assert exc.code == ErrorCode.BAD_VALUE
        assert exc.field == name
        assert f"`{name}`" in exc.message
        assert f"<= {limit}" in exc.message


@by_codec
def test_oversized_frame_is_too_large(codec: Codec) -> None:
    """A frame over the client limit is refused before it is parsed."""
    big = frame(codec, {"type": "chat", "room": "r", "text": "x" * MAX_CLIENT_FRAME})
    assert _error(big, codec).code == ErrorCode.TOO_LARGE


def test_text_frame_is_bad_frame() -> None:
    """A WebSocket text frame (a str) is refused as bad_frame with MessagePack."""
    exc = _error('{"type": "hello", "name": "ann"}')
    assert exc.code == ErrorCode.BAD_FRAME
    assert "send binary" in exc.message


def test_binary_frame_is_bad_frame_with_json() -> None:
    """With gomoku.json a binary frame (bytes) is refused as bad_frame, even one that holds
    valid JSON: the frame kind says the encoding, and mixing them is a client's bug."""
    for data in (b'{"type": "hello", "name": "ann"}', encode(Hello(name="ann"))):
        exc = _error(data, JSON)
        assert exc.code == ErrorCode.BAD_FRAME
        assert "send text" in exc.message
    assert JSON.request_id(b'{"type": "hello", "id": 3}') is None
    assert JSON.request_id('{"type": "hello", "id": 3}') == 3


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (b"", "MessagePack"),
        (b"\xc1", "MessagePack"),
        (msgspec.msgpack.encode([1, 2]), "map"),
        (msgspec.msgpack.encode("hello"), "map"),
        (msgspec.msgpack.encode({"name": "ann"}), "`type`"),
        (msgspec.msgpack.encode({"type": 3}), "`type`"),
        (msgspec.msgpack.encode({1: "hello"}), "keys must be strings"),
        (b"\x82\xa4type\xa5hello\xa4name\xa2\xff\xfe", "not valid UTF-8 (byte 0xff)"),
        (b"\x91" * 4000 + b"\x01", "map"),
        (b"\x82\xa4type\xa4chat\xa4type\xabget_profile", "`type` key is given more than once"),
    ],
    ids=[
        "empty",
        "reserved-byte",
        "array",
        "string",
        "no-type",
        "int-type",
        "int-key",
        "bad-utf8",
        "nested-arrays",
        "two-types",
    ],
)
def test_malformed_frames_are_bad_message(data: bytes, needle: str) -> None:
    """Frames that are not a message at all are bad_message with a clear reason."""
    exc = _error(data)
    assert exc.code == ErrorCode.BAD_MESSAGE
    assert needle in exc.message


@by_codec
def test_nesting_as_deep_as_promised_is_read_in_an_unknown_field(codec: Codec) -> None:
    """protocol.md promises NESTING_READ levels of arrays and maps in a field the server
    does not know (skipped unread); a nil where a string goes is named null, as in JSON."""
    deep: object = None
    for _ in range(NESTING_READ - 1):
        deep = [deep]
    assert codec.decode_client(frame(codec, {"type": "ping", "id": 3, "z": deep})) == Ping(id=3)
    exc = _error(frame(codec, {"type": "hello", "name": None, "id": 4}), codec)
    assert "got `null`" in exc.message, exc.message


@pytest.mark.parametrize(
    ("tail", "byte"),
    [
        (b"\x81\xa4text\xd9\x03ab\xc3", "0xc3"),  # str8, a two-byte letter cut short
        (b"\x82\xa1y\xc4\x03\xff\xfe\xa4\xa4text\xa2\xe9!", "0xe9"),  # after bin
        (b"\x82\xa1x\xcb\xa2\xff\xff" + bytes(5) + b"\xa4text\xa1\xe9", "0xe9"),  # float
    ],
    ids=["str8", "after-bin", "after-float"],
)
def test_a_bad_string_names_its_first_bad_byte(tail: bytes, byte: str) -> None:
    """Invalid UTF-8 in a MessagePack frame's text is named by its first bad byte, past
    binary and number items whose bytes look like string heads. ``tail``'s first byte
    counts its fields; they follow a chat's type and room."""
    head = msgspec.msgpack.encode({"type": "chat", "room": "r-0123456789"})
    exc = _error(bytes([head[0] + tail[0] - 0x80]) + head[1:] + tail[1:])
    assert exc.code == ErrorCode.BAD_MESSAGE
    assert f"not valid UTF-8 (byte {byte})" in exc.message


def test_a_key_that_is_no_string_is_answered_with_the_frames_id() -> None:
    """A MessagePack map with an integer key among its own: the refusal names the key's
    place and echoes the frame's ``id``, which is there to read."""
    exc = _error(msgspec.msgpack.encode({"type": "ping", "id": 7, 1: "x"}))
    assert exc.code == ErrorCode.BAD_MESSAGE
    assert "map keys must be strings" in exc.message
    assert exc.re == 7


def test_a_bad_string_is_answered_with_the_frames_id_and_room() -> None:
    """Invalid UTF-8 in a chat line: the error still names the frame's id and room,
    which are readable, so the sender knows which request failed."""
    head = msgspec.msgpack.encode({"type": "chat", "id": 7, "room": "r-0123456789"})
    frame = bytes([head[0] + 1]) + head[1:] + b"\xa4text\xa2\xff\xfe"  # one more key
    exc = _error(frame)
    assert exc.code == ErrorCode.BAD_MESSAGE
    assert "not valid UTF-8" in exc.message
    assert (exc.re, exc.room) == (7, "r-0123456789")


@pytest.mark.parametrize(
    ("codec", "data"),
    [
        (MSGPACK, b"\x82\xa4type\xa5hello\xa1z" + b"\x91" * 4000 + b"\xc0"),
        (JSON, '{"type": "hello", "z": ' + "[" * 2000 + "]" * 2000 + "}"),
    ],
    ids=["msgpack", "json"],
)
def test_a_nesting_bomb_in_an_unknown_field_is_a_bad_message(codec: Codec, data: object) -> None:
    """Arrays nested thousands deep in a field the message does not have: bad_message,
    never a crash. Python 3.11 stops reading them ("nested too deeply"); 3.13 reads them
    through, and the hello is then refused for what it lacks."""
    exc = _error(data, codec)
    assert exc.code == ErrorCode.BAD_MESSAGE
    assert "arrays or maps are nested too deeply" in exc.message or (
        exc.message == "hello message: missing required field `name`"
    ), exc.message


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ("", "JSON"),
        ("{", "JSON"),
        ('{"type": "hello", "name": "ann"} x', "JSON"),
        ("[1, 2]", "JSON object"),
        ('"hello"', "JSON object"),
        ('{"name": "ann"}', "`type`"),
        ('{"type": 3}', "`type`"),
        ('{"type": "hello", "name": "\\ud800x"}', "half of a UTF-16 surrogate pair"),
        ('{"type": "hello", "name": "\\udbff"}', "half of a UTF-16 surrogate pair"),
        ("[" * 2000 + "1" + "]" * 2000, "JSON object"),
        ('{"type": "hello", "name": "ann", "id": 1.5}', "`id`"),
        ('{"type": "chat", "type": "get_profile"}', "`type` key is given more than once"),
    ],
    ids=[
        "empty",
        "unclosed",
        "trailing-junk",
        "array",
        "string",
        "no-type",
        "int-type",
        "lone-surrogate",
        "lone-surrogate-at-end",
        "nested-arrays",
        "float-id",
        "two-types",
    ],
)
def test_malformed_json_frames_are_bad_message(data: str, needle: str) -> None:
    """Text frames that are not a JSON message are bad_message with a clear reason."""
    exc = _error(data, JSON)
    assert exc.code == ErrorCode.BAD_MESSAGE
    assert needle in exc.message


@by_codec
def test_unknown_type_is_its_own_error_and_echoes_the_id(codec: Codec) -> None:
    """An unknown type is reported as such, with the request id for the reply's re."""
    exc = _error(frame(codec, {"type": "teleport", "id": 12}), codec)
    assert isinstance(exc, UnknownMessageType)
    assert exc.code == ErrorCode.BAD_MESSAGE
    assert "teleport" in exc.message
    assert exc.re == 12
    reply = error_reply(exc, room="r1")
    assert reply == Error(code="bad_message", message=exc.message, re=12, room="r1")


@by_codec
def test_unknown_event_type_from_a_newer_server_is_recognisable(codec: Codec) -> None:
    """A client can tell a future event type (to skip) from a broken frame."""
    raw = {"type": "event", "room": "r1", "seq": 3, "event": {"type": "hologram"}}
    with pytest.raises(UnknownMessageType) as info:
        codec.decode_server(frame(codec, raw))
    assert info.value.field == "event.type"


@pytest.mark.parametrize(
    ("raw", "code", "field"),
    [
        ({"type": "hello", "name": 5}, ErrorCode.BAD_MESSAGE, "name"),
        ({"type": "hello"}, ErrorCode.BAD_MESSAGE, "name"),
        ({"type": "hello", "name": "ann", "id": True}, ErrorCode.BAD_MESSAGE, "id"),
        ({"type": "move", "room": "r1"}, ErrorCode.BAD_MESSAGE, "point"),
        ({"type": "create_room", "time": {"inc_ms": 0}}, ErrorCode.BAD_MESSAGE, "time.base_ms"),
        ({"type": "create_room", "time": {"base_ms": "5m"}}, ErrorCode.BAD_MESSAGE, "time.base_ms"),
        ({"type": "create_room", "size": 40}, ErrorCode.BAD_VALUE, "size"),
        ({"type": "create_room", "size": 4}, ErrorCode.BAD_VALUE, "size"),
        ({"type": "create_room", "rule": "gomoku"}, ErrorCode.BAD_VALUE, "rule"),
        ({"type": "create_room", "time": {"base_ms": 0}}, ErrorCode.BAD_VALUE, "time.base_ms"),
        ({"type": "move", "room": "r1", "point": "H8"}, ErrorCode.BAD_VALUE, "point"),
        ({"type": "move", "room": "r1", "point": "7,7"}, ErrorCode.BAD_VALUE, "point"),
        ({"type": "move", "room": "r1", "point": "h8\n"}, ErrorCode.BAD_VALUE, "point"),
        ({"type": "seat_ai", "room": "r1", "level": "master\n"}, ErrorCode.BAD_VALUE, "level"),
        ({"type": "bot_ready", "levels": ["master\n"]}, ErrorCode.BAD_VALUE, "levels[0]"),
        ({"type": "hello", "name": "ann", "id": -1}, ErrorCode.BAD_VALUE, "id"),
        ({"type": "list_games", "before_ms": 2**53}, ErrorCode.BAD_VALUE, "before_ms"),
        ({"type": "resume", "room": "r1", "after": 2**53}, ErrorCode.BAD_VALUE, "after"),
        ({"type": "hello", "name": " ann"}, ErrorCode.BAD_VALUE, "name"),
        ({"type": "hello", "name": "a\x00b"}, ErrorCode.BAD_VALUE, "name"),
        ({"type": "chat", "room": "r1", "text": "   "}, ErrorCode.BAD_VALUE, "text"),
        ({"type": "chat", "room": "r1", "text": "a\nb"}, ErrorCode.BAD_VALUE, "text"),
        ({"type": "join", "as": "referee", "room": "r1"}, ErrorCode.BAD_VALUE, "as"),
        ({"type": "answer", "room": "r1", "kind": "draw"}, ErrorCode.BAD_MESSAGE, "accept"),
    ],
)
@by_codec
def test_bad_fields_name_the_field(
    codec: Codec, raw: dict[str, Any], code: ErrorCode, field: str
) -> None:
    """Wrong types are bad_message, right types with bad values bad_value; both name the field."""
    exc = _error(frame(codec, {**raw, "id": raw.get("id", 9)}), codec)
    assert exc.code == code
    assert exc.field == field
    assert f"`{field}`" in exc.message
    assert exc.message.startswith(f"{raw['type']} message")
    if raw.get("id", 9) == 9:
        assert exc.re == 9


@by_codec
def test_a_value_outside_a_fixed_set_is_refused_naming_the_set(codec: Codec) -> None:
    """A rule, opening, role, offer or format that is none of its kind's values says
    which ones there are (it said "invalid enum value 'gomoku'")."""
    said = {
        ("create_room", "rule", "gomoku"): "'gomoku' is not one of freestyle, standard, renju",
        ("join", "as", "referee"): "'referee' is not one of player, spectator",
        ("create_room", "opening", "swap"): "'swap' is not one of free, swap2",
    }
    for (msg_type, field, value), words in said.items():
        raw = {"type": msg_type, field: value, "room": "r1"}
        exc = _error(frame(codec, raw), codec)
        assert exc.code == ErrorCode.BAD_VALUE
        assert exc.message == f"{msg_type} message: field `{field}`: {words}"


@by_codec
def test_join_needs_exactly_one_of_room_and_code(codec: Codec) -> None:
    """A join names a room or an invite code, not both and not neither."""
    for raw in ({"type": "join"}, {"type": "join", "room": "r1", "code": "K7Q2"}):
        exc = _error(frame(codec, raw), codec)
        assert exc.code == ErrorCode.BAD_VALUE
        assert "`room`" in exc.message
        assert "`code`" in exc.message
    assert codec.decode_client(frame(codec, {"type": "join", "code": "K7Q2"})) == Join(code="K7Q2")


@by_codec
def test_chat_within_the_limit_is_accepted(codec: Codec) -> None:
    """A 300-character line with non-ASCII text is a valid chat."""
    text = "ü" * 299 + "!"
    chat = Chat(room="r1", text=text)
    assert codec.decode_client(frame(codec, chat)) == chat
