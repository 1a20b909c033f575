"""The room on screen as the client holds it: settings, seats, moves, clocks, offers,
the result and a hint, with the board's picture drawn from them.

:func:`game_from_view` builds a :class:`GameView` from a server snapshot and
:func:`apply_event` applies one room event to it; both are pure. What the log says
about an event is :mod:`client.state.log`'s business, not this module's.

Clocks tick between server updates: a :class:`ClockView` holds the remaining
times the server sent plus the local monotonic time they arrived, and
:meth:`ClockView.remaining` subtracts the time since for the side to move.
"""

from __future__ import annotations

import dataclasses

from client.picture import BoardPicture
from engine.errors import NotationError
from engine.opening import takeback_count
from engine.types import Color, Point, Reason, Rule
from protocol import events as ev
from protocol.convert import color_from_wire, point_from_wire, point_to_wire
from protocol.events import RatingChange
from protocol.values import (
    Clocks,
    ColorName,
    Opening,
    Pending,
    PlayerRef,
    RoomState,
    RoomView,
    Swap2State,
    TimeControl,
)


@dataclasses.dataclass(frozen=True, slots=True)
class ClockView:
    """Remaining times as the server last sent them, and when they arrived (local
    monotonic seconds). ``running`` is the side whose time is going down."""

    black_ms: int
    white_ms: int
    received_at: float
    running: Color | None = None

    def remaining(self, color: Color, now: float) -> int:
        """Milliseconds left for ``color`` at local time ``now`` (never below 0)."""
        base = self.black_ms if color is Color.BLACK else self.white_ms
        if self.running is color:
            base -= int((now - self.received_at) * 1000)
        return max(0, base)


@dataclasses.dataclass(frozen=True, slots=True)
class Seat:
    """A seated player as the status line shows them."""

    id: str
    name: str
    rating: int | None = None
    bot: bool = False
    online: bool = True
    claim_at: float | None = None  # local monotonic time the opponent may claim the win
    provisional: bool = False  # the rating is (RD above 110): shown as 1500?


