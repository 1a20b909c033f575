"""The store interface: everything the server shares between its connections
and, with a networked backend, between server instances.

Values are opaque ``bytes`` (the server encodes them with msgspec), so a
backend only moves bytes and numbers around and never imports game code. The
shape follows what Redis does natively, so the Redis backend is a thin layer:

* a room is a versioned blob plus an append-only event log; :meth:`Store.commit`
  writes both in one atomic step guarded by the expected version (a Lua
  check-and-set), and also sets or clears the room's clock deadline in that
  step, so a crash can never leave a move without its event or its deadline;
* event sequence numbers are gap-free per room (1, 2, 3...), like a stream's
  entries; old entries may be trimmed, and readers asking for trimmed ones get
  ``None`` and fall back to a snapshot;
* fan-out is a subscription that yields a room's events in order from a given
  sequence number (a stream read on Redis), so every instance can serve
  watchers of any room;
* the lobby is an index of summaries with a change feed (hash + pub/sub);
* matchmaking queues pair players atomically (a sorted set + Lua);
* clock deadlines live in one sorted set; any instance claims due ones with a
  lease, so a dead instance's clocks are still flagged by another;
* a heartbeat every instance writes tells when no server was running (or none
  could reach the store), so clocks can give that time back (:meth:`Store.beat`);
* besides the versioned game record, a room keeps what changes without a game action:
  which connections (of any instance) are attached to it, per player
  (:meth:`Store.attach`), and events that are appended without a version check
  (:meth:`Store.append`: chat; :meth:`Store.announce_count`: the spectator count, at most
  once per interval). These never touch the record's version, so a crowd chatting and
  coming and going never makes a game action conflict. A room's last chat lines are also
  kept apart from its log, written in the same step as their events, so a snapshot has
  them without reading the log (:meth:`Store.recent_chat`);
* every instance holds a lease it renews (:meth:`Store.instance_beat`); the attachments
  of an instance whose lease ran out (it was killed) are dropped by a survivor
  (:meth:`Store.reap_instance`), so they cannot keep a player online forever;
* ratings and finished games (:class:`~server.store.archive.Archive`) are part of
  every store, so the server needs one object for all it keeps.

A networked backend raises :class:`StoreUnavailable` from any method when it
cannot reach its server; the caller may retry once it is back.
"""

from __future__ import annotations

import abc
import asyncio
import itertools
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import NamedTuple, SupportsBytes

from server.store.archive import Archive
from server.store.pool import AiPool


class StoreUnavailable(ConnectionError):
    """The store's backend cannot be reached right now (Redis down or restarting).

    The caller may retry once the store answers again; a write that was under way
    may or may not have landed (a commit's own retry is recognised, see the Redis
    store). A ``ConnectionError`` (so an ``OSError``), because that is what it is.
    """


class Outage(NamedTuple):
    """A stretch of time when no server instance beat (epoch ms, ``start < end``):
    every server was down, or none could reach the store."""

    start_ms: int
    end_ms: int


class Conflict(Exception):
    """A commit's expected version no longer matches: someone else wrote first.

    The caller reloads, re-applies its action to the fresh state and tries again.
    """


RoomState = bytes | SupportsBytes
"""A room's state as committed: its bytes, or an object that gives them (``bytes()``)
when asked. A store that keeps states in this process may keep such an object as it is
and hand it back (so a room that is never asked for its bytes is never encoded); one
that writes them elsewhere asks for the bytes when it commits."""


class RoomRecord(NamedTuple):
    """A room as stored: its version (1 after creation, +1 per commit), the
    sequence number of its last event, and its state: what was committed (the memory
    store), or its bytes."""

    version: int
    seq: int
    state: RoomState
    remembered: bool = False
    """Answered from this instance's memory of the room, not read from the store: it
    may be a moment behind a commit another instance just made (see ``load_room``)."""


class CommitResult(NamedTuple):
    """What a commit wrote: the new version and the sequence numbers given to
    its events (``first_seq > last_seq`` when it appended none)."""

    version: int
    first_seq: int
    last_seq: int


class StoredEvent(NamedTuple):
    """One entry of a room's event log."""

    seq: int
    data: bytes


class LobbyChange(NamedTuple):
    """A lobby update: a room's new summary, or ``None`` when it left the lobby."""

    room_id: str
    summary: bytes | None


class Attachment(NamedTuple):
    """A player's connections attached to a room, over every instance."""

    conns: int
    """Connections attached now (0: none)."""
    left_ms: int | None = None
    """When the count last fell to 0 (epoch ms), if it ever did."""


