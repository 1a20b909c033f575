"""Typing on the game screen as a person types, against a real server: every column
letter a-o and every row 1-15 typed into the move entry plays exactly the point typed;
d, m, y, n and r typed into chat or a command change nothing in the game; a question
never eats a line being typed."""

from __future__ import annotations

from pathlib import Path

from client_fixtures import (
    answer,
    bob_sees_move,
    in_game_with_bob,
    log_text,
    running,
    stones,
    until,
)
from rich.segment import Segment
from server_fixtures import Connect, TestClient
from textual import events
from textual.keys import _character_to_key
from textual.pilot import Pilot
from textual.widgets import Input, Static

from client.app import GomokuApp
from client.screens.dialogs import ConfirmDialog, CreateRoomDialog
from client.screens.game import GameScreen
from client.screens.lobby import LobbyScreen
from client.screenshot import screen_text
from client.state.game import GameView
from client.widgets.board import Board
from client.widgets.entry import PromptBar
from client.widgets.log import LogPane
from client.widgets.moves import MoveList
from engine.notation import parse_point
from engine.types import Point
from protocol import events as ev
from protocol import messages as m
from protocol.values import TimeControl
from server.app import GomokuServer

# Black's points: every column a-o once and every row 1-15 once, a knight's step
# apart (never two on one line of five), typed in the three ways a person types.
BLACK = ["a1", "b3", "c5", "d7", "e9", "f11", "g13", "h15", "i2", "j4", "k6", "l8", "m10"]
BLACK += ["n12", "o14"]
WHITE = ["a2", "b4", "c6", "d8", "e10", "f12", "g14", "h14", "i3", "j5", "k7", "l9", "m11"]
WHITE += ["n13", "o13"]


def typed_forms(point: str, index: int) -> str:
    """``h8``, ``H8`` or ``h 8``, in turn."""
    return [point, point.upper(), f"{point[0]} {point[1:]}"][index % 3]


async def burst(pilot: Pilot[None], text: str) -> None:
    """Type ``text`` then Enter in one burst (a paste, a laggy link, tmux send-keys):
    every key is queued before the app handles the first, unlike ``pilot.press``,
    which lets the app settle after each key."""
    app = pilot.app
    for character in text:
        key = character if character.isalnum() else _character_to_key(character)
        app.post_message(events.Key(key, character))
    app.post_message(events.Key("enter", "\r"))
    await pilot.pause()


async def offered_not_said(bob: TestClient, kind: str) -> None:
    """Bob's next offer or chat line is an offer of ``kind`` (not the command as chat)."""
    message = await bob.until(
        lambda x: isinstance(x, m.Event) and isinstance(x.event, (ev.Offered, ev.ChatPosted))
    )
    assert isinstance(message, m.Event)
    assert isinstance(message.event, ev.Offered), message.event
    assert message.event.kind == kind


def game(app: GomokuApp) -> GameView:
    room = app.model.room
    assert room is not None
    return room


def unchanged_since(app: GomokuApp, before: GameView) -> None:
    """The game is as it was: same moves, no offer, same state, nobody resigned."""
    now = game(app)
    assert now.moves == before.moves
    assert now.pending is None
    assert now.state == before.state
    assert now.outcome == before.outcome
    assert isinstance(app.screen, GameScreen)  # no dialog opened


