"""The move list beside the board: numbered, scrollable, one marked move.

Moves are listed two to a line, Black's then White's, numbered by line as game
records are (``  3. j10  k11``). The marked move (the last one in play, the
current one in review) is drawn in parentheses, as the board marks the last
stone, and in reverse video; the list scrolls to keep it in view. It can take
focus, so ↑/↓/PgUp/PgDn scroll a long game. On the game screen a letter, digit
or ``/`` typed on it starts the text line, as on the board
(:class:`client.widgets.entry.HandsTypingOn`).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from client.widgets.entry import HandsTypingOn, starts_text
from engine.types import Point
from protocol.convert import point_to_wire

CELL = 6  # "(j10)" and a space
"""Black's cell; a line is "NNN. " and two cells, the second unpadded (16 columns)."""
WIDTH = 18
"""The list's width: a line, its left padding, and a scrollbar once the game outgrows it."""


def move_list_text(points: Sequence[Point], size: int, marked: int | None) -> Text:
    """The list as text, Black's and White's stones side by side, each line numbered by
    its first stone (1, 3, 5 ...: stones are counted one by one everywhere else, the
    header's "move 5 of 13", the page, the protocol's ``move_no``); ``marked`` is the
    1-based number of the stone to mark (None or 0: none)."""
    text = Text(no_wrap=True, overflow="crop")
    if not points:
        text.append("no moves yet", style="dim")
        return text
    for index, point in enumerate(points):
        number = index + 1
        if index % 2 == 0:
            if index:
                text.append("\n")
            text.append(f"{number:>3}. ")
        name = point_to_wire(point, size)
        # White's cell ends the line: not padded, so "(m15)" fits as "h8" does.
        pad = CELL if index % 2 == 0 else 0
        if number == marked:
            text.append(f"({name})".ljust(pad), style="reverse")
        else:
            text.append(f" {name}".ljust(pad))
    return text


class MoveList(HandsTypingOn, VerticalScroll, can_focus=True):
    """A scrollable move list; :meth:`show` replaces what it lists."""

    # Textual takes default CSS from the first base only (HandsTypingOn), so
    # VerticalScroll's overflow is restated: a long game's list scrolls (keys, wheel).
    # No scrollbar: its column would crop the marked last move, "(m12)" of move 29.
    DEFAULT_CSS = f"""
    MoveList {{ layout: vertical; overflow-x: hidden; overflow-y: auto; }}
    MoveList {{ width: {WIDTH}; height: 1fr; padding: 0 0 0 1; scrollbar-size-vertical: 0; }}
    MoveList > Static {{ width: auto; }}
    MoveList:focus {{ background: $boost; }}
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: tuple[tuple[Point, ...], int, int | None] | None = None
        self._lines = Static("", classes="move-lines")  # updated even before it is mounted

    def compose(self) -> ComposeResult:
        yield self._lines

    async def on_key(self, event: events.Key) -> None:
        await self.hand_typing_on(event, starts=starts_text(event))

    def show(self, points: Sequence[Point], size: int, marked: int | None) -> None:
        """List ``points`` (on a ``size`` board) with stone number ``marked`` marked."""
        key = (tuple(points), size, marked)
        if key == self._shown:
            return
        self._shown = key
        self._lines.update(move_list_text(points, size, marked))
        if marked:
            line = (marked - 1) // 2
            top = max(0, line - self.size.height // 2)
            self.call_after_refresh(self.scroll_to, y=top, animate=False)
