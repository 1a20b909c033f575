"""The protocol codec: every message round-trips, and no bytes from the network can make
decoding raise anything but ProtocolError.

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

from engine.errors import NotationError
from engine.types import Color, Point, Reason, Result
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
    ProtocolError,
    RoomEvent,
    ServerMessage,
    TimeControl,
    UnknownMessageType,
    color_from_wire,
    color_to_wire,
    decode_client,
    decode_event,
    decode_server,
    encode,
    error_reply,
    point_from_wire,
    point_to_wire,
    result_to_wire,
)
from protocol.codec import event_frame

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


def _as_map(message: msgspec.Struct) -> dict[str, Any]:
    decoded = msgspec.msgpack.decode(encode(message))
    assert isinstance(decoded, dict)
    return decoded


# --- round trips ------------------------------------------------------------------------


@pytest.mark.parametrize("cls", CLIENT_TYPES, ids=lambda c: c.__name__)
@given(data=st.data())
def test_every_client_message_round_trips(cls: type[msgspec.Struct], data: st.DataObject) -> None:
    """Any valid client message decodes back to an equal message."""
    message = data.draw(messages(cls))
    assert decode_client(encode(message)) == message


@pytest.mark.parametrize("cls", SERVER_TYPES, ids=lambda c: c.__name__)
@given(data=st.data())
def test_every_server_message_round_trips(cls: type[msgspec.Struct], data: st.DataObject) -> None:
    """Any valid server message decodes back to an equal message."""
    message = data.draw(messages(cls))
    assert decode_server(encode(message)) == message


@pytest.mark.parametrize("cls", EVENT_TYPES, ids=lambda c: c.__name__)
@given(data=st.data())
def test_every_room_event_round_trips_in_its_envelope(
    cls: type[msgspec.Struct], data: st.DataObject
) -> None:
    """Any room event survives the event envelope and the event log encoding."""
    event = data.draw(messages(cls))
    seq = data.draw(st.integers(min_value=1, max_value=2**40))
    envelope = Event(room="r1", seq=seq, event=event)
    assert decode_server(encode(envelope)) == envelope
    assert decode_event(encode(event)) == event
    assert event_frame("r1", seq, encode(event)) == encode(envelope)  # the hub's fast path


def test_catalogue_tags_are_unique_and_snake_case() -> None:
    """Each direction's message types have distinct, stable snake_case tags."""
    for group in (CLIENT_TYPES, SERVER_TYPES, EVENT_TYPES):
        tags = [mi.type_info(cls).tag for cls in group]  # type: ignore[attr-defined]
        assert len(set(tags)) == len(tags)
        assert all(
            isinstance(t, str) and t.replace("_", "").isalpha() and t.islower() for t in tags
        )


# --- the bytes on the wire --------------------------------------------------------------


def test_messages_are_plain_maps_with_a_type_key() -> None:
    """A client in another language sees a map with string keys and the documented names."""
    assert _as_map(Move(id=7, room="r1", point="h8")) == {
        "type": "move",
        "id": 7,
        "room": "r1",
        "point": "h8",
    }
    assert _as_map(Join(room="r1", role="spectator"))["as"] == "spectator"
    assert _as_map(CreateRoom(time=TimeControl(base_ms=300_000, inc_ms=3000)))["time"] == {
        "base_ms": 300_000,
        "inc_ms": 3000,
    }
    moved = Event(room="r1", seq=5, event=Moved(point="h8", color="black", move_no=1, clocks=None))
    assert _as_map(moved) == {
        "type": "event",
        "room": "r1",
        "seq": 5,
        "event": {"type": "moved", "point": "h8", "color": "black", "move_no": 1, "clocks": None},
    }


def test_minimal_maps_decode_with_defaults() -> None:
    """Optional fields may be left out; absent means the documented default."""
    msg = decode_client(msgspec.msgpack.encode({"type": "create_room"}))
    assert msg == CreateRoom()
    assert (msg.rule, msg.size, msg.opening, msg.time, msg.seat) == (
        "freestyle",
        15,
        "free",
        None,
        "any",
    )
    assert decode_client(msgspec.msgpack.encode({"type": "hello", "name": "ann"})) == Hello(
        name="ann"
    )


