"""What the room core speaks: the actions a room takes, what applying one gives
(:class:`Outcome`), the refusal (:class:`GameError`, with the wire error code) and the
rules' policy knobs (:class:`GameRules`)."""

from __future__ import annotations

import dataclasses
from typing import ClassVar, Literal

import msgspec

from protocol.errors import ErrorCode
from protocol.events import RoomEvent
from protocol.limits import FIRST_STONE_MS, UNTIMED_MOVE_MS
from protocol.values import SwapChoice
from server.room import Room, Seat
from server.store.base import Attendance

OfferKind = Literal["draw", "takeback", "rematch"]
SeatWish = Literal["black", "white", "any"]
"""Which seat a player asks for (``any``: the first free one)."""


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
    first_stone_ms: int = FIRST_STONE_MS
    """In a timed game, the time Black (the opener, in swap2) has for the first stone
    after the start (the clock runs only from that stone on): without it the game is
    aborted (``abandon``, no winner: unrated), as lichess aborts a game nobody begins. A
    game nobody began stayed "playing" for good."""
    untimed_move_ms: int = UNTIMED_MOVE_MS
    """In a game without a clock, how long the player to act may go without a stone or
    a choice before the opponent may claim the win (``timeout``), connected or not: an
    opponent who never moved held the game, and a rated one, for good (leaving it lost).
    0: no limit."""
    draw_reoffer_moves: int = 4
    """After a declined draw offer, stones to be played before its maker may offer again
    (4: two moves of each player)."""
    spectator_count_every_ms: int = 500
    """``spectator_count`` goes out at most this often: the first change at once, the
    changes after it together at the end of the interval (a crowd arriving at a popular
    game would otherwise cost one event to every watcher per arrival)."""
    attach_wait_ms: int = 10_000
    """How long a seat taken for a player shows online without a connection of theirs
    attached to the room (a quick match or rematch of a player whose connections are
    gone, a seated AI whose worker never comes): after it they count as gone."""
    offline_after_ms: int = 3_000
    """How long a seated player's last connection may be gone before they are announced
    offline: a page reloaded, a name changed (the page connects again) or a network
    that dropped for a moment is no news to the opponent, who saw "offline" and "back"
    within a second. The grace period still counts from when they left; a grace
    period shorter than this is the wait instead. An AI seat is announced at once (its
    worker's death is found by the room's presence)."""


@dataclasses.dataclass(frozen=True)
class Join:
    """Take a seat (watching a room is no action: spectators are attached connections)."""

    player: Seat
    seat: SeatWish = "any"
    key = "join"


@dataclasses.dataclass(frozen=True)
class Leave:
    player: str
    key = "leave"


class Move(msgspec.Struct, frozen=True):
    """A stone (a Struct, not a dataclass like the other actions: one is made at every
    stone, and a frozen dataclass's ``__init__`` sets each field through Python)."""

    player: str
    point: str
    move_no: int | None = None
    """The number the stone was meant to take (None: whatever is next)."""
    lag_ms: int = 0
    """The round trip of the sender's link (:mod:`server.lag`)."""
    key: ClassVar[str] = "move"


@dataclasses.dataclass(frozen=True)
class Choose:
    player: str
    choice: SwapChoice
    lag_ms: int = 0
    """The round trip of the sender's link (:mod:`server.lag`)."""
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
    rematch_code: str | None = None
    """The invite code it gets if the room is private (the caller reserves it)."""

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


class Outcome(msgspec.Struct):
    """What an action did: the new room (a modified copy), the events to append,
    a new room to create first (a rematch), and an error to report after
    committing (an action that arrived after its player's flag fell). (A Struct: one
    is made at every action.)"""

    room: Room
    events: list[RoomEvent] = msgspec.field(default_factory=list)
    spawn: Room | None = None
    spawn_events: list[RoomEvent] = msgspec.field(default_factory=list)
    error: GameError | None = None
    quiet_change: bool = False
    """The room changed without an event to show for it yet (a spectator arrived
    while the count's announcement is held back): it must still be committed."""

    @property
    def changed(self) -> bool:
        return bool(self.events) or self.spawn is not None or self.quiet_change
