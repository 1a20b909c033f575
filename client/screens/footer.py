"""Telling the footer that the keys on offer changed, only when they did.

``refresh_bindings`` makes Textual's Footer build its keys again (a widget each, each
styled): tens of milliseconds a time. The screens call it after every model change, so
that a key turns on or off as the game goes; a relaunched client catching up on a
game's 130 events asked for 130 footers, and its game screen came 3.5-9 s late, the
keys typed meanwhile landing in the game's text line."""

from __future__ import annotations

import weakref
from typing import Any

from textual.screen import Screen

_shown: weakref.WeakKeyDictionary[Screen[Any], tuple[object, ...]] = weakref.WeakKeyDictionary()


def refresh_footer(screen: Screen[Any]) -> None:
    """``screen.refresh_bindings()`` when its active keys (which, whether enabled, and
    what they say) differ from those it last announced."""
    keys = tuple(
        (key, id(active.node), active.binding.action, active.binding.description, active.enabled)
        for key, active in screen.active_bindings.items()
    )
    if _shown.get(screen) != keys:
        _shown[screen] = keys
        screen.refresh_bindings()
