"""The store contract: every backend must pass these unchanged."""

from __future__ import annotations

import asyncio
import time

import pytest

from server.store import (
    Announced,
    Attachment,
    Conflict,
    MemoryStore,
    QueueEntry,
    Store,
    StoredEvent,
)
from server.store.base import KEEP_DEADLINE, OWNED_ROOM_PENDING_MS, Outage


async def test_create_then_load(store: Store) -> None:
    """A created room loads back with version 1 and its events numbered from 1."""
    result = await store.commit("r1", 0, b"state-1", [b"a", b"b"])
    assert (result.version, result.first_seq, result.last_seq) == (1, 1, 2)
    record = await store.load_room("r1")
    assert record is not None
    assert (record.version, record.seq, record.state) == (1, 2, b"state-1")
    assert await store.load_room("nope") is None


class GivesBytes:
    """A state that is encoded when asked, as the server commits its rooms."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __bytes__(self) -> bytes:
        return self.data


async def test_a_state_given_as_an_object_loads_as_its_bytes(store: Store) -> None:
    """A state committed as an object that gives its bytes loads back as those bytes
    (the memory store may hand back the object itself)."""
    await store.commit("r1", 0, GivesBytes(b"state-1"))
    await store.commit("r1", 1, GivesBytes(b"state-2"), [b"e"])
    record = await store.load_room("r1", fresh=True)
    assert record is not None
    assert (record.version, record.seq, bytes(record.state)) == (2, 1, b"state-2")


async def test_create_twice_conflicts(store: Store) -> None:
    """Creating an existing room raises Conflict and keeps the first state."""
    await store.commit("r1", 0, b"first")
    with pytest.raises(Conflict):
        await store.commit("r1", 0, b"second")
    record = await store.load_room("r1")
    assert record is not None
    assert record.state == b"first"


async def test_stale_version_conflicts_and_writes_nothing(store: Store) -> None:
    """A commit on an old version is refused, and neither state nor log change."""
    await store.commit("r1", 0, b"s1", [b"e1"])
    await store.commit("r1", 1, b"s2", [b"e2"])
    with pytest.raises(Conflict):
        await store.commit("r1", 1, b"stale", [b"lost"])
    with pytest.raises(Conflict):
        await store.commit("missing", 3, b"x")
    record = await store.load_room("r1")
    assert record is not None
    assert (record.version, record.seq, record.state) == (2, 2, b"s2")
    assert await store.read_events("r1", 0) == [StoredEvent(1, b"e1"), StoredEvent(2, b"e2")]


async def test_concurrent_commits_exactly_one_wins(store: Store) -> None:
    """Many writers racing on one version: exactly one commit lands."""
    await store.commit("r1", 0, b"s0")

    async def attempt(i: int) -> int | None:
        try:
            await store.commit("r1", 1, f"s{i}".encode(), [f"move-{i}".encode()])
        except Conflict:
            return None
        return i

    outcomes = await asyncio.gather(*(attempt(i) for i in range(10)))
    winners = [i for i in outcomes if i is not None]
    assert len(winners) == 1
    record = await store.load_room("r1")
    assert record is not None
    assert (record.version, record.state) == (2, f"s{winners[0]}".encode())
    assert await store.read_events("r1", 0) == [StoredEvent(1, f"move-{winners[0]}".encode())]


async def test_events_are_gap_free_across_commits(store: Store) -> None:
    """Sequence numbers run 1, 2, 3... over many commits of varying sizes."""
    version = (await store.commit("r1", 0, b"s", [b"0"])).version
    expected = [b"0"]
    for n in range(1, 8):
        batch = [f"{n}-{k}".encode() for k in range(n % 3)]
        expected += batch
        version = (await store.commit("r1", version, b"s", batch)).version
    events = await store.read_events("r1", 0)
    assert events is not None
    assert [e.seq for e in events] == list(range(1, len(expected) + 1))
    assert [e.data for e in events] == expected
    assert await store.read_events("r1", len(expected)) == []
    tail = await store.read_events("r1", 3)
    assert tail is not None
    assert [e.seq for e in tail] == list(range(4, len(expected) + 1))


async def test_trimmed_events_mean_snapshot(store: Store) -> None:
    """Reading from before the retained log answers None; recent reads still work."""
    version = (await store.commit("r1", 0, b"s")).version
    for i in range(120):  # the fixture caps logs at 50 entries
        version = (await store.commit("r1", version, b"s", [str(i).encode()])).version
    assert await store.read_events("r1", 0) is None
    recent = await store.read_events("r1", 115)
    assert recent is not None
    assert [e.seq for e in recent] == [116, 117, 118, 119, 120]
    assert await store.read_events("unknown", 0) is None


async def test_subscriber_receives_backlog_then_live_in_order(store: Store) -> None:
    """A room subscription yields the events after its start seq, then new ones in order."""
    version = (await store.commit("r1", 0, b"s", [b"e1", b"e2", b"e3"])).version
    received: list[StoredEvent] = []
    async with store.subscribe_room("r1", 1) as events:

        async def writer() -> None:
            v = version
            for i in range(4, 30):
                v = (await store.commit("r1", v, b"s", [f"e{i}".encode()])).version

        task = asyncio.create_task(writer())
        async for event in events:
            received.append(event)
            if event.seq == 29:
                break
        await task
    assert [e.seq for e in received] == list(range(2, 30))
    assert [e.data for e in received] == [f"e{i}".encode() for i in range(2, 30)]


async def test_two_subscribers_see_the_same_order(store: Store) -> None:
    """Fan-out: two followers of a room receive identical sequences."""
    await store.commit("r1", 0, b"s")
    async with store.subscribe_room("r1", 0) as a, store.subscribe_room("r1", 0) as b:
        version = 1
        for i in range(10):
            version = (await store.commit("r1", version, b"s", [bytes([i])])).version
        got_a = [(await anext(a)).data for _ in range(10)]
        got_b = [(await anext(b)).data for _ in range(10)]
    assert got_a == got_b == [bytes([i]) for i in range(10)]


async def test_deadlines_are_claimed_once_with_a_lease(store: Store) -> None:
    """Due deadlines are claimed, re-armed by the lease, and cleared by a commit."""
    await store.commit("r1", 0, b"s", deadline_ms=1_000)
    await store.commit("r2", 0, b"s", deadline_ms=5_000)
    assert await store.claim_due(999, lease_ms=100) == []
    assert await store.claim_due(1_000, lease_ms=100) == ["r1"]
    assert await store.claim_due(1_050, lease_ms=100) == []  # leased
    assert await store.claim_due(1_100, lease_ms=100) == ["r1"]  # claimer died: re-claim
    await store.commit("r1", 1, b"s", deadline_ms=None)
    await store.commit("r2", 1, b"s", deadline_ms=KEEP_DEADLINE)
    assert await store.claim_due(10_000, lease_ms=100) == ["r2"]
    await store.set_deadline("r2", None)
    assert await store.claim_due(20_000, lease_ms=100) == []


async def test_lobby_list_and_changes(store: Store) -> None:
    """Lobby puts and removes show in the list and reach subscribers in order."""
    await store.lobby_put("old", b"o")
    async with store.subscribe_lobby() as changes:
        await store.lobby_put("r1", b"v1")
        await store.lobby_put("r1", b"v2")
        await store.lobby_remove("old")
        await store.lobby_remove("never-there")
        got = [await anext(changes) for _ in range(3)]
    assert [(c.room_id, c.summary) for c in got] == [("r1", b"v1"), ("r1", b"v2"), ("old", None)]
    assert await store.lobby_list() == {"r1": b"v2"}


async def test_sessions_seats_and_invites(store: Store) -> None:
    """Sessions are found by token hash; seats and invite codes round-trip."""
    await store.put_session("hash-1", b"alice")
    assert await store.get_session("hash-1") == b"alice"
    assert await store.get_session("hash-2") is None
    await store.commit("r1", 0, b"s")
    await store.commit("r2", 0, b"s")
    await store.add_player_room("p1", "r2")
    await store.add_player_room("p1", "r1")
    await store.add_player_room("p1", "r1")
    assert await store.player_rooms("p1") == ["r1", "r2"]
    await store.remove_player_room("p1", "r2")
    assert await store.player_rooms("p1") == ["r1"]
    assert await store.put_invite("CODE1", "r1")
    assert not await store.put_invite("CODE1", "r2")
    assert await store.get_invite("CODE1") == "r1"
    assert await store.get_invite("NOPE") is None


async def test_open_rooms_are_counted_up_to_the_cap(store: Store) -> None:
    """A player's rooms are counted up to the cap, each once; at the cap a new one is
    refused until one is released; every player has a count of their own; of racing
    requests at the cap exactly the free slots' worth succeed."""
    assert await store.add_owned_room("p1", "r1", 2, 0)
    assert await store.add_owned_room("p1", "r1", 2, 0)  # counted already: still fine
    assert await store.add_owned_room("p1", "r2", 2, 0)
    assert not await store.add_owned_room("p1", "r3", 2, 0)
    assert await store.add_owned_room("p2", "r3", 2, 0)
    assert await store.owned_rooms("p1") == ["r1", "r2"]
    await store.remove_owned_room("p1", "r1")
    await store.remove_owned_room("p1", "never-counted")
    raced = await asyncio.gather(*(store.add_owned_room("p1", f"x{i}", 2, 0) for i in range(8)))
    assert raced.count(True) == 1
    assert len(await store.owned_rooms("p1")) == 2
    await store.remove_owned_room("p2", "r3")
    assert await store.owned_rooms("p2") == []


