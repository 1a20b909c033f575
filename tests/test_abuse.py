"""Bad input and abuse: each gets a stable error code (or a documented close code), and
the connection and the game stay usable. Malformed, mistyped and oversized frames and
decoder bombs; illegal moves; acting as someone else or as a bot; floods (also before
hello, and chat spread over rooms and connections); connections per address (as
``gomoku-server`` flags too) and per process; open rooms per player; guessing invite
codes; peers that never answer or stop reading; a bug in a handler.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import socket
import struct
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import pytest
from live_server import live_server
from server_fixtures import Connect, TestClient, make_config, seated_pair
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from worker_fixtures import StartWorker, ai_config

from protocol import messages as m
from protocol.codec import encode
from protocol.events import (
    ChatPosted,
    Chose,
    GameOver,
    GameStarted,
    Moved,
    Offered,
    PlayerJoined,
    SpectatorCount,
)
from server import handlers
from server.app import GomokuServer
from server.config import ConnectionLimits
from server.handlers import Session
from server.ratelimit import KeyedWindows
from server.sessions import token_hash
from server.store.redis import RedisStore

MakeServer = Callable[..., Awaitable[GomokuServer]]


QUIET = {"ping_interval_s": None, "ping_timeout_s": None}


def limits(**fields: Any) -> ConnectionLimits:
    return ConnectionLimits(**{**QUIET, **fields})


async def wait_for(predicate: Callable[[], bool], seconds: float = 10.0) -> None:
    """Poll until ``predicate`` holds (server-side state changes asynchronously)."""
    for _ in range(int(seconds / 0.02)):
        if predicate():
            return
        await asyncio.sleep(0.02)
    assert predicate(), "timed out waiting for the server"


async def refused_status(port: int, **kwargs: Any) -> int | None:
    """The HTTP status that refused a WebSocket handshake, or None if it was accepted."""
    try:
        ws = await ws_connect(f"ws://127.0.0.1:{port}/", compression=None, **kwargs)
    except InvalidStatus as exc:
        return exc.response.status_code
    await ws.close()
    return None


async def assert_still_playable(
    alice: TestClient, bob: TestClient, room: str, moves: list[str]
) -> None:
    """The room's snapshot holds exactly the accepted moves: nothing was corrupted."""
    snap = await bob.join(room)
    assert snap.room.moves == moves
    assert snap.room.state == "playing"


# --- frames ----------------------------------------------------------------------------------


async def test_malformed_unknown_and_mistyped_frames(connect: Connect) -> None:
    """Garbage bytes, unknown types, wrong field types and text frames get error frames."""
    alice = await connect()
    await alice.send_raw(b"\xc1\xff\x00garbage")
    await alice.expect_error("bad_message")
    await alice.send_raw(msgspec.msgpack.encode([1, 2, 3]))
    await alice.expect_error("bad_message")
    await alice.send_raw(msgspec.msgpack.encode({"type": "teleport", "id": 4}))
    error = await alice.expect_error("bad_message")
    assert error.re == 4
    await alice.send_raw(msgspec.msgpack.encode({"type": "hello", "name": 42, "id": 5}))
    error = await alice.expect_error("bad_message")
    assert "name" in error.message
    assert error.re == 5
    await alice.send_raw("a text frame")
    await alice.expect_error("bad_frame")
    await alice.send(m.CreateRoom())
    await alice.expect_error("not_hello")
    await alice.send_raw(msgspec.msgpack.encode({"type": "hello", "name": "alice", "version": 9}))
    await alice.expect_error("unsupported_version")
    await alice.hello("alice")
    await alice.send_raw(msgspec.msgpack.encode({"type": "create_room", "size": 40}))
    await alice.expect_error("bad_value")
    await alice.send(m.Hello(name="again"))
    await alice.expect_error("wrong_phase")
    snap = await alice.create(size=19)  # the connection is still fine
    assert snap.room.size == 19
    await alice.send_raw(
        msgspec.msgpack.encode({"type": "chat", "room": snap.room.id, "text": "x" * 301})
    )
    await alice.expect_error("bad_value")
    await alice.send(m.Chat(room=snap.room.id, text="x" * 300))
    assert (await alice.expect(m.Event)).seq == 2


async def test_extension_types_are_refused_even_where_they_would_be_ignored(
    connect: Connect,
) -> None:
    """A frame with a MessagePack extension type anywhere, even in a field the server
    does not know, is refused with bad_message and has no effect; the connection stays
    usable (SECURITY.md, protocol.md "Encoding")."""
    alice = await connect()
    hidden = {"future": [1, {"x": msgspec.msgpack.Ext(1, b"")}]}
    await alice.send_raw(msgspec.msgpack.encode({"type": "hello", "name": "a", "id": 1, **hidden}))
    assert (await alice.expect_error("bad_message")).re == 1
    await alice.hello("alice")  # the refused hello identified nobody
    snap = await alice.create()
    chat = {"type": "chat", "room": snap.room.id, "text": "hi", "id": 2, **hidden}
    await alice.send_raw(msgspec.msgpack.encode(chat))
    assert (await alice.expect_error("bad_message")).re == 2
    await alice.send(m.Chat(room=snap.room.id, text="\u01c7 still here"))
    assert (await alice.expect(m.Event)).seq == 2


async def test_oversized_frame_closes_1009(connect: Connect) -> None:
    """A frame above the 4096-byte limit closes the connection with 1009."""
    alice = await connect("alice")
    await alice.send_raw(b"\x80" + os.urandom(5000))
    with pytest.raises(ConnectionClosed) as closed:
        await alice.recv()
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1009


