"""The terminal client's link to a real server: a refused hello is tried again, a dropped
link resumes the game and catches up, and a restarted client returns to its seated game."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from client_fixtures import (
    FAST,
    bob_plays,
    bob_sees_move,
    in_game_with_bob,
    log_text,
    running,
    stones,
    until,
)
from redis_fixtures import RedisServer
from server_fixtures import Connect, private_pair

from client.address import ServerAddress
from client.app import GomokuApp
from client.connection import Connection
from client.options import PlayOptions
from client.screens.connect import ConnectScreen
from client.screens.game import GameScreen
from client.screenshot import screen_text
from client.state.model import Action
from client.state.room import RoomGone
from client.state.session import ConnectionChanged
from protocol import events as ev
from protocol import messages as m
from protocol.backoff import Backoff
from server.app import GomokuServer
from server.store.redis import RedisStore


async def test_a_hello_refused_during_an_outage_is_tried_again(
    make_server: Callable[..., Awaitable[GomokuServer]], persistent_redis: RedisServer
) -> None:
    """With the server's Redis down, hello gets `unavailable`: the client shows why and
    keeps trying with a growing backoff, and is welcomed once Redis is back."""
    server = await make_server(store=RedisStore(persistent_redis.url, poll_interval_s=0.2))
    persistent_redis.stop(kill=True)
    seen: list[Action] = []
    retried = asyncio.Event()

    def dispatch(action: Action) -> None:
        seen.append(action)
        match action:
            case ConnectionChanged(attempt=attempt, detail=detail) if attempt >= 2:
                if "unavailable" in detail:
                    retried.set()
            case _:
                pass

    backoff = Backoff(0.05, 0.4)
    address = ServerAddress("127.0.0.1", server.port)
    link = Connection(address, "ann", dispatch=dispatch, backoff=backoff)
    task = asyncio.create_task(link.run())
    try:
        await asyncio.wait_for(retried.wait(), 30)
        refusals = [a for a in seen if isinstance(a, m.Error)]
        assert refusals
        assert {e.code for e in refusals} == {"unavailable"}
        assert not link.online
        persistent_redis.start()
        await asyncio.wait_for(link.wait_welcomed(), 30)
        assert any(isinstance(a, m.Welcome) for a in seen)
    finally:
        await link.close()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_reconnect_resumes_and_catches_up(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """A dropped link shows 'reconnecting', disables moves, then resumes with the token
    and reports the moves that arrived meanwhile."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await pilot.press("enter")
        await bob_sees_move(bob, "h8")
        me = app.model.me
        conn = app.connection
        assert conn is not None
        assert conn._ws is not None
        # The first retry waits 2 s (the tests' usual 50 ms raced bob's move under load:
        # the client was back before he played, with nothing to catch up).
        conn.backoff = Backoff(initial=2.0, maximum=2.0, jitter=0.0)
        conn._ws.transport.abort()  # the network drops: no close handshake
        await until(pilot, lambda: not app.model.session.link.online, "the reconnecting state")
        assert "Connection lost" in screen_text(app)
        await bob_plays(bob, room, "a1")
        assert not app.model.session.link.online, "back before bob moved: nothing to catch up"
        await until(pilot, lambda: "Back, 1 move caught up." in screen_text(app))
        assert app.model.me == me
        assert stones(app) == 2
        await pilot.press("right", "enter")
        await bob_sees_move(bob, "i8")


