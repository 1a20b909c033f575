"""The help screen (``?``): every key of the screen underneath, read from the
bindings that screen and its widgets declare, so the list cannot go stale."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


def _key_name(key: str) -> str:
    names = {
        "question_mark": "?",
        "slash": "/",
        "colon": ":",
        "escape": "Esc",
        "enter": "Enter",
        "space": "Space",
        "up": "↑",
        "down": "↓",
        "left": "←",
        "right": "→",
        "tab": "Tab",
        "period": ".",
    }
    return names.get(key, key.replace("ctrl+", "Ctrl+"))


def describe_bindings(bindings: Iterable[BindingType]) -> list[tuple[str, str]]:
    """``(keys, what)`` for each binding with a description, keys joined by ``/``.
    A binding's tooltip, when it has one, is the longer wording the help shows (the
    footer has room for a word or two only)."""
    rows: list[tuple[str, str]] = []
    for item in bindings:
        if isinstance(item, Binding):
            keys, what = item.key, item.tooltip or item.description
        else:
            keys, what = item[0], item[2] if len(item) > 2 else item[1]
        if not what:
            continue
        rows.append(("/".join(_key_name(k.strip()) for k in keys.split(",")), what))
    return rows


class HelpScreen(ModalScreen[None]):
    """A list of keys; any of Esc, q or ? closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "dismiss", "Close help"),
    ]

    def __init__(self, title: str, sections: list[tuple[str, list[tuple[str, str]]]]) -> None:
        super().__init__()
        self.title_text = title
        self.sections = sections

    def compose(self) -> ComposeResult:
        lines = [f"[b]{self.title_text}[/b]", ""]
        for heading, rows in self.sections:
            lines.append(f"[b]{heading}[/b]")
            width = max((len(k) for k, _ in rows), default=0)
            lines.extend(f"  {k.ljust(width)}  {what}" for k, what in rows)
            lines.append("")
        lines.append("Esc, q or ? closes this help.")
        with VerticalScroll(id="help-box"):
            yield Static("\n".join(lines), id="help-text", markup=True)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
