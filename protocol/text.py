"""What a display name and a chat line may hold: text people can read, in any script.

Python's ``str.isprintable`` was the rule before, and it refused ordinary text: an
emoji joined with U+200D (a family, a rainbow flag), Persian words spelled with U+200C,
French typography's no-break space before ``!``; and it let through names nobody can
see (U+3164 HANGUL FILLER, U+2800 BRAILLE PATTERN BLANK) or that pile accents up over
the lines above. The rules here are the server's (``protocol.messages`` checks every
``hello`` and ``chat`` with them) and the clients' (they say why before sending); the
web page has the same rules in ``web/static/js/text.js``, and a test holds the two
together.

- **Names** identify a person to others, so nothing invisible: no control, format
  (zero-width, direction marks), surrogate, private-use or separator characters other
  than the plain space; no blank-looking filler, and no mark that draws as nothing (a
  variation selector only after a symbol or an ideograph it varies); a space at neither
  end; at least one character one can see; no accent on nothing (a combining mark first)
  and at most ``MAX_MARKS`` marks on one character; no brackets (:data:`BRACKETS`). A
  zero-width joiner is allowed only between two emoji, where it makes one picture of
  them (a family). The server keeps a name in NFC, so one typed with decomposed accents
  (``Jose`` + U+0301) is the same as the precomposed one.
- **Chat lines** are one line of text: no control characters (tab, newline) and no line
  or paragraph separators, no surrogates or private-use characters, none of the direction
  controls that reorder the text around them (embeddings, overrides, isolates); the
  joiners, direction marks and every kind of space are allowed; not blank.
"""

from __future__ import annotations

import unicodedata

from protocol.limits import CHAT_MAX, NAME_MAX

__all__ = [
    "BLANK_FILLERS",
    "BRACKETS",
    "EMOJI_TAILS",
    "MARKER_STARTS",
    "MAX_MARKS",
    "REORDERING",
    "SILENT_MARKS",
    "VARIATION_SELECTORS",
    "ZWJ",
    "chat_problem",
    "chat_typable",
    "name_problem",
    "normal_name",
]