async def test_counted_rooms_that_are_gone_free_their_slot_after_a_while(store: Store) -> None:
    """A counted room that is not in the store (its end was never released) holds its
    slot while it may still be being created, then no more; a room that exists keeps
    its slot."""
    await store.commit("alive", 0, b"s")
    assert await store.add_owned_room("p1", "alive", 2, 1_000)
    assert await store.add_owned_room("p1", "ghost", 2, 1_000)
    assert not await store.add_owned_room("p1", "new", 2, 1_000 + OWNED_ROOM_PENDING_MS - 1)
    assert await store.add_owned_room("p1", "new", 2, 1_000 + OWNED_ROOM_PENDING_MS)
    assert await store.owned_rooms("p1") == ["alive", "new"]


async def test_deleted_session_is_gone(store: Store) -> None:
    """A deleted session no longer resolves; deleting an unknown one is harmless."""
    await store.put_session("hash-1", b"seat")
    await store.put_session("hash-2", b"other")
    await store.delete_session("hash-1")
    await store.delete_session("never-there")
    assert await store.get_session("hash-1") is None
    assert await store.get_session("hash-2") == b"other"


async def test_ai_seats_are_recorded_listed_and_dropped(store: Store) -> None:
    """AI seats in play are listed with their records until dropped; a second put
    replaces a record; dropping one says whether it was there."""
    assert await store.ai_seats() == {}
    assert await store.put_ai_seat("p1", b"seat one")
    assert await store.put_ai_seat("p2", b"seat two")
    assert await store.put_ai_seat("p2", b"seat two, again")
    assert await store.ai_seats() == {"p1": b"seat one", "p2": b"seat two, again"}
    assert await store.drop_ai_seat("p1")
    assert not await store.drop_ai_seat("p1")  # released already (by another instance)
    assert not await store.drop_ai_seat("never-there")
    assert await store.ai_seats() == {"p2": b"seat two, again"}


