"""protocol.md and the code agree: the transcript replays against a real server, and the
reference tables list exactly the fields, codes and defaults that protocol/ defines.

The transcript is parsed out of protocol.md itself (its ```transcript block), so the
document cannot drift from what the server does without this test failing.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest
from server_fixtures import make_config
from transcripts import (
    DOC,
    OPEN,
    Mismatch,
    TranscriptError,
    _is_var,
    match,
    parse_transcript,
    replay,
)
from websockets.asyncio.client import connect as ws_connect

from protocol import (
    ClientMessage,
    CloseCode,
    ErrorCode,
    Limits,
    RoomEvent,
    RoomSummary,
    RoomView,
    ServerMessage,
    decode_client,
    decode_server,
)
from protocol import values as v
from protocol.codec import JSON, MSGPACK, Codec
from protocol.events import RatingChange
from server.app import GomokuServer
from server.game import GameRules

CLIENT_TYPES: tuple[type[msgspec.Struct], ...] = typing.get_args(ClientMessage)
SERVER_TYPES: tuple[type[msgspec.Struct], ...] = typing.get_args(ServerMessage)
EVENT_TYPES: tuple[type[msgspec.Struct], ...] = typing.get_args(RoomEvent)


# --- the live test -----------------------------------------------------------------------


@pytest.mark.parametrize("codec", [MSGPACK, JSON], ids=lambda c: c.subprotocol)
async def test_transcript_replays_against_a_live_server(
    make_server: Callable[..., Awaitable[GomokuServer]], codec: Codec
) -> None:
    """Every frame of protocol.md's transcripts is what a real server sends, in order,
    whichever encoding the connections speak (those the transcript opens with a
    subprotocol speak that one, so both encodings meet in one room)."""
    steps = parse_transcript(DOC.read_text())
    # A fresh server (the transcript starts with an empty lobby) that accepts the AI
    # worker's bot key shown in the transcript, and waits as long as gomoku-server does
    # before it says a player went offline.
    game = dataclasses.replace(make_config().game, offline_after_ms=GameRules().offline_after_ms)
    server = await make_server(bot_keys=frozenset({"s3cret-bot-key"}), game=game)
    bound = await replay(steps, server.port, codec)
    assert {"$ann", "$bob", "$room", "$room2", "$room3", "$code", "$room4", "$ai"} <= set(bound)
    assert {"$gil", "$room5", "$room6"} <= set(bound)


async def test_a_client_offering_no_known_subprotocol_gets_messagepack(
    server: GomokuServer,
) -> None:
    """A client that offers only subprotocols the server does not know is served anyway,
    with no subprotocol in the answer: MessagePack, the default."""
    ws = await ws_connect(
        f"ws://127.0.0.1:{server.port}/",
        compression=None,
        subprotocols=[typing.cast(Any, "chat.v2"), typing.cast(Any, "gomoku.yaml")],
    )
    assert ws.subprotocol is None
    await ws.send(msgspec.msgpack.encode({"type": "hello", "id": 1, "name": "kim"}))
    reply = await ws.recv()
    assert isinstance(reply, bytes)
    assert msgspec.msgpack.decode(reply)["type"] == "welcome"
    await ws.close()


# --- the document against the types ------------------------------------------------------


def _placeholders(body: Any) -> Any:
    """Variables replaced by a plausible id, so a documented map can be decoded."""
    if _is_var(body):
        return "r-0a1b2c3d4e"
    if isinstance(body, dict):
        return {k: _placeholders(x) for k, x in body.items() if k != OPEN}
    if isinstance(body, list):
        return [_placeholders(x) for x in body]
    return body


def _has_open(body: Any) -> bool:
    if isinstance(body, dict):
        return OPEN in body or any(_has_open(x) for x in body.values())
    if isinstance(body, list):
        return any(_has_open(x) for x in body)
    return False


def test_transcript_parses_and_covers_a_whole_session() -> None:
    """The transcript exists and shows hello, lobby, quick match, moves, the end and a rematch."""
    steps = [s for s in parse_transcript(DOC.read_text()) if s.action in ("send", "recv")]
    types = {s.body["type"] for s in steps} | {
        s.body["event"]["type"] for s in steps if s.body["type"] == "event"
    }
    assert {"hello", "welcome", "lobby_watch", "lobby", "queue", "queued", "move"} <= types
    assert {"moved", "game_over", "offer", "answer", "rematch", "snapshot", "error"} <= types
    assert {"forbidden", "presence", "resume", "join", "chat"} <= types | {
        s.body.get("code") for s in steps
    }
    assert {s.conn for s in steps} >= {"ann", "bob"}


def test_transcript_parser_rejects_malformed_lines() -> None:
    """A typo in the document's transcript fails loudly instead of being skipped."""
    with pytest.raises(TranscriptError, match=r"protocol\.md:2"):
        parse_transcript('```transcript\nann => {"type": "hello"}\n```\n')
    with pytest.raises(TranscriptError):
        parse_transcript('```transcript\nann -> {"type": "hello",}\n```\n')
    steps = parse_transcript('```transcript\nann <- {"type": "x", "a": {...}, ...}\n```\n')
    assert steps[0].body == {"type": "x", "a": {OPEN: True}, OPEN: True}


