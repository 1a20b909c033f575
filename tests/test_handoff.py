"""Connections handed between sibling server instances (``server/handoff.py``, what the
processes of ``gomoku-server --processes`` do), here two instances in one test process
on a real Redis, with real sockets handed over a real Unix socket. The players of a
game that landed on two instances end up on one and play on; a refused handoff leaves
the connection where it was, working; a stranger's handoff is not taken; and a
connection moves only between two of its client's frames."""

from __future__ import annotations

import asyncio
import secrets
import socket
import struct
from collections.abc import AsyncIterator, Awaitable, Callable

import msgspec
import pytest
from server_fixtures import TestClient, make_config, play_moves
from websockets.asyncio.client import connect as ws_connect

from engine import Rule
from protocol import messages as m
from protocol.codec import encode
from protocol.events import ChatPosted, GameStarted, PlayerJoined, Presence
from server.app import GomokuServer
from server.connection import Connection
from server.handoff import Moving
from server.sessions import SessionRecord, encode_session
from server.store.redis import RedisStore
from server.wsconn import MovableConnection, between_frames

KEY = "the-siblings-key"


@pytest.fixture
async def siblings(redis_url: str) -> AsyncIterator[tuple[GomokuServer, GomokuServer]]:
    """Two sibling instances on the test's Redis."""
    ids = sorted(secrets.token_hex(6) for _ in range(2))
    servers = []
    for instance in ids:
        server = GomokuServer(make_config(handoff_key=KEY), store=RedisStore(redis_url))
        server.housekeeping.instance_id = instance
        await server.start()
        servers.append(server)
    yield servers[0], servers[1]
    for server in servers:
        await server.stop()


async def client_of(server: GomokuServer, name: str, opened: list[TestClient]) -> TestClient:
    ws = await ws_connect(f"ws://127.0.0.1:{server.port}/", compression=None)
    client = TestClient(ws)
    opened.append(client)
    await client.hello(name)
    return client


def served_by(server: GomokuServer, player: str) -> list[Connection]:
    return [c for c in server.connections if c.identity and c.identity.player == player]


async def eventually(check: Callable[[], bool], within_s: float = 5.0) -> None:
    for _ in range(int(within_s / 0.01)):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("never happened")


async def split_game(
    creator_on: GomokuServer,
    joiner_on: GomokuServer,
    opened: list[TestClient],
    *,
    creator_seat: str = "black",
) -> tuple[TestClient, TestClient, str]:
    """Alice creates a room (as Black: its first seat) on one instance; Bob joins it from
    the other."""
    alice = await client_of(creator_on, "alice", opened)
    bob = await client_of(joiner_on, "bob", opened)
    room = (await alice.create(seat=creator_seat)).room.id
    await bob.join(room)
    await alice.event(PlayerJoined)
    await alice.event(GameStarted)
    return alice, bob, room


async def test_the_joiner_in_the_second_seat_goes_to_the_other(
    siblings: tuple[GomokuServer, GomokuServer], clients: list[TestClient]
) -> None:
    """Bob joins Alice's room as White from the other instance: his connection is handed
    to hers, which alone knows both players now; nobody is seen going offline, and the
    game and its chat go on. (Hers has the larger instance id: which id is larger does
    not decide.)"""
    low, high = siblings
    alice, bob, room = await split_game(high, low, clients)
    await eventually(lambda: len(served_by(high, bob.player)) == 1)
    assert len(served_by(high, alice.player)) == 1
    await eventually(lambda: not low.connections)  # the old one lets go just after
    assert len(low.players) == 0
    assert high.metrics.counters["gomoku_connections_adopted_total"] == 1
    assert low.metrics.counters["gomoku_connections_handed_off_total"] == 1
    await play_moves(alice, bob, room, ["h8", "a1", "h9", "a2"])
    for client in (alice, bob):
        await client.send(m.Chat(room=room, text=f"hi from {client.player}"))
    for client in (alice, bob):
        seen = [await client.recv() for _ in range(2)]
        assert all(isinstance(x, m.Event) for x in seen), seen
        assert not any(isinstance(x, m.Event) and isinstance(x.event, Presence) for x in seen)


async def test_the_joiner_in_the_first_seat_asks_for_the_other(
    siblings: tuple[GomokuServer, GomokuServer], clients: list[TestClient]
) -> None:
    """Bob joins Alice's room as Black (she took White) from the other instance: his
    instance asks hers for her connection, which comes over; the game goes on."""
    low, high = siblings
    alice, bob, room = await split_game(low, high, clients, creator_seat="white")
    await eventually(lambda: len(served_by(high, alice.player)) == 1)
    assert len(served_by(high, bob.player)) == 1
    await eventually(lambda: not low.connections)  # the old one lets go just after
    assert low.metrics.counters["gomoku_connections_handed_off_total"] == 1
    await play_moves(bob, alice, room, ["h8", "a1", "h9"])


def masked(data: bytes, *, fin: bool = True, opcode: int = 0x2) -> bytes:
    """A client's frame carrying ``data`` (under 126 bytes), as RFC 6455 5.2 lays it out."""
    mask = b"\x01\x02\x03\x04"
    head = struct.pack("!BB", (0x80 if fin else 0) | opcode, 0x80 | len(data))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


