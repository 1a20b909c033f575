"""Ctrl+C in the terminal apps (``gomoku play``, ``gomoku review``): it copies the text
selected with the mouse, as anywhere else, and quits only when nothing is selected (it
quit with a selection too: a waiting private room's invite code went with it)."""

from __future__ import annotations

from typing import Any

from textual.app import App

SHOWN_MAX = 40
"""How much of the copied text the note shows."""


def copy_selection(app: App[Any]) -> bool:
    """Copy the text selected on ``app``'s screen to the terminal's clipboard (OSC 52,
    which the terminal may take or not) and say so; False when nothing is selected."""
    selected = app.screen.get_selected_text()
    if not selected:
        return False
    app.copy_to_clipboard(selected)
    app.screen.clear_selection()
    shown = selected if len(selected) <= SHOWN_MAX else selected[: SHOWN_MAX - 1] + "…"
    app.notify(f"Copied: {shown}", timeout=3, markup=False)
    return True
