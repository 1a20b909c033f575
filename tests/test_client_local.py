"""``gomoku play --local``: the client starts a server of its own (a child process,
with its own AI worker) and plays on it, hot seat or against the AI; the server keeps
nothing and never outlives the client."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
import websockets
from client_fixtures import FAST, leave_for_the_lobby, online, playing, running, stones, until
from textual.pilot import Pilot
from textual.widgets import Input, Select
from websockets.typing import Subprotocol

from client.app import GomokuApp
from client.config import Identity, load_identity, save_identity
from client.local import LocalServerError, start_local_server
from client.options import PlayOptions
from client.screens.dialogs import ConfirmDialog, HotSeatDialog, PlayAiDialog
from client.screens.game import GameScreen
from client.screens.lobby import LobbyScreen
from client.screenshot import screen_text
from client.widgets.entry import PROMPT_GUARD_S
from engine.types import Point, Rule
from protocol.values import TimeControl
from server.app import GomokuServer

HANG_S = 30.0  # only a hang takes this long


async def hot_seat_dialog(app: GomokuApp, pilot: Pilot[None]) -> HotSeatDialog:
    """The lobby of a --local client, then t: the hot-seat dialog."""
    await until(pilot, lambda: online(app) and isinstance(app.screen, LobbyScreen))
    await until(pilot, lambda: "Hot seat" in screen_text(app))
    await pilot.press("t")
    await until(pilot, lambda: isinstance(app.screen, HotSeatDialog))
    assert isinstance(app.screen, HotSeatDialog)
    return app.screen


async def hot_seat_game(app: GomokuApp, pilot: Pilot[None]) -> None:
    """A hot-seat game with the dialog's defaults (freestyle on 15x15, no clock), begun."""
    await hot_seat_dialog(app, pilot)
    await pilot.press("enter")
    await until(pilot, lambda: app.model.room is not None and app.model.room.state == "playing")


async def hot_seat_two_stones(app: GomokuApp, pilot: Pilot[None]) -> None:
    """A hot-seat game begun, with Player 1's stone at the centre (Enter) and Player 2's
    just above it: the board took each from whoever was to move."""
    await hot_seat_game(app, pilot)
    await pilot.press("enter")
    await until(pilot, lambda: stones(app) == 1)
    await pilot.press("up", "enter")
    await until(pilot, lambda: stones(app) == 2)


async def test_local_hot_seat(tmp_path: Path) -> None:
    """--local runs a server in the client; t seats two players on this terminal and
    the board takes moves for whoever is to move."""
    opts = PlayOptions(name="ann", local=True, config_dir=tmp_path, remember=False)
    app = GomokuApp(opts, backoff=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await hot_seat_two_stones(app, pilot)
        room = app.model.room
        assert room is not None
        assert room.picture.stones[Point(7, 6)] is not room.picture.stones[Point(7, 7)]
        assert "Player 2" in screen_text(app)
        # Both seats are this terminal's: neither is "(you)", and resigning says whose.
        assert "(you)" not in screen_text(app).splitlines()[0]
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert "Resign for ann?" in screen_text(app)  # (Player 1 is the client's name)
        await pilot.press("escape")


async def test_a_local_session_leaves_no_token_behind(tmp_path: Path) -> None:
    """The local server keeps nothing and stops with the client, so the identity file
    gains no token for it (it gained one dead token per run) and keeps the name it had."""
    save_identity(Identity(name="zoe", tokens={"example.org:8765": "kept"}), tmp_path)
    app = GomokuApp(PlayOptions(local=True, config_dir=tmp_path), backoff=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: online(app) and isinstance(app.screen, LobbyScreen))
        assert "zoe @ 127.0.0.1:" in screen_text(app)
    assert load_identity(tmp_path) == Identity(name="zoe", tokens={"example.org:8765": "kept"})


async def test_back_in_a_hot_seat_game_both_players_are_back(tmp_path: Path) -> None:
    """^L out of a hot-seat game, then g: Player 2 is back too, online, and moves (only
    the first player came back: Player 2 stayed offline, and the game ended with a win
    claimed or abandoned that nobody chose). Out of it again, ^Q in the lobby asks
    before it ends the game with the local server."""
    opts = PlayOptions(name="ann", local=True, config_dir=tmp_path, remember=False)
    app = GomokuApp(opts, backoff=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await hot_seat_game(app, pilot)
        await pilot.press("enter")
        await until(pilot, lambda: stones(app) == 1)
        await leave_for_the_lobby(app, pilot)
        await pilot.press("g")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))

        def player_2_online() -> bool:
            room = app.model.room
            return room is not None and room.white is not None and room.white.online

        await until(pilot, player_2_online, "Player 2 back")
        await pilot.press("up", "enter")
        await until(pilot, lambda: stones(app) == 2, "Player 2's move")
        # Away from it again, ^Q asks first: the game ends with this local server.
        await leave_for_the_lobby(app, pilot)
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog), "the question")
        assert "the game is over for good" in screen_text(app)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen))