async def test_a_joiner_whose_next_frame_came_with_the_join_moves_after_it(
    siblings: tuple[GomokuServer, GomokuServer], clients: list[TestClient]
) -> None:
    """Bob's join and a chat line arrive in one read: after the join his connection is
    not between frames and cannot move yet; it does once the chat line is handled."""
    low, high = siblings
    alice = await client_of(low, "alice", clients)
    bob = await client_of(high, "bob", clients)
    room = (await alice.create(seat="black")).room.id
    join, chat = m.Join(room=room), m.Chat(room=room, text="hello")
    bob.ws.transport.write(masked(encode(join)) + masked(encode(chat)))
    await eventually(lambda: len(served_by(low, bob.player)) == 1)
    await bob.until(lambda x: isinstance(x, m.Event) and isinstance(x.event, ChatPosted))
    await alice.until(lambda x: isinstance(x, m.Event) and isinstance(x.event, ChatPosted))
    await play_moves(alice, bob, room, ["h8", "a1", "h9"])


async def test_a_quick_match_over_two_instances_ends_up_on_one(
    siblings: tuple[GomokuServer, GomokuServer], clients: list[TestClient]
) -> None:
    """Two players queue for a quick match (each ready to take an AI after a minute),
    one on each instance; they are matched, both instances look at once, and they end
    up on one (Black's), playing."""
    low, high = siblings
    cat = await client_of(low, "cat", clients)
    dan = await client_of(high, "dan", clients)
    for client in (cat, dan):
        await client.send(m.Queue(rule=Rule.FREESTYLE, ai_after_ms=60_000, ai_level="beginner"))
        await client.expect(m.Queued)
    snapshots = []
    for client in (cat, dan):
        await client.expect(m.Unqueued)
        snapshots.append(await client.until(lambda x: isinstance(x, m.Snapshot)))
    [snapshot, _] = snapshots
    assert isinstance(snapshot, m.Snapshot)
    room = snapshot.room
    black = cat if room.players.black and room.players.black.id == cat.player else dan
    white = dan if black is cat else cat
    home, away = (low, high) if black is cat else (high, low)
    await eventually(lambda: len(served_by(home, white.player)) == 1)
    assert len(served_by(home, black.player)) == 1
    await eventually(lambda: not away.connections)  # the old one lets go just after
    await play_moves(black, white, room.id, ["h8", "a1", "h9"])


async def test_a_refused_handoff_leaves_the_connection_working_where_it_was(
    siblings: tuple[GomokuServer, GomokuServer], clients: list[TestClient]
) -> None:
    """Both instances are draining (a stopping instance takes no connection): each
    player stays on their own instance and the game is played as before."""
    low, high = siblings
    low.listener.draining = high.listener.draining = True
    alice, bob, room = await split_game(low, high, clients)
    await play_moves(alice, bob, room, ["h8", "a1", "h9", "a2", "h10"])
    assert len(served_by(low, alice.player)) == len(served_by(high, bob.player)) == 1
    for server in (low, high):
        assert server.metrics.counters["gomoku_connections_adopted_total"] == 0
        assert server.metrics.counters["gomoku_connections_handed_off_total"] == 0


async def test_a_handoff_without_the_siblings_key_is_not_taken(
    siblings: tuple[GomokuServer, GomokuServer],
) -> None:
    """A process that does not know the key hands a socket with a made-up session: it is
    closed unanswered, and nobody is served as that player."""
    first, _ = siblings
    assert first.handoff is not None
    ours, theirs = socket.socketpair()
    record = SessionRecord(player="p-victim", name="victim", rating=1500)
    forged = Moving(
        key="a-guess",
        conn_id="x/1",
        address="127.0.0.1",
        subprotocol=None,
        identity=encode_session(record),
        token_hash=None,
        rooms={},
        attached=[],
        lobby=False,
    )
    loop = asyncio.get_running_loop()
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as peer:
        peer.setblocking(False)
        await loop.sock_connect(peer, first.handoff.address(first.housekeeping.instance_id))
        socket.send_fds(peer, [msgspec.msgpack.encode(forged)], [theirs.fileno()])
        theirs.close()
        assert await asyncio.wait_for(loop.sock_recv(peer, 1), 5) == b""  # no answer
    with ours:
        ours.setblocking(False)
        assert await asyncio.wait_for(loop.sock_recv(ours, 1), 5) == b""  # closed, not served
    assert not served_by(first, "p-victim")
    assert first.metrics.counters["gomoku_connections_adopted_total"] == 0


async def test_a_connection_is_between_frames_only_with_nothing_half_read(
    make_server: Callable[..., Awaitable[GomokuServer]], clients: list[TestClient]
) -> None:
    """The server counts a connection between its client's frames only when every byte
    it read is part of a whole frame it handled: not with half a frame read, nor
    within a message sent in fragments."""
    server = await make_server(make_config(handoff_key=KEY))
    client = await client_of(server, "alice", clients)
    [conn] = server.connections
    ws = conn.ws
    assert isinstance(ws, MovableConnection)
    assert ws.between_frames()
    data = encode(m.LobbyWatch(on=False))  # a request with no answer
    frame = masked(data)
    transport = client.ws.transport
    transport.write(frame[:3])
    await eventually(lambda: not between_frames(ws.protocol))  # the 3 bytes read
    assert not ws.between_frames()
    transport.write(frame[3:])
    await eventually(ws.between_frames)
    transport.write(masked(data, fin=False))  # a message's first fragment
    await eventually(lambda: ws.protocol.current_size is not None)  # the fragment read
    assert not ws.between_frames()
    transport.write(masked(b"", opcode=0x0))  # and its last, empty
    await eventually(ws.between_frames)
