"""The embedded store: plain dicts in this process, so ``gomoku-server`` runs
with no setup. Atomicity comes from asyncio itself: no method awaits between
reading and writing, so no other coroutine can interleave. Ratings and finished
games come from :class:`~server.store.archive.MemoryArchive`."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from server.store.archive import MemoryArchive
from server.store.base import (
    KEEP_DEADLINE,
    OWNED_ROOM_PENDING_MS,
    Announced,
    Attachment,
    Attendance,
    CommitResult,
    Conflict,
    LobbyChange,
    Outage,
    PlayerInbox,
    PlayerMessage,
    QueueEntry,
    RoomRecord,
    RoomState,
    Store,
    StoredEvent,
    pair_queue,
)
from server.store.kept import KeptRoom, KeptRooms
from server.store.pool import MemoryAiPool

_CLOSED = None  # queue sentinel: the store closed
_T = TypeVar("_T")


@dataclass
class _Room:
    version: int
    state: RoomState
    seq: int = 0
    log: deque[StoredEvent] = field(default_factory=deque)
    chat: deque[StoredEvent] = field(default_factory=deque)
    """The last chat lines appended (``Store.recent_chat``), whatever the log still holds."""
    followers: set[asyncio.Queue[StoredEvent | None]] = field(default_factory=set)
    listeners: dict[Callable[[StoredEvent], None], asyncio.Future[None]] = field(
        default_factory=dict
    )
    """Synchronous followers (:meth:`MemoryStore.listen_room`) and their end futures."""
    expires_at: float | None = None
    invite: str | None = None
    """The invite code that leads here, forgotten with the room."""
    conns: dict[str, str] = field(default_factory=dict)
    """Attached connections -> their players."""
    counts: dict[str, int] = field(default_factory=dict)
    """Players -> their attached connections (players with none are left out)."""
    left: dict[str, int] = field(default_factory=dict)
    """Players -> when their last connection left (epoch ms)."""
    shown: int = 0
    shown_at: int = 0
    """The spectator count last announced, and when (a held one's due time is in
    ``MemoryStore._counts_due``)."""


def _now_ms() -> float:
    return time.time() * 1000


SESSION_TTL_MS = 30 * 86_400_000


class MemoryStore(MemoryArchive, MemoryAiPool, Store):
    """Everything in dicts. ``max_events`` caps each room's log (older events
    are trimmed, and readers of them get a snapshot instead); a session unused for
    ``session_ttl_ms`` is forgotten."""

    def __init__(self, *, max_events: int = 2000, session_ttl_ms: int = SESSION_TTL_MS) -> None:
        MemoryArchive.__init__(self)
        MemoryAiPool.__init__(self)
        self.max_events = max_events
        self.session_ttl_ms = session_ttl_ms
        self._session_until: dict[str, float] = {}
        """Session -> when it is forgotten unless used (epoch ms)."""
        self._beat: int | None = None
        self._outage: Outage | None = None
        self._rooms: dict[str, _Room] = {}
        self._deadlines: dict[str, int] = {}
        self._counts_due: dict[str, int] = {}
        """Room -> when its held-back spectator count falls due: the clock ticker looks at
        these, as at ``_deadlines``, not at every room kept (finished rooms stay an hour)."""
        self._lobby: dict[str, bytes] = {}
        self._in_progress: set[str] = set()
        """Rooms whose game is in progress (:meth:`game_begun`)."""
        self._lobby_followers: set[asyncio.Queue[LobbyChange | None]] = set()
        self._sessions: dict[str, bytes] = {}
        self._player_rooms: dict[str, set[str]] = {}
        self._invites: dict[str, str] = {}
        self._owned: dict[str, dict[str, int]] = {}
        """Player -> rooms counted against their cap -> when counted (epoch ms)."""
        self._ai_seats: dict[str, bytes] = {}
        self._inboxes: set[_MemoryInbox] = set()
        self._queues: dict[str, dict[str, QueueEntry]] = {}
        self._instances: dict[str, int] = {}
        """Instance -> when its lease ends (epoch ms)."""
        self._instance_rooms: dict[str, set[str]] = {}

    async def close(self) -> None:
        for room in self._rooms.values():
            for q in room.followers:
                q.put_nowait(_CLOSED)
            _end_listeners(room)
        for lq in self._lobby_followers:
            lq.put_nowait(_CLOSED)
        for inbox in self._inboxes:
            inbox.queue.put_nowait(_CLOSED)

    # -- rooms -----------------------------------------------------------------

    def room_ids(self) -> list[str]:
        """Every room kept (they live in this process only, and end with it)."""
        return list(self._rooms)

    def _room(self, room_id: str) -> _Room | None:
        room = self._rooms.get(room_id)
        if room is not None and room.expires_at is not None and room.expires_at <= _now_ms():
            self._drop_room(room_id)
            return None
        return room

    def _drop_room(self, room_id: str) -> None:
        room = self._rooms.pop(room_id, None)
        self._deadlines.pop(room_id, None)
        self._counts_due.pop(room_id, None)
        self._in_progress.discard(room_id)
        if room is not None:
            if room.invite is not None and self._invites.get(room.invite) == room_id:
                del self._invites[room.invite]
            for q in room.followers:
                q.put_nowait(_CLOSED)
            _end_listeners(room)

    def purge_expired(self) -> int:
        """Drop expired rooms (and sessions) now (the server calls this now and then); how
        many rooms."""
        now = _now_ms()
        gone = [r for r, room in self._rooms.items() if room.expires_at and room.expires_at <= now]
        for room_id in gone:
            self._drop_room(room_id)
        for token_hash in [t for t, until in self._session_until.items() if until <= now]:
            self._sessions.pop(token_hash, None)
            del self._session_until[token_hash]
        return len(gone)

    async def purge(self) -> None:
        self.purge_expired()

    async def count_rooms(self) -> int:
        self.purge_expired()
        return len(self._rooms)

    async def count_lobby(self) -> int:
        return len(self._lobby)

    async def game_begun(self, room_id: str) -> None:
        if self._room(room_id) is not None:
            self._in_progress.add(room_id)

    async def count_games(self) -> int:
        self.purge_expired()
        return len(self._in_progress)

    async def load_room(self, room_id: str, *, fresh: bool = False) -> RoomRecord | None:
        room = self._room(room_id)
        return None if room is None else RoomRecord(room.version, room.seq, room.state)

    async def commit(
        self,
        room_id: str,
        expected_version: int,
        state: RoomState,
        events: Sequence[bytes] = (),
        *,
        deadline_ms: int | None = KEEP_DEADLINE,
    ) -> CommitResult:
        room = self._room(room_id)
        if expected_version == 0:
            if room is not None:
                raise Conflict(f"room {room_id} already exists")
            room = self._rooms[room_id] = _Room(version=0, state=state)
        elif room is None or room.version != expected_version:
            found = None if room is None else room.version
            raise Conflict(f"room {room_id}: expected version {expected_version}, found {found}")
        room.version += 1
        room.state = state
        first = self._log(room, events)
        if deadline_ms is None:
            self._deadlines.pop(room_id, None)
        elif deadline_ms != KEEP_DEADLINE:
            self._deadlines[room_id] = deadline_ms
        return CommitResult(room.version, first, room.seq)

    def _log(self, room: _Room, events: Sequence[bytes]) -> int:
        """Append events to the room's log and hand them to its followers; the first seq."""
        first = room.seq + 1
        for data in events:
            room.seq += 1
            entry = StoredEvent(room.seq, data)
            room.log.append(entry)
            for q in room.followers:
                q.put_nowait(entry)
            for deliver in list(room.listeners):
                deliver(entry)
        while len(room.log) > self.max_events:
            room.log.popleft()
        return first

    async def append(
        self, room_id: str, events: Sequence[bytes], *, keep_chat: int = 0
    ) -> CommitResult | None:
        room = self._room(room_id)
        if room is None:
            return None
        first = self._log(room, events)
        if keep_chat > 0:
            room.chat.extend(StoredEvent(first + i, data) for i, data in enumerate(events))
            while len(room.chat) > keep_chat:
                room.chat.popleft()
        return CommitResult(room.version, first, room.seq)

    async def recent_chat(self, room_id: str) -> list[StoredEvent]:
        room = self._room(room_id)
        return [] if room is None else list(room.chat)

    async def announce_count(
        self, room_id: str, count: int, event: bytes, now_ms: int, every_ms: int, *, due: bool
    ) -> Announced:
        room = self._room(room_id)
        if room is None:
            return Announced(room_gone=True)
        if due:
            self._counts_due.pop(room_id, None)
        if count == room.shown or room_id in self._counts_due:
            return Announced()
        if room.shown_at and now_ms < room.shown_at + every_ms:
            due_ms = self._counts_due[room_id] = room.shown_at + every_ms
            return Announced(due_ms=due_ms)
        room.shown, room.shown_at = count, now_ms
        return Announced(seq=self._log(room, [event]))

    async def read_events(self, room_id: str, after_seq: int) -> list[StoredEvent] | None:
        room = self._room(room_id)
        if room is None:
            return None
        if after_seq >= room.seq:
            return []
        oldest = room.log[0].seq if room.log else room.seq + 1
        if after_seq + 1 < oldest:
            return None
        return [e for e in room.log if e.seq > after_seq]

    @asynccontextmanager
    async def _follow_room(
        self, room_id: str, after_seq: int
    ) -> AsyncIterator[AsyncIterator[StoredEvent]]:
        queue: asyncio.Queue[StoredEvent | None] = asyncio.Queue()
        room = self._room(room_id)
        if room is None:
            queue.put_nowait(_CLOSED)
        else:
            for entry in room.log:
                if entry.seq > after_seq:
                    queue.put_nowait(entry)
            room.followers.add(queue)
        try:
            yield _drain(queue)
        finally:
            if room is not None:
                room.followers.discard(queue)

    def subscribe_room(
        self, room_id: str, after_seq: int
    ) -> AbstractAsyncContextManager[AsyncIterator[StoredEvent]]:
        return self._follow_room(room_id, after_seq)

    @asynccontextmanager
    async def _listen_room(
        self, room_id: str, after_seq: int, deliver: Callable[[StoredEvent], None]
    ) -> AsyncIterator[asyncio.Future[None]]:
        ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        room = self._room(room_id)
        if room is None:
            ended.set_result(None)
        else:
            for entry in list(room.log):
                if entry.seq > after_seq:
                    deliver(entry)
            room.listeners[deliver] = ended
        try:
            yield ended
        finally:
            if room is not None:
                room.listeners.pop(deliver, None)

    def listen_room(
        self, room_id: str, after_seq: int, deliver: Callable[[StoredEvent], None]
    ) -> AbstractAsyncContextManager[asyncio.Future[None]]:
        return self._listen_room(room_id, after_seq, deliver)

    async def expire_room(self, room_id: str, ttl_ms: int, *, invite: str | None = None) -> None:
        room = self._rooms.get(room_id)
        self._in_progress.discard(room_id)
        if room is not None:
            room.expires_at = _now_ms() + ttl_ms
            room.invite = invite

    # -- attachments (presence) --------------------------------------------------

    async def attach(self, room_id: str, player_id: str, conn_id: str) -> int | None:
        room = self._room(room_id)
        if room is None:
            return None
        if conn_id not in room.conns:
            room.conns[conn_id] = player_id
            room.counts[player_id] = room.counts.get(player_id, 0) + 1
            self._instance_rooms.setdefault(_instance_of(conn_id), set()).add(room_id)
        return room.counts[player_id]

    async def detach(self, room_id: str, conn_id: str, now_ms: int) -> int | None:
        room = self._room(room_id)
        if room is None or conn_id not in room.conns:
            return None
        return _drop_conn(room, conn_id, now_ms)

    async def connections_of(self, room_id: str, player_id: str) -> list[str]:
        room = self._room(room_id)
        if room is None:
            return []
        return sorted(conn for conn, player in room.conns.items() if player == player_id)

    async def attendance(self, room_id: str, players: Sequence[str]) -> Attendance:
        room = self._room(room_id)
        if room is None:
            return Attendance(0, {})
        seated = {
            p: Attachment(room.counts.get(p, 0), room.left.get(p))
            for p in players
            if p in room.counts or p in room.left
        }
        return Attendance(len(room.counts), seated, room.shown)

    async def data_epoch(self) -> str:
        return f"memory-{id(self):x}"  # this process's data: lost only with the process

    async def instance_beat(self, instance_id: str, until_ms: int) -> int | None:
        before = self._instances.get(instance_id)
        self._instances[instance_id] = until_ms
        return before

    async def expired_instances(self, now_ms: int, lease_ms: int) -> list[str]:
        dead = sorted(i for i, until in self._instances.items() if until <= now_ms)
        for instance_id in dead:
            self._instances[instance_id] = now_ms + lease_ms
        return dead

    async def reap_instance(self, instance_id: str, now_ms: int) -> dict[str, list[str]]:
        self._instances.pop(instance_id, None)
        gone: dict[str, list[str]] = {}
        prefix = instance_id + "/"
        for room_id in sorted(self._instance_rooms.pop(instance_id, ())):
            room = self._room(room_id)
            if room is None:
                continue
            for conn_id in [c for c in room.conns if c.startswith(prefix)]:
                player = room.conns[conn_id]
                if _drop_conn(room, conn_id, now_ms) == 0:
                    gone.setdefault(room_id, []).append(player)
        return gone

    # -- games kept over a restart (the embedded store's data file) ------------------

    def keep_rooms(self, room_ids: Sequence[str]) -> KeptRooms:
        """``room_ids`` as they are now, with what the store knows of each (its log, its
        deadline, its lobby line, its seated players and invite code), and the last beat:
        what :meth:`restore_rooms` needs to take their games up again in a new process."""
        rooms = []
        for room_id in room_ids:
            room = self._room(room_id)
            if room is None:
                continue
            rooms.append(
                KeptRoom(
                    id=room_id,
                    version=room.version,
                    state=bytes(room.state),
                    seq=room.seq,
                    log=[(e.seq, e.data) for e in room.log],
                    chat=[(e.seq, e.data) for e in room.chat],
                    deadline_ms=self._deadlines.get(room_id),
                    lobby=self._lobby.get(room_id),
                    in_progress=room_id in self._in_progress,
                    players=sorted(p for p, rs in self._player_rooms.items() if room_id in rs),
                    invites=sorted(c for c, r in self._invites.items() if r == room_id),
                )
            )
        return KeptRooms(beat_ms=self._beat, rooms=rooms)

    def restore_rooms(self, kept: KeptRooms) -> list[str]:
        """Take up the rooms :meth:`keep_rooms` kept (none of them may exist here yet);
        the ids restored. The last beat comes back too, so the first beat finds the time
        the server was down an outage, and the running clocks get it back."""
        if kept.beat_ms is not None and (self._beat is None or kept.beat_ms > self._beat):
            self._beat = kept.beat_ms
        restored = []
        for k in kept.rooms:
            if k.id in self._rooms:
                continue
            room = self._rooms[k.id] = _Room(version=k.version, state=k.state, seq=k.seq)
            room.log.extend(StoredEvent(seq, data) for seq, data in k.log)
            room.chat.extend(StoredEvent(seq, data) for seq, data in k.chat)
            if k.deadline_ms is not None:
                self._deadlines[k.id] = k.deadline_ms
            if k.lobby is not None:
                self._lobby[k.id] = k.lobby
            if k.in_progress:
                self._in_progress.add(k.id)
            for player in k.players:
                self._player_rooms.setdefault(player, set()).add(k.id)
            for code in k.invites:
                self._invites[code] = k.id
            restored.append(k.id)
        return restored

    # -- clock deadlines -------------------------------------------------------

    async def set_deadline(self, room_id: str, deadline_ms: int | None) -> None:
        if deadline_ms is None:
            self._deadlines.pop(room_id, None)
        elif room_id in self._rooms:
            self._deadlines[room_id] = deadline_ms

    async def claim_due(self, now_ms: int, lease_ms: int, limit: int = 100) -> list[str]:
        due: dict[str, int] = {}
        for index in (self._deadlines, self._counts_due):
            for room_id, at in index.items():
                if at <= now_ms:
                    due[room_id] = min(at, due.get(room_id, at))
        claimed = sorted((d, r) for r, d in due.items())[:limit]
        for _, room_id in claimed:
            for index in (self._deadlines, self._counts_due):
                if (held := index.get(room_id)) is not None and held <= now_ms:
                    index[room_id] = now_ms + lease_ms
        return [room_id for _, room_id in claimed]

    async def beat(self, now_ms: int, gap_ms: int) -> Outage | None:
        previous = self._beat
        if previous is None or now_ms > previous:
            self._beat = now_ms
        if previous is not None and now_ms - previous > gap_ms:
            self._outage = Outage(previous, now_ms)
        return self._outage

    def deadline(self, room_id: str) -> int | None:
        """The room's current deadline (for tests and introspection)."""
        return self._deadlines.get(room_id)

    # -- lobby -----------------------------------------------------------------

    def _tell_lobby(self, change: LobbyChange) -> None:
        for q in self._lobby_followers:
            q.put_nowait(change)

    async def lobby_put(self, room_id: str, summary: bytes) -> None:
        self._lobby[room_id] = summary
        self._tell_lobby(LobbyChange(room_id, summary))

    async def lobby_remove(self, room_id: str) -> None:
        if self._lobby.pop(room_id, None) is not None:
            self._tell_lobby(LobbyChange(room_id, None))

    async def lobby_list(self) -> dict[str, bytes]:
        return dict(self._lobby)

    @asynccontextmanager
    async def _follow_lobby(self) -> AsyncIterator[AsyncIterator[LobbyChange]]:
        queue: asyncio.Queue[LobbyChange | None] = asyncio.Queue()
        self._lobby_followers.add(queue)
        try:
            yield _drain(queue)
        finally:
            self._lobby_followers.discard(queue)

    def subscribe_lobby(self) -> AbstractAsyncContextManager[AsyncIterator[LobbyChange]]:
        return self._follow_lobby()

    # -- sessions, seats and invites ------------------------------------------

    async def put_session(self, token_hash: str, data: bytes) -> None:
        self._sessions[token_hash] = data
        self._session_until[token_hash] = _now_ms() + self.session_ttl_ms

    async def get_session(self, token_hash: str) -> bytes | None:
        if self._session_until.get(token_hash, 0) <= _now_ms():
            await self.delete_session(token_hash)
            return None
        self._session_until[token_hash] = _now_ms() + self.session_ttl_ms
        return self._sessions.get(token_hash)

    async def delete_session(self, token_hash: str) -> None:
        self._sessions.pop(token_hash, None)
        self._session_until.pop(token_hash, None)

    async def add_player_room(self, player_id: str, room_id: str) -> None:
        self._player_rooms.setdefault(player_id, set()).add(room_id)

    async def remove_player_room(self, player_id: str, room_id: str) -> None:
        rooms = self._player_rooms.get(player_id)
        if rooms is not None:
            rooms.discard(room_id)

    async def player_rooms(self, player_id: str) -> list[str]:
        rooms = self._player_rooms.get(player_id)
        if rooms is None:
            return []
        gone = {r for r in rooms if self._room(r) is None}
        rooms -= gone  # expired meanwhile: each hello of a long-lived player looked past more
        if not rooms:
            del self._player_rooms[player_id]
        return sorted(rooms)

    async def add_owned_room(self, player_id: str, room_id: str, limit: int, now_ms: int) -> bool:
        owned = self._owned.setdefault(player_id, {})
        if room_id not in owned and len(owned) >= limit:
            settled = now_ms - OWNED_ROOM_PENDING_MS
            for gone in [r for r, at in owned.items() if at <= settled and not self._room(r)]:
                del owned[gone]
        if room_id not in owned and len(owned) >= limit:
            return False
        owned.setdefault(room_id, now_ms)
        return True

    async def remove_owned_room(self, player_id: str, room_id: str) -> None:
        owned = self._owned.get(player_id)
        if owned is not None:
            owned.pop(room_id, None)
            if not owned:
                del self._owned[player_id]

    async def owned_rooms(self, player_id: str) -> list[str]:
        return sorted(self._owned.get(player_id, ()))

    async def put_invite(self, code: str, room_id: str) -> bool:
        if code in self._invites and self._room(self._invites[code]) is not None:
            return False
        self._invites[code] = room_id
        return True

    async def get_invite(self, code: str) -> str | None:
        room_id = self._invites.get(code)
        return room_id if room_id is not None and self._room(room_id) is not None else None

    # -- AI seats in play --------------------------------------------------------

    async def put_ai_seat(
        self,
        player_id: str,
        data: bytes,
        *,
        replacing: bytes | None = None,
        within: int | None = None,
    ) -> bool:
        current = self._ai_seats.get(player_id)
        if replacing is not None and current is not None and current != replacing:
            return False
        if current is None and within is not None and len(self._ai_seats) >= within:
            return False
        self._ai_seats[player_id] = data
        return True

    async def drop_ai_seat(self, player_id: str) -> bool:
        return self._ai_seats.pop(player_id, None) is not None

    async def ai_seats(self) -> dict[str, bytes]:
        return dict(self._ai_seats)

    # -- player messages -------------------------------------------------------

    async def publish_player(self, player_id: str, data: bytes) -> None:
        message = PlayerMessage(player_id, data)
        for inbox in self._inboxes:
            if player_id in inbox.players:
                inbox.queue.put_nowait(message)

    @asynccontextmanager
    async def _inbox(self) -> AsyncIterator[PlayerInbox]:
        inbox = _MemoryInbox()
        self._inboxes.add(inbox)
        try:
            yield inbox
        finally:
            self._inboxes.discard(inbox)

    def subscribe_players(self) -> AbstractAsyncContextManager[PlayerInbox]:
        return self._inbox()

    # -- matchmaking -------------------------------------------------------------

    async def queue_add(self, queue: str, entry: QueueEntry) -> bool:
        waiting = self._queues.setdefault(queue, {})
        if entry.player_id in waiting:
            return False
        waiting[entry.player_id] = entry
        return True

    async def queue_remove(self, queue: str, player_id: str) -> bool:
        waiting = self._queues.get(queue)
        if waiting is None or waiting.pop(player_id, None) is None:
            return False
        if not waiting:
            del self._queues[queue]
        return True

    async def queue_entries(self, queue: str) -> list[QueueEntry]:
        return sorted(self._queues.get(queue, {}).values(), key=lambda e: (e.rating, e.since_ms))

    async def queue_names(self) -> list[str]:
        return sorted(self._queues)

    async def queue_pair(
        self, queue: str, now_ms: int, *, base_gap: float, gap_per_second: float
    ) -> list[tuple[QueueEntry, QueueEntry]]:
        waiting = self._queues.get(queue)
        if not waiting:
            return []
        pairs = pair_queue(
            list(waiting.values()), now_ms, base_gap=base_gap, gap_per_second=gap_per_second
        )
        for a, b in pairs:
            del waiting[a.player_id]
            del waiting[b.player_id]
        if not waiting:
            del self._queues[queue]
        return pairs


class _MemoryInbox(PlayerInbox):
    def __init__(self) -> None:
        self.players: set[str] = set()
        self.queue: asyncio.Queue[PlayerMessage | None] = asyncio.Queue()

    async def add(self, player_id: str) -> None:
        self.players.add(player_id)

    async def remove(self, player_id: str) -> None:
        self.players.discard(player_id)

    def __aiter__(self) -> AsyncIterator[PlayerMessage]:
        return _drain(self.queue)


def _instance_of(conn_id: str) -> str:
    return conn_id.partition("/")[0]


def _drop_conn(room: _Room, conn_id: str, now_ms: int) -> int:
    """Detach a connection; its player's attached connections left."""
    player = room.conns.pop(conn_id)
    count = room.counts[player] - 1
    if count > 0:
        room.counts[player] = count
    else:
        del room.counts[player]
        room.left[player] = now_ms
    return count


def _end_listeners(room: _Room) -> None:
    for ended in room.listeners.values():
        if not ended.done():
            ended.set_result(None)
    room.listeners.clear()


async def _drain(queue: asyncio.Queue[_T | None]) -> AsyncIterator[_T]:
    while (item := await queue.get()) is not None:
        yield item
