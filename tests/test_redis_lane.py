"""The Redis store's hot path (a room's commit and load) on its own pipelined
connection (server/store/redis/lane.py): what it must survive without losing or
doubling a move, against a real redis-server."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from redis.asyncio import Redis
from redis_fixtures import RedisServer

from server.store import StoreUnavailable
from server.store.redis import RedisStore
from server.store.redis.lane import LANE_NAME, lane_for
from server.store.redis.push import BUS_NAME

ROOMS = 20
MOVES = 30


async def play(store: RedisStore, room: str) -> None:
    """MOVES commits in turn on one room, each expecting the version the last one made."""
    version = (await store.commit(room, 0, b"s0")).version
    for i in range(MOVES):
        version = (await store.commit(room, version, b"s", [b"move %d" % i])).version


async def kill_lane(admin: Redis, *, pause_s: float, times: int = 3) -> int:
    """Kill the lane's connection (from Redis's side) ``times`` times, ``pause_s`` apart;
    how many connections were killed."""
    killed = 0
    for _ in range(times):
        await asyncio.sleep(pause_s)
        for client in await admin.client_list():
            if client["name"] == LANE_NAME:
                killed += await admin.client_kill_filter(_id=client["id"])
    return killed


async def test_a_dropped_lane_connection_loses_and_doubles_no_commit(redis_url: str) -> None:
    """The lane's connection is killed (by Redis) while rooms are being played: every
    commit under way is sent again on a new connection, none is lost, none applied twice
    (its token), and no writer sees a conflict it did not cause."""
    store = RedisStore(redis_url)
    await store.start()
    admin = Redis.from_url(redis_url)
    try:
        games = asyncio.gather(*(play(store, f"room{i}") for i in range(ROOMS)))
        killed = await kill_lane(admin, pause_s=0.01)
        await games
        assert killed >= 1
        for i in range(ROOMS):
            events = await store.read_events(f"room{i}", 0)
            assert events is not None
            assert [e.data for e in events] == [b"move %d" % n for n in range(MOVES)]
            record = await store.load_room(f"room{i}", fresh=True)
            assert record is not None
            assert record.version == MOVES + 1
    finally:
        await admin.aclose()
        await store.close()


async def test_a_dropped_lane_connection_changes_no_detach_answer(redis_url: str) -> None:
    """Connections detach from their rooms while the lane's connection is killed: a
    detach written twice answers as it did the first time (its token), so every
    player's last connection still reports them gone (0), none reports "not attached"."""
    store = RedisStore(redis_url)
    await store.start()
    admin = Redis.from_url(redis_url)
    try:
        for i in range(ROOMS):
            await store.commit(f"room{i}", 0, b"s0")
            for c in range(MOVES):
                await store.attach(f"room{i}", f"p{c % 3}", f"i1/{i}-{c}")

        async def leave(i: int) -> list[int | None]:
            return [await store.detach(f"room{i}", f"i1/{i}-{c}", 1) for c in range(MOVES)]

        rooms = asyncio.gather(*(leave(i) for i in range(ROOMS)))
        killed = await kill_lane(admin, pause_s=0.005)
        answers = await rooms
        assert killed >= 1
        for i in range(ROOMS):
            # player c % 3 has connections c, c+3, ...: MOVES // 3 of them
            assert answers[i] == [(MOVES - 1 - c) // 3 for c in range(MOVES)]
            assert await store.detach(f"room{i}", f"i1/{i}-0", 2) is None  # a new call
            assert (await store.attendance(f"room{i}", ["p0"])).players == 0
        assert await admin.smembers(store.keys.instance_rooms("i1")) == set()
    finally:
        await admin.aclose()
        await store.close()


async def test_a_detach_run_twice_answers_as_the_first_run(redis_url: str) -> None:
    """The detach script run again with its call's token (as the lane writes a call again)
    answers what the first run did; a new call finds the connection gone."""
    store = RedisStore(redis_url)
    await store.start()
    try:
        await store.commit("room", 0, b"s0")
        await store.attach("room", "p1", "i1/1")
        keys = [store.keys.room_conns("room"), store.keys.room_people("room")]
        first = await store.scripts.detach(keys, ["i1/1", 5, "t1"])
        assert first == [0, 0]
        assert await store.scripts.detach(keys, ["i1/1", 5, "t1"]) == first
        assert await store.scripts.detach(keys, ["i1/1", 5, "t2"]) == [-1, -1]
    finally:
        await store.close()


async def test_a_redis_that_lost_its_scripts_still_commits(redis_url: str) -> None:
    """After SCRIPT FLUSH (as after a Redis restart without persistence of the script
    cache) the commit script is loaded again and the move goes in once."""
    store = RedisStore(redis_url)
    await store.start()
    admin = Redis.from_url(redis_url)
    try:
        await store.commit("room", 0, b"s0")
        await admin.script_flush()
        result = await store.commit("room", 1, b"s1", [b"h8"])
        assert (result.version, result.first_seq, result.last_seq) == (2, 1, 1)
        assert [e.data for e in await store.read_events("room", 0) or []] == [b"h8"]
    finally:
        await admin.aclose()
        await store.close()


async def test_a_commit_whose_caller_was_cancelled_lands_before_close(redis_url: str) -> None:
    """A caller cancelled after its commit was sent (its player's socket closed) does not
    cut the commit short, and closing the store waits for the replies still due."""
    store = RedisStore(redis_url)
    await store.start()
    calls = [asyncio.create_task(store.commit(f"r{i}", 0, b"s", [b"e"])) for i in range(50)]
    await asyncio.sleep(0)  # every commit has been written to the lane
    for call in calls:
        call.cancel()
    await store.close()
    assert all(call.cancelled() for call in calls)
    with pytest.raises(StoreUnavailable):
        await store.load_room("r0")
    reader = RedisStore(redis_url)
    await reader.start()
    try:
        for i in range(50):
            record = await reader.load_room(f"r{i}")
            assert record is not None
            assert record.version == 1
    finally:
        await reader.close()


async def test_a_stopped_redis_is_unavailable_then_used_again(
    persistent_redis: RedisServer,
) -> None:
    """Redis gone: a commit fails with StoreUnavailable (the server's ``unavailable``),
    not a hang; Redis back: the lane connects again by itself."""
    store = RedisStore(persistent_redis.url)
    await store.start()
    try:
        await store.commit("room", 0, b"s0")
        persistent_redis.stop(kill=True)
        with pytest.raises(StoreUnavailable):
            await store.commit("room", 1, b"s1", [b"h8"])
        persistent_redis.start()
        record = await store.load_room("room", fresh=True)
        assert record is not None
        await store.commit("room", record.version, b"s1", [b"h8"])
    finally:
        await store.close()


async def test_a_redis_that_never_answers_is_unavailable_within_the_timeout() -> None:
    """A server that takes the connection and never replies (a hung Redis, a lost
    network): the call is given up after its retries, each ended by the timeout."""
    accepted: list[asyncio.StreamWriter] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(writer)

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    lane = lane_for(f"redis://127.0.0.1:{port}/0", timeout_s=0.2)
    assert lane is not None
    try:
        with pytest.raises(StoreUnavailable):
            await lane.call(("PING",))
        assert len(accepted) >= 2  # it tried again on new connections
    finally:
        await lane.close()
        for writer in accepted:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()
        server.close()
        await server.wait_closed()


def test_a_tls_url_keeps_the_hot_path_on_redis_py() -> None:
    """The lane speaks plain TCP (or a Unix socket) only: a ``rediss://`` store has none."""
    assert lane_for("rediss://127.0.0.1:6380/0") is None
    assert lane_for("redis://127.0.0.1:6379/0") is not None
    assert lane_for("unix:///tmp/redis.sock") is not None


async def test_a_dropped_bus_connection_is_made_again_and_misses_no_event(redis_url: str) -> None:
    """The pub/sub connection (server/store/redis/push.py) is killed by Redis: the bus
    connects again, subscribes again, and a room followed on one instance still gets
    every event another instance commits, before and after."""
    first, second = RedisStore(redis_url), RedisStore(redis_url)
    await first.start()
    await second.start()
    admin = Redis.from_url(redis_url)
    try:
        version = (await first.commit("room", 0, b"s0")).version
        async with second.subscribe_room("room", 0) as events:
            version = (await first.commit("room", version, b"s", [b"one"])).version
            assert (await anext(events)).data == b"one"
            killed = 0
            for client in await admin.client_list():
                if client["name"] == BUS_NAME:
                    killed += await admin.client_kill_filter(_id=client["id"])
            assert killed == 2  # each instance's bus
            for _ in range(500):  # until both buses are connected again
                names = [client["name"] for client in await admin.client_list()]
                if names.count(BUS_NAME) == 2:
                    break
                await asyncio.sleep(0.01)
            assert await second.healthy()
            for word in (b"two", b"three"):
                version = (await first.commit("room", version, b"s", [word])).version
            async with asyncio.timeout(5):  # the bell, not the 5 s poll, wakes the reader
                assert [(await anext(events)).data for _ in range(2)] == [b"two", b"three"]
    finally:
        await admin.aclose()
        await first.close()
        await second.close()


async def test_the_lane_and_the_bus_use_the_urls_password_and_database(
    persistent_redis: RedisServer,
) -> None:
    """A Redis with a password, and a database other than 0: the lane and the pub/sub
    connection authenticate and select it as redis-py does (the keys land in that
    database), and a wrong password is refused, not ignored."""
    admin = Redis.from_url(persistent_redis.url)
    await admin.config_set("requirepass", "s3cret")
    await admin.aclose()
    base = f"redis://:s3cret@127.0.0.1:{persistent_redis.port}"
    store = RedisStore(f"{base}/3")
    await store.start()
    try:
        await store.commit("room", 0, b"s0", [b"h8"])
        async with store.subscribe_room("room", 0) as events:
            assert (await anext(events)).data == b"h8"
            await store.commit("room", 1, b"s1", [b"i9"])
            assert (await anext(events)).data == b"i9"
        checker = Redis.from_url(f"{base}/3")
        try:
            assert await checker.exists(store.keys.room_state("room")) == 1
        finally:
            await checker.aclose()
    finally:
        await store.close()
    # No password given: said so, not "unreachable" in Redis's words about HELLO.
    unasked = RedisStore(f"redis://127.0.0.1:{persistent_redis.port}/0")
    with pytest.raises(StoreUnavailable, match=r"^redis asks for a password: give it in the URL"):
        await unasked.start()
    await unasked.close()
    lane = lane_for(f"redis://127.0.0.1:{persistent_redis.port}/0", timeout_s=0.2)
    assert lane is not None
    try:
        with pytest.raises(StoreUnavailable, match=r"^redis asks for a password"):
            await lane.call(("PING",))
    finally:
        await lane.close()
    lane = lane_for(f"redis://:wrong@127.0.0.1:{persistent_redis.port}/0", timeout_s=0.2)
    assert lane is not None
    try:  # a wrong password: not "unreachable" either
        with pytest.raises(StoreUnavailable, match=r"^redis refused the password in the URL"):
            await lane.call(("PING",))
    finally:
        await lane.close()
    wrong = RedisStore(f"redis://:wrong@127.0.0.1:{persistent_redis.port}/0")
    with pytest.raises(StoreUnavailable, match=r"^redis refused the password in the URL"):
        await wrong.start()
    await wrong.close()
