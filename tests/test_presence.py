"""Presence follows the live connections: a seated player is online in a room exactly while
at least one of their connections is attached to it, on any server instance.

`resume`, `join` and a move attach a connection; `leave` and a closed socket detach only
that one. Every pair of those, done by one connection, by two connections of the player,
and by two connections on two `gomoku-server` processes sharing one Redis, must give
`presence` events on the transitions, once each, and nothing else; and a claim must
follow the same truth.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

import pytest
from redis_fixtures import RedisServer
from server_fixtures import Connect, TestClient, make_config
from test_server_processes import ServerProcess, running
from websockets.asyncio.client import connect as ws_connect

from protocol import messages as m
from protocol.events import (
    Answered,
    ChatPosted,
    GameOver,
    GameStarted,
    Moved,
    Offered,
    PlayerJoined,
    Presence,
)
from server.app import GomokuServer
from server.config import ConnectionLimits, ServerConfig
from server.game import GameRules
from server.room import decode_room
from server.store import Store
from server.store.redis import RedisStore

MakeServer = Callable[..., Awaitable[GomokuServer]]
OPS = ("leave", "close", "resume", "join", "move")
LAYOUTS = ("one connection", "two connections", "two processes")
BOB_MOVES = [f"{column}1" for column in "abcdefg"]
ALICE_MOVES = [f"{column}15" for column in "abcdefg"]


def _config(**game: int) -> ServerConfig:
    """Test timings, with chat unthrottled (Alice's marks are chat lines)."""
    limits = ConnectionLimits(ping_interval_s=None, ping_timeout_s=None, chat_per_window=10_000)
    return make_config(limits=limits, game=GameRules(**{"offline_after_ms": 0, **game}))


# One xdist process runs this module (scripts/test, --dist loadgroup): its two server
# processes start once.
pytestmark = pytest.mark.xdist_group("presence")


@pytest.fixture(scope="module")
def two_processes(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[ServerProcess]]:
    """Two gomoku-server processes on the session's Redis, shared by this module's tests
    (each plays in rooms of its own). Alice chats at most three lines a test, inside the
    default chat limit."""
    if not redis_server.running:
        redis_server.start()
    logs = tmp_path_factory.mktemp("presence")
    with running(
        ServerProcess(redis_server.url, logs / "a.log", extra=["--offline-after", "0"]),
        ServerProcess(
            redis_server.url, logs / "b.log", via_env=True, extra=["--offline-after", "0"]
        ),
    ) as started:
        yield started


@dataclasses.dataclass
class Table:
    """Alice (Black, watching for presence events) and Bob (White) with his connections."""

    urls: list[str]
    """Where Bob's connection of each slot goes (Alice uses the first)."""
    store: Store
    """The store the servers share, to see when they are done with a closed socket."""
    opened: list[TestClient]
    room: str
    alice: TestClient
    bob: list[TestClient | None]
    """Bob's connections by slot; None while the slot's connection is closed."""
    attached: list[bool]
    player: str = ""
    token: str = ""
    marks: itertools.count[int] = dataclasses.field(default_factory=itertools.count)
    requests: itertools.count[int] = dataclasses.field(default_factory=lambda: itertools.count(100))
    bob_moves: list[str] = dataclasses.field(default_factory=lambda: list(BOB_MOVES))
    alice_moves: list[str] = dataclasses.field(default_factory=lambda: list(ALICE_MOVES))

    @property
    def online(self) -> bool:
        return any(self.attached)

    async def reopen(self, slot: int) -> TestClient:
        """Bob's connection in ``slot``, opened again (a new socket, hello with his token)."""
        client = self.bob[slot]
        if client is None:
            client = await _open(self.opened, self.urls[slot % len(self.urls)])
            await client.hello("bob", token=self.token)
            self.bob[slot] = client
        return client

    async def settled(self, client: TestClient) -> None:
        """Every message Bob sent on ``client`` has been handled (replies are in order)."""
        ask = next(self.requests)
        await client.send(m.GetProfile(id=ask))
        await client.until(lambda x: isinstance(x, m.Profile) and x.re == ask)

    async def apply(self, op: str, slot: int) -> None:
        """Do ``op`` on Bob's connection in ``slot`` and wait until the server is done."""
        if op == "close":
            client = self.bob[slot]
            if client is None:
                return
            await client.ws.close()
            self.bob[slot] = None
            self.attached[slot] = False
            await self.closed()
            return
        client = await self.reopen(slot)
        if op == "leave":
            await client.send(m.Leave(room=self.room))
            self.attached[slot] = False
        elif op == "resume":
            await client.send(m.Resume(room=self.room, after=0))
            self.attached[slot] = True
        elif op == "join":
            await client.send(m.Join(room=self.room))
            self.attached[slot] = True
        else:
            await client.move(self.room, self.bob_moves.pop(0))
            self.attached[slot] = True
        await self.settled(client)
        if op == "move":  # Alice answers (before her mark), so Bob's next move is his turn
            await self.alice.move(self.room, self.alice_moves.pop(0))

    async def closed(self) -> None:
        """Wait until the server has detached a closed connection (and, if it was Bob's
        last one, marked him offline)."""
        for _ in range(500):
            seen = await self.store.attendance(self.room, [self.player])
            if (
                seen.attached(self.player) == sum(self.attached)
                and await self.seat_online() == self.online
            ):
                return
            await asyncio.sleep(0.01)
        raise AssertionError("the server never detached the closed connection")

    async def seat_online(self) -> bool:
        """What the room as stored says of Bob's seat."""
        record = await self.store.load_room(self.room, fresh=True)
        assert record is not None
        seat = decode_room(bytes(record.state)).seats[1]
        assert seat is not None
        return seat.online

    async def presence_since_last_mark(self) -> list[bool]:
        """Bob's presence events Alice received since the last mark (a chat line she sends
        now: it is logged after everything Bob's finished actions logged)."""
        text = f"mark {next(self.marks)}"
        await self.alice.send(m.Chat(room=self.room, text=text))
        seen: list[bool] = []
        while True:
            message = await self.alice.recv()
            if not isinstance(message, m.Event):
                continue
            event = message.event
            if isinstance(event, ChatPosted) and event.text == text:
                return seen
            if isinstance(event, Presence) and event.player == self.player:
                seen.append(event.online)


async def _open(opened: list[TestClient], url: str) -> TestClient:
    client = TestClient(await ws_connect(url, compression=None, max_size=1 << 20))
    opened.append(client)
    return client


@pytest.fixture
async def opened() -> AsyncIterator[list[TestClient]]:
    """Clients a test opens itself; closed at teardown."""
    clients: list[TestClient] = []
    yield clients
    for client in clients:
        await client.ws.close()


@pytest.fixture
async def own_stores() -> AsyncIterator[list[Store]]:
    """Stores a test opens itself (to see what server processes wrote); closed at teardown."""
    stores: list[Store] = []
    yield stores
    for store in stores:
        await store.close()


async def _table(
    layout: str,
    make_server: MakeServer,
    opened: list[TestClient],
    own_stores: list[Store],
    request: pytest.FixtureRequest,
) -> Table:
    if layout == "two processes":
        processes = request.getfixturevalue("two_processes")
        urls = [f"ws://127.0.0.1:{p.port}/" for p in processes]
        store: Store = RedisStore(processes[0].redis_url)
        await store.start()
        own_stores.append(store)
    else:
        server = await make_server(_config())
        urls, store = [f"ws://127.0.0.1:{server.port}/"], server.store
    alice = await _open(opened, urls[0])
    await alice.hello("alice")
    room = (await alice.create(seat="black")).room.id
    slots = 1 if layout == "one connection" else 2
    table = Table(urls, store, opened, room, alice, [None] * slots, [False] * slots)
    first = await _open(opened, urls[0])
    welcome = await first.hello("bob")
    table.player, table.token, table.bob[0] = welcome.player, welcome.token, first
    await first.join(room)
    table.attached[0] = True
    await alice.event(PlayerJoined, room)
    await alice.event(GameStarted, room)
    for slot in range(1, slots):
        await table.apply("join", slot)
    await alice.move(room, table.alice_moves.pop(0))
    assert await table.presence_since_last_mark() == []
    return table


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(("first", "second"), list(itertools.product(OPS, OPS)))
async def test_presence_follows_the_attached_connections(
    layout: str,
    first: str,
    second: str,
    make_server: MakeServer,
    opened: list[TestClient],
    own_stores: list[Store],
    request: pytest.FixtureRequest,
) -> None:
    """Bob does ``first`` then ``second`` (on his one connection; or on his first, then
    his second connection, on one server or on two processes): after each, Alice has seen
    a presence event exactly when Bob went from no attached connection to one or back,
    and the room's seat says what the connections say."""
    table = await _table(layout, make_server, opened, own_stores, request)
    for slot, op in ((0, first), (0 if layout == "one connection" else 1, second)):
        before = table.online
        await table.apply(op, slot)
        expected = [table.online] if table.online != before else []
        assert await table.presence_since_last_mark() == expected, (op, slot, table.attached)
        assert await table.seat_online() == table.online


@pytest.mark.parametrize("layout", ["memory", "two instances"])
async def test_a_claim_needs_the_whole_grace_period_without_a_connection(
    layout: str, make_server: MakeServer, connect: Connect, request: pytest.FixtureRequest
) -> None:
    """Bob leaves; a claim inside the grace period is refused; his move (through another
    instance) brings him back, so a claim once the first grace would have ended is refused
    too; after he leaves again and a whole grace period passes, the claim wins."""
    grace = 1_000  # the first claim must reach the server within it, on a busy machine too
    if layout == "memory":
        servers = [await make_server(_config(grace_ms=grace))]
    else:
        url = _own_database(request.getfixturevalue("redis_url"))
        servers = [
            await make_server(_config(grace_ms=grace), store=RedisStore(url, poll_interval_s=0.2))
            for _ in range(2)
        ]
    alice = await connect("alice", to=servers[0])
    bob = await connect("bob", to=servers[-1])
    room = (await alice.create(seat="black")).room.id
    await bob.join(room)
    await alice.move(room, "h8")
    await bob.send(m.Leave(room=room))
    assert not (await alice.until_event(Presence)).online
    await alice.send(m.Claim(room=room, id=1))
    await alice.until(lambda x: isinstance(x, m.Error) and x.code == "not_claimable")
    await asyncio.sleep(grace / 2000)
    await bob.move(room, "a1")  # a move attaches his connection again
    assert (await alice.until_event(Presence)).online
    await asyncio.sleep(grace / 2000 + 0.05)
    await alice.send(m.Claim(room=room, id=2))
    await alice.until(lambda x: isinstance(x, m.Error) and x.code == "not_claimable")
    await bob.ws.close()
    offline = await alice.until_event(Presence)
    assert not offline.online
    assert offline.deadline_ms is not None
    await asyncio.sleep(grace / 1000 + 0.05)
    await alice.send(m.Claim(room=room, id=3))
    over = await alice.until_event(GameOver)
    assert (over.winner, over.reason) == ("black", "abandon")


@pytest.mark.parametrize("layout", ["memory", "two instances"])
@pytest.mark.parametrize("way", ["leave", "hello alone"])
async def test_an_action_makes_a_connection_follow_the_room_again(
    layout: str, way: str, make_server: MakeServer, connect: Connect, request: pytest.FixtureRequest
) -> None:
    """Bob's connection no longer follows the room (he left it, or came back with hello
    and no resume); his move there brings him the room's snapshot, then his own move's
    event, then Alice's answer, as the opponent sees him present again."""
    servers = await _instances(layout, make_server, request, _config())
    alice, bob, room = await _pair(connect, servers)
    await alice.move(room, "h8")
    await bob.until_event(Moved)
    if way == "leave":
        await bob.send(m.Leave(room=room))
        await bob.until(lambda x: isinstance(x, m.Left))
    else:
        token = bob.token
        await bob.ws.close()
        bob = await connect(to=servers[0])
        await bob.hello("bob", token=token)
    assert not (await alice.until_event(Presence)).online
    await bob.move(room, "a1")
    snapshot = await bob.expect(m.Snapshot)
    assert snapshot.room.id == room
    assert "h8" in snapshot.room.moves
    moved = await bob.event(Moved, room)
    assert moved.point == "a1"
    assert (await alice.until_event(Presence)).online
    assert (await alice.until_event(Moved)).point == "a1"
    await alice.move(room, "b2")
    assert (await bob.until_event(Moved)).point == "b2"


@pytest.mark.parametrize("layout", ["memory", "two instances"])
async def test_an_answer_makes_a_connection_follow_the_room_again(
    layout: str, make_server: MakeServer, connect: Connect, request: pytest.FixtureRequest
) -> None:
    """Bob left the room; his answer to Alice's draw offer attaches him as a move does:
    Alice sees him back, and he gets the snapshot, then the answer's event."""
    servers = await _instances(layout, make_server, request, _config())
    alice, bob, room = await _pair(connect, servers)
    await alice.move(room, "h8")
    await bob.send(m.Leave(room=room))
    await bob.until(lambda x: isinstance(x, m.Left))
    assert not (await alice.until_event(Presence)).online
    await alice.send(m.Offer(room=room, kind="draw"))
    await alice.until_event(Offered)
    await bob.send(m.Answer(room=room, kind="draw", accept=False))
    snapshot = await bob.expect(m.Snapshot)
    assert snapshot.room.pending is not None
    answered = await bob.event(Answered, room)
    assert (answered.kind, answered.accept) == ("draw", False)
    assert (await alice.until_event(Presence)).online
    assert (await alice.until_event(Answered)).by == bob.player


@pytest.mark.parametrize("layout", ["memory", "two instances"])
async def test_a_rematch_accepted_while_its_proposer_is_away_can_be_claimed(
    layout: str, make_server: MakeServer, connect: Connect, request: pytest.FixtureRequest
) -> None:
    """Alice offers a rematch and goes; Bob accepts. Alice, who never came to the new
    room, is gone there once her seat's wait is over, and Bob's claim wins a whole grace
    period later (a claim used to restart her countdown every time it looked)."""
    config = _config(grace_ms=1_000, attach_wait_ms=300)  # the first claim comes in time
    alice, bob, room = await _pair(connect, await _instances(layout, make_server, request, config))
    await alice.send(m.Resign(room=room))
    await bob.until_event(GameOver)
    await alice.send(m.Offer(room=room, kind="rematch"))
    await bob.until_event(Offered)
    await alice.ws.close()
    await bob.send(m.Answer(room=room, kind="rematch", accept=True))
    snapshot = await bob.until(lambda x: isinstance(x, m.Snapshot))
    assert isinstance(snapshot, m.Snapshot)
    new = snapshot.room.id
    gone = await bob.until(
        lambda x: isinstance(x, m.Event) and x.room == new and isinstance(x.event, Presence)
    )
    assert isinstance(gone, m.Event)
    assert gone.event == Presence(player=alice.player, online=False, deadline_ms=1_000)
    await bob.send(m.Claim(room=new, id=1))
    await bob.until(lambda x: isinstance(x, m.Error) and x.code == "not_claimable")
    await asyncio.sleep(1.05)
    await bob.send(m.Claim(room=new, id=2))
    over = await bob.until_event(GameOver)
    assert (over.winner, over.reason) == ("black", "abandon")


async def _instances(
    layout: str, make_server: MakeServer, request: pytest.FixtureRequest, config: ServerConfig
) -> list[GomokuServer]:
    """One server on the memory store (``memory``), or two instances sharing the
    session's Redis (``two instances``)."""
    if layout == "memory":
        return [await make_server(config)]
    url = _own_database(request.getfixturevalue("redis_url"))
    return [await make_server(config, store=RedisStore(url)) for _ in range(2)]


async def _pair(
    connect: Connect, servers: list[GomokuServer]
) -> tuple[TestClient, TestClient, str]:
    """Alice (Black, on the first server) and Bob (White, on the last) in a running game."""
    alice = await connect("alice", to=servers[0])
    bob = await connect("bob", to=servers[-1])
    room = (await alice.create(seat="black")).room.id
    await bob.join(room)
    return alice, bob, room


def _own_database(url: str) -> str:
    """``url`` with database 1: the module's two server processes (``two_processes``,
    database 0, default timings) would otherwise tick this test's rooms with their own
    grace period."""
    return url.rsplit("/", 1)[0] + "/1"
