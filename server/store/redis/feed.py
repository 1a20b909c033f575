"""Room feeds: per watched room, one reader of the room's log in this instance,
shared by its local subscribers.

Each commit PUBLISHes the room's last seq, new version, new state and the events it
logged on the room's "bell" channel (inside the commit script; an append, its events).
A commit rings only if a store other than its own follows the room: each store's feeds
register it in the room's followers set (``lua/follow.lua``) once subscribed, and the
committing store delivers its own events from the commit's reply. So a game whose two
players are on one process costs Redis no PUBLISH and the process no bell to read.
A feed hands a bell's events to every local listener when they follow what it
delivered, and XRANGEs after its cursor when they do not (a bell missed). Events this
instance commits itself are handed over from the commit, without reading them back,
and the feed also keeps the room's record as this instance last wrote, read or heard
it in a bell: while no bell announced a newer version (and for at most
``poll_interval_s``), the store answers ``load_room`` from it without a round trip.
A stale record can only cost a conflict (the commit's version check) and a fresh read.
Feeds also poll every ``poll_interval_s`` and re-read after the bus reconnects, so a
lost bell costs latency, never events.

We chose this over XREAD BLOCK because a blocked connection serves one request: one
per watched room would need a connection per room, and one XREAD over all rooms'
keys is cross-slot on a cluster and must be interrupted to change its key list.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from redis.exceptions import RedisError

from server.keyedlock import KeyedLock
from server.keys import Keys
from server.store.base import RoomRecord, StoredEvent, StoreUnavailable
from server.store.redis import codecs
from server.store.redis.bus import Bus, stop_task
from server.store_watch import StoreWatch

log = logging.getLogger("gomoku.store")


Hot = Callable[..., Awaitable[list[Any]]]
"""The store's :meth:`~server.store.redis.core.RedisCore.hot`: commands sent together on
the lane, their replies."""


async def read_range(
    hot: Hot, keys: Keys, room_id: str, after_seq: int, upto: int | None
) -> list[StoredEvent]:
    """The room log's events after ``after_seq`` (up to ``upto``, or all)."""
    last = "+" if upto is None else f"{upto}-0"
    read = ("XRANGE", keys.room_events(room_id), f"{after_seq + 1}-0", last)
    return codecs.events((await hot(read))[0])


class Listener:
    """One local subscriber of a room feed: each event after ``last`` once, in order.
    Until :meth:`open` hands it the backlog read from the log, live events wait."""

    def __init__(
        self, deliver: Callable[[StoredEvent], None], end: Callable[[], None], after_seq: int
    ) -> None:
        self.deliver = deliver
        self.end = end
        """Called when the feed ends (the room is gone, or the store closes)."""
        self.last = after_seq
        self._held: list[StoredEvent] | None = []

    def take(self, event: StoredEvent) -> None:
        if self._held is not None:
            self._held.append(event)
        else:
            self._give(event)

    def open(self, backlog: list[StoredEvent]) -> None:
        held, self._held = self._held or [], None
        for event in [*backlog, *held]:
            self._give(event)

    def _give(self, event: StoredEvent) -> None:
        if event.seq <= self.last:
            return
        self.last = event.seq
        try:
            self.deliver(event)
        except Exception:  # one subscriber's failure must not stop the others
            log.exception("delivering event %d failed", event.seq)


