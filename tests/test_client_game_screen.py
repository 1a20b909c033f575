"""The game screen driven like a person would (Textual's pilot), against a real server on
127.0.0.1: each way to move, every game key and /command, the questions, help and leaving."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from client_fixtures import (
    answer,
    bob_plays,
    bob_sees_move,
    in_game_with_bob,
    leave_for_the_lobby,
    log_text,
    running,
    stones,
    until,
)
from server_fixtures import Connect, TestClient
from textual.pilot import Pilot
from textual.widgets import Input

from client.app import GomokuApp
from client.glyphs import ASCII
from client.screens.dialogs import ConfirmDialog
from client.screens.game import GameScreen
from client.screens.help import HelpScreen
from client.screens.lobby import LobbyScreen
from client.screenshot import screen_text
from client.state.words import HOW_TO_PLAY
from client.widgets.board import Board
from client.widgets.entry import PROMPT_GUARD_S
from engine.types import Point, Rule
from protocol import events as ev
from protocol import messages as m
from protocol.values import TimeControl
from server.app import GomokuServer


async def test_keys_move_the_cursor_and_enter_or_space_plays(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Arrows + Enter and arrows + Space place stones where the cursor is."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await pilot.press("enter")  # the cursor starts at the centre
        await bob_sees_move(bob, "h8")
        await bob_plays(bob, room, "a1")
        await until(pilot, lambda: stones(app) == 2)
        await pilot.press("up", "right", "enter")
        await bob_sees_move(bob, "i9")
        await bob_plays(bob, room, "a2")
        await until(pilot, lambda: stones(app) == 4)
        await pilot.press("up", "right", "down", "down", "left", "space")
        await bob_sees_move(bob, "i8")
        await until(pilot, lambda: stones(app) == 5)
        assert "Not your turn." not in [line.text for line in app.model.log]


async def test_typed_point_plays_and_text_chats(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Typing j10 on the board plays it; other text goes to the room's chat, but not a
    point typed row first (the log says how to play it); each Enter gives the keys back
    to the board; Esc leaves a half-typed line."""
    async with running(server, tmp_path) as (app, pilot):
        bob, _ = await in_game_with_bob(app, pilot, connect)
        assert isinstance(app.focused, Board)
        await pilot.press(*"j1")
        assert isinstance(app.focused, Input)
        await pilot.press("0", "enter")
        await bob_sees_move(bob, "j10")
        assert isinstance(app.focused, Board)
        await pilot.press(*"8i", "enter")
        said = "8i was not sent: to play that point, type i8."
        await until(pilot, lambda: app.model.log[-1].text == said, said)
        await pilot.press(*"good luck", "enter")
        chat = await bob.until_event(ev.ChatPosted)
        assert chat.text == "good luck"  # the first chat line: 8i was not sent
        await pilot.press(*"half a line", "escape")
        assert isinstance(app.focused, Board)
        assert app.screen.query_one("#command", Input).value == "half a line"


