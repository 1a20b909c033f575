"""The lobby as the client holds it: the rooms the server lists, the quick-match
queue the player waits in, the answer to the lobby's latest request, and the settings
of the player's last game against an AI.

The list follows ``lobby`` (in parts, for a long one), ``lobby_room`` and
``lobby_gone``; the queue follows ``queued`` and ``unqueued``, and ends when a game
of the player's comes on screen or the server forgets the player.

Each request the lobby sends carries an id (:class:`LobbyAsked`); the error that
echoes it is the lobby's *notice* (``the room is full``) until it no longer applies:
the lobby's next request, a game coming on screen, or a change of the games the
player sits in (``you already have 5 open rooms`` is over once one ends) clears it.
A request sent from a dialog that shows its own answer (the invite code's) is said
there, not on the lobby's line. A refusal of anything else (a move, a chat line) is
never the lobby's to show. A game of the player's that ends out of sight (left with
^L, then lost on time or abandoned) is the notice too, until the same things clear it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import msgspec

from client.state.session import IdentityLost
from client.state.words import describe_error, ended_away_result, ended_away_text
from engine.types import Rule
from protocol import messages as msg
from protocol.errors import ErrorCode
from protocol.values import RoomSummary, TimeControl


@dataclasses.dataclass(frozen=True, slots=True)
class QueueView:
    """Waiting for a quick match since local time ``since``."""

    rule: Rule
    time: TimeControl | None
    since: float
    ai_after_ms: int | None = None


# --- local actions --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class LobbyAsked:
    """The lobby sent a request with the id ``request`` (the server echoes it as ``re``
    in its answer); what the lobby's previous request was told no longer applies.
    ``in_dialog``: sent from a dialog that shows the answer itself."""

    request: int
    in_dialog: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class LobbyUnsent:
    """The lobby's request ``request`` could not be sent (the link is down)."""

    request: int


@dataclasses.dataclass(frozen=True, slots=True)
class LobbyTold:
    """What the lobby's line says until the lobby's next request: why a room of the
    player's was given up (a game against an AI with no AI free)."""

    text: str


@dataclasses.dataclass(frozen=True, slots=True)
class AiChoice:
    """The settings the player chose for a game against an AI (``room``, the AI's
    ``level``): dispatched when they play one, kept so the dialog offers them again."""

    room: msg.CreateRoom
    level: str

    def to_json(self) -> dict[str, Any]:
        """As the identity file keeps it (:meth:`from_json` reads it back)."""
        return {"room": msgspec.to_builtins(self.room), "level": self.level}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AiChoice | None:
        """The choice kept by :meth:`to_json`, or None for anything else (a file written
        by another version, or by hand)."""
        level = data.get("level")
        try:
            room = msgspec.convert(data.get("room"), msg.CreateRoom)
        except msgspec.ValidationError:
            return None
        return cls(room, level) if isinstance(level, str) and level else None


LobbyAction = LobbyAsked | LobbyUnsent | LobbyTold | AiChoice

NOT_SENT = "Offline: not sent."


# --- the state ---------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class LobbyView:
    """The open rooms by id, the quick match waited for (None: not queued), the lobby's
    request waiting for its answer (``asked``, its id), why the latest one was refused
    (``notice``, '' when it was not; ``refusal``, its error code) and whether a dialog
    asked it (``in_dialog``), and the last AI game's settings."""

    rooms: Mapping[str, RoomSummary] = dataclasses.field(default_factory=dict)
    queue: QueueView | None = None
    asked: int | None = None
    notice: str = ""
    refusal: str = ""
    in_dialog: bool = False
    ai_choice: AiChoice | None = None

    @property
    def line_notice(self) -> str:
        """What the lobby's own line says of the latest request ('' nothing)."""
        return "" if self.in_dialog else self.notice


