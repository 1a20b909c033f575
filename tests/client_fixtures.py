"""Helpers of the terminal client's tests: the app connected to a real server at 80x24
(driven with Textual's pilot), waiting for what a person would wait for, and Bob, a
protocol client, in a game with it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from server_fixtures import Connect, TestClient
from textual.pilot import Pilot
from textual.screen import Screen

from client.address import ServerAddress
from client.app import GomokuApp
from client.options import PlayOptions
from client.screens.dialogs import ConfirmDialog
from client.screens.game import GameScreen
from client.screens.lobby import LobbyScreen
from client.screenshot import screen_text
from client.widgets.board import Board
from client.widgets.entry import PROMPT_GUARD_S
from protocol import events as ev
from protocol import messages as m
from protocol.backoff import Backoff
from server.app import GomokuServer

WAIT_S = 5.0
FAST = Backoff(initial=0.05, maximum=0.2, jitter=0.0)


async def until(pilot: Pilot[None], check: Callable[[], object], what: str = "") -> None:
    """Let the app run until ``check()`` is true (fails after WAIT_S)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while not check():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what or check}\n{screen_text(pilot.app)}")
        await pilot.pause(0.02)


@asynccontextmanager
async def running(
    server: GomokuServer,
    tmp_path: Path,
    name: str = "alice",
    *,
    first: type[Screen[None]] = LobbyScreen,
    port: int | None = None,
    **options: object,
) -> AsyncIterator[tuple[GomokuApp, Pilot[None]]]:
    """The client app connected to ``server`` as ``name`` (through ``port`` when given:
    a proxy in front of it), on the screen ``first`` (the lobby), at 80x24."""
    opts = PlayOptions(
        server=ServerAddress("127.0.0.1", port or server.port),
        name=name,
        config_dir=tmp_path / name,
        **options,  # type: ignore[arg-type]
    )
    app = GomokuApp(opts, backoff=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: online(app) and isinstance(app.screen, first))
        yield app, pilot


async def in_game_with_bob(
    app: GomokuApp,
    pilot: Pilot[None],
    connect: Connect,
    to: GomokuServer | None = None,
    opponent: str = "bob",
    **room: object,
) -> tuple[TestClient, str]:
    """Alice (the app) creates a room as Black; Bob (a protocol client, named
    ``opponent``) joins."""
    await app.send(m.CreateRoom(seat="black", **room))  # type: ignore[arg-type]
    await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
    assert app.model.room is not None
    room_id = app.model.room.id
    bob = await connect(opponent, to=to)
    await bob.join(room_id)
    await until(pilot, lambda: app.model.room is not None and app.model.room.state == "playing")
    board = app.screen.query_one(Board)
    await until(pilot, lambda: board.size.height > board.size_n, "the board laid out")
    await pilot.pause()
    return bob, room_id


async def bob_sees_move(bob: TestClient, point: str) -> None:
    moved = await bob.until_event(ev.Moved)
    assert moved.point == point


async def bob_plays(bob: TestClient, room: str, point: str) -> None:
    """Bob moves and sees his own move come back (so it is not mistaken for Alice's)."""
    await bob.move(room, point)
    await bob_sees_move(bob, point)


async def answer(pilot: Pilot[None], key: str) -> None:
    """Answer the prompt on screen: after its guard time, as a person reading it would."""
    await pilot.pause(PROMPT_GUARD_S)
    await pilot.press(key)


async def leave_for_the_lobby(app: GomokuApp, pilot: Pilot[None]) -> None:
    """^L in a game, y to the question: back on the lobby (the game goes on without us)."""
    await pilot.press("ctrl+l")
    await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
    await pilot.press("y")
    await until(pilot, lambda: isinstance(app.screen, LobbyScreen))


def online(app: GomokuApp) -> bool:
    return app.model.session.link.online


def stones(app: GomokuApp) -> int:
    return len(app.model.room.moves) if app.model.room is not None else -1


def log_text(app: GomokuApp) -> str:
    return "\n".join(line.text for line in app.model.log)


def playing(app: GomokuApp) -> bool:
    return app.model.room is not None and app.model.room.state == "playing"
