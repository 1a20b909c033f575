"""A room as the server stores it, and the views of it that go on the wire.

The stored form is a msgspec Struct encoded as MessagePack: plain data that
any store keeps as bytes. Players are numbered by seat as in
:mod:`engine.opening` (seat 0 is Black in a free opening and the opener in
swap2); colours come from the opening state.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Literal

import msgspec

from engine import Board, Color, Opening, Point, Rule, format_point, parse_point
from engine.opening import Action, OpeningState, Phase
from protocol.values import (
    ChatLine,
    Clocks,
    GameResult,
    Pending,
    PlayerRef,
    RoomSummary,
    RoomView,
    Seats,
    Swap2State,
    SwapChoice,
    TimeControl,
)
from server import lag
from server.recent import Recent

State = Literal["waiting", "opening", "playing", "over"]


ROOMS_REMEMBERED = 4096
"""How many rooms' last positions (and, in the room service, last committed states) the
server keeps in memory, the most recently used."""
_boards: Recent[str, tuple[tuple[str, ...], Board]] = Recent(ROOMS_REMEMBERED)
"""Room id -> (its moves, its position): the last position of recent rooms. The
position's size and rule are checked too (an expired room's id could come back)."""


@functools.lru_cache(maxsize=256)
def _opening(items: tuple[tuple[str, Any], ...]) -> OpeningState:
    """``OpeningState.from_dict``, remembered (the states are frozen, and a room asks
    for its opening state about ten times per action)."""
    return OpeningState.from_dict(dict(items))


@functools.lru_cache(maxsize=32768)
def cached_point(move: str, size: int) -> Point:
    """``parse_point``, remembered (a bad one is not: it raises): every action replays
    or checks points, and the same few hundred are parsed over and over."""
    return parse_point(move, size)


@functools.lru_cache(maxsize=32768)
def cached_name(point: Point, size: int) -> str:
    """``format_point``, remembered: a stone's name as the move list keeps it (``h8``
    for a move sent as ``H8``), asked for at every stone."""
    return format_point(point, size)


LIVE_STATES: frozenset[str] = frozenset({"opening", "playing"})

_FREE = Opening.FREE
_DONE = Phase.DONE
_FREE_START = OpeningState.start(Opening.FREE)
_SWAP2_START = OpeningState.start(Opening.SWAP2)
"""Each opening's state before the first stone (frozen, so shared)."""
OPENINGS_REMEMBERED = 4096
_openings: dict[int, tuple[dict[str, object], OpeningState]] = {}
"""The OpeningState of each ``opening_state`` dict read lately, by the dict's id. A
room's ``opening_state`` is only ever replaced by a new dict (``to_dict``), so the same
dict object means the same state; holding the dict keeps its id from being reused.
Many rooms' actions interleave, so one remembered dict would miss nearly every time."""


class Seat(msgspec.Struct, kw_only=True):
    """A player in a seat, with their presence: online while any connection of theirs is
    attached to the room (on any instance), as the room service last saw it."""

    id: str
    name: str
    rating: int | None = None
    provisional: bool = False
    bot: bool = False
    online: bool = True
    offline_since_ms: int | None = None
    attach_by_ms: int | None = None
    """A seat taken for a player with no connection in the room yet (a quick match, a
    rematch, an AI seat, or the joining connection about to attach) shows online until
    this time even without one; set while no connection of theirs was seen attached."""
    lag_ms: int = 0
    """The round trip of the player's link as their last stone or choice found it
    (:mod:`server.lag`)."""
    lag_quota_ms: int | None = None
    """What lag compensation may still give back this game (None: the starting quota)."""


