"""Muting a player's chat on this client: their lines are hidden from the room's log
here, the ones already said included, until they are unmuted or the client stops. The
muted player is not told, and everything else they do (stones, offers, coming and
going) still shows: only what they say is hidden.

The server has no mute: it is each reader's own choice, as lichess's is. Names are not
unique, so a player is muted by id; a name typed after ``/mute`` names every player who
goes by it here (a troll who took the opponent's name is muted with them, and the note
says so).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from client.state.game import GameView
from client.state.log import LogLine

Muted = Mapping[str, str]
"""Muted players: their id -> the name they went by when muted."""


def speakers(log: Iterable[LogLine], game: GameView | None, me: Iterable[str]) -> dict[str, str]:
    """Who may be muted here, id -> name: the players seated and those who spoke in
    ``log`` (the name they last used), not the players of this client (``me``)."""
    found: dict[str, str] = {}
    if game is not None:
        for seat in (game.black, game.white):
            if seat is not None:
                found[seat.id] = seat.name
    for line in log:
        if line.player is not None:
            found[line.player] = line.name
    for player in me:
        found.pop(player, None)
    return found


def named(name: str, candidates: Mapping[str, str]) -> dict[str, str]:
    """The players of ``candidates`` who go by ``name`` (letter case and outer spaces
    aside), id -> name."""
    wanted = name.strip().casefold()
    return {player: said for player, said in candidates.items() if said.casefold() == wanted}


def visible(log: tuple[LogLine, ...], muted: Muted) -> tuple[LogLine, ...]:
    """``log`` without the chat lines of ``muted`` players (``log`` itself when none
    of its lines is theirs, so that a pane drawing it again can tell nothing changed)."""
    if not muted or not any(line.player in muted for line in log):
        return log
    return tuple(line for line in log if line.player not in muted)


def listed(muted: Muted) -> str:
    """The muted players as a note says them: ``troll7, ann``."""
    return ", ".join(sorted(muted.values(), key=str.casefold))
