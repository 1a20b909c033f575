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
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.screen import ModalScreen, Screen
from textual.widgets import Select

from client.address import ServerAddress
from client.app import GomokuApp
from client.failures import LinkFailure
from client.glyphs import ASCII, UNICODE, Glyphs
from client.options import PlayOptions
from client.screens.connect import ConnectScreen
from client.screens.dialogs import CreateRoomDialog, PlayAiDialog, QuickMatchDialog
from client.screens.game import GameScreen
from client.screens.host import Host
from client.screens.lobby import LobbyScreen
from client.screens.ratings import LeaderboardScreen, ProfileScreen
from client.screenshot import screen_text
from client.state.history import GamesRequested, ProfileRequested
from client.state.log import Note
from client.state.model import Action
from client.state.room import RoomGone
from client.state.session import ConnectionChanged, IdentityLost
from client.widgets.entry import PromptBar
from engine.types import Reason, Rule
from protocol import events as ev
from protocol import messages as m
from protocol.events import RatingChange
from protocol.values import (
    Clocks,
    LeaderboardEntry,
    Opening,
    PlayerRef,
    RoomSummary,
    RoomView,
    Seats,
    Standing,
    Swap2State,
    TimeControl,
)

SNAPSHOTS = Path(__file__).parent / "snapshots" / "client"
NOW = 1000.0
ALICE = PlayerRef(id="p-alice", name="alice", rating=1512)
BOB = PlayerRef(id="p-bob", name="bob", rating=1487)
ALICE_1500 = PlayerRef(id="p-alice", name="alice", rating=1500)
BOB_1500 = PlayerRef(id="p-bob", name="bob", rating=1500)
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
    screen: Callable[[Host], Screen[None]] | None = None,
    then: Callable[[GomokuApp], Awaitable[object]] | None = None,
    now: float = NOW,
) -> str:
    """The screen at 80x24 after ``actions`` at local time ``now``: the game screen (the
    board focused, unless a question took the focus), or the lobby, or ``screen()``
    pushed first (given the app as its host); ``then`` runs last (a key's action, say)."""
    options = PlayOptions(name="alice", glyphs=glyphs, remember=False)
    app = GomokuApp(options, clock=lambda: now, autostart=False)
    async with app.run_test(size=(80, 24)) as pilot:
        if lobby:
            await app.push_screen(LobbyScreen(app))
        if screen is not None:
            await app.push_screen(screen(app))
            await app.workers.wait_for_complete()  # its request, refused offline, goes first
        for action in actions:
            app.dispatch(action)
        await pilot.pause()
        on_game = not lobby and screen is None and isinstance(app.screen, GameScreen)
        if on_game and not isinstance(app.focused, PromptBar):
            app.screen.query_one("#board").focus()
        await pilot.pause()
        if then is not None:
            await then(app)
            await pilot.pause()
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


async def test_wide_rooms_keep_their_state_in_an_80_column_lobby() -> None:
    """A swap2 room with an AI, and a rated private one with a 24-character name: the
    names are cut shorter so that the last columns, the state and the spectator count,
    still show whole (the state read "playi" and "waiti")."""
    ai = PlayerRef(id="p-ai", name="AI intermediate", bot=True)
    long = PlayerRef(id="p-w", name="Wolfgang Amadeus Mozart!", rating=1500, provisional=True)
    rooms = [
        summary(
            "r-0a1b",
            rule=Rule.STANDARD,
            opening=Opening.SWAP2,
            time=None,
            players=Seats(black=ai, white=ALICE_1500),
            state="playing",
        ),
        summary("r-2c3d", rule=Rule.RENJU, players=Seats(black=long), rated=True, private=True),
    ]
    text = await screen_after([welcome(), m.Lobby(rooms=rooms)], lobby=True)
    lines = text.splitlines()
    [ai_row] = [line for line in lines if "standard swap2" in line]
    [long_row] = [line for line in lines if "renju rated private" in line]
    assert ai_row.rstrip(" ▁▇│").endswith("playing  0"), ai_row
    assert long_row.rstrip(" ▁▇│").endswith("waiting  0"), long_row
    assert "AI interme… [bot]" in ai_row  # cut only as far as it must be
    assert "Wolfgang" in long_row


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
    """--glyphs ascii: X and O stones, '.' points, '!' forbidden, and nothing outside
    ASCII anywhere on the screen (separators, borders, the footer's key names)."""
    actions: list[Action] = [welcome(), m.Snapshot(room=game_view(RENJU_GAME))]
    text = await screen_after(actions, glyphs=ASCII)
    check_snapshot("ascii_glyphs", text)
    assert text.isascii()


