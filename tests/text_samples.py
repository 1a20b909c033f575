"""Names and chat lines in many scripts, for the rules of :mod:`protocol.text` and the
page's copy of them (``web/static/js/text.js``): each test module judges the same
samples."""

from __future__ import annotations

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
RAINBOW = "\U0001f3f3\ufe0f\u200d\U0001f308"

NAMES_ACCEPTED = [
    "ann",
    "\u0430nn",  # a Cyrillic a: accepted (names are not unique; the player id tells apart)
    "José",
    "Jose\u0301",  # the same name, its accent decomposed
    "李小龍",
    "محمد علي",
    "דוד כהן",
    "Nguyễn Thị Ệ",
    "e\u0323\u0302",  # two accents on one letter
    FAMILY,
    RAINBOW,
    "\U0001f44d\U0001f3fd",
    "\uff41\uff4e\uff4e",  # full width
    "I \u2764\ufe0f Go",  # a variation selector: the heart drawn as an emoji
    "1\ufe0f\u20e3 fan",  # a keycap
    "\u845b\U000e0100",  # a Han ideograph's variant (an ideographic variation sequence)
    "x" * 24,
    "*star*",  # a marker without its space: no event looks like it
    "•ann",
]

NAMES_REFUSED = [
    "",
    " ",
    " ann",
    "ann ",
    "a\u00a0b",  # a no-break space inside
    "ann\u200b",  # a zero-width space
    "\u202eann",  # a direction override
    "a\u200db",  # a joiner between letters: invisible
    "\u200d\U0001f469",
    "\u3164",  # the Hangul filler draws as nothing
    "José \u3164",
    "\u2800",
    "\u0301x",  # an accent on nothing
    "a" + "\u0301" * 5,  # accents piled up over the lines above (one composes: á)
    "a\tb",
    "\x1c",  # a control character Python counts as a space
    "\ufeff",
    "ann\u034f",  # the combining grapheme joiner draws as nothing: looks like "ann"
    "ann\u17b5",  # a Khmer inherent vowel, as invisible
    "ann\ufe0f",  # a variation selector after a letter varies nothing: looks like "ann"
    "ann\U000e0100",
    "• Game over",  # begins as the terminal client's events do
    "▶ server",
    "* admin",
    "x" * 25,
    "ann (you)",  # a watcher so named spoke as one's own lines read
    "bob (white)",
    "cy [away]",
    "ann\uff08you\uff09",  # full-width brackets, the same to the eye
    "(:",
]

CHAT_ACCEPTED = [
    "gg",
    f"family {FAMILY} ok",
    f"{RAINBOW} pride",
    "merci\u00a0!",
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian, with a ZWNJ
    "שלום\u200e!",  # a direction mark
    "\u3000全角スペース",
    "Z" + "\u0336" * 60,
    "x" * 300,
]

CHAT_REFUSED = [
    "",
    "   ",
    "\u3164",
    "\u200e",
    "a\tb",
    "line\nbreak",
    "a\u2028b",
    "\u202eevil",
    "\x85",
    "\u2066isolated\u2069",
    "x" * 301,
]
