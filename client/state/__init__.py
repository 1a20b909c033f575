"""The client's state: a view model and a pure reducer from messages to it.

``reduce(model, action, now)`` takes the current :class:`ViewModel`, one
action (a server message from :mod:`protocol.messages`, or one of the local
actions below that the connection and the screens dispatch) and the local
monotonic time, and returns the next model. It does no I/O and imports no UI,
so every rule of what the player sees is testable without a terminal.

Clocks tick between server updates: a :class:`ClockView` holds the remaining
times the server sent plus the local monotonic time they arrived, and
:meth:`ClockView.remaining` subtracts the time since for the side to move.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Literal

from client.picture import BoardPicture
from client.state.history import HistoryAction, HistoryView, reduce_history
from engine.errors import NotationError
from engine.types import Color, Point, Reason, Rule
from protocol import events as ev
from protocol import messages as msg
from protocol.convert import color_from_wire, point_from_wire, point_to_wire
from protocol.errors import ErrorCode
from protocol.events import RatingChange
from protocol.values import (
    Clocks,
    ColorName,
    Opening,
    Pending,
    PlayerRef,
    RoomState,
    RoomSummary,
    RoomView,
    Swap2State,
    TimeControl,
)

LOG_LIMIT = 200  # lines kept in the chat/events pane

ConnectionStatus = Literal["connecting", "connected", "reconnecting", "offline"]
LogKind = Literal["chat", "event", "error", "system"]


# --- local actions --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class ConnectionChanged:
    """The connection went up or down. ``attempt`` counts reconnect tries (1 = the
    first retry), ``next_try_at`` is the monotonic time of the next one; ``problem``
    (a :data:`client.failures.Problem`) and ``detail`` say why the last attempt
    failed; ``was_online`` that it had been welcomed (a lost link, not a failed
    connect)."""

    status: ConnectionStatus
    attempt: int = 0
    next_try_at: float | None = None
    detail: str = ""
    problem: str = ""
    was_online: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class ResumeStarted:
    """After a reconnect the client asked for the events of ``room`` it missed."""

    room: str


@dataclasses.dataclass(frozen=True, slots=True)
class ResumeDone:
    """The missed events of ``room`` have all arrived."""

    room: str


@dataclasses.dataclass(frozen=True, slots=True)
class Note:
    """A line for the events pane that did not come from the server
    ("not your turn", "type a point like h8")."""

    text: str
    kind: LogKind = "system"


@dataclasses.dataclass(frozen=True, slots=True)
class RoomClosed:
    """The player went back to the lobby from ``room``."""

    room: str


@dataclasses.dataclass(frozen=True, slots=True)
class IdentityLost:
    """The server no longer knows this player (``bad_token``: it restarted without
    keeping its players): the client carries on as a new player, without the old
    rooms."""


@dataclasses.dataclass(frozen=True, slots=True)
class RoomGone:
    """The server no longer has ``room`` (``no_such_room`` to ``resume``: lost in a
    restart, or expired)."""

    room: str


@dataclasses.dataclass(frozen=True, slots=True)
class RoomSeen:
    """A snapshot of a room the player sits in but is not looking at (resumed in the
    background after a reconnect): it only keeps the lobby's "game in progress" true."""

    view: RoomView


LocalAction = (
    ConnectionChanged
    | ResumeStarted
    | ResumeDone
    | Note
    | RoomClosed
    | IdentityLost
    | RoomGone
    | RoomSeen
)
Action = msg.ServerMessage | LocalAction | HistoryAction


