"""What only the Redis store has to prove: several server instances (separate clients)
sharing one Redis, a Redis restart, and a key layout that Redis Cluster can shard."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis
from redis.crc import key_slot
from redis_fixtures import RedisServer

from server.store import Conflict, QueueEntry, RoomRecord, StoredEvent, StoreUnavailable
from server.store.redis import RedisStore


@pytest.fixture
async def two_instances(redis_url: str) -> AsyncIterator[tuple[RedisStore, RedisStore]]:
    """Two stores on one Redis, each with its own connections, like two server processes."""
    first, second = RedisStore(redis_url, poll_interval_s=0.5), RedisStore(redis_url)
    await first.start()
    await second.start()
    try:
        yield first, second
    finally:
        await first.close()
        await second.close()


@pytest.fixture
async def bells(redis_url: str) -> AsyncIterator[tuple[RedisStore, RedisStore, Redis]]:
    """A committing instance, a following one whose polls are a minute apart (what it
    gets soon came from a bell), and a client reading Redis's command counts."""
    a, b = RedisStore(redis_url), RedisStore(redis_url, poll_interval_s=60)
    await a.start()
    await b.start()
    stats = Redis.from_url(redis_url)
    try:
        yield a, b, stats
    finally:
        await stats.aclose()
        await a.close()
        await b.close()


async def test_two_writers_exactly_one_wins_each_race(
    two_instances: tuple[RedisStore, RedisStore],
) -> None:
    """Two instances race 40 times on the same version: each race has one winner, no lost move."""
    a, b = two_instances
    await a.commit("room", 0, b"start")

    async def attempt(store: RedisStore, version: int, who: bytes) -> bytes | None:
        try:
            await store.commit("room", version, who, [who + b"%d" % version])
        except Conflict:
            return None
        return who

    winners = []
    for version in range(1, 41):
        outcome = await asyncio.gather(attempt(a, version, b"A"), attempt(b, version, b"B"))
        assert sorted(w is None for w in outcome) == [False, True]
        winners.append(next(w for w in outcome if w is not None))
    record = await b.load_room("room")
    assert record is not None
    assert (record.version, record.seq, record.state) == (41, 40, winners[-1])
    events = await a.read_events("room", 0)
    assert events == [StoredEvent(v, w + b"%d" % v) for v, w in enumerate(winners, start=1)]


async def test_events_committed_on_one_instance_reach_the_other(
    two_instances: tuple[RedisStore, RedisStore],
) -> None:
    """A watcher on instance A sees every move committed through instance B, in order."""
    a, b = two_instances
    await b.commit("room", 0, b"s", [b"created"])
    async with a.subscribe_room("room", 0) as events:
        assert await anext(events) == StoredEvent(1, b"created")
        for version in range(1, 21):
            await b.commit("room", version, b"s", [b"move %d" % version])
        async with asyncio.timeout(10):
            got = [await anext(events) for _ in range(20)]
    assert got == [StoredEvent(n + 1, b"move %d" % n) for n in range(1, 21)]


async def test_lobby_and_player_messages_cross_instances(
    two_instances: tuple[RedisStore, RedisStore],
) -> None:
    """Lobby changes and messages to a player published on B reach subscribers on A."""
    a, b = two_instances
    async with a.subscribe_lobby() as changes, a.subscribe_players() as inbox:
        await inbox.add("p1")
        await b.lobby_put("r1", b"summary")
        await b.publish_player("p1", b"matched")
        async with asyncio.timeout(10):
            change = await anext(changes)
            message = await anext(aiter(inbox))
    assert (change.room_id, change.summary) == ("r1", b"summary")
    assert (message.player_id, message.data) == ("p1", b"matched")


async def test_each_due_clock_is_claimed_by_one_instance(
    two_instances: tuple[RedisStore, RedisStore],
) -> None:
    """Instances racing to flag due clocks split them: every room claimed once, none twice."""
    a, b = two_instances
    rooms = [f"r{i}" for i in range(30)]
    for i, room in enumerate(rooms):
        await a.commit(room, 0, b"s", deadline_ms=1_000 + i)
    claims = await asyncio.gather(
        a.claim_due(5_000, lease_ms=10_000), b.claim_due(5_000, lease_ms=10_000)
    )
    claimed = claims[0] + claims[1]
    assert sorted(claimed) == sorted(rooms)
    assert len(set(claimed)) == len(claimed)