async def test_every_column_letter_and_row_number_plays_the_point_typed(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Fifteen moves typed (h8, H8 and h 8 forms) cover the letters a-o and the numbers
    1-15; each plays exactly the point typed and nothing else, whatever had focus."""
    assert sorted(p[0] for p in BLACK) == list("abcdefghijklmno")
    assert sorted(int(p[1:]) for p in BLACK) == list(range(1, 16))
    assert not set(BLACK) & set(WHITE)
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        for index, (mine, his) in enumerate(zip(BLACK, WHITE, strict=True)):
            if index % 2:  # half the time from the board, half from the text line
                await pilot.press("escape")
                await until(pilot, lambda: isinstance(app.focused, Board))
            before = len(game(app).moves)
            await pilot.press(*typed_forms(mine, index), "enter")
            await bob_sees_move(bob, mine)
            await until(pilot, lambda: stones(app) == before + 1)  # noqa: B023
            assert game(app).moves[-1] == parse_point(mine)
            await bob.move(room, his)
            await bob_sees_move(bob, his)
            await until(pilot, lambda: stones(app) == before + 2)  # noqa: B023
            assert game(app).pending is None
            assert game(app).state == "playing"
        expected = [parse_point(p) for pair in zip(BLACK, WHITE, strict=True) for p in pair]
        assert list(game(app).moves) == expected


async def test_a_burst_of_h_8_enter_plays_h8_not_the_cursor(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """The reported trap: the cursor elsewhere (f8), h 8 Enter pressed in one go on the
    board plays h8, not f8 or g8."""
    async with running(server, tmp_path) as (app, pilot):
        bob, _ = await in_game_with_bob(app, pilot, connect)
        await pilot.press("left", "left")
        assert app.screen.query_one(Board).cursor == Point(5, 7)  # f8
        await pilot.press("h", "8", "enter")
        await bob_sees_move(bob, "h8")
        await until(pilot, lambda: stones(app) == 1)
        assert game(app).moves == (Point(7, 7),)


async def test_a_point_off_the_board_is_refused_not_chatted(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """p5 and a16 are not on a 15x15 board: refused with the reason, not played, not
    said in the chat."""
    async with running(server, tmp_path) as (app, pilot):
        bob, _ = await in_game_with_bob(app, pilot, connect)
        before = game(app)
        for text in ("p5", "a16"):
            await pilot.press(*text, "enter")
            wanted = f"{text} is not on this 15x15 board (columns a-o, rows 1-15)."
            await until(pilot, lambda: app.model.log[-1].text == wanted)  # noqa: B023
        unchanged_since(app, before)
        await bob.silent(0.2)


async def test_a_chat_line_at_its_limit_says_it_takes_no_more(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """The text line stops taking keys at the chat's 300 characters: it said nothing,
    and keys seemed to go nowhere. It says so, once a line."""
    async with running(server, tmp_path) as (app, pilot):
        await in_game_with_bob(app, pilot, connect)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        line = screen.query_one("#command", Input)
        line.value = "x" * 299
        await pilot.pause()
        assert "at most" not in app.model.log[-1].text
        line.value = "x" * 300
        wanted = "A chat line holds 300 characters at most: this one is full."
        await until(pilot, lambda: app.model.log[-1].text == wanted)


async def chat_seen(bob: TestClient, text: str) -> None:
    said = await bob.until_event(ev.ChatPosted)
    assert said.text == text


async def test_d_m_y_n_r_in_chat_and_commands_change_nothing(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """The old action letters typed as text: from the board (chat), in the text line,
    after a slash (an unknown command) and in a dialog's field. The chat carries them;
    the game does not change."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await pilot.press("enter")  # h8
        await bob_sees_move(bob, "h8")
        await bob.move(room, "a1")
        await until(pilot, lambda: stones(app) == 2)
        before = game(app)

        for letter in "dmynr":  # each alone, on the board, was once an action
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.focused, Board))
            await pilot.press(letter)
            entry = app.screen.query_one("#command", Input)
            assert entry.value == letter
            assert app.focused is entry
            await pilot.press("backspace")
            unchanged_since(app, before)
        await pilot.press("escape")
        await pilot.press(*"dmynr", "enter")  # at most 5 chat lines in 10 s: two will do
        await chat_seen(bob, "dmynr")
        await pilot.press(*"draw me a map, resign? yes no", "enter")
        await chat_seen(bob, "draw me a map, resign? yes no")
        await pilot.press("slash", *"dmynr", "enter")
        await until(pilot, lambda: "Unknown command /dmynr" in app.model.log[-1].text)
        unchanged_since(app, before)

        await pilot.press("escape", "ctrl+l")  # leave asks first: n keeps the game
        await until(pilot, lambda: not isinstance(app.screen, GameScreen))
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))
        unchanged_since(app, before)


