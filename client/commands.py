"""What a line typed on the game screen means: a point to play (``h8``, ``H8``,
``h 8``), a ``/command``, or anything else, which is chat.

Pure, so the reading of a line is testable without a terminal; the game screen
(:mod:`client.screens.game`) acts on what it reads.
"""

from __future__ import annotations

import re
import unicodedata

from engine.errors import NotationError
from engine.types import Point
from protocol.convert import point_from_wire

CHAT_MAX = 300  # characters of one chat line sent (the server's limit)
POINT_TYPED = re.compile(r"([A-Za-z])\s*(\d{1,2})")
POINT_REVERSED = re.compile(r"(\d{1,2})\s*([A-Za-z])")
AZERTY_DIGITS = dict(zip("&é\"'(-è_çà", "1234567890", strict=True))
"""What the digit row of a French keyboard types without Shift: ``h_`` is h8 typed so."""
POINT_UNSHIFTED = re.compile(r"([A-Za-z])\s*([&é\"'(\-è_çà]{1,2})")

#: The text line's commands, as the help lists them.
COMMANDS: dict[str, str] = {
    "h8, H8, h 8": "play that point (watching: say it in the chat)",
    "anything else": "say it in the room's chat",
    "/draw": "offer a draw",
    "/takeback": "ask to take your last move back",
    "/resign": "resign the game",
    "/rematch": "offer a rematch (after the game)",
    "/review": "go over the finished game move by move, and export it",
    "/accept, /decline": "answer the opponent's offer",
    "/claim": "claim the win when the opponent is gone past the grace period",
    "/black, /white, /place2": "swap2: take a colour, or place two more stones",
    "/hint": "ask an AI for a move (unrated games)",
    "/ai [level]": "seat an AI in the empty seat (beginner ... master)",
    "/mute, /unmute name": "hide a player's chat here, or show it again",
    "/leave": "back to the lobby",
    "/help": "this help",
}


class NotOnBoard(ValueError):
    """A point was typed that this board does not have; the message says its bounds."""


class ReversedPoint(ValueError):
    """A point was typed row first (``8i``), or its row without Shift on a French
    keyboard (``h_``): not played, and not sent to the chat either (the slip would go out
    to the opponent as a chat line); the message says how to play it."""


def typed_point(text: str, size: int) -> Point | None:
    """The point ``text`` names on a ``size`` board, or None if it names no point (it
    is chat). Raises :class:`NotOnBoard` for a point beyond the board: it is refused
    with the reason, never played elsewhere; :class:`ReversedPoint` for a point of the
    board typed row first or with a French keyboard's unshifted digits. Full-width letters
    and digits (as a CJK keyboard types them) are read as the plain ones."""
    text = unicodedata.normalize("NFKC", text)
    if (unshifted := POINT_UNSHIFTED.fullmatch(text)) is not None:
        row = "".join(AZERTY_DIGITS[c] for c in unshifted[2])
        name = f"{unshifted[1].lower()}{int(row)}"
        if _on_board(name, size):
            raise ReversedPoint(f"{text} was not sent: to play {name}, type its row with Shift.")
        return None
    if (turned := POINT_REVERSED.fullmatch(text)) is not None:
        name = f"{turned[2].lower()}{int(turned[1])}"
        if _on_board(name, size):
            raise ReversedPoint(f"{text} was not sent: to play that point, type {name}.")
        return None
    if (typed := POINT_TYPED.fullmatch(text)) is None:
        return None
    name = f"{typed[1].lower()}{int(typed[2])}"
    try:
        return point_from_wire(name, size)
    except NotationError:
        last = chr(ord("a") + size - 1)
        raise NotOnBoard(
            f"{name} is not on this {size}x{size} board (columns a-{last}, rows 1-{size})."
        ) from None


def _on_board(name: str, size: int) -> bool:
    """Whether the point called ``name`` (``h8``) is on a ``size`` board."""
    try:
        point_from_wire(name, size)
    except NotationError:
        return False
    return True