async def test_hot_seat_plays_renju_swap2_on_a_clock_as_chosen(tmp_path: Path) -> None:
    """t asks for the room's settings (it always made freestyle on 15x15 with no clock):
    renju, swap2 and 1+0 are played as chosen, unrated; Player 1 places the opening's
    three stones, Player 2 answers the swap2 question with w and the game goes on."""
    opts = PlayOptions(name="ann", local=True, config_dir=tmp_path, remember=False)
    app = GomokuApp(opts, backoff=FAST)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await hot_seat_dialog(app, pilot)
        dialog.query_one("#rule", Select).value = "renju"
        dialog.query_one("#opening", Select).value = "swap2"
        dialog.query_one("#time", Input).value = "1+0"
        await pilot.click("#ok")
        await until(pilot, lambda: app.model.room is not None and app.model.room.state == "opening")
        room = app.model.room
        assert room is not None
        assert (room.rule, room.rated, room.time) == (
            Rule.RENJU,
            False,
            TimeControl(base_ms=60_000, inc_ms=0),
        )
        for keys in (["enter"], ["up", "enter"], ["right", "enter"]):
            await pilot.press(*keys)
        await until(pilot, lambda: "w take white" in screen_text(app), "the swap2 question")
        await pilot.pause(PROMPT_GUARD_S + 0.1)  # a key typed on before it shows is no answer
        await pilot.press("w")
        await until(pilot, lambda: app.model.room is not None and app.model.room.state == "playing")


async def test_in_hot_seat_a_takeback_takes_back_the_stone_just_played(tmp_path: Path) -> None:
    """Player 2 misplaces a stone, ^T, and the question is Player 1's to answer: y takes
    back that one stone (asked for the player to move, ^T took back Player 1's stone
    before it too)."""
    opts = PlayOptions(name="ann", local=True, config_dir=tmp_path, remember=False)
    app = GomokuApp(opts, backoff=FAST)
    async with app.run_test(size=(100, 30)) as pilot:
        await hot_seat_two_stones(app, pilot)
        await pilot.press("ctrl+t")
        await until(pilot, lambda: "y accept" in screen_text(app), "the takeback question")
        await pilot.pause(PROMPT_GUARD_S + 0.1)
        await pilot.press("y")
        await until(pilot, lambda: stones(app) == 1, "one stone taken back")
        await pilot.pause(0.3)
        assert stones(app) == 1
        room = app.model.room
        assert room is not None
        assert room.moves == (Point(7, 7),)


async def test_hot_seat_is_not_offered_without_local(server: GomokuServer, tmp_path: Path) -> None:
    """Without --local the lobby offers no hot seat key."""
    async with running(server, tmp_path) as (app, pilot):
        assert "Hot seat" not in screen_text(app)
        await pilot.press("t")
        await pilot.pause(0.1)
        assert app.model.room is None


async def test_local_play_against_the_ai(tmp_path: Path) -> None:
    """--local starts a server and its own AI worker in the client: a offers the AI
    there too, and it plays (hot seat stays on offer)."""
    opts = PlayOptions(name="ann", local=True, config_dir=tmp_path, remember=False)
    app = GomokuApp(opts, backoff=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: online(app) and isinstance(app.screen, LobbyScreen))
        await until(pilot, lambda: "vs AI" in screen_text(app) and "Hot seat" in screen_text(app))
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, PlayAiDialog))
        app.screen.query_one("#seat", Select).value = "black"
        app.screen.query_one("#level", Select).value = "beginner"
        await pilot.click("#ok")
        await until(pilot, lambda: playing(app), "the local AI to sit down")
        room = app.model.room
        assert room is not None
        assert room.white is not None
        assert room.white.bot
        await pilot.press("enter")
        await until(pilot, lambda: stones(app) == 2, "the local AI's answer")


async def test_the_local_server_stops_with_its_client() -> None:
    """The pipe to the server's standard input closes with the client, however the
    client ends (a kill -9 included): the server and its worker stop then."""
    local = await start_local_server()
    try:
        assert await local.wait_for_ai()
        assert local.process.stdin is not None
        local.process.stdin.close()  # what the end of the client does to the pipe
        assert await asyncio.wait_for(local.process.wait(), HANG_S) == 0
    finally:
        await local.stop()


async def test_a_local_game_without_a_clock_has_no_move_limit() -> None:
    """A grandparent thinking ten minutes against the AI in a game with no clock lost on
    the move limit: the local server has none (welcome says 0)."""
    local = await start_local_server(ai=False)
    try:
        async with websockets.connect(
            f"ws://127.0.0.1:{local.port}/", subprotocols=[Subprotocol("gomoku.json")]
        ) as ws:
            await ws.send('{"type": "hello", "name": "grandpa"}')
            welcome = json.loads(await asyncio.wait_for(ws.recv(), HANG_S))
        assert welcome["type"] == "welcome"
        assert welcome["limits"]["untimed_move_ms"] == 0
    finally:
        await local.stop()


async def test_a_local_server_that_cannot_start_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that refuses its settings (here a bad limit in the environment) is an
    error naming what it said, not a client waiting for it."""
    monkeypatch.setitem(os.environ, "GOMOKU_MAX_ROOMS_PER_PLAYER", "lots")
    with pytest.raises(LocalServerError, match="GOMOKU_MAX_ROOMS_PER_PLAYER"):
        await start_local_server(ai=False)


async def test_a_local_server_started_beside_packages_of_the_same_names_is_ours(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Run from a directory holding packages named ``server`` and ``worker`` of its own
    (``python -m`` looks in the current directory first), the local server and its AI
    worker are still Gomoku Arena's: the AI comes."""
    for name in ("server", "worker"):
        decoy = tmp_path / name
        decoy.mkdir()
        (decoy / "__init__.py").write_text(f"raise SystemExit('not the gomoku {name}')\n")
        (decoy / "__main__.py").write_text("")
    monkeypatch.chdir(tmp_path)
    local = await start_local_server()
    try:
        assert await local.wait_for_ai()
    finally:
        await local.stop()