async def test_return_to_a_seated_game_after_restarting_the_client(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """The remembered token brings the same player back, and straight into the game
    (not the lobby with 'g to return'), which goes on."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        first = app.model.me
        await pilot.press("enter")
        await bob_sees_move(bob, "h8")
    async with running(server, tmp_path, first=GameScreen) as (app, pilot):
        assert app.model.me == first
        assert app.model.room is not None
        assert app.model.room.id == room
        await until(pilot, lambda: stones(app) == 1)
        assert "1 move played so far." in log_text(app)
        await bob.move(room, "a1")
        await until(pilot, lambda: stones(app) == 2)


async def test_restarted_the_client_returns_to_the_game_on_not_one_that_ended(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Alice also still sits in a finished game (it ended while her terminal was
    closed) whose room sorts before her running one: started again, the client shows
    the running game."""
    async with running(server, tmp_path) as (app, pilot):
        bob, first = await in_game_with_bob(app, pilot, connect)
        await app.send(m.CreateRoom(seat="black"))
        await until(pilot, lambda: app.model.room is not None and app.model.room.id != first)
        assert app.model.room is not None
        second = app.model.room.id
        carl = await connect("carl")
        await carl.join(second)
        await until(pilot, lambda: app.model.room is not None and app.model.room.state == "playing")
    # Room ids are random: the one that sorts first ends while Alice is away.
    finished, live = sorted([first, second])
    opponent = bob if finished == first else carl
    await opponent.send(m.Resign(room=finished))
    await opponent.until_event(ev.GameOver)
    async with running(server, tmp_path, first=GameScreen) as (app, pilot):
        await until(
            pilot, lambda: app.model.room is not None and app.model.room.id == live, "the live game"
        )
        assert app.model.room is not None
        assert app.model.room.state == "playing"


async def test_back_on_a_server_played_on_the_remembered_name_connects_at_once(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Started without --name, the client asks for a name the first time, but on a
    server this identity has played on it connects at once as the remembered player and
    goes back to the game left running; another server still asks."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        first = app.model.me
        await pilot.press("enter")
        await bob_sees_move(bob, "h8")
    address = ServerAddress("127.0.0.1", server.port)
    again = GomokuApp(PlayOptions(server=address, config_dir=tmp_path / "alice"), backoff=FAST)
    async with again.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(again.screen, GameScreen), "the game, at once")
        assert again.model.me == first
        assert again.model.room is not None
        assert again.model.room.id == room
    elsewhere = ServerAddress("127.0.0.1", server.port + 1)
    other = GomokuApp(PlayOptions(server=elsewhere, config_dir=tmp_path / "alice"), backoff=FAST)
    async with other.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(other.screen, ConnectScreen), "the name screen")


async def test_a_spectator_of_a_private_game_watches_again_after_a_drop(
    server: GomokuServer, connect: Connect
) -> None:
    """A spectator of a private game whose network dropped was told the room was gone
    (its resume is refused: a spectator whose last connection closed is no longer one),
    though the game went on. The client joins it again by the code it watched it by,
    and the moves made meanwhile come with it."""
    alice, bob, made = await private_pair(connect)
    room, code = made.room.id, made.room.code
    assert code is not None
    seen: list[Action] = []
    changed = asyncio.Event()

    def dispatch(action: Action) -> None:
        seen.append(action)
        changed.set()

    async def wait_for(condition: Callable[[], bool]) -> None:
        async with asyncio.timeout(10):
            while not condition():
                changed.clear()
                await changed.wait()

    address = ServerAddress("127.0.0.1", server.port)
    link = Connection(address, "cy", dispatch=dispatch, backoff=Backoff(0.05, 0.2))
    task = asyncio.create_task(link.run())
    try:
        await asyncio.wait_for(link.wait_welcomed(), 10)
        await link.send(m.Join(id=link.next_id(), code=code.lower(), role="spectator"))
        await wait_for(lambda: any(isinstance(a, m.Snapshot) for a in seen))
        assert link._ws is not None
        link._ws.transport.abort()  # the network drops: no close handshake
        await alice.move(room, "h8")
        await wait_for(lambda: sum(isinstance(a, m.Snapshot) for a in seen) == 2)
        again = [a for a in seen if isinstance(a, m.Snapshot)][-1]
        assert (again.room.id, again.room.moves) == (room, ["h8"])
        assert not any(isinstance(a, RoomGone) for a in seen)
        await bob.move(room, "a1")
        await wait_for(lambda: any(isinstance(a, m.Event) and a.seq > again.room.seq for a in seen))
    finally:
        await link.close()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_a_server_shutting_down_is_said_so_not_as_a_lost_network(
    make_server: Callable[..., Awaitable[GomokuServer]],
) -> None:
    """The server's 1001 close reads 'the server is restarting', not 'closed by the server',
    and the next try comes within 2 s whatever the back-off (it grew to 8 s, and a player
    on the move came back 8 s after the servers, charged for them)."""
    server = await make_server()
    said: list[str] = []
    waits: list[float] = []
    lost = asyncio.Event()

    def dispatch(action: Action) -> None:
        if isinstance(action, ConnectionChanged) and action.status == "reconnecting":
            said.append(action.detail)
            assert action.next_try_at is not None
            waits.append(action.next_try_at - time.monotonic())
            lost.set()

    address = ServerAddress("127.0.0.1", server.port)
    link = Connection(address, "ann", dispatch=dispatch, backoff=Backoff(5.0, 5.0))
    task = asyncio.create_task(link.run())
    try:
        await asyncio.wait_for(link.wait_welcomed(), 30)
        await server.stop()
        await asyncio.wait_for(lost.wait(), 30)
        assert said == ["the server is restarting or shutting down"]
        assert waits[0] <= 2.0, waits
    finally:
        await link.close()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