def test_matching_binds_and_checks_variables() -> None:
    """A "$name" binds on first sight and must repeat; `...` allows unlisted fields."""
    bound: dict[str, Any] = {}
    match(
        {"type": "welcome", "player": "$ann", OPEN: True},
        {"type": "welcome", "player": "p1", "x": 1},
        bound,
    )
    assert bound == {"$ann": "p1"}
    with pytest.raises(Mismatch):
        match({"player": "$ann"}, {"player": "p2"}, bound)
    with pytest.raises(Mismatch, match="not in the document"):
        match({"type": "left"}, {"type": "left", "room": "r"}, bound)
    match({"clocks": {"black_ms": 300000}}, {"clocks": {"black_ms": 299_990}}, bound)
    with pytest.raises(Mismatch):
        match({"clocks": {"black_ms": 300000}}, {"clocks": {"black_ms": 303_000}}, bound)


def test_transcript_client_frames_are_valid_messages() -> None:
    """Every map the transcript sends decodes as a client message."""
    for step in parse_transcript(DOC.read_text()):
        if step.sends:
            assert not _has_open(step.body), step
            decode_client(msgspec.msgpack.encode(_placeholders(step.body)))


def _known_fields(body: dict[str, Any], info: mi.Type, where: str) -> None:
    """Every field the document shows exists in the type the code decodes it into."""
    structs: list[mi.StructType] = []
    options = info.types if isinstance(info, mi.UnionType) else (info,)
    for option in options:
        if isinstance(option, mi.StructType):
            structs.append(option)
    if "type" in body:
        structs = [s for s in structs if s.tag == body["type"]]
    assert len(structs) == 1, f"{where}: no single type for {body}"
    fields = {f.encode_name: f.type for f in structs[0].fields}
    for key, value in body.items():
        if key in (OPEN, structs[0].tag_field):
            continue
        assert key in fields, f"{where}: {structs[0].cls.__name__} has no field {key!r}"
        if isinstance(value, dict):
            _known_fields(value, fields[key], f"{where}.{key}")


def test_transcript_server_frames_fit_the_types() -> None:
    """Every map the transcript receives uses only real fields; complete ones decode."""
    server_union = mi.type_info(ServerMessage)
    for step in parse_transcript(DOC.read_text()):
        if step.action != "recv":
            continue
        _known_fields(step.body, server_union, str(step))
        if not _has_open(step.body):
            decode_server(msgspec.msgpack.encode(_placeholders(step.body)))


def _sections(markdown: str) -> dict[str, str]:
    """Level-3 sections by heading text (backticks removed)."""
    parts = re.split(r"^### (.+)$", markdown, flags=re.M)
    return {parts[i].strip().strip("`"): parts[i + 1] for i in range(1, len(parts), 2)}