class Attendance(NamedTuple):
    """Who is attached to a room: how many players in all, the asked-for players' own
    attachments (the seated ones), and the spectator count the room last announced."""

    players: int
    seated: dict[str, Attachment]
    shown: int = 0

    def attached(self, player_id: str) -> int:
        """How many connections ``player_id`` (one of those asked for) has attached."""
        found = self.seated.get(player_id)
        return 0 if found is None else found.conns


class Announced(NamedTuple):
    """What :meth:`Store.announce_count` did: appended the event as ``seq``; or held it,
    to be announced at ``due_ms``; or nothing (the count is the one last announced, or an
    announcement is already held). ``room_gone`` when there is no such room."""

    seq: int = 0
    due_ms: int | None = None
    room_gone: bool = False


class QueueEntry(NamedTuple):
    """A player waiting in a matchmaking queue."""

    player_id: str
    rating: float
    since_ms: int
    name: str = ""


class PlayerMessage(NamedTuple):
    """A message addressed to a player wherever they are connected."""

    player_id: str
    data: bytes


KEEP_DEADLINE = -1
"""``commit(deadline_ms=KEEP_DEADLINE)`` leaves the room's clock deadline as it is."""

OWNED_ROOM_PENDING_MS = 60_000
"""A room counted against its owner's cap but not (or no longer) in the store is taken
for one being created for this long after it was counted; after that it is forgotten
(:meth:`Store.add_owned_room`)."""


