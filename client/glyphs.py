"""The characters the board is drawn with.

Two sets: ``unicode`` (round stones) for terminals that draw ``●`` one cell
wide, and ``ascii`` (``X`` / ``O``) for those that draw it two cells wide or
not at all (some SSH clients, Windows consoles, fonts without the symbol).
Every board glyph must be exactly one terminal cell wide: the board's layout
and mouse hit-testing count on it. The set also holds the few marks the rest of
the screen uses (separators, arrows, the key names of the footer), so with
``ascii`` nothing the client draws is outside ASCII.
"""

from __future__ import annotations

import dataclasses

from engine.types import Color


@dataclasses.dataclass(frozen=True, slots=True)
class Glyphs:
    """One glyph set. The board's glyphs are single one-cell characters: ``hint`` marks
    an AI's suggested point, ``kept`` a move typed ahead (a premove); ``up`` / ``down``
    say a tall board has rows out of view, ``left`` / ``right`` a wide one columns.
    The text marks may be longer: ``sep`` between parts of a status line, ``arrow``
    in ``1500 → 1516``, ``marker`` before a question, ``bullet`` before an event in
    the log, ``cut`` at the end of a name shortened to fit; ``keys`` names the keys
    the footer and the help show with symbols."""

    name: str
    black: str
    white: str
    empty: str
    star: str
    forbidden: str
    hint: str
    kept: str
    up: str
    down: str
    left: str
    right: str
    sep: str = "·"
    arrow: str = "→"
    marker: str = "▶"
    bullet: str = "•"
    cut: str = "…"
    keys: tuple[tuple[str, str], ...] = (
        ("enter", "⏎"),
        ("up", "↑"),
        ("down", "↓"),
        ("left", "←"),
        ("right", "→"),
    )

    def plain(self, text: str) -> str:
        """``text`` the client wrote (a log line) with its marks in this set's
        spelling: ``→`` becomes ``->`` in ascii. What players typed is left alone."""
        if self.arrow == "→" and self.sep == "·":
            return text
        return text.replace("→", self.arrow).replace(" · ", f" {self.sep} ")

    def key_name(self, key: str) -> str:
        """How a key is written for the player: ``⏎`` (``Enter``), ``^D``, ``?``."""
        names = dict(self.keys)
        if key in names:
            return names[key]
        if key.startswith("ctrl+"):
            return "^" + key[5:].upper()
        return KEY_WORDS.get(key, key)

    def stone(self, color: Color) -> str:
        return self.black if color is Color.BLACK else self.white


KEY_WORDS = {
    "question_mark": "?",
    "slash": "/",
    "colon": ":",
    "full_stop": ".",
    "escape": "Esc",
    "space": "Space",
    "tab": "Tab",
    "home": "Home",
    "end": "End",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "f1": "F1",
    "enter": "Enter",
}

UNICODE = Glyphs(
    name="unicode",
    black="●",
    white="○",
    empty="·",
    star="+",
    forbidden="×",  # noqa: RUF001 - the renju mark
    hint="◇",
    kept="◌",
    up="↑",
    down="↓",
    left="←",
    right="→",
)
ASCII = Glyphs(
    name="ascii",
    black="X",
    white="O",
    empty=".",
    star="+",
    forbidden="!",
    hint="*",
    kept="?",
    up="^",
    down="v",
    left="<",
    right=">",
    sep="|",
    arrow="->",
    marker=">",
    bullet="*",
    cut="~",
    keys=(("enter", "Enter"), ("up", "Up"), ("down", "Down"), ("left", "Left"), ("right", "Right")),
)

GLYPH_SETS: dict[str, Glyphs] = {g.name: g for g in (UNICODE, ASCII)}


def glyphs_named(name: str) -> Glyphs:
    """The glyph set called ``name``; raises ValueError listing the choices."""
    try:
        return GLYPH_SETS[name]
    except KeyError:
        choices = ", ".join(GLYPH_SETS)
        raise ValueError(f"unknown glyph set {name!r} (choose from {choices})") from None
