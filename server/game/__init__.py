"""The room core, sans I/O: (room, action, now) -> new room + events, or a
:class:`GameError` with a stable error code.

Nothing here awaits or reads a clock: the caller passes ``now_ms``, loads the
room from the store and commits the outcome with a version check. Only game
actions come here: chat, spectators and connections coming and going are kept
apart from the versioned room (server.service), and reach it only as the
``attendance`` a :class:`Tick` or :class:`Claim` carries, which a seat's presence
follows. Dispatch is
a table, :data:`HANDLERS`, from (room state, action key) to a handler; a pair
that is not in the table is refused with ``wrong_phase`` (or ``game_over`` once
the game has ended), so what each state accepts is readable in one place.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Literal

import msgspec

from engine import (
    Color,
    ForbiddenMoveError,
    Opening,
    Reason,
    Result,
    Rule,
    format_point,
)
from engine.errors import GameOverError, NotationError, OccupiedError, OffBoardError
from engine.opening import Action, OpeningError, OpeningState
from protocol.errors import ErrorCode
from protocol.events import (
    Answered,
    Chose,
    GameOver,
    GameStarted,
    Moved,
    Offered,
    OpeningPhase,
    PlayerJoined,
    PlayerLeft,
    Presence,
    Rematch,
    RoomEvent,
    Undone,
)
from protocol.values import GameResult, Pending, SwapChoice, TimeControl
from server.room import (
    LIVE_STATES,
    Room,
    Seat,
    cached_point,
    choices,
    decode_room,
    encode_room,
    wire_phase,
)
from server.store.base import Attendance

OfferKind = Literal["draw", "takeback", "rematch"]


class GameError(Exception):
    """An action the room refuses; ``code`` is the wire error code."""

    def __init__(self, code: ErrorCode, message: str, *, foul: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.foul = foul


@dataclasses.dataclass(frozen=True, kw_only=True)
class GameRules:
    """Policy knobs of the room core (the server's config fills them in)."""

    grace_ms: int = 60_000
    takeback_cooldown_ms: int = 5_000
    """After a declined takeback the requester waits this long, doubled per decline."""
    max_takeback_declines: int = 3
    """After this many declines in one game, takebacks are refused for the rest of it."""
    spectator_count_every_ms: int = 500
    """``spectator_count`` goes out at most this often: the first change at once, the
    changes after it together at the end of the interval (a crowd arriving at a popular
    game would otherwise cost one event to every watcher per arrival)."""
    attach_wait_ms: int = 10_000
    """How long a seat taken for a player shows online without a connection of theirs
    attached to the room (a quick match or rematch of a player whose connections are
    gone, a seated AI whose worker never comes): after it they count as gone."""


# --- actions ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Join:
    """Take a seat (watching a room is no action: spectators are attached connections)."""

    player: Seat
    seat: Literal["black", "white", "any"] = "any"
    key = "join"


@dataclasses.dataclass(frozen=True)
class Leave:
    player: str
    key = "leave"


@dataclasses.dataclass(frozen=True)
class Move:
    player: str
    point: str
    key = "move"


@dataclasses.dataclass(frozen=True)
class Choose:
    player: str
    choice: SwapChoice
    key = "choose"


@dataclasses.dataclass(frozen=True)
class Resign:
    player: str
    key = "resign"


@dataclasses.dataclass(frozen=True)
class Offer:
    player: str
    kind: OfferKind

    @property
    def key(self) -> str:
        return f"offer:{self.kind}"


@dataclasses.dataclass(frozen=True)
class Answer:
    player: str
    kind: OfferKind
    accept: bool
    rematch_id: str = ""
    """The id an accepted rematch's new room gets (the caller makes ids)."""

    @property
    def key(self) -> str:
        return f"answer:{self.kind}"


@dataclasses.dataclass(frozen=True)
class Claim:
    """Claim the win: the opponent has had no connection attached for the grace period.
    ``attendance`` is read from the store after the room (the service fills it in)."""

    player: str
    attendance: Attendance | None = None
    key = "claim"


@dataclasses.dataclass(frozen=True)
class Tick:
    """Look at the room now: a clock that ran out, a waiting room nobody came to, the
    seats' presence as ``attendance`` shows it (read from the store after the room: the
    service fills it in), and a game both players left. The deadline ticker sends it
    when the room fell due, and the service when a player's connections came or went."""

    attendance: Attendance | None = None
    due: bool = True
    """Sent because the room fell due (its deadline must be filed again), not because
    connections came or went."""
    key = "tick"


GameAction = Join | Leave | Move | Choose | Resign | Offer | Answer | Claim | Tick


@dataclasses.dataclass
class Outcome:
    """What an action did: the new room (a modified copy), the events to append,
    a new room to create first (a rematch), and an error to report after
    committing (an action that arrived after its player's flag fell)."""

    room: Room
    events: list[RoomEvent] = dataclasses.field(default_factory=list)
    spawn: Room | None = None
    spawn_events: list[RoomEvent] = dataclasses.field(default_factory=list)
    error: GameError | None = None
    quiet_change: bool = False
    """The room changed without an event to show for it yet (a spectator arrived
    while the count's announcement is held back): it must still be committed."""

    @property
    def changed(self) -> bool:
        return bool(self.events) or self.spawn is not None or self.quiet_change


Handler = Callable[[Room, GameAction, int, GameRules], Outcome]

# --- helpers ---------------------------------------------------------------------------


def _color_name(color: Color) -> Literal["black", "white"]:
    return "black" if color is Color.BLACK else "white"


def _seated(room: Room, player: str) -> int:
    seat = room.seat_of(player)
    if seat is None:
        raise GameError(ErrorCode.NOT_IN_ROOM, "you are not seated in this room")
    return seat


def _charge_clock(room: Room, now_ms: int) -> None:
    """Stop the running clock at ``now_ms``, charging the actor the time used."""
    actor = room.actor()
    if room.clock_running() and actor is not None:
        room.clocks_ms[actor] = room.remaining_ms(actor, now_ms)
    room.clock_since_ms = None


def _restart_clock(room: Room, now_ms: int, previous_actor: int | None) -> None:
    """Start the new actor's clock; a player who handed over the turn gets the increment."""
    if room.time is None or room.state not in LIVE_STATES or not room.moves:
        room.clock_since_ms = None
        return
    actor = room.actor()
    if previous_actor is not None and actor != previous_actor:
        room.clocks_ms[previous_actor] += room.time.inc_ms
    room.clock_since_ms = now_ms


def _finish(room: Room, winner: Color | None, reason: Reason, line: list[str] | None) -> GameOver:
    room.state = "over"
    room.clock_since_ms = None
    room.pending = None
    winner_name = None if winner is None else _color_name(winner)
    room.result = GameResult(winner=winner_name, reason=reason, line=line)
    for seat in room.seats:
        if seat is not None:
            seat.offline_since_ms = seat.attach_by_ms = None
    return GameOver(winner=winner_name, reason=reason, line=line)


def _game_over_from_board(room: Room, result: Result) -> GameOver:
    line = None if result.line is None else [format_point(p, room.size) for p in result.line]
    return _finish(room, result.winner, result.reason, line)


def _start_game(room: Room) -> list[RoomEvent]:
    """Both seats are filled: begin the opening or the game proper."""
    model = OpeningState.start(room.opening)
    room.opening_state = model.to_dict()
    room.state = "playing" if model.done else "opening"
    if room.time is not None:
        room.clocks_ms = [room.time.base_ms, room.time.base_ms]
    room.clock_since_ms = None
    black = room.seats[room.seat_at(Color.BLACK)]
    white = room.seats[room.seat_at(Color.WHITE)]
    assert black is not None
    assert white is not None
    events: list[RoomEvent] = [GameStarted(black=black.id, white=white.id, time=room.time)]
    if not model.done and model.actor is not None:
        events.append(_opening_event(room, model))
    return events


def _opening_event(room: Room, model: OpeningState) -> OpeningPhase:
    assert model.actor is not None
    actor = room.seats[model.actor]
    assert actor is not None
    return OpeningPhase(phase=wire_phase(model.phase), to_act=actor.id, choices=choices(model))


def _flag(room: Room, now_ms: int) -> GameOver | None:
    """End the game on time if the running clock has run out."""
    actor = room.actor()
    if not room.clock_running() or actor is None or room.remaining_ms(actor, now_ms) > 0:
        return None
    room.clocks_ms[actor] = 0
    return _finish(room, room.color_of(1 - actor), Reason.TIMEOUT, None)


# --- handlers --------------------------------------------------------------------------


def _seat(player: Seat, now_ms: int, rules: GameRules) -> Seat:
    """``player`` as a new seat: online, with ``attach_wait_ms`` for a connection to come."""
    return msgspec.structs.replace(
        player, online=True, offline_since_ms=None, attach_by_ms=now_ms + rules.attach_wait_ms
    )


def _join(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    assert isinstance(action, Join)
    player = action.player
    out = Outcome(room)
    if room.seat_of(player.id) is not None:
        return out  # already seated: joining again only re-sends the snapshot
    if room.state != "waiting":
        raise GameError(ErrorCode.ROOM_FULL, "the game has started; join as a spectator")
    wanted = {"black": [room.seat_at(Color.BLACK)], "white": [room.seat_at(Color.WHITE)]}.get(
        action.seat, [0, 1]
    )
    free = [i for i in wanted if room.seats[i] is None]
    if not free:
        raise GameError(ErrorCode.ROOM_FULL, f"no free {action.seat} seat in this room")
    seat = free[0]
    room.seats[seat] = _seat(player, now_ms, rules)
    out.events.append(
        PlayerJoined(
            seat=_color_name(room.color_of(seat)),
            player=player.id,
            name=player.name,
            rating=player.rating,
            bot=player.bot,
        )
    )
    if all(s is not None for s in room.seats):
        out.events.extend(_start_game(room))
    return out


def _leave(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    """Give up a seat before the game starts. Once it has started, leaving is only the
    connection going (its presence follows the attached connections); a finished game
    keeps its players on record."""
    assert isinstance(action, Leave)
    out = Outcome(room)
    seat = room.seat_of(action.player)
    if seat is None:
        raise GameError(ErrorCode.NOT_IN_ROOM, "you are not in this room")
    if room.state == "waiting":
        _free_seat(room, seat, out)
    return out


def _free_seat(room: Room, seat: int, out: Outcome) -> None:
    player = room.seats[seat]
    assert player is not None
    color = room.color_of(seat)
    room.seats[seat] = None
    out.events.append(PlayerLeft(seat=_color_name(color), player=player.id))


def _move(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    assert isinstance(action, Move)
    seat = _seated(room, action.player)
    model = room.opening_model()
    if not model.done and Action.PLACE not in model.allowed():
        raise GameError(ErrorCode.WRONG_PHASE, "a swap2 choice is awaited, not a stone")
    if room.actor() != seat:
        raise GameError(ErrorCode.NOT_YOUR_TURN, "it is not your turn")
    board = room.board()
    try:
        point = cached_point(action.point, room.size)
    except NotationError as exc:
        raise GameError(ErrorCode.OFF_BOARD, str(exc)) from None
    color = board.turn
    try:
        result = board.play(point)
    except OffBoardError as exc:
        raise GameError(ErrorCode.OFF_BOARD, str(exc)) from None
    except OccupiedError as exc:
        raise GameError(ErrorCode.OCCUPIED, str(exc)) from None
    except ForbiddenMoveError as exc:
        raise GameError(ErrorCode.FORBIDDEN, str(exc), foul=str(exc.foul)) from None
    except GameOverError as exc:
        raise GameError(ErrorCode.GAME_OVER, str(exc)) from None
    out = Outcome(room)
    _charge_clock(room, now_ms)
    room.moves.append(format_point(point, room.size))
    if not model.done:
        model = model.place(seat)
        room.opening_state = model.to_dict()
        if model.done:  # pragma: no cover - swap2 always ends with a choice
            room.state = "playing"
    _restart_clock(room, now_ms, seat)
    if room.pending is not None and room.pending.by != action.player:
        kind = room.pending.kind
        room.pending = None  # playing on declines the opponent's offer
        out.events.append(Answered(kind=kind, by=action.player, accept=False))
    out.events.append(
        Moved(
            point=room.moves[-1],
            color=_color_name(color),
            move_no=len(room.moves),
            clocks=room.clocks(now_ms),
        )
    )
    if result is not None:
        out.events.append(_game_over_from_board(room, result))
    elif not model.done and model.actor is not None and model.stones in (3, 5):
        out.events.append(_opening_event(room, model))
    return out


def _choose(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    assert isinstance(action, Choose)
    seat = _seated(room, action.player)
    model = room.opening_model()
    if Action(action.choice) not in model.allowed():
        raise GameError(ErrorCode.WRONG_PHASE, f"{action.choice!r} is not a choice open now")
    if model.actor != seat:
        raise GameError(ErrorCode.NOT_YOUR_TURN, "the other player makes this choice")
    try:
        new_model = model.choose(seat, action.choice)
    except OpeningError as exc:  # pragma: no cover - checked above
        raise GameError(ErrorCode.WRONG_PHASE, str(exc)) from None
    _charge_clock(room, now_ms)
    room.opening_state = new_model.to_dict()
    out = Outcome(room)
    black = white = None
    if new_model.done:
        room.state = "playing"
        room.opening_stones = len(room.moves)
        black_seat, white_seat = (
            room.seats[room.seat_at(Color.BLACK)],
            room.seats[room.seat_at(Color.WHITE)],
        )
        assert black_seat is not None
        assert white_seat is not None
        black, white = black_seat.id, white_seat.id
    _restart_clock(room, now_ms, seat)
    out.events.append(Chose(player=action.player, choice=action.choice, black=black, white=white))
    if not new_model.done:
        out.events.append(_opening_event(room, new_model))
    return out


def _resign(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    assert isinstance(action, Resign)
    seat = _seated(room, action.player)
    _charge_clock(room, now_ms)
    return Outcome(room, [_finish(room, room.color_of(1 - seat), Reason.RESIGN, None)])


def _offer(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    assert isinstance(action, Offer)
    seat = _seated(room, action.player)
    if room.pending is not None:
        raise GameError(ErrorCode.OFFER_PENDING, f"a {room.pending.kind} offer is pending")
    if action.kind == "takeback":
        blocked_until = room.takeback_blocked_until.get(action.player, 0)
        if room.takeback_declines.get(action.player, 0) >= rules.max_takeback_declines:
            raise GameError(ErrorCode.THROTTLED, "too many declined takebacks in this game")
        if now_ms < blocked_until:
            wait = (blocked_until - now_ms + 999) // 1000
            raise GameError(ErrorCode.THROTTLED, f"wait {wait} s before asking again")
        if _takeback_count(room, seat) == 0:
            raise GameError(ErrorCode.WRONG_PHASE, "you have no move to take back")
    if action.kind == "rematch" and room.rematch_room is not None:
        raise GameError(ErrorCode.WRONG_PHASE, "the rematch has already been agreed")
    room.pending = Pending(kind=action.kind, by=action.player)
    return Outcome(room, [Offered(kind=action.kind, by=action.player)])


def _takeback_count(room: Room, seat: int) -> int:
    """How many stones a takeback by ``seat`` removes: back to their last move."""
    color = room.color_of(seat)
    n = len(room.moves)
    for count in (1, 2):
        index = n - count
        if index < room.opening_stones:
            return 0
        if (Color.BLACK if index % 2 == 0 else Color.WHITE) is color:
            return count
    return 0


def _answer(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    assert isinstance(action, Answer)
    seat = _seated(room, action.player)
    pending = room.pending
    if pending is None or pending.kind != action.kind or pending.by == action.player:
        raise GameError(ErrorCode.NO_OFFER, f"there is no {action.kind} offer for you to answer")
    room.pending = None
    out = Outcome(room, [Answered(kind=action.kind, by=action.player, accept=action.accept)])
    if not action.accept:
        if action.kind == "takeback":
            declines = room.takeback_declines.get(pending.by, 0) + 1
            room.takeback_declines[pending.by] = declines
            cooldown = rules.takeback_cooldown_ms * 2 ** (declines - 1)
            room.takeback_blocked_until[pending.by] = now_ms + cooldown
        return out
    if action.kind == "draw":
        _charge_clock(room, now_ms)
        out.events.append(_finish(room, None, Reason.AGREEMENT, None))
    elif action.kind == "takeback":
        requester = 1 - seat
        count = _takeback_count(room, requester)
        _charge_clock(room, now_ms)
        taken = room.moves[-count:][::-1] if count else []
        del room.moves[len(room.moves) - count :]
        room.clock_since_ms = now_ms if room.time is not None and room.moves else None
        out.events.append(Undone(points=taken, clocks=room.clocks(now_ms)))
    else:
        if not action.rematch_id:
            raise GameError(ErrorCode.INTERNAL, "no id for the rematch room")
        out.spawn, out.spawn_events = _rematch_room(room, action.rematch_id, now_ms, rules)
        room.rematch_room = out.spawn.id
        out.events.append(Rematch(room=out.spawn.id))
    return out


def _rematch_room(
    room: Room, room_id: str, now_ms: int, rules: GameRules
) -> tuple[Room, list[RoomEvent]]:
    """The next game, already started: same settings, seats swapped (the other
    player is Black, or opens the swap2), and the events that begin its log."""
    new = new_room(
        room_id,
        rule=room.rule,
        size=room.size,
        opening=room.opening,
        time=room.time,
        rated=room.rated,
        private=room.private,
        code=None,
        now_ms=now_ms,
    )
    events: list[RoomEvent] = []
    for index, old in enumerate(
        (room.seats[room.seat_at(Color.WHITE)], room.seats[room.seat_at(Color.BLACK)])
    ):
        assert old is not None
        seat = _seat(old, now_ms, rules)
        new.seats[index] = seat
        events.append(
            PlayerJoined(
                seat=_color_name(new.color_of(index)),
                player=seat.id,
                name=seat.name,
                rating=seat.rating,
                bot=seat.bot,
            )
        )
    events.extend(_start_game(new))
    return new, events


def _claim(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    assert isinstance(action, Claim)
    seat = _seated(room, action.player)
    other = room.seats[1 - seat]
    assert other is not None
    out = Outcome(room)
    if action.attendance is not None:
        out.events += _sync_presence(room, action.attendance, now_ms, rules)
    if other.online or other.offline_since_ms is None:
        raise GameError(ErrorCode.NOT_CLAIMABLE, "your opponent is connected")
    left = other.offline_since_ms + rules.grace_ms - now_ms
    if left > 0:
        raise GameError(ErrorCode.NOT_CLAIMABLE, f"your opponent has {left} ms left to return")
    _charge_clock(room, now_ms)
    out.events.append(_finish(room, room.color_of(seat), Reason.ABANDON, None))
    return out


def _tick(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    assert isinstance(action, Tick)
    out = Outcome(room)  # the flag check in apply() does the clocks' work
    if room.state == "waiting" and room.close_at_ms is not None and now_ms >= room.close_at_ms:
        for seat, player in enumerate(room.seats):  # nobody came: the room closes
            if player is not None:
                _free_seat(room, seat, out)
        return out
    if action.attendance is not None:
        waits = [s.attach_by_ms for s in room.seats if s is not None]
        out.events += _sync_presence(room, action.attendance, now_ms, rules)
        if waits != [s.attach_by_ms for s in room.seats if s is not None]:
            out.quiet_change = True  # a seat's player was seen attached: keep that
    abandoned = room.abandoned_at_ms(rules.grace_ms)
    if abandoned is not None and now_ms >= abandoned:
        out.events.append(_abandon(room, now_ms, rules))
    return out


def _sync_presence(
    room: Room, attendance: Attendance, now_ms: int, rules: GameRules
) -> list[RoomEvent]:
    """Bring the seats' presence in line with the connections attached to the room:
    ``presence`` events for the changes (once each), a seat given up in a room still
    waiting for its players, and a player's return and departure both announced when
    they came and went between two looks (the claim countdown starts again)."""
    events: list[RoomEvent] = []
    live = room.state in LIVE_STATES
    for index, seat in enumerate(room.seats):
        if seat is None:
            continue
        found = attendance.seated.get(seat.id)
        if found is not None and found.conns > 0:
            seat.attach_by_ms = None
            if not seat.online:
                seat.online, seat.offline_since_ms = True, None
                events.append(Presence(player=seat.id, online=True))
            continue
        if seat.attach_by_ms is not None:
            if now_ms < seat.attach_by_ms:
                continue  # a new seat: its player's connection has a moment to attach
            seat.attach_by_ms = None
        left = now_ms if found is None or found.left_ms is None else min(found.left_ms, now_ms)
        if room.state == "waiting":
            out = Outcome(room)  # nobody waits for a player who is gone before the game
            _free_seat(room, index, out)
            events += out.events
            continue
        if seat.online:
            seat.online = False
            seat.offline_since_ms = left if live else None
        elif live and seat.offline_since_ms is not None and left > seat.offline_since_ms:
            events.append(Presence(player=seat.id, online=True))  # came and went meanwhile
            seat.offline_since_ms = left
        else:
            continue
        deadline = None
        if seat.offline_since_ms is not None:
            deadline = max(0, seat.offline_since_ms + rules.grace_ms - now_ms)
        events.append(Presence(player=seat.id, online=False, deadline_ms=deadline))
    return events


def _abandon(room: Room, now_ms: int, rules: GameRules) -> GameOver:
    """Both players are gone (:meth:`Room.abandoned_at_ms` has come): if the first to go
    was past the grace period while the other was still there, the first loses, as a
    claim would have had it; if they left within the grace period of each other, the game
    is drawn by ``abandon`` (not rated if it had fewer than four stones: aborted, see
    server.history)."""
    gone = sorted((s.offline_since_ms or 0, i) for i, s in enumerate(room.seats) if s is not None)
    (first_since, _), (second_since, second) = gone
    _charge_clock(room, now_ms)
    if first_since + rules.grace_ms <= second_since:
        return _finish(room, room.color_of(second), Reason.ABANDON, None)
    return _finish(room, None, Reason.ABANDON, None)


_ALL = ("waiting", "opening", "playing", "over")
_LIVE = ("opening", "playing")

HANDLERS: dict[tuple[str, str], Handler] = {
    **{(state, "join"): _join for state in _ALL},
    **{(state, "leave"): _leave for state in _ALL},
    **{(state, "tick"): _tick for state in _ALL},
    **{(state, "move"): _move for state in _LIVE},
    ("opening", "choose"): _choose,
    **{(state, "resign"): _resign for state in _LIVE},
    **{(state, "claim"): _claim for state in _LIVE},
    ("playing", "offer:draw"): _offer,
    ("playing", "answer:draw"): _answer,
    ("playing", "offer:takeback"): _offer,
    ("playing", "answer:takeback"): _answer,
    ("over", "offer:rematch"): _offer,
    ("over", "answer:rematch"): _answer,
}
"""(room state, action key) -> handler. Anything else is refused."""


def apply(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    """Apply ``action`` to a copy of ``room`` at time ``now_ms``.

    Raises GameError for an action the room refuses (nothing changes). If the
    running clock has already run out, the outcome is the loss on time, with
    the action's refusal in ``Outcome.error`` (the caller commits, then reports).
    """
    return apply_to_copy(decode_room(encode_room(room)), action, now_ms, rules)


def apply_to_copy(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    """:func:`apply` on a room the caller already copied and gives up: the outcome's
    room is ``room`` itself, changed (saves a copy when the caller holds the stored bytes
    it can decode a second time)."""
    flagged = _flag(room, now_ms) if room.state in LIVE_STATES else None
    if flagged is not None:
        error = None
        if not isinstance(action, Tick):
            error = GameError(ErrorCode.GAME_OVER, "the game ended: a clock ran out")
        out = Outcome(room, [flagged], error=error)
        if isinstance(action, (Tick, Leave, Join)):  # these suit a game over too
            try:
                out.events.extend(_dispatch(room, action, now_ms, rules).events)
                out.error = None
            except GameError as exc:
                out.error = exc  # the flag still falls; only the action is refused
        return out
    return _dispatch(room, action, now_ms, rules)


def _dispatch(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    handler = HANDLERS.get((room.state, action.key))
    if handler is None:
        if room.state == "over":
            raise GameError(ErrorCode.GAME_OVER, "the game is over")
        if action.key.startswith("answer:"):
            raise GameError(ErrorCode.NO_OFFER, "there is no such offer to answer")
        raise GameError(ErrorCode.WRONG_PHASE, f"not possible while the room is {room.state}")
    return handler(room, action, now_ms, rules)


def new_room(
    room_id: str,
    *,
    rule: Rule,
    size: int,
    opening: Opening,
    time: TimeControl | None,
    rated: bool,
    private: bool,
    code: str | None,
    now_ms: int,
) -> Room:
    """An empty room waiting for players."""
    return Room(
        id=room_id,
        code=code,
        rule=rule,
        size=size,
        opening=opening,
        time=time,
        rated=rated,
        private=private,
        created_ms=now_ms,
    )