async def test_a_later_deadline_is_not_flagged_early(redis_url: str) -> None:
    """When a move pushes the deadline later, the earlier one is not reported as due."""
    store = RedisStore(redis_url)
    await store.start()
    try:
        await store.commit("room", 0, b"s", deadline_ms=1_000)
        await store.commit("room", 1, b"s", deadline_ms=5_000)
        assert await store.claim_due(2_000, lease_ms=500) == []
        assert await store.claim_due(4_999, lease_ms=500) == []
        assert await store.claim_due(5_000, lease_ms=500) == ["room"]
    finally:
        await store.close()


async def test_the_clock_index_lets_go_of_rooms_without_a_deadline(redis_url: str) -> None:
    """Rooms whose deadline was cleared (a waiting room that started an untimed game) leave
    the clock index after two looks, instead of being looked at every lease for as long
    as the room is kept; a room that still has one stays."""
    store = RedisStore(redis_url)
    await store.start()
    try:
        for i in range(50):
            await store.commit(f"r{i}", 0, b"waiting", deadline_ms=1_000)
            await store.commit(f"r{i}", 1, b"playing", deadline_ms=None)
        await store.commit("timed", 0, b"s", deadline_ms=1_000)
        await store.commit("timed", 1, b"s", deadline_ms=60_000)
        index = store.keys.deadlines
        assert await store.redis.zcard(index) == 51
        for now in range(1_000, 4_000, 500):  # a look at each lease's end
            assert await store.claim_due(now, lease_ms=500) == []
        assert await store.redis.zrange(index, 0, -1) == [b"timed"]
        assert await store.claim_due(60_000, lease_ms=500) == ["timed"]
    finally:
        await store.close()


async def test_a_deadline_set_while_the_index_lets_go_is_still_flagged(redis_url: str) -> None:
    """A commit that gives a room a clock just as the ticker lets go of its index entry
    (having seen no deadline a moment before) still has that clock flagged on time."""
    store = RedisStore(redis_url)
    await store.start()
    try:
        await store.commit("room", 0, b"waiting", deadline_ms=1_000)
        await store.commit("room", 1, b"playing", deadline_ms=None)
        # The ticker has seen the entry (1_000) and a room without a deadline. Before it
        # acts on that, a commit gives the room a clock: its filing in the index changes
        # nothing (only ever earlier, and the entry is earlier), the room then holds it.
        await store.commit("room", 2, b"timed", deadline_ms=2_000)
        keys = [store.keys.deadlines, store.keys.parked]
        await store.scripts.claim(keys, ["room", 1_000, "park", 1_500])  # what it saw
        for now in range(1_500, 4_000, 250):
            if await store.claim_due(now, lease_ms=500):
                break
        assert now == 2_000
    finally:
        await store.close()


async def test_clock_of_a_dead_instance_is_flagged_by_another(redis_url: str) -> None:
    """A deadline set through an instance that then went away is claimed by a survivor."""
    dying = RedisStore(redis_url)
    await dying.start()
    await dying.commit("room", 0, b"s", deadline_ms=1_000)
    await dying.claim_due(1_000, lease_ms=200)  # claimed, then the instance dies
    await dying.close()
    survivor = RedisStore(redis_url)
    await survivor.start()
    try:
        assert await survivor.claim_due(1_100, lease_ms=200) == []  # lease still held
        assert await survivor.claim_due(1_200, lease_ms=200) == ["room"]
    finally:
        await survivor.close()