def padded_hello(size: int) -> bytes:
    """A valid hello of exactly ``size`` bytes (an unknown field carries the padding)."""
    base = len(msgspec.msgpack.encode({"type": "hello", "name": "pad", "x": ""}))
    pad = size - base - 2  # a str8/str16 header grows by 2 bytes past 31/255 chars
    frame = msgspec.msgpack.encode({"type": "hello", "name": "pad", "x": "p" * pad})
    while len(frame) < size:
        pad += 1
        frame = msgspec.msgpack.encode({"type": "hello", "name": "pad", "x": "p" * pad})
    while len(frame) > size:
        pad -= 1
        frame = msgspec.msgpack.encode({"type": "hello", "name": "pad", "x": "p" * pad})
    assert len(frame) == size
    return frame


async def close_code(client: TestClient) -> int:
    """Read until the server closes the connection; its close code."""

    async def read_until_closed() -> None:
        while True:
            await client.recv()

    with pytest.raises(ConnectionClosed) as closed:
        await read_until_closed()
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code


async def test_frame_size_limit_edges(connect: Connect, server: GomokuServer) -> None:
    """4096 bytes are read; 4097 close with 1009, also when split into fragments; a
    header announcing a huge payload is refused before any of it arrives."""
    exact = await connect()
    await exact.send_raw(padded_hello(4096))
    assert (await exact.expect(m.Welcome)).name == "pad"
    over = await connect()
    await over.send_raw(padded_hello(4097))
    assert await close_code(over) == 1009
    fragmented = await connect("frag")
    frame = padded_hello(4097)
    await fragmented.ws.send([frame[i : i + 1000] for i in range(0, len(frame), 1000)])
    assert await close_code(fragmented) == 1009

    reader, writer = await raw_handshake(server.port)
    header = bytes([0x82, 0x80 | 127]) + struct.pack("!Q", 1 << 40) + os.urandom(4)
    writer.write(header)  # the payload never follows
    async with asyncio.timeout(5):
        data = await reader.read(64)
    assert data[:1] == b"\x88"  # a close frame ...
    assert struct.unpack("!H", data[2:4])[0] == 1009  # ... with 1009, at once
    writer.close()


BOMBS = {
    "array32 claiming 4 billion items": b"\xdd\xff\xff\xff\xff",
    "map32 claiming 4 billion entries": b"\xdf\xff\xff\xff\xff",
    "str32 claiming 4 GiB": b"\xdb\xff\xff\xff\xff" + b"x" * 10,
    "bin32 claiming 4 GiB": b"\xc6\xff\xff\xff\xff",
    "3000 nested arrays": b"\x91" * 3000 + b"\xc0",
    "1300 nested maps": b"\x81\xa1k" * 1300 + b"\xc0",
    "ext type": b"\xd4\x01\x00",
    "timestamp ext": b"\xd6\xff\x00\x00\x00\x00",
    "map with an int key": b"\x82\xa4type\xa5hello\x01\xa3bob",
    "hello with a 9-byte float id": msgspec.msgpack.encode(
        {"type": "hello", "name": "x", "id": 1e300}
    ),
    "hello with id 2**64-1": msgspec.msgpack.encode(
        {"type": "hello", "name": "x", "id": 2**64 - 1}
    ),
    "invalid utf-8 name": b"\x82\xa4type\xa5hello\xa4name\xa2\xff\xfe",
    "trailing bytes": msgspec.msgpack.encode({"type": "hello", "name": "x"}) + b"\xc0",
}


async def test_decoder_bombs_get_bad_message_and_the_connection_lives(connect: Connect) -> None:
    """Length headers that lie, deep nesting, extension types, odd keys and trailing
    bytes are each answered with an error frame, cheaply, on a connection that stays
    usable."""
    client = await connect()
    for name, frame in BOMBS.items():
        await client.send_raw(frame)
        error = await client.expect(m.Error)
        assert error.code in ("bad_message", "bad_value"), (name, error)
    await client.hello("survivor")
    assert client.player


ODD_IDS = ["{", "}", "r-{0123456789}", "%7B", "100%"]
"""Ids no server makes, with the characters a Redis key (hash tag) or its escaping
treats specially."""


@pytest.mark.parametrize("store", ["memory", "redis"])
async def test_ids_no_room_can_have_get_the_same_answers_from_both_stores(
    make_server: MakeServer, connect: Connect, request: pytest.FixtureRequest, store: str
) -> None:
    """Room ids, invite codes, game and player ids with braces or percent signs name
    nothing: each request is refused as for any unknown id, with the Redis store as with
    the memory store, and no handler fails."""
    backend = None
    if store == "redis":
        backend = RedisStore(request.getfixturevalue("redis_url"), poll_interval_s=0.2)
    many = limits(rate_per_s=1000, rate_burst=1000, chat_per_window=1000)
    server = await make_server(store=backend, limits=many)
    client = await connect("prober", to=server)
    for odd in ODD_IDS:
        for message, code in [
            (m.Join(room=odd, id=1), "no_such_room"),
            (m.Join(code=odd, id=1), "no_such_room"),
            (m.Resume(room=odd, after=0, id=1), "no_such_room"),
            (m.Move(room=odd, point="h8", id=1), "no_such_room"),
            (m.Chat(room=odd, text="hi", id=1), "no_such_room"),
            (m.GetRecord(game=odd, id=1), "no_such_game"),
            (m.GetProfile(player=odd, id=1), "no_such_player"),
        ]:
            await client.send(message)
            error = await client.expect(m.Error)
            assert (error.code, error.re) == (code, 1), (odd, message, error)
        await client.send(m.ListGames(player=odd, id=2))
        assert (await client.expect(m.Games)).items == []
    assert server.metrics.counters["gomoku_errors_internal_total"] == 0


