"""The room's log on the game screen: chat and events, newest at the bottom.

Chat lines are ``name: text`` with the name in bold; the room's events start with a
bullet and are set in italics (refusals in red, the client's own notes dim), so the
two never mix. The log is rendered whole, so it wraps to the pane's width, and only
when it has changed (the model keeps the same tuple while nothing was added). A
letter, digit or ``/`` typed on it starts the text line, as on the board
(:class:`client.widgets.entry.HandsTypingOn`).
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from client.glyphs import Glyphs
from client.state.log import LogLine
from client.widgets.entry import HandsTypingOn, starts_text

LOG_STYLES = {"chat": "", "event": "italic", "error": "bold red", "system": "dim"}


def log_text(log: tuple[LogLine, ...], glyphs: Glyphs) -> Text:
    """The log as the pane shows it."""
    text = Text()
    for index, line in enumerate(log):
        if index:
            text.append("\n")
        if line.kind == "chat":
            name, colon, said = line.text.partition(": ")
            text.append(name + colon, style="bold")
            text.append(said)
        else:
            text.append(f"{glyphs.bullet} {glyphs.plain(line.text)}", style=LOG_STYLES[line.kind])
    return text


class LogPane(HandsTypingOn, VerticalScroll):
    """A scrollable log; :meth:`show` draws a new one and scrolls to its end."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: tuple[LogLine, ...] | None = None
        self._lines = Static("", id="log")  # updated even before it is mounted

    def compose(self) -> ComposeResult:
        yield self._lines

    async def on_key(self, event: events.Key) -> None:
        await self.hand_typing_on(event, starts=starts_text(event))

    def show(self, log: tuple[LogLine, ...], glyphs: Glyphs) -> None:
        if log is self._shown:
            return
        self._shown = log
        self._lines.update(log_text(log, glyphs))
        self.scroll_end(animate=False)
