"""The room core, sans I/O: (room, action, now) -> new room + events, or a
:class:`GameError` with a stable error code.

Nothing here awaits or reads a clock: the caller passes ``now_ms``, loads the
room from the store and commits the outcome with a version check. Only game
actions come here: chat, spectators and connections coming and going are kept
apart from the versioned room (server.service), and reach it only as the
``attendance`` a :class:`Tick` or :class:`Claim` carries, which a seat's presence
follows. Dispatch is a table, :data:`HANDLERS` (:mod:`.table`), from (room state,
action key) to a handler; a pair that is not in the table is refused with
``wrong_phase`` (or ``game_over`` once the game has ended), so what each state
accepts is readable in one place.

The parts: :mod:`.actions` (what the core speaks), :mod:`.seats` (new rooms, seats,
the start of a game; :func:`seated_room`, the one place a room is made with its
players), :mod:`.play` (stones, choices, offers, clocks, the end of a game),
:mod:`.presence` (seats following the attached connections, claims, abandoned games)
and :mod:`.table`.
"""

from server.game.actions import (
    Answer,
    Choose,
    Claim,
    GameAction,
    GameError,
    GameRules,
    Join,
    Leave,
    Move,
    Offer,
    OfferKind,
    Outcome,
    Resign,
    SeatWish,
    Tick,
)
from server.game.seats import RoomSettings, new_room, seated_room
from server.game.table import HANDLERS, Handler, apply, apply_to_copy

__all__ = [
    "HANDLERS",
    "Answer",
    "Choose",
    "Claim",
    "GameAction",
    "GameError",
    "GameRules",
    "Handler",
    "Join",
    "Leave",
    "Move",
    "Offer",
    "OfferKind",
    "Outcome",
    "Resign",
    "RoomSettings",
    "SeatWish",
    "Tick",
    "apply",
    "apply_to_copy",
    "new_room",
    "seated_room",
]
