"""One client connection: reads frames, enforces the rate and flood limits,
dispatches each message through the handlers' table (:mod:`server.handlers`, which see
the connection as a :class:`~server.handlers.base.Session`), turns refusals into error
frames, and keeps each watched room's events in order.

Every frame out is written at once, in the order it was produced, into the
connection's socket buffer; a peer that leaves more than ``send_buffer`` bytes
unread there (or makes no progress for ``send_timeout_s``) is dropped, so a slow
reader costs bounded memory and never holds anyone else up.
A room's events reach a connection gap-free: events that arrive while it is
catching up (snapshot, resume, or a detected gap) are buffered and replayed.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Awaitable, Coroutine, Sequence
from typing import Any

import msgspec
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from engine import Rule
from protocol import messages as m
from protocol.codec import check_frame_size, decode_event
from protocol.errors import CloseCode, ErrorCode, ProtocolError
from server import background, game, history, lag
from server.addresses import limit_key
from server.bots.registry import WORKER_REPLACED
from server.frames import write_message
from server.game import GameError
from server.handlers import HANDLERS, Refused
from server.handlers.lobby import send_lobby
from server.handoff import Moving
from server.handshake import encoding_of
from server.notices import Notice
from server.ratelimit import SlidingWindow, TokenBucket
from server.room import Seat
from server.service import NoSuchRoom, now_ms
from server.services import Services
from server.sessions import SessionRecord, decode_session, encode_session
from server.store import StoreUnavailable
from server.wsconn import GuardedConnection

log = logging.getLogger("gomoku.server")


REPAIR = -1
"""``sync_room(after=REPAIR)``: catch up from the last event already sent."""


_UNLOGGED_FIELDS = frozenset({"token", "bot_key", "code", "text", "id"})
"""Request fields a log line leaves out: secrets (a token, a bot key, an invite code),
what players wrote (chat), and the request's own id."""


@dataclasses.dataclass
class RoomSync:
    """Where a connection stands in a room's event log."""

    last: int = -1
    syncing: bool = True
    buffer: list[tuple[int, bytes]] = dataclasses.field(default_factory=list)
    lock: asyncio.Lock = dataclasses.field(default_factory=asyncio.Lock)
    """One catch-up at a time (a client's resume and a gap repair may overlap)."""


