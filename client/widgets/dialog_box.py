"""The box every dialog of the terminal client is drawn in."""

from __future__ import annotations

from textual.containers import VerticalScroll


class DialogBox(VerticalScroll, can_focus=False):
    """A dialog's box (the ``dialog`` class in the app's CSS): it scrolls inside a
    terminal too small for it, to the field that has focus (at 40x15 the new-room
    dialog's buttons were out of sight and out of reach), and never takes the focus
    itself, as a scrolling container otherwise would (its first field has it)."""
