"""The room core's state table and :func:`apply`: (room state, action key) -> the
handler that applies it; a pair that is not in the table is refused with
``wrong_phase`` (or ``game_over`` once the game has ended), so what each state accepts
is readable in one place."""

from __future__ import annotations

from collections.abc import Callable

from protocol.errors import ErrorCode
from server import lag
from server.game.actions import (
    Choose,
    GameAction,
    GameError,
    GameRules,
    Join,
    Leave,
    Move,
    Outcome,
    Tick,
)
from server.game.play import answer, choose, flag, move, offer, resign
from server.game.presence import claim, tick
from server.game.seats import join, leave
from server.room import LIVE_STATES, Room, copy_room

Handler = Callable[[Room, GameAction, int, GameRules], Outcome]

_ALL = ("waiting", "opening", "playing", "over")
_LIVE = ("opening", "playing")

HANDLERS: dict[tuple[str, str], Handler] = {
    **{(state, "join"): join for state in _ALL},
    **{(state, "leave"): leave for state in _ALL},
    **{(state, "tick"): tick for state in _ALL},
    **{(state, "move"): move for state in _LIVE},
    ("opening", "choose"): choose,
    **{(state, "resign"): resign for state in _LIVE},
    **{(state, "claim"): claim for state in _LIVE},
    ("playing", "offer:draw"): offer,
    ("playing", "answer:draw"): answer,
    ("playing", "offer:takeback"): offer,
    ("playing", "answer:takeback"): answer,
    ("over", "offer:rematch"): offer,
    ("over", "answer:rematch"): answer,
}
"""(room state, action key) -> handler. Anything else is refused."""


def apply(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    """Apply ``action`` to a copy of ``room`` at time ``now_ms``.

    Raises GameError for an action the room refuses (nothing changes). If the
    running clock has already run out, the outcome is the loss on time, with
    the action's refusal in ``Outcome.error`` (the caller commits, then reports).
    """
    return apply_to_copy(copy_room(room), action, now_ms, rules)


def apply_to_copy(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    """:func:`apply` on a room the caller already copied (:func:`server.room.copy_room`)
    and gives up: the outcome's room is ``room`` itself, changed."""
    if isinstance(action, (Move, Choose)):
        _note_lag(room, action)
    flagged = flag(room, now_ms) if room.state in LIVE_STATES else None
    if flagged is not None:
        error = None
        if not isinstance(action, Tick):
            error = GameError(ErrorCode.GAME_OVER, "the game ended: a clock ran out")
        out = Outcome(room, [flagged], error=error)
        if isinstance(action, (Tick, Leave, Join)):  # these suit a game over too
            try:
                out.events.extend(_dispatch(room, action, now_ms, rules).events)
                out.error = None
            except GameError as exc:
                out.error = exc  # the flag still falls; only the action is refused
        return out
    return _dispatch(room, action, now_ms, rules)


def _note_lag(room: Room, action: Move | Choose) -> None:
    """The link's round trip a stone or choice brings, kept on the seat of the player
    to act: their flag's grace and their stone's compensation follow it
    (:mod:`server.lag`). Another's action leaves every seat as it was."""
    actor = room.actor()
    seat = None if actor is None else room.seats[actor]
    if seat is not None and seat.id == action.player:
        lag.note_lag(seat, action.lag_ms)


def _dispatch(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    handler = HANDLERS.get((room.state, action.key))
    if handler is None:
        # Blame first: an action of someone not seated here is refused as theirs,
        # whatever the room's state would have said to a player.
        player = getattr(action, "player", None)
        if isinstance(player, str) and room.seat_of(player) is None:
            raise GameError(ErrorCode.NOT_IN_ROOM, "you are not seated in this room")
        if room.state == "over":
            raise GameError(ErrorCode.GAME_OVER, "the game is over")
        if action.key.startswith("answer:"):
            raise GameError(ErrorCode.NO_OFFER, "there is no such offer to answer")
        doing = _DOING.get(action.key, action.key)
        raise GameError(
            ErrorCode.WRONG_PHASE, f"you cannot {doing} now: {_WHILE.get(room.state, room.state)}"
        )
    return handler(room, action, now_ms, rules)


_DOING = {
    "move": "place a stone",
    "choose": "make a swap2 choice",
    "resign": "resign",
    "claim": "claim the win",
    "offer:draw": "offer a draw",
    "offer:takeback": "ask for a takeback",
    "offer:rematch": "offer a rematch",
}
_WHILE = {
    "waiting": "the game has not begun (the room waits for its second player)",
    "opening": "the swap2 opening is under way",
    "playing": "the game is under way",
}
"""How a refused action and the room's state are said: "not possible while the room is
waiting" named the wire's state, to a bot author who had sent a resign."""