# --- moves -----------------------------------------------------------------------------------


async def test_illegal_moves_are_refused_and_the_game_goes_on(connect: Connect) -> None:
    """Out of turn, occupied, off board, not seated: clear codes and an intact game."""
    alice, bob, room = await seated_pair(connect)
    await bob.move(room, "h8")
    await bob.expect_error("not_your_turn")
    await alice.move(room, "h8")
    await alice.event(Moved, room)
    await bob.event(Moved, room)
    await bob.move(room, "h8")
    error = await bob.expect_error("occupied")
    assert error.room == room
    await bob.move(room, "p16")
    error = await bob.expect_error("off_board")
    assert "off" in error.message
    await bob.move(room, "z9")
    await bob.expect_error("off_board")
    mallory = await connect("mallory")
    await mallory.move(room, "a1")
    await mallory.expect_error("not_in_room")
    await mallory.send(m.Move(room="r-nonexistent", point="a1"))
    await mallory.expect_error("no_such_room")
    await bob.send(m.Choose(room=room, choice="black"))
    await bob.expect_error("wrong_phase")
    await assert_still_playable(alice, bob, room, ["h8"])


# --- identity: seats, tokens, bots -----------------------------------------------------------


async def test_someone_elses_identity_cannot_be_used(connect: Connect) -> None:
    """Moves act as the connection's own player: naming another player or a forged
    token does not let anyone move for them."""
    alice, bob, room = await seated_pair(connect)
    mallory = await connect()
    await mallory.send(m.Hello(name="mallory", token=alice.token[:-2] + "xx"))
    await mallory.expect_error("bad_token")
    await mallory.hello("mallory")
    forged: dict[str, Any] = {"type": "move", "room": room, "point": "h8", "player": alice.player}
    await mallory.send_raw(msgspec.msgpack.encode(forged))
    await mallory.expect_error("not_in_room")
    await alice.silent()
    await assert_still_playable(alice, bob, room, [])


async def test_spectators_and_strangers_cannot_act_for_the_players(connect: Connect) -> None:
    """Only the seated players act in a game: a spectator's and another room's player's
    moves, resignations, offers, answers, claims and choices are refused, and a player
    cannot accept their own offer."""
    alice, bob, room = await seated_pair(connect)
    carol = await connect("carol")
    await carol.join(room, "spectator")
    await alice.until_event(SpectatorCount)
    await bob.until_event(SpectatorCount)
    dave, erin, other_room = await seated_pair(connect)
    await alice.send(m.Offer(room=room, kind="draw"))
    await alice.until_event(Offered)
    await bob.until_event(Offered)
    await carol.until_event(Offered)
    attempts: list[msgspec.Struct] = [
        m.Move(room=room, point="h8"),
        m.Resign(room=room),
        m.Offer(room=room, kind="takeback"),
        m.Answer(room=room, kind="draw", accept=True),
        m.Claim(room=room),
    ]
    for intruder in (carol, dave):
        for attempt in attempts:
            await intruder.send(attempt)
            error = await intruder.until(lambda x: isinstance(x, m.Error))
            assert isinstance(error, m.Error)
            assert error.code == "not_in_room", (intruder.player, attempt, error)
    await alice.send(m.Answer(room=room, kind="draw", accept=True))
    await alice.expect_error("no_offer")
    await alice.move(room, "h8")  # nothing above changed the game
    moved = await bob.until_event(Moved)
    assert (moved.point, moved.move_no) == ("h8", 1)
    await erin.silent()
    snap = await (await connect("frank")).join(other_room, "spectator")
    assert snap.room.moves == []


async def test_nobody_makes_the_swap2_choice_for_the_chooser(connect: Connect) -> None:
    """In a swap2 opening only the player asked may choose: the opener and a
    spectator are refused, and the opening waits for the right player."""
    alice, bob, room = await seated_pair(connect, opening="swap2")
    carol = await connect("carol")
    await carol.join(room, "spectator")
    for point in ("h8", "h9", "i9"):
        await alice.move(room, point)
        await bob.until_event(Moved)
    await alice.send(m.Choose(room=room, choice="white"))
    await alice.until(lambda x: isinstance(x, m.Error) and x.code == "not_your_turn")
    await carol.send(m.Choose(room=room, choice="white"))
    await carol.until(lambda x: isinstance(x, m.Error) and x.code == "not_in_room")
    await bob.send(m.Choose(room=room, choice="white"))
    chose = await carol.until_event(Chose)
    assert (chose.player, chose.black, chose.white) == (bob.player, alice.player, bob.player)


async def test_tokens_never_reach_other_players_and_their_hashes_resume_nobody(
    make_server: MakeServer, connect: Connect
) -> None:
    """Nothing another player receives contains a player's resume token, and the
    stored hash of a token is not itself a token."""
    server = await make_server()
    alice = await connect("alice", to=server)
    bob = await connect("bob", to=server)
    room = (await alice.create(seat="black")).room.id
    await bob.send(m.LobbyWatch(on=True))
    await bob.expect(m.Lobby)
    snap = await bob.join(room)
    received = [encode(snap)]
    await alice.move(room, "h8")
    await alice.send(m.Chat(room=room, text="hi"))
    for _ in range(3):  # the move, the chat, and a lobby update in some order
        received.append(encode(await bob.recv()))
    blob = b"".join(received)
    assert alice.token.encode() not in blob
    assert alice.player.encode() in blob  # the scan sees ids, so it would see a token
    impostor = await connect(to=server)
    await impostor.send(m.Hello(name="alice", token=token_hash(alice.token)[:128]))
    await impostor.expect_error("bad_token")


