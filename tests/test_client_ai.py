"""The terminal client's AI features against a real server and a real AI worker (fast
levels, short move times): seating an AI from the game screen and from the lobby, an
AI-vs-AI game to watch, quick match with an AI after a wait, hints where they are
allowed, how refusals (no worker, a rated room) are shown, and --local play against the
AI worker the embedded server starts."""

from __future__ import annotations

from pathlib import Path

from client_fixtures import (
    bob_plays,
    bob_sees_move,
    in_game_with_bob,
    leave_for_the_lobby,
    log_text,
    playing,
    running,
    stones,
    until,
)
from server_fixtures import Connect
from textual.pilot import Pilot
from textual.widgets import Input, Select
from worker_fixtures import StartWorker

from client.app import GomokuApp
from client.screens.dialogs import (
    AiGameDialog,
    ConfirmDialog,
    PlayAiDialog,
    QuickMatchDialog,
    SeatAiDialog,
)
from client.screens.game import GameScreen
from client.screenshot import screen_text
from client.state.words import NO_AI_RATED, NO_HINT_RATED
from client.widgets.board import Board
from protocol import messages as m
from server.app import GomokuServer


async def test_seat_an_ai_from_the_game_screen(
    ai_server: GomokuServer, start_worker: StartWorker, tmp_path: Path
) -> None:
    """Waiting in a room, ^O asks for a level and Enter seats that AI; it answers our
    moves."""
    await start_worker()
    async with running(ai_server, tmp_path) as (app, pilot):
        await app.send(m.CreateRoom(seat="black"))
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        await until(pilot, lambda: "^O seats an AI instead" in screen_text(app))
        await until(pilot, lambda: "^O AI opponent" in screen_text(app), "the footer's AI key")
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, SeatAiDialog))
        app.screen.query_one("#level", Select).value = "beginner"
        await pilot.press("enter")  # the dialog opens on its button: Enter seats the AI
        await until(pilot, lambda: playing(app), "the AI to sit down")
        room = app.model.room
        assert room is not None
        assert room.white is not None
        assert room.white.bot
        assert room.white.name == "AI beginner"
        assert "AI beginner" in screen_text(app)
        await pilot.press("enter")  # h8
        await until(pilot, lambda: stones(app) == 2, "the AI's answer")


async def ai_dialog_as_white_on_13(app: GomokuApp, pilot: Pilot[None]) -> PlayAiDialog:
    """The lobby's play-the-AI dialog (a), White and 13x13 chosen."""
    await pilot.press("a")
    await until(pilot, lambda: isinstance(app.screen, PlayAiDialog))
    dialog = app.screen
    assert isinstance(dialog, PlayAiDialog)
    dialog.query_one("#seat", Select).value = "white"
    dialog.query_one("#size", Input).value = "13"
    return dialog


async def play_from_the_dialog(app: GomokuApp, pilot: Pilot[None]) -> None:
    """OK in the play-the-AI dialog, until the AI (Black) has opened."""
    await pilot.click("#ok")
    await until(pilot, lambda: isinstance(app.screen, GameScreen))
    await until(pilot, lambda: stones(app) >= 1, "the AI's first move")


async def test_play_the_ai_from_the_lobby_as_white(
    ai_server: GomokuServer, start_worker: StartWorker, tmp_path: Path
) -> None:
    """a in the lobby creates a room with the chosen settings and an AI of the chosen
    level in the other seat; as White we see the AI open."""
    await start_worker()
    async with running(ai_server, tmp_path) as (app, pilot):
        dialog = await ai_dialog_as_white_on_13(app, pilot)
        dialog.query_one("#level-other", Input).value = "novice"
        await play_from_the_dialog(app, pilot)
        room = app.model.room
        assert room is not None
        assert (room.size, room.rated) == (13, False)
        assert room.black is not None
        assert room.black.bot
        assert room.black.name == "AI novice"
        assert app.model.my_color is not None