async def test_a_question_never_eats_a_line_being_typed(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Bob offers a draw while Alice is typing 'no way': her y and n go into the line,
    the offer stays open; once the line is sent (it is her move) the board has the
    focus, Esc goes to the question, and n declines."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await pilot.press(*"no")
        assert isinstance(app.focused, Input)
        await bob.send(m.Offer(room=room, kind="draw"))
        await until(pilot, lambda: game(app).pending is not None)
        await pilot.press(*" way, you", "enter")
        await chat_seen(bob, "no way, you")
        assert game(app).pending is not None
        await until(pilot, lambda: isinstance(app.focused, Board))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.focused, PromptBar))
        await answer(pilot, "n")
        answered = await bob.until_event(ev.Answered)
        assert answered.accept is False


async def test_an_offer_on_your_move_leaves_the_keys_to_the_move(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Bob offers a draw while it is Alice's move: the question shows but does not take
    the keys, so j9 Enter plays j9, which declines it; Bob, whose declined offer must
    wait, cannot take her keys again at once (he offered at every turn, and her clock
    ran while each offer took what she typed)."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await bob.send(m.Offer(room=room, kind="draw"))
        await until(pilot, lambda: game(app).pending is not None)
        assert not isinstance(app.focused, PromptBar)
        await pilot.press("j", "9", "enter")
        answered = await bob.until_event(ev.Answered)
        assert (answered.kind, answered.accept) == ("draw", False)
        await bob_sees_move(bob, "j9")
        await bob.send(m.Offer(room=room, kind="draw"))
        assert (await bob.expect_error("throttled")).message.startswith(
            "your draw offer was declined"
        )


async def test_an_offer_made_on_the_opponents_turn_gives_the_keys_back_when_he_moves(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Bob offers a draw on his own turn (the question takes Alice's keys), then moves:
    her j9 Enter plays j9, which declines it (the offer kept the keys, and a move typed
    in a bullet game went nowhere while her clock ran)."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await pilot.press("h", "8", "enter")
        await bob_sees_move(bob, "h8")
        await bob.send(m.Offer(room=room, kind="draw"))
        await until(pilot, lambda: isinstance(app.focused, PromptBar))
        await bob.move(room, "a1")
        await until(pilot, lambda: stones(app) == 2)
        await until(pilot, lambda: not isinstance(app.focused, PromptBar), "the keys back")
        await pilot.press("j", "9", "enter")
        answered = await bob.until_event(ev.Answered)
        assert (answered.kind, answered.accept) == ("draw", False)
        await bob_sees_move(bob, "j9")


def drawn_at(board: Board, point: Point) -> Segment:
    """What the board draws on ``point``: its glyph, with its style."""
    x, y = board.offset_of(point)
    at = 0
    for segment in board.render_line(y):
        if at <= x < at + len(segment.text):
            return Segment(segment.text[x - at], segment.style)
        at += len(segment.text)
    raise AssertionError(f"{point} is not drawn")


async def test_a_move_typed_while_the_opponent_thinks_is_played_on_ones_turn(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """In a game with a clock Alice types j9 Enter while Bob is to move: it is kept and
    played the moment his stone comes (a premove; a bullet player's typed move was thrown
    away with "Not your turn."); meanwhile the board marks it (◌); one typed onto the
    point Bob then takes is not played, and she is told."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(
            app, pilot, connect, time=TimeControl(base_ms=60_000, inc_ms=0)
        )
        await pilot.press("h", "8", "enter")
        await bob_sees_move(bob, "h8")
        await pilot.press("j", "9", "enter")
        await until(pilot, lambda: "j9 is played as soon as bob has moved" in log_text(app))
        board = app.screen.query_one(Board)
        assert drawn_at(board, parse_point("j9")).text == board.glyphs.kept
        await bob.move(room, "a1")
        await bob_sees_move(bob, "a1")
        await bob_sees_move(bob, "j9")
        await until(pilot, lambda: stones(app) == 3)
        assert drawn_at(board, parse_point("j9")).text == board.glyphs.black  # a stone now
        await pilot.press("k", "1", "0", "enter")
        await until(pilot, lambda: "k10 is played as soon as bob has moved" in log_text(app))
        await bob.move(room, "k10")
        await bob_sees_move(bob, "k10")
        # On the screen at once (the model had it, the pane only with the next line).
        log = app.screen.query_one("#log", Static)
        said = "k10 was not played: the opponent's stone took it"
        await until(pilot, lambda: said in str(log.content), "the word on the screen")
        assert stones(app) == 4


async def test_a_question_takes_the_keys_and_other_letters_wait_for_the_answer(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """With nothing typed, Bob's offer on his own move takes the focus; letters that
    answer nothing (j9 Enter, typed as a move) are ignored, not taken to the text line:
    nothing is played, Enter right after them does not accept, the log says which keys
    answer. Y declines as n does; after Bob's move j9 Enter plays j9."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await pilot.press("h", "8", "enter")
        await bob_sees_move(bob, "h8")
        await bob.send(m.Offer(room=room, kind="draw"))
        await until(pilot, lambda: isinstance(app.focused, PromptBar), "the question's focus")
        await answer(pilot, "j")
        await pilot.press("9", "enter")
        await pilot.pause(0.1)
        assert isinstance(app.focused, PromptBar)
        assert app.screen.query_one("#command", Input).value == ""
        assert game(app).pending is not None  # neither played nor answered
        assert game(app).moves == (parse_point("h8"),)
        assert "The question takes the keys: y / n" in app.model.log[-1].text
        await answer(pilot, "N")
        answered = await bob.until_event(ev.Answered)
        assert answered.accept is False
        await bob.move(room, "a1")
        await bob_sees_move(bob, "a1")
        await until(pilot, lambda: len(game(app).moves) == 2)
        await pilot.press("j", "9", "enter")
        await bob_sees_move(bob, "j9")
        assert game(app).moves == tuple(parse_point(p) for p in ("h8", "a1", "j9"))


async def test_letters_typed_in_a_dialog_stay_in_the_dialog(
    server: GomokuServer, tmp_path: Path
) -> None:
    """In the new-room dialog, d m y n r typed into a field are text; Esc cancels."""
    async with running(server, tmp_path) as (app, pilot):
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, CreateRoomDialog))
        field = app.screen.query_one("#time", Input)
        field.focus()
        field.value = ""
        await pilot.press(*"dmynr")
        assert field.value == "dmynr"
        assert isinstance(app.screen, CreateRoomDialog)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        assert app.model.room is None


async def test_a_command_typed_in_a_burst_runs_as_typed_slowly(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """/draw Enter arriving in one burst on the board offers a draw (not chat "draw"),
    /bogus is an unknown command, and no stray / is left for the next line: h8 plays."""
    async with running(server, tmp_path) as (app, pilot):
        bob, _ = await in_game_with_bob(app, pilot, connect)
        await burst(pilot, "/draw")
        await offered_not_said(bob, "draw")
        await until(pilot, lambda: isinstance(app.focused, Board))
        await burst(pilot, "/bogus")
        await until(pilot, lambda: "Unknown command /bogus" in app.model.log[-1].text)
        await until(pilot, lambda: isinstance(app.focused, Board))
        await burst(pilot, "h8")
        await bob_sees_move(bob, "h8")
        assert app.screen.query_one("#command", Input).value == ""
        assert not any("draw" in line.text for line in app.model.log if line.kind == "chat")


async def test_typing_on_the_move_list_or_the_log_starts_the_text_line(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Tab to the move list: h8 Enter plays h8; Tab on to the log: gl hf Enter is
    chat, and /draw Enter in one burst offers a draw. No key typed is lost."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await pilot.press("tab")
        assert isinstance(app.focused, MoveList)
        await pilot.press("h", "8", "enter")
        await bob_sees_move(bob, "h8")
        await bob.move(room, "a1")
        await until(pilot, lambda: stones(app) == 2)
        await pilot.press("tab", "tab")
        assert isinstance(app.focused, LogPane)
        await pilot.press(*"gl hf", "enter")
        await chat_seen(bob, "gl hf")
        await pilot.press("tab", "tab")
        assert isinstance(app.focused, LogPane)
        await burst(pilot, "/draw")
        await offered_not_said(bob, "draw")


def footer_text(app: GomokuApp) -> str:
    """The footer line (the screen's last)."""
    return screen_text(app).splitlines()[-1]


async def test_game_keys_work_while_a_line_is_typed(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """With abc half typed, the footer names the game's keys, ^D offers a draw (it does
    not delete: the line stays abc), ^R asks to resign; after the game ^N offers a
    rematch from the text line too."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await pilot.press(*"abc", "home")
        entry = app.screen.query_one("#command", Input)
        assert app.focused is entry
        footer = footer_text(app)
        assert "^D Draw" in footer, footer
        assert "^R Resign" in footer, footer
        await pilot.press("ctrl+d")
        await offered_not_said(bob, "draw")
        assert entry.value == "abc"
        await bob.send(m.Answer(room=room, kind="draw", accept=False))
        await until(pilot, lambda: game(app).pending is None)
        assert app.focused is entry
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog), "resign asks first")
        await pilot.press("y")
        await until(pilot, lambda: game(app).state == "over")
        await pilot.press(*"gg")
        await until(pilot, lambda: app.focused is entry)
        assert "^N Rematch" in footer_text(app)
        await pilot.press("ctrl+n")
        await offered_not_said(bob, "rematch")
        assert entry.value == "ggabc"  # typed at the cursor, left at the start by Home


async def test_a_stray_key_before_a_question_does_not_stick_to_the_next_line(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """y pressed a moment before Bob's draw offer arrives (on his move): the question
    takes the keys, the lone y is cleared from the text line (the log says so); once
    the offer is declined and Bob has moved, h8 Enter plays h8 (not the chat line yh8)."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await pilot.press("a", "2", "enter")
        await bob_sees_move(bob, "a2")
        await pilot.press("y")
        entry = app.screen.query_one("#command", Input)
        assert entry.value == "y"
        await bob.send(m.Offer(room=room, kind="draw"))
        await until(pilot, lambda: isinstance(app.focused, PromptBar), "the question's focus")
        assert entry.value == ""
        await until(pilot, lambda: '"y" was cleared' in app.model.log[-1].text)
        await answer(pilot, "n")
        await until(pilot, lambda: game(app).pending is None, "the offer declined")
        await bob.move(room, "a1")
        await bob_sees_move(bob, "a1")
        await until(pilot, lambda: len(game(app).moves) == 2)
        await pilot.press(*"h8", "enter")
        await bob_sees_move(bob, "h8")
        assert not any(line.kind == "chat" for line in app.model.log)


async def test_a_long_chat_line_stops_at_the_limit_while_typed(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """The text line takes a chat line's 300 characters and no more: what was typed is
    what is sent (the rest was cut without a word when it was sent)."""
    async with running(server, tmp_path) as (app, pilot):
        bob, _ = await in_game_with_bob(app, pilot, connect)
        entry = app.screen.query_one("#command", Input)
        await pilot.press("x")
        await until(pilot, lambda: app.focused is entry)
        for character in "y" * 320:
            app.post_message(events.Key(character, character))
        await until(pilot, lambda: len(entry.value) >= 300, "the line full")
        await pilot.pause(0.1)
        assert entry.value == "x" + "y" * 299
        await pilot.press("enter")
        said = await bob.until_event(ev.ChatPosted)
        assert said.text == "x" + "y" * 299


async def test_backspace_and_the_arrows_take_a_character_as_drawn(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """An emoji family, an accent typed after its letter, a thumb with its skin tone, a
    flag: one Backspace takes each whole, and the arrows step over each as one (a family took
    five Backspaces, and the cursor was lost among its joiners)."""
    async with running(server, tmp_path) as (app, pilot):
        bob, _ = await in_game_with_bob(app, pilot, connect)
        entry = app.screen.query_one("#command", Input)
        family, accented, thumb_flags = (
            "\U0001f468\u200d\U0001f469\u200d\U0001f467",
            "e\u0301",
            "\U0001f44d\U0001f3fd\U0001f1eb\U0001f1f7\U0001f1ea\U0001f1f8",  # + 2 flags
        )
        await pilot.press("x")
        await until(pilot, lambda: app.focused is entry)
        for character in f"{family}{accented}{thumb_flags}":
            app.post_message(events.Key(_character_to_key(character), character))
        await until(pilot, lambda: entry.value == f"x{family}{accented}{thumb_flags}", "typed")
        await pilot.press("backspace", "backspace", "backspace")  # two flags, a thumb
        assert entry.value == f"x{family}{accented}"
        await pilot.press("left")
        assert entry.cursor_position == 1 + len(family)
        await pilot.press("left", "delete")
        assert entry.value == f"x{accented}"
        await pilot.press("right", "y", "enter")
        said = await bob.until_event(ev.ChatPosted)
        assert said.text == f"x{accented}y"


async def test_text_needs_joiners_and_no_break_spaces_and_pasted_tabs_are_refused(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """The joiner of an emoji family and French typography's no-break space are typed
    into a chat line and reach the room as typed (Input dropped them: they are not
    "printable" to Python); a pasted line the server would refuse (a tab) is not sent,
    with a note saying why, and the client goes on (it crashed with a traceback)."""
    async with running(server, tmp_path) as (app, pilot):
        bob, _ = await in_game_with_bob(app, pilot, connect)
        entry = app.screen.query_one("#command", Input)
        family, french = "\U0001f468\u200d\U0001f469\u200d\U0001f467", "merci\u00a0!"
        await pilot.press("x")
        await until(pilot, lambda: app.focused is entry)
        for character in f" {family} {french}":
            app.post_message(events.Key(_character_to_key(character), character))
        await pilot.pause(0.1)
        await pilot.press("enter")
        said = await bob.until_event(ev.ChatPosted)
        assert said.text == f"x {family} {french}"

        await pilot.press("y")
        await until(pilot, lambda: app.focused is entry)
        entry.post_message(events.Paste("a\tb"))
        await until(pilot, lambda: entry.value == "ya\tb", "the pasted line")
        await pilot.press("enter")
        await until(pilot, lambda: "Not sent: a chat line" in screen_text(app), "the note")
        assert app.is_running
        await pilot.press("z", "enter")  # the line after it is sent as usual
        said = await bob.until_event(ev.ChatPosted)
        assert said.text == "z"


async def test_a_chat_line_refused_by_the_limit_comes_back_to_be_sent_again(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """The sixth line in a few seconds is refused by the chat limit: it is back in the
    text line, with the refusal saying when the next may come (it was lost)."""
    async with running(server, tmp_path) as (app, pilot):
        bob, _ = await in_game_with_bob(app, pilot, connect)
        entry = app.screen.query_one("#command", Input)
        for n in range(1, 6):
            await pilot.press(*f"line{n}", "enter")
            assert (await bob.until_event(ev.ChatPosted)).text == f"line{n}"
        await pilot.press(*"line6", "enter")
        await until(pilot, lambda: entry.value == "line6", "the line given back")
        await until(pilot, lambda: "Too many chat lines: 5 in 10 s at most" in log_text(app))