@dataclasses.dataclass(frozen=True, slots=True)
class Outcome:
    """How the game ended, in board terms, and each player's rating change (rated
    games whose ``game_over`` reports them)."""

    winner: Color | None
    reason: Reason
    line: tuple[Point, ...] = ()
    ratings: tuple[RatingChange, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class HintView:
    """An AI's suggestion for the position after ``move_no`` stones, and why
    (``win``, ``block``, ``threat``, ``positional``)."""

    point: Point
    reason: str
    move_no: int


@dataclasses.dataclass(frozen=True, slots=True)
class Sending:
    """A stone this client sent and the server has not yet answered: ``move_no`` is the
    number it takes, ``request`` the id it was sent with. Shown as on its way; a second
    stone waits for it (on a slow link a second Enter was refused by the server as a
    stale move, in its words)."""

    point: Point
    move_no: int
    request: int


@dataclasses.dataclass(frozen=True, slots=True)
class GameView:
    """The room on screen: settings, seats, the moves, clocks and offers."""

    id: str
    rule: Rule
    size: int
    opening: Opening
    time: TimeControl | None
    rated: bool = False
    private: bool = False
    code: str | None = None
    black: Seat | None = None
    white: Seat | None = None
    spectators: int = 0
    state: RoomState = "waiting"
    moves: tuple[Point, ...] = ()
    to_move: Color | None = None
    clocks: ClockView | None = None
    swap2: Swap2State | None = None
    opening_stones: int = 0
    """How many of ``moves`` a swap2 opening placed: no takeback removes them."""
    pending: Pending | None = None
    outcome: Outcome | None = None
    seq: int = 0
    rematch_room: str | None = None
    rematch_code: str | None = None
    """The rematch's invite code when the game was private (a spectator joins by it)."""
    hint: HintView | None = None
    sending: Sending | None = None
    move_claim_at: float | None = None
    """In a game without a clock, the local monotonic time from which the opponent of
    the player to act may claim the win because they have not acted (the server's move
    limit: the snapshot's ``move_deadline_ms``, started again at each stone, choice and
    takeback and at the game's start); None with a clock, nobody to act, or no limit."""
    abort_at: float | None = None
    """In a game with a clock whose first stone has not come, the local monotonic time
    the server aborts it (the snapshot's ``abort_in_ms``; the welcome's
    ``first_stone_ms`` after ``game_started``, and again after a takeback to the empty
    board); None once a stone is down, without a clock, or the game not running."""
    picture: BoardPicture = dataclasses.field(default_factory=BoardPicture)

    def seat(self, color: Color) -> Seat | None:
        return self.black if color is Color.BLACK else self.white

    def color_of(self, player: str | None) -> Color | None:
        """The colour ``player`` holds here, or None for a spectator."""
        if player is None:
            return None
        if self.black is not None and self.black.id == player:
            return Color.BLACK
        if self.white is not None and self.white.id == player:
            return Color.WHITE
        return None

    def opponent_of(self, player: str | None) -> Seat | None:
        """The other seat of the one ``player`` holds (None for a spectator, or an
        empty seat)."""
        color = self.color_of(player)
        return None if color is None else self.seat(color.other)

    def name_of(self, player: str) -> str:
        for seat in (self.black, self.white):
            if seat is not None and seat.id == player:
                return seat.name
        return "someone"

    def to_act(self) -> str | None:
        """The player id who must act now: the swap2 actor during the opening,
        else the holder of the colour to move; None when nobody can act."""
        if self.state == "opening" and self.swap2 is not None:
            return self.swap2.to_act
        if self.state != "playing" or self.to_move is None:
            return None
        seat = self.seat(self.to_move)
        return seat.id if seat is not None else None

    def can_take_back(self, player: str | None) -> bool:
        """Whether ``player`` has a stone to take back, as the server judges it: their
        last one, at most two stones back, not one of the opening's."""
        color = self.color_of(player)
        if color is None or self.state != "playing":
            return False
        return takeback_count(len(self.moves), self.opening_stones, color) > 0

    @property
    def running(self) -> bool:
        """Whether the game is under way (the opening or the play proper)."""
        return self.state in ("playing", "opening")

    @property
    def colours_unchosen(self) -> bool:
        """A swap2 game whose colours were never chosen (still in its opening, or ended
        there): its seats are the opener's and the other's, not colours played."""
        return self.opening is Opening.SWAP2 and not self.opening_stones

    def seat_name(self, color: Color) -> str:
        """The name of the player in ``color``'s seat (``?`` for an empty one)."""
        seat = self.seat(color)
        return seat.name if seat is not None else "?"

    @property
    def move_number(self) -> int:
        """The number the next stone will get (1 for the first)."""
        return len(self.moves) + 1

    def point_name(self, point: Point) -> str:
        return point_to_wire(point, self.size)

    def read_points(self, names: list[str]) -> tuple[Point, ...]:
        """The points the server named, on this board (an unreadable one is left out:
        the server validated it, and it could not be drawn anyway)."""
        out: list[Point] = []
        for name in names:
            try:
                out.append(point_from_wire(name, self.size))
            except NotationError:
                continue
        return tuple(out)


def color_named(name: ColorName | None) -> Color | None:
    return None if name is None else color_from_wire(name)


def _later(now: float, ms: int | None) -> float | None:
    """The local time ``ms`` after ``now`` (None for None)."""
    return None if ms is None else now + ms / 1000


def _seat(ref: PlayerRef | None, now: float) -> Seat | None:
    if ref is None:
        return None
    claim_at = _later(now, ref.deadline_ms)
    return Seat(ref.id, ref.name, ref.rating, ref.bot, ref.online, claim_at, ref.provisional)


def _running_clock(game: GameView) -> Color | None:
    """The side whose clock runs, once Black's first stone is down: the player who must
    act in a swap2 opening (who places stones or chooses, whatever the next stone's
    colour), else the side to move. The server charges the same seat."""
    if not game.running or not game.moves:
        return None
    swap2 = game.swap2
    if game.state == "opening" and swap2 is not None and swap2.to_act is not None:
        return game.color_of(swap2.to_act) or game.to_move
    return game.to_move


def with_picture(game: GameView) -> GameView:
    """``game`` with its board picture drawn again from its moves, line and hint."""
    line = game.outcome.line if game.outcome is not None else ()
    hint = game.hint
    picture = BoardPicture.from_moves(
        game.moves,
        size=game.size,
        rule=game.rule,
        line=line,
        show_forbidden=game.running,
        hint=hint.point if hint is not None and game.running else None,
    )
    return dataclasses.replace(game, picture=picture)


def game_from_view(view: RoomView, now: float) -> GameView:
    """The room as a snapshot shows it, at local time ``now``."""
    game = GameView(
        id=view.id,
        rule=view.rule,
        size=view.size,
        opening=view.opening,
        time=view.time,
        rated=view.rated,
        private=view.private,
        code=view.code,
        black=_seat(view.players.black, now),
        white=_seat(view.players.white, now),
        spectators=view.spectators,
        state=view.state,
        to_move=color_named(view.to_move),
        swap2=view.swap2,
        opening_stones=view.opening_stones,
        pending=view.pending,
        rematch_room=view.rematch_room,
        rematch_code=view.rematch_code,
        seq=view.seq,
        move_claim_at=_later(now, view.move_deadline_ms),
        abort_at=_later(now, view.abort_in_ms),
    )
    game = dataclasses.replace(game, moves=game.read_points(view.moves))
    result = view.result
    if result is not None:
        line = game.read_points(result.line or [])
        game = dataclasses.replace(
            game, outcome=Outcome(color_named(result.winner), result.reason, line)
        )
    if view.clocks is not None:
        clocks = ClockView(view.clocks.black_ms, view.clocks.white_ms, now)
        running = _running_clock(game)
        game = dataclasses.replace(game, clocks=dataclasses.replace(clocks, running=running))
    return with_picture(game)


def _set_clocks(game: GameView, clocks: Clocks | None, now: float) -> GameView:
    """New clock values from the server (or the running clock restarted from what it
    shows now, when the message carried none)."""
    if clocks is not None:
        view = ClockView(clocks.black_ms, clocks.white_ms, now)
    elif game.clocks is not None:
        old = game.clocks
        view = ClockView(old.remaining(Color.BLACK, now), old.remaining(Color.WHITE, now), now)
    else:
        return game
    running = _running_clock(game)
    return dataclasses.replace(game, clocks=dataclasses.replace(view, running=running))


def _with_seat(game: GameView, side: Color | ColorName, seat: Seat | None) -> GameView:
    if side in (Color.BLACK, "black"):
        return dataclasses.replace(game, black=seat)
    return dataclasses.replace(game, white=seat)


def _seat_for(game: GameView, player: str) -> Seat | None:
    for seat in (game.black, game.white):
        if seat is not None and seat.id == player:
            return seat
    return Seat(player, game.name_of(player))


def _with_ratings(game: GameView, ratings: tuple[RatingChange, ...]) -> GameView:
    """The seats showing each player's rating after the game."""
    for change in ratings:
        for color in (Color.BLACK, Color.WHITE):
            seat = game.seat(color)
            if seat is not None and seat.id == change.player:
                after = dataclasses.replace(
                    seat, rating=change.after, provisional=change.provisional
                )
                game = _with_seat(game, color, after)
    return game


TURN_EVENTS = (ev.Moved, ev.Chose, ev.Undone, ev.GameStarted)
"""The events that hand a turn over (or give it back): an untimed game's move limit
counts from each, as the server's does."""


def apply_event(
    game: GameView,
    event: ev.RoomEvent,
    now: float,
    *,
    move_limit_ms: int = 0,
    first_stone_ms: int = 0,
) -> GameView:
    """``game`` after one room event at local time ``now`` (its ``seq`` is the caller's);
    ``move_limit_ms`` is the server's move limit in a game without a clock (0: none),
    ``first_stone_ms`` the time a game with a clock has for its first stone (0: none)."""
    game = _with_move_claim(_applied(game, event, now), event, now, move_limit_ms)
    return _with_abort(game, event, now, first_stone_ms)


def _with_abort(game: GameView, event: ev.RoomEvent, now: float, limit_ms: int) -> GameView:
    """``game`` with the time its first stone is due after ``event``: set by a start with
    a clock and by a takeback to the empty board in a game with one (the server counts
    from each, and sends no snapshot), gone with any stone and once the game is over."""
    abort_at = game.abort_at
    if not game.running or isinstance(event, ev.Moved):
        abort_at = None
    elif isinstance(event, ev.GameStarted | ev.Undone) and not game.moves:
        timed = game.time is not None and limit_ms > 0
        abort_at = _later(now, limit_ms) if timed else None
    if abort_at == game.abort_at:
        return game
    return dataclasses.replace(game, abort_at=abort_at)


def _with_move_claim(game: GameView, event: ev.RoomEvent, now: float, limit_ms: int) -> GameView:
    """``game`` with the move limit's claim time after ``event``: started again by an
    event that hands the turn over (the server starts it then too, and a snapshot is not
    sent for each), gone once the game is not running or has a clock."""
    if not game.running or game.time is not None:
        claim_at = None
    elif isinstance(event, TURN_EVENTS):
        claim_at = _later(now, limit_ms) if limit_ms > 0 else None
    else:
        return game
    if claim_at == game.move_claim_at:
        return game
    return dataclasses.replace(game, move_claim_at=claim_at)


def _applied(game: GameView, event: ev.RoomEvent, now: float) -> GameView:
    """``game`` after ``event``, the move limit aside."""
    match event:
        case ev.Moved(point=point, color=color, clocks=clocks):
            try:
                p = point_from_wire(point, game.size)
            except NotationError:
                return game
            mover = color_named(color)
            assert mover is not None
            game = dataclasses.replace(game, moves=(*game.moves, p), to_move=mover.other, hint=None)
            if game.state == "waiting":
                game = dataclasses.replace(game, state="playing")
            return with_picture(_set_clocks(game, clocks, now))
        case ev.Undone(points=points, clocks=clocks):
            keep = len(game.moves) - len(game.read_points(points))
            moves = game.moves[: max(0, keep)]
            to_move = Color.BLACK if len(moves) % 2 == 0 else Color.WHITE
            game = dataclasses.replace(game, moves=moves, to_move=to_move, hint=None)
            return with_picture(_set_clocks(game, clocks, now))
        case ev.GameOver(winner=winner, reason=reason, line=line, ratings=ratings, clocks=clocks):
            changes = tuple(ratings or ())
            outcome = Outcome(color_named(winner), reason, game.read_points(line or []), changes)
            game = dataclasses.replace(game, state="over", outcome=outcome, pending=None, hint=None)
            return _with_ratings(with_picture(_set_clocks(game, clocks, now)), changes)
        case ev.PlayerJoined(
            seat=seat, player=player, name=name, rating=rating, provisional=provisional, bot=bot
        ):
            return _with_seat(game, seat, Seat(player, name, rating, bot, provisional=provisional))
        case ev.PlayerLeft(seat=seat):
            return _with_seat(game, seat, None)
        case ev.SpectatorCount(count=count):
            return dataclasses.replace(game, spectators=count)
        case ev.GameStarted(black=black, white=white, time=time):
            game = dataclasses.replace(
                game,
                state="opening" if game.opening is Opening.SWAP2 else "playing",
                time=time,
                to_move=Color.BLACK,
                outcome=None,
                black=_seat_for(game, black),
                white=_seat_for(game, white),
            )
            if time is not None and game.clocks is None:
                game = dataclasses.replace(
                    game, clocks=ClockView(time.base_ms, time.base_ms, now, None)
                )
            return with_picture(game)
        case ev.OpeningPhase(phase=phase, to_act=to_act, choices=choices):
            swap2 = Swap2State(phase=phase, to_act=to_act, choices=choices)
            return _set_clocks(dataclasses.replace(game, state="opening", swap2=swap2), None, now)
        case ev.Chose(black=black, white=white, clocks=clocks) if (
            black is not None and white is not None
        ):
            game = dataclasses.replace(
                game,
                black=_seat_for(game, black),
                white=_seat_for(game, white),
                swap2=None,
                state="playing",
                opening_stones=len(game.moves),
                # A snapshot taken during the choice had no colour to move (the choice
                # was awaited): Black after an even count of stones, else White.
                to_move=Color.BLACK if len(game.moves) % 2 == 0 else Color.WHITE,
            )
            return _set_clocks(game, clocks, now)  # the seats' times follow their colours
        case ev.Chose(clocks=clocks):
            return _set_clocks(game, clocks, now)
        case ev.Offered(kind=kind, by=by):
            return dataclasses.replace(game, pending=Pending(kind=kind, by=by))
        case ev.Answered():
            return dataclasses.replace(game, pending=None)
        case ev.Presence(player=player, online=online, deadline_ms=deadline_ms):
            claim_at = _later(now, deadline_ms)
            for side in (Color.BLACK, Color.WHITE):
                held = game.seat(side)
                if held is not None and held.id == player:
                    held = dataclasses.replace(held, online=online, claim_at=claim_at)
                    game = _with_seat(game, side, held)
            return game
        case ev.Rematch(room=room, code=code):
            return dataclasses.replace(game, rematch_room=room, rematch_code=code)
    return game


def with_hint(game: GameView, hint: HintView | None) -> GameView:
    """``game`` with ``hint`` marked on its board (None: no hint)."""
    return with_picture(dataclasses.replace(game, hint=hint))