async def test_worker_messages_and_the_bot_flag_need_the_bot_key(
    make_server: MakeServer, connect: Connect
) -> None:
    """Without a bot key a connection cannot register as an AI worker, answer hints or
    send heartbeats, and a ``bot`` field in hello does not make it a bot; a server with
    no bot keys refuses every key."""
    keyless = await make_server()
    guess = await connect(to=keyless)
    await guess.send(m.Hello(name="bot", bot_key="gomoku"))
    await guess.expect_error("bad_bot_key")
    server = await make_server(bot_keys=frozenset({"s3cret"}))
    mallory = await connect(to=server)
    await mallory.send_raw(msgspec.msgpack.encode({"type": "hello", "name": "ai", "bot": True}))
    await mallory.expect(m.Welcome)
    for frame in (
        {"type": "bot_ready", "seats": 4, "levels": ["master"], "id": 1},
        {"type": "bot_heartbeat", "id": 2},
        {"type": "hint_result", "request": 1, "point": "h8", "id": 3},
    ):
        await mallory.send_raw(msgspec.msgpack.encode(frame))
        error = await mallory.expect_error("not_a_bot")
        assert error.re == frame["id"]
    room = (await mallory.create(seat="black")).room.id
    alice = await connect("alice", to=server)
    snap = await alice.join(room)
    assert snap.room.players.black is not None
    assert not snap.room.players.black.bot


# --- floods ----------------------------------------------------------------------------------


async def test_message_flood_rate_limited_then_closed(
    make_server: MakeServer, connect: Connect
) -> None:
    """Beyond the token bucket messages are refused, naming the dropped request; a
    sustained flood closes with 1008."""
    limits = ConnectionLimits(
        rate_per_s=5, rate_burst=5, flood_strikes=10, ping_interval_s=None, ping_timeout_s=None
    )
    server = await make_server(limits=limits)
    alice = await connect(to=server)
    await alice.hello("alice")  # takes one token
    for _ in range(4):
        await alice.send(m.LobbyWatch(on=False))  # accepted silently
    await alice.send(m.LobbyWatch(on=False, id=77))
    refused = await alice.expect_error("rate_limited")
    assert refused.re == 77  # the sender knows which message to send again
    await asyncio.sleep(0.5)  # the bucket refills
    await alice.send(m.LobbyWatch(on=True))
    await alice.expect(m.Lobby)
    for _ in range(30):
        await alice.send(m.LobbyWatch(on=False))

    async def drain() -> None:
        while True:
            await alice.expect_error("rate_limited")

    with pytest.raises(ConnectionClosed) as closed:
        await drain()
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1008


async def test_a_flooding_player_is_cut_off_and_the_game_survives(
    make_server: MakeServer, connect: Connect
) -> None:
    """A seated player who floods moves is rate limited and then disconnected (1008);
    the opponent's moves go through meanwhile, no flooded move lands, and the flooder
    resumes the intact game with the token."""
    server = await make_server(limits=limits(rate_per_s=10, rate_burst=10, flood_strikes=20))
    alice = await connect("alice", to=server)
    bob = await connect("bob", to=server)
    room = (await alice.create(seat="black")).room.id
    await bob.join(room)
    await alice.event(PlayerJoined, room)
    await alice.event(GameStarted, room)
    for i in range(200):
        await bob.send(m.Move(room=room, point=f"a{1 + i % 15}"))  # out of turn, all of them
    await alice.move(room, "h8")
    assert (await alice.event(Moved, room)).point == "h8"
    codes: list[str] = []

    async def read_until_closed() -> None:
        while True:
            message = await bob.recv()
            if isinstance(message, m.Error):
                codes.append(message.code)

    with pytest.raises(ConnectionClosed) as closed:
        await read_until_closed()
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1008
    assert set(codes) <= {"not_your_turn", "rate_limited"}
    assert "rate_limited" in codes
    assert codes.count("not_your_turn") <= 10  # only the burst reached the game
    back = await connect(to=server)
    await back.hello("bob", token=bob.token)
    await back.send(m.Resume(room=room, after=0))
    replayed = await back.until_event(Moved)  # the log from the start, gap-free
    assert replayed.point == "h8"
    await alice.move(room, "h9")
    await alice.until(lambda x: isinstance(x, m.Error) and x.code == "not_your_turn")
    await back.move(room, "a1")
    assert (await alice.until_event(Moved)).point == "a1"
    snap = await (await connect("carol", to=server)).join(room, "spectator")
    assert snap.room.moves == ["h8", "a1"]


async def test_an_unidentified_flood_is_cut_off(make_server: MakeServer, connect: Connect) -> None:
    """A connection that never says hello and floods garbage, text frames and requests
    is rate limited and then closed (1008) like anyone else: only the burst is read."""
    server = await make_server(limits=limits(rate_per_s=5, rate_burst=5, flood_strikes=10))
    flooder = await connect(to=server)
    frames: list[bytes | str] = [b"\xc1garbage", "a text frame", encode(m.CreateRoom())]
    for i in range(300):
        await flooder.send_raw(frames[i % len(frames)])
    codes: list[str] = []

    async def read_until_closed() -> None:
        while True:
            message = await flooder.recv()
            assert isinstance(message, m.Error), message
            codes.append(message.code)

    with pytest.raises(ConnectionClosed) as closed:
        await read_until_closed()
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1008
    assert set(codes) <= {"bad_message", "bad_frame", "not_hello", "rate_limited"}
    assert codes.count("rate_limited") >= 10
    assert len(codes) - codes.count("rate_limited") <= 10  # the burst and a little refill
    alice = await connect("alice", to=server)  # the server itself is unharmed
    assert alice.player


