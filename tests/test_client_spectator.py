"""A spectator's screen, against a real server: no controls of the players, a hint
shown as a spectator's, and the players' rematch followed into its new room."""

from __future__ import annotations

from pathlib import Path

from client_fixtures import running, until
from server_fixtures import Connect, agree_rematch, private_pair, seated_pair
from textual.widgets import Input

from client.screens.game import GameScreen
from client.screenshot import screen_text
from client.widgets.board import Board
from protocol import messages as m
from protocol.events import ChatPosted
from protocol.values import TimeControl
from server.app import GomokuServer


async def test_a_spectator_sees_a_spectators_screen_and_follows_the_rematch(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    alice, bob, room = await seated_pair(connect)
    async with running(server, tmp_path, "carol") as (app, pilot):
        await app.send(m.Join(room=room, role="spectator"))
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        await alice.move(room, "h8")
        await until(pilot, lambda: app.model.room is not None and len(app.model.room.moves) == 1)
        await until(pilot, lambda: "? Help" in screen_text(app), "the footer")
        screen = app.screen
        assert isinstance(screen, GameScreen)
        text = screen_text(app)
        footer = next(line for line in text.splitlines() if "? Help" in line)
        for absent in ("Play", "Resign", "Draw", "Takeback", "Rematch"):
            assert absent not in footer, footer
        assert "^G Hint (watching)" in footer
        assert "you are watching" in text
        assert "type to chat" in text
        assert screen.query_one("#command", Input).placeholder.startswith("type to chat")
        await pilot.press("enter")  # Enter on a spectator's board plays nothing
        await pilot.press("ctrl+r", "ctrl+d")
        await pilot.pause(0.1)
        assert isinstance(app.screen, GameScreen)
        assert isinstance(app.focused, Board)
        assert app.model.room is not None
        assert len(app.model.room.moves) == 1

        await alice.send(m.Resign(room=room))
        await until(pilot, lambda: app.model.room is not None and app.model.room.state == "over")
        await agree_rematch(bob, alice, room)
        await until(
            pilot,
            lambda: app.model.room is not None and app.model.room.id != room,
            "the rematch room",
        )
        new = app.model.room
        assert new is not None
        assert new.color_of(app.model.me) is None  # still watching
        black = new.black
        assert black is not None
        assert black.name == "bob"  # colours swapped
        started = "Game started: bob (black) vs alice (white), no clock."
        assert started in [line.text for line in app.model.log]


async def test_a_spectator_who_types_a_point_says_it_in_the_chat(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """A spectator plays no stone: a point typed alone ("k8", to show it) is a chat line,
    not "You are watching this game." with the line thrown away."""
    alice, _bob, room = await seated_pair(connect)
    async with running(server, tmp_path, "carol") as (app, pilot):
        await app.send(m.Join(room=room, role="spectator"))
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        await pilot.press("k", "8", "enter")
        said = await alice.until_event(ChatPosted)
        assert (said.name, said.text) == ("carol", "k8")
        assert app.model.room is not None
        assert not app.model.room.moves


async def test_a_spectators_status_line_fits_80_columns(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Watching a rated renju game on 19x19 with a clock, at 80 columns: the second
    status line keeps whose move it is and "you are watching" whole, and leaves out
    what the screen shows elsewhere (the time control: the clocks are above)."""
    maximilianus = await connect("maximilianus")
    snap = await maximilianus.create(
        seat="black",
        rule="renju",
        size=19,
        rated=True,
        time=TimeControl(base_ms=300_000, inc_ms=3_000),
    )
    bob = await connect("bob")
    await bob.join(snap.room.id)
    async with running(server, tmp_path, "carol") as (app, pilot):
        await app.send(m.Join(room=snap.room.id, role="spectator"))
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        await until(pilot, lambda: "you are watching" in screen_text(app), "the status line")
        second = screen_text(app).splitlines()[1].rstrip()
        assert len(second) <= 80
        assert (
            second
            == " move 1 · maximilianus to move (black) · renju 19x19 · rated · you are watching"
        )


async def test_a_spectator_of_a_private_game_follows_its_rematch(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """A private room is watched by its code: the spectator follows the rematch by the
    code its event gives (by the room's id the join was refused, and she stayed behind)."""
    alice, bob, snap = await private_pair(connect)
    assert snap.room.code is not None
    room = snap.room.id
    async with running(server, tmp_path, "carol") as (app, pilot):
        await app.send(m.Join(code=snap.room.code, role="spectator"))
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        await alice.send(m.Resign(room=room))
        await until(pilot, lambda: app.model.room is not None and app.model.room.state == "over")
        await agree_rematch(bob, alice, room)
        await until(
            pilot,
            lambda: app.model.room is not None and app.model.room.id != room,
            "the rematch room",
        )
        new = app.model.room
        assert new is not None
        assert new.state == "playing"
        assert new.color_of(app.model.me) is None  # watching