async def test_ai_seat_replacement_checks_the_record_it_replaces(store: Store) -> None:
    """A conditional put writes only over the record it names (or none), and says so."""
    await store.put_ai_seat("p1", b"worker A")
    assert not await store.put_ai_seat("p1", b"worker C", replacing=b"worker B")
    assert await store.ai_seats() == {"p1": b"worker A"}
    assert await store.put_ai_seat("p1", b"worker B", replacing=b"worker A")
    assert await store.ai_seats() == {"p1": b"worker B"}
    assert await store.put_ai_seat("p2", b"new", replacing=b"whatever it was")
    assert (await store.ai_seats())["p2"] == b"new"


async def test_new_ai_seats_stay_within_the_capacity_given(store: Store) -> None:
    """With ``within``, a new seat is recorded only below that many seats (racing puts:
    exactly the free ones win); replacing a recorded seat is not a new one."""
    await store.put_ai_seat("p1", b"one")
    outcomes = await asyncio.gather(
        *(store.put_ai_seat(f"new{i}", b"seat", within=3) for i in range(6))
    )
    assert outcomes.count(True) == 2
    assert len(await store.ai_seats()) == 3
    assert await store.put_ai_seat("p1", b"one, handed over", replacing=b"one", within=3)
    await store.drop_ai_seat("p1")
    assert await store.put_ai_seat("late", b"seat", within=3)