async def test_chat_flood_is_limited(connect: Connect) -> None:
    """More than 5 chat lines in 10 s are refused with chat_rate_limited."""
    alice, _bob, room = await seated_pair(connect)
    for i in range(5):
        await alice.send(m.Chat(room=room, text=f"line {i}"))
    await alice.events(5)
    await alice.send(m.Chat(room=room, text="one too many"))
    await alice.expect_error("chat_rate_limited")
    await alice.move(room, "h8")  # other messages still go through
    await alice.event(Moved, room)


async def test_chat_limit_is_per_player_across_rooms(connect: Connect) -> None:
    """Spreading chat over several rooms (as a spectator, say) does not multiply the
    allowance: the sixth line in 10 s is refused in whichever room it goes to."""
    _alice, _bob, first = await seated_pair(connect)
    _dave, _erin, second = await seated_pair(connect)
    carol = await connect("carol")
    await carol.join(first, "spectator")
    await carol.join(second, "spectator")
    for i in range(5):
        room = (first, second)[i % 2]
        await carol.send(m.Chat(room=room, text=f"line {i}"))
        assert (await carol.until_event(ChatPosted)).text == f"line {i}"
    for room in (first, second):
        await carol.send(m.Chat(room=room, text="one too many", id=9))
        error = await carol.until(lambda x: isinstance(x, m.Error))
        assert isinstance(error, m.Error)
        assert (error.code, error.re) == ("chat_rate_limited", 9)


async def test_chat_limit_is_per_player_across_connections(connect: Connect) -> None:
    """A second connection of the same player does not get a fresh chat allowance."""
    alice, bob, room = await seated_pair(connect)
    alice2 = await connect()
    await alice2.hello("alice", token=alice.token)
    await alice2.send(m.Resume(room=room, after=0))
    await alice2.until(lambda x: isinstance(x, m.Event) and isinstance(x.event, GameStarted))
    for i in range(3):
        await alice.send(m.Chat(room=room, text=f"from one {i}"))
        await alice.until_event(ChatPosted)
    for i in range(2):
        await alice2.send(m.Chat(room=room, text=f"from two {i}"))
        await alice2.until_event(ChatPosted)
    await alice2.send(m.Chat(room=room, text="sixth line"))
    await alice2.until(lambda x: isinstance(x, m.Error) and x.code == "chat_rate_limited")
    await bob.send(m.Chat(room=room, text="bob has his own allowance"))
    await bob.until(
        lambda x: (
            isinstance(x, m.Event)
            and isinstance(x.event, ChatPosted)
            and x.event.text == "bob has his own allowance"
        )
    )


# --- connections per address and per process -------------------------------------------------


async def test_connections_per_address_are_limited(
    make_server: MakeServer, connect: Connect
) -> None:
    """A fourth connection from one address is refused with HTTP 429 while three are
    open; another address is unaffected, health checks still answer, and closing one
    connection makes room again."""
    server = await make_server(limits=limits(max_conns_per_ip=3))
    clients = [await connect(f"p{i}", to=server) for i in range(3)]
    assert await refused_status(server.port) == 429
    assert await refused_status(server.port, local_addr=("127.0.0.2", 0)) is None
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert (await reader.read()).startswith(b"HTTP/1.1 200")
    writer.close()
    await clients[0].ws.close()
    await wait_for(lambda: server.listener.per_address["127.0.0.1"] == 2)
    again = await connect("again", to=server)
    assert again.player
    assert server.metrics.counters["gomoku_refused_per_ip_total"] == 1
    assert "gomoku_refused_per_ip_total 1" in server.metrics.render()


@pytest.mark.parametrize(
    ("flags", "env", "limit"),
    [
        ([], {}, 64),
        (["--max-conns-per-ip", "3"], {}, 3),
        (["--max-conns-per-ip", "0"], {}, None),
        ([], {"GOMOKU_MAX_CONNS_PER_IP": "3"}, 3),
        (["--max-conns-per-ip", "3"], {"GOMOKU_MAX_CONNS_PER_IP": "not read"}, 3),
    ],
    ids=["default", "three", "unlimited", "from the environment", "the flag wins"],
)
async def test_the_operator_sets_the_per_address_limit(
    flags: list[str], env: dict[str, str], limit: int | None
) -> None:
    """``gomoku-server`` holds one address to 64 open connections unless
    ``--max-conns-per-ip`` (or, without it, ``GOMOKU_MAX_CONNS_PER_IP``) says otherwise;
    0 lifts the limit."""
    opened = []
    with live_server(flags, env) as live:
        try:
            for _ in range(limit if limit is not None else 80):  # 80: past the default
                opened.append(await ws_connect(live.url, compression=None))
            if limit is not None:
                assert await refused_status(live.port) == 429
                await opened.pop().close()
                await wait_for(lambda: live.metric("gomoku_connections") == limit - 1)
                opened.append(await ws_connect(live.url, compression=None))
            assert live.metric("gomoku_refused_per_ip_total") == (0 if limit is None else 1)
        finally:
            for ws in opened:
                await ws.close()