async def test_room_keys_share_one_cluster_slot(redis_url: str) -> None:
    """Every key a room writes hashes to one Redis Cluster slot, so the commit script is
    valid on a cluster; different rooms spread over different slots."""
    store = RedisStore(redis_url)
    await store.start()
    client = Redis.from_url(redis_url)
    try:
        for room in ("alpha", "beta"):
            await store.commit(room, 0, b"s", [b"e"], deadline_ms=10_000)
            await store.append(room, [b"chat"], keep_chat=30)
            await store.expire_room(room, 60_000)
        slots = {}
        for room in ("alpha", "beta"):
            keys = [k async for k in client.scan_iter(match=f"*{room}*")]
            assert len(keys) == 3  # state, events and the last chat lines
            room_slots = {key_slot(k) for k in keys}
            assert len(room_slots) == 1
            slots[room] = room_slots.pop()
        assert slots["alpha"] != slots["beta"]
    finally:
        await client.aclose()
        await store.close()


async def test_finished_room_expires_from_redis(redis_url: str) -> None:
    """expire_room puts a TTL on the room's state and log, and later commits keep it."""
    store = RedisStore(redis_url)
    await store.start()
    client = Redis.from_url(redis_url)
    try:
        await store.commit("room", 0, b"s")  # no events yet: no stream key
        await store.expire_room("room", 60_000)
        await store.commit("room", 1, b"over", [b"game_over"])
        state_ttl = await client.pttl(store.keys.room_state("room"))
        events_ttl = await client.pttl(store.keys.room_events("room"))
        assert 0 < state_ttl <= 60_000
        assert 0 < events_ttl <= 60_000
    finally:
        await client.aclose()
        await store.close()


async def test_who_follows_a_room_expires_with_it(redis_url: str) -> None:
    """The set of instances following a room takes the room's expiry, whether they began
    to follow before the room's game ended or after."""
    early, late = RedisStore(redis_url), RedisStore(redis_url)
    await early.start()
    await late.start()
    client = Redis.from_url(redis_url)
    followers = early.keys.room_followers("room")
    try:
        await early.commit("room", 0, b"s", [b"e1"])
        async with early.subscribe_room("room", 0):
            assert await client.smembers(followers) == {early.feeds.follower.encode()}
            await early.expire_room("room", 60_000)
            async with late.subscribe_room("room", 0):
                assert len(await client.smembers(followers)) == 2
                assert 0 < await client.pttl(followers) <= 60_000
        assert await client.smembers(followers) == set()  # both stopped following
    finally:
        await client.aclose()
        await early.close()
        await late.close()


async def test_a_new_room_starts_without_what_an_expired_one_left(redis_url: str) -> None:
    """A room's keys expire one by one: if an expired room's log or chat lines outlived its
    state, a room created by the same id starts without them."""
    store = RedisStore(redis_url)
    await store.start()
    client = Redis.from_url(redis_url)
    try:
        await client.xadd(store.keys.room_events("room"), {"d": b"old event"}, id="7-0")
        await client.rpush(store.keys.room_chat("room"), b"7:old line")
        await store.commit("room", 0, b"s", [b"e"])
        assert await store.read_events("room", 0) == [StoredEvent(1, b"e")]
        assert await store.recent_chat("room") == []
    finally:
        await client.aclose()
        await store.close()


async def test_restart_with_persistence_keeps_games_and_reconnects(
    persistent_redis: RedisServer,
) -> None:
    """redis-server killed and restarted: the game is still there, the same store writes
    again without being rebuilt, and its watcher receives the next move."""
    store = RedisStore(persistent_redis.url, poll_interval_s=0.2)
    await store.start()
    try:
        await store.commit("room", 0, b"s1", [b"e1"], deadline_ms=9_000)
        await store.put_session("token-hash", b"alice")
        async with store.subscribe_room("room", 0) as events:
            assert await anext(events) == StoredEvent(1, b"e1")
            persistent_redis.stop(kill=True)
            assert not await store.healthy()
            persistent_redis.start()
            record = await store.load_room("room")
            assert record is not None
            assert (record.version, record.seq, record.state) == (1, 1, b"s1")
            assert await store.get_session("token-hash") == b"alice"
            await store.commit("room", 1, b"s2", [b"e2"])
            async with asyncio.timeout(10):
                assert await anext(events) == StoredEvent(2, b"e2")
        for _ in range(200):  # healthy once pub/sub reconnected too (backoff <= 1 s)
            if await store.healthy():
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the store stayed unhealthy after redis came back")
        assert await store.claim_due(9_000, lease_ms=100) == ["room"]
    finally:
        await store.close()


