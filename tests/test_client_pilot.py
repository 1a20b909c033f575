"""The terminal client driven like a person would (Textual's pilot), against a real
server on 127.0.0.1: every binding of the lobby and game screens, and each way to move."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from server_fixtures import Connect, TestClient
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from client.address import ServerAddress
from client.app import GomokuApp
from client.glyphs import ASCII
from client.options import PlayOptions
from client.screens.dialogs import CodeDialog, ConfirmDialog, CreateRoomDialog, QuickMatchDialog
from client.screens.game import GameScreen
from client.screens.help import HelpScreen
from client.screens.lobby import LobbyScreen
from client.screenshot import screen_text
from client.widgets.board import Board
from client.widgets.entry import PROMPT_GUARD_S
from engine.types import Point
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
    server: GomokuServer, tmp_path: Path, name: str = "alice", **options: object
) -> AsyncIterator[tuple[GomokuApp, Pilot[None]]]:
    """The client app connected to ``server`` as ``name``, in the lobby, at 80x24."""
    opts = PlayOptions(
        server=ServerAddress("127.0.0.1", server.port),
        name=name,
        config_dir=tmp_path / name,
        **options,  # type: ignore[arg-type]
    )
    app = GomokuApp(opts, backoff=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: online(app) and isinstance(app.screen, LobbyScreen))
        yield app, pilot


async def in_game_with_bob(
    app: GomokuApp,
    pilot: Pilot[None],
    connect: Connect,
    to: GomokuServer | None = None,
    **room: object,
) -> tuple[TestClient, str]:
    """Alice (the app) creates a room as Black; Bob (a protocol client) joins."""
    await app.send(m.CreateRoom(seat="black", **room))  # type: ignore[arg-type]
    await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
    assert app.model.room is not None
    room_id = app.model.room.id
    bob = await connect("bob", to=to)
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


def online(app: GomokuApp) -> bool:
    return app.model.session.link.online


def stones(app: GomokuApp) -> int:
    return len(app.model.room.moves) if app.model.room is not None else -1


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
    """Typing j10 on the board plays it; other text goes to the room's chat; each
    Enter gives the keys back to the board; Esc leaves a half-typed line."""
    async with running(server, tmp_path) as (app, pilot):
        bob, _ = await in_game_with_bob(app, pilot, connect)
        assert isinstance(app.focused, Board)
        await pilot.press(*"j1")
        assert isinstance(app.focused, Input)
        await pilot.press("0", "enter")
        await bob_sees_move(bob, "j10")
        assert isinstance(app.focused, Board)
        await pilot.press(*"good luck", "enter")
        chat = await bob.until_event(ev.ChatPosted)
        assert chat.text == "good luck"
        await pilot.press(*"half a line", "escape")
        assert isinstance(app.focused, Board)
        assert app.screen.query_one("#command", Input).value == "half a line"


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
    """Enter when it is the opponent's turn sends nothing and says why."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await pilot.press("enter")
        await bob_sees_move(bob, "h8")
        await until(pilot, lambda: stones(app) == 1)
        await pilot.press("left", "enter")
        await until(pilot, lambda: app.model.log[-1].text == "Not your turn.")
        await bob_plays(bob, room, "a1")
        await until(pilot, lambda: stones(app) == 2)
        await pilot.press("right", "enter")  # h8 is taken
        await until(pilot, lambda: app.model.log[-1].text == "h8 is already taken.")


async def test_resign_asks_first_then_rematch(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """^R asks for confirmation (n keeps playing, y resigns); ^N then offers a rematch
    that moves both players to a new room."""
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


async def test_draw_offer_and_the_opponents_offers(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """^D offers a draw; Bob's takeback request shows as a prompt with y/n, y accepts,
    n declines."""
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
        await answer(pilot, "n")
        answered = await bob.until_event(ev.Answered)
        assert answered.accept is False


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
    """/draw and /resign in the command line do what d and R do."""
    async with running(server, tmp_path) as (app, pilot):
        bob, _ = await in_game_with_bob(app, pilot, connect)
        await pilot.press("slash")
        await pilot.press(*"draw", "enter")
        offered = await bob.until_event(ev.Offered)
        assert offered.kind == "draw"
        await pilot.press(*"/nonsense", "enter")
        await until(pilot, lambda: "Unknown command /nonsense" in app.model.log[-1].text)
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
    """? opens a help screen naming the board, game and lobby keys; Esc closes it."""
    async with running(server, tmp_path) as (app, pilot):
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = screen_text(app)
        for what in ("New room", "Quick match", "Watch", "by its code", "Play an AI", "AI-vs-AI"):
            assert what in text
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
        await pilot.press("ctrl+l")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        assert app.model.room is None


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


async def test_lobby_lists_rooms_live_and_joins_or_watches(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """A room Bob creates appears in the table; Enter joins it; w watches another."""
    async with running(server, tmp_path) as (app, pilot):
        bob = await connect("bob")
        snap = await bob.create(seat="white")
        await until(pilot, lambda: snap.room.id in app.model.lobby.rooms, "the lobby row")
        await until(pilot, lambda: "bob 1500" in screen_text(app))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        assert app.model.my_color is not None
        await pilot.press("ctrl+l")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
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


async def test_quick_match_waits_visibly_and_cancels(server: GomokuServer, tmp_path: Path) -> None:
    """m queues (the waiting line shows), Esc cancels."""
    async with running(server, tmp_path) as (app, pilot):
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, QuickMatchDialog))
        await pilot.click("#ok")
        await until(pilot, lambda: app.model.lobby.queue is not None)
        await until(pilot, lambda: "Looking for an opponent" in screen_text(app))
        await pilot.press("escape")
        await until(pilot, lambda: app.model.lobby.queue is None)
        assert "Looking for an opponent" not in screen_text(app)


async def test_quick_match_pairs_two_players(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Queued against a protocol client with the same settings, the game screen opens."""
    async with running(server, tmp_path) as (app, pilot):
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, QuickMatchDialog))
        app.screen.query_one("#time", Input).value = "none"
        await pilot.click("#ok")
        await until(pilot, lambda: app.model.lobby.queue is not None)
        bob = await connect("bob")
        await bob.send(m.Queue())
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the matched game")
        assert app.model.lobby.queue is None


async def test_join_private_room_by_code(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """c asks for an invite code and joins that private room."""
    async with running(server, tmp_path) as (app, pilot):
        bob = await connect("bob")
        snap = await bob.create(private=True)
        code = snap.room.code
        assert code is not None
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CodeDialog))
        await pilot.press(*code, "enter")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        assert app.model.room is not None
        assert app.model.room.id == snap.room.id


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
        conn._ws.transport.abort()  # the network drops: no close handshake
        await until(pilot, lambda: not app.model.session.link.online, "the reconnecting state")
        assert "Connection lost" in screen_text(app)
        await bob_plays(bob, room, "a1")
        await until(pilot, lambda: "Back, 1 move caught up." in screen_text(app))
        assert app.model.me == me
        assert stones(app) == 2
        await pilot.press("right", "enter")
        await bob_sees_move(bob, "i8")


async def test_return_to_a_seated_game_after_restarting_the_client(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """The remembered token brings the same player back; g returns to the game."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        first = app.model.me
        await pilot.press("enter")
        await bob_sees_move(bob, "h8")
    async with running(server, tmp_path) as (app, pilot):
        assert app.model.me == first
        await until(pilot, lambda: room in screen_text(app), "the game-in-progress hint")
        await pilot.press("g")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        assert stones(app) == 1


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