async def test_connections_per_process_are_limited(make_server: MakeServer) -> None:
    """Past the process's connection limit a new connection is closed with 1008 right
    after its handshake, whatever its address; the open ones carry on, and one leaving
    makes room."""
    server = await make_server(limits=limits(max_connections=2, max_conns_per_ip=0))
    ws1 = await ws_connect(f"ws://127.0.0.1:{server.port}/", compression=None)
    ws2 = await ws_connect(
        f"ws://127.0.0.1:{server.port}/", compression=None, local_addr=("127.0.0.2", 0)
    )
    first, second = TestClient(ws1), TestClient(ws2)
    extra = TestClient(
        await ws_connect(
            f"ws://127.0.0.1:{server.port}/", compression=None, local_addr=("127.0.0.3", 0)
        )
    )
    assert await close_code(extra) == 1008
    await first.hello("first")
    await second.hello("second")
    await ws1.close()
    await wait_for(lambda: len(server.connections) == 1)
    again = TestClient(await ws_connect(f"ws://127.0.0.1:{server.port}/", compression=None))
    assert (await again.hello("again")).name == "again"
    await ws2.close()
    await again.ws.close()


async def test_forwarded_for_is_trusted_only_from_a_trusted_proxy(
    make_server: MakeServer,
) -> None:
    """Behind a trusted proxy each client named in X-Forwarded-For has its own limit;
    from any other peer the header is ignored, so it cannot dodge the limit."""
    proxied = await make_server(
        limits=limits(max_conns_per_ip=1), trusted_proxies=frozenset({"127.0.0.1"})
    )
    direct = await make_server(limits=limits(max_conns_per_ip=1))

    def via(client: str) -> dict[str, Any]:
        return {"additional_headers": {"X-Forwarded-For": f"198.51.100.7, {client}"}}

    first = await ws_connect(f"ws://127.0.0.1:{proxied.port}/", compression=None, **via("a"))
    assert await refused_status(proxied.port, **via("a")) == 429
    assert await refused_status(proxied.port, **via("b")) is None
    spoofer = await ws_connect(f"ws://127.0.0.1:{direct.port}/", compression=None, **via("a"))
    assert await refused_status(direct.port, **via("b")) == 429
    await first.close()
    await spoofer.close()


async def test_forwarded_for_in_two_lines_counts_the_proxys_entry(
    make_server: MakeServer,
) -> None:
    """A client's own X-Forwarded-For line and the one a proxy adds (HAProxy adds a line
    rather than extending the client's) are one list: the last entry, the proxy's,
    names the client, whatever the client wrote."""
    proxied = await make_server(
        limits=limits(max_conns_per_ip=1), trusted_proxies=frozenset({"127.0.0.1"})
    )

    def via(forged: str, client: str) -> dict[str, Any]:
        lines = [("X-Forwarded-For", forged), ("X-Forwarded-For", client)]
        return {"additional_headers": lines}

    first = await ws_connect(f"ws://127.0.0.1:{proxied.port}/", compression=None, **via("b", "a"))
    assert await refused_status(proxied.port, **via("b", "a")) == 429
    assert await refused_status(proxied.port, **via("a", "b")) is None
    await first.close()


async def test_only_allowed_web_origins_may_connect(make_server: MakeServer) -> None:
    """With allowed origins set, a page from another origin is refused (HTTP 403) while
    pages from an allowed origin and clients that send no origin get in; ``*`` lets
    every origin in. (The default, the page's own origin only: tests/test_web_http.py.)"""
    server = await make_server(allowed_origins=frozenset({"https://play.example.org"}))
    evil: Any = {"origin": "https://evil.example.com"}
    good: Any = {"origin": "https://play.example.org"}
    assert await refused_status(server.port, **evil) == 403
    assert await refused_status(server.port, **good) is None
    assert await refused_status(server.port) is None
    anywhere = await make_server(allowed_origins=frozenset({"*"}))
    assert await refused_status(anywhere.port, **evil) is None


# --- open rooms per player -------------------------------------------------------------------


async def create_or_refusal(client: TestClient, **room: Any) -> str:
    """Create a room: its id, or the error code of the refusal."""
    await client.send(m.CreateRoom(**room))
    reply = await client.recv()
    if isinstance(reply, m.Snapshot):
        return reply.room.id
    assert isinstance(reply, m.Error), reply
    return reply.code


@pytest.mark.parametrize("store", ["memory", "redis"])
async def test_open_rooms_per_player_are_capped(
    make_server: MakeServer, connect: Connect, request: pytest.FixtureRequest, store: str
) -> None:
    """A player with 3 open rooms is refused a fourth (too_many_rooms, nothing created)
    while another player creates rooms as usual; a waiting room left empty and a game
    that ended each give a slot back."""
    backend = RedisStore(request.getfixturevalue("redis_url")) if store == "redis" else None
    server = await make_server(limits=limits(max_rooms_per_player=3), store=backend)
    abuser = await connect("abuser", to=server)
    rooms = [await create_or_refusal(abuser, seat="black") for _ in range(2)]
    rooms.append(await create_or_refusal(abuser, private=True))
    await abuser.send(m.CreateRoom(id=4))
    refusal = await abuser.expect_error("too_many_rooms")
    assert refusal.re == 4
    assert "3 open rooms" in refusal.message
    assert sorted(await server.store.owned_rooms(abuser.player)) == sorted(rooms)
    player = await connect("player", to=server)
    assert [await create_or_refusal(player) for _ in range(3)] != ["too_many_rooms"] * 3
    await abuser.send(m.Leave(room=rooms[2]))  # nobody else was in it: it empties
    await abuser.expect(m.Left)
    rooms[2] = await create_or_refusal(abuser, seat="black")
    assert rooms[2].startswith("r-")
    assert await create_or_refusal(abuser) == "too_many_rooms"
    await player.join(rooms[0])
    await abuser.until_event(GameStarted)
    await abuser.send(m.Resign(room=rooms[0]))  # the game ends: the room is not open
    await abuser.until_event(GameOver)
    assert (await create_or_refusal(abuser)).startswith("r-")
    assert await create_or_refusal(abuser) == "too_many_rooms"


