"""The lobby driven like a person would (Textual's pilot), against a real server on
127.0.0.1: new rooms, the live list, joining and watching, quick match, private rooms
by code, and the cap on open rooms said in words."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import msgspec
from client_fixtures import in_game_with_bob, leave_for_the_lobby, running, until
from server_fixtures import Connect
from textual.events import MouseScrollUp
from textual.pilot import Pilot
from textual.screen import ModalScreen, Screen
from textual.widgets import Checkbox, DataTable, Input, Select, Static

from client.address import room_link
from client.app import GomokuApp
from client.screens.dialogs import (
    AiGameDialog,
    CodeDialog,
    CreateRoomDialog,
    PlayAiDialog,
    QuickMatchDialog,
)
from client.screens.game import GameScreen
from client.screens.lobby import LobbyScreen
from client.screenshot import screen_text
from client.state.model import Action
from engine.types import Rule
from protocol import messages as m
from protocol.events import GameOver
from server.app import GomokuServer
from server.config import ConnectionLimits


async def test_lobby_create_room_dialog(server: GomokuServer, tmp_path: Path) -> None:
    """n opens the new-room dialog; its options reach the server."""
    async with running(server, tmp_path) as (app, pilot):
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, CreateRoomDialog))
        dialog = app.screen
        dialog.query_one("#size", Input).value = "19"
        dialog.query_one("#time", Input).value = "5+3"
        await pilot.click("#private")
        await pilot.click("#ok")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        room = app.model.room
        assert room is not None
        assert room.size == 19
        assert room.private
        assert room.code
        assert room.time is not None
        assert (room.time.base_ms, room.time.inc_ms) == (300_000, 3_000)
        assert f"invite code {room.code}" in "\n".join(line.text for line in app.model.log)


async def test_a_clock_typed_into_the_board_size_is_refused_saying_so(
    server: GomokuServer, tmp_path: Path
) -> None:
    """1+0 typed into Board size (a fast typist one field short of Clock) is refused with
    what the field holds; it became a board of 10 without a word, and no room is made."""
    async with running(server, tmp_path) as (app, pilot):
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, CreateRoomDialog))
        dialog = app.screen
        dialog.query_one("#size", Input).value = "1+0"
        await pilot.click("#ok")
        await until(
            pilot,
            lambda: "Board size: '1+0' is not a number from 5 to 26." in screen_text(app),
        )
        assert isinstance(app.screen, CreateRoomDialog)
        assert app.model.room is None


async def test_a_size_written_as_20x20_makes_a_room_of_that_size(
    server: GomokuServer, tmp_path: Path
) -> None:
    """The size field says its range, takes 20x20 as 20 (it was refused as no number),
    and the game's line offers a point of the board (c3 on 5x5, where h8 is none)."""
    async with running(server, tmp_path) as (app, pilot):
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, CreateRoomDialog))
        assert "Board (5-26)" in screen_text(app)
        app.screen.query_one("#size", Input).value = "20x20"
        await pilot.click("#ok")
        await until(pilot, lambda: app.model.room is not None)
        assert app.model.room is not None
        assert app.model.room.size == 20
        await pilot.press("ctrl+l")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "back in the lobby")
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, CreateRoomDialog))
        app.screen.query_one("#size", Input).value = "5"
        await pilot.click("#ok")
        await until(pilot, lambda: "type c3 to play" in screen_text(app))


async def form_offers(
    pilot: Pilot[None], key: str, form: type[Screen[Any]], fields: dict[str, Any]
) -> tuple[object, ...]:
    """The values the form ``key`` opens shows in ``fields`` (id: widget class), in
    order; the form is closed again with Esc."""
    await pilot.press(key)
    await until(pilot, lambda: isinstance(pilot.app.screen, form))
    dialog = pilot.app.screen
    shown = tuple(dialog.query_one(f"#{field}", kind).value for field, kind in fields.items())
    await pilot.press("escape")
    return shown


async def fill_form(
    pilot: Pilot[None], key: str, form: type[Screen[Any]], values: Mapping[str, object]
) -> None:
    """Open the form ``key`` opens and set its fields (id: value); left open."""
    await pilot.press(key)
    await until(pilot, lambda: isinstance(pilot.app.screen, form))
    for field, value in values.items():
        widget: Any = pilot.app.screen.query_one(f"#{field}")
        widget.value = value