def test_unknown_fields_are_ignored_for_forward_compatibility() -> None:
    """A newer peer's extra fields do not break an older decoder."""
    raw = {"type": "move", "room": "r1", "point": "h8", "premove": True, "x": [1, {"a": 2}]}
    assert decode_client(msgspec.msgpack.encode(raw)) == Move(room="r1", point="h8")
    welcome = {"type": "welcome", "player": "p1", "name": "ann", "token": "t", "resumed": False}
    welcome["limits"] = {"max_frame": 4096, "future_limit": 3}
    assert decode_server(msgspec.msgpack.encode(welcome)).limits.max_frame == 4096  # type: ignore[union-attr]


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


def _error(data: object) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        decode_client(data)
    return info.value


def _refusal(decode: Callable[[object], object], data: bytes) -> ProtocolError | None:
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


@given(st.one_of(_maps, st.builds(lambda m, t: {**m, "type": t}, _maps, st.sampled_from(_TAGS))))
def test_arbitrary_msgpack_maps_raise_only_protocol_errors(raw: dict[str, Any]) -> None:
    """Maps with real keys and tags but random values either decode or raise ProtocolError."""
    data = msgspec.msgpack.encode(raw)
    for decode in (decode_client, decode_server):
        exc = _refusal(decode, data)
        assert exc is None or exc.message


@pytest.mark.parametrize("cls", CLIENT_TYPES, ids=lambda c: c.__name__)
@given(data=st.data())
def test_one_corrupted_field_gives_a_protocol_error_naming_it(
    cls: type[msgspec.Struct], data: st.DataObject
) -> None:
    """Replacing one field of a valid message with junk decodes or names that field."""
    raw = _as_map(data.draw(messages(cls)))
    key = data.draw(st.sampled_from(sorted(k for k in raw if k != "type")), label="key")
    raw[key] = data.draw(_values, label="junk")
    exc = _refusal(decode_client, msgspec.msgpack.encode(raw))
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
    exc = _error(msgspec.msgpack.encode(raw))
    assert exc.code == ErrorCode.BAD_VALUE
    assert exc.field == name
    assert f"`{name}`" in exc.message
    assert f"<= {limit}" in exc.message


def test_oversized_frame_is_too_large() -> None:
    """A frame over the client limit is refused before it is parsed."""
    big = msgspec.msgpack.encode({"type": "chat", "room": "r", "text": "x" * MAX_CLIENT_FRAME})
    assert _error(big).code == ErrorCode.TOO_LARGE


def test_text_frame_is_bad_frame() -> None:
    """A WebSocket text frame (a str) is refused as bad_frame."""
    exc = _error('{"type": "hello", "name": "ann"}')
    assert exc.code == ErrorCode.BAD_FRAME
    assert "binary" in exc.message


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
        (b"\x82\xa4type\xa5hello\xa4name\xa2\xff\xfe", "MessagePack"),
        (b"\x91" * 4000 + b"\x01", "map"),
        (b"\x82\xa4type\xa5hello\xa1z" + b"\x91" * 4000 + b"\xc0", "MessagePack"),
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
        "nesting-bomb-in-unknown-field",
    ],
)
def test_malformed_frames_are_bad_message(data: bytes, needle: str) -> None:
    """Frames that are not a message at all are bad_message with a clear reason."""
    exc = _error(data)
    assert exc.code == ErrorCode.BAD_MESSAGE
    assert needle in exc.message


def test_unknown_type_is_its_own_error_and_echoes_the_id() -> None:
    """An unknown type is reported as such, with the request id for the reply's re."""
    exc = _error(msgspec.msgpack.encode({"type": "teleport", "id": 12}))
    assert isinstance(exc, UnknownMessageType)
    assert exc.code == ErrorCode.BAD_MESSAGE
    assert "teleport" in exc.message
    assert exc.re == 12
    reply = error_reply(exc, room="r1")
    assert reply == Error(code="bad_message", message=exc.message, re=12, room="r1")


