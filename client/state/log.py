"""The room's log as the client holds it: chat lines and what happened, in words.

:func:`reduce_log` reads each action together with the state before and after it
(:class:`Scene`), and adds the lines a player should read: the room's events
(``Takeback: h9 taken back.``, ``bob (white) resigned: alice (black) wins.``), chat
(``name: text``), refusals, the link lost, a resume caught up, notes of the client's
own. Each room starts a fresh log, told as it would have been from the start, so it
reads the same for everyone in the room however late they came. A note of the
client's own that says again what the last line says (``The game is over.`` for each
point typed after the game) is not repeated: the line is there already.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Literal, Protocol

from client.state.game import GameView, Seat
from client.state.room import CatchUp, ResumeDone, RoomGone
from client.state.session import ConnectionChanged, IdentityLost, Session
from client.state.words import (
    HINT_REASONS,
    IDENTITY_LOST,
    RATED_NOTE,
    RATINGS_PENDING,
    choice_words,
    claim_words,
    describe_error,
    describe_result,
    describe_time,
    finished_room_gone_text,
    minutes_seconds,
    not_counted_line,
    phase_words,
    ratings_line,
    room_closed_text,
    room_gone_text,
    started_line,
)
from engine import Opening, Rule
from engine.analysis import run_through
from engine.errors import NotationError
from protocol import events as ev
from protocol import messages as msg
from protocol.convert import point_from_wire
from protocol.values import ChatLine

LOG_LIMIT = 200  # lines kept in the chat/events pane

LogKind = Literal["chat", "event", "error", "system"]


@dataclasses.dataclass(frozen=True, slots=True)
class Note:
    """A line for the events pane that did not come from the server
    ("not your turn", "type a point like h8")."""

    text: str
    kind: LogKind = "system"


@dataclasses.dataclass(frozen=True, slots=True)
class LogLine:
    """One line of the pane. A chat line also keeps who said it (``player``, their id,
    and ``name`` as they gave it), so that a player's lines can be hidden when they are
    muted (:mod:`client.state.mute`)."""

    kind: LogKind
    text: str
    player: str | None = None
    name: str = ""


class Scene(Protocol):
    """What the log reads of the client's state (:class:`client.state.model.ViewModel`)."""

    @property
    def session(self) -> Session: ...

    @property
    def room(self) -> GameView | None: ...

    @property
    def catch_up(self) -> CatchUp | None: ...


def reduce_log(
    log: tuple[LogLine, ...], action: object, before: Scene, after: Scene
) -> tuple[LogLine, ...]:
    """``log`` after ``action``, which turned the state ``before`` into ``after``."""
    match action:
        case msg.Snapshot(room=view) if before.room is None or before.room.id != view.id:
            if after.room is None:
                return ()
            session = after.session
            lines = opening_lines(after.room, view.chat, session.me, session.move_limit_ms)
            last = before.room
            if last is not None and last.rematch_room == view.id and last.outcome is not None:
                # The last game's result went with its log: say what this room follows.
                ended = describe_result(last.outcome, last)
                lines.insert(0, LogLine("event", f"Rematch of {last.id}. Last game: {ended}"))
            return tuple(lines)
        case Note(text=text, kind=kind) if log and log[-1] == LogLine(kind, text):
            return log  # said already, on the last line: no flood of the same words
    lines = _lines(action, before, after)
    return (*log, *lines)[-LOG_LIMIT:] if lines else log


def _lines(action: object, before: Scene, after: Scene) -> list[LogLine]:
    match action:
        case msg.Error() as error:
            return [LogLine("error", describe_error(error))]
        case msg.Event(room=room, seq=seq, event=event) if (
            before.room is not None and before.room.id == room and seq > before.room.seq
        ):
            assert after.room is not None
            return _event_lines(event, before.room, after.room, after.session.me)
        case msg.Suggestion(room=room, point=point, reason=reason, move_no=move_no):
            return _hint_lines(before.room, room, point, reason, move_no)
        case ConnectionChanged(detail=detail) if (
            before.session.link.online and not after.session.link.online
        ):
            why = f" ({detail})" if detail else ""
            return [
                LogLine("system", f"Connection lost{why}; reconnecting.{_claim_warning(after)}")
            ]
        case IdentityLost():
            return [LogLine("system", IDENTITY_LOST)]
        case RoomGone(room=room, expired=True):
            closed = before.room
            if closed is None or closed.id != room:
                return []  # not on screen: nothing to explain
            return [LogLine("system", room_closed_text(room, closed.state))]
        case RoomGone(room=room) if (
            before.room is not None and before.room.id == room and before.room.state == "over"
        ):
            return [LogLine("system", finished_room_gone_text(room))]
        case RoomGone(room=room):
            return [LogLine("system", room_gone_text(room))]
        case ResumeDone(room=room) if before.catch_up is not None and before.catch_up.room == room:
            shown = after.room
            now_moves = len(shown.moves) if shown is not None and shown.id == room else 0
            caught = max(0, now_moves - before.catch_up.moves_before)
            plural = "" if caught == 1 else "s"
            return [LogLine("system", f"Back, {caught} move{plural} caught up.")]
        case Note(text=text, kind=kind):
            return [LogLine(kind, text)]
    return []


