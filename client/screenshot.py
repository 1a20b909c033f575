"""The screen of a running Textual app as plain text, one line per row.

Used by the snapshot tests (text is reviewable in a diff, unlike an SVG) and
handy for bug reports. Colours are dropped; the board marks its cursor with
``[ ]`` and the last move with ``( )`` so they still show.
"""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console
from textual.app import App


def screen_text(app: App[Any]) -> str:
    """The current screen (modal screens over their background included)."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system=None,
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    # The same private path App.export_screenshot uses for its SVG.
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    console.print(update)
    lines = console.export_text().splitlines()
    return "\n".join(line.rstrip() for line in lines[:height]) + "\n"