class Connection:
    """The server side of one WebSocket (a :class:`~server.handlers.base.Session` to the
    message handlers)."""

    def __init__(self, services: Services, ws: GuardedConnection, address: str = "") -> None:
        self.services = services
        self.ws = ws
        self.address = address
        """The client's address (a trusted proxy's client), as logged."""
        self.limit_key = limit_key(address)
        """The address as the per-address limits count it (an IPv6 client by its /64)."""
        self.codec = encoding_of(ws)
        """The wire encoding the client chose (MessagePack, or JSON for ``gomoku.json``);
        every frame this connection sends or buffers is in it."""
        self.config = services.config
        self.identity: SessionRecord | None = None
        """Who said hello on this connection (None before ``hello``)."""
        self.rooms: dict[str, RoomSync] = {}
        self.queue: str | None = None
        limits = self.config.limits
        self.bytes_sent = 0
        """Payload bytes written to the socket buffer so far (for progress checks)."""
        self.stall: tuple[float, int] | None = None
        """Since when (monotonic) unread bytes have waited without the peer taking any,
        and how many bytes it had taken then; None while nothing waits."""
        self.bucket = TokenBucket(limits.rate_per_s, limits.rate_burst, time.monotonic())
        self.strikes = 0
        self.code_failures = SlidingWindow(limits.code_failures, limits.code_failure_window_ms)
        """Joins by a wrong invite code (guessing)."""
        self.token_hash: str | None = None
        self.worker = False
        """True once this connection is a registered AI worker (``bot_ready``)."""
        self.hint_pending = False
        self.queue_ticket = 0
        """Counts ``queue`` requests, so a stale AI-fallback timer does nothing."""
        self.conn_id = services.housekeeping.new_conn_id()
        """This connection's id in the store's attachments (unique over every instance)."""
        self.attached: set[str] = set()
        """Rooms this connection is attached to: its player is present there (a seat
        online, or a spectator) while any connection of theirs is, on any instance."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._closing = False
        # Moving to a sibling process (server.handoff):
        self.busy = False
        """A request is being handled (the connection may not move now)."""
        self.placement_due: list[str] = []
        """Rooms attached to since the handoff last looked where their players are."""
        self.placement_tries = 0
        """Moves tried again after one could not happen then."""
        self.wanted: str | None = None
        """A sibling asked for this connection while it was busy."""
        self.moving = False
        """Being handed over: nothing is written to it meanwhile."""
        self.reattaching = False
        """Attaching again to its rooms (:meth:`reattach`): it does not move meanwhile."""
        self.moved = False
        """Handed over: another process serves it; this one only lets go."""
        self._held: list[Notice] = []
        """Notices that came while moving (passed on, or handled if it stays)."""
        self._dropped = False
        """Something was not written because it was moving."""

    # -- sending ---------------------------------------------------------------

    def send(self, message: msgspec.Struct) -> None:
        self.send_bytes(self.codec.encode(message))

    def send_bytes(self, frame: bytes) -> None:
        """Send a frame already in this connection's encoding."""
        if self.admit(frame):
            write_message((self.ws,), frame, text=self.codec.text)  # a synchronous write

    def send_together(self, messages: Sequence[msgspec.Struct]) -> None:
        """Send messages that make one reply (a long lobby in parts) as one frame would
        be: the send buffer limit is looked at before the first only, so a reader is not
        dropped for the parts that follow it into the buffer."""
        frames = [self.codec.encode(message) for message in messages]
        if not frames or not self.admit(frames[0]):
            return
        self.bytes_sent += sum(len(frame) for frame in frames[1:])
        for frame in frames:
            write_message((self.ws,), frame, text=self.codec.text)

    def admit(self, frame: bytes) -> bool:
        """Whether ``frame`` may be written now (counted as sent if so): not while
        closing, and not past the send buffer limit, where the peer is dropped
        instead. The caller writes it at once, before anything else is sent here."""
        if self.moving:
            self._dropped = True
        if self._closing or self.moving:
            return False
        waiting = self.waiting_bytes()
        if waiting >= self.config.limits.send_buffer:  # one frame may pass it (a big lobby)
            self.drop_slow_reader(f"{waiting} bytes waiting")
            return False
        self.bytes_sent += len(frame)
        return True

    def waiting_bytes(self) -> int:
        """Bytes written for the peer that the kernel has not taken yet."""
        return self.ws.transport.get_write_buffer_size()

    def stalled_for(self, now: float) -> float:
        """How long unread bytes have waited without the peer reading any (0: not stuck).
        Called now and then by the server's sweep; progress is measured as bytes the
        kernel took, which only grows while the peer reads."""
        waiting = self.waiting_bytes()
        taken = self.bytes_sent - waiting
        if waiting == 0 or self.stall is None or taken > self.stall[1]:
            self.stall = None if waiting == 0 else (now, taken)
            return 0.0
        return now - self.stall[0]

    def drop_slow_reader(self, why: str) -> None:
        """Close a connection whose peer does not read its frames (1008). Its close
        frame waits behind the unread ones, so the TCP connection is usually aborted
        after ``close_timeout_s``; until then nothing more is queued for it."""
        if self._closing:
            return
        self.services.metrics.inc("gomoku_slow_readers_dropped_total")
        log.warning("dropping a connection that does not read its frames (%s)", why)
        self.close(CloseCode.POLICY, "too slow reading frames")

    def error(
        self,
        code: ErrorCode,
        message: str,
        *,
        re: int | None = None,
        room: str | None = None,
        foul: str | None = None,
    ) -> None:
        self.services.metrics.error(str(code))
        self.send(m.Error(code=code, message=message, re=re, room=room, foul=foul))  # type: ignore[arg-type]

    def close(self, code: int, reason: str) -> None:
        if self._closing:
            return
        self._closing = True
        self.spawn(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        """The closing handshake, bounded in time: websockets waits without a limit for
        unread data to drain before its close timeout starts, so a peer that reads
        nothing would keep the connection (and its buffers) forever."""
        try:
            async with asyncio.timeout(self.config.limits.close_timeout_s):
                await self.ws.close(code, reason)
        except TimeoutError:
            self.ws.transport.abort()

    def spawn(self, coro: Awaitable[Any]) -> None:
        """Run ``coro`` beside the read loop; its failure is logged, never lost."""
        background.start(
            coro,
            self._tasks,
            expected=(ConnectionClosed, NoSuchRoom),
            failed=lambda: self.services.metrics.inc("gomoku_errors_internal_total"),
            log=log,
            what="background work of a connection",
        )

    # -- main loop -------------------------------------------------------------

    async def run(self) -> None:
        next_message = self.ws.next_message  # no async generator at every frame
        try:
            while True:
                frame = await next_message()
                self.busy = True
                try:
                    await self._receive(frame)
                finally:
                    self.busy = False
                if (self.placement_due or self.wanted) and await self.settle():
                    break
        except ConnectionClosed:
            pass
        finally:
            await self._cleanup()
            for task in list(self._tasks):
                task.cancel()

    async def _receive(self, frame: str | bytes) -> None:
        self.services.metrics.inc("gomoku_messages_total")
        try:  # before the rate limit: a frame over the size limit always ends the connection
            check_frame_size(frame, self.config.limits.max_frame)
        except ProtocolError as exc:
            self.error(exc.code, exc.message)
            self.close(CloseCode.TOO_BIG, "frame too large")
            return
        if not self.bucket.take(time.monotonic()):
            self.strikes += 1
            if self.strikes > self.config.limits.flood_strikes:
                self.close(CloseCode.POLICY, "message flood")
                return
            self.error(
                ErrorCode.RATE_LIMITED,
                "too many messages; slow down",
                re=self.codec.request_id(frame),
            )
            return
        self.strikes = 0
        try:
            message = self.codec.decode_client(frame)
        except ProtocolError as exc:
            self._log_refused_frame(exc)
            self.error(exc.code, exc.message, re=exc.re, room=exc.room)
            return
        if self.identity is None and not isinstance(message, (m.Hello, m.Ping)):
            room = getattr(message, "room", None)
            self.error(ErrorCode.NOT_HELLO, "say hello first", re=message.id, room=room)
            return
        await self._answer(message, HANDLERS[type(message)](self, message))

    def answer_later(self, message: m.ClientMessage, work: Coroutine[Any, Any, None]) -> None:
        """Finish answering ``message`` beside the read loop: ``work`` waits on something
        slow (the AI's hint), and the connection's next messages (a move on the player's
        own clock) must not wait behind it. Refusals become error frames as they would
        have in the handler."""
        self.spawn(self._answer(message, work))

    async def _answer(self, message: m.ClientMessage, work: Awaitable[None]) -> None:
        """Do a request's work, turning its refusal or failure into the error frame that
        answers it (with its id and room)."""
        room = getattr(message, "room", None)
        try:
            await work
        except GameError as exc:
            self._log_refused(message, exc.code, exc.message)
            self.error(exc.code, exc.message, re=message.id, room=room, foul=exc.foul)
        except Refused as exc:
            self._log_refused(message, exc.code, exc.message)
            self.error(exc.code, exc.message, re=message.id, room=room)
        except NoSuchRoom:
            self._log_refused(message, ErrorCode.NO_SUCH_ROOM, "no such room")
            self.error(ErrorCode.NO_SUCH_ROOM, "no such room", re=message.id, room=room)
        except StoreUnavailable as exc:
            _log_unavailable(type(message).__name__, exc)
            self.error(
                ErrorCode.UNAVAILABLE,
                "the game store is unreachable right now; try again in a moment",
                re=message.id,
                room=room,
            )
        except ConnectionClosed:
            raise
        except Exception:
            self.services.metrics.inc("gomoku_errors_internal_total")
            log.exception("internal error handling %s", type(message).__name__)
            self.error(ErrorCode.INTERNAL, "internal server error", re=message.id, room=room)

    def _log_refused(self, message: m.ClientMessage, code: str, why: str) -> None:
        """At DEBUG, a refused request as it came and why, led by its room: an operator
        asked "my move disappeared" can tell a refused move from one never received."""
        if not log.isEnabledFor(logging.DEBUG):
            return
        fields = msgspec.structs.asdict(message)
        room = fields.pop("room", None)
        said = [
            f"{key}={logged(value)}"
            for key, value in fields.items()
            if value is not None and key not in _UNLOGGED_FIELDS
        ]
        asked = " ".join([str(type(message).__struct_config__.tag), *said])
        log.debug(
            "room %s: refused %s from %s: %s: %s",
            logged(room or "-"),
            asked,
            self._who(),
            code,
            logged(why),
        )

    def _log_refused_frame(self, exc: ProtocolError) -> None:
        """At DEBUG, a frame refused before it was a request (not JSON, an unknown type, a
        value out of its range), as :meth:`_log_refused` logs a request."""
        if log.isEnabledFor(logging.DEBUG):
            room = logged(exc.room or "-")
            said = logged(exc.message)
            log.debug("room %s: refused a frame from %s: %s: %s", room, self._who(), exc.code, said)

    def _who(self) -> str:
        """The player as the log names them: name and id, or "-" before ``hello``."""
        return "-" if self.identity is None else f"{self.identity.name} ({self.identity.player})"

    async def _cleanup(self) -> None:
        """The connection is gone: stop watching, leave queues, detach from its rooms
        (which changes its player's presence only where it was their last connection).
        One handed to a sibling let go of all that when it went (:meth:`moved_away`)."""
        if self.moved:
            return
        self._stop_following()
        identity = self.identity
        if identity is None:
            return
        # The hello's counterpart, so the log shows departures too (a drop is 1006, a
        # flood 1008 "message flood"): the close of whoever closed first (the server's
        # 1009 was logged as 1006 when the client answered it with no close of its own).
        protocol = self.ws.protocol
        first = protocol.close_rcvd
        if protocol.close_sent is not None and not protocol.close_rcvd_then_sent:
            first = protocol.close_sent
        code, reason = (1006, "") if first is None else (first.code, first.reason)
        said = f"{code} {reason}" if reason else str(code)
        log.info("gone %s (%s): close %s", identity.player, identity.name, said)
        if self.worker:
            self.services.workers.link_closed(identity.player, self)
        if self.queue is not None:
            with contextlib.suppress(StoreUnavailable):  # a queue entry of the gone is harmless
                await self.services.store.queue_remove(self.queue, identity.player)
        others_here = self.services.players.detach(identity.player, self)
        for room_id in sorted(self.attached):
            await self.detach(room_id)
        if identity.worker is not None and not others_here:
            self.services.workers.seat_offline(identity.player)  # after its presence: rooms agree

    # -- attachments (presence) --------------------------------------------------

    async def attach(self, room_id: str, *, quietly: bool = False) -> bool:
        """Attach this connection to a room (a resume, a join, an action of a seated
        player): its player is present there from now on. True if they arrived (no
        connection of theirs was attached there before). Raises NoSuchRoom, except
        ``quietly`` (a connection taken over from a sibling, which leaves a gone room out
        and is not placed again)."""
        if room_id in self.attached:
            return False
        self.attached.add(room_id)
        try:
            count = await self.services.store.attach(room_id, self.player, self.conn_id)
        except BaseException:
            self.attached.discard(room_id)
            raise
        if count is None:
            self.attached.discard(room_id)
            if quietly:
                return False
            raise NoSuchRoom(room_id)
        if self.services.handoff is not None and not quietly:
            self.placement_due.append(room_id)
        if count != 1:
            return False
        if self.identity is not None and self.identity.worker is not None:
            # Before its room says it is online: the watchdog, finding a seat it thinks
            # away online in its room, would forget it (as played through another instance).
            self.services.workers.seat_back(self.player)
        await self.services.rooms.presence_changed(room_id, self.player)  # they arrived
        return True

    async def attach_seated(self, room_id: str, *, follow: bool = True) -> None:
        """Attach this connection to a room its player sits in (an action there shows
        they are present); nothing for a room they do not sit in.

        A connection that does not follow the room (it left it, or came back with
        ``hello`` and acted without ``resume``) is sent the room's snapshot first and its
        events from then on, the action's own among them: a player who is present in the
        opponent's eyes also sees the game, and gets the event that answers the action.
        ``follow`` False leaves that to the caller (a ``join`` sends its own snapshot)."""
        if room_id in self.attached and room_id in self.rooms:
            return
        loaded = await self.services.rooms.load(room_id)
        if loaded is None or loaded[1].seat_of(self.player) is None:
            return
        await self.attach(room_id)
        if follow and room_id not in self.rooms:
            await self.sync_room(room_id, None)

    async def reattach(self) -> bool:
        """Attach this connection again to every room it is attached to here, after this
        instance's lease ran out and another instance may have reaped its attachments
        (this process was paused, or Redis was cut off from it alone, for longer than a
        lease): its players, still connected, read as offline, and a game would end by
        abandon at the end of the grace. Attaching is idempotent, so an attachment that
        was never reaped stays as it was; each room's presence is then brought in line
        (a tick, which changes nothing where nothing changed). False if the connection
        is moving to a sibling process: it is to be tried again (if it stays here)."""
        if self.moving:
            return False
        if self.moved or self.identity is None:
            return True
        self.reattaching = True  # not moved meanwhile (:meth:`movable`)
        try:
            for room_id in sorted(self.attached):
                count = await self.services.store.attach(room_id, self.player, self.conn_id)
                if room_id not in self.attached:  # detached meanwhile (left, or closed)
                    await self.services.housekeeping.detach(room_id, self.conn_id)
                elif count is None:  # the room is gone
                    self.attached.discard(room_id)
                else:
                    with contextlib.suppress(GameError, NoSuchRoom):
                        await self.services.rooms.presence_changed(room_id, self.player)
        finally:
            self.reattaching = False
        return True

    async def detach(self, room_id: str) -> None:
        """Detach this connection from a room (``leave``, or the socket closed). With the
        store unreachable the server tries again later (:meth:`Housekeeping.detach_later`):
        an attachment left behind would keep the player present."""
        if room_id not in self.attached:
            return
        self.attached.discard(room_id)
        count = await self.services.housekeeping.detach(room_id, self.conn_id)
        if count == 0:  # their last connection here: they left
            with contextlib.suppress(GameError, NoSuchRoom, StoreUnavailable):
                await self.services.rooms.presence_changed(room_id, self.player)

    # -- room sync -------------------------------------------------------------

    def room_event(self, room_id: str, seq: int, frame: bytes) -> ServerConnection | None:
        """Take a room's event; returns the socket to write ``frame`` to now (the hub
        writes one event to all its watchers in one go), or None if it is not for
        sending now (buffered while catching up, a duplicate, or refused). While the
        connection moves, events are left to the log: whoever serves it next reads
        them from the last one sent."""
        if self.moving:
            self._dropped = True
            return None
        sync = self.rooms.get(room_id)
        if sync is None:
            return None
        if sync.syncing:
            sync.buffer.append((seq, frame))
        elif seq == sync.last + 1:
            sync.last = seq
            if self.admit(frame):
                return self.ws
        elif seq > sync.last + 1:
            sync.syncing = True
            sync.buffer.append((seq, frame))
            self.spawn(self.sync_room(room_id, REPAIR))
        return None

    async def sync_room(self, room_id: str, after: int | None, re: int | None = None) -> None:
        """Bring the client up to date in a room: the events after ``after``, or
        a snapshot (``after`` None, or events no longer kept), then live events.
        ``after`` :data:`REPAIR` fills a gap from the last event the client got."""
        sync = self.rooms.setdefault(room_id, RoomSync())
        sync.syncing = True
        async with sync.lock:
            sync.syncing = True  # a catch-up that held the lock before may have ended it
            if after == REPAIR:
                after = sync.last
            await self._catch_up(room_id, sync, after, re)

    async def _catch_up(
        self, room_id: str, sync: RoomSync, after: int | None, re: int | None
    ) -> None:
        await self.services.hub.watch(room_id, self)
        store = self.services.store
        while True:
            events = None if after is None else await store.read_events(room_id, after)
            if events is None:
                service = self.services.rooms
                loaded = await service.load(room_id, fresh=True)
                if loaded is None:
                    self.unwatch(room_id)
                    raise NoSuchRoom(room_id)
                record, room = loaded
                viewer = None if self.identity is None else self.identity.player
                watching, _ = await service.spectators(room)
                chat = await service.recent_chat(room_id, record.seq)
                rules = self.config.game
                view = room.view(
                    record.seq,
                    now_ms(),
                    rules.grace_ms,
                    viewer=viewer,
                    spectators=watching,
                    chat=chat,
                    move_limit_ms=rules.untimed_move_ms,
                )
                self.send(m.Snapshot(room=view, re=re))
                sync.last = record.seq
            else:
                for stored in events:
                    envelope = m.Event(
                        room=room_id, seq=stored.seq, event=decode_event(stored.data)
                    )
                    self.send(envelope)
                    sync.last = stored.seq
                if not events:
                    sync.last = max(sync.last, after or 0)
            pending = sorted(sync.buffer)
            sync.buffer.clear()
            gap = False
            for index, (seq, frame) in enumerate(pending):
                if seq <= sync.last:
                    continue
                if seq == sync.last + 1:
                    self.send_bytes(frame)
                    sync.last = seq
                    continue
                gap = True
                sync.buffer.extend(pending[index:])
                break
            if not gap:
                break
            after = sync.last
        sync.syncing = False

    def follow_lobby(self, on: bool) -> None:
        """Start or stop getting the lobby's changes (the hub's lobby feed)."""
        if on:
            self.services.hub.lobby_watchers.add(self)
        else:
            self.services.hub.lobby_watchers.discard(self)

    def room_gone(self, room_id: str) -> None:
        """The hub's feed of a room this connection follows ended with the room: the
        client is told with ``left`` (``closed``), as if it had left it."""
        if self.rooms.pop(room_id, None) is None:
            return
        self.send(m.Left(room=room_id, closed=True))
        if room_id in self.attached:  # as a closing connection lets go of it
            self.spawn(self.detach(room_id))

    def unwatch(self, room_id: str) -> None:
        self.rooms.pop(room_id, None)
        self.services.hub.unwatch(room_id, self)

    def _stop_following(self) -> None:
        """This instance sends it no more room events or lobby changes."""
        for room_id in list(self.rooms):
            self.unwatch(room_id)
        self.follow_lobby(False)

    # -- helpers ---------------------------------------------------------------

    @property
    def player(self) -> str:
        assert self.identity is not None
        return self.identity.player

    def lag_ms(self) -> int:
        return round(self.ws.latency * 1000)

    def measure_lag(self) -> None:
        if not self.moving:
            self.spawn(self.ws.ping())

    async def rating(self, rule: Rule) -> float:
        """This player's Glicko-2 rating under ``rule`` (1500 before any rated game)."""
        standing = await self.services.store.rating(history.pool(rule), self.player)
        return standing.rating.rating

    async def rated_seat(self, rule: Rule) -> Seat:
        """:meth:`seat` showing the player's rating under ``rule`` (an AI's stays None)."""
        seat = self.seat()
        if not seat.bot:
            await self.services.rooms.show_rating(seat, rule)
        return seat

    def seat(self) -> Seat:
        """This player as a seat, with their link's measured round trip: their first
        stone's flag waits for it as later ones do (a stone sent at 0.1 s left on a
        300 ms link lost on time when it was a player's first in a room)."""
        assert self.identity is not None
        s = self.identity
        seat = Seat(id=s.player, name=s.name, rating=s.rating, bot=s.bot)
        lag.note_lag(seat, self.lag_ms())
        return seat

    async def act(
        self, room_id: str, action: game.GameAction, *, follow: bool = True
    ) -> game.Outcome:
        """Apply a seated player's action to a room (attaching this connection there
        first, see :meth:`attach_seated`), then report a late refusal (a fallen flag)."""
        await self.attach_seated(room_id, follow=follow)
        outcome, _ = await self.services.rooms.act(room_id, action)
        if outcome.error is not None:
            raise outcome.error
        return outcome

    async def notice(self, notice: Notice) -> None:
        """A note for this player from any server instance."""
        if self.moving:
            self._held.append(notice)
            return
        if notice.kind == "revoke":
            if notice.token and notice.token == self.token_hash:
                self.close(CloseCode.NORMAL, "this AI seat was handed over (a new token)")
            return
        if notice.kind == "worker":
            if self.worker and notice.conn != self.conn_id:
                self.close(CloseCode.POLICY, WORKER_REPLACED)
            return
        if notice.kind == "matched":
            self.queue = None
            self.send(m.Unqueued())
        room_id = notice.room
        if room_id not in self.rooms or self.rooms[room_id].last < 0:
            try:
                await self.attach(room_id)
            except NoSuchRoom:
                return  # gone already (a rematch nobody took up, an expired room)
            await self.sync_room(room_id, None)
        if self.placement_due and not self.busy:
            await self.settle()

    # -- moving to a sibling process (server.handoff) -------------------------------

    async def settle(self) -> bool:
        """Between requests, with ``gomoku-server --processes``: move this connection (or
        its opponent's) if a room it was attached to has them on two processes, or go
        to the sibling that asked for it. True if it moved away. A failure here (the
        store unreachable) only means it stays where it is."""
        handoff = self.services.handoff
        if handoff is None or not (self.placement_due or self.wanted):
            return False
        wanted, self.wanted = self.wanted, None
        try:
            if wanted is None or not await handoff.move(self, wanted):
                await handoff.place(self)
        except (StoreUnavailable, NoSuchRoom, OSError) as exc:
            log.warning("could not place a connection with its game: %s", exc)
        except Exception:
            self.services.metrics.inc("gomoku_errors_internal_total")
            log.exception("placing a connection with its game failed")
        return self.moved

    def movable(self) -> bool:
        """Whether nothing of this connection's own is under way, so it could move: a
        player's connection (not a worker's or an AI seat's) with no request being
        handled, no queue, no hint awaited and every room caught up. (What else may run
        beside it is a close, which stops the move, or a quick match's wait for an AI,
        which has nothing left to do once the player left the queue.)"""
        identity = self.identity
        return (
            identity is not None
            and identity.worker is None
            and not self.worker
            and not (self.busy or self.moving or self.moved or self._closing or self.reattaching)
            and self.queue is None
            and not self.hint_pending
            and not any(sync.syncing or sync.lock.locked() for sync in self.rooms.values())
        )

    def start_moving(self) -> None:
        """From now on nothing is written to the socket (it reads nothing already)."""
        self.moving = True
        self._dropped = False
        if self.ws.keepalive_task is not None:
            self.ws.keepalive_task.cancel()
            self.ws.keepalive_task = None

    def moving_state(self, key: str) -> Moving:
        """What the process taking this connection needs to serve it on."""
        assert self.identity is not None
        return Moving(
            key=key,
            conn_id=self.conn_id,
            address=self.address,
            subprotocol=self.ws.subprotocol,
            identity=encode_session(self.identity),
            token_hash=self.token_hash,
            rooms={room_id: sync.last for room_id, sync in self.rooms.items()},
            attached=sorted(self.attached),
            lobby=self in self.services.hub.lobby_watchers,
        )

    def moved_away(self) -> list[Notice]:
        """A sibling serves this connection now: let go of it here without a word to the
        store (the sibling moved its attachments), and return the notices held for it."""
        self.moved = True
        self._stop_following()
        if self.identity is not None:
            self.services.players.detach(self.identity.player, self)
        held, self._held = self._held, []
        return held

    def stay(self) -> None:
        """The move did not happen: read and write again, catch up on the rooms' events
        and the lobby left unsent meanwhile, and handle the notices that came."""
        self.moving = False
        if self.moved:
            return
        self.ws.transport.resume_reading()
        if self.ws.keepalive_task is None:
            self.ws.start_keepalive()
        if self._dropped:
            for room_id in list(self.rooms):
                self.spawn(self.sync_room(room_id, REPAIR))
            if self in self.services.hub.lobby_watchers:
                self.spawn(send_lobby(self, None))
        held, self._held = self._held, []
        for notice in held:
            self.spawn(self.notice(notice))

    async def take_over(self, moving: Moving) -> None:
        """The first half of serving, from here, a connection a sibling hands over, done
        before its socket is read: the same player, known here and attached to the same
        rooms (before the old attachments go: nobody sees them leave). Raises what the
        store raises, having undone what it did, so the sibling may go on serving it."""
        identity = decode_session(moving.identity)
        self.identity = identity
        self.token_hash = moving.token_hash
        try:
            await self.services.players.attach(identity.player, self)
            for room_id in moving.attached:
                await self.attach(room_id, quietly=True)
        except BaseException:
            await self.give_back()
            raise

    async def give_back(self) -> None:
        """Undo :meth:`take_over` (the sibling keeps the connection), without a word to
        anyone: the old attachments still hold the player present."""
        for room_id in sorted(self.attached):
            await self.services.housekeeping.detach(room_id, self.conn_id)
        self.attached.clear()
        if self.identity is not None:
            self.services.players.detach(self.identity.player, self)
        self.identity = None

    async def carry_on(self, moving: Moving) -> None:
        """The second half, once the socket is read here: the old attachments dropped
        (later, if the store cannot now), each room's events from the last one the
        sibling sent and, to a lobby watcher, the lobby's list again. With the store
        unreachable meanwhile, the connection is closed with 1001, as at a restart: the
        client reconnects and resumes."""
        for room_id in moving.attached:
            await self.services.housekeeping.detach(room_id, moving.conn_id)
        try:
            for room_id, last in moving.rooms.items():
                with contextlib.suppress(NoSuchRoom):
                    await self.sync_room(room_id, last)
            if moving.lobby:
                self.follow_lobby(True)
                await send_lobby(self, None)
        except StoreUnavailable as exc:
            log.warning("store unavailable taking over a connection: %s", exc)
            self.close(CloseCode.GOING_AWAY, "the game store is unreachable; reconnect")


UNAVAILABLE_LOG_EVERY_S = 10.0
"""Requests refused for an unreachable store are logged once in this many seconds (an
outage refused every move of every player, a warning each: 67 lines in 12 s); the
``gomoku_errors_total{code="unavailable"}`` counter counts them all."""
_unavailable_logged = -UNAVAILABLE_LOG_EVERY_S


def logged(value: object) -> str:
    """``value`` as a log line may show it: a client's string with a line break (or any
    character that does not print) is quoted, escapes and all, so that it cannot forge a
    line of its own (an ERROR line a log alert would fire on)."""
    text = str(value)
    return text if text.isprintable() else repr(text)


def _log_unavailable(request: str, exc: StoreUnavailable) -> None:
    global _unavailable_logged
    now = time.monotonic()
    if now - _unavailable_logged < UNAVAILABLE_LOG_EVERY_S:
        log.debug("store unavailable handling %s: %s", request, exc)
        return
    _unavailable_logged = now
    log.warning(
        "store unavailable handling %s: %s (more in the next %g s are not logged)",
        request,
        exc,
        UNAVAILABLE_LOG_EVERY_S,
    )