def chat_line(game: GameView, player: str, name: str, text: str, me: str | None) -> LogLine:
    """A chat line of the log, its speaker kept (:class:`LogLine`)."""
    return LogLine("chat", chat_text(game, player, name, text, me), player, name)


def chat_text(game: GameView, player: str, name: str, text: str, me: str | None = None) -> str:
    """``ann: gg``; a spectator's line says so (``ann (watching): gg``), and one's own
    (``ann (you): gg``): names are not unique, and a spectator named as a player, or an
    opponent who took one's own name, could otherwise speak for them. Two players of one
    name are told apart by their colour (``kim (black): gg``) for those watching them."""
    colour = game.color_of(player)
    if player == me:
        name += " (you)"
    elif colour is None:
        name += " (watching)"
    elif game.color_of(me) is None and _named(game.seat(colour.other)) == name:
        name += f" ({colour})"  # (a player reads their own lines as "(you)")
    return f"{name}: {text}"


WATCHING = "You are watching."
WATCHING_FULL = "Both seats are taken: you are watching."


def opening_lines(
    game: GameView, chat: Sequence[ChatLine] = (), me: str | None = None, move_limit_ms: int = 0
) -> list[LogLine]:
    """What a player who had been in ``game`` from the start would have read of its
    state so far: the room (without a clock, the server's ``move_limit_ms`` a move: it
    was said only in its last minute), that ``me`` only watches it (a code joined with
    both seats taken gave no seat, and nothing said so), the start, what was said
    (``chat``, the snapshot's last lines), an offer waiting for its answer, and the
    result."""
    swap2 = ", swap2" if game.opening is Opening.SWAP2 else ""
    text = (
        f"Room {game.id}: {game.rule}, {game.size}x{game.size}{swap2}, {describe_time(game.time)}"
    )
    if game.time is None and move_limit_ms > 0:
        text += f" ({minutes_seconds(move_limit_ms)} a move, or the opponent may claim)"
    if game.code:
        text += f", invite code {game.code}"
    if game.rated:
        text += f". {RATED_NOTE}"
    lines = [LogLine("system", text + ".")]
    if me is not None and game.color_of(me) is None:  # joined by a code, both seats taken
        full = game.black is not None and game.white is not None and game.state != "over"
        lines.append(LogLine("system", WATCHING_FULL if full else WATCHING))
    if game.state != "waiting":
        lines.append(LogLine("event", started_line(game)))
    lines += [chat_line(game, line.player, line.name, line.text, me) for line in chat]
    if game.moves and game.state != "over":
        played = len(game.moves)
        lines.append(LogLine("event", f"{played} move{'' if played == 1 else 's'} played so far."))
    phase = game.swap2
    if game.state == "opening" and phase is not None:  # what the room read when it began
        to_do = phase_words(phase.phase, phase.choices)
        lines.append(LogLine("event", f"Swap2: {game.name_of(phase.to_act)} to {to_do}."))
    if game.pending is not None and game.state != "over":  # said as it was offered
        lines.append(LogLine("event", offered_line(game.pending.kind, game.pending.by, game, me)))
    if game.outcome is not None:
        lines.append(LogLine("event", describe_result(game.outcome, game)))
    if game.rematch_room is not None:  # begun before one came in: where the players went
        found = f"invite code {game.rematch_code}" if game.rematch_code else game.rematch_room
        lines.append(LogLine("event", f"Its players went on to a rematch ({found})."))
    return lines


_OFFER_WORDS = {"draw": "a draw", "takeback": "a takeback", "rematch": "a rematch"}


def offered_line(kind: str, by: str, game: GameView, me: str | None) -> str:
    """``bob offers a draw.``, ``You ask for a takeback.``"""
    who = "You" if by == me else game.name_of(by)
    verb = "offer" if by == me else "offers"
    if kind == "takeback":
        verb = "ask for" if by == me else "asks for"
    return f"{who} {verb} {_OFFER_WORDS[kind]}."


def _claim_warning(scene: Scene) -> str:
    """`` bob may claim the win after 1:00 away.``: to a seated player whose link went
    in a running game (the opponent is told they may claim; the player was not)."""
    game, me = scene.room, scene.session.me
    if game is None or not game.running or game.color_of(me) is None:
        return ""
    other = game.opponent_of(me)
    session = scene.session
    who = "your opponent" if other is None else other.name
    bot = other is not None and other.bot
    said = claim_words(who, bot=bot, grace_ms=session.grace_ms, move_limit_ms=session.move_limit_ms)
    return f" {said}."


