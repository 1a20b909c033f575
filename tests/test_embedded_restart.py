"""The embedded store across restarts of a real ``gomoku-server`` process: with no Redis,
players, their tokens, ratings and finished games survive a stop (SIGTERM) and a crash
(SIGKILL) in the data file; a game being played survives the stop, not the crash (and
resuming it then says the room is gone), a room waiting for an opponent neither;
``--ephemeral`` keeps nothing."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live_server import LiveServer, start
from live_server import stop as stop_process
from server_fixtures import TestClient
from websockets.asyncio.client import connect as ws_connect

from engine import Rule
from protocol import messages as m
from protocol.events import GameOver, GameStarted, Moved

WIN_FOR_BLACK = ["h8", "h9", "i8", "i9", "j8", "j9", "k8", "k9", "l8"]


async def connect(opened: list[TestClient], live: LiveServer) -> TestClient:
    client = TestClient(await ws_connect(live.url, compression=None, max_size=1 << 20))
    opened.append(client)
    return client


async def rated_game_to_the_end(black: TestClient, white: TestClient) -> str:
    """Black creates a rated renju room, White joins, Black makes five: the room id."""
    room = (await black.create(rule=Rule.RENJU, rated=True, seat="black")).room.id
    await white.join(room)
    await black.until_event(GameStarted)
    for i, point in enumerate(WIN_FOR_BLACK):
        await (black if i % 2 == 0 else white).move(room, point)
        for player in (black, white):
            assert (await player.until_event(Moved)).point == point
    over = await white.until_event(GameOver)
    assert over.winner == "black"
    return room


def played(message: m.ServerMessage, point: str) -> bool:
    """Whether ``message`` is the event of a stone on ``point``."""
    return (
        isinstance(message, m.Event)
        and isinstance(message.event, Moved)
        and (message.event.point == point)
    )


async def ask(client: TestClient, message: Any, kind: type[Any]) -> Any:
    """Send ``message`` and wait for its reply of type ``kind`` (skipping events)."""
    await client.send(message)
    reply = await client.until(lambda x: isinstance(x, kind | m.Error))
    assert isinstance(reply, kind), reply
    return reply


async def renju_rating(client: TestClient) -> tuple[int, int]:
    """The player's renju rating and games, as ``get_profile`` shows them."""
    profile = await ask(client, m.GetProfile(), m.Profile)
    (renju,) = [s for s in profile.ratings if s.rule == "renju"]
    return renju.rating, renju.games


async def stop(live: LiveServer, how: str) -> None:
    """Stop the server with SIGTERM (a clean exit) or SIGKILL (a crash); the event loop
    runs meanwhile, so open clients answer the server's closing handshake."""
    live.process.send_signal(signal.SIGKILL if how == "SIGKILL" else signal.SIGTERM)
    status = await asyncio.to_thread(live.process.wait, 10)
    assert status == (-signal.SIGKILL if how == "SIGKILL" else 0)
    stop_process(live.process)