async def test_chat_may_begin_with_punctuation(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """``:)`` Enter on the board: both keys were dropped (only a letter, a digit or /
    began a line) and Enter played the cursor's point. Now it is chat, as typed; ``?``
    and ``.`` keep their own meaning."""
    async with running(server, tmp_path) as (app, pilot):
        bob, _ = await in_game_with_bob(app, pilot, connect)
        assert isinstance(app.focused, Board)
        await pilot.press("colon", "right_parenthesis", "enter")
        chat = await bob.until_event(ev.ChatPosted)
        assert chat.text == ":)"
        assert stones(app) == 0
        await pilot.press(*"[b]hi", "enter")
        chat = await bob.until_event(ev.ChatPosted)
        assert chat.text == "[b]hi"
        assert stones(app) == 0


def rows_shown(app: GomokuApp) -> list[int]:
    """The board's row numbers on screen, top to bottom."""
    lines = screen_text(app).splitlines()
    return [int(line[:2]) for line in lines if line[:2].strip().isdigit()]


async def in_a_26_game_with_bob(
    app: GomokuApp, pilot: Pilot[None], connect: Connect
) -> tuple[TestClient, str]:
    """Alice (the app) creates a 26x26 room as Black and Bob joins: his client and the
    room. (``in_game_with_bob`` waits for the whole board to be on screen.)"""
    await app.send(m.CreateRoom(seat="black", size=26))
    await until(pilot, lambda: app.model.room is not None, "the room")
    assert app.model.room is not None
    room = app.model.room.id
    bob = await connect("bob")
    await bob.join(room)
    await until(pilot, lambda: app.model.room is not None and app.model.room.state == "playing")
    return bob, room


async def test_the_opponents_reply_never_moves_the_cursor(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """26x26 at 80x24 (the board scrolls): Alice types z26, Bob answers at a3 far below
    and the view shows it, the cursor stays on z26: down and Enter play z25."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_a_26_game_with_bob(app, pilot, connect)
        board = app.screen.query_one(Board)
        await until(pilot, lambda: 0 < board.rows_shown < 26, "the board scrolled")
        await pilot.press(*"z26", "enter")
        await bob_sees_move(bob, "z26")
        await bob_plays(bob, room, "a3")
        await until(pilot, lambda: stones(app) == 2)
        await until(pilot, lambda: 3 in rows_shown(app) and 26 not in rows_shown(app))
        assert board.cursor == Point(25, 0)  # z26
        await pilot.press("down", "enter")
        await bob_sees_move(bob, "z25")


async def test_mouse_two_clicks_play(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """The first click selects, the second on the same point plays."""
    async with running(server, tmp_path) as (app, pilot):
        bob, _ = await in_game_with_bob(app, pilot, connect)
        board = app.screen.query_one(Board)
        offset = board.offset_of(Point(2, 3))  # c12
        await pilot.click(Board, offset=offset)
        await pilot.pause(0.1)
        assert stones(app) == 0
        await pilot.click(Board, offset=offset)
        await bob_sees_move(bob, "c12")


async def test_only_the_primary_button_plays_and_a_stale_first_click_is_forgotten(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """A right click and a middle click (a paste on X11) play nothing, with
    --one-click too; a point clicked once before the opponent's stone came needs two
    clicks again (one click on it minutes later played it at once)."""
    async with running(server, tmp_path, one_click=True) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        board = app.screen.query_one(Board)
        for button in (3, 2):
            await pilot.click(Board, offset=board.offset_of(Point(4, 10)), button=button)
        await pilot.pause(0.1)
        assert stones(app) == 0
        await pilot.click(Board, offset=board.offset_of(Point(7, 7)))  # h8, at once
        await bob_sees_move(bob, "h8")
    async with running(server, tmp_path, "cy") as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect, opponent="dan")
        board = app.screen.query_one(Board)
        await pilot.click(Board, offset=board.offset_of(Point(7, 7)))
        await pilot.click(Board, offset=board.offset_of(Point(7, 7)))
        await bob_sees_move(bob, "h8")
        await pilot.click(Board, offset=board.offset_of(Point(2, 2)))  # c13, once, early
        await bob_plays(bob, room, "a1")
        await until(pilot, lambda: stones(app) == 2, "dan's stone")
        await pilot.click(Board, offset=board.offset_of(Point(2, 2)))  # a first click now
        await pilot.pause(0.2)
        assert stones(app) == 2
        await pilot.click(Board, offset=board.offset_of(Point(2, 2)))
        await bob_sees_move(bob, "c13")


async def test_mouse_one_click_plays(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """With --one-click the first click plays."""
    async with running(server, tmp_path, one_click=True) as (app, pilot):
        bob, _ = await in_game_with_bob(app, pilot, connect)
        board = app.screen.query_one(Board)
        await pilot.click(Board, offset=board.offset_of(Point(14, 14)))  # o1
        await bob_sees_move(bob, "o1")


async def test_moving_out_of_turn_is_refused_locally(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Enter when it is the opponent's turn sends nothing and says why, set as a
    refusal (it was a quiet note, fainter than the room's events)."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await pilot.press("enter")
        await bob_sees_move(bob, "h8")
        await until(pilot, lambda: stones(app) == 1)
        await pilot.press("left", "enter")
        await until(pilot, lambda: app.model.log[-1].text == "Not your turn.")
        assert app.model.log[-1].kind == "error"
        await bob_plays(bob, room, "a1")
        await until(pilot, lambda: stones(app) == 2)
        await pilot.press("right", "enter")  # h8 is taken
        await until(pilot, lambda: app.model.log[-1].text == "h8 is already taken.")
        assert app.model.log[-1].kind == "error"


async def test_resigning_a_rated_game_before_its_second_stone_says_it_is_unrated(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """^R in a rated game with one stone asks with the news that nothing is rated yet
    (a lichess player took "resign" there for a loss on their record); after the second
    stone, the plain question."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect, rated=True)
        await pilot.press("enter")
        await bob_sees_move(bob, "h8")
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert isinstance(app.screen, ConfirmDialog)
        assert app.screen.question == "Resign this game? Before its second stone, it is not rated."
        await pilot.press("n")
        await bob_plays(bob, room, "a1")
        await until(pilot, lambda: stones(app) == 2)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert isinstance(app.screen, ConfirmDialog)
        assert app.screen.question == "Resign this game?"


async def test_resign_asks_first_then_rematch(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """^R asks for confirmation (n keeps playing, y resigns); ^N then offers a rematch
    that moves both players to a new room, and the finished one is left."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        over = await bob.until_event(ev.GameOver)
        assert over.reason == "resign"
        assert over.winner == "white"
        await until(pilot, lambda: app.model.room is not None and app.model.room.state == "over")
        assert "white wins (resignation)" in screen_text(app)
        assert "alice (black) resigned: bob (white) wins." in screen_text(app)
        await pilot.press("ctrl+n")
        offered = await bob.until_event(ev.Offered)
        assert offered.kind == "rematch"
        await bob.send(m.Answer(room=room, kind="rematch", accept=True))
        await until(
            pilot,
            lambda: app.model.room is not None and app.model.room.id != room,
            "the rematch room",
        )
        assert app.model.my_color is not None
        # The finished game is left, not followed for the rest of the evening.
        gone = await bob.until(
            lambda x: (
                isinstance(x, m.Event)
                and x.room == room
                and isinstance(x.event, ev.Presence)
                and not x.event.online
            )
        )
        assert isinstance(gone, m.Event)


async def test_no_offer_keys_while_an_offer_waits(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Before her first stone Alice has nothing to take back: no ^T. Once she has played,
    while her draw offer waits for Bob's answer, the footer offers neither ^D nor ^T
    (the server takes one offer at a time); once Bob declines, both are back."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)

        def footer() -> str:
            return screen_text(app).splitlines()[-1]

        assert "^D Draw" in footer()
        assert "^T Takeback" not in footer()
        await pilot.press("enter")
        await bob_sees_move(bob, "h8")
        await until(pilot, lambda: "^T Takeback" in footer(), "^T after her stone")
        assert "^D Draw" in footer()
        await pilot.press("ctrl+d")
        offered = await bob.until_event(ev.Offered)
        assert offered.kind == "draw"
        await until(pilot, lambda: "^D Draw" not in footer(), "^D gone")
        assert "^T Takeback" not in footer()
        await bob.send(m.Answer(room=room, kind="draw", accept=False))
        await until(pilot, lambda: "^D Draw" in footer(), "^D back")
        assert "^T Takeback" in footer()


@pytest.mark.parametrize("key", ["ctrl+q", "ctrl+c"])
async def test_quit_in_a_running_game_asks_first(
    key: str, server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """^Q in a running game asks first, as ^L does (n keeps the game and the client);
    ^Q at that question quits. Ctrl+C does the same (Textual only told to press ^Q)."""
    async with running(server, tmp_path) as (app, pilot):
        await in_game_with_bob(app, pilot, connect)
        await pilot.press(key)
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog), "the question")
        assert "Quit while your game runs?" in screen_text(app)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game again")
        assert app.return_code is None
        await pilot.press(key)
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog), "the question")
        await pilot.press(key)
        await until(pilot, lambda: app.return_code == 0, "the client quit")


async def test_quitting_closes_the_room_waiting_for_an_opponent(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """A room waits the grace period for a player whose network dropped; one who quits
    has not dropped: the room closes at once (a stranger joined the room of a player
    gone for good)."""
    async with running(server, tmp_path) as (app, pilot):
        await until(pilot, lambda: app.model.session.link.online)
        await app.send(m.CreateRoom(private=True))
        await until(pilot, lambda: app.model.room is not None, "the new room")
        assert app.model.room is not None
        code = app.model.room.code
        await pilot.press("ctrl+q")
        await until(pilot, lambda: app.return_code == 0, "the client quit")
    bob = await connect("bob")
    await bob.send(m.Join(code=code))
    await bob.expect_error("no_such_room")


async def test_no_rematch_key_while_the_opponent_is_gone(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """After the game, ^N Rematch leaves the footer once Bob has left the room (nobody
    would answer) and comes back with him."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await bob.send(m.Resign(room=room))
        await until(pilot, lambda: app.model.room is not None and app.model.room.state == "over")
        await until(pilot, lambda: "^N Rematch" in screen_text(app).splitlines()[-1])
        await bob.send(m.Leave(room=room))
        await bob.until(lambda x: isinstance(x, m.Left))
        await until(pilot, lambda: "bob left." in screen_text(app), "bob's leaving")
        # The footer's keys follow on the screen's next refresh, not with the log line.
        await until(pilot, lambda: "Rematch" not in screen_text(app).splitlines()[-1], "gone")
        await bob.send(m.Join(room=room))
        await until(pilot, lambda: "^N Rematch" in screen_text(app).splitlines()[-1], "back")


async def test_draw_offer_and_the_opponents_offers(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """^D offers a draw; Bob's takeback request shows as a prompt with y/n, y accepts,
    n declines (on Ann's move the question leaves the keys to the move: Esc goes to it)."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await pilot.press("enter")
        await bob_sees_move(bob, "h8")
        await bob_plays(bob, room, "a1")
        await until(pilot, lambda: stones(app) == 2)
        await pilot.press("ctrl+d")
        offered = await bob.until_event(ev.Offered)
        assert offered.kind == "draw"
        await bob.send(m.Answer(room=room, kind="draw", accept=False))
        await until(pilot, lambda: app.model.room is not None and app.model.room.pending is None)
        await bob.send(m.Offer(room=room, kind="takeback"))
        asks = "bob asks to take back their last move: y accept · n decline"
        await until(pilot, lambda: asks in screen_text(app))
        await pilot.press("escape")
        await answer(pilot, "y")
        undone = await bob.until_event(ev.Undone)
        assert undone.points == ["a1"]
        await until(pilot, lambda: stones(app) == 1)
        await pilot.press("left", "enter")
        await until(pilot, lambda: app.model.log[-1].text == "Not your turn.")
        await bob_plays(bob, room, "a2")
        await until(pilot, lambda: stones(app) == 2)
        await bob.send(m.Offer(room=room, kind="draw"))
        await until(pilot, lambda: "bob offers a draw: y accept · n decline" in screen_text(app))
        await pilot.press("escape")
        await answer(pilot, "n")
        answered = await bob.until_event(ev.Answered)
        assert answered.accept is False


async def test_chatting_while_an_offer_waits_then_esc_and_y_accepts(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Bob offers a draw; Ann goes on to the text line (Tab), says something, then
    presses Esc and y to get back to the question and accept: the draw is accepted. (The
    line sent had taken the keys to the question already: her Esc declined the draw and
    her y began a chat line.)"""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await pilot.press("enter")
        await bob_sees_move(bob, "h8")
        await bob.send(m.Offer(room=room, kind="draw"))
        await until(pilot, lambda: "bob offers a draw: y accept · n decline" in screen_text(app))
        await pilot.pause(0.6)  # past the question's guard time
        await pilot.press("tab", *"ok", "enter")
        said = await bob.until_event(ev.ChatPosted)
        assert said.text == "ok"
        await pilot.press("escape", "y")
        answered = await bob.until_event(ev.Answered)
        assert answered.accept is True
        over = await bob.until_event(ev.GameOver)
        assert over.reason == "agreement"


async def test_a_forbidden_point_typed_in_renju_is_refused_with_its_foul(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Black types i8, a double three: the log names the foul (it said only "renju",
    the same for a double three, a double four and an overline), and nothing is sent."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect, rule=Rule.RENJU)
        pairs = (("h8", "a1"), ("i9", "a2"), ("i7", "a3"), ("j8", "a4"))
        for played, (black, white) in enumerate(pairs, 1):
            await pilot.press(*black, "enter")
            await bob_sees_move(bob, black)
            await bob_plays(bob, room, white)
            expected = 2 * played
            await until(pilot, lambda: stones(app) == expected)  # noqa: B023 - awaited here
        await pilot.press(*"i8", "enter")
        refused = "i8 is forbidden for Black in renju (double-three: two open threes at once)."
        await until(pilot, lambda: app.model.log[-1].text == refused, refused)
        await bob.silent()


async def test_takeback_request(server: GomokuServer, connect: Connect, tmp_path: Path) -> None:
    """^T asks the opponent for a takeback."""
    async with running(server, tmp_path) as (app, pilot):
        bob, _ = await in_game_with_bob(app, pilot, connect)
        await pilot.press("enter")
        await bob_sees_move(bob, "h8")
        await pilot.press("ctrl+t")
        offered = await bob.until_event(ev.Offered)
        assert offered.kind == "takeback"


async def test_slash_commands(server: GomokuServer, connect: Connect, tmp_path: Path) -> None:
    """/draw and /resign in the command line do what d and R do; /review says when."""
    async with running(server, tmp_path) as (app, pilot):
        bob, _ = await in_game_with_bob(app, pilot, connect)
        await pilot.press("slash")
        await pilot.press(*"draw", "enter")
        offered = await bob.until_event(ev.Offered)
        assert offered.kind == "draw"
        await pilot.press(*"/nonsense", "enter")
        await until(pilot, lambda: "Unknown command /nonsense" in app.model.log[-1].text)
        await pilot.press(*"/review", "enter")  # (mid-game it said nothing at all)
        await until(pilot, lambda: "The review opens once the game is over" in log_text(app))
        await pilot.press(*"/resign", "enter")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        over = await bob.until_event(ev.GameOver)
        assert over.reason == "resign"


async def test_claim_after_the_opponent_is_gone(
    make_server: Callable[..., Awaitable[GomokuServer]], connect: Connect, tmp_path: Path
) -> None:
    """Once the disconnected opponent's grace period is over, a prompt says so and y
    claims the win."""
    from server.game import GameRules

    srv = await make_server(game=GameRules(grace_ms=300))
    async with running(srv, tmp_path) as (app, pilot):
        await app.send(m.CreateRoom(seat="black"))
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        assert app.model.room is not None
        bob = await connect("bob", to=srv)
        await bob.join(app.model.room.id)
        await until(pilot, lambda: app.model.room is not None and app.model.room.state == "playing")
        await pilot.press("enter")
        await bob.until_event(ev.Moved)
        await bob.ws.close()
        await until(pilot, lambda: app.model.room is not None and not _white_online(app))
        await until(pilot, lambda: "you may claim the win: y claim" in screen_text(app))
        await answer(pilot, "y")
        await until(pilot, lambda: app.model.room is not None and app.model.room.state == "over")
        assert app.model.room is not None
        assert app.model.room.outcome is not None
        assert app.model.room.outcome.reason == "abandon"


def _white_online(app: GomokuApp) -> bool:
    room = app.model.room
    return room is not None and room.white is not None and room.white.online


async def test_help_lists_every_key(server: GomokuServer, tmp_path: Path) -> None:
    """? opens a help screen naming the board, game and lobby keys, and how to play (the
    rules were taught nowhere); Esc closes it."""
    async with running(server, tmp_path) as (app, pilot):
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = screen_text(app)
        for what in ("New room", "Quick match", "Watch", "by its code", "Play an AI", "AI-vs-AI"):
            assert what in text
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        assert help_screen.prose == [("How to play", HOW_TO_PLAY)]
        await pilot.press("end")
        await until(pilot, lambda: "with no gap" in " ".join(screen_text(app).split()))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await app.send(m.CreateRoom())
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        listed = "\n".join(f"{k} {w}" for _, rows in help_screen.sections for k, w in rows)
        for what in ("Resign", "Offer a draw", "take your move back", "rematch", "accept", "claim"):
            assert what in listed
        for key in ("↑", "⏎/Space", "^R", "^D", "^L", "y / n", "/draw"):
            assert key in listed
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))


async def test_leave_returns_to_the_lobby(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """^L in a running game asks first; after y the lobby is back."""
    async with running(server, tmp_path) as (app, pilot):
        await in_game_with_bob(app, pilot, connect)
        await leave_for_the_lobby(app, pilot)
        assert app.model.room is None


async def test_ascii_glyphs_in_game(server: GomokuServer, connect: Connect, tmp_path: Path) -> None:
    """--glyphs ascii draws X and O on the game board."""
    async with running(server, tmp_path, glyphs=ASCII) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await pilot.press("enter")
        await bob_sees_move(bob, "h8")
        await bob_plays(bob, room, "h9")
        await until(pilot, lambda: stones(app) == 2)
        text = screen_text(app)
        row8 = next(line for line in text.splitlines() if line.startswith(" 8 "))
        assert row8[3 + 2 * 7] == "X"
        assert "O" in next(line for line in text.splitlines() if line.startswith(" 9 "))
        assert "●" not in text


def footer(app: GomokuApp) -> str:
    """The footer line (the screen's last)."""
    return screen_text(app).splitlines()[-1]


async def test_the_footer_offers_play_on_your_turn_only_and_a_dialog_names_its_own_keys(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """⏎ Play is in the footer on Alice's turn and leaves it on Bob's (Enter then still
    says why nothing is played); with the resign question open, the footer names the
    question's keys, not the game's."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        assert "⏎ Play" in footer(app)
        await pilot.press("enter")
        await bob_sees_move(bob, "h8")
        await until(pilot, lambda: stones(app) == 1)
        await until(pilot, lambda: "Play" not in footer(app), "Play gone on Bob's turn")
        await pilot.press("left", "enter")
        await until(pilot, lambda: app.model.log[-1].text == "Not your turn.")
        await bob_plays(bob, room, "a1")
        await until(pilot, lambda: "⏎ Play" in footer(app), "Play back on Alice's turn")
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await until(pilot, lambda: "y Yes" in footer(app), "the question's keys")
        assert "^D" not in footer(app)
        assert "Play" not in footer(app)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        await until(pilot, lambda: "^D Draw" in footer(app))


async def test_the_last_move_keeps_its_mark_under_the_cursor(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Bob's reply is marked ( ); with the cursor on it (.), the mark still shows:
    (○], not the cursor's [○] alone."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await pilot.press("enter")
        await bob_sees_move(bob, "h8")
        await bob_plays(bob, room, "j10")
        await until(pilot, lambda: stones(app) == 2)

        def row(number: int) -> str:
            return next(
                line for line in screen_text(app).splitlines() if line[:2] == f"{number:>2}"
            )

        await until(pilot, lambda: "(○)" in row(10), "the last move's mark")
        await pilot.press("full_stop")  # the cursor to the last move
        await until(pilot, lambda: "(○]" in row(10), "the mark and the cursor on j10")
        assert row(10)[2 + 2 * 9 :].startswith("(○]"), row(10)


async def test_a_player_who_leaves_a_finished_game_has_left_not_lost_the_connection(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Bob resigns and leaves the finished game: his seat says [left], not [offline]."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await bob.send(m.Resign(room=room))
        await until(pilot, lambda: app.model.room is not None and app.model.room.state == "over")
        await bob.send(m.Leave(room=room))
        await until(pilot, lambda: "bob left." in screen_text(app), "bob's leaving")
        first = screen_text(app).splitlines()[0]
        assert "○ bob (1500?) [left]" in first, first
        assert "[offline]" not in first


async def test_moves_typed_after_the_game_say_it_is_over_once(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """After Bob resigns, Alice types three moves: the log says "The game is over."
    once, not once per move."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await bob.send(m.Resign(room=room))
        await until(pilot, lambda: app.model.room is not None and app.model.room.state == "over")
        for point in ("h8", "h9", "h10"):
            await pilot.press(*point, "enter")
        await until(pilot, lambda: app.model.log[-1].text == "The game is over.")
        await pilot.pause(0.1)
        said = [line.text for line in app.model.log if line.text == "The game is over."]
        assert said == ["The game is over."]
        assert screen_text(app).count("The game is over.") == 1


async def test_the_question_line_shows_a_name_as_written(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """An opponent named ``[red]eve[/red]`` offering a draw: the question named her in
    red (``[/x]`` would have crashed). Names hold no brackets now; one with an emoji
    code, ``eve:smile:``, shows as she typed it, not as a smiling face."""
    async with running(server, tmp_path) as (app, pilot):
        eve, room = await in_game_with_bob(app, pilot, connect, opponent="eve:smile:")
        await eve.send(m.Offer(room=room, kind="draw"))
        asks = "eve:smile: offers a draw: y accept · n decline"
        await until(pilot, lambda: asks in screen_text(app), "the name as written")
        assert app.is_running


async def test_a_question_under_a_big_board_keeps_the_newest_stone_in_view(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """26x26 at 100x30, swap2: bob's third stone at a1 is shown, then the choice's
    question takes a row from the board and the window went back to the cursor's rows,
    hiding the stone the question is about. It stays in view now."""
    async with running(server, tmp_path) as (app, pilot):
        bob = await connect("bob")
        room = (await bob.create(seat="black", size=26, opening="swap2")).room.id
        await app.send(m.Join(room=room, role="player"))
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
        await pilot.resize_terminal(100, 30)
        for point in ("n13", "z26", "a1"):
            await bob.move(room, point)
            await bob.until_event(ev.Moved)
        take = "Swap2: b take black · w take white · p place two more"
        await until(pilot, lambda: take in screen_text(app), "the swap2 question")
        await pilot.pause(0.2)
        board = app.screen.query_one(Board)
        assert board.in_view(Point(0, 25))
        assert " 1(●)" in screen_text(app)


async def test_a_client_restarted_during_a_swap2_choice_can_move_after_it(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Alice's client restarts while her swap2 choice waits; she takes White and plays:
    the snapshot of a choice has no colour to move, and after the choice the client
    said "Not your turn." to her while the server ran her clock."""
    bob = await connect("bob")
    room = (await bob.create(seat="black", opening="swap2")).room.id
    async with running(server, tmp_path) as (app, pilot):
        await app.send(m.Join(room=room, role="player"))
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
        for point in ("h8", "i9", "j8"):
            await bob.move(room, point)
            await bob.until_event(ev.Moved)
        await until(pilot, lambda: "Swap2: b take black" in screen_text(app), "the question")
    async with running(server, tmp_path, first=GameScreen) as (app, pilot):
        await until(pilot, lambda: "Swap2: b take black" in screen_text(app), "the question")
        await pilot.pause(PROMPT_GUARD_S + 0.1)
        await pilot.press("w")
        await until(pilot, lambda: "your move (white)" in screen_text(app), "your move")
        await pilot.press("h", "1", "0", "enter")
        assert (await bob.until_event(ev.Moved)).point == "h10"


async def test_a_26_board_in_a_40_column_terminal_scrolls_its_columns_and_keeps_the_log(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """At 40x15 a 26x26 board showed columns a-s and nothing of t-z (stones, the last
    move, the cursor), and the log beside it was two columns wide. Now its columns
    scroll like its rows, with ← / → saying columns are out of view, and the log is
    under the board, where a refusal can be read."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_a_26_game_with_bob(app, pilot, connect)
        await pilot.resize_terminal(40, 15)
        await pilot.pause()
        letters = next(line for line in screen_text(app).splitlines() if " a b c" in line)
        assert letters.rstrip().endswith("→")  # columns out of view to the right
        await pilot.press("z", "2", "6", "enter")
        await bob_sees_move(bob, "z26")
        await until(pilot, lambda: stones(app) == 1)
        await pilot.pause()
        board = app.screen.query_one(Board)
        assert board.in_view(Point(25, 0))  # z26, the newest stone
        shown = screen_text(app)
        letters = next(line for line in shown.splitlines() if " y z" in line)
        assert "←" in letters
        assert "26" in shown
        assert "●" in shown
        await bob.move(room, "a1")
        await until(pilot, lambda: stones(app) == 2)
        await pilot.pause()
        assert board.in_view(Point(0, 25))  # a1: the window went there
        await pilot.press("z", "2", "6", "enter")  # taken: said where it can be read
        await until(pilot, lambda: "z26 is already taken." in screen_text(app), "the refusal")


async def test_ctrl_c_copies_text_selected_with_the_mouse_and_else_quits(
    server: GomokuServer, tmp_path: Path
) -> None:
    """Alice drags over her private room's line to copy its invite code: Ctrl+C puts
    it on the clipboard and the client goes on (it quit, the code gone with it); Ctrl+C
    with nothing selected quits, as README says."""
    async with running(server, tmp_path) as (app, pilot):
        await app.send(m.CreateRoom(private=True))
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "her room")
        assert app.model.room is not None
        code = app.model.room.code
        assert code is not None
        await until(pilot, lambda: code in screen_text(app), "the code on the screen")
        await pilot.mouse_down("#log", offset=(0, 0))
        await pilot.hover("#log", offset=(25, 1))
        await pilot.mouse_up("#log", offset=(25, 1))
        await pilot.press("ctrl+c")
        await pilot.pause(0.1)
        assert code in app.clipboard
        assert app.is_running
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.is_running, "the client to quit")


async def test_a_client_that_did_not_run_for_a_minute_asks_the_server_for_its_clocks(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """The client is stopped for a minute on Alice's move in a 1+0 game (its clock jumps
    60 s between two ticks): it asks for the room again and shows the time the server
    has, where it had counted her clock down to 0:00.0 (the server, stopped too, had given
    the time back)."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(
            app, pilot, connect, time=TimeControl(base_ms=60_000, inc_ms=0)
        )
        await pilot.press("enter")
        await bob_sees_move(bob, "h8")
        await bob_plays(bob, room, "a1")
        await until(pilot, lambda: stones(app) == 2, "bob's stone")
        before = app.model.room
        real = app.clock
        app.clock = lambda: real() + 60.0  # a minute when nothing here ran
        await until(pilot, lambda: app.model.room is not before, "the room asked for again")
        await pilot.pause()
        assert "0:00.0" not in screen_text(app)
        assert re.search(r"alice .*\(you\) 0:5\d", screen_text(app)), screen_text(app)
