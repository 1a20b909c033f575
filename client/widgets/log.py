"""The room's log on the game screen: chat and events, newest at the bottom.

Chat lines are ``name: text`` with the name in bold; the room's events start with a
bullet and are set in italics (refusals, the server's and the client's own, in bold
red; the client's other notes dim), so the two never mix. The log is rendered whole,
so it wraps to the pane's width, and only when it has changed (the model keeps the
same tuple while nothing was added). A letter, digit or ``/`` typed on it starts the
text line, as on the board (:class:`client.widgets.entry.HandsTypingOn`).

The pane follows its newest line: each line that arrives is in view, until the
player scrolls up to read (the arrows, PgUp/PgDn, Home/End while the log has focus,
or the mouse wheel); scrolling back to the end follows again, and so does a new
room's log. (Not Textual's ``anchor``: it would draw a short log at the bottom.)
A pane that follows stays at the end when its size changes (the terminal resized:
the lines wrap anew, and there may be more of them).
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

LOG_STYLES = {"chat": "", "event": "italic", "error": "bold #ff5f5f", "system": "dim"}
"""A refusal's red is a light one: the theme's red was 4.5:1 on the pane, and its grey
under NO_COLOR darker still; it is bold too, so it is not told by colour alone."""


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
    """A scrollable log that follows its end; :meth:`show` draws a new one."""

    # Textual takes default CSS from the first base only (HandsTypingOn, a plain
    # Widget: overflow hidden), so VerticalScroll's own is restated here.
    DEFAULT_CSS = """
    LogPane { layout: vertical; overflow-x: hidden; overflow-y: auto; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: tuple[LogLine, ...] | None = None
        self._lines = Static("", id="log")  # updated even before it is mounted
        self.following = True
        """Whether new lines scroll into view: the view is at the end (or was, before
        they arrived); False once the player scrolled up."""

    def compose(self) -> ComposeResult:
        yield self._lines

    async def on_key(self, event: events.Key) -> None:
        await self.hand_typing_on(event, starts=starts_text(event))

    def show(self, log: tuple[LogLine, ...], glyphs: Glyphs) -> None:
        """Draw ``log``, its newest line in view unless the player scrolled up."""
        if log is self._shown:
            return
        self._shown = log
        self._lines.update(log_text(log, glyphs))
        if self.following:
            self.scroll_end(animate=False)  # once the new lines are laid out

    def on_resize(self) -> None:
        """A new size re-wraps the lines: a pane that followed the newest line shows it
        still (once they are laid out anew)."""
        if self.following:
            self.scroll_end(animate=False)

    def follow(self) -> None:
        """Back to the newest line, following it again (a new room's log)."""
        self.following = True
        self.scroll_end(animate=False)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """The view moved (the player's keys or wheel, or :meth:`show` scrolling to the
        end): it follows the newest line while it is at the end, or on its way there
        (End scrolls smoothly: a line arriving meanwhile is followed too). Lines
        arriving do not move it, so they leave this as it was."""
        super().watch_scroll_y(old_value, new_value)
        self.following = max(new_value, self.scroll_target_y) >= self.max_scroll_y
