"""Room events: what happened in a room, in order.

A room's event log is exactly the sequence of these, numbered 1, 2, 3... with
no gaps; each reaches clients wrapped in an ``event`` message that carries the
room id and the sequence number (:class:`protocol.messages.Event`). Everyone
watching the room (players and spectators) receives every event.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from engine.types import Reason
from protocol.values import (
    ChatText,
    Clocks,
    ColorName,
    Count,
    InviteCode,
    MoveList,
    Name,
    OfferKind,
    PlayerId,
    RatingChange,
    RoomId,
    Swap2Phase,
    SwapChoice,
    TimeControl,
    WirePoint,
)

__all__ = [
    "Answered",
    "ChatPosted",
    "Chose",
    "GameOver",
    "GameStarted",
    "Moved",
    "Offered",
    "OpeningPhase",
    "PlayerJoined",
    "PlayerLeft",
    "Presence",
    "RatingChange",
    "Rematch",
    "RoomEvent",
    "SpectatorCount",
    "Undone",
]


class _RoomEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of the room events: a map tagged by ``type``."""


class PlayerJoined(_RoomEvent, frozen=True, tag="player_joined"):
    """A player sat down in ``seat``."""

    seat: ColorName
    player: PlayerId
    name: Name
    rating: int | None = None
    provisional: bool = False
    bot: bool = False


class PlayerLeft(_RoomEvent, frozen=True, tag="player_left"):
    """A player left their seat (only before the game starts or after it ends; leaving a
    running game is a disconnect, see ``presence``)."""

    seat: ColorName
    player: PlayerId


class SpectatorCount(_RoomEvent, frozen=True, tag="spectator_count"):
    """The number of spectators changed."""

    count: Count


class GameStarted(_RoomEvent, frozen=True, tag="game_started"):
    """Both seats are filled and the game (or its swap2 opening) begins; the clocks
    start with Black's first move."""

    black: PlayerId
    white: PlayerId
    time: TimeControl | None


class Moved(_RoomEvent, frozen=True, tag="moved"):
    """A stone was placed. ``move_no`` counts from 1 over all stones, swap2 included;
    ``clocks`` are the remaining times after the mover's increment."""

    point: WirePoint
    color: ColorName
    move_no: Annotated[int, msgspec.Meta(ge=1)]
    clocks: Clocks | None


class OpeningPhase(_RoomEvent, frozen=True, tag="opening"):
    """The swap2 opening moved to ``phase``; ``to_act`` must place stones or choose."""

    phase: Swap2Phase
    to_act: PlayerId
    choices: Annotated[list[SwapChoice], msgspec.Meta(max_length=3)] = []


class Chose(_RoomEvent, frozen=True, tag="chose"):
    """A swap2 choice was made. When it settles the colours, ``black`` and ``white``
    name the players (otherwise null: ``place2`` continues the opening). ``clocks``
    (timed games) are the remaining times after the choice, by the colours as they stand
    after it: a player who takes the other colour takes their own time with them."""

    player: PlayerId
    choice: SwapChoice
    black: PlayerId | None = None
    white: PlayerId | None = None
    clocks: Clocks | None = None


class Offered(_RoomEvent, frozen=True, tag="offered"):
    """``by`` offers a draw, a takeback or a rematch; the other player may ``answer``."""

    kind: OfferKind
    by: PlayerId


class Answered(_RoomEvent, frozen=True, tag="answered"):
    """``by`` accepted or declined the pending offer."""

    kind: OfferKind
    by: PlayerId
    accept: bool


class Undone(_RoomEvent, frozen=True, tag="undone"):
    """A takeback was accepted: ``points`` were removed, last-played first."""

    points: MoveList
    clocks: Clocks | None


class GameOver(_RoomEvent, frozen=True, tag="game_over"):
    """The game ended. ``winner`` null is a draw; ``line`` is the winning row when won on
    the board. ``ratings`` (Black's first) is what a rated game that counted did to both
    players' ratings; the update is in the store before this event is logged, so a
    ``get_profile`` sent after it already shows the new rating. Null when the game was
    not rated or did not count, or (``ratings_pending``) could not be written yet.
    ``clocks`` (timed games) are the times left when it ended: the player to move was
    charged up to the end (a resignation, a draw agreed, a claim), and a fallen flag
    shows 0."""

    winner: ColorName | None
    reason: Reason
    line: MoveList | None = None
    ratings: Annotated[list[RatingChange], msgspec.Meta(max_length=2)] | None = None
    clocks: Clocks | None = None
    ratings_pending: bool = False
    """A rated game that counts, whose ratings the server could not write when it ended
    (a full disk): ``ratings`` is null, and the profiles show the new ratings once the
    server can write them."""


class Presence(_RoomEvent, frozen=True, tag="presence"):
    """A seated player went offline or came back. While offline, ``deadline_ms`` is the
    time (from when this was sent) after which the opponent may ``claim`` the win."""

    player: PlayerId
    online: bool
    deadline_ms: Annotated[int, msgspec.Meta(ge=0)] | None = None


class ChatPosted(_RoomEvent, frozen=True, tag="chat"):
    """A chat line from a player or spectator."""

    player: PlayerId
    name: Name
    text: ChatText


class Rematch(_RoomEvent, frozen=True, tag="rematch"):
    """A rematch was agreed; it is played in ``room`` with colours swapped. ``code`` is
    that room's invite code when the game was private: a private room is watched by its
    code, and the game's spectators are to be able to watch the next one."""

    room: RoomId
    code: InviteCode | None = None


RoomEvent = (
    PlayerJoined
    | PlayerLeft
    | SpectatorCount
    | GameStarted
    | Moved
    | OpeningPhase
    | Chose
    | Offered
    | Answered
    | Undone
    | GameOver
    | Presence
    | ChatPosted
    | Rematch
)
"""Any room event, discriminated by ``type``."""