@contextlib.contextmanager
def server_with(args: list[str], tmp: Path, **kwargs: Any) -> Iterator[LiveServer]:
    """A started server whose log is in ``tmp``; stopped (if still running) on exit."""
    live = start(args, tmp / f"server-{len(list(tmp.glob('*.log')))}.log", **kwargs)
    try:
        yield live
    finally:
        if live.process.poll() is None:
            stop_process(live.process)


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
async def test_players_ratings_and_games_outlive_a_restart(
    how: str, tmp_path: Path, clients: list[TestClient]
) -> None:
    """After a rated game, the server is stopped (or killed) and started again on the same
    data file: each token resumes the same player with the rating and the archived game,
    and resuming a room that was still waiting says the room is gone."""
    data = ["--data", str(tmp_path / "server.sqlite3")]
    with server_with(data, tmp_path) as live:
        ann, bob = await connect(clients, live), await connect(clients, live)
        await ann.hello("ann")
        await bob.hello("bob")
        game = await rated_game_to_the_end(ann, bob)
        ann_rating = await renju_rating(ann)  # answered from the data file
        assert ann_rating[0] > 1500
        assert ann_rating[1] == 1
        waiting = (await ann.create(seat="white")).room.id
        await stop(live, how)
    with server_with(data, tmp_path) as live:
        again = await connect(clients, live)
        welcome = await again.hello("ann", token=ann.token)
        assert (welcome.player, welcome.resumed) == (ann.player, True)
        assert welcome.rooms == []  # the waiting room did not survive
        assert await renju_rating(again) == ann_rating
        games = await ask(again, m.ListGames(), m.Games)
        assert [g.id for g in games.items] == [game]
        record = await ask(again, m.GetRecord(game=game, format="moves"), m.Record)
        assert record.text.split() == WIN_FOR_BLACK
        await again.send(m.Resume(room=waiting, after=3, id=8))
        gone = await again.expect_error("no_such_room")
        assert gone.re == 8
        assert "go back to the lobby" in gone.message
        bob_again = await connect(clients, live)
        assert (await bob_again.hello("bob", token=bob.token)).player == bob.player
        assert (await renju_rating(bob_again))[0] < 1500
        stranger = await connect(clients, live)
        assert (await stranger.hello("cy")).player not in (ann.player, bob.player)
        await stop(live, "SIGTERM")


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
async def test_a_game_being_played_goes_on_after_a_stop_not_after_a_crash(
    how: str, tmp_path: Path, clients: list[TestClient]
) -> None:
    """Two stones down, the server is stopped and started again on the same data file:
    both players come back with their tokens, resume the room and play on, and the
    game ends as usual. Killed instead, the game is gone with the process, and the next
    start says so in its log (it went without a word)."""
    data = ["--data", str(tmp_path / "server.sqlite3")]
    with server_with(data, tmp_path) as live:
        ann, bob = await connect(clients, live), await connect(clients, live)
        await ann.hello("ann")
        await bob.hello("bob")
        room = (await ann.create(seat="black")).room.id
        await bob.join(room)
        await ann.until_event(GameStarted)
        for player, point in ((ann, "h8"), (bob, "h9")):
            await player.move(room, point)
            assert (await ann.until_event(Moved)).point == point
        await stop(live, how)
    with server_with(data, tmp_path) as live:
        said = (tmp_path / "server-1.log").read_text()
        unclean = "did not stop cleanly (killed, crashed, or stopped on a full disk): the games"
        assert (unclean in said) == (how == "SIGKILL"), said
        ann2, bob2 = await connect(clients, live), await connect(clients, live)
        assert (await ann2.hello("ann", token=ann.token)).rooms == (
            [room] if how == "SIGTERM" else []
        )
        await bob2.hello("bob", token=bob.token)
        if how == "SIGKILL":
            await ann2.send(m.Resume(room=room, after=0))
            await ann2.expect_error("no_such_room")
            return
        for player in (ann2, bob2):
            await player.send(m.Resume(room=room, after=0))
        for i, point in enumerate(WIN_FOR_BLACK[2:]):
            await (ann2 if i % 2 == 0 else bob2).move(room, point)
            await bob2.until(functools.partial(played, point=point))
        over = await bob2.until_event(GameOver)
        assert (over.winner, over.reason) == ("black", "five")
        await stop(live, "SIGTERM")


async def test_ephemeral_keeps_nothing_and_the_default_file_is_in_the_data_dir(
    tmp_path: Path, clients: list[TestClient]
) -> None:
    """With no --data, the file is the user's data directory's (XDG_DATA_HOME here) and a
    token outlives a restart; with --ephemeral nothing is written there and a token does
    not outlive one."""
    home = {"XDG_DATA_HOME": str(tmp_path / "xdg")}
    default_file = tmp_path / "xdg" / "gomoku-arena" / "server.sqlite3"
    with server_with([], tmp_path, env=home, ephemeral=False) as live:
        first = await connect(clients, live)
        await first.hello("ann")
        await stop(live, "SIGTERM")
    assert default_file.is_file()
    with server_with([], tmp_path, env=home, ephemeral=False) as live:
        back = await connect(clients, live)
        assert (await back.hello("ann", token=first.token)).player == first.player
        await stop(live, "SIGTERM")
    default_file.unlink()
    for _ in range(2):
        with server_with(["--ephemeral"], tmp_path, env=home) as live:
            forgetful = await connect(clients, live)
            await forgetful.send(m.Hello(name="ann", token=first.token))
            await forgetful.expect_error("bad_token")
            await stop(live, "SIGTERM")
    assert not default_file.exists()


def test_a_second_server_on_the_same_data_file_is_refused(tmp_path: Path) -> None:
    """The data file is locked while a server has it: a second one does not start."""
    data = ["--data", str(tmp_path / "server.sqlite3")]
    script = shutil.which("gomoku-server", path=str(Path(sys.executable).parent))
    assert script is not None
    with server_with(data, tmp_path):
        second = subprocess.run(
            [script, "--port", "0", *data], capture_output=True, text=True, timeout=30, check=False
        )
    assert second.returncode == 2
    assert second.stderr.splitlines()[-1].endswith(
        "is locked by another program (another gomoku-server on the same file?)"
    )