async def test_a_remembered_room_says_so_and_a_fresh_read_goes_to_redis(
    two_instances: tuple[RedisStore, RedisStore],
) -> None:
    """An instance following a room answers loads from memory, marked as such, also after
    another instance's commit (its bell carries the new state); ``fresh`` reads Redis."""
    a, b = two_instances
    await a.commit("room", 0, b"s1", [b"e1"])
    async with b.subscribe_room("room", 0) as events:
        assert await anext(events) == StoredEvent(1, b"e1")
        await b.commit("room", 1, b"s2", [b"e2"])
        assert await anext(events) == StoredEvent(2, b"e2")
        assert await b.load_room("room") == RoomRecord(2, 2, b"s2", remembered=True)
        assert await b.load_room("room", fresh=True) == RoomRecord(2, 2, b"s2")
        await a.commit("room", 2, b"s3", [b"e3"])
        assert await anext(events) == StoredEvent(3, b"e3")  # the bell came, with s3
        assert await b.load_room("room") == RoomRecord(3, 3, b"s3", remembered=True)
        await a.append("room", [b"chat"])
        assert await anext(events) == StoredEvent(4, b"chat")
        assert await b.load_room("room") == RoomRecord(3, 4, b"s3", remembered=True)


async def test_another_instances_commits_reach_a_follower_without_reads(
    bells: tuple[RedisStore, RedisStore, Redis],
) -> None:
    """Moves and chat committed on one instance reach another instance's subscribers, in
    order, from the room's bell alone: Redis serves no XRANGE or room read for them."""
    a, b, stats = bells
    await a.commit("room", 0, b"s1", [b"e1"])
    async with b.subscribe_room("room", 0) as events:
        assert await anext(events) == StoredEvent(1, b"e1")
        await stats.config_resetstat()
        for version in range(1, 21):
            await a.commit("room", version, b"s%d" % (version + 1), [b"m%d" % version])
        await a.append("room", [b"gg", b"wp"])
        expected = [StoredEvent(n + 1, b"m%d" % n) for n in range(1, 21)]
        expected += [StoredEvent(22, b"gg"), StoredEvent(23, b"wp")]
        async with asyncio.timeout(10):
            assert [await anext(events) for _ in expected] == expected
        assert await b.load_room("room") == RoomRecord(21, 23, b"s21", remembered=True)
        commands = await stats.info("commandstats")
        assert "cmdstat_xrange" not in commands
        assert "cmdstat_hmget" not in commands


async def test_a_room_feed_opens_while_another_rooms_is_held_up(redis_url: str) -> None:
    """A room's events reach its follower while another room's feed is being started or
    stopped: one room's subscription round trips never wait for another's."""
    store = RedisStore(redis_url)
    await store.start()
    try:
        await store.commit("slow", 0, b"s")
        await store.commit("room", 0, b"s")
        async with (
            store.feeds.locks.hold("slow"),
            asyncio.timeout(5),
            store.subscribe_room("room", 0) as events,
        ):
            await store.commit("room", 1, b"s2", [b"e1"])
            assert await anext(events) == StoredEvent(1, b"e1")
    finally:
        await store.close()


async def test_a_commit_rings_the_bell_only_for_another_follower(
    bells: tuple[RedisStore, RedisStore, Redis],
) -> None:
    """A room followed by the committing instance alone costs Redis no PUBLISH; once a
    second instance follows it, each commit rings, and that instance gets its events
    from the bell (its polls are a minute apart)."""
    a, b, stats = bells

    async def publishes() -> int:
        found = (await stats.info("commandstats")).get("cmdstat_publish")
        return 0 if found is None else int(found["calls"])

    await a.commit("room", 0, b"s0", [b"e1"])
    async with a.subscribe_room("room", 0) as on_a:
        assert await anext(on_a) == StoredEvent(1, b"e1")
        await stats.config_resetstat()
        for version in range(1, 4):
            await a.commit("room", version, b"s", [b"m%d" % version])
        async with asyncio.timeout(5):
            assert [await anext(on_a) for _ in range(3)] == [
                StoredEvent(n + 1, b"m%d" % n) for n in range(1, 4)
            ]
        assert await publishes() == 0
        async with b.subscribe_room("room", 4) as on_b:
            await a.commit("room", 4, b"s", [b"m4"])
            async with asyncio.timeout(5):
                assert await anext(on_b) == StoredEvent(5, b"m4")
                assert await anext(on_a) == StoredEvent(5, b"m4")
            assert await publishes() == 1


