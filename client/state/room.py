"""Which room is on screen, which rooms the player sits in, and a resume in progress.

The client shows one room at a time (:func:`reduce_room`): a snapshot puts a room on
screen, its events move it on (each once: an event the snapshot already covered is
skipped), and leaving, a room the server no longer has, or a server that forgot the
player take it off. :func:`reduce_seated_rooms` keeps the list of rooms the player
sits in true (the lobby offers to return to a game in progress), and
:func:`reduce_catch_up` follows a resume after a reconnect until the missed events
are in.
"""

from __future__ import annotations

import dataclasses

from client.state.game import (
    GameView,
    HintView,
    Sending,
    apply_event,
    game_from_view,
    with_hint,
)
from client.state.session import IdentityLost
from engine.errors import NotationError
from engine.types import Point
from protocol import events as ev
from protocol import messages as msg
from protocol.convert import point_from_wire
from protocol.values import RoomView

# --- local actions --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class ResumeStarted:
    """After a reconnect the client asked for the events of ``room`` it missed."""

    room: str


@dataclasses.dataclass(frozen=True, slots=True)
class ResumeDone:
    """The missed events of ``room`` have all arrived (of a room on screen, or one resumed
    in the background)."""

    room: str


@dataclasses.dataclass(frozen=True, slots=True)
class RoomClosed:
    """The player went back to the lobby from ``room``."""

    room: str


@dataclasses.dataclass(frozen=True, slots=True)
class MoveSent:
    """A stone at ``point`` was sent in ``room`` as stone ``move_no``, with the request
    id ``request`` (a refusal echoes it)."""

    room: str
    point: Point
    move_no: int
    request: int


@dataclasses.dataclass(frozen=True, slots=True)
class RoomGone:
    """The server no longer has ``room``: ``no_such_room`` to ``resume`` (lost in a
    restart, or expired), or, ``expired``, ``left`` with ``closed`` (its time was up)."""

    room: str
    expired: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class RoomSeen:
    """A snapshot of a room the player sits in but is not looking at (resumed in the
    background after a reconnect): it only keeps the lobby's "game in progress" true."""

    view: RoomView


# --- the state ---------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class CatchUp:
    """A resume in progress: how many moves the room had when it started."""

    room: str
    moves_before: int


def _shows(game: GameView | None, room: str) -> bool:
    return game is not None and game.id == room


def reduce_room(
    game: GameView | None,
    action: object,
    now: float,
    *,
    move_limit_ms: int = 0,
    first_stone_ms: int = 0,
) -> GameView | None:
    """The room on screen after ``action`` at local time ``now`` (None: none);
    ``move_limit_ms``: the server's move limit in a game without a clock (0: none);
    ``first_stone_ms``: the time a game with a clock has for its first stone (0: none)."""
    match action:
        case msg.Snapshot(room=view):
            fresh = game_from_view(view, now)
            hint = game.hint if game is not None and game.id == view.id else None
            if hint is not None and hint.move_no == len(fresh.moves):  # a resume keeps it
                fresh = with_hint(fresh, hint)
            return fresh
        case msg.Event(room=room, seq=seq, event=event) if game is not None and game.id == room:
            if seq <= game.seq:
                return game  # already applied (a resume may repeat what the snapshot had)
            after = apply_event(
                game, event, now, move_limit_ms=move_limit_ms, first_stone_ms=first_stone_ms
            )
            return _sent_answered(dataclasses.replace(after, seq=seq))
        case MoveSent(room=room, point=point, move_no=move_no, request=request) if _shows(
            game, room
        ):
            assert game is not None
            return dataclasses.replace(game, sending=Sending(point, move_no, request))
        case msg.Error(re=re) if game is not None and game.sending and game.sending.request == re:
            return dataclasses.replace(game, sending=None)  # refused
        case ResumeDone(room=room) if game is not None and game.sending and game.id == room:
            # Caught up after a reconnect: a stone not played by now was lost on the way.
            return dataclasses.replace(game, sending=None)
        case msg.Suggestion(room=room, point=point, reason=reason, move_no=move_no) if (
            game is not None and game.id == room and move_no == len(game.moves)
        ):
            try:
                hinted = point_from_wire(point, game.size)
            except NotationError:
                return game
            return with_hint(game, HintView(hinted, reason, move_no))
        case msg.Left(room=room) | RoomClosed(room=room) | RoomGone(room=room) if _shows(
            game, room
        ):
            return None
        case IdentityLost():
            return None
    return game


def _sent_answered(game: GameView) -> GameView:
    """``game`` without its stone on the way once the board has that many stones (ours
    or not: a stone from elsewhere makes ours stale) or the game is over."""
    sending = game.sending
    if sending is not None and (len(game.moves) >= sending.move_no or game.state == "over"):
        return dataclasses.replace(game, sending=None)
    return game


def _sits_in(game: GameView, me: str | None) -> bool:
    """Whether ``me`` sits in ``game`` and its game is not over."""
    return game.color_of(me) is not None and game.state != "over"


def _with(rooms: tuple[str, ...], room: str, sitting: bool) -> tuple[str, ...]:
    if sitting and room not in rooms:
        return (*rooms, room)
    if not sitting and room in rooms:
        return tuple(r for r in rooms if r != room)
    return rooms


def reduce_seated_rooms(
    rooms: tuple[str, ...],
    action: object,
    *,
    me: str | None,
    before: GameView | None,
    after: GameView | None,
    now: float,
) -> tuple[str, ...]:
    """The rooms the player sits in (their games not over) after ``action``; ``before``
    and ``after`` are the room on screen before and after it, ``me`` the player."""
    match action:
        case msg.Welcome(rooms=listed):
            return tuple(listed)
        case msg.Snapshot() if after is not None:
            return _with(rooms, after.id, _sits_in(after, me))
        case msg.Event(room=room) if after is not None and after is not before:
            return _with(rooms, room, _sits_in(after, me))
        case msg.Event(room=room, event=ev.GameOver()) if not _shows(before, room):
            return _with(rooms, room, False)  # a game of ours ended while away
        case msg.Left(room=room) | RoomClosed(room=room) if before is not None and _shows(
            before, room
        ):
            return rooms if before.running else _with(rooms, room, False)
        case RoomSeen(view=view):
            return _with(rooms, view.id, _sits_in(game_from_view(view, now), me))
        case RoomGone(room=room):
            return _with(rooms, room, False)
        case msg.LobbyGone(room=room) if not _shows(before, room):
            # Off the lobby's list: a public game ended (or its room emptied) out of sight.
            return _with(rooms, room, False)
        case IdentityLost():
            return ()
    return rooms


def reduce_catch_up(
    catch_up: CatchUp | None, action: object, shown: GameView | None
) -> CatchUp | None:
    """The resume in progress after ``action``; ``shown`` is the room on screen."""
    match action:
        case ResumeStarted(room=room):
            moves = len(shown.moves) if shown is not None and shown.id == room else 0
            return CatchUp(room, moves)
        case ResumeDone(room=room) | RoomGone(room=room) if (
            catch_up is not None and catch_up.room == room
        ):
            return None
        case IdentityLost():
            return None
    return catch_up