class Store(Archive, AiPool):
    """Shared state of the server. Every method is a coroutine that is atomic
    on its own; :meth:`commit` is the only multi-part write and is atomic too.
    The :class:`Archive` methods (ratings, finished games) and the :class:`AiPool`
    ones (AI jobs, worker and instance records) come with every store."""

    # -- lifecycle -----------------------------------------------------------

    async def start(self) -> None:  # an optional hook
        """Connect (networked backends). The memory store has nothing to do."""

    async def close(self) -> None:  # an optional hook
        """Release connections and end every open subscription."""

    async def healthy(self) -> bool:
        """Whether the backend answers right now (for ``/healthz``)."""
        return True

    async def purge(self) -> None:  # an optional hook
        """Drop what has expired and nothing else drops (the server calls this now and
        then): the memory store's rooms, the Redis store's index of rooms."""

    @abc.abstractmethod
    async def count_rooms(self) -> int:
        """Rooms in the store (every instance's), expired ones not counted."""

    @abc.abstractmethod
    async def count_lobby(self) -> int:
        """Rooms listed in the lobby."""

    @abc.abstractmethod
    async def game_begun(self, room_id: str) -> None:
        """Count the room's game as in progress until :meth:`expire_room` (which every
        game's end and every emptied room calls) or the room's expiry. May run twice."""

    @abc.abstractmethod
    async def count_games(self) -> int:
        """Games in progress (:meth:`game_begun`) in rooms that have not expired."""

    # -- rooms -----------------------------------------------------------------

    @abc.abstractmethod
    async def load_room(self, room_id: str, *, fresh: bool = False) -> RoomRecord | None:
        """The room's current record, or None if there is no such room. A store shared
        by several instances may answer from what this instance last wrote or read
        (``remembered``), which a commit elsewhere can have outdated for a moment
        (writing it then fails with :class:`Conflict`); ``fresh`` reads the store."""

    @abc.abstractmethod
    async def commit(
        self,
        room_id: str,
        expected_version: int,
        state: RoomState,
        events: Sequence[bytes] = (),
        *,
        deadline_ms: int | None = KEEP_DEADLINE,
    ) -> CommitResult:
        """Atomically replace the room's state and append ``events`` to its log.

        ``expected_version`` 0 creates the room (Conflict if it exists); any
        other value must equal the stored version (Conflict otherwise, and
        nothing is written). Events get the next gap-free sequence numbers.
        ``deadline_ms`` sets the room's clock deadline (epoch ms), None clears
        it, :data:`KEEP_DEADLINE` leaves it alone.
        """

    @abc.abstractmethod
    async def read_events(self, room_id: str, after_seq: int) -> list[StoredEvent] | None:
        """Every event with ``seq > after_seq``, oldest first; None if some of
        them were trimmed from the log (or the room is unknown): send a snapshot."""

    @abc.abstractmethod
    def subscribe_room(
        self, room_id: str, after_seq: int
    ) -> AbstractAsyncContextManager[AsyncIterator[StoredEvent]]:
        """Follow a room's log: yields the events after ``after_seq`` that are
        still retained, then each new one as it is committed, in order."""

    def listen_room(
        self, room_id: str, after_seq: int, deliver: Callable[[StoredEvent], None]
    ) -> AbstractAsyncContextManager[asyncio.Future[None]] | None:
        """Optional: like :meth:`subscribe_room`, but each event is handed to ``deliver``
        synchronously (the memory store: inside the commit that writes it; the Redis store:
        as its feed reads it, or inside this instance's own commit), which saves the
        fan-out a queue and a trip through the event loop. The context yields a
        future that is done once the room is gone (or the store closed). ``deliver``
        must not raise or await. None (the default): not supported, use
        :meth:`subscribe_room`."""
        return None

    @abc.abstractmethod
    async def expire_room(self, room_id: str, ttl_ms: int, *, invite: str | None = None) -> None:
        """Forget the room (state, log, kept chat lines, attachments, deadline; and the
        ``invite`` code that leads to it) after ``ttl_ms``; a later commit, append or attach
        does not cancel this. Used for finished and abandoned rooms."""

    @abc.abstractmethod
    async def append(
        self, room_id: str, events: Sequence[bytes], *, keep_chat: int = 0
    ) -> CommitResult | None:
        """Append ``events`` to the room's log with the next sequence numbers, without a
        version check and without changing the room's state or version (chat). None if
        there is no such room.

        With ``keep_chat``, the events are chat lines: in the same atomic step each is also
        kept with its sequence number among the room's last ``keep_chat`` lines
        (:meth:`recent_chat`)."""

    @abc.abstractmethod
    async def recent_chat(self, room_id: str) -> list[StoredEvent]:
        """The chat lines :meth:`append` kept for the room (the last ones, however far back
        in its log), oldest first; empty for no room. Kept apart from the log, so a
        snapshot reads a room's last lines without reading its events; they expire with
        the room (:meth:`expire_room`)."""

    @abc.abstractmethod
    async def announce_count(
        self, room_id: str, count: int, event: bytes, now_ms: int, every_ms: int, *, due: bool
    ) -> Announced:
        """Append ``event``, which announces ``count`` (the spectator count), throttled.

        Nothing happens if ``count`` is the count last announced, or an announcement is
        already held. Within ``every_ms`` of the last announcement the event is held
        instead: the room falls due (:meth:`claim_due`) at the end of the interval, and the
        caller then announces the count of that time, with ``due``: that clears the held
        state first, whatever it finds. Atomic, like :meth:`append`."""

    # -- attachments (presence) --------------------------------------------------

    @abc.abstractmethod
    async def attach(self, room_id: str, player_id: str, conn_id: str) -> int | None:
        """Note that connection ``conn_id`` of ``player_id`` is attached to the room; the
        player's number of attached connections afterwards (attaching twice counts once),
        or None if there is no such room. ``conn_id`` is unique over every instance and
        starts with its instance's id and ``/``, so :meth:`reap_instance` finds it."""

    @abc.abstractmethod
    async def detach(self, room_id: str, conn_id: str, now_ms: int) -> int | None:
        """Detach a connection; its player's number of attached connections afterwards
        (reaching 0 notes ``now_ms`` as when they left), or None if it was not attached."""

    @abc.abstractmethod
    async def connections_of(self, room_id: str, player_id: str) -> list[str]:
        """The ids of ``player_id``'s connections attached to the room, on any instance
        (each id starts with its instance's id), sorted; none for no room. The processes
        of ``gomoku-server --processes`` read where a game's players are connected."""

    @abc.abstractmethod
    async def attendance(self, room_id: str, players: Sequence[str]) -> Attendance:
        """How many players have connections attached to the room, the attachments of
        ``players``, and the spectator count last announced (all zero for no room)."""

    @abc.abstractmethod
    async def data_epoch(self) -> str:
        """An id of the store's data, made by the first call on an empty store: a later
        call that answers another one finds the data was lost meanwhile (a Redis
        restarted without persistence), with every room, session and lease in it."""

    @abc.abstractmethod
    async def instance_beat(self, instance_id: str, until_ms: int) -> int | None:
        """The instance is alive and holds its lease until ``until_ms``. Returns where
        its lease stood before: the ``until_ms`` of its previous beat while nobody touched
        it, another value once a reaper claimed it, None when it had none (its first beat,
        or it was reaped). An instance that finds its lease taken knows its connections'
        attachments may be gone while the connections are still open."""

    @abc.abstractmethod
    async def expired_instances(self, now_ms: int, lease_ms: int) -> list[str]:
        """Instances whose lease ran out before ``now_ms`` (killed, or cut off from the
        store). Each is handed to one caller: its lease moves to ``now_ms + lease_ms`` in
        the same step, so a caller that dies before reaping it leaves it to another."""

    @abc.abstractmethod
    async def reap_instance(self, instance_id: str, now_ms: int) -> dict[str, list[str]]:
        """Detach every connection of a dead instance and forget the instance: room ->
        the players whose last connection there went with it (their presence and the
        rooms' spectator counts change)."""

    # -- clock deadlines -------------------------------------------------------

    @abc.abstractmethod
    async def set_deadline(self, room_id: str, deadline_ms: int | None) -> None:
        """Set (or with None clear) the room's clock deadline outside a commit."""

    @abc.abstractmethod
    async def claim_due(self, now_ms: int, lease_ms: int, limit: int = 100) -> list[str]:
        """Rooms whose deadline, or held count announcement (:meth:`announce_count`), is
        ``<= now_ms``. Each claimed deadline moves to ``now_ms + lease_ms`` in the same
        step, so a claimer that dies before committing leaves it for another instance
        to claim again."""

    @abc.abstractmethod
    async def beat(self, now_ms: int, gap_ms: int) -> Outage | None:
        """Record that a server instance is alive at ``now_ms``, and return the latest
        outage (None if there never was one).

        Every instance beats several times a second. If the previous beat (by any
        instance) is more than ``gap_ms`` older than ``now_ms``, the time between the
        two is an outage and becomes the latest one, in the same atomic step, so
        exactly one caller discovers each outage. The beat never moves backwards (an
        instance whose clock is behind does not shorten the next gap).
        """

    # -- lobby -----------------------------------------------------------------

    @abc.abstractmethod
    async def lobby_put(self, room_id: str, summary: bytes) -> None:
        """Add or update a public room's summary and tell lobby subscribers."""

    @abc.abstractmethod
    async def lobby_remove(self, room_id: str) -> None:
        """Drop a room from the lobby (no-op if absent) and tell subscribers."""

    @abc.abstractmethod
    async def lobby_list(self) -> dict[str, bytes]:
        """Every room in the lobby: id -> summary."""

    @abc.abstractmethod
    def subscribe_lobby(self) -> AbstractAsyncContextManager[AsyncIterator[LobbyChange]]:
        """Follow lobby changes made after subscribing, in order."""

    # -- sessions, seats and invites ------------------------------------------

    @abc.abstractmethod
    async def put_session(self, token_hash: str, data: bytes) -> None:
        """Store a session under the hash of its resume token (never the token). A session
        not used for the store's session time to live is forgotten."""

    @abc.abstractmethod
    async def get_session(self, token_hash: str) -> bytes | None:
        """The session stored under ``token_hash``, or None; reading it is using it, so
        its time to live starts again."""

    @abc.abstractmethod
    async def delete_session(self, token_hash: str) -> None:
        """Forget a session (no-op if absent): its token stops working. Used when an AI
        seat moves to another worker, so the old worker's token cannot act any more."""

    @abc.abstractmethod
    async def add_player_room(self, player_id: str, room_id: str) -> None:
        """Remember that the player holds a seat in the room (for resume)."""

    @abc.abstractmethod
    async def remove_player_room(self, player_id: str, room_id: str) -> None:
        """Forget a seat (no-op if absent)."""

    @abc.abstractmethod
    async def player_rooms(self, player_id: str) -> list[str]:
        """Rooms the player is seated in, sorted."""

    @abc.abstractmethod
    async def add_owned_room(self, player_id: str, room_id: str, limit: int, now_ms: int) -> bool:
        """Count a room the player asked for against their cap of open rooms, in one atomic
        step on every instance: True (counted) if they own fewer than ``limit`` (or it is
        counted already), False (nothing written) if not.

        Before refusing, rooms counted at least :data:`OWNED_ROOM_PENDING_MS` before
        ``now_ms`` that are no longer in the store are forgotten: their end was never
        released (an instance died, the store was down), and they must not hold a slot
        for ever. A younger entry may be a room still being created."""

    @abc.abstractmethod
    async def remove_owned_room(self, player_id: str, room_id: str) -> None:
        """Release a counted room (no-op if absent): its game ended or it emptied."""

    @abc.abstractmethod
    async def owned_rooms(self, player_id: str) -> list[str]:
        """The rooms counted against the player's cap, sorted."""

    @abc.abstractmethod
    async def put_invite(self, code: str, room_id: str) -> bool:
        """Map a private room's invite code to it; False if the code is taken."""

    @abc.abstractmethod
    async def get_invite(self, code: str) -> str | None:
        """The room an invite code leads to, or None."""

    # -- AI seats in play --------------------------------------------------------

    @abc.abstractmethod
    async def put_ai_seat(
        self,
        player_id: str,
        data: bytes,
        *,
        replacing: bytes | None = None,
        within: int | None = None,
    ) -> bool:
        """Record an AI seat in play (``data`` describes it; opaque here), so that a
        restarted server still knows the AI seats it must look after. True if written.

        With ``replacing``, write only if the stored record is exactly ``replacing``
        (or there is none), in one atomic step: of two server instances handing the
        same seat to a new worker at once, exactly one wins; the other gets False and
        nothing is written.

        With ``within``, a seat not recorded yet is written only if fewer than
        ``within`` seats are recorded (the AI workers' capacity over the cluster), in
        the same atomic step: instances giving out seats at once never exceed it."""

    @abc.abstractmethod
    async def drop_ai_seat(self, player_id: str) -> bool:
        """Forget an AI seat's record: the seat was released. Whether there was one: of
        instances releasing the same seat at once, one is told True (the one to say so
        in its log)."""

    @abc.abstractmethod
    async def ai_seats(self) -> dict[str, bytes]:
        """Every AI seat recorded as in play: player id -> record."""

    # -- player messages -------------------------------------------------------

    @abc.abstractmethod
    async def publish_player(self, player_id: str, data: bytes) -> None:
        """Deliver ``data`` to current subscribers of the player (fire and forget)."""

    @abc.abstractmethod
    def subscribe_players(self) -> AbstractAsyncContextManager[PlayerInbox]:
        """An inbox for messages to the players this instance serves; add and
        remove player ids as connections come and go."""

    # -- matchmaking -------------------------------------------------------------

    @abc.abstractmethod
    async def queue_add(self, queue: str, entry: QueueEntry) -> bool:
        """Put a player in a queue; False if they already wait in it."""

    @abc.abstractmethod
    async def queue_remove(self, queue: str, player_id: str) -> bool:
        """Take a player out of a queue; False if they were not in it."""

    @abc.abstractmethod
    async def queue_entries(self, queue: str) -> list[QueueEntry]:
        """Who waits in a queue, lowest rating first."""

    @abc.abstractmethod
    async def queue_names(self) -> list[str]:
        """Queues that have someone waiting."""

    @abc.abstractmethod
    async def queue_pair(
        self, queue: str, now_ms: int, *, base_gap: float, gap_per_second: float
    ) -> list[tuple[QueueEntry, QueueEntry]]:
        """Atomically take out of the queue every pair that may play now.

        A pair may play when their rating difference is at most the wider of
        the two players' allowed gaps, ``base_gap + gap_per_second * waited_s``
        (so a long wait widens the search). Closest pairs are taken first and a
        player is in at most one pair; the first of a pair waited longer.
        """