async def test_the_room_cap_holds_across_two_server_processes(redis_url: str) -> None:
    """With two gomoku-server processes on one Redis, a player's open rooms are counted
    once for both: 2 on one instance and 1 on the other reach a cap of 3, on either; so
    do requests racing on both at once."""
    flags = ["--redis", redis_url, "--max-rooms-per-player", "3"]
    with live_server(flags) as first, live_server(flags) as second:
        clients: list[TestClient] = []
        try:
            for live in (first, second, first, second):
                clients.append(TestClient(await ws_connect(live.url, compression=None)))
            one, two, racer_one, racer_two = clients
            await one.hello("abuser")
            await two.hello("abuser", token=one.token)
            assert (await create_or_refusal(one)).startswith("r-")
            assert (await create_or_refusal(one)).startswith("r-")
            assert (await create_or_refusal(two)).startswith("r-")
            assert await create_or_refusal(two) == "too_many_rooms"
            assert await create_or_refusal(one) == "too_many_rooms"
            await racer_one.hello("racer")
            await racer_two.hello("racer", token=racer_one.token)
            assert (await create_or_refusal(racer_two)).startswith("r-")
            assert (await create_or_refusal(racer_two)).startswith("r-")
            raced = await asyncio.gather(create_or_refusal(racer_one), create_or_refusal(racer_two))
            assert raced.count("too_many_rooms") == 1
        finally:
            for client in clients:
                await client.ws.close()


async def test_an_ai_game_someone_started_counts_until_it_ends(
    make_server: MakeServer, connect: Connect, start_worker: StartWorker
) -> None:
    """An AI-vs-AI game a player started counts against their cap (here 1) while it
    runs, though they only watch it; when it ends they may create a room again."""
    server = await make_server(ai_config(limits=limits(max_rooms_per_player=1)))
    await start_worker(to=server, seats=2)
    fan = await connect("fan", to=server)
    await fan.send(m.CreateAiGame(black="beginner", white="beginner", size=7))
    watched = (await fan.expect(m.Snapshot)).room.id
    await fan.send(m.CreateAiGame(black="beginner", white="beginner", size=7))
    await fan.until(lambda x: isinstance(x, m.Error) and x.code == "too_many_rooms")
    other = await connect("other", to=server)
    assert (await create_or_refusal(other)).startswith("r-")  # others are not held up
    over = await fan.until(lambda x: isinstance(x, m.Event) and isinstance(x.event, GameOver))
    assert isinstance(over, m.Event)
    assert over.room == watched
    await fan.send(m.CreateRoom(id=5))
    created = await fan.until(lambda x: isinstance(x, m.Snapshot | m.Error))
    assert isinstance(created, m.Snapshot), created
    assert created.re == 5


# --- guessing invite codes -------------------------------------------------------------------


async def try_code(client: TestClient, code: str) -> str:
    """Join by ``code`` as a spectator: "joined", or the error code of the refusal."""
    await client.send(m.Join(code=code, role="spectator"))
    reply = await client.recv()
    if isinstance(reply, m.Snapshot):
        return "joined"
    assert isinstance(reply, m.Error), reply
    return reply.code


async def test_guessing_invite_codes_is_throttled_per_connection_and_address(
    make_server: MakeServer, connect: Connect
) -> None:
    """After 3 codes that lead nowhere a connection's joins by code, even a right one,
    get rate_limited; its address's other connections share a budget of 5. A player on
    another address joins by code meanwhile, and once the window has passed the guesser
    is heard again."""
    window_ms = 3000
    server = await make_server(
        limits=limits(code_failures=3, code_failures_per_ip=5, code_failure_window_ms=window_ms)
    )
    alice = await connect("alice", to=server, local_addr=("127.0.0.2", 0))
    code = (await alice.create(private=True)).room.code
    assert code is not None
    guesser = await connect("guesser", to=server)
    started = asyncio.get_running_loop().time()
    assert [await try_code(guesser, f"AAA-AAA-A{c}A") for c in "234"] == ["no_such_room"] * 3
    await guesser.send(m.Join(code=code, role="spectator", id=9))
    refusal = await guesser.expect_error("rate_limited")
    assert refusal.re == 9
    assert "try again in" in refusal.message
    again = await connect("again", to=server)  # a new connection from the same address
    assert [await try_code(again, f"BBB-BBB-B{c}B") for c in "234"] == [
        "no_such_room",
        "no_such_room",
        "rate_limited",
    ]
    assert await try_code(again, code) == "rate_limited"
    bob = await connect("bob", to=server, local_addr=("127.0.0.3", 0))
    assert await try_code(bob, code.lower()) == "joined"
    elapsed = asyncio.get_running_loop().time() - started
    await asyncio.sleep(max(0.0, window_ms / 1000 - elapsed) + 0.1)
    assert await try_code(guesser, code) == "joined"


def test_failure_counts_per_address_keep_only_recent_addresses() -> None:
    """Addresses whose failures have all left the window are dropped, so guesses from
    ever new addresses cost memory only for the last window's."""
    windows = KeyedWindows(limit=2, window_ms=1000)
    for i in range(100):
        windows.add(f"10.0.0.{i}", now_ms=i)
    windows.add("10.0.0.1", now_ms=500)
    assert windows.wait_ms("10.0.0.1", now_ms=600) == 401  # two failures: the first leaves at 1001
    windows.add("192.0.2.1", now_ms=1200)
    assert set(windows.windows) == {"10.0.0.1", "192.0.2.1"}
    assert windows.wait_ms("10.0.0.1", now_ms=1200) == 0