async def test_ascii_questions_and_results_are_ascii() -> None:
    """A question, the result and the rating change are plain ASCII too."""
    changes = [RatingChange(player="p-alice", before=1500, after=1516)]
    over = ev.GameOver(winner="black", reason=Reason.RESIGN, ratings=changes)
    actions: list[Action] = [
        welcome(),
        m.Snapshot(room=game_view(OPENING)),
        m.Event(room="r-7f3a", seq=21, event=over),
        offered("rematch", 22),
    ]
    text = await screen_after(actions, glyphs=ASCII)
    assert text.isascii(), text
    assert "Your rating: 1500 -> 1516 (+16)." in text
    assert "> bob offers a rematch (colours swapped): y accept | n decline" in text


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


# --- questions and notices (issue 15, point 2) ------------------------------------------


def offered(kind: str, seq: int = 21) -> m.Event:
    return m.Event(room="r-7f3a", seq=seq, event=ev.Offered(kind=kind, by="p-bob"))  # type: ignore[arg-type]


OPENING = ["h8", "g9", "i9", "g7"]


@pytest.mark.parametrize("kind", ["draw", "takeback"])
async def test_an_offer_is_a_question_snapshot(kind: str) -> None:
    """Bob's draw offer or takeback request on Alice's move: a question naming y and n,
    which leaves the keys to her move; the footer names Esc to reach it."""
    actions: list[Action] = [welcome(), m.Snapshot(room=game_view(OPENING)), offered(kind)]
    text = await screen_after(actions)
    check_snapshot(f"prompt_{kind}", text)
    assert ": y accept · n decline" in text
    assert "Esc Question" in text


async def test_a_rematch_offer_after_the_game_snapshot() -> None:
    over = ev.GameOver(winner="white", reason=Reason.RESIGN)
    actions: list[Action] = [
        welcome(),
        m.Snapshot(room=game_view(OPENING)),
        m.Event(room="r-7f3a", seq=21, event=over),
        offered("rematch", 22),
    ]
    text = await screen_after(actions)
    check_snapshot("prompt_rematch", text)
    assert "bob offers a rematch (colours swapped): y accept · n decline" in text


async def test_the_swap2_choice_snapshot() -> None:
    swap2 = Swap2State(phase="choose", to_act="p-alice", choices=["black", "white", "place2"])
    view = game_view(["h8", "h9", "i9"], opening=Opening.SWAP2, state="opening", swap2=swap2)
    text = await screen_after([welcome(), m.Snapshot(room=view)])
    check_snapshot("prompt_swap2", text)
    assert "Swap2: b take black · w take white · p place two more" in text
    assert "^D Draw" not in text  # no draw or takeback before the colours are settled
    assert "^T Takeback" not in text


def bob_away(deadline_ms: int) -> m.Event:
    presence = ev.Presence(player="p-bob", online=False, deadline_ms=deadline_ms)
    return m.Event(room="r-7f3a", seq=21, event=presence)


async def test_the_opponent_offline_countdown_snapshot() -> None:
    """While Bob is away: a notice says what the countdown counts."""
    actions: list[Action] = [welcome(), m.Snapshot(room=game_view(OPENING)), bob_away(23_000)]
    text = await screen_after(actions)
    check_snapshot("notice_offline", text)
    assert "bob is offline: you may claim the win if they are not back in 0:23." in text


async def test_the_claim_question_snapshot() -> None:
    """Past the grace period: a question offers the claim, y claims."""
    actions: list[Action] = [welcome(), m.Snapshot(room=game_view(OPENING)), bob_away(0)]
    text = await screen_after(actions)
    check_snapshot("prompt_claim", text)
    assert "bob went offline, you may claim the win: y claim · n not now" in text


# --- unreachable or wrong servers (point 4) ------------------------------------------------