def _table_names(section: str) -> list[str]:
    """The backticked names in the first column of a section's tables."""
    names = []
    for line in section.split("\n## ")[0].splitlines():
        m = re.match(r"^\| `([^`]+)` \|", line)
        if m:
            names.append(m.group(1))
    return names


def _wire_fields(cls: type[msgspec.Struct]) -> list[str]:
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    return [f.encode_name for f in info.fields]


@pytest.mark.parametrize("cls", CLIENT_TYPES + SERVER_TYPES, ids=lambda c: c.__name__)
def test_each_message_has_a_reference_table_with_its_fields(cls: type[msgspec.Struct]) -> None:
    """protocol.md documents every message type with exactly its fields."""
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    sections = _sections(DOC.read_text())
    assert info.tag in sections, f"protocol.md has no section for {info.tag!r}"
    expected = set(_wire_fields(cls)) - ({"id"} if cls in CLIENT_TYPES else set())
    assert set(_table_names(sections[str(info.tag)])) == expected


@pytest.mark.parametrize(
    "cls",
    [
        v.TimeControl,
        v.Clocks,
        v.PlayerRef,
        v.Seats,
        v.RoomSummary,
        v.Swap2State,
        v.Pending,
        v.GameResult,
        v.Limits,
        v.Standing,
        v.LeaderboardEntry,
        v.GamePlayer,
        v.GameSummary,
        RatingChange,
    ],
    ids=lambda c: c.__name__,
)
def test_each_structure_has_a_reference_table(cls: type[msgspec.Struct]) -> None:
    """Every shared structure is documented with exactly its fields."""
    section = _sections(DOC.read_text())[cls.__name__]
    assert set(_table_names(section)) == set(_wire_fields(cls))


def test_room_view_table_lists_what_it_adds_to_room_summary() -> None:
    """RoomView's table lists the fields beyond RoomSummary's."""
    section = _sections(DOC.read_text())["RoomView"]
    assert "Everything in RoomSummary" in section
    extra = set(_wire_fields(RoomView)) - set(_wire_fields(RoomSummary))
    assert set(_table_names(section)) == extra


def test_room_events_table_lists_every_event_with_its_fields() -> None:
    """The room events table has one row per event type, naming exactly its fields."""
    text = DOC.read_text().split("## Room events", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^\| `([a-z_]+)` \| (.*?) \| [^|]*\|$", line)
        if m and m.group(1) != "type":  # not the header row
            rows[m.group(1)] = set(re.findall(r"`([a-z_]+)`:", m.group(2)))
    expected = {}
    for cls in EVENT_TYPES:
        info = mi.type_info(cls)
        assert isinstance(info, mi.StructType)
        expected[info.tag] = set(_wire_fields(cls))
    assert rows == expected


def _first_column(heading: str, pattern: str) -> list[str]:
    text = DOC.read_text().split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"^\| {pattern} \|", text, flags=re.M)


def test_error_code_table_matches_the_enum() -> None:
    """Every stable error code is documented, and nothing else."""
    assert set(_first_column("Error codes", r"`([a-z_]+)`")) == {c.value for c in ErrorCode}


def test_close_code_table_matches_the_enum() -> None:
    """Every close code the server uses is documented."""
    codes = {int(c) for c in _first_column("Close codes", r"(\d{4})")}
    assert codes == {int(c) for c in CloseCode}


def test_documented_limit_defaults_match_the_code() -> None:
    """The defaults in the Limits table are the ones welcome reports by default."""
    section = _sections(DOC.read_text())["Limits"]
    defaults = msgspec.structs.asdict(Limits())
    for line in section.splitlines():
        m = re.match(r"^\| `([a-z_]+)` \| int \| .*\((\d+)\) \|$", line)
        if m:
            assert defaults[m.group(1)] == int(m.group(2)), line
    assert len(re.findall(r"\((\d+)\) \|$", section, flags=re.M)) == len(defaults)