# --- the view model ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Link:
    """The connection as the player sees it: its status, and while it is down, why
    the last attempt failed and when the next one is."""

    status: ConnectionStatus = "connecting"
    attempt: int = 0
    next_try_at: float | None = None
    detail: str = ""
    problem: str = ""
    was_online: bool = False

    @property
    def online(self) -> bool:
        return self.status == "connected"

    def describe(self, now: float) -> str:
        """``online``, ``reconnecting (attempt 3, next try in 4s)``, ..."""
        if self.status == "connected":
            return "online"
        if self.status == "reconnecting":
            text = f"reconnecting (attempt {self.attempt}"
            if self.next_try_at is not None:
                wait = max(0.0, self.next_try_at - now)
                text += f", next try in {wait:.0f}s" if wait >= 0.5 else ", trying now"
            return text + ")"
        return self.status


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
    pending: Pending | None = None
    outcome: Outcome | None = None
    seq: int = 0
    rematch_room: str | None = None
    hint: HintView | None = None
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

    @property
    def move_number(self) -> int:
        """The number the next stone will get (1 for the first)."""
        return len(self.moves) + 1

    def point_name(self, point: Point) -> str:
        return point_to_wire(point, self.size)


@dataclasses.dataclass(frozen=True, slots=True)
class LogLine:
    kind: LogKind
    text: str


@dataclasses.dataclass(frozen=True, slots=True)
class QueueView:
    """Waiting for a quick match since local time ``since``."""

    rule: Rule
    time: TimeControl | None
    since: float
    ai_after_ms: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class CatchUp:
    """A resume in progress: how many moves the room had when it started."""

    room: str
    moves_before: int


@dataclasses.dataclass(frozen=True, slots=True)
class ViewModel:
    """Everything the screens draw."""

    me: str | None = None
    name: str = ""
    token: str | None = None
    server: str = ""
    link: Link = Link()
    lobby: Mapping[str, RoomSummary] = dataclasses.field(default_factory=dict)
    queue: QueueView | None = None
    room: GameView | None = None
    seated_rooms: tuple[str, ...] = ()
    log: tuple[LogLine, ...] = ()
    catch_up: CatchUp | None = None
    last_error: msg.Error | None = None
    history: HistoryView = dataclasses.field(default_factory=HistoryView)

    @property
    def my_color(self) -> Color | None:
        return self.room.color_of(self.me) if self.room is not None else None


# --- the reducer ------------------------------------------------------------------------------


def color_named(name: ColorName | None) -> Color | None:
    return None if name is None else color_from_wire(name)


def _points(names: list[str], size: int) -> tuple[Point, ...]:
    out: list[Point] = []
    for name in names:
        try:
            out.append(point_from_wire(name, size))
        except NotationError:
            continue  # the server validated it; an unreadable point cannot be drawn anyway
    return tuple(out)


def _seat(ref: PlayerRef | None, now: float) -> Seat | None:
    if ref is None:
        return None
    claim_at = now + ref.deadline_ms / 1000 if ref.deadline_ms is not None else None
    return Seat(ref.id, ref.name, ref.rating, ref.bot, ref.online, claim_at)


def _log(model: ViewModel, kind: LogKind, text: str) -> ViewModel:
    lines = (*model.log, LogLine(kind, text))[-LOG_LIMIT:]
    return dataclasses.replace(model, log=lines)


def _running(game: GameView) -> Color | None:
    """The side whose clock runs: the side to move once Black's first stone is down."""
    if game.state not in ("playing", "opening") or not game.moves:
        return None
    return game.to_move


def _with_picture(game: GameView) -> GameView:
    line = game.outcome.line if game.outcome is not None else ()
    running = game.state in ("playing", "opening")
    hint = game.hint
    picture = BoardPicture.from_moves(
        game.moves,
        size=game.size,
        rule=game.rule,
        line=line,
        show_forbidden=running,
        hint=hint.point if hint is not None and running else None,
    )
    return dataclasses.replace(game, picture=picture)


def _game_from_view(view: RoomView, now: float) -> GameView:
    moves = _points(view.moves, view.size)
    result = view.result
    outcome = None
    if result is not None:
        outcome = Outcome(
            color_named(result.winner), result.reason, _points(result.line or [], view.size)
        )
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
        moves=moves,
        to_move=color_named(view.to_move),
        swap2=view.swap2,
        pending=view.pending,
        outcome=outcome,
        seq=view.seq,
    )
    if view.clocks is not None:
        clocks = ClockView(view.clocks.black_ms, view.clocks.white_ms, now)
        game = dataclasses.replace(game, clocks=dataclasses.replace(clocks, running=_running(game)))
    return _with_picture(game)


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
    return dataclasses.replace(game, clocks=dataclasses.replace(view, running=_running(game)))