class PlayerInbox(abc.ABC):
    """Messages for a changing set of players, as one ordered stream."""

    @abc.abstractmethod
    async def add(self, player_id: str) -> None:
        """Start receiving the player's messages."""

    @abc.abstractmethod
    async def remove(self, player_id: str) -> None:
        """Stop receiving the player's messages."""

    @abc.abstractmethod
    def __aiter__(self) -> AsyncIterator[PlayerMessage]:
        """Messages in the order they were published."""


def pair_queue(
    entries: Sequence[QueueEntry], now_ms: int, *, base_gap: float, gap_per_second: float
) -> list[tuple[QueueEntry, QueueEntry]]:
    """The pairing rule of :meth:`Store.queue_pair`, as a pure function so
    every backend applies the same one (Redis runs it inside its lock/script)."""

    def allowed(e: QueueEntry) -> float:
        return base_gap + gap_per_second * max(0, now_ms - e.since_ms) / 1000

    ordered = sorted(entries, key=lambda e: (e.rating, e.since_ms, e.player_id))
    candidates = [
        (abs(b.rating - a.rating), i)
        for i, (a, b) in enumerate(itertools.pairwise(ordered))
        if abs(b.rating - a.rating) <= max(allowed(a), allowed(b))
    ]
    candidates.sort()
    used: set[int] = set()
    pairs: list[tuple[QueueEntry, QueueEntry]] = []
    for _, i in candidates:
        if i in used or i + 1 in used:
            continue
        used.update((i, i + 1))
        a, b = ordered[i], ordered[i + 1]
        pairs.append((a, b) if (a.since_ms, a.player_id) <= (b.since_ms, b.player_id) else (b, a))
    return pairs
