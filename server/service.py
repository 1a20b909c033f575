"""Rooms over the store: load, apply an action with :mod:`server.game`, commit
with a version check (retrying on conflict), then keep the indexes (lobby,
players' seats, expiry) in step. No WebSocket code here.

Only game actions (moves, offers, clocks, seats, presence changes) compete for a
room's versioned record. Chat and the spectator count are appended to the room's
log without a version (:meth:`Store.append`, :meth:`Store.announce_count`), and
connections attach to a room apart from it (:meth:`Store.attach`): a player's
presence follows their attached connections, written into the record only when it
changes (:meth:`RoomService.presence_changed`). So a crowd chatting, arriving and
leaving never makes a move conflict with it, whatever the number of instances.

The service also keeps each game's history (when it began, when each stone
was placed, when it ended), archives a finished game (its record, and the
ratings of a rated one: both idempotent, and retried by any instance through
the room's due time until they are written), and gives clocks back the time of
an outage (:mod:`server.outage`) before applying anything."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import random
import time
from collections.abc import Callable, Iterable, Sequence

import msgspec

from engine import Color, Reason
from protocol.codec import decode_event, encode
from protocol.events import (
    ChatPosted,
    GameOver,
    GameStarted,
    Moved,
    PlayerJoined,
    Presence,
    RatingChange,
    Rematch,
    RoomEvent,
    SpectatorCount,
)
from protocol.limits import CHAT_HISTORY
from protocol.values import ChatLine
from server import game, history, outage
from server.config import ServerConfig
from server.metrics import Metrics
from server.recent import Recent
from server.room import (
    LIVE_STATES,
    ROOMS_REMEMBERED,
    EncodedRoom,
    Room,
    Seat,
    copy_room,
    decode_room,
    encode_room,
)
from server.sessions import invite_key, new_room_id
from server.store import Conflict, Outage, RoomRecord, Store
from server.store.base import RoomState

log = logging.getLogger("gomoku.server")

MAX_ATTEMPTS = 20
UNARCHIVED_KEEP_MS = 24 * 3_600_000
"""How long a finished room whose game could not be kept yet stays for the retries (a
full disk, Redis away): long enough for an operator to free space; then it is lost."""


def now_ms() -> int:
    return int(time.time() * 1000)


class RoomService:
    """Every change to a room goes through :meth:`act` (or :meth:`create`)."""

    def __init__(self, store: Store, config: ServerConfig, metrics: Metrics) -> None:
        self.store = store
        self.config = config
        self.metrics = metrics
        self._known: Recent[str, tuple[RoomState, Room]] = Recent(ROOMS_REMEMBERED)
        """Room id -> the state this instance last committed or read and the room it
        encodes (read only): the next read of that state does not decode it again."""
        self.outage: Outage | None = None
        """The latest outage this instance knows of (the clock ticker's beat updates it)."""
        self._archive_tries: dict[str, int] = {}
        """Finished games whose archiving failed here, and how many times: a failure is
        logged once a game, its retries at DEBUG (a full disk's five minutes logged 2,087
        warnings, one a held game every 5 s)."""

    async def load(self, room_id: str, *, fresh: bool = False) -> tuple[RoomRecord, Room] | None:
        """The room's stored record and the room it holds, for reading only: the same
        object may be given to other readers, and to the next action as the room before."""
        record = await self.store.load_room(room_id, fresh=fresh)
        if record is None:
            return None
        # Decoded once, the first time this instance commits or reads a state: an action,
        # a join, a presence change and the spectator count read the same one in turn.
        state = record.state
        known = self._known.get(room_id)
        if known is not None and known[0] == state:
            return record, known[1]
        room = state.room if isinstance(state, EncodedRoom) else decode_room(bytes(state))
        self._known.put(room_id, (state, room))
        return record, room

    async def open(
        self,
        room_id: str,
        settings: game.RoomSettings,
        *,
        seats: Sequence[tuple[Seat, game.SeatWish]],
        owner: str | None = None,
    ) -> Room:
        """Make a room with ``seats`` taken (:func:`server.game.seated_room`, as for every
        room) and store it (:meth:`create`). Raises GameError if a seat is taken twice."""
        room, events = game.seated_room(
            room_id, settings, owner=owner, seats=seats, now_ms=now_ms(), rules=self.config.game
        )
        return await self.create(room, events)

    async def create(self, room: Room, events: list[RoomEvent]) -> Room:
        """Store a new room (picking a fresh id on the rare collision). A room waiting for
        its players closes if nobody comes within ``waiting_room_ttl_ms``."""
        if room.started_ms is None and room.state != "waiting":
            room.started_ms = now_ms()
        if room.state == "waiting" and room.close_at_ms is None:
            room.close_at_ms = now_ms() + self.config.timers.waiting_room_ttl_ms
        while True:
            try:
                await self.store.commit(
                    room.id,
                    0,
                    encode_room(room),
                    [encode(e) for e in events],
                    deadline_ms=room.due_ms(self.config.game.grace_ms),
                )
            except Conflict:
                room.id = new_room_id()
                continue
            break
        self.metrics.inc("gomoku_rooms_created_total")
        await self._after_commit(None, room, events)
        return room

    async def act(
        self, room_id: str, action: game.GameAction | Callable[[Room], game.GameAction]
    ) -> tuple[game.Outcome, int]:
        """Apply an action and commit it; returns the outcome and the room's last seq.

        Raises GameError (refused; nothing written) or :class:`NoSuchRoom`. On a
        version conflict the room is reloaded and the action applied again; an
        action given as a function of the room is rebuilt from the fresh room.
        """
        timers = self.config.timers
        grace = self.config.game.grace_ms
        checked_outage = False
        # A tick may rewrite the room's deadline without a commit, and a tick or a claim
        # judges presence by the connections attached after the room was read: both read
        # the room as stored, never as this instance remembers it (see Store.load_room).
        fresh = isinstance(action, (game.Tick, game.Claim))
        archive_tried = False
        for _ in range(MAX_ATTEMPTS):
            loaded = await self.load(room_id, fresh=fresh)
            if loaded is None:
                raise NoSuchRoom(room_id)
            record, room = loaded
            this = action(room) if callable(action) else action
            if isinstance(this, (game.Tick, game.Claim)) and this.attendance is None:
                # Read after the room: a change of presence that this misses commits
                # after it, so one of the two writes sees the other (version check).
                attendance = await self.store.attendance(room_id, room.seated())
                this = dataclasses.replace(this, attendance=attendance)
            if isinstance(this, game.Tick) and room.archive_at_ms is not None and not archive_tried:
                if await self.archive(room):  # a finished game's archiving fell due
                    await self._expire_finished(room, archived=True)  # kept: the usual TTL
                if this.due:
                    return game.Outcome(room), record.seq
                # A presence change while the game was being archived: applied to the
                # room as archived, after the game_over the archive logs. It was dropped
                # (a player who left at once stayed present to the room, and an AI seat
                # waited its 20 s for a rematch nobody would offer).
                archive_tried = True
                continue
            now = now_ms()
            working = copy_room(room)  # ``room`` stays as it was, for comparing
            gave_back = outage.give_back(working, self.outage, timers.outage_grace_max_ms)
            try:
                outcome = game.apply_to_copy(working, this, now, self.config.game)
            except game.GameError:
                if record.remembered:  # refuse only what the room as stored refuses
                    fresh = True
                    continue
                raise
            if not checked_outage and _flagged(outcome):
                # Before a flag falls, make sure no outage this instance has not heard of
                # yet (it just came back, say) ate the time: beat, and look again.
                checked_outage = True
                latest = await self.store.beat(now, timers.outage_after_ms)
                if latest != self.outage:
                    self.outage = latest
                    continue
            _keep_history(room, outcome.room, now, timers.archive_retry_ms)
            if not outcome.changed and not gave_back:
                if isinstance(this, game.Tick) and this.due:
                    await self.store.set_deadline(room_id, room.due_ms(grace))
                return outcome, record.seq
            if outcome.spawn is not None:
                await self._rate_seats(outcome.spawn, outcome.spawn_events)
                outcome.spawn = await self.create(outcome.spawn, outcome.spawn_events)
                outcome.room.rematch_room = outcome.spawn.id
                outcome.room.rematch_code = outcome.spawn.code
                outcome.events = [
                    msgspec.structs.replace(e, room=outcome.spawn.id)
                    if isinstance(e, Rematch)
                    else e
                    for e in outcome.events
                ]
            events = outcome.events
            if room.state != "over" and outcome.room.state == "over":
                # game_over waits for the archive, which logs it with the new ratings.
                outcome.room.game_over_held = True
                events = [e for e in events if not isinstance(e, GameOver)]
            try:
                state = EncodedRoom(outcome.room)
                result = await self.store.commit(
                    room_id,
                    record.version,
                    state,
                    [encode(e) for e in events],
                    deadline_ms=outcome.room.due_ms(grace),
                )
            except Conflict:
                if outcome.spawn is not None:
                    await self.store.expire_room(outcome.spawn.id, 0)
                continue
            # ``outcome.room`` is read, never changed, after its commit: by the callers, and
            # by the next act as the room before its action (the action changes a copy).
            self._known.put(room_id, (state, outcome.room))
            await self._after_commit(room, outcome.room, events)
            return outcome, result.last_seq
        raise RuntimeError(f"room {room_id}: too many conflicting writers")

    async def presence_changed(self, room_id: str, player: str | None = None) -> None:
        """A player's first connection attached to the room, or their last one left: bring
        the seats' presence (and whatever follows from it: a game both players left
        ends) and the spectator count in line with the attached connections.

        ``player``, if given, is the one who came or went. If they sit in the room, the
        spectator count is not looked at: a seated player is no spectator, attached or
        not (a tick never seats anyone, so they sat there when they came or went). A
        spectator who takes a seat is announced by the join (``on_join``)."""
        try:
            outcome, _ = await self.act(room_id, game.Tick(due=False))
        except NoSuchRoom:
            return
        if player is None or outcome.room.seat_of(player) is None:
            await self.announce_spectators(room_id)

    async def unfinished(self, room_ids: Iterable[str]) -> list[Room]:
        """The rooms of ``room_ids`` (each once) whose game has not ended: waiting or being
        played (what a player's per-player limits count)."""
        rooms = []
        for room_id in dict.fromkeys(room_ids):
            loaded = await self.load(room_id)
            if loaded is not None and loaded[1].state != "over":
                rooms.append(loaded[1])
        return rooms

    async def spectators(self, room: Room) -> tuple[int, int]:
        """The room's spectators now (attached players without a seat), and the count it
        last announced."""
        seated = room.seated()
        attendance = await self.store.attendance(room.id, seated)
        here = sum(1 for player in seated if attendance.attached(player))
        return attendance.players - here, attendance.shown

    async def announce_spectators(self, room_id: str, *, due: bool = False) -> None:
        """Tell the room its spectator count if it changed, at most once per
        ``spectator_count_every_ms`` (a count held back is announced when the room falls
        due: ``due``); the lobby line follows the announced count."""
        loaded = await self.load(room_id)
        if loaded is None:
            return
        _, room = loaded
        count, _ = await self.spectators(room)
        every = self.config.game.spectator_count_every_ms
        event = encode(SpectatorCount(count=count))
        done = await self.store.announce_count(room_id, count, event, now_ms(), every, due=due)
        if done.seq and not room.private and room.state != "over" and room.seated():
            await self.store.lobby_put(room_id, encode(room.summary(count)))

    async def recent_chat(self, room_id: str, last_seq: int) -> list[ChatLine]:
        """The room's last chat lines up to ``last_seq`` (at most CHAT_HISTORY), oldest
        first, for a snapshot: a player back after a reload or a spectator who came late
        reads what was said. The store keeps them apart from the log (:meth:`chat`), so a
        crowd joining a long game never reads the game's events for them."""
        lines: list[ChatLine] = []
        for stored in await self.store.recent_chat(room_id):
            if stored.seq > last_seq:  # said after the snapshot: it follows as an event
                break
            event = decode_event(stored.data)
            if isinstance(event, ChatPosted):
                lines.append(
                    ChatLine(seq=stored.seq, player=event.player, name=event.name, text=event.text)
                )
        return lines[-CHAT_HISTORY:]

    async def chat(self, room_id: str, line: ChatPosted) -> None:
        """Log a chat line: appended, never competing with the room's game actions, and
        kept among the room's last CHAT_HISTORY lines in the same step."""
        if await self.store.append(room_id, [encode(line)], keep_chat=CHAT_HISTORY) is None:
            raise NoSuchRoom(room_id)

    async def show_rating(self, seat: Seat, rule: str) -> None:
        """Show in ``seat`` its player's rating under ``rule`` as it stands now."""
        history.show_rating(seat, await self.store.rating(history.pool(rule), seat.id))

    async def _rate_seats(self, room: Room, events: list[RoomEvent]) -> None:
        """Show each person's current rating (for the room's rule) in a new room's seats
        and its ``player_joined`` events: a rematch copies seats from the last game."""
        rated: dict[str, Seat] = {}
        for seat in room.seats:
            if seat is not None and not seat.bot:
                await self.show_rating(seat, room.rule)
                rated[seat.id] = seat
        for i, event in enumerate(events):
            if isinstance(event, PlayerJoined) and (seat := rated.get(event.player)) is not None:
                events[i] = msgspec.structs.replace(
                    event, rating=seat.rating, provisional=seat.provisional
                )

    async def archive(self, room: Room) -> bool:
        """If a finished game was rated, update both ratings; keep its record (with what
        it did to them); then log the held ``game_over`` (with the rating changes) and
        mark the room archived.
        Both writes are idempotent (a record is overwritten with the same bytes, a game is
        rated once and a retry answers what the first rating did), so an instance retrying
        after a failure or racing another does no harm. A failure leaves the room's due
        time set: the clock ticker of any instance tries again after ``archive_retry_ms``,
        and the room is kept until then (:meth:`_expire_finished`). True if it was kept."""
        try:
            black, white = history.colour_seats(room)
            # A player's name others look up is set by their first finished game, and
            # then only by a rename (server.handlers.hello): the seat keeps the name of
            # when they sat down, and a pupil renamed from a rude name read it again on
            # their profile when a game begun before the rename ended.
            people = {seat.id: seat.name for seat in (black, white) if not seat.bot}
            known = await self.store.names(list(people))
            if fresh := {player: name for player, name in people.items() if player not in known}:
                await self.store.put_names(fresh)
            score = history.black_score(room)
            ratings = None
            if score is not None:  # first: the record keeps what the game did to ratings
                rated = await self.store.rate(
                    history.pool(room.rule),
                    room.id,
                    black.id,
                    white.id,
                    score,
                    ended_ms=room.ended_ms,
                )
                ratings = None if rated is None else history.rating_changes(room, rated)
            await self.store.put_record(
                room.id,
                history.record_bytes(room, ratings),
                history.archived_players(room),
                room.ended_ms or now_ms(),
            )
            first = await self._mark_archived(room.id, ratings)
        except Exception as exc:  # retried through the due time; the game itself is safe
            self.metrics.inc("gomoku_archive_failures_total")
            tries = self._archive_tries[room.id] = self._archive_tries.get(room.id, 0) + 1
            log.log(
                logging.WARNING if tries == 1 else logging.DEBUG,
                "room %s: archiving the finished game failed (%s); will retry every %.0f s%s",
                room.id,
                exc,
                self.config.timers.archive_retry_ms / 1000,
                " (said once: the retries are logged at DEBUG)" if tries == 1 else "",
            )
            if room.game_over_held:
                await self._release_game_over(room.id)
            return False
        if (tries := self._archive_tries.pop(room.id, 0)) > 0:
            log.info(
                "room %s: the finished game is archived, after %d failed tries", room.id, tries
            )
        if first:  # (a game archived twice, racing, is one game kept)
            self.metrics.inc("gomoku_games_archived_total")
        return True

    async def _expire_finished(self, room: Room, *, archived: bool) -> None:
        """A finished room goes ``finished_room_ttl_ms`` after its game was kept; one whose
        game is not kept yet stays (``UNARCHIVED_KEEP_MS``) for the retries: with a TTL
        shorter than the retry time, a game whose archive failed once was lost for good
        (no record, no rating change, no word in the log)."""
        ttl = self.config.timers.finished_room_ttl_ms
        if not archived:
            ttl = max(ttl, UNARCHIVED_KEEP_MS)
        invite = None if room.code is None else invite_key(room.code)
        await self.store.expire_room(room.id, ttl, invite=invite)

    async def stop_plan(
        self, room_ids: Sequence[str], *, keeping: bool
    ) -> tuple[list[Room], list[Room]]:
        """The games being played among ``room_ids`` (rooms in this process, the memory
        store's), as a stop treats them: those a data file keeps (``keeping``) for the
        next start, the games between people, and those it ends."""
        kept: list[Room] = []
        ending: list[Room] = []
        for room in await self.unfinished(room_ids):
            if room.state in LIVE_STATES:
                (kept if keeping and between_people(room) else ending).append(room)
        return kept, ending

    async def warn_before_stop(
        self, room_ids: Sequence[str], *, keeping: bool, file_full: bool = False
    ) -> None:
        """At a stop's first signal, what happens to the games among ``room_ids`` (see
        :meth:`stop_plan`), named at once, before the drain's seconds are up: the
        warning came only once they had ended, and named room ids. ``file_full``: the
        data file takes no writes now (a full disk), and the games it would keep are
        said to need room first (they were said to be kept, then lost)."""
        kept, ending = await self.stop_plan(room_ids, keeping=keeping)
        if kept and file_full:
            log.warning(
                "%s in progress can be kept in the data file only if it takes writes "
                "again before the drain ends (the disk is full? free some space now): %s",
                counted(len(kept), "game"),
                ", ".join(map(described, kept)),
            )
        elif kept:
            log.info(
                "%s in progress will be kept in the data file, to go on when the server "
                "starts again on it: %s",
                counted(len(kept), "game"),
                ", ".join(map(described, kept)),
            )
        _warn_running([described(room) for room in ending], ended=False)

    async def archive_before_stop(self, room_ids: Sequence[str], kept: Sequence[str] = ()) -> None:
        """A last try for the finished games whose archiving failed (a full disk) among
        rooms that end with this process (the memory store's): each one still not kept
        is logged as lost. A stop had dropped them without a word (no record, no rating
        change) after warnings that said "will retry". The games still being played end
        with the process too, but for those ``kept`` (by a data file): one warning names
        them (an operator restarting to upgrade learnt it from players)."""
        _, running = await self.stop_plan(room_ids, keeping=False)
        ending = [described(room) for room in running if room.id not in kept]
        for room_id in room_ids:
            loaded = await self.load(room_id)
            if loaded is None or loaded[1].archive_at_ms is None:
                continue
            await self.archive(loaded[1])
            again = await self.load(room_id)
            if again is not None and again[1].archive_at_ms is not None:
                log.error(
                    "room %s: the finished game could not be kept before this stop; its "
                    "record and rating changes are lost",
                    room_id,
                )
        _warn_running(ending, ended=True)

    async def _release_game_over(self, room_id: str) -> None:
        """The game's archiving failed (a full disk): log its held ``game_over`` now,
        without the ratings, which are not kept yet (``ratings_pending``), and keep the
        retries going. Held until the store took the game, its players saw it running:
        "ann to move" under a five, moves refused as "the game is over"."""
        with contextlib.suppress(Exception):  # (the store failing here too: held as it was)
            await self._mark_archived(room_id, None, released=True)

    async def _mark_archived(
        self, room_id: str, ratings: list[RatingChange] | None, *, released: bool = False
    ) -> bool:
        """Log the game's ``game_over`` if it is held (once, whoever gets here first), with
        the seats showing the ratings after the game, and clear the archive's retry time.
        True if this call did it: another (the ticker's retry, another instance) may have
        archived the game first, and it is counted once. ``released``: log the held
        ``game_over`` only, its ratings pending, and leave the retry time set
        (:meth:`_release_game_over`)."""
        for _ in range(MAX_ATTEMPTS):
            loaded = await self.load(room_id)
            if loaded is None:
                return False
            record, room = loaded
            if room.archive_at_ms is None and not room.game_over_held:
                return False
            if released and not room.game_over_held:
                return False
            room = copy_room(room)  # changed below, and load() shares its room
            events: list[RoomEvent] = []
            if room.game_over_held and room.result is not None:
                result = room.result
                events.append(
                    GameOver(
                        winner=result.winner,
                        reason=result.reason,
                        line=result.line,
                        ratings=ratings,
                        clocks=room.clocks(now_ms()),  # stopped at the end: its final times
                        ratings_pending=released and history.black_score(room) is not None,
                    )
                )
            for change in ratings or ():  # a snapshot's seats show them, as the event does
                for seat in room.seats:
                    if seat is not None and seat.id == change.player:
                        seat.rating, seat.provisional = change.after, change.provisional
            if not released:
                room.archive_at_ms = None
            room.game_over_held = False
            try:
                await self.store.commit(
                    room_id,
                    record.version,
                    encode_room(room),
                    [encode(e) for e in events],
                    deadline_ms=room.due_ms(self.config.game.grace_ms),
                )
            except Conflict:
                continue
            self._count(room, events)
            return True
        raise RuntimeError(f"room {room_id}: too many conflicting writers")

    def _count(self, room: Room, events: list[RoomEvent]) -> None:
        """Count what the events logged (moves, games started and finished), and log
        the room's story (:func:`log_event`)."""
        moves_logged = log.isEnabledFor(logging.DEBUG)  # (asked once, not at every stone)
        for event in events:
            if isinstance(event, Moved):
                self.metrics.inc("gomoku_moves_total")
                if not moves_logged:
                    continue
            elif isinstance(event, GameStarted):
                self.metrics.inc("gomoku_games_started_total")
            elif isinstance(event, GameOver):
                self.metrics.inc("gomoku_games_finished_total")
            log_event(room, event)

    async def _after_commit(self, before: Room | None, room: Room, events: list[RoomEvent]) -> None:
        """Keep the lobby, seat index, expiry and counters in step with a commit."""
        self._count(room, events)
        empty = room.seats.count(None) == len(room.seats)  # in C: a generator was 2% of a move
        if (
            before is not None
            and not empty
            and room.state in LIVE_STATES
            and not _may_show_in_lobby(before, room)
        ):
            return  # a stone or an offer in a game going on: nothing below applies to it
        if before is None or before.seats != room.seats:  # (a move leaves them as they were)
            old_ids = set() if before is None else {s.id for s in before.seats if s is not None}
            new_ids = {s.id for s in room.seats if s is not None}
            for player in new_ids - old_ids:
                await self.store.add_player_room(player, room.id)
            for player in old_ids - new_ids:
                await self.store.remove_player_room(player, room.id)
        ended = room.state == "over"
        if room.state in LIVE_STATES and (before is None or before.state not in LIVE_STATES):
            await self.store.game_begun(room.id)  # until expire_room, below, at its end
        archived = True
        if ended and before is not None and before.state != "over":
            # Before the lobby hears of it: once a game is gone from the lobby, its record
            # and the new ratings are there to be asked for (and game_over is logged).
            archived = await self.archive(room)
        if ended or empty:
            if not room.private:
                await self.store.lobby_remove(room.id)
            if before is None or before.state != "over" or empty:
                if empty:
                    invite = None if room.code is None else invite_key(room.code)
                    await self.store.expire_room(room.id, 0, invite=invite)
                else:
                    await self._expire_finished(room, archived=archived)
                if room.owner is not None:  # no longer open: off its owner's count
                    await self.store.remove_owned_room(room.owner, room.id)
        elif not room.private and (before is None or _may_show_in_lobby(before, room)):
            shown = 0 if before is None else (await self.spectators(room))[1]
            summary = encode(room.summary(shown))
            if before is None or encode(before.summary(shown)) != summary:
                await self.store.lobby_put(room.id, summary)


class NoSuchRoom(LookupError):
    """The room does not exist (or has expired)."""


def _may_show_in_lobby(before: Room, after: Room) -> bool:
    """Whether the change can show in the room's lobby line (its state, seats, colours;
    the spectator count is announced apart): most moves cannot, and then the line is not
    built twice."""
    return (
        before.state != after.state
        or before.seats != after.seats
        or before.opening_state != after.opening_state
    )


def _flagged(outcome: game.Outcome) -> bool:
    return any(isinstance(e, GameOver) and e.reason is Reason.TIMEOUT for e in outcome.events)


def _keep_history(before: Room, after: Room, now: int, archive_retry_ms: int) -> None:
    """Note in ``after`` when its game began, when each new stone was placed (a takeback
    drops the times of the stones it removes) and when the game ended."""
    if after.started_ms is None and after.state != "waiting":
        after.started_ms = now
    placed = len(after.moves) - len(before.moves)
    if len(after.move_ms) == len(before.moves):  # times known so far: keep them in step
        if placed > 0:
            after.move_ms.extend([now] * placed)
        elif placed < 0:
            del after.move_ms[len(after.moves) :]
    if before.state != "over" and after.state == "over":
        after.ended_ms = now
        after.archive_at_ms = now + archive_retry_ms


def described(room: Room) -> str:
    """A game as an operator tells it: ``r-80549b017b (Tara vs botA, 12 moves)``. Ids
    alone sent an operator to match them with players through other log lines."""
    names = " vs ".join(seat.name for seat in room.seats if seat is not None)
    return f"{room.id} ({names}, {counted(len(room.moves), 'move')})"


def between_people(room: Room) -> bool:
    """No AI in either seat: a game a data file keeps over a restart (an AI's seat lives
    with the worker that played it, which the restart ends too)."""
    return all(seat is not None and not seat.bot for seat in room.seats)


def as_colours(
    black: Seat, white: Seat, *, drawn: bool = False
) -> list[tuple[Seat, game.SeatWish]]:
    """Two players seated as Black and White (``drawn``: in an order drawn at random, as
    a quick match and a game against the AI are: by the queue's order, whoever came to
    an empty queue was Black in every game)."""
    first, second = random.sample((black, white), 2) if drawn else (black, white)
    return [(first, "black"), (second, "white")]


def counted(count: int, noun: str) -> str:
    """``1 game``, ``2 games``: a count as the log says it."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _warn_running(running: list[str], *, ended: bool) -> None:
    """The warning naming the games a stop ends (:func:`described`)."""
    if not running:
        return
    one = len(running) == 1
    end = ("ends" if one else "end") if ended else "will end"
    log.warning(
        "%s in progress %s with this stop, unrated and unrecorded (games being played "
        "live in this process only, with this store): %s",
        counted(len(running), "game"),
        end,
        ", ".join(running),
    )


def log_event(room: Room, event: RoomEvent) -> None:
    """A room's story for an operator, each line led by the room's id and naming
    players by name and id (names are not unique): seats taken, the start, presence
    and the end at INFO, each move at DEBUG. (A refused request is logged where it is
    answered, in :mod:`server.connection`.)"""
    if isinstance(event, Moved):
        log.debug("room %s: move %d %s (%s)", room.id, event.move_no, event.point, event.color)
    elif isinstance(event, PlayerJoined):
        log.info("room %s: %s (%s) sat as %s", room.id, event.name, event.player, event.seat)
    elif isinstance(event, GameStarted):
        black, white = (_who(room, player) for player in (event.black, event.white))
        log.info("room %s: game started, black %s vs white %s", room.id, black, white)
    elif isinstance(event, Presence) and event.online:
        log.info("room %s: %s is back", room.id, _who(room, event.player))
    elif isinstance(event, Presence):
        claim = "" if event.deadline_ms is None else f", claimable in {event.deadline_ms // 1000} s"
        log.info("room %s: %s went offline%s", room.id, _who(room, event.player), claim)
    elif isinstance(event, GameOver):
        ended = "aborted" if history.aborted(room) else event.winner or "draw"
        # Who played, and whether it counts: the room id alone sent an operator (a
        # tournament director) through other lines to find the players.
        black_seat, white_seat = (room.seats[room.seat_at(c)] for c in (Color.BLACK, Color.WHITE))
        log.info(
            "room %s: game over (%s, %s): black %s vs white %s%s",
            room.id,
            ended,
            event.reason,
            "-" if black_seat is None else _who(room, black_seat.id),
            "-" if white_seat is None else _who(room, white_seat.id),
            ", rated" if history.black_score(room) is not None else "",
        )


def _who(room: Room, player: str) -> str:
    """``ann (p-1234)``: a seated player by name and id (the id alone if not seated)."""
    seat = next((s for s in room.seats if s is not None and s.id == player), None)
    return player if seat is None else f"{seat.name} ({player})"