def _player_words(game: GameView, color: Color) -> str:
    """``alice (black)``, or just ``black`` for an empty seat."""
    seat = game.seat(color)
    return f"{seat.name} ({color})" if seat is not None else str(color)


def describe_result(outcome: Outcome, game: GameView) -> str:
    """How the game ended, as a sentence that says why: ``bob (white) resigned: alice
    (black) wins.``"""
    winner = outcome.winner
    if winner is None:
        return {
            Reason.BOARD_FULL: "Draw: the board is full.",
            Reason.AGREEMENT: "Draw agreed.",
            Reason.ABANDON: "Game aborted: both players left.",
            Reason.TIMEOUT: "Draw: a flag fell, but the other side could not win.",
        }.get(outcome.reason, f"Draw ({outcome.reason}).")
    won, lost = _player_words(game, winner), _player_words(game, winner.other)
    return {
        Reason.FIVE: f"{won} wins with five in a row.",
        Reason.OVERLINE: f"{won} wins with six or more in a row.",
        Reason.RESIGN: f"{lost} resigned: {won} wins.",
        Reason.TIMEOUT: f"{lost} ran out of time: {won} wins.",
        Reason.ABANDON: f"{lost} left and did not come back: {won} wins.",
    }.get(outcome.reason, f"{won} wins ({outcome.reason}).")


def describe_rating_change(change: RatingChange, arrow: str = "→") -> str:
    """``1500 → 1516 (+16)``."""
    delta = change.after - change.before
    return f"{change.before} {arrow} {change.after} ({delta:+d})"


def _ratings_line(game: GameView, ratings: tuple[RatingChange, ...]) -> str:
    """``Ratings: alice 1500 → 1516 (+16), bob 1500 → 1484 (-16).``"""
    parts = [f"{game.name_of(c.player)} {describe_rating_change(c)}" for c in ratings]
    return "Ratings: " + ", ".join(parts) + "."


def _with_ratings(game: GameView, ratings: tuple[RatingChange, ...]) -> GameView:
    """The seats showing each player's rating after the game."""
    for change in ratings:
        for color in (Color.BLACK, Color.WHITE):
            seat = game.seat(color)
            if seat is not None and seat.id == change.player:
                game = _with_seat(game, color, dataclasses.replace(seat, rating=change.after))
    return game


def describe_time(time: TimeControl | None) -> str:
    return "no clock" if time is None else str(time)


_OFFER_WORDS = {"draw": "a draw", "takeback": "a takeback", "rematch": "a rematch"}


