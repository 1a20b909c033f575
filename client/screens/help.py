"""The help screen (``?``): every key of the screen underneath, read from the
bindings that screen and its widgets declare, so the list cannot go stale."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from client.glyphs import UNICODE, Glyphs


def describe_bindings(
    bindings: Iterable[BindingType], glyphs: Glyphs = UNICODE
) -> list[tuple[str, str]]:
    """``(keys, what)`` for each binding with a description, keys joined by ``/`` and
    named as ``glyphs`` names them (``^D``, ``⏎`` or ``Enter``). A binding's tooltip,
    when it has one, is the longer wording the help shows (the footer has room for a
    word or two only)."""
    rows: list[tuple[str, str]] = []
    for item in bindings:
        if isinstance(item, Binding):
            keys, what = item.key, item.tooltip or item.description
        else:
            keys, what = item[0], item[2] if len(item) > 2 else item[1]
        if not what:
            continue
        rows.append(("/".join(glyphs.key_name(k.strip()) for k in keys.split(",")), what))
    return rows


class HelpScreen(ModalScreen[None]):
    """A list of keys in two columns (the descriptions wrap beside their keys), then
    ``prose`` (a heading and its paragraphs each: the game's rules); any of Esc, q or ?
    closes it, ↑/↓ scroll a long one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "dismiss", "Close help"),
    ]

    def __init__(
        self,
        title: str,
        sections: list[tuple[str, list[tuple[str, str]]]],
        prose: Sequence[tuple[str, Sequence[str]]] = (),
    ) -> None:
        super().__init__()
        self.title_text = title
        self.sections = sections
        self.prose = prose

    def compose(self) -> ComposeResult:
        parts: list[RenderableType] = [Text(self.title_text, style="bold"), Text("")]
        for heading, rows in self.sections:
            parts.append(Text(heading, style="bold"))
            table = Table.grid(padding=(0, 2))
            table.add_column(no_wrap=True)
            table.add_column(overflow="fold")
            for keys, what in rows:
                table.add_row(Text("  " + keys), Text(what))
            parts.extend([table, Text("")])
        for heading, paragraphs in self.prose:
            parts.append(Text(heading, style="bold"))
            for paragraph in paragraphs:  # (indented as a whole, its wrapped lines too)
                parts.extend([Padding(Text(paragraph), (0, 0, 0, 2)), Text("")])
        parts.append(Text("Esc, q or ? closes this help."))
        with VerticalScroll(id="help-box"):
            yield Static(Group(*parts), id="help-text")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#help-box").focus()

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
