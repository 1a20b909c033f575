"""The opening phase: who places the first stones and who ends up with which colour.

Players are numbered by seat, not colour: player 0 is the room's first player,
player 1 the second. Stones always go on the board in the usual order (Black,
White, Black...); the opening only says which *player* places each one and
which colour each player holds afterwards.

* ``free``: player 0 is Black; the game starts at once.
* ``swap2``: player 0 places three stones (B, W, B); player 1 then takes Black,
  takes White, or places two more (W, B) and lets player 0 take a colour.

The rules are tables, not branches: :data:`TRANSITIONS` maps (phase, action) to
the next phase, :data:`ACTOR` says who acts in a phase, and
:data:`STONES_TO_END` how many stones end a placing phase. :class:`OpeningState`
is an immutable value with :meth:`~OpeningState.to_dict` /
:meth:`~OpeningState.from_dict`, so a server can store it as plain data.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any

from engine.types import Color, Opening


class OpeningError(ValueError):
    """An opening action that is not allowed now: the wrong player, or an
    action the current phase does not take."""


class Phase(enum.StrEnum):
    PLACE3 = "place3"  # player 0 places B, W, B
    CHOOSE_AFTER_3 = "choose-after-3"  # player 1: black, white or place2
    PLACE2 = "place2"  # player 1 places W, B
    CHOOSE_AFTER_5 = "choose-after-5"  # player 0: black or white
    DONE = "done"  # colours are fixed; the game proper goes on

    def __repr__(self) -> str:
        return f"Phase.{self.name}"


class Action(enum.StrEnum):
    PLACE = "place"  # put the next stone on the board
    BLACK = "black"  # take Black
    WHITE = "white"  # take White
    PLACE2 = "place2"  # (swap2) place two more stones and let the other player choose

    def __repr__(self) -> str:
        return f"Action.{self.name}"


#: (phase, action) -> the phase after it. A PLACE moves on only once the board
#: holds STONES_TO_END[phase] stones; before that the phase stays.
TRANSITIONS: dict[tuple[Phase, Action], Phase] = {
    (Phase.PLACE3, Action.PLACE): Phase.CHOOSE_AFTER_3,
    (Phase.CHOOSE_AFTER_3, Action.BLACK): Phase.DONE,
    (Phase.CHOOSE_AFTER_3, Action.WHITE): Phase.DONE,
    (Phase.CHOOSE_AFTER_3, Action.PLACE2): Phase.PLACE2,
    (Phase.PLACE2, Action.PLACE): Phase.CHOOSE_AFTER_5,
    (Phase.CHOOSE_AFTER_5, Action.BLACK): Phase.DONE,
    (Phase.CHOOSE_AFTER_5, Action.WHITE): Phase.DONE,
}

#: Who acts in each opening phase (DONE has no actor: colours decide).
ACTOR: dict[Phase, int] = {
    Phase.PLACE3: 0,
    Phase.CHOOSE_AFTER_3: 1,
    Phase.PLACE2: 1,
    Phase.CHOOSE_AFTER_5: 0,
}

#: The number of stones on the board that ends a placing phase.
STONES_TO_END: dict[Phase, int] = {Phase.PLACE3: 3, Phase.PLACE2: 5}

#: The phase each opening rule starts in, and who is Black if it starts done.
START: dict[Opening, Phase] = {Opening.FREE: Phase.DONE, Opening.SWAP2: Phase.PLACE3}

_CHOICES = {Action.BLACK: Color.BLACK, Action.WHITE: Color.WHITE}

# The stone counts each (opening, phase) can hold; from_dict rejects the rest.
_REACHABLE: dict[tuple[Opening, Phase], frozenset[int]] = {
    (Opening.FREE, Phase.DONE): frozenset({0}),
    (Opening.SWAP2, Phase.PLACE3): frozenset({0, 1, 2}),
    (Opening.SWAP2, Phase.CHOOSE_AFTER_3): frozenset({3}),
    (Opening.SWAP2, Phase.PLACE2): frozenset({3, 4}),
    (Opening.SWAP2, Phase.CHOOSE_AFTER_5): frozenset({5}),
    (Opening.SWAP2, Phase.DONE): frozenset({3, 5}),
}


@dataclasses.dataclass(frozen=True, slots=True)
class OpeningState:
    """Where an opening stands.

    ``stones`` counts the stones placed so far (it matches the board's move
    count while the opening runs); ``black`` is the player (0 or 1) who holds
    Black once that is decided, else None. Methods return new states.
    """

    opening: Opening = Opening.FREE
    phase: Phase = Phase.DONE
    stones: int = 0
    black: int | None = 0

    @classmethod
    def start(cls, opening: Opening = Opening.FREE) -> OpeningState:
        """The state before the first stone."""
        opening = Opening(opening)
        phase = START[opening]
        return cls(opening, phase, 0, 0 if phase is Phase.DONE else None)

    # -- reading -------------------------------------------------------------

    @property
    def done(self) -> bool:
        return self.phase is Phase.DONE

    @property
    def actor(self) -> int | None:
        """The player whose placement or decision it is during the opening;
        None once it is done (then :meth:`to_move` says who moves)."""
        return ACTOR.get(self.phase)

    def allowed(self) -> frozenset[Action]:
        """The actions the current phase takes (from the table)."""
        return frozenset(action for phase, action in TRANSITIONS if phase is self.phase)

    def color_of(self, player: int) -> Color | None:
        """The colour ``player`` holds, or None while that is undecided."""
        _check_player(player)
        if self.black is None:
            return None
        return Color.BLACK if player == self.black else Color.WHITE

    def player_of(self, color: Color) -> int | None:
        """The player holding ``color``, or None while that is undecided."""
        if self.black is None:
            return None
        return self.black if color is Color.BLACK else 1 - self.black

    def to_move(self, turn: Color) -> int:
        """The player who places the next stone when ``turn`` (the board's side
        to move) is to be played: the placer during the opening, the holder of
        that colour after it. Raises OpeningError while a choice is awaited."""
        if self.phase is Phase.DONE:
            player = self.player_of(turn)
            assert player is not None  # DONE always has colours
            return player
        if Action.PLACE not in self.allowed():
            raise OpeningError(
                f"no stone can be placed now: player {self.actor} must choose "
                f"({', '.join(sorted(a.value for a in self.allowed()))})"
            )
        return ACTOR[self.phase]

    # -- acting --------------------------------------------------------------

    def apply(self, player: int, action: Action | str) -> OpeningState:
        """The state after ``player`` takes ``action``. Raises OpeningError for
        the wrong player or an action this phase does not take.

        A PLACE records a stone the caller plays on the board (any colour; the
        board alternates them) and is allowed only in a placing phase.
        """
        _check_player(player)
        action = _action(action)
        if self.phase is Phase.DONE:
            raise OpeningError(
                f"the {self.opening} opening is over; {action} is not an opening action"
            )
        actor = ACTOR[self.phase]
        if player != actor:
            raise OpeningError(f"it is player {actor}'s turn in the opening, not player {player}'s")
        next_phase = TRANSITIONS.get((self.phase, action))
        if next_phase is None:
            allowed = ", ".join(sorted(a.value for a in self.allowed()))
            raise OpeningError(
                f"{action} is not allowed in phase {self.phase} (allowed: {allowed})"
            )
        stones = self.stones
        if action is Action.PLACE:
            stones += 1
            if stones < STONES_TO_END[self.phase]:
                next_phase = self.phase
        black = self.black
        if action in _CHOICES:
            black = player if _CHOICES[action] is Color.BLACK else 1 - player
        return dataclasses.replace(self, phase=next_phase, stones=stones, black=black)

    def place(self, player: int) -> OpeningState:
        """Record that ``player`` placed the next stone."""
        return self.apply(player, Action.PLACE)

    def choose(self, player: int, choice: Action | str) -> OpeningState:
        """Record ``player``'s choice: ``"black"``, ``"white"`` or ``"place2"``."""
        action = _action(choice)
        if action is Action.PLACE:
            raise OpeningError("placing a stone is not a choice")
        return self.apply(player, action)

    # -- plain data ----------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "opening": self.opening.value,
            "phase": self.phase.value,
            "stones": self.stones,
            "black": self.black,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> OpeningState:
        """The inverse of :meth:`to_dict`; raises OpeningError for data no
        opening can reach."""
        try:
            opening = Opening(data["opening"])
            phase = Phase(data["phase"])
        except (KeyError, ValueError, TypeError) as exc:
            raise OpeningError(f"not an opening state: {exc}") from None
        stones, black = data.get("stones"), data.get("black")
        reachable = _REACHABLE.get((opening, phase))
        if reachable is None:
            raise OpeningError(f"the {opening} opening has no phase {phase}")
        if type(stones) is not int or stones not in reachable:
            raise OpeningError(f"{stones!r} stones cannot stand in phase {phase} of {opening}")
        if black is not None and (type(black) is not int or black not in (0, 1)):
            raise OpeningError(f"black must be 0, 1 or null, not {black!r}")
        if (black is None) != (phase is not Phase.DONE):
            raise OpeningError(f"black is {black!r} in phase {phase}")
        if opening is Opening.FREE and black != 0:
            raise OpeningError("in the free opening player 0 is Black")
        return cls(opening, phase, stones, black)


def takeback_count(stones: int, opening_stones: int, color: Color) -> int:
    """How many stones a takeback by the player of ``color`` removes from a game of
    ``stones`` stones: back to their own last stone, at most two stones back, never
    into the first ``opening_stones`` (those the opening placed); 0 if it cannot."""
    for count in (1, 2):
        index = stones - count
        if index < opening_stones:
            return 0
        if (Color.BLACK if index % 2 == 0 else Color.WHITE) is color:
            return count
    return 0


def _check_player(player: int) -> None:
    if type(player) is not int or player not in (0, 1):
        raise OpeningError(f"player must be 0 or 1, not {player!r}")


def _action(value: Action | str) -> Action:
    try:
        return Action(value)
    except ValueError:
        choices = ", ".join(a.value for a in Action)
        raise OpeningError(f"{value!r} is not an opening action ({choices})") from None
