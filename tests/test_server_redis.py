"""Servers on the Redis store, over real WebSockets: two instances sharing one Redis
play one game, and a Redis restart mid-game does not end it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from redis_fixtures import RedisServer
from server_fixtures import (
    Connect,
    TestClient,
    healthz,
    make_config,
    seated_pair,
    wait_healthy,
)

from protocol import messages as m
from protocol.events import ChatPosted, GameOver, GameStarted, Moved, PlayerJoined
from server.app import GomokuServer
from server.config import ConnectionLimits
from server.store.redis import RedisStore

MakeServer = Callable[..., Awaitable[GomokuServer]]


async def _redis_server(make_server: MakeServer, url: str) -> GomokuServer:
    return await make_server(store=RedisStore(url, poll_interval_s=0.2))


async def _moved(client: TestClient, room: str) -> tuple[int, str]:
    message = await client.until(lambda x: isinstance(x, m.Event) and isinstance(x.event, Moved))
    assert isinstance(message, m.Event)
    assert message.room == room
    assert isinstance(message.event, Moved)
    return message.seq, message.event.point


async def test_two_instances_play_one_game_with_spectators_on_both(
    make_server: MakeServer, connect: Connect, redis_url: str
) -> None:
    """Alice on instance A and Bob on instance B play a whole game; a spectator on each
    instance sees every move, with the same sequence numbers, in order."""
    a = await _redis_server(make_server, redis_url)
    b = await _redis_server(make_server, redis_url)
    alice = await connect("alice", to=a)
    bob = await connect("bob", to=b)
    snap = await alice.create(seat="black")
    room = snap.room.id
    await bob.join(room)
    await alice.event(PlayerJoined, room)
    await alice.event(GameStarted, room)
    watchers = [await connect("carol", to=a), await connect("dave", to=b)]
    for watcher in watchers:
        await watcher.join(room, "spectator")
    moves = ["h8", "a1", "h9", "a2", "h10", "a3", "h11", "a4", "h12"]
    seen: dict[str, list[tuple[int, str]]] = {c.player: [] for c in [alice, bob, *watchers]}
    for i, point in enumerate(moves):
        await (alice if i % 2 == 0 else bob).move(room, point)
        for client in [alice, bob, *watchers]:
            seen[client.player].append(await _moved(client, room))
    for client in [alice, bob, *watchers]:
        over = await client.until_event(GameOver)
        assert (over.winner, over.reason) == ("black", "five")
    sequences = list(seen.values())
    assert all(s == sequences[0] for s in sequences)
    assert [point for _, point in sequences[0]] == moves
    seqs = [seq for seq, _ in sequences[0]]
    assert seqs == sorted(seqs)


async def test_a_late_spectator_reads_the_last_chat_lines_the_log_let_go(
    make_server: MakeServer, connect: Connect, redis_url: str
) -> None:
    """On Redis, a spectator who joins reads the room's last 30 chat lines, oldest first
    with their events' seqs, though the room's log no longer holds them; a line refused
    (over the chat limit) is not among them."""
    limits = ConnectionLimits(
        ping_interval_s=None,
        ping_timeout_s=None,
        rate_per_s=1000,
        rate_burst=1000,
        chat_per_window=36,
    )
    store = RedisStore(redis_url, poll_interval_s=0.2, max_events=10)
    server = await make_server(make_config(limits=limits), store=store)
    alice, bob, room = await seated_pair(connect, to=server)
    for n in range(36):
        await alice.send(m.Chat(room=room, text=f"line {n}"))
    said = []
    for _ in range(36):
        message = await bob.until(
            lambda x: isinstance(x, m.Event) and isinstance(x.event, ChatPosted)
        )
        assert isinstance(message, m.Event)
        assert isinstance(message.event, ChatPosted)
        said.append((message.seq, message.event.text))
    await alice.send(m.Chat(room=room, text="one too many"))
    refused = await alice.until(lambda x: isinstance(x, m.Error))
    assert isinstance(refused, m.Error)
    assert refused.code == "chat_rate_limited"
    for i, point in enumerate(["h8", "a1", "h9", "a2", "h10", "a3", "j8", "b1", "k8", "c1"]):
        await (alice if i % 2 == 0 else bob).move(room, point)
        await bob.until_event(Moved)
    assert await store.read_events(room, 0) is None  # the log kept only the moves
    carol = await connect("carol", to=server)
    snap = await carol.join(room, "spectator")
    assert [(line.seq, line.text) for line in snap.room.chat] == said[-30:]
    assert {line.player for line in snap.room.chat} == {alice.player}


async def test_game_survives_a_redis_restart(
    make_server: MakeServer, connect: Connect, persistent_redis: RedisServer
) -> None:
    """redis-server is killed mid-game: /healthz turns 503; once Redis is back (from its
    append-only file) /healthz is 200 again and the game goes on to its end."""
    server = await _redis_server(make_server, persistent_redis.url)
    alice = await connect("alice", to=server)
    bob = await connect("bob", to=server)
    snap = await alice.create(seat="black")
    room = snap.room.id
    await bob.join(room)
    await alice.event(PlayerJoined, room)
    await alice.event(GameStarted, room)
    for i, point in enumerate(["h8", "a1", "h9", "a2"]):
        await (alice if i % 2 == 0 else bob).move(room, point)
        for client in (alice, bob):
            assert (await _moved(client, room))[1] == point

    persistent_redis.stop(kill=True)
    assert await asyncio.to_thread(healthz, server.port) == 503
    await alice.move(room, "h10")  # refused with an error frame, not left hanging
    error = await alice.expect(m.Error, wait_s=20)
    assert error.room == room
    persistent_redis.start()
    await wait_healthy(server.port)  # once pub/sub reconnected too (backoff <= 1 s)

    for i, point in enumerate(["h10", "a3", "h11", "a4", "h12"]):
        await (alice if i % 2 == 0 else bob).move(room, point)
        for client in (alice, bob):
            assert (await _moved(client, room))[1] == point
    for client in (alice, bob):
        over = await client.until_event(GameOver)
        assert (over.winner, over.reason) == ("black", "five")