# --- peers that never answer or stop reading -------------------------------------------------


async def test_idle_half_open_connection_is_closed_by_keepalive(make_server: MakeServer) -> None:
    """A peer that never answers pings is disconnected after the ping timeout."""
    limits = ConnectionLimits(ping_interval_s=0.1, ping_timeout_s=0.1)
    server = await make_server(limits=limits)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        (
            "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101")
    assert len(server.connections) == 1
    # Never read or answer: the server's ping goes unanswered.
    async with asyncio.timeout(5):
        while await reader.read(1024):
            pass
    writer.close()
    for _ in range(50):
        if not server.connections:
            break
        await asyncio.sleep(0.02)
    assert not server.connections


async def raw_handshake(
    port: int, *, rcvbuf: int | None = None
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A WebSocket opened by hand, so the test controls (and can stop) its reading."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    reader, writer = await asyncio.open_connection(sock=sock)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        (
            "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101")
    return reader, writer


def client_frame(payload: bytes) -> bytes:
    """One masked binary frame, as a client must send it."""
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    if len(payload) < 126:
        head = bytes([0x82, 0x80 | len(payload)])
    else:
        head = bytes([0x82, 0x80 | 126]) + struct.pack("!H", len(payload))
    return head + mask + body


async def long_room(alice: TestClient, lines: int) -> str:
    """A room whose event log holds ``lines`` chat lines of 300 characters."""
    room = (await alice.create()).room.id
    for i in range(lines):
        await alice.send(m.Chat(room=room, text=f"{i:04d}" + "x" * 296))
    for _ in range(lines):
        await alice.until_event(ChatPosted)
    return room


@pytest.mark.parametrize("by", ["send_buffer", "send_timeout"])
async def test_a_reader_that_stops_reading_is_dropped(
    make_server: MakeServer, connect: Connect, by: str
) -> None:
    """A client that asks for lots of data and reads none is dropped, either when its
    unread frames pass the send buffer or when they make no progress for the send
    timeout; its buffers are freed and everyone else carries on."""
    fields: dict[str, Any] = {
        "rate_per_s": 1000,
        "rate_burst": 1000,
        "chat_per_window": 1000,
        "close_timeout_s": 0.5,
    }
    if by == "send_buffer":
        fields |= {"send_buffer": 64 * 1024, "send_timeout_s": 60.0}
    else:
        fields |= {"send_buffer": 64 << 20, "send_timeout_s": 0.5}
    server = await make_server(limits=limits(**fields))
    alice = await connect("alice", to=server)
    room = await long_room(alice, 150)  # about 55 KB of events
    _, writer = await raw_handshake(server.port, rcvbuf=4096)
    writer.write(client_frame(encode(m.Hello(name="sloth"))))
    for _ in range(120):  # ask for the whole log 120 times (about 6.5 MB) and read nothing
        writer.write(client_frame(encode(m.Resume(room=room, after=0))))
    await writer.drain()
    counter = "gomoku_slow_readers_dropped_total"
    await wait_for(lambda: server.metrics.counters[counter] == 1, 30)
    await wait_for(lambda: len(server.connections) == 1, 10)  # aborted after close_timeout
    await alice.send(m.Chat(room=room, text="still here"))
    assert (await alice.until_event(ChatPosted)).text == "still here"
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()


async def test_shutdown_is_not_held_up_by_a_peer_that_reads_nothing() -> None:
    """Stopping the server finishes within its close timeout even when a peer's
    buffers are full and its close frame can never be delivered."""
    config = make_config(
        limits=limits(
            rate_per_s=1000,
            rate_burst=1000,
            chat_per_window=1000,
            close_timeout_s=0.5,
            send_buffer=64 << 20,
            send_timeout_s=600.0,
        )
    )
    server = GomokuServer(config)
    await server.start()
    stopped = False
    try:
        ws = await ws_connect(f"ws://127.0.0.1:{server.port}/", compression=None)
        alice = TestClient(ws)
        await alice.hello("alice")
        room = await long_room(alice, 150)
        _, writer = await raw_handshake(server.port, rcvbuf=4096)
        writer.write(client_frame(encode(m.Hello(name="sloth"))))
        for _ in range(120):
            writer.write(client_frame(encode(m.Resume(room=room, after=0))))
        await writer.drain()

        def stuck() -> bool:
            return any(c.waiting_bytes() > 1 << 20 for c in server.connections)

        await wait_for(stuck)
        await asyncio.wait_for(server.stop(), 5)
        stopped = True
        assert not server.connections
        await ws.close()
        writer.close()
    finally:
        if not stopped:
            await server.stop()


# --- a bug in a handler ----------------------------------------------------------------------


async def test_internal_error_is_reported_counted_and_survived(
    connect: Connect, server: GomokuServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in one handler answers `internal`, bumps errors_internal, and nothing else breaks."""

    async def broken(session: Session, msg: m.Chat) -> None:
        raise RuntimeError("boom")

    monkeypatch.setitem(handlers.HANDLERS, m.Chat, broken)
    alice, bob, room = await seated_pair(connect)
    await alice.send(m.Chat(room=room, text="hi", id=9))
    error = await alice.expect_error("internal")
    assert error.re == 9
    assert server.metrics.counters["gomoku_errors_internal_total"] == 1
    assert "gomoku_errors_internal_total 1" in server.metrics.render()
    await alice.move(room, "h8")
    await bob.event(Moved, room)