def _apply_event(
    model: ViewModel, game: GameView, event: ev.RoomEvent, now: float
) -> tuple[GameView, list[LogLine]]:
    """One room event applied to ``game``; also the lines it adds to the log."""
    lines: list[LogLine] = []

    def say(text: str, kind: LogKind = "event") -> None:
        lines.append(LogLine(kind, text))

    match event:
        case ev.Moved(point=point, color=color, clocks=clocks):
            try:
                p = point_from_wire(point, game.size)
            except NotationError:
                return game, lines
            mover = color_named(color)
            assert mover is not None
            game = dataclasses.replace(game, moves=(*game.moves, p), to_move=mover.other, hint=None)
            if game.state == "waiting":
                game = dataclasses.replace(game, state="playing")
            game = _with_picture(_set_clocks(game, clocks, now))
        case ev.Undone(points=points, clocks=clocks):
            removed = _points(points, game.size)
            keep = len(game.moves) - len(removed)
            moves = game.moves[: max(0, keep)]
            to_move = Color.BLACK if len(moves) % 2 == 0 else Color.WHITE
            game = dataclasses.replace(game, moves=moves, to_move=to_move, hint=None)
            game = _with_picture(_set_clocks(game, clocks, now))
            names = ", ".join(game.point_name(p) for p in removed)
            say(f"Takeback: {names} taken back.")
        case ev.GameOver(winner=winner, reason=reason, line=line, ratings=ratings):
            changes = tuple(ratings or ())
            outcome = Outcome(color_named(winner), reason, _points(line or [], game.size), changes)
            game = dataclasses.replace(game, state="over", outcome=outcome, pending=None, hint=None)
            game = _with_picture(_set_clocks(game, None, now))
            say(describe_result(outcome, game))
            if changes:
                say(_ratings_line(game, changes))
                game = _with_ratings(game, changes)
        case ev.PlayerJoined(seat=seat, player=player, name=name, rating=rating, bot=bot):
            # Not logged: "Game started" names both players, and a player who joins
            # later sees the same line (the log is the same for everyone in the room).
            game = _with_seat(game, seat, Seat(player, name, rating, bot))
        case ev.PlayerLeft(seat=seat, player=player):
            say(f"{game.name_of(player)} left the {seat} seat.")
            game = _with_seat(game, seat, None)
        case ev.SpectatorCount(count=count):
            game = dataclasses.replace(game, spectators=count)
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
            game = _with_picture(game)
            say(_started_line(game))
        case ev.OpeningPhase(phase=phase, to_act=to_act, choices=choices):
            game = dataclasses.replace(
                game,
                state="opening",
                swap2=Swap2State(phase=phase, to_act=to_act, choices=choices),
            )
            say(f"Swap2: {game.name_of(to_act)} to {_phase_words(phase)}.")
        case ev.Chose(player=player, choice=choice, black=black, white=white):
            say(f"Swap2: {game.name_of(player)} chose {choice}.")
            if black is not None and white is not None:
                game = dataclasses.replace(
                    game,
                    black=_seat_for(game, black),
                    white=_seat_for(game, white),
                    swap2=None,
                    state="playing",
                )
                game = _set_clocks(game, None, now)
        case ev.Offered(kind=kind, by=by):
            game = dataclasses.replace(game, pending=Pending(kind=kind, by=by))
            who = "You" if by == model.me else game.name_of(by)
            verb = "offer" if by == model.me else "offers"
            if kind == "takeback":
                verb = "ask for" if by == model.me else "asks for"
            say(f"{who} {verb} {_OFFER_WORDS[kind]}.")
        case ev.Answered(kind=kind, by=by, accept=accept):
            game = dataclasses.replace(game, pending=None)
            who = "You" if by == model.me else game.name_of(by)
            say(f"{who} {'accepted' if accept else 'declined'} {_OFFER_WORDS[kind]}.")
        case ev.Presence(player=player, online=online, deadline_ms=deadline_ms):
            claim_at = now + deadline_ms / 1000 if deadline_ms is not None else None
            for side in (Color.BLACK, Color.WHITE):
                held = game.seat(side)
                if held is not None and held.id == player:
                    held = dataclasses.replace(held, online=online, claim_at=claim_at)
                    game = _with_seat(game, side, held)
            name = game.name_of(player)
            if online:
                say(f"{name} is back.")
            elif deadline_ms:
                say(f"{name} disconnected; the win may be claimed in {deadline_ms // 1000}s.")
            elif deadline_ms is not None:
                say(f"{name} disconnected; the win may be claimed now.")
            else:
                say(f"{name} disconnected.")
        case ev.ChatPosted(name=name, text=text):
            say(f"{name}: {text}", "chat")
        case ev.Rematch(room=room):
            game = dataclasses.replace(game, rematch_room=room)
            say("Rematch agreed: a new game with colours swapped.")
    return game, lines


def _started_line(game: GameView) -> str:
    """``Game started: alice (black) vs bob (white), 5+3.``"""
    b = game.black.name if game.black else "?"
    w = game.white.name if game.white else "?"
    return f"Game started: {b} (black) vs {w} (white), {describe_time(game.time)}."


def _with_seat(game: GameView, side: Color | ColorName, seat: Seat | None) -> GameView:
    if side in (Color.BLACK, "black"):
        return dataclasses.replace(game, black=seat)
    return dataclasses.replace(game, white=seat)


