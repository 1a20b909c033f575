"""Nothing lives forever: a game both players left ends as the rules say and is archived,
then every key of its room expires; a room nobody joins closes; an unused resume token
stops working. On both stores: for Redis, every key under the room's prefix is listed."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from redis.asyncio import Redis
from server_fixtures import Connect, make_config, seated_pair

from engine import Rule
from protocol import messages as m
from protocol.events import GameOver, Moved, PlayerLeft
from server.app import GomokuServer
from server.config import Timers
from server.game import GameRules
from server.keys import Keys
from server.store import MemoryStore
from server.store.redis import RedisStore

MakeServer = Callable[..., Awaitable[GomokuServer]]
GRACE_MS = 500
"""Long enough for two closing connections to be seen within it on a loaded machine."""
TTL_MS = 600
SESSION_TTL_MS = 1_500
"""Longer than the rooms' lifetimes: a token in use is used again a quarter of it later,
which leaves a busy machine more than a second to spare between two uses."""


async def _server(
    store_kind: str, make_server: MakeServer, request: pytest.FixtureRequest
) -> GomokuServer:
    config = make_config(
        game=GameRules(grace_ms=GRACE_MS, attach_wait_ms=100),
        timers=Timers(
            tick_interval_s=0.02,
            purge_interval_s=0.05,
            finished_room_ttl_ms=TTL_MS,
            waiting_room_ttl_ms=TTL_MS,
            session_ttl_ms=SESSION_TTL_MS,
        ),
    )
    if store_kind == "memory":
        return await make_server(config, store=MemoryStore(session_ttl_ms=SESSION_TTL_MS))
    url = request.getfixturevalue("redis_url")
    store = RedisStore(url, poll_interval_s=0.2, session_ttl_ms=SESSION_TTL_MS)
    return await make_server(config, store=store)


async def _left_behind(server: GomokuServer, room: str, code: str | None) -> list[str]:
    """What the store still holds of a room: its keys (Redis: every key under the room's
    prefix, and its invite code) or its entries (memory: the room, its invite code)."""
    store = server.store
    if isinstance(store, MemoryStore):
        await store.purge()
        left = [room] if await store.load_room(room) is not None else []
        return left + [code for code in [code] if code in store._invites]
    assert isinstance(store, RedisStore)
    keys = Keys()
    reader = Redis.from_url(store.url)
    try:
        found = [k.decode() async for k in reader.scan_iter(match=f"gomoku:{{room:{room}}}*")]
        if code is not None and await reader.exists(keys.invite(code)):
            found.append(keys.invite(code))
        return found
    finally:
        await reader.aclose()


async def _until_gone(server: GomokuServer, room: str, code: str | None) -> None:
    for _ in range(200):
        if not await _left_behind(server, room, code):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"still there: {await _left_behind(server, room, code)}")


@pytest.mark.parametrize("store_kind", ["memory", "redis"])
@pytest.mark.parametrize(
    ("moves", "first_stays_ms", "winner", "counted"),
    [
        (["h8", "a1", "h9", "a2"], 0, None, True),  # both left within the grace: drawn
        (["h8", "a1", "h9"], 0, None, False),  # ... with fewer than two moves each: aborted
        (["h8", "a1", "h9", "a2"], 2 * GRACE_MS, "black", True),  # White left first, for good
    ],
    ids=["drawn", "aborted", "first-to-leave-loses"],
)
async def test_a_game_everyone_left_ends_is_archived_and_expires(
    store_kind: str,
    moves: list[str],
    first_stays_ms: int,
    winner: str | None,
    counted: bool,
    make_server: MakeServer,
    connect: Connect,
    request: pytest.FixtureRequest,
) -> None:
    """Both players of a rated private game close their connections (White first; Black
    after ``first_stays_ms``). The game ends by itself as the rules say, a spectator sees
    game_over (with ratings when it counts), the record is archived; after the finished
    room's time to live nothing of the room is left in the store, invite code included."""
    server = await _server(store_kind, make_server, request)
    alice = await connect("alice", to=server)
    bob = await connect("bob", to=server)
    snap = await alice.create(seat="black", rated=True, private=True)
    room, code = snap.room.id, snap.room.code
    await bob.send(m.Join(code=code))
    await bob.expect(m.Snapshot)
    carol = await connect("carol", to=server)
    await carol.send(m.Join(code=code, role="spectator"))
    await carol.expect(m.Snapshot)
    for i, point in enumerate(moves):
        await (alice if i % 2 == 0 else bob).move(room, point)
        await carol.until_event(Moved)

    await bob.ws.close()
    await asyncio.sleep(first_stays_ms / 1000)
    await alice.ws.close()
    over = await carol.until_event(GameOver)
    assert (over.winner, over.reason) == (winner, "abandon")
    assert (over.ratings is not None) == counted
    standing = await server.store.rating(Rule.FREESTYLE, alice.player)
    assert standing.games == (1 if counted else 0)
    assert await server.store.get_record(room) is not None

    await _until_gone(server, room, code)
    assert await server.store.get_record(room) is not None  # the archive stays
    assert await server.store.player_games(bob.player) == [room]