async def test_racing_ai_seat_handovers_have_one_winner(store: Store) -> None:
    """Instances replacing the same seat's record at once: exactly one succeeds."""
    await store.put_ai_seat("p1", b"old")
    outcomes = await asyncio.gather(
        *(store.put_ai_seat("p1", f"new {i}".encode(), replacing=b"old") for i in range(8))
    )
    assert outcomes.count(True) == 1
    winner = outcomes.index(True)
    assert await store.ai_seats() == {"p1": f"new {winner}".encode()}


async def test_expired_room_is_forgotten(store: Store) -> None:
    """A room past its expiry no longer loads, and its invite code stops working."""
    await store.commit("r1", 0, b"s", [b"e"])
    await store.put_invite("C", "r1")
    await store.expire_room("r1", 50)
    assert await store.load_room("r1") is not None
    await asyncio.sleep(0.1)
    assert await store.load_room("r1") is None
    assert await store.get_invite("C") is None


async def test_player_messages_reach_only_added_players(store: Store) -> None:
    """An inbox gets messages for the players added to it, in publish order."""
    async with store.subscribe_players() as inbox:
        await inbox.add("p1")
        await store.publish_player("p2", b"not mine")
        await store.publish_player("p1", b"one")
        await store.publish_player("p1", b"two")
        messages = aiter(inbox)
        first, second = await anext(messages), await anext(messages)
        await inbox.remove("p1")
    assert (first.player_id, first.data, second.data) == ("p1", b"one", b"two")


async def test_queue_add_remove_and_names(store: Store) -> None:
    """A player waits in a queue once; removal reports whether they were there."""
    now = int(time.time() * 1000)
    assert await store.queue_add("renju/none", QueueEntry("p1", 1500, now))
    assert not await store.queue_add("renju/none", QueueEntry("p1", 1500, now))
    assert await store.queue_names() == ["renju/none"]
    assert await store.queue_remove("renju/none", "p1")
    assert not await store.queue_remove("renju/none", "p1")
    assert await store.queue_names() == []


async def test_queue_pairs_closest_ratings_first(store: Store) -> None:
    """Pairing takes the closest ratings and leaves too-distant players waiting."""
    now = 1_000_000
    for player, rating in [("a", 1500), ("b", 1510), ("c", 1800), ("d", 1530), ("e", 2400)]:
        await store.queue_add("q", QueueEntry(player, rating, now))
    pairs = await store.queue_pair("q", now, base_gap=100, gap_per_second=10)
    assert [{x.player_id, y.player_id} for x, y in pairs] == [{"a", "b"}]
    waiting = await store.queue_entries("q")
    assert [e.player_id for e in waiting] == ["d", "c", "e"]
    # d and c are 270 apart: after 20 s the allowed gap (100 + 10*20 = 300) covers them.
    assert await store.queue_pair("q", now + 10_000, base_gap=100, gap_per_second=10) == []
    later = await store.queue_pair("q", now + 20_000, base_gap=100, gap_per_second=10)
    assert [{x.player_id, y.player_id} for x, y in later] == [{"c", "d"}]
    assert [e.player_id for e in await store.queue_entries("q")] == ["e"]


async def test_concurrent_pairing_never_pairs_a_player_twice(store: Store) -> None:
    """Racing pairers split the queue: nobody lands in two pairs."""
    now = 1_000_000
    for i in range(20):
        await store.queue_add("q", QueueEntry(f"p{i}", 1500 + i, now))
    results = await asyncio.gather(
        *(store.queue_pair("q", now, base_gap=50, gap_per_second=0) for _ in range(4))
    )
    paired = [p.player_id for pairs in results for pair in pairs for p in pair]
    assert sorted(paired) == sorted(f"p{i}" for i in range(20))
    assert len(paired) == len(set(paired))


