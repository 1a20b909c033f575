"""Screens of the client at 80x24 compared with reviewed text snapshots.

The app runs without a connection (``autostart=False``) and is fed fixed
protocol messages and a fixed clock, so every run draws the same screen. The
snapshots are plain text in tests/snapshots/client/ (reviewable in a diff);
colours are checked by the board tests. After a deliberate change, rewrite
them with ``GOMOKU_UPDATE_SNAPSHOTS=1 pytest tests/test_client_snapshots.py``
and review the diff.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from textual.screen import Screen

from client.app import GomokuApp
from client.failures import LinkFailure
from client.glyphs import ASCII, UNICODE, Glyphs
from client.options import PlayOptions
from client.screens.game import GameScreen
from client.screens.lobby import LobbyScreen
from client.screens.ratings import LeaderboardScreen
from client.screenshot import screen_text
from client.state import Action, ConnectionChanged
from engine.types import Reason, Rule
from protocol import events as ev
from protocol import messages as m
from protocol.values import (
    Clocks,
    LeaderboardEntry,
    Opening,
    PlayerRef,
    RoomSummary,
    RoomView,
    Seats,
    TimeControl,
)

SNAPSHOTS = Path(__file__).parent / "snapshots" / "client"
NOW = 1000.0
ALICE = PlayerRef(id="p-alice", name="alice", rating=1512)
BOB = PlayerRef(id="p-bob", name="bob", rating=1487)
FIVE_PLUS_THREE = TimeControl(base_ms=300_000, inc_ms=3_000)


def check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / f"{name}.txt"
    if os.environ.get("GOMOKU_UPDATE_SNAPSHOTS") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no snapshot {path}; run with GOMOKU_UPDATE_SNAPSHOTS=1 and review it"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"screen differs from {path}:\n{text}"


def welcome() -> m.Welcome:
    return m.Welcome(player="p-alice", name="alice", token="secret", resumed=False)


def summary(room_id: str, **changes: object) -> RoomSummary:
    fields: dict[str, object] = {
        "id": room_id,
        "rule": Rule.FREESTYLE,
        "size": 15,
        "opening": Opening.FREE,
        "time": FIVE_PLUS_THREE,
        "rated": False,
        "private": False,
        "players": Seats(black=BOB),
        "spectators": 0,
        "state": "waiting",
    }
    fields.update(changes)
    return RoomSummary(**fields)  # type: ignore[arg-type]


def game_view(moves: list[str], **changes: object) -> RoomView:
    fields: dict[str, object] = {
        "id": "r-7f3a",
        "rule": Rule.RENJU,
        "size": 15,
        "opening": Opening.FREE,
        "time": FIVE_PLUS_THREE,
        "rated": True,
        "private": False,
        "players": Seats(black=ALICE, white=BOB),
        "spectators": 2,
        "state": "playing",
        "moves": moves,
        "to_move": "black" if len(moves) % 2 == 0 else "white",
        "clocks": Clocks(black_ms=241_000, white_ms=187_500),
        "seq": 20,
    }
    fields.update(changes)
    return RoomView(**fields)  # type: ignore[arg-type]


async def screen_after(
    actions: list[Action],
    *,
    lobby: bool = False,
    glyphs: Glyphs = UNICODE,
    screen: Callable[[], Screen[None]] | None = None,
) -> str:
    """The screen at 80x24 after ``actions``: the game screen, or the lobby, or
    ``screen()`` pushed first."""
    options = PlayOptions(name="alice", glyphs=glyphs, remember=False)
    app = GomokuApp(options, clock=lambda: NOW, autostart=False)
    async with app.run_test(size=(80, 24)) as pilot:
        if lobby:
            await app.push_screen(LobbyScreen())
        if screen is not None:
            await app.push_screen(screen())
            await app.workers.wait_for_complete()  # its request, refused offline, goes first
        for action in actions:
            app.dispatch(action)
        await pilot.pause()
        if not lobby and screen is None:
            assert isinstance(app.screen, GameScreen)
            app.screen.query_one("#board").focus()
        await pilot.pause()
        return screen_text(app)


RENJU_GAME = ["h8", "g9", "i9", "g7", "i7", "f8", "j8", "k9", "k10", "l7"]  # i8: double three


async def test_lobby_snapshot() -> None:
    """The lobby lists rooms with rule, size, time, players, spectators and state."""
    rooms = [
        summary("r-0a1b"),
        summary(
            "r-2c3d",
            rule=Rule.RENJU,
            players=Seats(black=ALICE, white=BOB),
            state="playing",
            spectators=3,
            rated=True,
        ),
        summary("r-4e5f", size=19, time=None, opening=Opening.SWAP2),
    ]
    text = await screen_after([welcome(), m.Lobby(rooms=rooms)], lobby=True)
    check_snapshot("lobby", text)


async def test_game_in_progress_snapshot() -> None:
    """A renju game: stones, last move, forbidden points, clocks, players, the log."""
    actions: list[Action] = [
        welcome(),
        m.Snapshot(room=game_view(RENJU_GAME)),
        m.Event(room="r-7f3a", seq=21, event=ev.ChatPosted(player="p-bob", name="bob", text="gl")),
    ]
    text = await screen_after(actions)
    check_snapshot("game_in_progress", text)


async def test_won_game_snapshot() -> None:
    """A game won with five in a row: the result in the status and the log."""
    moves = ["h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4"]
    actions: list[Action] = [
        welcome(),
        m.Snapshot(room=game_view(moves, rule=Rule.FREESTYLE)),
        m.Event(
            room="r-7f3a",
            seq=21,
            event=ev.Moved(point="l8", color="black", move_no=9, clocks=None),
        ),
        m.Event(
            room="r-7f3a",
            seq=22,
            event=ev.GameOver(
                winner="black", reason=Reason.FIVE, line=["h8", "i8", "j8", "k8", "l8"]
            ),
        ),
    ]
    text = await screen_after(actions)
    check_snapshot("won_game", text)


async def test_reconnecting_snapshot() -> None:
    """The link is down: the status says reconnecting with the attempt and next try."""
    actions: list[Action] = [
        welcome(),
        m.Snapshot(room=game_view(RENJU_GAME[:4])),
        ConnectionChanged(
            "reconnecting",
            attempt=3,
            next_try_at=NOW + 4,
            detail=str(LinkFailure("refused", "nothing listens on port 8765")),
            problem="refused",
            was_online=True,
        ),
    ]
    text = await screen_after(actions)
    check_snapshot("reconnecting", text)


async def test_ascii_glyphs_snapshot() -> None:
    """--glyphs ascii: X and O stones, '.' points, '!' forbidden, nothing non-ASCII on the board."""
    actions: list[Action] = [welcome(), m.Snapshot(room=game_view(RENJU_GAME))]
    text = await screen_after(actions, glyphs=ASCII)
    check_snapshot("ascii_glyphs", text)
    board_lines = text.splitlines()[2:18]
    assert all(line.split("▊")[0].isascii() for line in board_lines)


async def test_leaderboard_snapshot() -> None:
    """The leaderboard of a rule: rank, name (you marked), rating, RD and games."""
    entries = [
        LeaderboardEntry(rank=1, player="p-carol", name="carol", rating=1893, rd=61, games=112),
        LeaderboardEntry(rank=2, player="p-alice", name="alice", rating=1604, rd=74, games=38),
        LeaderboardEntry(rank=3, player="p-bob", name="bob", rating=1530, rd=98, games=21),
    ]
    actions: list[Action] = [welcome(), m.Leaderboard(rule=Rule.FREESTYLE, entries=entries)]
    text = await screen_after(actions, screen=LeaderboardScreen)
    check_snapshot("leaderboard", text)


async def test_big_board_with_a_hint_snapshot() -> None:
    """26x26 at 80x24: the rows around the last move show (arrows: more above and
    below), and an AI hint is marked on its point."""
    moves = ["m6", "n7", "l5", "k4"]
    view = game_view(moves, rule=Rule.FREESTYLE, size=26, rated=False, spectators=0)
    actions: list[Action] = [
        welcome(),
        m.Snapshot(room=view),
        m.Suggestion(room="r-7f3a", point="n5", reason="threat", move_no=4),
    ]
    text = await screen_after(actions)
    check_snapshot("big_board_hint", text)
    assert "◇" in text
