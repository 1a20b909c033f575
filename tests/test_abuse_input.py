"""Bad input: each gets a stable error code (or a documented close code), and the
connection and the game stay usable. Malformed, mistyped and oversized frames and
decoder bombs; illegal moves; acting as someone else or as a bot.
"""

from __future__ import annotations

import asyncio
import logging
import os
import struct
from typing import Any

import msgspec
import pytest
from abuse_fixtures import MakeServer, close_code, limits, raw_handshake
from server_fixtures import Connect, TestClient, seated_pair
from websockets.exceptions import ConnectionClosed

from protocol import messages as m
from protocol.codec import encode
from protocol.events import Chose, Moved, Offered, SpectatorCount
from server.app import GomokuServer
from server.sessions import token_hash
from server.store.redis import RedisStore


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
    """A frame above the 4096-byte limit is refused (too_large) and closes the
    connection with 1009."""
    alice = await connect("alice")
    await alice.send_raw(b"\x80" + os.urandom(5000))
    assert (await alice.expect(m.Error)).code == "too_large"
    with pytest.raises(ConnectionClosed) as closed:
        await alice.recv()
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1009


async def test_requests_before_an_oversized_frame_are_answered_first(
    connect: Connect, caplog: pytest.LogCaptureFixture
) -> None:
    """A ping, a new room and then a frame over the limit, sent together: the pong and
    the room's snapshot come, then the too_large error, then the 1009 close (the close
    came at once, and the room was made with no snapshot sent, in 7 tries of 10); the
    log says 1009, not 1006."""
    caplog.set_level(logging.INFO, logger="gomoku.server")
    for _ in range(5):
        bot = await connect("bot")
        await bot.send(m.Ping(id=4))
        await bot.send(m.CreateRoom(id=5))
        await bot.send_raw(b"\x80" + os.urandom(5000))
        assert (await bot.expect(m.Pong)).re == 4
        assert (await bot.expect(m.Snapshot)).re == 5
        refused = await bot.expect(m.Error)
        assert refused.code == "too_large"
        with pytest.raises(ConnectionClosed) as closed:
            await bot.recv()
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 1009
    for _ in range(50):  # (the server's side of the close is logged as it ends)
        gone = [r.getMessage() for r in caplog.records if r.getMessage().startswith("gone ")]
        if len(gone) == 5:
            break
        await asyncio.sleep(0.05)
    assert gone
    assert all(line.endswith("close 1009 frame too large") for line in gone), gone


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
    await bob.send_raw(msgspec.msgpack.encode({"type": "move", "room": room, "point": "H8"}))
    error = await bob.expect_error("bad_value")
    assert error.room == room  # a message that fails validation names its room too
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
    make_server: MakeServer, connect: Connect, caplog: pytest.LogCaptureFixture
) -> None:
    """Without a bot key a connection cannot register as an AI worker, answer hints or
    send heartbeats, and a ``bot`` field in hello does not make it a bot; a server with
    no bot keys refuses every key, and logs the refusal (without the key)."""
    keyless = await make_server()
    guess = await connect(to=keyless)
    with caplog.at_level(logging.WARNING, logger="gomoku.server"):
        await guess.send(m.Hello(name="bot", bot_key="gomoku"))
        await guess.expect_error("bad_bot_key")
    said = [r.getMessage() for r in caplog.records if "bot key" in r.getMessage()]
    assert said == ["refused a bot key from 127.0.0.1 (hello as 'bot')"]
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