async def test_beat_finds_each_outage_once(store: Store) -> None:
    """Beats closer than the gap are no outage; a longer silence becomes the latest outage,
    reported to every later beat; a beat from a clock behind never shortens the next gap."""
    assert await store.beat(10_000, 2_000) is None
    assert await store.beat(11_000, 2_000) is None
    assert await store.beat(20_000, 2_000) == Outage(11_000, 20_000)
    assert await store.beat(20_500, 2_000) == Outage(11_000, 20_000)
    assert await store.beat(15_000, 2_000) == Outage(11_000, 20_000)  # a lagging clock
    assert await store.beat(23_000, 2_000) == Outage(20_500, 23_000)


async def test_racing_beats_after_an_outage_agree_on_it(store: Store) -> None:
    """Several instances coming back at once all see the same single outage."""
    await store.beat(1_000, 2_000)
    seen = await asyncio.gather(*(store.beat(9_000, 2_000) for _ in range(5)))
    assert set(seen) == {Outage(1_000, 9_000)}


async def test_rooms_and_the_lobby_are_counted_until_they_expire(store: Store) -> None:
    """count_rooms counts the rooms there are, not those expired; count_lobby the lobby."""
    assert (await store.count_rooms(), await store.count_lobby()) == (0, 0)
    for room in ("r1", "r2", "r3"):
        await store.commit(room, 0, b"s")
    await store.lobby_put("r1", b"summary")
    await store.expire_room("r2", 0)
    await store.expire_room("r3", 60_000)
    await asyncio.sleep(0.01)
    assert (await store.count_rooms(), await store.count_lobby()) == (2, 1)
    await store.purge()
    assert await store.count_rooms() == 2


async def test_games_in_progress_are_counted_until_their_room_expires(store: Store) -> None:
    """count_games counts each begun game once until expire_room (a game's end, an
    emptied room); a game begun in a room that has already expired is not counted."""
    for room in ("r1", "r2", "r3", "r4"):
        await store.commit(room, 0, b"s")
    for room in ("r1", "r2", "r2", "r3"):  # r2 twice: may run twice
        await store.game_begun(room)
    assert await store.count_games() == 3
    await store.expire_room("r3", 60_000)  # over: its room stays a while, its game is done
    await store.expire_room("r4", 0)
    await asyncio.sleep(0.01)
    await store.game_begun("r4")  # too late: the room has gone
    assert await store.count_games() == 2
    assert await store.count_rooms() == 3


async def test_memory_listener_gets_each_event_inside_its_commit() -> None:
    """The memory store hands a listener each event (backlog first) before commit returns,
    and ends it when the room is dropped."""
    store = MemoryStore()
    await store.commit("r1", 0, b"s1", [b"a", b"b"])
    got: list[StoredEvent] = []
    listener = store.listen_room("r1", 1, got.append)
    async with listener as ended:
        assert got == [StoredEvent(2, b"b")]
        await store.commit("r1", 1, b"s2", [b"c"])
        assert got[-1] == StoredEvent(3, b"c")
        assert not ended.done()
        await store.expire_room("r1", 0)
        assert store.purge_expired() == 1
        assert ended.done()
    await store.commit("r2", 0, b"s", [b"x"])
    assert [e.seq for e in got] == [2, 3]


async def test_append_logs_events_without_touching_the_version(store: Store) -> None:
    """append (chat) gives events the next seqs but leaves state and version: a commit
    prepared before it still lands, so a crowd chatting never makes a move conflict."""
    await store.commit("r1", 0, b"s1", [b"a"])
    appended = await store.append("r1", [b"chat-1", b"chat-2"])
    assert appended is not None
    assert (appended.first_seq, appended.last_seq) == (2, 3)
    result = await store.commit("r1", 1, b"s2", [b"move"])
    assert (result.version, result.first_seq) == (2, 4)
    record = await store.load_room("r1", fresh=True)
    assert record is not None
    assert (record.version, record.seq, record.state) == (2, 4, b"s2")
    events = await store.read_events("r1", 0)
    assert [e.data for e in events or []] == [b"a", b"chat-1", b"chat-2", b"move"]
    assert await store.append("nope", [b"x"]) is None