def _overline(game: GameView, point: str) -> bool:
    """Whether the stone just played at ``point`` makes six or more in a row in a
    standard game, which goes on (a player who made six read no word of why)."""
    if game.rule is not Rule.STANDARD or not game.moves:
        return False
    last = game.moves[-1]
    return game.point_name(last) == point and run_through(game.picture.stones, last) > 5


def _event_lines(
    event: ev.RoomEvent, before: GameView, after: GameView, me: str | None
) -> list[LogLine]:
    """What the log says of one room event, which turned ``before`` into ``after``."""
    lines: list[LogLine] = []

    def say(text: str, kind: LogKind = "event") -> None:
        lines.append(LogLine(kind, text))

    match event:
        case ev.Undone(points=points):
            names = ", ".join(after.point_name(p) for p in after.read_points(points))
            say(f"Takeback: {names} taken back.")
        case ev.GameOver(ratings_pending=pending) if after.outcome is not None:
            say(describe_result(after.outcome, after))
            if after.outcome.ratings:
                say(ratings_line(after, after.outcome.ratings))
            elif pending:
                say(RATINGS_PENDING)
            elif after.rated and (why := not_counted_line(after, after.outcome)):
                say(why)
        case ev.PlayerLeft(seat=seat, player=player):
            # Joining is not logged: "Game started" names both players, and a player who
            # joins later sees the same line (the log is the same for everyone in the room).
            say(f"{before.name_of(player)} left the {seat} seat.")
        case ev.Moved(point=point) if _overline(after, point):
            say(f"{point}: six or more in a row do not win in standard rules, only exactly five.")
        case ev.GameStarted():
            say(started_line(after))
        case ev.OpeningPhase(phase=phase, to_act=to_act, choices=choices):
            say(f"Swap2: {after.name_of(to_act)} to {phase_words(phase, choices)}.")
        case ev.Chose(player=player, choice=choice):
            say(f"Swap2: {before.name_of(player)} chose {choice_words(choice)}.")
        case ev.Offered(kind=kind, by=by):
            say(offered_line(kind, by, after, me))
        case ev.Answered(kind=kind, by=by) if (
            before.pending is not None and before.pending.by == by
        ):
            who = "You" if by == me else after.name_of(by)
            say(f"{who} moved on: the request for {_OFFER_WORDS[kind]} is withdrawn.")
        case ev.Answered(kind=kind, by=by, accept=accept):
            who = "You" if by == me else after.name_of(by)
            say(f"{who} {'accepted' if accept else 'declined'} {_OFFER_WORDS[kind]}.")
        case ev.Presence(player=player, online=online, deadline_ms=deadline_ms) if (
            player == me and after.state in ("opening", "playing")
        ):
            # Our own drop, replayed on our return: "you", and the claim it allowed.
            if not online:
                say(
                    "You were disconnected; your opponent could claim the win if you did "
                    "not come back in time."
                )
            else:
                say("You are back.")
        case ev.Presence(player=player, online=online, deadline_ms=deadline_ms):
            # "went offline", as the status line's "is offline" and the log's "is back";
            # times as m:ss, as the status line counts them down ("20s" stood by "0:15").
            name = after.name_of(player)
            if online:
                say(f"{name} is back.")
            elif after.state == "over":  # nothing to claim: leaving a finished game
                say(f"{name} left.")
            elif after.state == "waiting":  # nothing to claim: the seat is kept a while
                kept = f" for {minutes_seconds(deadline_ms)}" if deadline_ms else ""
                say(f"{name} went offline; their seat is kept{kept}.")
            elif deadline_ms:
                within = minutes_seconds(deadline_ms)
                say(f"{name} went offline; the win may be claimed in {within}.")
            elif deadline_ms is not None:
                say(f"{name} went offline; the win may be claimed now.")
            else:
                say(f"{name} went offline.")
        case ev.ChatPosted(player=player, name=name, text=text):
            lines.append(chat_line(after, player, name, text, me))
        case ev.Rematch():
            say("Rematch agreed: a new game with colours swapped.")
    return lines


def _hint_lines(
    game: GameView | None, room: str, point: str, reason: str, move_no: int
) -> list[LogLine]:
    """A hint for the room on screen is explained; one for a position that has
    changed since it was asked for is said to be too late."""
    if game is None or game.id != room:
        return []
    try:
        point_from_wire(point, game.size)
    except NotationError:
        return []
    if move_no != len(game.moves):
        return [LogLine("system", f"Hint {point} came too late: the position has changed.")]
    side = "black" if move_no % 2 == 0 else "white"
    why = HINT_REASONS.get(reason, reason)
    return [LogLine("event", f"Hint for {side}: {point} ({why}).")]


def _named(seat: Seat | None) -> str | None:
    return None if seat is None else seat.name