def _phase_words(phase: str) -> str:
    return {
        "place3": "place the first three stones",
        "choose": "choose a colour or place two more",
        "place2": "place two more stones",
    }.get(phase, phase)


def _seat_for(game: GameView, player: str) -> Seat | None:
    for seat in (game.black, game.white):
        if seat is not None and seat.id == player:
            return seat
    return Seat(player, game.name_of(player))


def reduce(model: ViewModel, action: Action, now: float) -> ViewModel:
    """The model after ``action`` at local monotonic time ``now`` (seconds)."""
    history = reduce_history(model.history, action, model.me)
    if history is not model.history:
        model = dataclasses.replace(model, history=history)
    match action:
        case msg.Welcome(player=player, name=name, token=token, rooms=rooms, server=server):
            model = dataclasses.replace(
                model,
                me=player,
                name=name,
                token=token,
                server=server,
                seated_rooms=tuple(rooms),
                link=Link("connected"),
            )
            return model
        case msg.Error() as error:
            model = dataclasses.replace(model, last_error=error)
            return _log(model, "error", describe_error(error))
        case msg.Lobby(rooms=rooms, part=part):
            known = model.lobby if part else {}  # later parts of a long list add to it
            return dataclasses.replace(model, lobby={**known, **{r.id: r for r in rooms}})
        case msg.LobbyRoom(room=summary):
            return dataclasses.replace(model, lobby={**model.lobby, summary.id: summary})
        case msg.LobbyGone(room=room_id):
            lobby = {k: v for k, v in model.lobby.items() if k != room_id}
            return dataclasses.replace(model, lobby=lobby)
        case msg.Queued(rule=rule, time=time, since_ms=since_ms, ai_after_ms=ai_after_ms):
            since = now - (since_ms or 0) / 1000
            if model.queue is not None and (model.queue.rule, model.queue.time) == (rule, time):
                since = model.queue.since
            return dataclasses.replace(model, queue=QueueView(rule, time, since, ai_after_ms))
        case msg.Suggestion(room=room_id, point=point, reason=reason, move_no=move_no):
            return _on_suggestion(model, room_id, point, reason, move_no)
        case msg.Unqueued():
            return dataclasses.replace(model, queue=None)
        case msg.Left(room=room_id):
            if model.room is not None and model.room.id == room_id:
                if model.room.state not in ("playing", "opening"):
                    model = _without_seat(model, room_id)
                return dataclasses.replace(model, room=None)
            return model
        case msg.Snapshot(room=view):
            return _on_snapshot(model, view, now)
        case msg.Event(room=room_id, seq=seq, event=event):
            return _on_event(model, room_id, seq, event, now)
        case ConnectionChanged(status, attempt, at, detail, problem, was_online):
            # "Connection lost" for as long as the client tries to get back a link it had.
            had_link = model.link.online or (
                model.link.status == "reconnecting" and model.link.was_online
            )
            link = Link(status, attempt, at, detail, problem, was_online or had_link)
            lost = model.link.online and not link.online
            model = dataclasses.replace(model, link=link)
            if lost:
                why = f" ({detail})" if detail else ""
                model = _log(model, "system", f"Connection lost{why}; reconnecting.")
            return model
        case IdentityLost():
            model = dataclasses.replace(
                model, room=None, seated_rooms=(), catch_up=None, queue=None
            )
            return _log(model, "system", IDENTITY_LOST)
        case RoomSeen(view=view):
            return _with_seated(model, _game_from_view(view, now))
        case RoomGone(room=room_id):
            model = _without_seat(model, room_id)
            if model.room is not None and model.room.id == room_id:
                model = dataclasses.replace(model, room=None)
            if model.catch_up is not None and model.catch_up.room == room_id:
                model = dataclasses.replace(model, catch_up=None)
            return _log(model, "system", room_gone_text(room_id))
        case ResumeStarted(room=room_id):
            moves = len(model.room.moves) if model.room and model.room.id == room_id else 0
            return dataclasses.replace(model, catch_up=CatchUp(room_id, moves))
        case ResumeDone(room=room_id):
            catch = model.catch_up
            if catch is None or catch.room != room_id:
                return model
            now_moves = len(model.room.moves) if model.room and model.room.id == room_id else 0
            caught = max(0, now_moves - catch.moves_before)
            model = dataclasses.replace(model, catch_up=None)
            plural = "" if caught == 1 else "s"
            return _log(model, "system", f"Back, {caught} move{plural} caught up.")
        case Note(text=text, kind=kind):
            return _log(model, kind, text)
        case RoomClosed(room=room_id):
            if model.room is not None and model.room.id == room_id:
                if model.room.state not in ("playing", "opening"):
                    model = _without_seat(model, room_id)
                return dataclasses.replace(model, room=None)
            return model
    return model