class RoomFeed:
    """One instance's reader of one room's log, shared by its local subscribers."""

    def __init__(self, feeds: RoomFeeds, room_id: str, bell: str) -> None:
        self.feeds = feeds
        self.room_id = room_id
        self.bell = bell
        self.cursor = 0
        self.listeners: set[Listener] = set()
        self.local_commits = 0
        """This instance's commits to the room in flight (their bells wake nobody)."""
        self._bell_seq = 0
        """The highest seq a bell announced while a local commit was in flight."""
        self.heard_version = 0
        """The newest version of the room a bell announced."""
        self._record: RoomRecord | None = None
        self._record_at = 0.0
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    def ring(self, data: bytes) -> None:
        """The room's bell: a commit or an append of any instance, after which the log
        ends at ``seq`` and the room is at ``version``. The events it carries are
        delivered from it if they follow what the feed delivered (else the reader reads
        the log), and a commit's state is remembered as the room's record. Events this
        instance commits itself are delivered by the commit, so their bell wakes nobody."""
        seq, version, first, state, events = codecs.bell(data)
        self.heard_version = max(self.heard_version, version)
        if events is not None and first == self.cursor + 1:
            for at, event in enumerate(events, first):
                self._deliver(StoredEvent(at, event))
        if state is not None:
            self.remember(RoomRecord(version, seq, state))
        elif self._record is not None and self._record.version == version:
            self.appended(seq)  # an append elsewhere: same state, a longer log
        if seq <= self.cursor:
            return
        if self.local_commits:
            self._bell_seq = max(self._bell_seq, seq)
            return
        self._wake.set()

    def announced(self, seq: int) -> None:
        """A local commit ended the log at ``seq``. Its bell rings only for other stores
        (``lua/commit.lua``), so :meth:`settle` wakes the reader for whatever of it the
        commit could not deliver itself, as it does for a bell heard meanwhile."""
        self._bell_seq = max(self._bell_seq, seq)

    def settle(self) -> None:
        """A local commit ended: wake the reader for what other commits' bells announced
        meanwhile (or what this one did not deliver itself)."""
        if not self.local_commits and self._bell_seq > self.cursor:
            self._wake.set()

    def current_record(self) -> RoomRecord | None:
        """The room as this instance last wrote or read it, if no bell announced a newer
        version since, the bell connection stayed up, and it is recent; else None."""
        record = self._record
        if (
            record is None
            or record.version < self.heard_version
            or not self.feeds.bus.connected.is_set()
            or time.monotonic() - self._record_at > self.feeds.poll_interval_s
        ):
            return None
        return record

    def appended(self, last_seq: int) -> None:
        """Events were appended without a version change (chat, a count): the remembered
        record, still current, now ends at ``last_seq``."""
        record = self._record
        if record is not None and record.seq < last_seq:
            self._record = RoomRecord(record.version, last_seq, record.state, record.remembered)

    def remember(self, record: RoomRecord) -> None:
        if record.version >= self.heard_version:
            self._record, self._record_at = record, time.monotonic()

    def forget(self) -> None:
        self._record = None

    def committed(self, first_seq: int, events: Sequence[bytes]) -> None:
        """This instance just committed ``events`` as ``first_seq``...: deliver them now,
        without reading them back, if they follow what the feed has delivered (else the
        feed reads them from the log as usual, on the bell)."""
        if first_seq != self.cursor + 1:
            return
        for seq, data in enumerate(events, first_seq):
            self._deliver(StoredEvent(seq, data))

    def _deliver(self, event: StoredEvent) -> None:
        if event.seq <= self.cursor:
            return  # delivered already (read back while its commit delivered it)
        self.cursor = event.seq
        for listener in list(self.listeners):
            listener.take(event)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"room-feed-{self.room_id}")

    async def stop(self, *, unfollow: bool = True) -> None:
        """Stop reading and listening; with ``unfollow``, also take this store off the
        room's followers (a registration left behind costs other stores' commits a bell
        nobody reads, until the room expires)."""
        self._stopping = True
        self._wake.set()
        if self._task is not None:
            await stop_task(self._task)
            self._task = None
        with contextlib.suppress(RedisError, OSError):
            await self.feeds.bus.unsubscribe(self.bell)
        if unfollow:
            with contextlib.suppress(RedisError, OSError, StoreUnavailable):
                await self.feeds.unfollow(self.room_id)
        for listener in self.listeners:
            listener.end()

    async def _run(self) -> None:
        feeds = self.feeds
        while not self._stopping:
            self._wake.clear()  # a bell rung after this line wakes the wait below at once
            try:
                events = await read_range(feeds.hot, feeds.keys, self.room_id, self.cursor, None)
                feeds.watch.answered()
                if events:
                    for event in events:
                        self._deliver(event)
                    continue
                if not await self._wait() and not await self._room_exists():
                    self._room_gone()
                    return
            except (RedisError, OSError, StoreUnavailable) as exc:
                feeds.watch.failed(exc)
                await asyncio.sleep(min(feeds.poll_interval_s, 0.5))

    async def _wait(self) -> bool:
        """Wait for the bell; False if the poll interval passed without one."""
        # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation that
        # coincides with the bell, and stop() would then wait forever.
        try:
            async with asyncio.timeout(self.feeds.poll_interval_s):
                await self._wake.wait()
        except TimeoutError:
            return False
        return True

    async def _room_exists(self) -> bool:
        feeds = self.feeds
        return bool((await feeds.hot(("EXISTS", feeds.keys.room_state(self.room_id))))[0])

    def _room_gone(self) -> None:
        """The room expired: end every local subscription and let a new feed start if needed."""
        self.feeds.gone(self)
        for listener in self.listeners:
            listener.end()


