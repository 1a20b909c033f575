"""One client connection: reads frames, enforces limits, dispatches messages
through a table, and keeps each watched room's events in order.

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
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import msgspec
from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed

from engine import Rule
from protocol import messages as m
from protocol.codec import decode_event
from protocol.errors import CloseCode, ErrorCode, ProtocolError
from protocol.events import ChatPosted
from protocol.limits import PROTOCOL_VERSION
from protocol.values import GameSummary, LeaderboardEntry, Limits, RoomSummary, TimeControl
from server import game, history
from server.game import GameError
from server.handshake import encoding_of
from server.ratelimit import SlidingWindow, TokenBucket
from server.room import Seat
from server.service import NoSuchRoom, Notice, encode_notice, now_ms
from server.sessions import (
    SessionRecord,
    decode_session,
    encode_session,
    invite_key,
    new_invite_code,
    new_player_id,
    new_room_id,
    new_token,
    token_hash,
)
from server.store import QueueEntry, StoreUnavailable

if TYPE_CHECKING:
    from server.app import GomokuServer

log = logging.getLogger("gomoku.server")


ROOM_GONE = "the room is gone (it expired, or the server restarted): go back to the lobby"
"""The answer to a ``resume`` of a room the server no longer has (protocol.md)."""

REPAIR = -1
"""``sync_room(after=REPAIR)``: catch up from the last event already sent."""


class Refused(Exception):
    """A request refused before it reached a room (no such room, not queued...)."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclasses.dataclass
class RoomSync:
    """Where a connection stands in a room's event log."""

    last: int = -1
    syncing: bool = True
    buffer: list[tuple[int, bytes]] = dataclasses.field(default_factory=list)
    lock: asyncio.Lock = dataclasses.field(default_factory=asyncio.Lock)
    """One catch-up at a time (a client's resume and a gap repair may overlap)."""


def queue_name(rule: str, time_control: TimeControl | None) -> str:
    """The matchmaking queue of a (rule, time control): ``renju/300000+3000``."""
    tc = "none" if time_control is None else f"{time_control.base_ms}+{time_control.inc_ms}"
    return f"{rule}/{tc}"


