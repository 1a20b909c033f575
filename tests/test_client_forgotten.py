"""The server forgot us: after a restart it no longer knows the player (bad_token) or
the room on screen (no_such_room to resume). The client says so in words, shows the
lobby with a working identity, and leaves no screen showing a dead game."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from client_fixtures import in_game_with_bob, running, stones, until
from server_fixtures import Connect, TestClient, make_config

import client.connection
from client.connection import CATCH_UP_QUIET
from client.screens.dialogs import NoticeDialog
from client.screens.game import GameScreen
from client.screens.lobby import LobbyScreen
from client.screenshot import screen_text
from protocol import messages as m
from server.app import GomokuServer
from server.config import Timers
from server.keys import Keys
from server.store import Store
from server.store.datafile import DataFile
from server.store.embedded import EmbeddedStore
from server.store.redis import RedisStore

MakeServer = Callable[..., Awaitable[GomokuServer]]


async def restart(
    make_server: MakeServer,
    first: GomokuServer,
    bob: TestClient,
    store: Callable[[], Store] | None = None,
) -> None:
    """Bob goes, the server stops, and a new one starts on the same port with the store
    ``store()`` opens (None: a new memory store), as an operator restarting it would."""
    port = first.port
    await bob.ws.close()
    await first.stop()
    await make_server(port=port, store=store() if store is not None else None)


async def test_a_restarted_server_that_forgot_the_player(
    make_server: MakeServer, connect: Connect, tmp_path: Path
) -> None:
    """A memory-store server restarts mid-game: the client is told the server forgot
    it, is back in the lobby as a new player, and can start a game at once."""
    first = await make_server()
    async with running(first, tmp_path) as (app, pilot):
        bob, _ = await in_game_with_bob(app, pilot, connect, to=first)
        await pilot.press("enter")
        await until(pilot, lambda: stones(app) == 1)
        old_player = app.model.me
        await restart(make_server, first, bob)

        await until(pilot, lambda: isinstance(app.screen, NoticeDialog), "the notice")
        await pilot.pause()
        text = screen_text(app)
        assert "The server forgot you" in text
        assert "you are a new player there now" in text.replace("\n", " ")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        assert app.model.room is None
        assert app.model.seated_rooms == ()
        await until(pilot, lambda: app.model.session.link.online)
        assert app.model.me not in (None, old_player)
        assert "game in progress" not in screen_text(app)
        await app.send(m.CreateRoom(seat="black"))
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "a new game")


@pytest.mark.parametrize("quiet_s", [CATCH_UP_QUIET, 0.0])
async def test_a_room_that_expired_while_the_client_was_away(
    make_server: MakeServer,
    connect: Connect,
    tmp_path: Path,
    redis_url: str,
    quiet_s: float,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On Redis, the room on screen expires while the client's network is down: the
    resume is refused with no_such_room (or the server, looking at the room first, finds
    it gone), the client says so and shows the lobby, still the same player; also when
    the refusal comes after the client took the resume's catch-up as over (a busy
    server: quiet time 0 here)."""
    monkeypatch.setattr(client.connection, "CATCH_UP_QUIET", quiet_s)
    first = await make_server(store=RedisStore(redis_url, poll_interval_s=0.2))
    async with running(first, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect, to=first)
        me = app.model.me
        await bob.ws.close()
        redis = aioredis.Redis.from_url(redis_url)
        try:  # the room expires (nobody is told until they ask for it)
            keys = Keys()
            await redis.delete(keys.room_state(room), keys.room_events(room))
        finally:
            await redis.aclose()
        conn = app.connection
        assert conn is not None
        assert conn._ws is not None
        conn._ws.transport.abort()  # the network drops; the client reconnects and resumes

        await until(pilot, lambda: isinstance(app.screen, NoticeDialog), "the notice")
        await pilot.pause()
        text = screen_text(app).replace("\n", " ")
        # Either the resume is refused, or (a loaded machine: the network's drop seen
        # late) the server's own look at the room, which finds it gone, came first.
        gone = "The game is gone" in text and f"Room {room} is gone" in text
        closed = "The room has closed" in text and f"Room {room} has closed" in text
        assert gone or closed, text
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        assert app.model.room is None
        assert room not in app.model.seated_rooms
        assert app.model.me == me
        assert app.model.session.link.online


async def test_a_finished_room_that_closes_on_screen(
    make_server: MakeServer, connect: Connect, tmp_path: Path
) -> None:
    """The finished game on screen reaches the end of its room's time on the server: the
    client says the room closed and why (not that the server restarted), and shows the
    lobby, the player still the same."""
    timers = Timers(tick_interval_s=0.02, purge_interval_s=0.05, finished_room_ttl_ms=1_500)
    first = await make_server(make_config(timers=timers))
    async with running(first, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect, to=first)
        me = app.model.me
        await bob.send(m.Resign(room=room))
        await until(pilot, lambda: app.model.room is not None and app.model.room.state == "over")

        await until(pilot, lambda: isinstance(app.screen, NoticeDialog), "the notice")
        await pilot.pause()
        text = screen_text(app).replace("\n", " ")
        assert "The room has closed" in text
        assert f"Room {room} has closed: a finished game's room stays" in text
        assert "restarted" not in text
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        assert app.model.room is None
        assert app.model.me == me
        assert app.model.session.link.online


def embedded_store(path: Path) -> EmbeddedStore:
    """The store gomoku-server runs with by default: players in a data file, live
    games in memory."""
    data = DataFile(path)
    data.open()
    return EmbeddedStore(data)


async def test_a_restart_of_the_default_server_keeps_the_game_and_the_player(
    make_server: MakeServer, connect: Connect, tmp_path: Path
) -> None:
    """The default (embedded) server restarts mid-game: its data file kept the game, so
    the client reconnects to it, still the same player on the same board, and Bob,
    back with his token, plays on (it said the game was gone, and the lobby came)."""
    data = tmp_path / "server.sqlite3"
    first = await make_server(store=embedded_store(data))
    async with running(first, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect, to=first)
        await pilot.press("enter")
        await until(pilot, lambda: stones(app) == 1)
        me = app.model.me
        token = bob.token
        port = first.port
        await bob.ws.close()
        await first.stop()
        second = await make_server(port=port, store=embedded_store(data))

        await until(pilot, lambda: app.model.session.link.online, "back online")
        bob = await connect(to=second)
        await bob.hello("bob", token)
        await bob.send(m.Resume(room=room, after=0))
        await bob.move(room, "a1")
        await until(pilot, lambda: stones(app) == 2, "Bob's stone after the restart")
        assert isinstance(app.screen, GameScreen)
        assert app.model.room is not None
        assert app.model.room.id == room
        assert app.model.me == me
        assert not isinstance(app.screen, NoticeDialog)