class RoomFeeds:
    """This instance's feeds, one per room some local subscriber follows."""

    def __init__(
        self,
        hot: Hot,
        keys: Keys,
        bus: Bus,
        poll_interval_s: float,
        follow: Callable[[str], Awaitable[int | None]],
        unfollow: Callable[[str], Awaitable[None]],
    ) -> None:
        self.hot = hot
        self.keys = keys
        self.bus = bus
        self.poll_interval_s = poll_interval_s
        self.follow = follow
        """Register this store as a follower of a room (:meth:`Keys.room_followers`); the
        room's seq, None if there is no such room."""
        self.unfollow = unfollow
        self.follower = os.urandom(6).hex()
        """This store's name among a room's followers."""
        self._feeds: dict[str, RoomFeed] = {}
        self.watch = StoreWatch("the rooms followed here wait for it")
        """Says once that the feeds' reads fail, and once that they work again."""
        self.locks = KeyedLock()
        """A room's feed starts and stops in turn; other rooms' meanwhile (one lock for
        every room queued each new room's subscription round trips behind all others'
        under load: half a second per room made, with 100 games being played)."""

    def get(self, room_id: str) -> RoomFeed | None:
        """The room's feed if one runs here (no I/O)."""
        return self._feeds.get(room_id)

    async def open(self, room_id: str) -> RoomFeed | None:
        """The room's feed, started on first use; None if there is no such room."""
        async with self.locks.hold(room_id):
            feed = self._feeds.get(room_id)
            if feed is not None:
                return feed
            bell = self.keys.room_bell(room_id)
            feed = RoomFeed(self, room_id, bell)
            # Subscribed before registered: a commit in between may skip the bell, and
            # the seq read with the registration then covers it.
            await self.bus.subscribe(bell, feed.ring)
            seq = await self.follow(room_id)
            if seq is None:
                await self.bus.unsubscribe(bell)
                return None
            feed.cursor = seq
            feed.start()
            self._feeds[room_id] = feed
            return feed

    async def release(self, feed: RoomFeed) -> None:
        """A listener left: stop the feed if it was the last."""
        if not feed.listeners:
            async with self.locks.hold(feed.room_id):
                if not feed.listeners and self._feeds.get(feed.room_id) is feed:
                    del self._feeds[feed.room_id]
                    await feed.stop()

    def gone(self, feed: RoomFeed) -> None:
        """The feed's room expired: forget the feed and its bell."""
        if self._feeds.get(feed.room_id) is feed:
            del self._feeds[feed.room_id]
        self.bus.forget(feed.bell)

    def forget_records(self) -> None:
        """Bells may have been missed (the bus was down): no remembered record is trusted."""
        for feed in self._feeds.values():
            feed.forget()

    async def follow_all(self) -> None:
        """Register this store again as a follower of every room it follows (a Redis that
        restarted may have lost the last registrations): until then those rooms' commits
        elsewhere may ring no bell, and their feeds read them on their polls."""
        for feed in list(self._feeds.values()):
            with contextlib.suppress(RedisError, OSError, StoreUnavailable):
                await self.follow(feed.room_id)

    def ring_all(self) -> None:
        """Wake every feed to read what it may have missed."""
        for feed in list(self._feeds.values()):
            feed.ring(b"")

    async def stop_all(self) -> None:
        """The store closes: every feed stops. Its registrations stay (one round trip per
        room would hold up a shutdown, and with Redis down each would wait out the lane's
        retries); they cost other stores' commits a bell until the rooms expire."""
        for feed in list(self._feeds.values()):
            await feed.stop(unfollow=False)
        self._feeds.clear()
