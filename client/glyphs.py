"""The characters the board is drawn with.

Two sets: ``unicode`` (round stones) for terminals that draw ``●`` one cell
wide, and ``ascii`` (``X`` / ``O``) for those that draw it two cells wide or
not at all (some SSH clients, Windows consoles, fonts without the symbol).
Every glyph must be exactly one terminal cell wide: the board's layout and
mouse hit-testing count on it.
"""

from __future__ import annotations

import dataclasses

from engine.types import Color


@dataclasses.dataclass(frozen=True, slots=True)
class Glyphs:
    """One glyph set; each field is a single one-cell character. ``hint`` marks an AI's
    suggested point; ``up`` / ``down`` say a tall board has rows out of view."""

    name: str
    black: str
    white: str
    empty: str
    star: str
    forbidden: str
    hint: str
    up: str
    down: str

    def stone(self, color: Color) -> str:
        return self.black if color is Color.BLACK else self.white


UNICODE = Glyphs(
    name="unicode",
    black="●",
    white="○",
    empty="·",
    star="+",
    forbidden="×",  # noqa: RUF001 - the renju mark
    hint="◇",
    up="↑",
    down="↓",
)
ASCII = Glyphs(
    name="ascii",
    black="X",
    white="O",
    empty=".",
    star="+",
    forbidden="!",
    hint="*",
    up="^",
    down="v",
)

GLYPH_SETS: dict[str, Glyphs] = {g.name: g for g in (UNICODE, ASCII)}


def glyphs_named(name: str) -> Glyphs:
    """The glyph set called ``name``; raises ValueError listing the choices."""
    try:
        return GLYPH_SETS[name]
    except KeyError:
        choices = ", ".join(GLYPH_SETS)
        raise ValueError(f"unknown glyph set {name!r} (choose from {choices})") from None