FAILURES = {
    "refused": LinkFailure("refused", "nothing listens on port 8765"),
    "not_found": LinkFailure("not_found", "no host is called nosuchhost.invalid"),
    "timeout": LinkFailure("timeout", "no answer"),
    "tls": LinkFailure("tls", "wrong version number; is it a plain ws:// server?"),
    "not_gomoku": LinkFailure("not_gomoku", "it answered HTTP/1.1 404, not a WebSocket"),
    "version": LinkFailure("version", "this client speaks 1; this server speaks version 2"),
}


@pytest.mark.parametrize("problem", list(FAILURES))
async def test_the_lobby_names_why_the_server_is_unreachable_snapshot(problem: str) -> None:
    """Each failure in the lobby's banner, with the next try and the key to stop."""
    failure = FAILURES[problem]
    changed = ConnectionChanged(
        "reconnecting",
        attempt=2,
        next_try_at=NOW + 2,
        detail=str(failure),
        problem=failure.problem,
    )
    text = await screen_after([changed], lobby=True)
    check_snapshot(f"unreachable_{problem}", text)
    assert "Next try in 2s (attempt 2) · Esc: stop trying" in text.replace("\n ", " ")


async def test_the_connect_screen_after_stopping_snapshot() -> None:
    """Esc stopped trying: the connect screen says why, the address ready to fix."""
    why = str(FAILURES["not_found"])
    address = ServerAddress("nosuchhost.invalid")
    text = await screen_after(
        [], screen=lambda host: ConnectScreen(host, address=address, name="alice", error=why)
    )
    check_snapshot("connect_stopped", text)
    assert "Stopped trying: name not found" in text


# --- after the game (point 7) -------------------------------------------------------------


async def test_a_rated_game_ends_with_the_rating_change_snapshot() -> None:
    changes = [
        RatingChange(player="p-alice", before=1500, after=1516),
        RatingChange(player="p-bob", before=1500, after=1484),
    ]
    view = game_view(OPENING, players=Seats(black=ALICE_1500, white=BOB_1500))
    over = ev.GameOver(winner="black", reason=Reason.TIMEOUT, ratings=changes)
    actions: list[Action] = [
        welcome(),
        m.Snapshot(room=view),
        m.Event(room="r-7f3a", seq=21, event=over),
    ]
    text = await screen_after(actions)
    check_snapshot("rated_game_over", text)
    assert "bob (white) ran out of time: alice (black) wins. Your rating: 1500 → 1516 (+16)." in (
        text.replace("\n ", " ")
    )
    assert "alice (1516)" in text


async def test_the_lobby_after_a_game_is_fresh_snapshot() -> None:
    """Back in the lobby after the game ended: no 'game in progress', and the line says
    it ended."""
    welcome_back = m.Welcome(
        player="p-alice", name="alice", token="secret", resumed=True, rooms=["r-7f3a"]
    )
    over = ev.GameOver(winner="black", reason=Reason.FIVE, line=["h8", "i8", "j8", "k8", "l8"])
    actions: list[Action] = [
        welcome_back,
        m.Event(room="r-7f3a", seq=21, event=over),
        m.Lobby(rooms=[summary("r-0a1b")]),
    ]
    text = await screen_after(actions, lobby=True)
    check_snapshot("lobby_after_game", text)
    assert "game in progress" not in text
    assert "Your game (r-7f3a) has ended: p shows how, in your profile." in text


# --- the server forgot us (point 11), and the dialogs of point 10 --------------------------


async def test_the_server_forgot_you_snapshot() -> None:
    actions: list[Action] = [welcome(), m.Snapshot(room=game_view(OPENING)), IdentityLost()]
    text = await screen_after(actions)
    check_snapshot("forgot_you", text)
    assert "The server forgot you" in text


async def test_the_game_is_gone_snapshot() -> None:
    actions: list[Action] = [welcome(), m.Snapshot(room=game_view(OPENING)), RoomGone("r-7f3a")]
    text = await screen_after(actions)
    check_snapshot("game_gone", text)
    assert "The game is gone" in text


async def test_the_leave_question_fits_snapshot() -> None:
    """The leave dialog (once cut off at 80x24) shows all of its question."""

    async def leave(app: GomokuApp) -> None:
        screen = app.screen
        assert isinstance(screen, GameScreen)
        await screen.action_leave()

    text = await screen_after([welcome(), m.Snapshot(room=game_view(OPENING))], then=leave)
    check_snapshot("leave_dialog", text)
    assert "instead.)" in text
    assert "after 1:00 away" in text  # the grace the welcome gave, in time