async def test_the_new_room_dialog_offers_the_last_rooms_settings_again(
    server: GomokuServer, tmp_path: Path
) -> None:
    """A club evening's rooms are alike: after a standard 3+2 rated room as White, n
    offers standard, 3+2, rated and White again (it went back to freestyle, no clock,
    unrated: one Enter made a wrong tournament game); so does a client started again."""

    async def offered(pilot: Pilot[None]) -> tuple[object, ...]:
        fields = {"rule": Select, "time": Input, "seat": Select, "rated": Checkbox}
        return await form_offers(pilot, "n", CreateRoomDialog, fields | {"private": Checkbox})

    async with running(server, tmp_path) as (app, pilot):
        assert await offered(pilot) == (Rule.FREESTYLE, "none", "random", False, False)
        values = {"rule": Rule.STANDARD, "time": "3+2", "seat": "white"}
        await fill_form(pilot, "n", CreateRoomDialog, values)
        await pilot.click("#rated")
        await pilot.click("#ok")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        await pilot.press("ctrl+l")  # nobody came: no question
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        wanted = (Rule.STANDARD, "3+2", "white", True, False)
        assert await offered(pilot) == wanted
    async with running(server, tmp_path) as (app, pilot):
        assert await offered(pilot) == wanted


async def test_the_quick_match_dialog_offers_the_last_search_again(
    server: GomokuServer, tmp_path: Path
) -> None:
    """After a renju 1+0 search with an AI after 20 s, m offers renju, 1+0 and 20 s again
    (it went back to freestyle 5+3, as n once did); so does a client started again."""

    async def offered(pilot: Pilot[None]) -> tuple[object, ...]:
        fields = {"rule": Select, "time": Input, "ai-after": Input}
        return await form_offers(pilot, "m", QuickMatchDialog, fields)

    async with running(server, tmp_path) as (app, pilot):
        assert await offered(pilot) == (Rule.FREESTYLE, "5+3", "never")
        values = {"rule": Rule.RENJU, "time": "1+0", "ai-after": "20"}
        await fill_form(pilot, "m", QuickMatchDialog, values)
        await pilot.click("#ok")
        await until(pilot, lambda: app.model.lobby.queue is not None, "the search")
        await pilot.press("escape")  # Esc cancels the search
        await until(pilot, lambda: app.model.lobby.queue is None, "the search cancelled")
        wanted = (Rule.RENJU, "1+0", "20")
        assert await offered(pilot) == wanted
    async with running(server, tmp_path) as (app, pilot):
        assert await offered(pilot) == wanted


async def test_the_new_room_dialog_fits_a_40_by_15_terminal(
    server: GomokuServer, tmp_path: Path
) -> None:
    """Every field and the Create button can be reached and seen in a 40x15 terminal
    (Rated, Create and Cancel were cut off, and Tab did not bring them into view); Tab to
    Create and Enter makes the room."""
    async with running(server, tmp_path) as (app, pilot):
        await pilot.resize_terminal(40, 15)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, CreateRoomDialog))
        screen = app.screen.region
        for _ in range(20):
            await pilot.press("tab")
            focused = app.focused
            assert focused is not None
            await pilot.pause()
            assert screen.contains_region(focused.region), focused
            if focused.id == "ok":
                break
        assert app.focused is not None
        assert app.focused.id == "ok"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))


