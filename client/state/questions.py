"""Questions the screens ask of the state before they send a request: can a stone be
placed now, a hint asked for, an AI seated? Each answer is None (yes) or the reason
why not, in words the player reads."""

from __future__ import annotations

from typing import TYPE_CHECKING

from client.state.words import NO_AI_RATED, NO_HINT_RATED

if TYPE_CHECKING:
    from client.state.model import ViewModel


def _local(model: ViewModel, players: frozenset[str] | None) -> frozenset[str]:
    """The local identities (two in hot seat); default: this connection's player."""
    if players is not None:
        return players
    me = model.session.me
    return frozenset({me} if me else ())


NOT_YOUR_TURN = "Not your turn."
""":func:`can_move`'s answer while the opponent is to act (a move typed then is kept
to be played on one's turn: a premove)."""


def can_move(model: ViewModel, players: frozenset[str] | None = None) -> str | None:
    """Why a stone cannot be placed now, or None if it can. ``players`` are the
    local identities (two in hot seat; default: this connection's player)."""
    local = _local(model, players)
    game = model.room
    if game is None:
        return "You are not in a game."
    if not model.session.link.online:
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
        return NOT_YOUR_TURN
    return None


NO_HINT_SWAP2 = "No hints in the swap2 opening: it is placed to be balanced."


def can_hint(model: ViewModel) -> str | None:
    """Why an AI hint cannot be asked for now, or None if it can (players and
    spectators of an unrated game, while a stone is expected)."""
    game = model.room
    if game is None:
        return "You are not in a game."
    if not model.session.link.online:
        return "Offline: hints need the server."
    if game.rated:
        return NO_HINT_RATED
    if not game.running:
        return "Hints are for a game in progress."
    if game.swap2 is not None:  # (the hint is the strongest stone: the wrong advice
        return NO_HINT_SWAP2  # for an opening that should leave the choice balanced)
    return None


def can_seat_ai(model: ViewModel, players: frozenset[str] | None = None) -> str | None:
    """Why an AI cannot be seated in the room now, or None if it can: the room is
    waiting, unrated, one of ``players`` (default: this connection's) sits in it and
    the other seat is free."""
    local = _local(model, players)
    game = model.room
    if game is None:
        return "You are not in a game."
    if not model.session.link.online:
        return "Offline: an AI needs the server."
    if not any(game.color_of(p) is not None for p in local):
        return "Only a player sitting in this room can ask for an AI."
    if game.state != "waiting" or (game.black is not None and game.white is not None):
        return "Both seats are taken."
    if game.rated:
        return NO_AI_RATED
    return None