@pytest.mark.parametrize("store_kind", ["memory", "redis"])
async def test_a_room_nobody_joins_closes(
    store_kind: str, make_server: MakeServer, connect: Connect, request: pytest.FixtureRequest
) -> None:
    """A public room waits its time to live for an opponent, then its creator's seat is
    given up (player_left), it leaves the lobby and nothing of it is left in the store."""
    server = await _server(store_kind, make_server, request)
    alice = await connect("alice", to=server)
    room = (await alice.create(seat="black")).room.id
    watcher = await connect("watcher", to=server)
    await watcher.send(m.LobbyWatch(on=True))
    listed = await watcher.expect(m.Lobby)
    assert [r.id for r in listed.rooms] == [room]
    left = await alice.event(PlayerLeft, room)
    assert left.player == alice.player
    assert (await watcher.expect(m.LobbyGone)).room == room
    # Her seat given up, she stayed on as its one spectator: told when the room is gone.
    gone = await alice.until(lambda x: not (isinstance(x, m.Event) and x.room == room))
    assert gone == m.Left(room=room, closed=True)
    await _until_gone(server, room, None)
    await alice.send(m.Join(room=room, id=5))
    await alice.expect_error("no_such_room")


@pytest.mark.parametrize("store_kind", ["memory", "redis"])
async def test_everyone_in_a_finished_room_is_told_when_it_closes(
    store_kind: str, make_server: MakeServer, connect: Connect, request: pytest.FixtureRequest
) -> None:
    """When a finished game's room reaches the end of its time to live, its players and
    its spectator each get ``left`` (``closed``) unasked, rather than learning it from the
    next chat line's ``no_such_room``; their connections go on."""
    server = await _server(store_kind, make_server, request)
    alice, bob, room = await seated_pair(connect, to=server)
    carol = await connect("carol", to=server)
    await carol.send(m.Join(room=room, role="spectator"))
    await carol.expect(m.Snapshot)
    await alice.send(m.Resign(room=room))
    for person in (alice, bob, carol):
        await person.until_event(GameOver)
    for person in (alice, bob, carol):
        told = await person.until(lambda x: not isinstance(x, m.Event))
        assert told == m.Left(room=room, closed=True)
    await carol.send(m.Chat(room=room, text="gg", id=9))
    await carol.expect_error("no_such_room")
    assert (await carol.create(seat="black")).room.id != room


@pytest.mark.parametrize("store_kind", ["memory", "redis"])
async def test_a_game_in_play_outlives_the_lifetimes(
    store_kind: str, make_server: MakeServer, connect: Connect, request: pytest.FixtureRequest
) -> None:
    """A game that started and goes on slowly is not closed with the waiting rooms, and a
    resume token in use keeps working while one left unused stops."""
    server = await _server(store_kind, make_server, request)
    alice, bob, room = await seated_pair(connect, to=server)
    idle = await connect("idle", to=server)
    for point in ("h8", "a1", "h9", "a2"):  # the game outlasts the rooms' lifetimes
        await asyncio.sleep(SESSION_TTL_MS / 4000)
        await (alice if point.startswith("h") else bob).move(room, point)
        assert (await alice.until_event(Moved)).point == point
        again = await connect(to=server)
        assert (await again.hello("alice", token=alice.token)).resumed  # used: lives on
    await asyncio.sleep(SESSION_TTL_MS / 4000)  # idle's token: unused for longer than its life
    late = await connect(to=server)
    await late.send(m.Hello(name="idle", token=idle.token))
    await late.expect_error("bad_token")
