"""Rooms on Redis: the versioned record, the event log, and this instance's feeds.

A hash holds version, last seq, the encoded state and the clock deadline; a stream
holds the event log with entry ids ``<seq>-0``, so a stream id *is* the sequence
number clients resume from. One Lua script (``lua/commit.lua``) checks the expected
version and writes state, events and deadline together; both keys share the
``{room:ID}`` hash tag, so the script is valid on Redis Cluster. Each commit carries a
random token kept in the hash: if a connection drops and redis-py resends a commit
that had in fact landed, the script recognises its own token and answers the original
result instead of a conflict (no lost and no double-applied move, even on retry). The
log is trimmed to ``max_events`` exactly (``MAXLEN =``), so what is retained is
predictable. Chat and spectator counts are appended without a version check
(``lua/append.lua``, ``lua/announce.lua``); a chat line is also pushed, in the same
script, onto the room's short list of its last lines, which a snapshot reads instead
of the log. Fan-out to subscribers goes through the room feeds
(:mod:`server.store.redis.feed`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from server.store.base import (
    KEEP_DEADLINE,
    Announced,
    CommitResult,
    Conflict,
    RoomRecord,
    RoomState,
    StoredEvent,
)
from server.store.redis import codecs
from server.store.redis.core import CLOSED, RedisCore, call_token, drain, runs_to_completion
from server.store.redis.feed import Listener, RoomFeeds, read_range
from server.store.redis.lane import Command


class RedisRooms(RedisCore):
    """Rooms, their logs and their subscriptions (one feed per followed room)."""

    def __init__(self, url: str, **options: Any) -> None:
        super().__init__(url, **options)
        self.feeds = RoomFeeds(
            self.hot, self.keys, self.bus, self.poll_interval_s, self._follow, self._unfollow
        )

    def _pubsub_connected(self) -> None:
        self.feeds.forget_records()  # bells may have been missed while the bus was down
        super()._pubsub_connected()

    async def _pubsub_reconnected(self) -> None:
        self.feeds.ring_all()
        await self.feeds.follow_all()  # in case Redis restarted and lost who follows
        await super()._pubsub_reconnected()

    async def _follow(self, room_id: str) -> int | None:
        """Register this store as a follower of the room's bell; the room's seq (None: no
        such room). A read that may run twice, on the hot path."""
        keys = [self.keys.room_state(room_id), self.keys.room_followers(room_id)]
        seq = (await self.hot_script((), self.scripts.follow, keys, [self.feeds.follower]))[-1]
        return None if seq is None else int(seq)

    async def _unfollow(self, room_id: str) -> None:
        await self.hot(("SREM", self.keys.room_followers(room_id), self.feeds.follower))

    async def _end_subscriptions(self) -> None:
        await self.feeds.stop_all()
        await super()._end_subscriptions()

    async def load_room(self, room_id: str, *, fresh: bool = False) -> RoomRecord | None:
        feed = self.feeds.get(room_id)
        if feed is not None and not fresh:
            known = feed.current_record()
            if known is not None:
                # (built, not _replace: namedtuple's _replace costs 1.5 us on every move)
                return RoomRecord(known.version, known.seq, known.state, remembered=True)
        record = await self._load_room(room_id)
        if feed is not None and record is not None and self.feeds.get(room_id) is feed:
            feed.remember(record)
        return record

    async def _load_room(self, room_id: str) -> RoomRecord | None:
        load = ("HMGET", self.keys.room_state(room_id), "version", "seq", "state")
        version, seq, state = (await self.hot(load))[0]
        if version is None:
            return None
        return RoomRecord(int(version), int(seq), state)

    async def commit(
        self,
        room_id: str,
        expected_version: int,
        state: RoomState,
        events: Sequence[bytes] = (),
        *,
        deadline_ms: int | None = KEEP_DEADLINE,
    ) -> CommitResult:
        state = bytes(state)  # written to Redis, and remembered as it was written
        feed = self.feeds.get(room_id)
        if feed is None:
            return await self._write_room(room_id, expected_version, state, events, deadline_ms)
        feed.local_commits += 1  # its own bell need not wake the reader
        try:
            result = await self._write_room(
                room_id, expected_version, state, events, deadline_ms, following=True
            )
            feed.remember(RoomRecord(result.version, result.last_seq, state))
            if events and result.last_seq - result.first_seq + 1 == len(events):
                feed.committed(result.first_seq, events)
            feed.announced(result.last_seq)  # rung for others only, if at all
            return result
        except Conflict:
            feed.forget()
            raise
        finally:
            feed.local_commits -= 1
            feed.settle()

    async def _write_room(
        self,
        room_id: str,
        expected_version: int,
        state: bytes,
        events: Sequence[bytes],
        deadline_ms: int | None,
        *,
        following: bool = False,
    ) -> CommitResult:
        """Run the commit script; ``following``: this store follows the room (a feed here),
        so the script rings the room's bell only for other followers."""
        keys = [
            self.keys.room_state(room_id),
            self.keys.room_events(room_id),
            self.keys.room_followers(room_id),
        ]
        if expected_version == 0:  # a create clears what an expired room left of these
            keys.append(self.keys.room_chat(room_id))
        if deadline_ms is None:
            mode, deadline = "c", 0
        elif deadline_ms == KEEP_DEADLINE:
            mode, deadline = "k", 0
        else:
            mode, deadline = "s", deadline_ms
        args: list[bytes | str | int] = [
            expected_version,
            state,
            mode,
            deadline,
            self.max_events,
            self.keys.room_bell(room_id),
            call_token(),
            self.feeds.follower if following else "",
            *events,
        ]
        # File the deadline in the index first (only ever earlier: LT), so no crash
        # between the two steps can leave a running clock that nobody will flag; and
        # a new room in the index of rooms (NX: a create that conflicts names a room
        # that is there anyway, and must not lose its expiry time).
        before: list[Command] = []
        if mode == "s":
            before.append(("ZADD", self.keys.deadlines, "LT", deadline, room_id))
        if expected_version == 0:
            before.append(("ZADD", self.keys.rooms, "NX", "+inf", room_id))
        reply = (await self.hot_script(before, self.scripts.commit, keys, args))[-1]
        if reply[0] == -1:
            raise Conflict(
                f"room {room_id}: expected version {expected_version}, found {reply[1] or None}"
            )
        return CommitResult(int(reply[0]), int(reply[1]), int(reply[2]))

    async def read_events(self, room_id: str, after_seq: int) -> list[StoredEvent] | None:
        replies = await self.hot(
            ("MULTI",),
            ("HGET", self.keys.room_state(room_id), "seq"),
            ("XRANGE", self.keys.room_events(room_id), f"{after_seq + 1}-0", "+"),
            ("EXEC",),
        )
        seq, entries = replies[-1]
        if seq is None:
            return None
        if after_seq >= int(seq):
            return []
        events = codecs.events(entries)
        if not events or events[0].seq != after_seq + 1:
            return None  # trimmed: the reader needs a snapshot
        return events

    @asynccontextmanager
    async def _listening(self, room_id: str, listener: Listener) -> AsyncIterator[None]:
        """Attach ``listener`` to the room's feed for the context: the retained events
        after its ``last`` first, then every new one (ended at once if there is no room)."""
        feed = await self.feeds.open(room_id)
        if feed is None:
            listener.end()
            yield
            return
        cursor = feed.cursor  # the feed hands everything after this to the listener
        feed.listeners.add(listener)
        try:
            backlog = []
            if cursor > listener.last:
                backlog = await read_range(self.hot, self.keys, room_id, listener.last, cursor)
            listener.open(backlog)
            yield
        finally:
            feed.listeners.discard(listener)
            await self.feeds.release(feed)

    @asynccontextmanager
    async def _follow_room(
        self, room_id: str, after_seq: int
    ) -> AsyncIterator[AsyncIterator[StoredEvent]]:
        queue: asyncio.Queue[StoredEvent | None] = asyncio.Queue()
        listener = Listener(queue.put_nowait, lambda: queue.put_nowait(CLOSED), after_seq)
        async with self._listening(room_id, listener):
            yield drain(queue)

    def subscribe_room(
        self, room_id: str, after_seq: int
    ) -> AbstractAsyncContextManager[AsyncIterator[StoredEvent]]:
        return self._follow_room(room_id, after_seq)

    @asynccontextmanager
    async def _listen_room(
        self, room_id: str, after_seq: int, deliver: Callable[[StoredEvent], None]
    ) -> AsyncIterator[asyncio.Future[None]]:
        ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def end() -> None:
            if not ended.done():
                ended.set_result(None)

        async with self._listening(room_id, Listener(deliver, end, after_seq)):
            yield ended

    def listen_room(
        self, room_id: str, after_seq: int, deliver: Callable[[StoredEvent], None]
    ) -> AbstractAsyncContextManager[asyncio.Future[None]]:
        """Events reach ``deliver`` straight from the room's feed (from the commit for this
        instance's own commits), without a queue and a task switch per event."""
        return self._listen_room(room_id, after_seq, deliver)

    @runs_to_completion
    async def expire_room(self, room_id: str, ttl_ms: int, *, invite: str | None = None) -> None:
        feed = self.feeds.get(room_id)
        if feed is not None:
            feed.forget()  # the record must not outlive the room
        ttl_ms = max(1, ttl_ms)
        # Every game ends here, so on the hot path (each step may run twice: setting the
        # same lifetimes again changes nothing).
        keys = self.keys.room_keys(room_id)
        commands: list[Command] = [("SREM", self.keys.games, room_id)]
        if (await self.hot_script((), self.scripts.expire_room, keys, [ttl_ms]))[-1]:
            commands.append(("ZADD", self.keys.rooms, int(time.time() * 1000) + ttl_ms, room_id))
            if invite is not None:
                commands.append(("PEXPIRE", self.keys.invite(invite), ttl_ms))
        await self.hot(*commands)

    async def append(
        self, room_id: str, events: Sequence[bytes], *, keep_chat: int = 0
    ) -> CommitResult | None:
        feed = self.feeds.get(room_id)
        if feed is None:
            return await self._append_events(room_id, events, keep_chat)
        feed.local_commits += 1  # its own bell need not wake the reader
        try:
            result = await self._append_events(room_id, events, keep_chat)
            if result is not None:
                feed.appended(result.last_seq)
                if result.last_seq - result.first_seq + 1 == len(events):
                    feed.committed(result.first_seq, events)
            return result
        finally:
            feed.local_commits -= 1
            feed.settle()

    @runs_to_completion
    async def _append_events(
        self, room_id: str, events: Sequence[bytes], keep_chat: int
    ) -> CommitResult | None:
        keys = [
            self.keys.room_state(room_id),
            self.keys.room_events(room_id),
            self.keys.room_chat(room_id),
        ]
        args: list[bytes | str | int] = [self.max_events, self.keys.room_bell(room_id)]
        args += [keep_chat, *events]
        first, last = await self.scripts.append(keys, args)
        if first == -1:
            return None
        return CommitResult(0, int(first), int(last))

    async def recent_chat(self, room_id: str) -> list[StoredEvent]:
        # A read: on the hot path, which may send it twice.
        entries = (await self.hot(("LRANGE", self.keys.room_chat(room_id), 0, -1)))[0]
        return codecs.chat_lines(entries)

    async def announce_count(
        self, room_id: str, count: int, event: bytes, now_ms: int, every_ms: int, *, due: bool
    ) -> Announced:
        feed = self.feeds.get(room_id)
        if feed is None:
            return await self._announce_count(room_id, count, event, now_ms, every_ms, due)
        feed.local_commits += 1
        try:
            done = await self._announce_count(room_id, count, event, now_ms, every_ms, due)
            if done.seq:
                feed.appended(done.seq)
                feed.committed(done.seq, [event])
            return done
        finally:
            feed.local_commits -= 1
            feed.settle()

    async def _announce_count(
        self, room_id: str, count: int, event: bytes, now_ms: int, every_ms: int, due: bool
    ) -> Announced:
        keys = [self.keys.room_state(room_id), self.keys.room_events(room_id)]
        args: list[bytes | str | int] = [count, now_ms, every_ms, event, self.max_events]
        args += [self.keys.room_bell(room_id), "1" if due else "0"]
        # On the hot path: sent twice (a lost connection), the script finds the count
        # already shown and appends nothing the second time.
        kind, value = (await self.hot_script((), self.scripts.announce, keys, args))[-1]
        if kind == -1:
            return Announced(room_gone=True)
        if kind == 1:
            return Announced(seq=int(value))
        if kind == 2:
            # File the held announcement's due time (only ever earlier: LT).
            await self.hot(("ZADD", self.keys.deadlines, "LT", int(value), room_id))
            return Announced(due_ms=int(value))
        return Announced()

    @runs_to_completion
    async def purge(self) -> None:
        await self.redis.zremrangebyscore(self.keys.rooms, "-inf", int(time.time() * 1000))

    async def game_begun(self, room_id: str) -> None:
        await self.hot(("SADD", self.keys.games, room_id))

    @runs_to_completion
    async def count_games(self) -> int:
        """The set's rooms that are still there: one whose instance died between a game's
        end and its :meth:`expire_room` is dropped once its room has expired."""
        members: list[Any] = list(await self.redis.smembers(self.keys.games))
        if not members:
            return 0
        until: list[Any] = await self.redis.zmscore(self.keys.rooms, members)
        now = time.time() * 1000
        ends = zip(members, until, strict=True)
        gone = [room for room, at in ends if at is None or at <= now]
        if gone:
            await self.redis.srem(self.keys.games, *gone)
        return len(members) - len(gone)

    @runs_to_completion
    async def count_rooms(self) -> int:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zremrangebyscore(self.keys.rooms, "-inf", int(time.time() * 1000))
            pipe.zcard(self.keys.rooms)
            _, count = await pipe.execute()
        return int(count)