class Room(msgspec.Struct, kw_only=True):
    """Everything about a room that must survive a server restart."""

    id: str
    code: str | None = None
    rule: Rule = Rule.FREESTYLE
    size: int = 15
    opening: Opening = Opening.FREE
    time: TimeControl | None = None
    rated: bool = False
    private: bool = False
    created_ms: int = 0
    owner: str | None = None
    """The player who asked for the room (``create_room``, ``create_ai_game``): it counts
    against their cap of open rooms until its game ends or it empties. None for rooms
    the server makes (quick match, rematch, an AI after a wait)."""
    state: State = "waiting"
    seats: list[Seat | None] = msgspec.field(default_factory=lambda: [None, None])
    opening_state: dict[str, object] = msgspec.field(default_factory=dict)
    moves: list[str] = msgspec.field(default_factory=list)
    opening_stones: int = 0
    """Stones placed by the opening; takebacks never reach into them."""
    clocks_ms: list[int] = msgspec.field(default_factory=lambda: [0, 0])
    """Remaining time per seat, as of ``clock_since_ms`` for the running one."""
    clock_since_ms: int | None = None
    """When the running clock started; None while no clock runs."""
    turn_since_ms: int | None = None
    """When the player to act was last handed the turn or acted (the game's start, a
    stone, a choice, a takeback): an untimed game's move limit counts from it."""
    pending: Pending | None = None
    takeback_declines: dict[str, int] = msgspec.field(default_factory=dict)
    takeback_blocked_until: dict[str, int] = msgspec.field(default_factory=dict)
    first_stone_by_ms: int | None = None
    """A timed game's time for its first stone (epoch ms), until that stone: the game is
    aborted at it."""
    draw_blocked_until_move: dict[str, int] = msgspec.field(default_factory=dict)
    """After a player's declined draw offer: the stone count from which they may offer
    another (an offer again at every turn took the opponent's keys while their clock ran)."""
    result: GameResult | None = None
    rematch_declined: list[str] = msgspec.field(default_factory=list)
    """The players whose rematch offer was declined in this room: they may not offer
    another (offers at each decline repeated the question, which took the opponent's
    keys; the one who declined may still offer). Replaced whole, never changed in place."""
    rematch_room: str | None = None
    rematch_code: str | None = None
    """The rematch room's invite code (a private game's rematch is private too): shown,
    as the ``rematch`` event shows it, to one who opens the finished room later."""
    # History, kept by the room service (server.service) for the game's record:
    started_ms: int | None = None
    """When both seats were filled and the game began (epoch ms)."""
    move_ms: list[int] = msgspec.field(default_factory=list)
    """When each stone of ``moves`` was placed (epoch ms), in the same order."""
    ended_ms: int | None = None
    archive_at_ms: int | None = None
    """Set while a finished game is not yet archived (record, ratings): when to retry."""
    game_over_held: bool = False
    """The game ended, and its ``game_over`` event waits for the archive: it is logged
    with the rating changes once they are in the store (server.service)."""
    outage_seen_ms: int = 0
    """The end of the latest outage whose time the clocks were given back (server.outage)."""
    close_at_ms: int | None = None
    """When a room still waiting for its players closes (nobody came)."""

    # -- derived ---------------------------------------------------------------

    def opening_model(self) -> OpeningState:
        """The opening's state machine (asked for about ten times per action, so cheap)."""
        state = self.opening_state
        if not state:  # identity, not a dict: hashing an enum runs Python code
            return _FREE_START if self.opening is _FREE else _SWAP2_START
        known = _openings.get(id(state))
        if known is not None and known[0] is state:
            return known[1]
        model = _opening(tuple(sorted(state.items())))
        if len(_openings) >= OPENINGS_REMEMBERED:
            _openings.clear()  # cheaper than ordering them: all are rebuilt from _opening
        _openings[id(state)] = (state, model)
        return model

    def board(self, *, handed_over: bool = False) -> Board:
        """The position, replayed from the move list (all moves were validated). The
        last position of recent rooms is remembered, so the next move of a game costs
        one stone rather than a replay of the whole game; the caller may change it.

        ``handed_over``: a position remembered as it is comes itself, not a copy, and is
        forgotten until the caller gives it back with :meth:`remember_board` (a stone's
        one copy fewer); the caller that gives nothing back has changed nothing kept."""
        key = self.id
        moves = tuple(self.moves)
        cached = _boards.get(key)
        if (
            cached is not None
            and cached[1].size == self.size
            and cached[1].rule is self.rule
            and moves[: len(cached[0])] == cached[0]
        ):
            if handed_over and len(moves) == len(cached[0]):
                _boards.pop(key)
                return cached[1]
            start, board = len(cached[0]), cached[1].copy()
        else:
            start, board = 0, Board(self.size, self.rule)
        if start == len(moves) and cached is not None:  # the position is remembered as it is
            return board
        for move in moves[start:]:
            board.play(cached_point(move, self.size))
        _boards.put(key, (moves, board.copy()))
        return board

    def remember_board(self, board: Board) -> None:
        """Remember ``board`` as the position after this room's moves (a stone just played
        on the copy :meth:`board` gave), so the next action starts from it without a
        replay. The caller hands ``board`` over: it must not change it afterwards."""
        _boards.put(self.id, (tuple(self.moves), board))

    def seat_of(self, player_id: str) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat is not None and seat.id == player_id:
                return i
        return None

    def seat_at(self, color: Color) -> int:
        """The seat holding ``color`` (the opener holds Black until swap2 decides)."""
        black = self.opening_model().black or 0
        return black if color is Color.BLACK else 1 - black

    def color_of(self, seat: int) -> Color:
        return Color.BLACK if self.seat_at(Color.BLACK) == seat else Color.WHITE

    def actor(self, model: OpeningState | None = None) -> int | None:
        """The seat whose turn it is to place or choose, or None outside a live game
        (``model``: :meth:`opening_model`, if the caller has it already)."""
        if self.state not in LIVE_STATES:
            return None
        if model is None:
            model = self.opening_model()
        if model.phase is not _DONE:
            return model.actor
        black = model.black or 0  # the seat holding Black moves on even move counts
        return 1 - black if len(self.moves) % 2 else black

    def clock_running(self) -> bool:
        return self.time is not None and self.clock_since_ms is not None

    def remaining_ms(self, seat: int, now_ms: int) -> int:
        left = self.clocks_ms[seat]
        if self.clock_running() and self.actor() == seat:
            assert self.clock_since_ms is not None
            left -= max(0, now_ms - self.clock_since_ms)
        return left

    def move_deadline_ms(self, limit_ms: int) -> int | None:
        """In an untimed game with a move limit (``limit_ms``, 0: none), when the player to
        act may be claimed against for not acting (epoch ms); None otherwise."""
        if self.time is not None or not limit_ms or self.turn_since_ms is None:
            return None
        if self.state not in LIVE_STATES:
            return None
        return self.turn_since_ms + limit_ms

    def deadline_ms(self) -> int | None:
        """When the running clock's flag falls (epoch ms), or None: at zero, plus the
        grace of the player's link (:func:`server.lag.grace_ms`)."""
        if not self.clock_running() or (actor := self.actor()) is None:
            return None
        assert self.clock_since_ms is not None
        return self.clock_since_ms + max(0, self.clocks_ms[actor]) + self.flag_grace_ms(actor)

    def flag_grace_ms(self, seat: int) -> int:
        """How far past zero ``seat``'s clock may run before their flag falls: a stone
        of theirs may still be on its way (:mod:`server.lag`)."""
        return lag.grace_ms(self.time, self.seats[seat])

    def due_ms(self, grace_ms: int) -> int | None:
        """When the server must look at this room even if nobody acts, whichever comes
        first: the clock's deadline, the time to retry archiving a finished game, the time
        a waiting room closes or gives up the seat of a player gone for the grace period,
        a seat's time to attach, when both players have been gone long enough for the
        game to end (:meth:`abandoned_at_ms`), or when a game nobody began is aborted
        (:meth:`aborted_at_ms`)."""
        # The smallest of the times that apply, without building a list of them: this
        # runs at every commit.
        due = self.archive_at_ms if self.archive_at_ms is not None else self.deadline_ms()
        waiting = self.state == "waiting"
        if waiting and self.close_at_ms is not None and (due is None or self.close_at_ms < due):
            due = self.close_at_ms
        for s in self.seats:
            if s is None:
                continue
            if waiting and not s.online and s.offline_since_ms is not None:
                back_by = s.offline_since_ms + grace_ms
                if due is None or back_by < due:
                    due = back_by
            if s.attach_by_ms is not None and (due is None or s.attach_by_ms < due):
                due = s.attach_by_ms
        if self.state in LIVE_STATES:  # (both are None in any other state)
            for t in (self.abandoned_at_ms(grace_ms), self.aborted_at_ms()):
                if t is not None and (due is None or t < due):
                    due = t
        return due

    def aborted_at_ms(self) -> int | None:
        """When a running timed game whose first stone has not come is aborted
        (server.game)."""
        return self.first_stone_by_ms if self.state in LIVE_STATES else None

    def abandoned_at_ms(self, grace_ms: int) -> int | None:
        """When a running game whose players are both gone ends (server.game): when the
        second left, if the first was past the grace period by then; else once the
        second's grace period is over too. None while a player is there."""
        if self.state not in LIVE_STATES:
            return None
        gone: list[int] = []
        for s in self.seats:  # (a loop, not a list built first: this runs at every commit)
            if s is None or s.online or s.offline_since_ms is None:
                return None  # a player is there, or a seat is free
            gone.append(s.offline_since_ms)
        first, second = sorted(gone)
        return second if first + grace_ms <= second else second + grace_ms

    def clocks(self, now_ms: int) -> Clocks | None:
        if self.time is None:
            return None
        black = self.seat_at(Color.BLACK)
        return Clocks(
            black_ms=max(0, self.remaining_ms(black, now_ms)),
            white_ms=max(0, self.remaining_ms(1 - black, now_ms)),
        )

    def seated(self) -> list[str]:
        """The ids of the seated players."""
        return [seat.id for seat in self.seats if seat is not None]

    # -- wire views ------------------------------------------------------------

    def player_ref(self, seat: int, now_ms: int | None, grace_ms: int) -> PlayerRef | None:
        """The seat's player; with ``now_ms``, an offline player's claim countdown."""
        s = self.seats[seat]
        if s is None:
            return None
        deadline = None
        if now_ms is not None and not s.online and s.offline_since_ms is not None:
            deadline = max(0, s.offline_since_ms + grace_ms - now_ms)
        return PlayerRef(
            id=s.id,
            name=s.name,
            rating=s.rating,
            provisional=s.provisional,
            bot=s.bot,
            online=s.online,
            deadline_ms=deadline,
        )

    def seats_view(self, now_ms: int | None, grace_ms: int) -> Seats:
        black = self.seat_at(Color.BLACK)
        return Seats(
            black=self.player_ref(black, now_ms, grace_ms),
            white=self.player_ref(1 - black, now_ms, grace_ms),
        )

    def summary(self, spectators: int) -> RoomSummary:
        """The lobby line with the announced spectator count (no countdowns: it is sent
        only when it changes)."""
        return RoomSummary(
            id=self.id,
            rule=self.rule,
            size=self.size,
            opening=self.opening,
            time=self.time,
            rated=self.rated,
            private=self.private,
            players=self.seats_view(None, 0),
            spectators=spectators,
            state=self.state,
        )

    def swap2_view(self) -> Swap2State | None:
        model = self.opening_model()
        if self.state != "opening" or model.done or model.actor is None:
            return None
        seat = self.seats[model.actor]
        if seat is None:
            return None
        return Swap2State(phase=wire_phase(model.phase), to_act=seat.id, choices=choices(model))

    def may_see_code(self, player: str) -> bool:
        """Whether ``player`` may be shown the invite code (and so come back in by the
        room's id): a seated player, or the one who made the room."""
        return player == self.owner or self.seat_of(player) is not None

    def view(
        self,
        seq: int,
        now_ms: int,
        grace_ms: int,
        *,
        viewer: str | None,
        spectators: int = 0,
        chat: Sequence[ChatLine] = (),
        move_limit_ms: int = 0,
    ) -> RoomView:
        """The snapshot ``viewer`` gets; the invite code only for seated players and the
        room's creator (who watches the AI-vs-AI game they made, and may share it)."""
        to_move: Literal["black", "white"] | None = None
        model = self.opening_model()
        if self.state in LIVE_STATES and (model.done or Action.PLACE in model.allowed()):
            to_move = "white" if len(self.moves) % 2 else "black"
        due = self.move_deadline_ms(move_limit_ms)
        abort_at = self.aborted_at_ms()
        return RoomView(
            id=self.id,
            code=self.code if viewer is not None and self.may_see_code(viewer) else None,
            rule=self.rule,
            size=self.size,
            opening=self.opening,
            time=self.time,
            rated=self.rated,
            private=self.private,
            players=self.seats_view(now_ms, grace_ms),
            spectators=spectators,
            state=self.state,
            moves=list(self.moves),
            to_move=to_move,
            clocks=self.clocks(now_ms) if self.state != "waiting" else None,
            abort_in_ms=None if abort_at is None else max(0, abort_at - now_ms),
            move_deadline_ms=None if due is None else max(0, due - now_ms),
            swap2=self.swap2_view(),
            opening_stones=self.opening_stones,
            pending=self.pending,
            result=self.result,
            rematch_room=self.rematch_room,
            rematch_code=self.rematch_code,
            seq=seq,
            chat=list(chat),
        )