async def test_after_the_ai_has_left_ctrl_n_plays_it_again(
    ai_server: GomokuServer, start_worker: StartWorker, tmp_path: Path
) -> None:
    """A game over and the AI gone (no rematch to offer it): the text line says so, and
    ^N plays the same AI again in a new room with the colours swapped, as the web page's
    "Play the AI again" does."""
    await start_worker()
    async with running(ai_server, tmp_path) as (app, pilot):
        dialog = await ai_dialog_as_white_on_13(app, pilot)
        dialog.query_one("#level-other", Input).value = "novice"
        await play_from_the_dialog(app, pilot)
        first = app.model.room
        assert first is not None
        assert isinstance(app.screen, GameScreen)
        entry = app.screen.entry
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await until(pilot, lambda: "left." in log_text(app), "the AI to leave")
        await until(pilot, lambda: "the AI left: ^N plays it again" in entry.placeholder)
        await pilot.press("ctrl+n")
        await until(
            pilot,
            lambda: app.model.room is not None and app.model.room.id != first.id,
            "a new room",
        )
        await until(pilot, lambda: playing(app), "the AI to sit down")
        again = app.model.room
        assert again is not None
        assert (again.size, again.rule) == (first.size, first.rule)
        assert again.white is not None
        assert (again.white.bot, again.white.name) == (True, "AI novice")
        assert again.black is not None
        assert again.black.id == app.model.me  # colours swapped: we are Black now
        assert first.id not in app.model.seated_rooms  # the old game was left


async def test_ai_vs_ai_game_is_watched(
    ai_server: GomokuServer, start_worker: StartWorker, tmp_path: Path
) -> None:
    """v starts a game between two AIs of the chosen levels; we watch it move by move."""
    await start_worker()
    async with running(ai_server, tmp_path) as (app, pilot):
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, AiGameDialog))
        dialog = app.screen
        dialog.query_one("#black", Select).value = "beginner"
        dialog.query_one("#white", Select).value = "novice"
        await pilot.click("#ok")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        await until(pilot, lambda: stones(app) >= 4, "four moves of the AIs")
        room = app.model.room
        assert room is not None
        assert app.model.my_color is None  # a spectator
        assert room.black is not None
        assert room.white is not None
        assert (room.black.name, room.white.name) == ("AI beginner", "AI novice")
        text = screen_text(app)
        assert "AI beginner" in text
        assert "R Resign" not in text  # a spectator has no game keys


async def test_quick_match_plays_an_ai_after_the_wait(
    ai_server: GomokuServer, start_worker: StartWorker, tmp_path: Path
) -> None:
    """Quick match with 'AI after' set: the waiting line says when, and nobody else
    being there, an AI of the chosen level takes the other seat (unrated)."""
    await start_worker()
    async with running(ai_server, tmp_path) as (app, pilot):
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, QuickMatchDialog))
        dialog = app.screen
        dialog.query_one("#time", Input).value = "none"
        dialog.query_one("#ai-after", Input).value = "1"
        dialog.query_one("#ai-level", Select).value = "beginner"
        await pilot.click("#ok")
        await until(pilot, lambda: "AI at 0:01" in screen_text(app), "the waiting line")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the AI game")
        await until(pilot, lambda: bool(app.screen.query(Board)), "the board drawn")
        room = app.model.room
        assert room is not None
        assert not room.rated
        seats = [s for s in (room.black, room.white) if s is not None]
        assert [s.name for s in seats if s.bot] == ["AI beginner"]


async def test_hint_marks_the_point_and_says_why(
    ai_server: GomokuServer, start_worker: StartWorker, connect: Connect, tmp_path: Path
) -> None:
    """^G in an unrated game asks an AI: the suggested point is marked on the board and
    the reason logged; the mark goes once a stone is played."""
    await start_worker()
    async with running(ai_server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect, to=ai_server)
        await pilot.press("enter")
        await bob_sees_move(bob, "h8")
        await bob_plays(bob, room, "h9")
        await until(pilot, lambda: stones(app) == 2)
        assert app.screen.check_action("hint", ()) is True
        await pilot.press("ctrl+g")
        await until(pilot, lambda: "Hint for black:" in log_text(app), "the suggestion")
        game = app.model.room
        assert game is not None
        assert game.hint is not None
        assert game.picture.hint == game.hint.point
        assert game.hint.point not in game.picture.stones
        assert "◇" in screen_text(app)
        await pilot.press("right", "enter")  # i8
        await bob_sees_move(bob, "i8")
        await until(pilot, lambda: stones(app) == 3)
        assert app.model.room is not None
        assert app.model.room.picture.hint is None
        assert "◇" not in screen_text(app)