def _answer(lobby: LobbyView, action: object, shown: str | None) -> LobbyView:
    """The lobby's request in flight and its notice after ``action``."""
    match action:
        case LobbyAsked(request=request, in_dialog=in_dialog):
            return dataclasses.replace(
                lobby, asked=request, notice="", refusal="", in_dialog=in_dialog
            )
        case LobbyTold(text=text):
            return dataclasses.replace(lobby, notice=text, in_dialog=False)
        case LobbyUnsent(request=request) if request == lobby.asked:
            return dataclasses.replace(lobby, asked=None, notice=NOT_SENT)
        case msg.Error(re=re) as error if re is not None and re == lobby.asked:
            return dataclasses.replace(
                lobby, asked=None, notice=describe_error(error), refusal=error.code
            )
        case msg.Snapshot(room=view) if view.id != shown:
            # A game came on screen: whatever the lobby was told before is over.
            return dataclasses.replace(lobby, asked=None, notice="")
        case msg.Welcome() | IdentityLost():
            return dataclasses.replace(lobby, asked=None)  # nothing sent before is answered
    if lobby.asked is not None and getattr(action, "re", None) == lobby.asked:
        return dataclasses.replace(lobby, asked=None)  # answered (a snapshot, queued...)
    return lobby


def reduce_lobby(
    lobby: LobbyView,
    action: object,
    now: float,
    shown: str | None,
    *,
    seated_changed: bool = False,
    ended: tuple[str, ...] = (),
    me: str | None = None,
) -> LobbyView:
    """``lobby`` after ``action`` at local time ``now``; ``shown`` is the room on
    screen before it (a snapshot of another room ends the wait for a match);
    ``seated_changed``: the action changed the rooms the player sits in; ``ended``:
    the player's games it showed over, out of sight; ``me``: the player."""
    lobby = _answer(lobby, action, shown)
    if seated_changed and lobby.notice:
        lobby = dataclasses.replace(lobby, notice="")  # it was about the games as they were
    if ended:
        lobby = dataclasses.replace(lobby, notice=ended_away_text(ended[0]), in_dialog=False)
    match action:
        case msg.Games(items=items) if lobby.notice:
            # The list of games asked for when one ended out of sight says how, while the
            # line still tells of that end (and of nothing since).
            told = next((g for g in items if lobby.notice == ended_away_text(g.id)), None)
            if told is not None:
                return dataclasses.replace(lobby, notice=ended_away_result(told, me))
            return lobby
        case AiChoice() as choice:
            return dataclasses.replace(lobby, ai_choice=choice)
        case msg.Lobby(rooms=rooms, part=part):
            known = lobby.rooms if part else {}  # later parts of a long list add to it
            return dataclasses.replace(lobby, rooms={**known, **{r.id: r for r in rooms}})
        case msg.LobbyRoom(room=summary):
            return dataclasses.replace(lobby, rooms={**lobby.rooms, summary.id: summary})
        case msg.LobbyGone(room=room_id):
            left = {k: v for k, v in lobby.rooms.items() if k != room_id}
            return dataclasses.replace(lobby, rooms=left)
        case msg.Queued(rule=rule, time=time, since_ms=since_ms, ai_after_ms=ai_after_ms):
            # The server's count: asked again after a reconnection it starts afresh, as
            # does the wait for an AI (the count kept from before showed the AI late).
            since = now - (since_ms or 0) / 1000
            queue = lobby.queue
            if since_ms is None and queue is not None and (queue.rule, queue.time) == (rule, time):
                since = queue.since
            return dataclasses.replace(lobby, queue=QueueView(rule, time, since, ai_after_ms))
        case msg.Unqueued() | IdentityLost() | msg.Error(code=ErrorCode.NOT_QUEUED):
            return dataclasses.replace(lobby, queue=None)  # not_queued: the server forgot it
        case msg.Snapshot(room=view) if view.id != shown and lobby.queue is not None:
            return dataclasses.replace(lobby, queue=None)  # matched: the game is on screen
    return lobby