async def test_the_help_fits_snapshot() -> None:
    async def help_screen(app: GomokuApp) -> None:
        screen = app.screen
        assert isinstance(screen, GameScreen)
        await screen.action_help()

    text = await screen_after([welcome(), m.Snapshot(room=game_view(OPENING))], then=help_screen)
    check_snapshot("game_help", text)
    assert "Esc Close help" in text


# --- --glyphs ascii: every screen, not just the board --------------------------------------

FORM_DIALOGS: dict[str, Callable[[], ModalScreen[Any]]] = {
    "new room": CreateRoomDialog,
    "play the AI": PlayAiDialog,
    "quick match": QuickMatchDialog,
}


@pytest.mark.parametrize("glyphs", [ASCII, UNICODE], ids=["ascii", "unicode"])
@pytest.mark.parametrize("dialog", list(FORM_DIALOGS))
async def test_the_dialogs_dropdowns_are_ascii(dialog: str, glyphs: Glyphs) -> None:
    """The New room / Play the AI / Quick match dialogs in ascii: the dropdowns' arrow is
    v (^ while open), the open list and the fields are drawn in ASCII. The default set
    keeps Textual's own arrow."""
    options = PlayOptions(name="alice", glyphs=glyphs, remember=False)
    app = GomokuApp(options, clock=lambda: NOW, autostart=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(LobbyScreen(app))
        await app.push_screen(FORM_DIALOGS[dialog]())
        await pilot.pause()
        await pilot.pause()
        closed = screen_text(app)
        app.screen.query_one("#rule", Select).expanded = True
        await pilot.pause()
        await pilot.pause()
        opened = screen_text(app)
    assert "Freestyle" in closed
    assert "Renju" in opened
    time_line = next(line for line in closed.splitlines() if "Clock (min+s)" in line)
    assert "none" in time_line or "5+3" in time_line  # the field one line, its value shown
    if glyphs is ASCII:
        assert closed.isascii(), closed
        assert opened.isascii(), opened
        assert "Freestyle" in next(line for line in closed.splitlines() if line.endswith("v   |"))
        boxes = [line for line in closed.splitlines() if "+--" in line]
        assert len(boxes) == 2, closed  # the dialog's own border: no box per field or button
    else:
        assert "▼" in closed


async def test_the_connect_screen_and_profile_are_ascii() -> None:
    """The connect screen's fields and button, and the profile's title, in ascii."""
    address = ServerAddress("nosuchhost.invalid")
    text = await screen_after(
        [],
        glyphs=ASCII,
        screen=lambda host: ConnectScreen(host, address=address, name="alice"),
    )
    assert "nosuchhost.invalid" in text
    assert text.isascii(), text
    text = await screen_after([welcome()], glyphs=ASCII, screen=ProfileScreen)
    assert "Profile | alice (you)" in text
    assert text.isascii(), text


async def test_a_profile_whose_games_were_private_says_why_none_are_listed() -> None:
    """bob's profile counts a rated game and lists none (its room was private, listed
    to its players only): the screen says so, not "No finished games yet"."""
    won = Standing(
        rule=Rule.FREESTYLE,
        rating=1742,
        rd=397,
        provisional=True,
        games=1,
        wins=1,
        losses=0,
        draws=0,
    )
    replies: list[Action] = [
        welcome(),
        GamesRequested("p-bob"),
        ProfileRequested("p-bob"),
        m.Profile(player="p-bob", name="bob", ratings=[won]),
        m.Games(player="p-bob", items=[]),
    ]
    text = await screen_after(replies, screen=lambda host: ProfileScreen(host, "p-bob"))
    assert "No finished games to show: a private room's games are listed to its" in text


async def test_a_scrolled_log_is_ascii() -> None:
    """A log longer than its pane has a scrollbar: drawn in ASCII too."""
    notes: list[Action] = [Note(f"note {n}") for n in range(40)]
    actions: list[Action] = [welcome(), m.Snapshot(room=game_view(OPENING)), *notes]
    text = await screen_after(actions, glyphs=ASCII)
    assert "note 39" in text
    assert text.isascii(), text