class Connection:
    """The server side of one WebSocket."""

    def __init__(self, server: GomokuServer, ws: ServerConnection, address: str = "") -> None:
        self.server = server
        self.ws = ws
        self.address = address
        """The client's address (as the per-address limits count it)."""
        self.codec = encoding_of(ws)
        """The wire encoding the client chose (MessagePack, or JSON for ``gomoku.json``);
        every frame this connection sends or buffers is in it."""
        self.config = server.config
        self.session: SessionRecord | None = None
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
        self.conn_id = server.new_conn_id()
        """This connection's id in the store's attachments (unique over every instance)."""
        self.attached: set[str] = set()
        """Rooms this connection is attached to: its player is present there (a seat
        online, or a spectator) while any connection of theirs is, on any instance."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._closing = False

    # -- sending ---------------------------------------------------------------

    def send(self, message: msgspec.Struct) -> None:
        self.send_bytes(self.codec.encode(message))

    def send_bytes(self, frame: bytes) -> None:
        """Send a frame already in this connection's encoding."""
        if self.admit(frame):
            broadcast((self.ws,), frame, text=self.codec.text)  # a synchronous write

    def send_together(self, messages: Sequence[msgspec.Struct]) -> None:
        """Send messages that make one reply (a long lobby in parts) as one frame would
        be: the send buffer limit is looked at before the first only, so a reader is not
        dropped for the parts that follow it into the buffer."""
        frames = [self.codec.encode(message) for message in messages]
        if not frames or not self.admit(frames[0]):
            return
        self.bytes_sent += sum(len(frame) for frame in frames[1:])
        for frame in frames:
            broadcast((self.ws,), frame, text=self.codec.text)

    def admit(self, frame: bytes) -> bool:
        """Whether ``frame`` may be written now (counted as sent if so): not while
        closing, and not past the send buffer limit, where the peer is dropped
        instead. The caller writes it at once, before anything else is sent here."""
        if self._closing:
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
        self.server.metrics.inc("gomoku_slow_readers_dropped_total")
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
        self.server.metrics.error(str(code))
        self.send(m.Error(code=code, message=message, re=re, room=room, foul=foul))  # type: ignore[arg-type]

    def close(self, code: int, reason: str) -> None:
        if self._closing:
            return
        self._closing = True
        self._spawn(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        """The closing handshake, bounded in time: websockets waits without a limit for
        unread data to drain before its close timeout starts, so a peer that reads
        nothing would keep the connection (and its buffers) forever."""
        try:
            async with asyncio.timeout(self.config.limits.close_timeout_s):
                await self.ws.close(code, reason)
        except TimeoutError:
            self.ws.transport.abort()

    def _spawn(self, coro: Awaitable[Any]) -> None:
        """Run ``coro`` beside the read loop; its failure is logged, never lost."""

        async def run() -> None:
            try:
                await coro
            except (ConnectionClosed, NoSuchRoom):
                pass
            except Exception:
                self.server.metrics.inc("gomoku_errors_internal_total")
                log.exception("background work of a connection failed")

        task = asyncio.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- main loop -------------------------------------------------------------

    async def run(self) -> None:
        try:
            async for frame in self.ws:
                await self._receive(frame)
        except ConnectionClosed:
            pass
        finally:
            await self._cleanup()
            for task in list(self._tasks):
                task.cancel()

    async def _receive(self, frame: str | bytes) -> None:
        self.server.metrics.inc("gomoku_messages_total")
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
            self.error(exc.code, exc.message, re=exc.re)
            if exc.code == ErrorCode.TOO_LARGE:
                self.close(CloseCode.TOO_BIG, "frame too large")
            return
        room = getattr(message, "room", None)
        try:
            if self.session is None and not isinstance(message, m.Hello):
                raise Refused(ErrorCode.NOT_HELLO, "say hello first")
            handler = HANDLERS[type(message)]
            await handler(self, message)
        except GameError as exc:
            self.error(exc.code, exc.message, re=message.id, room=room, foul=exc.foul)
        except Refused as exc:
            self.error(exc.code, exc.message, re=message.id, room=room)
        except NoSuchRoom:
            self.error(ErrorCode.NO_SUCH_ROOM, "no such room", re=message.id, room=room)
        except StoreUnavailable as exc:
            log.warning("store unavailable handling %s: %s", type(message).__name__, exc)
            self.error(
                ErrorCode.UNAVAILABLE,
                "the game store is unreachable right now; try again in a moment",
                re=message.id,
                room=room,
            )
        except ConnectionClosed:
            raise
        except Exception:
            self.server.metrics.inc("gomoku_errors_internal_total")
            log.exception("internal error handling %s", type(message).__name__)
            self.error(ErrorCode.INTERNAL, "internal server error", re=message.id, room=room)

    async def _cleanup(self) -> None:
        """The connection is gone: stop watching, leave queues, detach from its rooms
        (which changes its player's presence only where it was their last connection)."""
        for room_id in list(self.rooms):
            self.server.hub.unwatch(room_id, self)
        self.server.hub.lobby_watchers.discard(self)
        session = self.session
        if session is None:
            return
        if self.worker:
            self.server.bots.link_closed(session.player, self)
        if self.queue is not None:
            with contextlib.suppress(StoreUnavailable):  # a queue entry of the gone is harmless
                await self.server.store.queue_remove(self.queue, session.player)
        others_here = self.server.detach(session.player, self)
        for room_id in sorted(self.attached):
            await self.detach(room_id)
        if session.worker is not None and not others_here:
            self.server.bots.seat_offline(session.player)  # after its presence: rooms agree

    # -- attachments (presence) --------------------------------------------------

    async def attach(self, room_id: str) -> None:
        """Attach this connection to a room (a resume, a join, an action of a seated
        player): its player is present there from now on. Raises NoSuchRoom."""
        if room_id in self.attached:
            return
        self.attached.add(room_id)
        try:
            count = await self.server.store.attach(room_id, self.player, self.conn_id)
        except BaseException:
            self.attached.discard(room_id)
            raise
        if count is None:
            self.attached.discard(room_id)
            raise NoSuchRoom(room_id)
        if count == 1:  # the player's first connection here: they arrived
            await self.server.service.presence_changed(room_id)

    async def attach_seated(self, room_id: str) -> None:
        """Attach this connection to a room its player sits in (an action there shows
        they are present); nothing for a room they do not sit in."""
        if room_id in self.attached:
            return
        loaded = await self.server.service.load(room_id)
        if loaded is not None and loaded[1].seat_of(self.player) is not None:
            await self.attach(room_id)

    async def detach(self, room_id: str) -> None:
        """Detach this connection from a room (``leave``, or the socket closed). With the
        store unreachable the server tries again later (:meth:`GomokuServer.detach_later`):
        an attachment left behind would keep the player present."""
        if room_id not in self.attached:
            return
        self.attached.discard(room_id)
        try:
            count = await self.server.store.detach(room_id, self.conn_id, now_ms())
        except StoreUnavailable:
            self.server.detach_later(room_id, self.conn_id)
            return
        if count == 0:  # their last connection here: they left
            with contextlib.suppress(GameError, NoSuchRoom, StoreUnavailable):
                await self.server.service.presence_changed(room_id)

    # -- room sync -------------------------------------------------------------

    def room_event(self, room_id: str, seq: int, frame: bytes) -> ServerConnection | None:
        """Take a room's event; returns the socket to write ``frame`` to now (the hub
        writes one event to all its watchers in one go), or None if it is not for
        sending now (buffered while catching up, a duplicate, or refused)."""
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
            self._spawn(self.sync_room(room_id, REPAIR))
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
        await self.server.hub.watch(room_id, self)
        store = self.server.store
        while True:
            events = None if after is None else await store.read_events(room_id, after)
            if events is None:
                service = self.server.service
                loaded = await service.load(room_id, fresh=True)
                if loaded is None:
                    self.unwatch(room_id)
                    raise NoSuchRoom(room_id)
                record, room = loaded
                viewer = None if self.session is None else self.session.player
                watching, _ = await service.spectators(room)
                grace = self.config.game.grace_ms
                view = room.view(record.seq, now_ms(), grace, viewer=viewer, spectators=watching)
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

    def unwatch(self, room_id: str) -> None:
        self.rooms.pop(room_id, None)
        self.server.hub.unwatch(room_id, self)

    # -- helpers ---------------------------------------------------------------

    @property
    def player(self) -> str:
        assert self.session is not None
        return self.session.player

    async def rating(self, rule: Rule) -> float:
        """This player's Glicko-2 rating under ``rule`` (1500 before any rated game)."""
        standing = await self.server.store.rating(history.pool(rule), self.player)
        return standing.rating.rating

    async def rated_seat(self, rule: Rule) -> Seat:
        """:meth:`seat` showing the player's rating under ``rule`` (an AI's stays None)."""
        seat = self.seat()
        if not seat.bot:
            seat.rating = round(await self.rating(rule))
        return seat

    def seat(self) -> Seat:
        assert self.session is not None
        s = self.session
        return Seat(id=s.player, name=s.name, rating=s.rating, bot=s.bot)

    async def act(self, room_id: str, action: game.GameAction) -> None:
        """Apply a seated player's action to a room (attaching this connection there
        first), then report a late refusal (a fallen flag)."""
        await self.attach_seated(room_id)
        outcome, _ = await self.server.service.act(room_id, action)
        if outcome.error is not None:
            raise outcome.error

    async def notice(self, notice: Notice) -> None:
        """A note for this player from any server instance."""
        if notice.kind == "revoke":
            if notice.token and notice.token == self.token_hash:
                self.close(CloseCode.NORMAL, "this AI seat moved to another worker")
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


# --- message handlers --------------------------------------------------------------------


async def on_hello(conn: Connection, msg: m.Hello) -> None:
    """Identify the connection as a new player, or as the player a resume token names.

    All or nothing: the connection counts as identified (``conn.session`` set) once
    ``welcome`` is sent, and only then. A hello that fails part-way (the store
    unreachable, say) is taken back by :func:`_undo_hello` before its error goes out,
    so the client may say hello again, and nothing else is handled until one succeeds.
    A hello attaches the connection to no room: its player is present in a room once a
    connection of theirs resumes or joins it (or acts there), so ``welcome`` lists the
    rooms to resume.
    """
    if conn.session is not None:
        raise Refused(ErrorCode.WRONG_PHASE, "already said hello on this connection")
    if msg.version != PROTOCOL_VERSION:
        raise Refused(
            ErrorCode.UNSUPPORTED_VERSION,
            f"this server speaks protocol {PROTOCOL_VERSION}, not {msg.version}",
        )
    bot = False
    if msg.bot_key is not None:
        if msg.bot_key not in conn.server.bot_keys:
            raise Refused(ErrorCode.BAD_BOT_KEY, "unknown bot key")
        bot = True
    store = conn.server.store
    resumed = False
    if msg.token is not None:
        data = await store.get_session(token_hash(msg.token))
        if data is None:
            raise Refused(ErrorCode.BAD_TOKEN, "unknown or expired resume token; hello without it")
        session = decode_session(data)
        if session.worker is not None and not bot:
            raise Refused(ErrorCode.BAD_BOT_KEY, "an AI seat's token needs the bot key with it")
        token = msg.token
        resumed = True
        if session.worker is not None:
            session.seen_ms = now_ms()
        if session.name != msg.name or session.bot != bot or session.worker is not None:
            session.name, session.bot = msg.name, bot or session.bot
            await store.put_session(token_hash(token), encode_session(session))
    else:
        token = new_token()
        session = SessionRecord(
            player=new_player_id(),
            name=msg.name,
            rating=conn.config.matchmaking.default_rating,
            bot=bot,
        )
        await store.put_session(token_hash(token), encode_session(session))
    conn.session = session
    conn.token_hash = token_hash(token)
    try:
        await conn.server.attach(session.player, conn)
        if session.worker is not None:
            conn.server.bots.seat_online(session, conn.token_hash)
        rooms = await store.player_rooms(session.player)
    except Exception:
        await _undo_hello(conn, session)
        raise
    log.info("%s %s (%s)", "resumed" if resumed else "hello", session.player, session.name)
    conn.send(
        m.Welcome(
            player=session.player,
            name=session.name,
            token=token,
            resumed=resumed,
            rooms=rooms,
            server=f"{conn.config.server_name} {conn.server.version}",
            limits=conn.server.wire_limits(),
            re=msg.id,
        )
    )


async def _undo_hello(conn: Connection, session: SessionRecord) -> None:
    """Put a connection whose hello failed part-way back as it was before: not
    identified, not known as the player's, not watching or attached to any room (a notice
    may have started one); an AI seat counts as away again unless another connection of
    it is here, as when a connection closes (:meth:`Connection._cleanup`). A session
    record already written stays: a new player's is never used (its token was not sent),
    and a returning player's only holds the name they asked for."""
    for room_id in list(conn.rooms):
        conn.unwatch(room_id)
    for room_id in sorted(conn.attached):
        await conn.detach(room_id)
    conn.session = None
    conn.token_hash = None
    if conn.server.detach(session.player, conn):
        return
    if session.worker is not None:
        conn.server.bots.seat_offline(session.player)


async def on_lobby_watch(conn: Connection, msg: m.LobbyWatch) -> None:
    hub = conn.server.hub
    if not msg.on:
        hub.lobby_watchers.discard(conn)
        return
    hub.lobby_watchers.add(conn)
    listing = await conn.server.store.lobby_list()
    summaries = sorted((_decode_summary(v) for v in listing.values()), key=lambda s: s.id)
    size = max(1, conn.server.config.lobby_part_rooms)
    parts = [summaries[i : i + size] for i in range(0, len(summaries), size)] or [[]]
    last = len(parts) - 1
    conn.send_together(
        [m.Lobby(rooms=rooms, re=msg.id, part=i, more=i < last) for i, rooms in enumerate(parts)]
    )


def _decode_summary(data: bytes) -> RoomSummary:
    return msgspec.msgpack.decode(data, type=RoomSummary)


async def on_create_room(conn: Connection, msg: m.CreateRoom) -> None:
    service = conn.server.service
    async with _owned_room(conn) as room_id:
        code = await _reserve_invite(conn, room_id) if msg.private else None
        settings = game.RoomSettings(
            rule=msg.rule,
            size=msg.size,
            opening=msg.opening,
            time=msg.time,
            rated=msg.rated,
            private=msg.private,
            code=code,
        )
        seat = await conn.rated_seat(msg.rule)
        room = await service.open(room_id, settings, seats=[(seat, msg.seat)], owner=conn.player)
    log.info("room %s created by %s (%s)", room.id, conn.player, room.rule)
    await conn.attach(room.id)
    await conn.sync_room(room.id, None, re=msg.id)


@contextlib.asynccontextmanager
async def _owned_room(conn: Connection) -> AsyncIterator[str]:
    """The id for a room the player asks for, counted against their cap of open rooms
    (``too_many_rooms`` if it is full, in the store, so on every instance); counted no
    more if the room is not created. The room's end or emptying releases it
    (``RoomService._after_commit``)."""
    room_id = new_room_id()
    cap = conn.config.limits.max_rooms_per_player
    store = conn.server.store
    if not await store.add_owned_room(conn.player, room_id, cap, now_ms()) and not (
        await _release_ended_rooms(conn)
        and await store.add_owned_room(conn.player, room_id, cap, now_ms())
    ):
        raise Refused(
            ErrorCode.TOO_MANY_ROOMS,
            f"you already have {cap} open rooms, the most one player may have; finish one "
            "first (a room counts until its game ends, or until everyone left it before "
            "it began)",
        )
    try:
        yield room_id
    except Exception:
        with contextlib.suppress(StoreUnavailable):  # else forgotten once it proves gone
            await conn.server.store.remove_owned_room(conn.player, room_id)
        raise


async def _release_ended_rooms(conn: Connection) -> bool:
    """Take the player's rooms whose game is over off their count; True if there were
    any. A game's end releases its room just after the commit that ends it, so a player
    quick to create the next room (or an instance that died in between) gets here."""
    store = conn.server.store
    released = False
    for room_id in await store.owned_rooms(conn.player):
        loaded = await conn.server.service.load(room_id, fresh=True)
        if loaded is not None and loaded[1].state == "over":
            await store.remove_owned_room(conn.player, room_id)
            released = True
    return released


async def _reserve_invite(conn: Connection, room_id: str) -> str:
    """A new invite code for a private room about to be created, mapped to it."""
    code = new_invite_code()
    while not await conn.server.store.put_invite(invite_key(code), room_id):
        code = new_invite_code()  # pragma: no cover - a 31^9 collision
    return code


async def _resolve_room(conn: Connection, room: str | None, code: str | None) -> str:
    """The room a join names, by id or by invite code. Joins by code are refused unread
    while the connection or its address has had too many codes that led nowhere."""
    if room is not None:
        return room
    assert code is not None
    now = now_ms()
    by_address = conn.server.code_failures
    wait = max(conn.code_failures.wait_ms(now), by_address.wait_ms(conn.address, now))
    if wait:
        raise Refused(
            ErrorCode.RATE_LIMITED,
            f"too many invite codes that lead nowhere; try again in {-(-wait // 1000)} s",
        )
    found = await conn.server.store.get_invite(invite_key(code))
    if found is None:
        conn.code_failures.add(now)
        by_address.add(conn.address, now)
        raise Refused(ErrorCode.NO_SUCH_ROOM, "no room has that invite code")
    return found


async def on_join(conn: Connection, msg: m.Join) -> None:
    room_id = await _resolve_room(conn, msg.room, msg.code)
    loaded = await conn.server.service.load(room_id)
    if loaded is None:
        raise NoSuchRoom(room_id)
    _, room = loaded
    if room.private and msg.code is None and room.seat_of(conn.player) is None:
        raise Refused(ErrorCode.NO_SUCH_ROOM, "that room is private: join it by its invite code")
    service = conn.server.service
    if msg.role == "player":
        await conn.act(room_id, game.Join(await conn.rated_seat(room.rule)))
    await conn.attach(room_id)
    if msg.role == "player":  # a spectator who sat down is no longer one
        await service.announce_spectators(room_id)
    await conn.sync_room(room_id, None, re=msg.id)


async def on_leave(conn: Connection, msg: m.Leave) -> None:
    if msg.room not in conn.rooms and msg.room not in conn.attached:
        raise Refused(ErrorCode.NOT_IN_ROOM, "you are not watching that room")
    conn.unwatch(msg.room)
    service = conn.server.service
    loaded = await service.load(msg.room)
    seated = loaded is not None and loaded[1].seat_of(conn.player) is not None
    if seated and loaded is not None and loaded[1].state == "waiting":
        with contextlib.suppress(GameError, NoSuchRoom):  # before the game: give up the seat
            await service.act(msg.room, game.Leave(conn.player))
    with contextlib.suppress(NoSuchRoom):
        await conn.detach(msg.room)
    conn.send(m.Left(room=msg.room, re=msg.id))


async def on_resume(conn: Connection, msg: m.Resume) -> None:
    loaded = await conn.server.service.load(msg.room, fresh=True)
    if loaded is None:  # expired, or lost when a server without Redis restarted
        raise Refused(ErrorCode.NO_SUCH_ROOM, ROOM_GONE)
    record, room = loaded
    if room.private and room.seat_of(conn.player) is None and msg.room not in conn.attached:
        attendance = await conn.server.store.attendance(msg.room, [conn.player])
        if not attendance.attached(conn.player):
            raise Refused(ErrorCode.NOT_IN_ROOM, "you are not in that private room")
    if msg.after > record.seq:
        raise Refused(ErrorCode.BAD_VALUE, f"the room's log ends at seq {record.seq}")
    await conn.attach(msg.room)
    await conn.sync_room(msg.room, msg.after, re=msg.id)


async def on_queue(conn: Connection, msg: m.Queue) -> None:
    if conn.queue is not None:
        raise Refused(ErrorCode.ALREADY_QUEUED, "you are already waiting for a match")
    name = queue_name(msg.rule, msg.time)
    assert conn.session is not None
    rating = await conn.rating(msg.rule)  # quick match pairs by the rating under the rule
    entry = QueueEntry(conn.player, rating, now_ms(), conn.session.name)
    if not await conn.server.store.queue_add(name, entry):
        raise Refused(ErrorCode.ALREADY_QUEUED, "you are already waiting for a match")
    conn.queue = name
    conn.queue_ticket += 1
    conn.server.queues[name] = (msg.rule, msg.time)
    conn.send(
        m.Queued(rule=msg.rule, time=msg.time, since_ms=0, ai_after_ms=msg.ai_after_ms, re=msg.id)
    )
    conn.server.wake_matchmaker()
    if msg.ai_after_ms is not None:
        conn._spawn(_ai_after_wait(conn, msg, entry, name, conn.queue_ticket))


async def _ai_after_wait(
    conn: Connection, msg: m.Queue, entry: QueueEntry, name: str, ticket: int
) -> None:
    """Nobody came within ``ai_after_ms``: take the player out of the queue (unless a
    match got there first) and seat them against an AI. With no AI free, they go on
    waiting for a person and are told so."""
    assert msg.ai_after_ms is not None
    await asyncio.sleep(msg.ai_after_ms / 1000)
    store = conn.server.store
    if conn.queue_ticket != ticket or conn.queue != name:
        return
    if not await store.queue_remove(name, conn.player):
        return  # matched with a person meanwhile
    try:
        room = await conn.server.ai.ai_room(
            game.RoomSettings(rule=msg.rule, time=msg.time),
            levels=[msg.ai_level],
            people=[await conn.rated_seat(msg.rule)],
        )
    except GameError as exc:
        await store.queue_add(name, entry)
        conn.error(exc.code, f"{exc.message}; still waiting for a player", re=msg.id)
        return
    log.info("%s waited %d ms: playing an AI in room %s", conn.player, msg.ai_after_ms, room.id)
    await store.publish_player(conn.player, encode_notice(Notice(kind="matched", room=room.id)))


async def on_unqueue(conn: Connection, msg: m.Unqueue) -> None:
    if conn.queue is None or not await conn.server.store.queue_remove(conn.queue, conn.player):
        conn.queue = None
        raise Refused(ErrorCode.NOT_QUEUED, "you are not waiting for a match")
    conn.queue = None
    conn.send(m.Unqueued(re=msg.id))


async def on_move(conn: Connection, msg: m.Move) -> None:
    await conn.act(msg.room, game.Move(conn.player, msg.point))


async def on_choose(conn: Connection, msg: m.Choose) -> None:
    await conn.act(msg.room, game.Choose(conn.player, msg.choice))


async def on_resign(conn: Connection, msg: m.Resign) -> None:
    await conn.act(msg.room, game.Resign(conn.player))


async def on_offer(conn: Connection, msg: m.Offer) -> None:
    await conn.act(msg.room, game.Offer(conn.player, msg.kind))


async def on_answer(conn: Connection, msg: m.Answer) -> None:
    rematch_id = new_room_id()
    outcome, _ = await conn.server.service.act(
        msg.room, game.Answer(conn.player, msg.kind, msg.accept, rematch_id)
    )
    if outcome.error is not None:
        raise outcome.error
    if outcome.spawn is not None:
        for seat in outcome.spawn.seats:
            if seat is not None:
                notice = encode_notice(Notice(kind="watch", room=outcome.spawn.id))
                await conn.server.store.publish_player(seat.id, notice)


async def on_claim(conn: Connection, msg: m.Claim) -> None:
    await conn.act(msg.room, game.Claim(conn.player))


async def on_chat(conn: Connection, msg: m.Chat) -> None:
    if not conn.server.chat_window(conn.player).take(now_ms()):
        raise Refused(ErrorCode.CHAT_RATE_LIMITED, "too many chat messages; wait a little")
    assert conn.session is not None
    await conn.attach_seated(msg.room)
    if msg.room not in conn.attached:
        if await conn.server.service.load(msg.room) is None:
            raise NoSuchRoom(msg.room)
        raise Refused(ErrorCode.NOT_IN_ROOM, "join the room before chatting in it")
    line = ChatPosted(player=conn.player, name=conn.session.name, text=msg.text)
    await conn.server.service.chat(msg.room, line)


async def on_seat_ai(conn: Connection, msg: m.SeatAi) -> None:
    await conn.server.ai.seat_in(msg.room, conn.player, msg.level)


async def on_create_ai_game(conn: Connection, msg: m.CreateAiGame) -> None:
    async with _owned_room(conn) as room_id:
        code = await _reserve_invite(conn, room_id) if msg.private else None
        settings = game.RoomSettings(
            rule=msg.rule,
            size=msg.size,
            opening=msg.opening,
            time=msg.time,
            private=msg.private,
            code=code,
        )
        room = await conn.server.ai.ai_room(
            settings, levels=[msg.black, msg.white], people=[], room_id=room_id, owner=conn.player
        )
    log.info("AI game in room %s created by %s", room.id, conn.player)
    await conn.attach(room.id)  # as a spectator
    await conn.sync_room(room.id, None, re=msg.id)


async def on_hint(conn: Connection, msg: m.Hint) -> None:
    loaded = await conn.server.service.load(msg.room)
    if loaded is None:
        raise NoSuchRoom(msg.room)
    record, room = loaded
    if room.seat_of(conn.player) is None and msg.room not in conn.attached:
        raise Refused(ErrorCode.NOT_IN_ROOM, "join the room before asking for a hint")
    if room.rated:
        raise Refused(ErrorCode.HINT_NOT_ALLOWED, "no hints in a rated game")
    if room.view(record.seq, now_ms(), 0, viewer=None).to_move is None:
        raise Refused(ErrorCode.WRONG_PHASE, "there is no stone to place right now")
    if conn.hint_pending:
        raise Refused(ErrorCode.THROTTLED, "wait for the answer to your last hint")
    conn.hint_pending = True
    try:
        point, reason = await conn.server.hints.hint(room)
    finally:
        conn.hint_pending = False
    conn.send(
        m.Suggestion(room=room.id, point=point, reason=reason, move_no=len(room.moves), re=msg.id)
    )


def _require_bot(conn: Connection) -> str:
    assert conn.session is not None
    if not conn.session.bot or conn.session.worker is not None:
        raise Refused(ErrorCode.NOT_A_BOT, "only an AI worker (hello with a bot key) may do that")
    return conn.session.player


async def on_bot_ready(conn: Connection, msg: m.BotReady) -> None:
    worker_id = _require_bot(conn)
    conn.worker = True
    conn.server.bots.register(worker_id, conn, msg.seats, msg.levels)
    bots = conn.config.bots
    conn.send(
        m.BotAccepted(
            worker=worker_id, heartbeat_ms=bots.heartbeat_ms, lease_ms=bots.lease_ms, re=msg.id
        )
    )


async def on_bot_heartbeat(conn: Connection, msg: m.BotHeartbeat) -> None:
    worker_id = _require_bot(conn)
    if not conn.server.bots.is_worker(worker_id, conn):
        raise Refused(ErrorCode.WRONG_PHASE, "send bot_ready first")
    conn.server.bots.heartbeat(worker_id)


async def on_hint_result(conn: Connection, msg: m.HintResult) -> None:
    worker_id = _require_bot(conn)
    conn.server.bots.heartbeat(worker_id)
    conn.server.hints.hint_result(worker_id, msg)


async def on_get_leaderboard(conn: Connection, msg: m.GetLeaderboard) -> None:
    store = conn.server.store
    board = await store.leaderboard(history.pool(msg.rule), msg.limit)
    names = await store.names([player for player, _ in board])
    entries = [
        LeaderboardEntry(
            rank=rank,
            player=player,
            name=names.get(player, player),
            rating=round(standing.rating.rating),
            rd=round(standing.rating.rd),
            games=standing.games,
        )
        for rank, (player, standing) in enumerate(board, 1)
    ]
    conn.send(m.Leaderboard(rule=msg.rule, entries=entries, re=msg.id))


async def on_get_profile(conn: Connection, msg: m.GetProfile) -> None:
    store = conn.server.store
    player = msg.player or conn.player
    if player == conn.player:
        assert conn.session is not None
        name = conn.session.name
    else:
        known = (await store.names([player])).get(player)
        if known is None:
            raise Refused(ErrorCode.NO_SUCH_PLAYER, "no player with that id has finished a game")
        name = known
    ratings = [
        history.standing(rule, await store.rating(history.pool(rule), player)) for rule in Rule
    ]
    conn.send(m.Profile(player=player, name=name, ratings=ratings, re=msg.id))


async def on_list_games(conn: Connection, msg: m.ListGames) -> None:
    store = conn.server.store
    player = msg.player or conn.player
    items: list[GameSummary] = []
    before = msg.before_ms
    # Another player's private games are left out, so a page may take a few looks.
    for _ in range(4):
        ids = await store.player_games(player, msg.limit, before)
        looked_from = before
        for game_id in ids:
            data = await store.get_record(game_id)
            if data is None:
                continue
            try:
                item = history.summary(data)
                private = bool(history.facts(data).get("private"))
            except history.BadRecord as exc:
                log.warning("game %s: %s", game_id, exc)
                continue
            before = item.ended_ms
            if private and conn.player not in (item.black.id, item.white.id):
                continue
            if len(items) < msg.limit:
                items.append(item)
        if len(ids) < msg.limit or len(items) >= msg.limit or before == looked_from:
            break
    conn.send(m.Games(player=player, items=items, re=msg.id))


async def on_get_record(conn: Connection, msg: m.GetRecord) -> None:
    data = await conn.server.store.get_record(msg.game)
    try:
        if data is None:
            raise history.BadRecord("no record")
        facts = history.facts(data)
        if facts.get("private") and conn.player not in (facts.get("black"), facts.get("white")):
            raise history.BadRecord("a private game of other players")
        text = history.export(data, msg.format)
    except history.BadRecord:
        raise Refused(
            ErrorCode.NO_SUCH_GAME, "no finished game with that id (a running game has no record)"
        ) from None
    conn.send(m.Record(game=msg.game, format=msg.format, text=text, re=msg.id))


Handler = Callable[[Connection, Any], Awaitable[None]]

HANDLERS: dict[type, Handler] = {
    m.Hello: on_hello,
    m.LobbyWatch: on_lobby_watch,
    m.CreateRoom: on_create_room,
    m.Join: on_join,
    m.Leave: on_leave,
    m.Resume: on_resume,
    m.Queue: on_queue,
    m.Unqueue: on_unqueue,
    m.Move: on_move,
    m.Choose: on_choose,
    m.Resign: on_resign,
    m.Offer: on_offer,
    m.Answer: on_answer,
    m.Claim: on_claim,
    m.Chat: on_chat,
    m.SeatAi: on_seat_ai,
    m.CreateAiGame: on_create_ai_game,
    m.Hint: on_hint,
    m.BotReady: on_bot_ready,
    m.BotHeartbeat: on_bot_heartbeat,
    m.HintResult: on_hint_result,
    m.GetLeaderboard: on_get_leaderboard,
    m.GetProfile: on_get_profile,
    m.ListGames: on_list_games,
    m.GetRecord: on_get_record,
}
"""Client message type -> handler. Every ClientMessage type has an entry."""


def wire_limits(config: Any) -> Limits:
    limits = config.limits
    return Limits(
        max_frame=limits.max_frame,
        rate_per_s=int(limits.rate_per_s),
        rate_burst=limits.rate_burst,
        chat_per_window=limits.chat_per_window,
        chat_window_ms=limits.chat_window_ms,
        ping_interval_ms=int((limits.ping_interval_s or 0) * 1000),
        ping_timeout_ms=int((limits.ping_timeout_s or 0) * 1000),
        grace_ms=config.game.grace_ms,
    )