IDENTITY_LOST = (
    "The server no longer knows you (it restarted without keeping its players): "
    "you are a new player there now."
)


def room_gone_text(room: str) -> str:
    return f"Room {room} is gone: the server no longer has it (it restarted, or the room expired)."


def _without_seat(model: ViewModel, room: str) -> ViewModel:
    """The model with ``room`` no longer among the rooms the player sits in."""
    if room not in model.seated_rooms:
        return model
    rooms = tuple(r for r in model.seated_rooms if r != room)
    return dataclasses.replace(model, seated_rooms=rooms)


def _with_seated(model: ViewModel, game: GameView) -> ViewModel:
    """Keep :attr:`ViewModel.seated_rooms` true for ``game``: listed while the player
    sits in it and its game is not over (the lobby offers to return to it)."""
    seated = game.color_of(model.me) is not None and game.state != "over"
    if seated and game.id not in model.seated_rooms:
        return dataclasses.replace(model, seated_rooms=(*model.seated_rooms, game.id))
    if not seated:
        return _without_seat(model, game.id)
    return model


def _on_snapshot(model: ViewModel, view: RoomView, now: float) -> ViewModel:
    game = _game_from_view(view, now)
    fresh = model.room is None or model.room.id != view.id
    hint = model.room.hint if model.room is not None and not fresh else None
    if hint is not None and hint.move_no == len(game.moves):  # a resume keeps a fresh hint
        game = _with_picture(dataclasses.replace(game, hint=hint))
    model = _with_seated(dataclasses.replace(model, room=game), game)
    if fresh:
        # Each room starts a fresh log, told as it would have been from the start.
        model = dataclasses.replace(model, log=())
        for line in _opening_lines(game):
            model = _log(model, line.kind, line.text)
        if model.queue is not None:
            model = dataclasses.replace(model, queue=None)
    return model


def _opening_lines(game: GameView) -> list[LogLine]:
    """What a player who had been in ``game`` from the start would have read of its
    state so far: the room, the start, and the result."""
    text = f"Room {game.id}: {game.rule}, {game.size}x{game.size}, {describe_time(game.time)}"
    if game.code:
        text += f", invite code {game.code}"
    if game.rated:
        text += f". {RATED_NOTE}"
    lines = [LogLine("system", text + ".")]
    if game.state != "waiting":
        lines.append(LogLine("event", _started_line(game)))
    if game.moves and game.state != "over":
        lines.append(LogLine("event", f"{len(game.moves)} moves played so far."))
    if game.outcome is not None:
        lines.append(LogLine("event", describe_result(game.outcome, game)))
    return lines


HINT_REASONS = {
    "win": "it wins by force",
    "block": "it stops a threat",
    "threat": "it makes a threat",
    "positional": "a good shape",
}


def _on_suggestion(
    model: ViewModel, room_id: str, point: str, reason: str, move_no: int
) -> ViewModel:
    """A hint for the room on screen: marked on the board while the position is the one
    it was asked about, and explained in the log."""
    game = model.room
    if game is None or game.id != room_id:
        return model
    try:
        p = point_from_wire(point, game.size)
    except NotationError:
        return model
    why = HINT_REASONS.get(reason, reason)
    side = "black" if move_no % 2 == 0 else "white"
    if move_no != len(game.moves):
        return _log(model, "system", f"Hint {point} came too late: the position has changed.")
    game = _with_picture(dataclasses.replace(game, hint=HintView(p, reason, move_no)))
    model = dataclasses.replace(model, room=game)
    return _log(model, "event", f"Hint for {side}: {point} ({why}).")