_WIRE_PHASE: dict[Phase, Literal["place3", "choose", "place2"]] = {
    Phase.PLACE3: "place3",
    Phase.CHOOSE_AFTER_3: "choose",
    Phase.PLACE2: "place2",
    Phase.CHOOSE_AFTER_5: "choose",
}


def wire_phase(phase: Phase) -> Literal["place3", "choose", "place2"]:
    return _WIRE_PHASE[phase]


def choices(model: OpeningState) -> list[SwapChoice]:
    """The swap2 choices open now (empty in a placing phase), in a stable order."""
    order: list[SwapChoice] = ["black", "white", "place2"]
    allowed = {a.value for a in model.allowed()}
    return [c for c in order if c in allowed]


_codec_encoder = msgspec.msgpack.Encoder()
_room_decoder = msgspec.msgpack.Decoder(Room)


def encode_room(room: Room) -> bytes:
    return _codec_encoder.encode(room)


def decode_room(data: bytes) -> Room:
    return _room_decoder.decode(data)


class EncodedRoom:
    """A committed room's state, encoded only when its bytes are asked for (``bytes()``).

    The memory store keeps this object as the room's state and hands it back, so its
    rooms are never encoded (``encode_room`` was 4% of a move's CPU there); the Redis
    store asks for the bytes when it commits. The room must not change once committed,
    which :meth:`server.service.RoomService.act` already promises of it. Equal to the
    same state given as bytes, which is how the service knows a room it decoded before.
    """

    __slots__ = ("_data", "room")

    def __init__(self, room: Room) -> None:
        self.room = room
        self._data: bytes | None = None

    def __bytes__(self) -> bytes:
        if self._data is None:
            self._data = encode_room(self.room)
        return self._data

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if isinstance(other, EncodedRoom | bytes):
            return bytes(self) == bytes(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to bytes, which hash otherwise

    def __repr__(self) -> str:
        return f"EncodedRoom({self.room!r})"


def copy_room(room: Room) -> Room:
    """A copy of ``room`` that the game's handlers may change without changing ``room``:
    what they change in place is copied (the seats and the lists and dicts of moves,
    times, clocks and takeback counts); the rest is shared, as it is immutable (text,
    numbers, frozen structs) or only ever replaced whole (``opening_state``, which
    :meth:`Room.opening_model` relies on). Cheaper than decoding the stored bytes again:
    the moves' strings are not made anew."""
    replace = msgspec.structs.replace
    return replace(
        room,
        seats=[None if seat is None else replace(seat) for seat in room.seats],
        moves=room.moves.copy(),
        move_ms=room.move_ms.copy(),
        clocks_ms=room.clocks_ms.copy(),
        takeback_declines=room.takeback_declines.copy(),
        takeback_blocked_until=room.takeback_blocked_until.copy(),
        draw_blocked_until_move=room.draw_blocked_until_move.copy(),
    )