async def test_lobby_lists_rooms_live_and_joins_or_watches(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """A room Bob creates appears in the table; Enter joins it; w watches another."""
    async with running(server, tmp_path) as (app, pilot):
        bob = await connect("bob")
        snap = await bob.create(seat="white")
        await until(pilot, lambda: snap.room.id in app.model.lobby.rooms, "the lobby row")
        await until(pilot, lambda: "bob 1500" in screen_text(app))
        # The row's mark is a colour alone: the line names the room Enter takes.
        assert "Enter joins bob's freestyle room, w watches it" in screen_text(app)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        assert app.model.my_color is not None
        await leave_for_the_lobby(app, pilot)
        carol = await connect("carol")
        dave = await connect("dave")
        other = await carol.create(seat="black")
        await dave.join(other.room.id)
        await until(pilot, lambda: other.room.id in app.model.lobby.rooms)
        table = app.screen.query_one(DataTable)
        await until(pilot, lambda: other.room.id in {k.value for k in table.rows})
        target = table.get_row_index(other.room.id)
        while table.cursor_row != target:
            await pilot.press("down" if table.cursor_row < target else "up")
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        assert app.model.room is not None
        assert app.model.room.id == other.room.id
        assert app.model.my_color is None
        await until(pilot, lambda: "you are watching" in screen_text(app))


async def test_enter_on_a_room_that_just_left_the_list_joins_nothing_unasked(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """The cursor is on Bob's room when Bob gives up waiting: the cursor falls to
    Carol's, and Enter does not sit Alice down there (it did, in a rated game she never
    chose): the lobby's line says the room left, and a second Enter joins Carol's."""
    async with running(server, tmp_path) as (app, pilot):
        bob, carol = await connect("bob"), await connect("carol")
        bobs = (await bob.create(seat="white")).room.id
        carols = (await carol.create(seat="white", rated=True)).room.id
        table = app.screen.query_one(DataTable)
        await until(pilot, lambda: {bobs, carols} <= {k.value for k in table.rows}, "both rows")
        target = table.get_row_index(bobs)
        while table.cursor_row != target:
            await pilot.press("down" if table.cursor_row < target else "up")
        await bob.send(m.Leave(room=bobs))
        await until(pilot, lambda: bobs not in {k.value for k in table.rows}, "bob's room gone")
        await pilot.press("enter")
        await until(pilot, lambda: "That room has left the list" in screen_text(app))
        assert isinstance(app.screen, LobbyScreen)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "carol's game")
        assert app.model.room is not None
        assert app.model.room.id == carols


async def test_home_and_end_go_to_the_first_and_the_last_room(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """End puts the cursor on the last room and Home on the first (they scrolled the
    table sideways, and Enter after Home joined the room the cursor had stayed on); the
    lobby's line names the room the cursor is on, which only a colour marked."""
    async with running(server, tmp_path) as (app, pilot):
        makers = {}
        for name in ("bob", "carol", "dave"):
            makers[(await (await connect(name)).create(seat="white")).room.id] = name
        table = app.screen.query_one(DataTable)
        await until(pilot, lambda: table.row_count == 3, "three rooms")

        def named() -> str:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
            assert key is not None
            return f"Enter joins {makers[key]}'s freestyle room"

        await pilot.press("end")
        await until(pilot, lambda: table.cursor_row == 2, "the last room")
        await until(pilot, lambda: named() in screen_text(app), "the last room named")
        await pilot.press("home")
        await until(pilot, lambda: table.cursor_row == 0, "the first room")
        await until(pilot, lambda: named() in screen_text(app), "the first room named")


async def test_a_wheeled_list_stays_put_as_rooms_come_and_right_clicks_join_nothing(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Forty rooms at 80x24: the wheel takes the view to the top while the cursor stays
    on the last room; a room that comes leaves the view where it was (it jumped back to
    the cursor's row, and the rows under the mouse changed); two right clicks on a row
    join nothing (they did)."""
    async with running(server, tmp_path) as (app, pilot):
        for n in range(40):
            await (await connect(f"p{n}")).create(seat="white")
        table = app.screen.query_one(DataTable)
        await until(pilot, lambda: table.row_count == 40, "forty rooms")
        await pilot.press("end")
        await until(pilot, lambda: table.cursor_row == 39 and table.scroll_y > 0, "at the end")
        for _ in range(30):  # the mouse wheel, up
            table.post_message(MouseScrollUp(table, 5, 5, 0, 0, 0, False, False, False))
        await until(pilot, lambda: table.scroll_y == 0, "the view at the top")
        await (await connect("late")).create(seat="white")
        await until(pilot, lambda: table.row_count == 41, "the new room")
        await pilot.pause(0.1)
        assert table.scroll_y == 0
        for _ in range(2):
            await pilot.click(DataTable, offset=(5, 3), button=3)
        await pilot.pause(0.2)
        assert isinstance(app.screen, LobbyScreen)


async def test_quick_match_waits_visibly_and_cancels(server: GomokuServer, tmp_path: Path) -> None:
    """m queues (the waiting line shows, the footer says Esc cancels and still ends with
    Quit at 80 columns), Esc cancels."""
    async with running(server, tmp_path) as (app, pilot):
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, QuickMatchDialog))
        await pilot.click("#ok")
        await until(pilot, lambda: app.model.lobby.queue is not None)
        await until(pilot, lambda: "Looking for an opponent" in screen_text(app))
        footer = screen_text(app).splitlines()[-1]  # at 80 columns, with its last key
        assert "Esc Cancel match" in footer
        assert footer.rstrip().endswith("q Quit"), footer
        assert "m Match" not in footer  # Esc first
        await pilot.press("escape")
        await until(pilot, lambda: app.model.lobby.queue is None)
        assert "Looking for an opponent" not in screen_text(app)
        assert "m Match" in screen_text(app).splitlines()[-1]


async def quick_match_with_no_clock(app: GomokuApp, pilot: Pilot[None]) -> None:
    """m, no clock, OK: the client waits for an opponent."""
    await pilot.press("m")
    await until(pilot, lambda: isinstance(app.screen, QuickMatchDialog))
    app.screen.query_one("#time", Input).value = "none"
    await pilot.click("#ok")
    await until(pilot, lambda: app.model.lobby.queue is not None)


async def drop_and_reconnect(app: GomokuApp, pilot: Pilot[None]) -> None:
    """The network drops (no close handshake), and the client is back online."""
    conn = app.connection
    assert conn is not None
    assert conn._ws is not None
    conn._ws.transport.abort()
    await until(pilot, lambda: not app.model.session.link.online, "the drop")
    await until(pilot, lambda: app.model.session.link.online, "the reconnection")


async def test_quick_match_pairs_two_players(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Queued against a protocol client with the same settings, the game screen opens."""
    async with running(server, tmp_path) as (app, pilot):
        await quick_match_with_no_clock(app, pilot)
        bob = await connect("bob")
        await bob.send(m.Queue())
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the matched game")
        assert app.model.lobby.queue is None


async def test_quick_match_goes_on_after_the_connection_dropped(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """The server forgets a queue with its connection: back online, the client asks
    again, so a player who queues afterwards is paired with us (we stayed 'Looking for
    an opponent' for good, and Esc said 'you are not waiting for a match')."""
    async with running(server, tmp_path) as (app, pilot):
        await quick_match_with_no_clock(app, pilot)
        await drop_and_reconnect(app, pilot)
        assert app.model.lobby.queue is not None
        await until(pilot, lambda: "Looking for an opponent" in screen_text(app))
        bob = await connect("bob")
        await bob.send(m.Queue())
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the matched game")
        assert app.model.lobby.queue is None


async def test_a_game_that_ended_while_away_is_not_taken_for_a_match(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """A game of ours that ended while the client was closed is listed by every welcome
    until it is left: after a drop, the client took it for a match made meanwhile and
    stopped searching without a word."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
    await bob.send(m.Resign(room=room))  # the client is closed: the game ends unseen
    await bob.until_event(GameOver)
    async with running(server, tmp_path) as (app, pilot):
        # The welcome's rooms caught up in the background (the ended one is then left
        # quietly: waiting to see it among the rooms followed raced with that).
        await until(pilot, lambda: app.launch_rooms == set(), "the game resumed in the background")
        await quick_match_with_no_clock(app, pilot)
        await drop_and_reconnect(app, pilot)
        cy = await connect("cy")
        await cy.send(m.Queue())
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the matched game")


async def test_a_queue_the_server_forgot_is_no_longer_shown(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Esc on a queue the server no longer has (not_queued) ends the waiting line."""
    async with running(server, tmp_path) as (app, pilot):
        await until(pilot, lambda: app.model.session.link.online)
        app.dispatch(m.Queued(rule=Rule.FREESTYLE, time=None))  # a queue the server lost
        await until(pilot, lambda: "Looking for an opponent" in screen_text(app))
        await pilot.press("escape")
        await until(pilot, lambda: app.model.lobby.queue is None, "the waiting line to go")
        assert "Looking for an opponent" not in screen_text(app)


async def bobs_private_room_and_the_code_dialog(
    app: GomokuApp, pilot: Pilot[None], connect: Connect
) -> tuple[str, str]:
    """Bob makes a private room; Alice (the app) opens the invite-code dialog (c). The
    room's id and its code."""
    bob = await connect("bob")
    snap = await bob.create(private=True)
    assert snap.room.code is not None
    await pilot.press("c")
    await until(pilot, lambda: isinstance(app.screen, CodeDialog))
    return snap.room.id, snap.room.code


async def test_join_private_room_by_code(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """c asks for an invite code and joins that private room."""
    async with running(server, tmp_path) as (app, pilot):
        room, code = await bobs_private_room_and_the_code_dialog(app, pilot, connect)
        await pilot.press(*code, "enter")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        assert app.model.room is not None
        assert app.model.room.id == room


async def test_watch_only_ticked_then_enter_watches(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """The code typed, Tab to "Watch only", Space ticks it, Enter joins as a spectator:
    Enter on the box unticked it again and sent nothing."""
    async with running(server, tmp_path) as (app, pilot):
        room, code = await bobs_private_room_and_the_code_dialog(app, pilot, connect)
        await pilot.press(*code, "tab", "space", "enter")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the room")
        assert app.model.room is not None
        assert app.model.room.id == room
        assert app.model.my_color is None
        await until(pilot, lambda: "you are watching" in screen_text(app))


async def test_the_code_of_a_game_begun_watches_it(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """The code of a private game already being played, typed with "Watch only" not
    ticked: the game is watched, as the lobby's Enter watches a full room (it said "the
    game has started; join as a spectator" and had to be sent again ticked)."""
    async with running(server, tmp_path) as (app, pilot):
        room, code = await bobs_private_room_and_the_code_dialog(app, pilot, connect)
        cy = await connect("cy")
        await cy.send(m.Join(code=code))
        await cy.expect(m.Snapshot)
        await pilot.press(*code, "enter")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the room")
        assert app.model.room is not None
        assert app.model.room.id == room
        assert app.model.my_color is None
        await until(pilot, lambda: "you are watching" in screen_text(app))


async def test_too_many_rooms_is_said_in_words(server: GomokuServer, tmp_path: Path) -> None:
    """A room beyond the cap on open rooms is refused with the server's reason, shown
    at once (a notification) and in the log."""
    async with running(server, tmp_path) as (app, pilot):
        for _ in range(5):
            await app.send(m.CreateRoom())
        await until(pilot, lambda: len(app.model.seated_rooms) == 5, "five open rooms")
        await app.send(m.CreateRoom())
        wanted = "No new room: you already have 5 open rooms"
        await until(pilot, lambda: app.model.log[-1].text.startswith(wanted), "the refusal")
        await until(pilot, lambda: "No new room" in screen_text(app), "the notification")


async def test_a_rooms_row_shows_a_player_who_sits_down_later_in_full(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """A room listed with a free seat: when a player with a long name takes it, the
    lobby's row shows the whole name (the column widens), not a cut-off piece of it."""
    async with running(server, tmp_path) as (app, pilot):
        bob = await connect("bob")
        snap = await bob.create(seat="black")
        await until(pilot, lambda: "bob 1500" in screen_text(app), "bob's room")
        late = await connect("maximilianus")
        await late.send(m.Join(room=snap.room.id))
        await late.expect(m.Snapshot)
        await until(pilot, lambda: "maximilianus 1500" in screen_text(app), "the whole name")


async def test_a_wrong_invite_code_is_said_in_the_dialog_and_can_be_typed_again(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """A mistyped code: the dialog stays open and says no room has that code (not the
    lobby's line); the code typed over joins the room."""
    async with running(server, tmp_path) as (app, pilot):
        room, code = await bobs_private_room_and_the_code_dialog(app, pilot, connect)
        dialog = app.screen
        await pilot.press(*"XYZ-XYZ-XYZ", "enter")
        await until(
            pilot, lambda: "No room has that invite code." in screen_text(app), "the refusal"
        )
        assert app.screen is dialog
        field = dialog.query_one("#code", Input)
        assert app.focused is field
        assert field.value == "XYZ-XYZ-XYZ"
        await pilot.press(*code, "enter")  # typed over the wrong code, selected
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the private room")
        assert app.model.room is not None
        assert app.model.room.id == room
        await leave_for_the_lobby(app, pilot)
        assert "invite code" not in lobby_line(app)


async def test_the_web_pages_link_to_a_room_enters_it(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """The link the web page shows a private room's creator
    (``http://host:port/#/room/CODE``) pasted into c's dialog joins the room (the field
    cut it at 32 characters, and the cut link found no room); given as SERVER, it
    connects and enters the room at once."""
    async with running(server, tmp_path) as (app, pilot):
        room, code = await bobs_private_room_and_the_code_dialog(app, pilot, connect)
        link = f"http://127.0.0.1:{server.port}/#/room/{code}"
        app.screen.query_one("#code", Input).value = link  # pasted
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the private room")
        assert app.model.room is not None
        assert app.model.room.id == room
    cy = await connect("cy")
    theirs = await cy.create(private=True)
    assert theirs.room.code is not None
    linked = room_link(f"http://127.0.0.1:{server.port}/#/room/{theirs.room.code}")
    async with running(server, tmp_path, "dan", first=GameScreen, link=linked) as (app, _):
        assert app.model.room is not None
        assert app.model.room.id == theirs.room.id
        assert app.model.room.white is not None
        assert app.model.room.white.name == "dan"  # seated, not watching


def lobby_line(app: GomokuApp) -> str:
    """The lobby's line under the table."""
    return str(app.screen.query_one("#lobby-hint", Static).content)


async def test_a_refusal_on_the_lobby_line_goes_once_it_no_longer_applies(
    make_server: Callable[..., Awaitable[GomokuServer]], connect: Connect, tmp_path: Path
) -> None:
    """One open room each: with her game on (left for the lobby), Alice's new room is
    refused and the lobby's line says why; once the game is over (Bob resigns) the line
    no longer says it, and neither does it after her next request."""
    one_room = ConnectionLimits(ping_interval_s=None, ping_timeout_s=None, max_rooms_per_player=1)
    srv = await make_server(limits=one_room)
    async with running(srv, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect, to=srv)
        await leave_for_the_lobby(app, pilot)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, CreateRoomDialog))
        await pilot.click("#ok")
        await until(pilot, lambda: "No new room" in lobby_line(app), "the refusal on the line")
        await bob.send(m.Resign(room=room))
        await until(pilot, lambda: not app.model.seated_rooms, "the game over")
        await until(pilot, lambda: "No new room" not in lobby_line(app), "the line cleared")
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, CreateRoomDialog))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        assert "No new room" not in lobby_line(app)


async def test_a_game_left_for_the_lobby_that_ends_there_is_said_on_the_lobby_line(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Alice leaves her running game for the lobby (^L, y): the lobby line says g returns
    to it. Bob resigns meanwhile: the lobby line says that game has ended, against whom
    and how, instead of offering it still; a new request clears that line."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await leave_for_the_lobby(app, pilot)
        # Named by its opponent (its id alone told her nothing of which game it was).
        progress = "You have a game in progress (with bob): g to return."
        await until(pilot, lambda: progress in screen_text(app), "the line naming bob")
        await bob.send(m.Resign(room=room))
        ended = f"Your game with bob ({room}) has ended: you won (resignation)."
        await until(pilot, lambda: ended in lobby_line(app), "the line about the end")
        assert app.model.seated_rooms == ()
        # Whole on an 80-column screen, on two lines (one was cut at "p shows it in").
        await until(pilot, lambda: "in your profile." in screen_text(app), "the line's end")
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, QuickMatchDialog))
        await pilot.click("#ok")
        await until(pilot, lambda: ended not in screen_text(app), "the line cleared")


async def test_a_dialog_opened_just_as_a_game_comes_does_not_crash(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """w (watch) and then n at once, as typed under tmux: the game's snapshot came while
    the new-room dialog was still mounting, the dialog was closed half-built, and
    Textual's Select crashed the client (NoMatches). Here each dialog is opened in the
    very step the snapshot is taken in; the game comes once it has settled."""
    async with running(server, tmp_path) as (app, pilot):
        bob = await connect("bob")
        carol = await connect("carol")
        snap = await bob.create(seat="black")
        await carol.join(snap.room.id)
        await until(pilot, lambda: "carol 1500" in screen_text(app))
        assert app.connection is not None
        dispatch = app.connection.dispatch
        for dialog in (CreateRoomDialog, QuickMatchDialog, PlayAiDialog, AiGameDialog):

            def opened_first(action: Action, dialog: type[Screen[Any]] = dialog) -> None:
                if isinstance(action, m.Snapshot):
                    app.push_screen(dialog())
                dispatch(action)

            app.connection.dispatch = opened_first
            await pilot.press("w")
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
            app.connection.dispatch = dispatch
            await pilot.pause(0.1)
            assert app.is_running
            assert not any(isinstance(s, ModalScreen) for s in app.screen_stack)
            assert sum(isinstance(s, GameScreen) for s in app.screen_stack) == 1
            await pilot.press("ctrl+l")  # a spectator leaves at once
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")


async def test_names_and_typed_text_are_shown_as_written_never_as_markup(
    server: GomokuServer, tmp_path: Path
) -> None:
    """A player named ``[/x]`` crashed every client showing the lobby (the table read
    names as Rich markup: MarkupError); ``[red]eve[/red]`` turned red. An AI level
    typed as ``[/x]`` crashed the dialog's error line the same way. (Names may no
    longer hold brackets, but a server of an older version, or one's data file, still
    has them: the lobby lines here come as such a server sends them.)"""
    async with running(server, tmp_path) as (app, pilot):
        for number, (name, seat) in enumerate((("[/x]", "black"), ("[red]eve[/red]", "white"))):
            line = {
                **{"id": f"r-old{number}", "rule": "freestyle", "size": 15, "opening": "free"},
                **{"time": None, "rated": False, "private": False, "spectators": 0},
                "players": {seat: {"id": f"p-old{number}", "name": name, "rating": 1500}},
                "state": "waiting",
            }
            app.dispatch(msgspec.convert({"room": line}, m.LobbyRoom))
        await until(pilot, lambda: "[/x] 1500" in screen_text(app), "the name as written")
        await until(pilot, lambda: "[red]eve[/red] 1500" in screen_text(app))
        assert app.is_running
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, PlayAiDialog))
        app.screen.query_one("#level-other", Input).value = "[/x]"
        await pilot.click("#ok")
        await until(pilot, lambda: "'[/x]' is not a level name" in screen_text(app))
        assert app.is_running


async def test_the_footer_is_rebuilt_only_when_its_keys_change(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Every lobby update rebuilt the footer (a widget a key, each styled): a client
    relaunched mid-game, catching up on 130 events, came back to its game 3.5-9 s
    late. Ten spectators coming and going in a listed room change no key: the footer
    stays as it is."""
    async with running(server, tmp_path) as (app, pilot):
        bob = await connect("bob")
        snap = await bob.create(seat="black")
        await until(pilot, lambda: "bob 1500" in screen_text(app))
        await pilot.pause(0.2)
        rebuilt: list[object] = []
        app.screen.bindings_updated_signal.subscribe(app.screen, rebuilt.append, immediate=True)
        watcher = await connect("eve")
        for _ in range(10):
            await watcher.join(snap.room.id, role="spectator")
            await watcher.send(m.Leave(room=snap.room.id))
            await watcher.expect(m.Left)
        await until(pilot, lambda: app.model.lobby.rooms[snap.room.id].spectators == 0)
        await pilot.pause(0.2)
        assert rebuilt == []


async def test_a_finished_game_is_announced_at_one_launch_only(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Two games of Alice's end: one while she is in the lobby (the lobby line says so),
    one on her screen, which she then quits. The server lists the rooms a player sits
    in at each launch, and the client said "Your game ... has ended" of both again at
    every launch; once she has been shown an end, the client leaves that game."""
    async with running(server, tmp_path) as (app, pilot):
        bob, away = await in_game_with_bob(app, pilot, connect)
        await leave_for_the_lobby(app, pilot)
        await bob.send(m.Resign(room=away))
        await until(pilot, lambda: f"({away}) has ended" in screen_text(app))
        carol, seen = await in_game_with_bob(app, pilot, connect, opponent="carol")
        await carol.send(m.Resign(room=seen))
        await until(pilot, lambda: app.model.room is not None and app.model.room.state == "over")
        await pilot.press("ctrl+q")
        await until(pilot, lambda: not app.is_running, "the app closed")
    async with running(server, tmp_path) as (app, pilot):
        await pilot.pause(1.0)  # the rooms a launch lists are caught up in 0.3 s
        assert "has ended" not in screen_text(app)
        assert isinstance(app.screen, LobbyScreen)