async def test_chat_lines_are_kept_apart_from_the_log(store: Store) -> None:
    """append with keep_chat also keeps the room's last chat lines with their seqs, oldest
    first, after the log has let them go; other appends and commits are not kept."""
    await store.commit("r1", 0, b"s0", [b"created"])
    for n in range(1, 6):
        appended = await store.append("r1", [b"chat-%d" % n], keep_chat=3)
        assert appended is not None
        assert appended.first_seq == n + 1
    await store.append("r1", [b"not chat"])
    await store.announce_count("r1", 1, b"count", 1_000, 500, due=False)
    for version in range(1, 61):  # more than the log keeps (50)
        await store.commit("r1", version, b"s%d" % version, [b"move"])
    assert await store.read_events("r1", 0) is None
    kept = [StoredEvent(4, b"chat-3"), StoredEvent(5, b"chat-4"), StoredEvent(6, b"chat-5")]
    assert await store.recent_chat("r1") == kept
    two = await store.append("r1", [b"chat-6", b"chat-7"], keep_chat=3)
    assert two is not None
    assert await store.recent_chat("r1") == [
        StoredEvent(6, b"chat-5"),
        StoredEvent(two.first_seq, b"chat-6"),
        StoredEvent(two.last_seq, b"chat-7"),
    ]
    assert await store.recent_chat("nope") == []
    assert await store.append("nope", [b"x"], keep_chat=3) is None
    assert await store.recent_chat("nope") == []


async def test_kept_chat_lines_go_with_the_room(store: Store) -> None:
    """A room's kept chat lines expire with it (also when the first was said after it was
    set to expire), and a new room by the same id starts with none."""
    for room in ("r1", "r2"):
        await store.commit(room, 0, b"s", [b"e"])
    await store.append("r1", [b"before"], keep_chat=30)
    for room in ("r1", "r2"):
        await store.expire_room(room, 100)
        await store.append(room, [b"after"], keep_chat=30)
    assert [line.data for line in await store.recent_chat("r1")] == [b"before", b"after"]
    assert [line.data for line in await store.recent_chat("r2")] == [b"after"]
    await asyncio.sleep(0.2)
    for room in ("r1", "r2"):
        assert await store.load_room(room) is None
        assert await store.recent_chat(room) == []
    await store.commit("r1", 0, b"again")
    assert await store.recent_chat("r1") == []


async def test_counts_are_announced_at_most_once_per_interval(store: Store) -> None:
    """The first change goes out at once; a change within the interval is held and the
    room falls due at its end; the same count again is never announced."""
    await store.commit("r1", 0, b"s")
    first = await store.announce_count("r1", 1, b"one", 10_000, 500, due=False)
    assert first.seq == 1
    assert await store.announce_count("r1", 1, b"one", 20_000, 500, due=False) == Announced()
    held = await store.announce_count("r1", 2, b"two", 10_100, 500, due=False)
    assert (held.seq, held.due_ms) == (0, 10_500)
    again = await store.announce_count("r1", 3, b"three", 10_200, 500, due=False)
    assert again == Announced()  # already held: the due call will carry it
    assert await store.claim_due(10_499, 1_000) == []
    assert await store.claim_due(10_500, 1_000) == ["r1"]
    done = await store.announce_count("r1", 3, b"three", 10_510, 500, due=True)
    assert done.seq == 2
    assert [e.data for e in await store.read_events("r1", 0) or []] == [b"one", b"three"]
    gone = await store.announce_count("nope", 1, b"x", 1, 500, due=False)
    assert gone.room_gone


