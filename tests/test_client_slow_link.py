"""The terminal client on a slow link (a proxy that holds the server's bytes back):
a stone sent shows as on its way at once, and a second one waits for it instead of
reaching the server as a stale move; keys typed while a room's screen is on its way
go to it."""

from __future__ import annotations

from pathlib import Path

from client_fixtures import in_game_with_bob, log_text, running, until
from link_fixtures import slow_link
from server_fixtures import Connect

from client.app import GomokuApp
from client.screenshot import screen_text
from engine.notation import format_point
from protocol import events as ev
from server.app import GomokuServer

DELAY_S = 1.5  # room for a loaded machine to draw "sending" and take i9 before the echo


def played(app: GomokuApp) -> list[str]:
    """The stones on the client's board, in order."""
    room = app.model.room
    assert room is not None
    return [format_point(point, room.size) for point in room.moves]


async def test_a_stone_on_a_slow_link_shows_on_its_way_and_a_second_waits(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """h8 Enter on a link 1.5 s slow: the status line says "sending h8..." at once; i9
    Enter meanwhile is not sent ("on its way"), so the server sees one stone and the
    log no refusal; once the stone is back the turn is Bob's."""
    async with (
        slow_link(server.port, DELAY_S) as port,
        running(server, tmp_path, port=port) as (app, pilot),
    ):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await pilot.press("h", "8", "enter")
        await until(pilot, lambda: "sending h8..." in screen_text(app), "sending h8...")
        assert played(app) == []
        await pilot.press("i", "9", "enter")
        said = "i9 not played: your move h8 is still on its way."
        await until(pilot, lambda: said in log_text(app))
        assert (await bob.until_event(ev.Moved)).point == "h8"
        await until(pilot, lambda: "bob to move" in screen_text(app), "bob to move")
        assert played(app) == ["h8"]
        await bob.move(room, "a1")
        assert (await bob.until_event(ev.Moved)).point == "a1"  # no i9 came in between
        await until(pilot, lambda: len(played(app)) == 2)
        assert played(app) == ["h8", "a1"]
        assert "sending" not in screen_text(app)
        assert "moved on" not in log_text(app)  # the server refused nothing


async def test_a_move_typed_right_after_enter_on_a_room_is_played_there(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Enter on Bob's room, then h8 Enter before the game screen has come (the link is
    slow): h8 is played in that game (the h went to the lobby, and "8" to the chat); a
    second Enter typed before any text is the lobby's, and plays nothing."""
    async with (
        slow_link(server.port, DELAY_S) as port,
        running(server, tmp_path, port=port) as (app, pilot),
    ):
        bob = await connect("bob")
        room = (await bob.create(seat="white")).room.id
        await until(pilot, lambda: "bob 1500" in screen_text(app))
        await pilot.press("enter", "enter", "h", "8", "enter")
        moved = await bob.until_event(ev.Moved)
        assert (moved.point, moved.move_no) == ("h8", 1)
        assert app.model.room is not None
        assert app.model.room.id == room
        await until(pilot, lambda: played(app) == ["h8"])
        assert "alice: " not in log_text(app)  # she said nothing ("alice: 8")
