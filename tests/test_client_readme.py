"""README's key tables say what the code binds: every Ctrl key of the game screen and
every key of the lobby is in the table, and every key in a table is bound."""

from __future__ import annotations

import re
from pathlib import Path

from textual.binding import Binding, BindingType

from client.glyphs import UNICODE
from client.screens.game import GameScreen
from client.screens.lobby import LobbyScreen
from client.widgets.board import Board

README = Path(__file__).resolve().parent.parent / "README.md"


def table(heading: str) -> dict[str, str]:
    """The rows of the README table whose header is ``| heading | |``: key -> what."""
    text = README.read_text(encoding="utf-8")
    start = text.index(f"| {heading} | |")
    rows: dict[str, str] = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        keys, what = (cell.strip() for cell in line.strip("|").split("|"))
        rows[keys] = what
    return rows


def keys_of(bindings: list[BindingType]) -> set[str]:
    """The keys bound, as the README writes them: ``^D``, ``n``, Enter, Esc."""
    names: set[str] = set()
    for binding in bindings:
        assert isinstance(binding, Binding)
        for key in binding.key.split(","):
            names.add(UNICODE.key_name(key) if key != "enter" else "Enter")
    return names


def documented(rows: dict[str, str]) -> set[str]:
    """Every key the table names: each backticked one, and the named ones."""
    found: set[str] = set()
    for keys in rows:
        found.update(re.findall(r"`([^`]+)`", keys))
        for word in ("Enter", "Esc", "Space", "Tab", "F1"):
            if word in keys:
                found.add(word)
    return found


def test_every_game_key_is_in_the_readme_and_every_ctrl_key_there_is_bound() -> None:
    rows = documented(table("Game screen"))
    bound = keys_of(GameScreen.BINDINGS) | keys_of(Board.BINDINGS)
    for key in bound - {"⏎", "↑", "↓", "←", "→"}:
        assert key in rows, f"{key} is bound on the game screen but not in README's table"
    for key in rows:
        if key.startswith("^") or key in ("Esc", "F1", "?", "/", "."):
            assert key in bound, f"README's game table names {key}, which nothing binds"


def test_every_lobby_key_is_in_the_readme_and_back() -> None:
    rows = documented(table("Lobby"))
    bound = keys_of(LobbyScreen.BINDINGS)
    assert bound <= rows, bound - rows
    assert rows - {"^Q"} <= bound, rows - bound