async def test_queue_entries_keep_name_and_wait_across_instances(
    two_instances: tuple[RedisStore, RedisStore],
) -> None:
    """A player queued through one instance is seen, with name and join time, by another."""
    a, b = two_instances
    await a.queue_add("renju/5+3", QueueEntry("p1", 1612.5, 1_000, "Ann"))
    assert await b.queue_entries("renju/5+3") == [QueueEntry("p1", 1612.5, 1_000, "Ann")]
    assert await b.queue_names() == ["renju/5+3"]


async def test_a_resent_commit_is_answered_not_applied_twice(redis_url: str) -> None:
    """If redis-py resends a commit whose reply was lost (same commit token), the script
    answers the first result instead of appending the move again or reporting a conflict."""
    store = RedisStore(redis_url)
    await store.start()
    try:
        await store.commit("room", 0, b"s0")
        room_keys = store.keys.room_state, store.keys.room_events, store.keys.room_followers
        keys = [key("room") for key in room_keys]
        bell = store.keys.room_bell("room")
        args: list[bytes | str | int] = [1, b"s1", "k", 0, store.max_events, bell, "token-1", ""]
        args.append(b"h8")
        first = await store.scripts.commit(keys, args)
        again = await store.scripts.commit(keys, args)
        assert first == again == [2, 1, 1]
        assert await store.read_events("room", 0) == [StoredEvent(1, b"h8")]
        with pytest.raises(Conflict):  # a different commit on the old version still loses
            await store.commit("room", 1, b"other", [b"i9"])
    finally:
        await store.close()


async def test_cancelling_a_store_call_ends_the_task_at_once(redis_url: str) -> None:
    """A server loop cancelled while it waits on Redis stops right away (a clean shutdown),
    every time, and a timeout around a store call fires."""
    store = RedisStore(redis_url)
    await store.start()
    try:
        await store.commit("room", 0, b"s", [b"e"])

        async def busy_loop() -> None:
            while True:
                await store.load_room("room")
                await store.claim_due(0, lease_ms=100)

        for i in range(30):
            task = asyncio.create_task(busy_loop())
            await asyncio.sleep(0.0005 * (i % 6))
            task.cancel()
            done, _ = await asyncio.wait({task}, timeout=2.0)
            assert done, "the cancelled loop kept running"
            assert task.cancelled()

        async def read_forever() -> None:
            while True:
                await store.read_events("room", 0)

        with pytest.raises(TimeoutError):
            await asyncio.wait_for(read_forever(), timeout=0.01)
    finally:
        await store.close()


async def test_close_lets_a_call_whose_caller_was_cancelled_finish_first(redis_url: str) -> None:
    """A caller cancelled mid-call (a connection's task when its socket closes) leaves the
    call running to completion; closing the store waits for it, so the write lands and
    no connection is left open behind the closed pool (the unclosed-socket warning a
    later test used to trip over). A call after close is refused, not reconnected."""
    store = RedisStore(redis_url)
    await store.start()
    calls = [asyncio.create_task(store.put_session(f"h{i}", b"x")) for i in range(20)]
    await asyncio.sleep(0)  # every call is under way in its own task
    for call in calls:
        call.cancel()
    await store.close()
    pool = store.redis.connection_pool
    connections = [*pool._available_connections, *pool._in_use_connections]
    assert connections
    assert not any(c.is_connected for c in connections)
    with pytest.raises(StoreUnavailable):
        await store.get_session("h0")
    reader = Redis.from_url(redis_url)
    try:
        assert await reader.exists(*[f"gomoku:session:h{i}" for i in range(20)]) == 20
    finally:
        await reader.aclose()