RATED_NOTE = "Rated: no hints or AI seats"

# Error codes the player should read with a heading, not as a bare server sentence.
ERROR_HEADINGS: dict[str, str] = {
    ErrorCode.NO_AI_AVAILABLE: "No AI available",
    ErrorCode.AI_NOT_ALLOWED: "AI seat refused",
    ErrorCode.HINT_NOT_ALLOWED: "Hint refused",
    ErrorCode.NO_SUCH_GAME: "Game not found",
    ErrorCode.NO_SUCH_PLAYER: "Player not found",
    ErrorCode.TOO_MANY_ROOMS: "No new room",
}


def describe_error(error: msg.Error) -> str:
    """The error as the log shows it: a heading for the codes that need one."""
    heading = ERROR_HEADINGS.get(error.code)
    return f"{heading}: {error.message}" if heading else error.message


def _on_event(
    model: ViewModel, room_id: str, seq: int, event: ev.RoomEvent, now: float
) -> ViewModel:
    game = model.room
    if game is None or game.id != room_id:
        if isinstance(event, ev.GameOver):
            model = _without_seat(model, room_id)  # a game of ours ended while away
        return model  # a room not on screen (the client shows one room at a time)
    if seq <= game.seq:
        return model  # already applied (a resume may repeat what the snapshot had)
    game, lines = _apply_event(model, game, event, now)
    game = dataclasses.replace(game, seq=seq)
    model = _with_seated(dataclasses.replace(model, room=game), game)
    for line in lines:
        model = _log(model, line.kind, line.text)
    return model


# --- questions the screens ask ------------------------------------------------------------------


def can_move(model: ViewModel, players: frozenset[str] | None = None) -> str | None:
    """Why a stone cannot be placed now, or None if it can. ``players`` are the
    local identities (two in hot seat; default: this connection's player)."""
    local = players if players is not None else frozenset({model.me} if model.me else ())
    game = model.room
    if game is None:
        return "You are not in a game."
    if not model.link.online:
        return "Offline: moves are disabled until the connection is back."
    if game.state == "over":
        return "The game is over."
    if game.state == "waiting":
        return "Waiting for an opponent."
    if not any(game.color_of(p) is not None for p in local):
        return "You are watching this game."
    if game.swap2 is not None and game.swap2.phase == "choose":
        return "Swap2: choose first (black, white or place2)."
    actor = game.to_act()
    if actor is None or actor not in local:
        return "Not your turn."
    return None


NO_HINT_RATED = "Hints are for unrated games: this game is rated."
NO_AI_RATED = "Rated games are for people: no AI seats here."


def can_hint(model: ViewModel) -> str | None:
    """Why an AI hint cannot be asked for now, or None if it can (players and
    spectators of an unrated game, while a stone is expected)."""
    game = model.room
    if game is None:
        return "You are not in a game."
    if not model.link.online:
        return "Offline: hints need the server."
    if game.rated:
        return NO_HINT_RATED
    if game.state not in ("playing", "opening"):
        return "Hints are for a game in progress."
    if game.swap2 is not None and game.swap2.phase == "choose":
        return "Swap2: a colour choice is awaited, not a stone."
    return None


def can_seat_ai(model: ViewModel, players: frozenset[str] | None = None) -> str | None:
    """Why an AI cannot be seated in the room now, or None if it can: the room is
    waiting, unrated, one of ``players`` (default: this connection's) sits in it and
    the other seat is free."""
    local = players if players is not None else frozenset({model.me} if model.me else ())
    game = model.room
    if game is None:
        return "You are not in a game."
    if not model.link.online:
        return "Offline: an AI needs the server."
    if not any(game.color_of(p) is not None for p in local):
        return "Only a player sitting in this room can ask for an AI."
    if game.state != "waiting" or (game.black is not None and game.white is not None):
        return "Both seats are taken."
    if game.rated:
        return NO_AI_RATED
    return None