def test_unknown_event_type_from_a_newer_server_is_recognisable() -> None:
    """A client can tell a future event type (to skip) from a broken frame."""
    raw = {"type": "event", "room": "r1", "seq": 3, "event": {"type": "hologram"}}
    with pytest.raises(UnknownMessageType) as info:
        decode_server(msgspec.msgpack.encode(raw))
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
        ({"type": "hello", "name": "ann", "id": -1}, ErrorCode.BAD_VALUE, "id"),
        ({"type": "hello", "name": " ann"}, ErrorCode.BAD_VALUE, "name"),
        ({"type": "hello", "name": "a\x00b"}, ErrorCode.BAD_VALUE, "name"),
        ({"type": "chat", "room": "r1", "text": "   "}, ErrorCode.BAD_VALUE, "text"),
        ({"type": "chat", "room": "r1", "text": "a\nb"}, ErrorCode.BAD_VALUE, "text"),
        ({"type": "join", "as": "referee", "room": "r1"}, ErrorCode.BAD_VALUE, "as"),
        ({"type": "answer", "room": "r1", "kind": "draw"}, ErrorCode.BAD_MESSAGE, "accept"),
    ],
)
def test_bad_fields_name_the_field(raw: dict[str, Any], code: ErrorCode, field: str) -> None:
    """Wrong types are bad_message, right types with bad values bad_value; both name the field."""
    exc = _error(msgspec.msgpack.encode({**raw, "id": raw.get("id", 9)}))
    assert exc.code == code
    assert exc.field == field
    assert f"`{field}`" in exc.message
    assert exc.message.startswith(f"{raw['type']} message")
    if raw.get("id", 9) == 9:
        assert exc.re == 9


def test_join_needs_exactly_one_of_room_and_code() -> None:
    """A join names a room or an invite code, not both and not neither."""
    for raw in ({"type": "join"}, {"type": "join", "room": "r1", "code": "K7Q2"}):
        exc = _error(msgspec.msgpack.encode(raw))
        assert exc.code == ErrorCode.BAD_VALUE
        assert "`room`" in exc.message
        assert "`code`" in exc.message
    assert decode_client(msgspec.msgpack.encode({"type": "join", "code": "K7Q2"})) == Join(
        code="K7Q2"
    )


def test_chat_within_the_limit_is_accepted() -> None:
    """A 300-character line with non-ASCII text is a valid chat."""
    text = "ü" * 299 + "!"
    assert decode_client(encode(Chat(room="r1", text=text))) == Chat(room="r1", text=text)


# --- conversions and codes --------------------------------------------------------------


@given(st.integers(min_value=5, max_value=26).flatmap(lambda n: st.tuples(st.just(n), st.data())))
def test_points_convert_both_ways(args: tuple[int, st.DataObject]) -> None:
    """h8 strings and engine Points convert losslessly on any board size."""
    size, data = args
    point = Point(data.draw(st.integers(0, size - 1)), data.draw(st.integers(0, size - 1)))
    text = point_to_wire(point, size)
    assert point_from_wire(text, size) == point
    assert decode_client(encode(Move(room="r", point=text))).point == text  # type: ignore[union-attr]


def test_point_mapping_matches_gomocup() -> None:
    """h8 is the centre (7,7); a1 is the bottom-left (0,14) on 15x15."""
    assert point_from_wire("h8", 15) == Point(7, 7)
    assert point_from_wire("a1", 15) == Point(0, 14)
    assert point_from_wire("o15", 15) == Point(14, 0)
    assert point_to_wire(Point(0, 0), 15) == "a15"
    with pytest.raises(NotationError):
        point_from_wire("p1", 15)  # valid on the wire, off a 15x15 board


def test_colours_and_results_convert() -> None:
    """Engine colours and results map to their wire names."""
    assert color_to_wire(Color.BLACK) == "black"
    assert color_from_wire("white") is Color.WHITE
    line = tuple(Point(x, 7) for x in range(3, 8))
    wire = result_to_wire(Result(Color.BLACK, Reason.FIVE, line), 15)
    assert (wire.winner, wire.reason, wire.line) == (
        "black",
        "five",
        ["d8", "e8", "f8", "g8", "h8"],
    )
    draw = result_to_wire(Result(None, Reason.BOARD_FULL), 15)
    assert (draw.winner, draw.line) == (None, None)


def test_error_codes_include_every_code_of_the_sketch() -> None:
    """The stable codes promised to clients all exist, spelled as documented."""
    sketch = {
        *("bad_frame", "bad_message", "too_large", "not_hello", "bad_token", "bad_bot_key"),
        *("rate_limited", "chat_rate_limited", "no_such_room", "room_full", "not_in_room"),
        *("not_your_seat", "not_your_turn", "occupied", "off_board", "forbidden", "game_over"),
        *("wrong_phase", "no_offer", "offer_pending", "throttled", "not_claimable"),
        *("already_queued", "not_queued", "bad_value", "internal"),
    }
    values = {code.value for code in ErrorCode}
    assert sketch <= values