BLANK_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols that draw as nothing: the Hangul fillers and the blank Braille
pattern. Printable to Python, invisible to people."""

MARKER_STARTS = frozenset(("• ", "▶ ", "* ", "> "))
"""How the terminal client's events and questions begin (its Unicode and ASCII glyphs):
a name that begins so made its chat lines read as the server's (``• Game over: ann lost
on time``)."""

BRACKETS = frozenset("()[]")
"""What the clients write a player's part in after a name (``(you)``, ``(watching)``,
``(white)``, ``[away]``): a name holding them read as another's mark. A watcher named
``ann (you)`` spoke as the player's own lines read. Judged on the name's NFKC form, so
that full-width and small brackets count too."""

SILENT_MARKS = frozenset("\u034f\u17b4\u17b5\u180b\u180c\u180d\u180f")
"""Combining marks that draw as nothing on any letter (the combining grapheme joiner,
the Khmer inherent vowels, the Mongolian variation selectors): ``ann`` with one of them
looks like ``ann``."""

VARIATION_SELECTORS = frozenset(
    [*map(chr, range(0xFE00, 0xFE10)), *map(chr, range(0xE0100, 0xE01F0))]
)
"""Marks that choose how the character before them is drawn (an emoji's picture, a Han
ideograph's variant), and draw as nothing after any other (``ann`` + U+FE0F)."""

_VARIED = frozenset(("So", "Sm", "Sk", "Nd", "Po", "Lo"))
"""The characters a variation selector may follow: symbols and emoji (U+2764 U+FE0F),
keycap digits and signs, and the letters of scripts without case (Han ideographs)."""

REORDERING = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Direction embeddings, overrides and isolates: they reorder the text after them,
beyond the line's end in some displays (a name or line shown reversed)."""

ZWJ = "\u200d"
EMOJI_TAILS = frozenset("\ufe0f\U0001f3fb\U0001f3fc\U0001f3fd\U0001f3fe\U0001f3ff")
"""What may end an emoji before a joiner: the emoji presentation selector, skin tones."""

MAX_MARKS = 3
"""Combining marks one character of a name may carry (Vietnamese needs two)."""

_NEVER = frozenset(("Cc", "Cs", "Co", "Zl", "Zp"))
# Unassigned code points (Cn) pass: they are the newest emoji to a server whose Python
# knows an older Unicode than the phone that sent them.
_MARKS = frozenset(("Mn", "Mc", "Me"))


def normal_name(name: str) -> str:
    """The form a name is kept and shown in (NFC): accents composed where Unicode can."""
    return unicodedata.normalize("NFC", name)


def name_problem(name: str) -> str | None:
    """Why ``name`` is no display name, in words for the person who typed it; None when
    it is one. ``name`` is judged in its kept form (:func:`normal_name`)."""
    name = normal_name(name)
    if not name.strip() or all(_blank(c) for c in name):
        return "a name needs a character one can see"
    if len(name) > NAME_MAX:
        return f"a name is at most {NAME_MAX} characters (emoji and accents may count as several)"
    if name != name.strip(" "):
        return "a name may not start or end with a space"
    if any(c in BRACKETS for c in unicodedata.normalize("NFKC", name)):
        return "a name may not hold brackets: the clients mark players with them, as (you)"
    if name[:2] in MARKER_STARTS:
        return f"a name may not start with {name[:2]!r}: the terminal client marks events so"
    marks = 0
    for i, c in enumerate(name):
        category = unicodedata.category(c)
        if c == ZWJ and _joins_emoji(name, i):
            marks = 0
            continue
        if category in _NEVER or category == "Cf" or (category == "Zs" and c != " "):
            return (
                "a name may not hold invisible or control characters (zero-width joiners, "
                f"direction marks, special spaces: U+{ord(c):04X})"
            )
        if (
            c in BLANK_FILLERS
            or c in SILENT_MARKS
            or (c in VARIATION_SELECTORS and not _varies(name, i))
        ):
            return f"a name may not hold characters that show as blank (U+{ord(c):04X})"
        if category in _MARKS:
            marks += 1
            if i == 0:
                return "a name may not start with an accent on nothing"
            if marks > MAX_MARKS:
                return f"a name may carry at most {MAX_MARKS} accents on one character"
        else:
            marks = 0
    return None


def _varies(name: str, i: int) -> bool:
    """Whether the variation selector at ``name[i]`` changes how the character before it
    is drawn (see :data:`_VARIED`), rather than adding nothing one can see."""
    return i > 0 and unicodedata.category(name[i - 1]) in _VARIED


def _joins_emoji(name: str, i: int) -> bool:
    """Whether the joiner at ``name[i]`` stands between two emoji (a family, a rainbow
    flag: one picture) rather than in a word, where it would be invisible."""
    if not 0 < i < len(name) - 1:
        return False
    before, after = name[i - 1], name[i + 1]
    return unicodedata.category(after) == "So" and (
        unicodedata.category(before) == "So" or before in EMOJI_TAILS
    )


def chat_typable(c: str) -> bool:
    """Whether a character may be in a chat line (one typed key is judged by this)."""
    return unicodedata.category(c) not in _NEVER and c not in REORDERING


def chat_problem(text: str) -> str | None:
    """Why ``text`` is no chat line, in words for the person who typed it; None when it
    is one."""
    if len(text) > CHAT_MAX:
        return f"a chat line is at most {CHAT_MAX} characters"
    for c in text:
        if c in REORDERING:
            return f"a chat line may not hold direction controls (U+{ord(c):04X})"
        if not chat_typable(c):
            return f"a chat line is one line, without control characters (U+{ord(c):04X})"
    if all(_blank(c) for c in text):
        return "a chat line needs a character one can see"
    return None


_BLANK = frozenset(("Zs", "Zl", "Zp", "Cc", "Cf", *_MARKS))


def _blank(c: str) -> bool:
    """Draws as nothing on its own: a space or separator, a control or format character,
    a combining mark, a filler. (By category only, as the page's copy judges it.)"""
    return c in BLANK_FILLERS or unicodedata.category(c) in _BLANK