async def test_attachments_count_connections_per_player(store: Store) -> None:
    """A player is attached while any of their connections is, on any instance; the time
    the last one left is kept; attaching twice counts once; unknown rooms say None."""
    await store.commit("r1", 0, b"s")
    assert await store.attach("r1", "ann", "i1/1") == 1
    assert await store.attach("r1", "ann", "i2/7") == 2
    assert await store.attach("r1", "ann", "i2/7") == 2
    assert await store.attach("r1", "cy", "i1/2") == 1
    assert await store.attach("nope", "ann", "i1/1") is None
    seen = await store.attendance("r1", ["ann", "bob"])
    assert (seen.players, seen.seated) == (2, {"ann": Attachment(2, None)})
    assert await store.detach("r1", "i1/1", 5_000) == 1
    assert await store.detach("r1", "i1/1", 5_000) is None
    assert await store.detach("r1", "i2/7", 6_000) == 0
    seen = await store.attendance("r1", ["ann"])
    assert (seen.players, seen.seated, seen.attached("ann")) == (
        1,
        {"ann": Attachment(0, 6_000)},
        0,
    )
    assert await store.attach("r1", "ann", "i1/3") == 1
    assert (await store.attendance("r1", ["ann"])).seated == {"ann": Attachment(1, 6_000)}


async def test_a_players_connections_in_a_room_are_listed_with_their_instances(
    store: Store,
) -> None:
    """Where a player's attached connections are: their ids (which start with their
    instance's), sorted, without other players' or detached ones."""
    await store.commit("r1", 0, b"s")
    await store.attach("r1", "ann", "i2/7")
    await store.attach("r1", "ann", "i1/1")
    await store.attach("r1", "bob", "i1/2")
    assert await store.connections_of("r1", "ann") == ["i1/1", "i2/7"]
    await store.detach("r1", "i2/7", 5_000)
    assert await store.connections_of("r1", "ann") == ["i1/1"]
    assert await store.connections_of("r1", "cy") == []
    assert await store.connections_of("nope", "ann") == []


async def test_the_data_epoch_stays_while_the_data_does(store: Store) -> None:
    """The store's data id is made once and answered the same after (a new one would
    mean the data was lost)."""
    first = await store.data_epoch()
    await store.commit("r1", 0, b"s")
    assert await store.data_epoch() == first


async def test_a_beat_tells_an_instance_its_lease_was_taken(store: Store) -> None:
    """An instance's beat returns where its lease stood: its own last value while nobody
    touched it, the reaper's once claimed, None once reaped (its connections may have been
    detached while it was paused)."""
    assert await store.instance_beat("slow", 1_000) is None
    assert await store.instance_beat("slow", 2_000) == 1_000
    assert await store.expired_instances(3_000, 5_000) == ["slow"]
    assert await store.instance_beat("slow", 4_000) == 8_000  # claimed by a reaper
    await store.reap_instance("slow", 4_100)
    assert await store.instance_beat("slow", 6_000) is None
    assert await store.instance_beat("slow", 8_000) == 6_000


async def test_a_dead_instance_is_reaped_once(store: Store) -> None:
    """An instance whose lease ran out is handed to one reaper, which detaches all its
    connections (and only its) and names the players who are gone with them."""
    for room in ("r1", "r2"):
        await store.commit(room, 0, b"s")
    await store.attach("r1", "ann", "dead/1")
    await store.attach("r1", "bob", "dead/2")
    await store.attach("r1", "bob", "live/1")
    await store.attach("r2", "cy", "dead/3")
    await store.instance_beat("dead", 1_000)
    await store.instance_beat("live", 9_000)
    assert await store.expired_instances(999, 5_000) == []
    assert await store.expired_instances(2_000, 5_000) == ["dead"]
    assert await store.expired_instances(2_001, 5_000) == []  # leased to the first caller
    gone = await store.reap_instance("dead", 2_100)
    assert {room: sorted(players) for room, players in gone.items()} == {
        "r1": ["ann"],
        "r2": ["cy"],
    }
    r1 = await store.attendance("r1", ["ann", "bob"])
    assert (r1.players, r1.attached("ann"), r1.attached("bob")) == (1, 0, 1)
    assert r1.seated["ann"].left_ms == 2_100
    assert await store.expired_instances(99_000, 5_000) == ["live"]  # "dead" is forgotten