async def test_hint_and_ai_seat_are_refused_in_a_rated_room(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """A rated room: the AI key is not offered while waiting nor the hint key once
    playing (pressing them does nothing); /ai and /hint say why; the server's own
    refusals show with a heading."""
    async with running(server, tmp_path) as (app, pilot):
        await app.send(m.CreateRoom(seat="black", rated=True))
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        assert "Rated: no hints or AI seats." in log_text(app)
        screen = app.screen
        assert screen.check_action("seat_ai", ()) is False
        await pilot.press("ctrl+o")
        await pilot.pause(0.1)
        assert not isinstance(app.screen, SeatAiDialog)
        await pilot.press(*"/ai", "enter")
        await until(pilot, lambda: app.model.log[-1].text == NO_AI_RATED)
        assert app.model.room is not None
        await app.send(m.SeatAi(room=app.model.room.id, level="beginner"))
        await until(pilot, lambda: "AI seat refused: rated games are for people" in log_text(app))
        await pilot.press("escape")

        bob = await connect("bob")
        await bob.join(app.model.room.id)
        await until(pilot, lambda: playing(app))
        assert screen.check_action("hint", ()) is False
        await pilot.press("ctrl+g")
        await pilot.pause(0.1)
        assert "Asking an AI" not in log_text(app)
        await pilot.press(*"/hint", "enter")
        await until(pilot, lambda: app.model.log[-1].text == NO_HINT_RATED)
        await app.send(m.Hint(room=app.model.room.id))
        await until(pilot, lambda: "Hint refused: no hints in a rated game" in log_text(app))


async def test_no_ai_available_is_shown(server: GomokuServer, tmp_path: Path) -> None:
    """With no AI worker connected, seating an AI fails with a clear message, on screen
    at once (a notification) and in the room's log."""
    async with running(server, tmp_path) as (app, pilot):
        await app.send(m.CreateRoom(seat="white"))
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, SeatAiDialog))
        await pilot.click("#ok")
        wanted = "No AI available: no AI worker is connected to this server"
        await until(pilot, lambda: wanted in log_text(app), "the refusal")
        await until(pilot, lambda: "No AI available" in screen_text(app))
        assert app.model.room is not None
        assert app.model.room.state == "waiting"
        assert app.model.room.black is None


async def test_playing_the_ai_with_none_free_closes_the_room_and_says_why(
    server: GomokuServer, tmp_path: Path
) -> None:
    """a, then Play, with no AI worker: the client leaves the room it made for the game
    (left waiting, it was a public room any stranger could join) and the lobby says
    why."""
    async with running(server, tmp_path) as (app, pilot):
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, PlayAiDialog))
        await pilot.click("#ok")
        wanted = "No AI available: no AI worker is connected to this server. The room is closed."
        await until(pilot, lambda: wanted in screen_text(app), "the lobby's notice")
        assert app.model.room is None
        assert not isinstance(app.screen, GameScreen)
        await until(pilot, lambda: not app.model.lobby.rooms, "the room gone from the lobby")


async def offered_by_a(app: GomokuApp, pilot: Pilot[None]) -> tuple[object, str, object]:
    """What ``a``'s dialog offers: the seat, the board size and the AI level."""
    await pilot.press("a")
    await until(pilot, lambda: isinstance(app.screen, PlayAiDialog))
    dialog = app.screen
    return (
        dialog.query_one("#seat", Select).value,
        dialog.query_one("#size", Input).value,
        dialog.query_one("#level", Select).value,
    )


async def test_the_play_ai_dialog_offers_the_last_choice_again(
    ai_server: GomokuServer, start_worker: StartWorker, tmp_path: Path
) -> None:
    """a, then White on 13x13 against a novice: back in the lobby after that game, a
    opens the dialog with White, 13 and novice chosen again; so does a client started
    again (it offered the defaults)."""
    await start_worker()
    async with running(ai_server, tmp_path) as (app, pilot):
        dialog = await ai_dialog_as_white_on_13(app, pilot)
        dialog.query_one("#level", Select).value = "novice"
        await play_from_the_dialog(app, pilot)
        await leave_for_the_lobby(app, pilot)
        assert await offered_by_a(app, pilot) == ("white", "13", "novice")
    async with running(ai_server, tmp_path, first=GameScreen) as (app, pilot):
        await leave_for_the_lobby(app, pilot)  # back in the game left running, then out
        assert await offered_by_a(app, pilot) == ("white", "13", "novice")
