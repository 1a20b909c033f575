"""The client's state: one view model, one slice per concern, and the reducer that
composes the concerns' reducers.

``reduce(model, action, now)`` takes the current :class:`ViewModel`, one action (a
server message from :mod:`protocol.messages`, or a local action that the connection
and the screens dispatch) and the local monotonic time, and returns the next model.
Each slice has its own reducer in its own module, which reads the action (and, where
it must, what the other slices hold) and returns its slice:

=================  ============================================  ================================
slice              what it holds                                 reducer
=================  ============================================  ================================
``session``        player id, name, token, the link              :mod:`client.state.session`
``lobby``          rooms listed, the queue, the lobby's notice    :mod:`client.state.lobby`
``room``           the room on screen (:mod:`.game`)             :func:`.room.reduce_room`
``seated_rooms``   the rooms the player sits in                  :func:`.room.reduce_seated_rooms`
``catch_up``       a resume in progress                          :func:`.room.reduce_catch_up`
``log``            the room's events and chat, in words          :mod:`client.state.log`
``history``        ratings, profiles, finished games             :mod:`client.state.history`
=================  ============================================  ================================

It does no I/O and imports no UI, so every rule of what the player sees is testable
without a terminal; the screens draw the model and never change it.
"""

from __future__ import annotations

import dataclasses

from client.state.game import GameView
from client.state.history import HistoryAction, HistoryView, reduce_history
from client.state.lobby import LobbyAction, LobbyView, reduce_lobby
from client.state.log import LogLine, Note, reduce_log
from client.state.room import (
    CatchUp,
    MoveSent,
    ResumeDone,
    ResumeStarted,
    RoomClosed,
    RoomGone,
    RoomSeen,
    reduce_catch_up,
    reduce_room,
    reduce_seated_rooms,
)
from client.state.session import ConnectionChanged, IdentityLost, Session, reduce_session
from engine.types import Color
from protocol import events as ev
from protocol import messages as msg

LocalAction = (
    ConnectionChanged
    | IdentityLost
    | MoveSent
    | ResumeStarted
    | ResumeDone
    | RoomClosed
    | RoomGone
    | RoomSeen
    | Note
)
Action = msg.ServerMessage | LocalAction | HistoryAction | LobbyAction


@dataclasses.dataclass(frozen=True, slots=True)
class ViewModel:
    """Everything the screens draw."""

    session: Session = dataclasses.field(default_factory=Session)
    lobby: LobbyView = dataclasses.field(default_factory=LobbyView)
    room: GameView | None = None
    seated_rooms: tuple[str, ...] = ()
    catch_up: CatchUp | None = None
    log: tuple[LogLine, ...] = ()
    history: HistoryView = dataclasses.field(default_factory=HistoryView)

    @property
    def me(self) -> str | None:
        """This player's id (None until the server has welcomed them)."""
        return self.session.me

    @property
    def my_color(self) -> Color | None:
        return self.room.color_of(self.me) if self.room is not None else None


def ended_out_of_sight(
    before: tuple[str, ...], after: tuple[str, ...], action: Action, shown: str | None
) -> tuple[str, ...]:
    """The player's games that ``action`` showed over while another screen was up: its
    ``game_over``, or the room leaving the lobby's list (the game ended or its room
    emptied); not a room the player left, or one on screen."""
    match action:
        case msg.Event(room=room, event=ev.GameOver()) | msg.LobbyGone(room=room):
            if room != shown and room in before and room not in after:
                return (room,)
    return ()


def reduce(model: ViewModel, action: Action, now: float) -> ViewModel:
    """The model after ``action`` at local monotonic time ``now`` (seconds)."""
    session = reduce_session(model.session, action)
    room = reduce_room(
        model.room,
        action,
        now,
        move_limit_ms=session.move_limit_ms,
        first_stone_ms=session.first_stone_ms,
    )
    shown = model.room.id if model.room is not None else None
    seated = reduce_seated_rooms(
        model.seated_rooms, action, me=session.me, before=model.room, after=room, now=now
    )
    after = ViewModel(
        session=session,
        lobby=reduce_lobby(
            model.lobby,
            action,
            now,
            shown,
            seated_changed=seated != model.seated_rooms,
            ended=ended_out_of_sight(model.seated_rooms, seated, action, shown),
            me=session.me,
        ),
        room=room,
        seated_rooms=seated,
        catch_up=reduce_catch_up(model.catch_up, action, model.room),
        history=reduce_history(model.history, action, model.session.me),
    )
    return dataclasses.replace(after, log=reduce_log(model.log, action, model, after))
