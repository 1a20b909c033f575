"""What the game screen asks and tells the player, and when it needs to redraw: the
questions (offers, swap2, a claim), the notices, the result and rating change, the
state the server's forgetting leaves; and the prompt bar's keys, with a fixed clock."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from test_client_state import ALICE, T0, event, in_room, moved, view, welcomed
from textual.app import App, ComposeResult

from client.prompts import next_change, notice_for, prompt_for
from client.state.game import Outcome
from client.state.model import ViewModel, reduce
from client.state.room import RoomClosed, RoomGone, RoomSeen
from client.state.session import ConnectionChanged, IdentityLost
from client.state.words import describe_result
from client.widgets.entry import PROMPT_GUARD_S, EntryLine, PromptBar
from engine.types import Color, Point, Reason
from protocol import events as ev
from protocol import messages as msg
from protocol.events import RatingChange
from protocol.values import Clocks, Pending, PlayerRef, Seats, Swap2State

ME = frozenset({"p-alice"})


def test_an_opponents_offer_is_a_question_with_y_and_n() -> None:
    """Bob's draw, takeback and rematch offers ask Alice; her own offer is a notice."""
    for kind, words in (
        ("draw", "bob offers a draw"),
        ("takeback", "bob asks to take back their last move"),
        ("rematch", "bob offers a rematch (colours swapped)"),
    ):
        model = in_room(pending=Pending(kind=kind, by="p-bob"))  # type: ignore[arg-type]
        prompt = prompt_for(model, ME, T0)
        assert prompt is not None
        assert prompt.line() == f"{words}: y accept · n decline"
    mine = in_room(pending=Pending(kind="draw", by="p-alice"))
    assert prompt_for(mine, ME, T0) is None
    assert notice_for(mine, ME, T0) == "Your draw offer is waiting for an answer."


def test_spectators_and_the_offline_are_asked_nothing() -> None:
    model = in_room(pending=Pending(kind="draw", by="p-bob"))
    assert prompt_for(model, frozenset({"p-carol"}), T0) is None
    offline = reduce(model, ConnectionChanged("reconnecting", attempt=1), T0)
    assert prompt_for(offline, ME, T0) is None


def test_the_swap2_choice_names_its_keys() -> None:
    swap2 = Swap2State(phase="choose", to_act="p-alice", choices=["black", "white", "place2"])
    model = in_room(state="opening", opening="swap2", swap2=swap2, moves=["h8", "h9", "i9"])
    prompt = prompt_for(model, ME, T0)
    assert prompt is not None
    assert prompt.line() == "Swap2: b take black · w take white · p place two more"
    assert prompt_for(model, frozenset({"p-bob"}), T0) is None


def away(model: ViewModel, deadline_ms: int) -> ViewModel:
    presence = ev.Presence(player="p-bob", online=False, deadline_ms=deadline_ms)
    return reduce(model, event(4, presence), T0)


def test_the_claim_countdown_says_what_it_counts_then_asks() -> None:
    """Bob drops: a notice counts down to the claim, then a question offers it."""
    model = away(in_room(), 23_000)
    assert prompt_for(model, ME, T0) is None
    assert notice_for(model, ME, T0) == (
        "bob is offline: you may claim the win if they are not back in 0:23."
    )
    assert notice_for(model, ME, T0 + 22.5) == (
        "bob is offline: you may claim the win if they are not back in 0:01."
    )
    prompt = prompt_for(model, ME, T0 + 23)
    assert prompt is not None
    assert prompt.line() == ("bob went offline, you may claim the win: y claim · n not now")
    back = reduce(model, event(5, ev.Presence(player="p-bob", online=True)), T0 + 30)
    assert prompt_for(back, ME, T0 + 30) is None
    assert notice_for(back, ME, T0 + 30) == ""
    # Not connected ourselves (the server stopped): no countdown to a claim we could not
    # make, which may not even run (it had counted down to nothing).
    cut = reduce(model, ConnectionChanged("reconnecting", attempt=1), T0 + 5)
    assert notice_for(cut, ME, T0 + 5) == ""


def test_an_ai_whose_worker_is_gone_may_be_claimed_against_too() -> None:
    """The AI's worker died and no other took its seat: past the grace period the
    player is asked to claim the win, as from a person (no question came, and the game
    waited for ever unless they knew /claim)."""
    ai = Seats(black=ALICE, white=PlayerRef(id="p-bob", name="AI novice", bot=True))
    model = away(in_room(players=ai), 60_000)
    assert notice_for(model, ME, T0) == (
        "AI novice is offline: you may claim the win if they are not back in 1:00."
    )
    prompt = prompt_for(model, ME, T0 + 60)
    assert prompt is not None
    assert prompt.line() == "AI novice went offline, you may claim the win: y claim · n not now"


def test_a_claim_comes_before_the_gone_opponents_offer() -> None:
    """Bob offered a draw and went: past the grace period Alice is asked whether to
    claim the win (the offer hid the question until she declined it); answered "not
    now", the offer is asked again."""
    model = away(in_room(pending=Pending(kind="draw", by="p-bob")), 23_000)
    before = prompt_for(model, ME, T0)
    assert before is not None
    assert before.kind == "offer"
    claim = prompt_for(model, ME, T0 + 23)
    assert claim is not None
    assert claim.line() == "bob went offline, you may claim the win: y claim · n not now"
    offer = prompt_for(model, ME, T0 + 23, {claim.ident})
    assert offer is not None
    assert offer.line() == "bob offers a draw: y accept · n decline"


def test_an_opponent_idle_past_the_move_limit_may_be_claimed_against() -> None:
    """Without a clock, bob to move and silent for the move limit (10 minutes here):
    Alice is asked whether to claim the win, as from one gone; answered "not now", the
    question waits for bob's next turn. Not in hot seat, nor for a spectator."""
    model = in_room(time=None, clocks=None, moves=["h8"], to_move="white", move_deadline_ms=30_000)
    assert prompt_for(model, ME, T0 + 29.9) is None
    assert notice_for(model, ME, T0) == ""  # nothing to count down on bob's move
    prompt = prompt_for(model, ME, T0 + 30)
    assert prompt is not None
    assert prompt.kind == "claim"
    assert (
        prompt.line() == "bob has not moved for 10:00, you may claim the win: y claim · n not now"
    )
    assert prompt_for(model, ME, T0 + 31, {prompt.ident}) is None
    assert prompt_for(model, frozenset({"p-alice", "p-bob"}), T0 + 30) is None
    assert prompt_for(model, frozenset({"p-carol"}), T0 + 30) is None
    bob_moved = reduce(model, moved(4, "h9", "white"), T0 + 40)
    assert prompt_for(bob_moved, ME, T0 + 40) is None  # and now it is Alice's move
    again = reduce(bob_moved, moved(5, "i9", "black"), T0 + 41)
    later = prompt_for(again, ME, T0 + 641, {prompt.ident})
    assert later is not None
    assert later.kind == "claim"


def test_my_move_is_counted_down_in_the_last_minute_of_the_move_limit() -> None:
    """Without a clock, on Alice's move: a minute before bob may claim, the notice counts
    down each second ("Move within 0:45, ..."), and the screen redraws for it; not in hot
    seat, nor for a spectator."""
    model = in_room(time=None, clocks=None, moves=[], to_move="black", move_deadline_ms=100_000)
    assert notice_for(model, ME, T0) == ""
    delay = next_change(model, ME, T0)
    assert delay is not None
    assert 40 <= delay <= 40.02  # when the warning appears
    assert notice_for(model, ME, T0 + 55.2) == "Move within 0:45, or bob may claim the win."
    delay = next_change(model, ME, T0 + 55.2)
    assert delay is not None
    assert 0.8 <= delay <= 0.82  # when it says 0:44
    assert notice_for(model, ME, T0 + 100) == "Move now: bob may claim the win."
    assert notice_for(model, frozenset({"p-alice", "p-bob"}), T0 + 55) == ""
    assert notice_for(model, frozenset({"p-carol"}), T0 + 55) == ""
    assert next_change(model, frozenset({"p-carol"}), T0 + 55) is None
    theirs = reduce(model, moved(4, "h8", "black"), T0 + 60)
    assert notice_for(theirs, ME, T0 + 61) == ""
    delay = next_change(theirs, ME, T0 + 61)
    assert delay is not None
    assert 599 <= delay <= 599.02  # when the claim opens


def test_the_first_stone_is_counted_down_to_black_and_to_the_others() -> None:
    """With a clock, before the first stone: Alice (Black) is told how long she has to
    place it before the game is aborted, bob and a spectator how long she has; the
    countdown redraws each second and goes with her stone. In hot seat the keyboard is
    told to place it."""
    model = in_room(abort_in_ms=25_000)
    place = "Place the first stone within 0:25, or the game is aborted."
    assert notice_for(model, ME, T0) == place
    assert notice_for(model, ME, T0 + 0.5) == place  # 24.5 s: whole seconds rounded up
    assert notice_for(model, frozenset({"p-alice", "p-bob"}), T0) == place
    theirs = "alice has 0:25 to place the first stone, or the game is aborted."
    assert notice_for(model, frozenset({"p-bob"}), T0) == theirs
    assert notice_for(model, frozenset({"p-carol"}), T0) == theirs
    assert notice_for(model, ME, T0 + 15.2) == (
        "Place the first stone within 0:10, or the game is aborted."
    )
    for who in (ME, frozenset({"p-carol"})):
        delay = next_change(model, who, T0 + 15.2)
        assert delay is not None
        assert 0.8 <= delay <= 0.82  # when it says 0:09
    assert next_change(model, ME, T0 + 25) is None  # over: the server's game_over is next
    begun = reduce(model, moved(4, "h8", "black"), T0 + 16)
    assert notice_for(begun, ME, T0 + 16) == ""
    assert notice_for(begun, frozenset({"p-carol"}), T0 + 16) == ""


def test_a_takeback_to_the_empty_board_gives_the_first_stone_its_time_again() -> None:
    """With a clock, Alice's first stone taken back: the countdown shows again, from the
    welcome's 30 s; the game's end clears it."""
    model = reduce(in_room(abort_in_ms=25_000), moved(4, "h8", "black"), T0 + 2)
    model = reduce(model, event(5, ev.Undone(points=["h8"], clocks=None)), T0 + 5)
    assert notice_for(model, ME, T0 + 5) == (
        "Place the first stone within 0:30, or the game is aborted."
    )
    over = reduce(model, event(6, ev.GameOver(winner=None, reason=Reason.ABANDON)), T0 + 35)
    assert notice_for(over, ME, T0 + 35) == "Game aborted before its first stone."
    assert next_change(over, ME, T0 + 35) is None


def test_the_result_says_why_and_the_rating_change() -> None:
    """A rated game's end: the sentence says why, the notice adds my rating change, the
    log says both players' (a provisional one marked "?") and the seats show the new
    ratings."""
    model = in_room(moves=["h8"], to_move="white", seq=3, rated=True)
    changes = [
        RatingChange(player="p-alice", before=1500, after=1516),
        RatingChange(player="p-bob", before=1480, after=1464, provisional=True),
    ]
    over = ev.GameOver(winner="black", reason=Reason.RESIGN, ratings=changes)
    model = reduce(model, event(4, over), T0)
    game = model.room
    assert game is not None
    assert notice_for(model, ME, T0) == (
        "bob (white) resigned: alice (black) wins. Your rating: 1500 → 1516 (+16)."
    )
    assert notice_for(model, ME, T0, arrow="->").endswith("1500 -> 1516 (+16).")
    assert [line.text for line in model.log[-2:]] == [
        "bob (white) resigned: alice (black) wins.",
        "Ratings: alice 1500 → 1516 (+16), bob 1480 → 1464? (-16).",  # bob's is provisional
    ]
    assert game.black is not None
    assert game.black.rating == 1516
    assert game.white is not None
    assert game.white.rating == 1464
    assert notice_for(model, frozenset({"p-carol"}), T0) == (
        "bob (white) resigned: alice (black) wins."
    )


def test_every_reason_is_a_sentence() -> None:
    game = in_room().room
    assert game is not None
    said = {
        (Color.BLACK, Reason.FIVE): "alice (black) wins with five in a row.",
        (Color.WHITE, Reason.OVERLINE): "bob (white) wins with six or more in a row.",
        (Color.WHITE, Reason.TIMEOUT): "alice (black) ran out of time: bob (white) wins.",
        (Color.BLACK, Reason.ABANDON): "bob (white) was away and did not come back in time: "
        "alice (black) wins.",
        (None, Reason.AGREEMENT): "Draw agreed.",
        (None, Reason.ABANDON): "Game aborted: both players left.",
    }
    begun = dataclasses.replace(game, moves=(Point(7, 7),))
    for (winner, reason), text in said.items():
        assert describe_result(Outcome(winner, reason), begun) == text
    # Both left later than that: a draw, rated as one.
    four = dataclasses.replace(game, moves=tuple(Point(x, 0) for x in range(4)))
    assert describe_result(Outcome(None, Reason.ABANDON), four) == (
        "Draw: both players left and did not come back."
    )
    # No stone: a timed game nobody began, or one both players left before it began.
    assert describe_result(Outcome(None, Reason.ABANDON), game) == (
        "Game aborted before its first stone."
    )
    full = dataclasses.replace(
        game, moves=tuple(Point(x, y) for x in range(game.size) for y in range(game.size))
    )
    drawn = Outcome(None, Reason.BOARD_FULL)
    assert describe_result(drawn, full) == "Draw: the board is full."
    # In renju the game also ends so when every empty point is a foul for Black.
    stuck = dataclasses.replace(full, moves=full.moves[:-3])
    assert describe_result(drawn, stuck) == "Draw: no point is left that Black may play."


def test_the_winning_line_is_named_by_its_ends() -> None:
    """Where the five runs, in words (not only in colour): left to right, and up the
    board when it runs straight up."""
    game = in_room().room
    assert game is not None
    lines = {
        "from h8 to h12": [Point(7, 7 - i) for i in range(5)],  # straight up
        "from c13 to g9": [Point(2 + i, 2 + i) for i in range(5)],  # down to the right
        "from a1 to e5": [Point(i, 14 - i) for i in range(5)],  # up to the right
    }
    for words, line in lines.items():
        text = describe_result(Outcome(Color.BLACK, Reason.FIVE, tuple(reversed(line))), game)
        assert text == f"alice (black) wins with five in a row {words}."


def test_a_finished_game_no_longer_shows_as_in_progress() -> None:
    """The lobby's 'game in progress' follows the game: listed by the welcome, gone
    once it ends (even seen in the background, or only as its room leaving the lobby's
    list), gone when the room is gone."""
    model = reduce(
        ViewModel(),
        msg.Welcome(player="p-alice", name="alice", token="t", resumed=True, rooms=["r1", "r2"]),
        T0,
    )
    assert model.seated_rooms == ("r1", "r2")
    model = reduce(model, event(9, ev.GameOver(winner=None, reason=Reason.AGREEMENT)), T0)
    assert model.seated_rooms == ("r2",)
    model = reduce(model, RoomSeen(view(id="r2", state="over", moves=["h8"])), T0)
    assert model.seated_rooms == ()
    assert model.room is None  # seen in the background: not put on screen
    model = reduce(
        model,
        msg.Welcome(player="p-alice", name="alice", token="t", resumed=True, rooms=["r3"]),
        T0,
    )
    model = reduce(model, msg.LobbyGone(room="r3"), T0)
    assert model.seated_rooms == ()

    played = in_room()
    assert played.seated_rooms == ("r1",)
    ended = reduce(played, event(4, ev.GameOver(winner="black", reason=Reason.RESIGN)), T0)
    assert ended.seated_rooms == ()
    left = reduce(ended, RoomClosed("r1"), T0)
    assert left.room is None
    assert left.seated_rooms == ()


def test_the_server_forgetting_leaves_a_working_lobby() -> None:
    """bad_token: no room, no seats, a line saying why. no_such_room: the room on
    screen closes, the player stays who they are."""
    model = in_room()
    forgot = reduce(model, IdentityLost(), T0)
    assert forgot.room is None
    assert forgot.seated_rooms == ()
    assert "no longer knows you" in forgot.log[-1].text
    gone = reduce(model, RoomGone("r1"), T0)
    assert gone.room is None
    assert gone.seated_rooms == ()
    assert gone.me == "p-alice"
    assert gone.log[-1].text.startswith("Room r1 is gone: the server no longer has it")
    over = reduce(model, event(5, ev.GameOver(winner="black", reason=Reason.RESIGN)), T0)
    closed = reduce(over, RoomGone("r1"), T0)  # a finished game's room: its record is kept
    assert closed.log[-1].text.startswith("Room r1 has closed")
    assert "The game had ended, and is kept in its players' profiles" in closed.log[-1].text


def test_a_room_closed_by_the_server_says_why_by_what_it_was() -> None:
    """``left`` with ``closed`` (the room's time was up): a finished game's room closed, the
    game kept; a waiting room closed for want of an opponent; one not on screen is
    dropped from the player's rooms without a word."""
    over = reduce(in_room(), event(5, ev.GameOver(winner="black", reason=Reason.RESIGN)), T0)
    closed = reduce(over, RoomGone("r1", expired=True), T0)
    assert closed.room is None
    assert closed.log[-1].text.startswith("Room r1 has closed: a finished game's room stays")
    assert "kept in its players' profiles" in closed.log[-1].text
    waiting = in_room(state="waiting", players=Seats(black=ALICE), seq=1, clocks=None)
    alone = reduce(waiting, RoomGone("r1", expired=True), T0)
    assert alone.room is None
    assert alone.log[-1].text.endswith("has closed: nobody took the other seat in time.")
    elsewhere = reduce(in_room(), RoomGone("r-other", expired=True), T0)
    assert elsewhere.room is not None
    assert elsewhere.log == in_room().log


def test_the_log_starts_fresh_for_each_room_and_reads_the_same_for_both() -> None:
    """A new room replaces the log; a player who joins a started game reads what the
    one who waited for them read."""
    waiting = view(state="waiting", players=Seats(black=ALICE), seq=1, clocks=None)
    creator = reduce(welcomed(), msg.Snapshot(room=waiting), T0)
    joined = ev.PlayerJoined(seat="white", player="p-bob", name="bob", rating=1480)
    creator = reduce(creator, event(2, joined), T0)
    started = ev.GameStarted(black="p-alice", white="p-bob", time=view().time)
    creator = reduce(creator, event(3, started), T0)
    joiner = reduce(welcomed("p-bob"), msg.Snapshot(room=view(seq=3)), T0)
    assert [line.text for line in creator.log] == [line.text for line in joiner.log]
    again = reduce(creator, msg.Snapshot(room=view(id="r2")), T0)
    assert next(line.text for line in again.log).startswith("Room r2:")
    assert all("r1" not in line.text for line in again.log)


def test_a_timer_runs_only_while_something_on_screen_counts() -> None:
    """No clock, nobody away, online: nothing to redraw. A running clock: at its next
    second (5 times a second in the last ten). The claim countdown: at its next
    second. The reconnect countdown: likewise."""
    still = in_room(time=None, clocks=None, moves=["h8"], to_move="white")
    assert next_change(still, ME, T0) is None
    assert next_change(welcomed(), ME, T0) is None
    ticking = reduce(
        in_room(), moved(4, "h8", "black", Clocks(black_ms=300_000, white_ms=61_300)), T0
    )
    delay = next_change(ticking, ME, T0)
    assert delay is not None
    assert 0.3 <= delay <= 0.32
    last_seconds = reduce(
        in_room(), moved(4, "h8", "black", Clocks(black_ms=300_000, white_ms=9_000)), T0
    )
    assert next_change(last_seconds, ME, T0) == 0.2
    waiting = away(still, 23_400)
    delay = next_change(waiting, ME, T0)
    assert delay is not None
    assert 0.4 <= delay <= 0.42
    watcher = frozenset({"p-carol"})  # the countdown by bob's name counts for spectators
    delay = next_change(waiting, watcher, T0)
    assert delay is not None
    assert 0.4 <= delay <= 0.42
    down = reduce(still, ConnectionChanged("reconnecting", 2, T0 + 3.5), T0)
    delay = next_change(down, ME, T0)
    assert delay is not None
    assert 0.5 <= delay <= 0.52


class PromptApp(App[None]):
    """A prompt bar and a text line, with a clock the test moves."""

    CSS: ClassVar[str] = "PromptBar { height: 1; }"

    def __init__(self) -> None:
        super().__init__()
        self.now = 0.0
        self.answers: list[str] = []

    def compose(self) -> ComposeResult:
        yield PromptBar(lambda: self.now)
        yield EntryLine(placeholder="")

    def on_mount(self) -> None:
        bar = self.query_one(PromptBar)
        bar.sink = self.query_one(EntryLine)
        model = in_room(pending=Pending(kind="draw", by="p-bob"))
        prompt = prompt_for(model, ME, T0)
        assert bar.ask(prompt)
        assert not bar.ask(prompt)  # the same question again is not new
        bar.focus()

    def on_prompt_bar_answered(self, event: PromptBar.Answered) -> None:
        self.answers.append(event.key)


async def test_the_prompt_bar_ignores_keys_just_after_it_appears() -> None:
    """y or n within the guard time are not answers (they were typed for what was on
    screen before); after it, y and n answer; Esc answers nothing (it declined), and the answer
    right after it counts."""
    app = PromptApp()
    async with app.run_test() as pilot:
        await pilot.press("y", "n")
        assert app.answers == []
        app.now = PROMPT_GUARD_S
        await pilot.press("escape", "y", "n")
        assert app.answers == ["y", "n"]


async def test_enter_never_answers_a_question() -> None:
    """Enter at a question, however long after it appeared, answers nothing: it is
    ignored like a stray letter (a person who typed a move ends it with Enter, and must
    not accept a draw they did not read), and a y right after it is no answer either."""
    app = PromptApp()
    async with app.run_test() as pilot:
        app.now = 10.0
        await pilot.press("enter")
        await pilot.pause()
        assert app.answers == []
        await pilot.press("y")
        assert app.answers == []  # within the guard that Enter restarted
        app.now = 10.0 + PROMPT_GUARD_S
        await pilot.press("enter", "enter")
        assert app.answers == []
        app.now = 20.0
        await pilot.press("y")
        assert app.answers == ["y"]


async def test_other_letters_on_the_prompt_bar_are_ignored_and_capitals_answer() -> None:
    """j and 9 answer nothing: they are ignored (the text line stays empty, the bar keeps
    the focus), and a y right after them is not taken for an answer; later Y and N
    answer as y and n do."""
    app = PromptApp()
    async with app.run_test() as pilot:
        app.now = 10.0
        await pilot.press("j", "9", "y")
        await pilot.pause()
        assert app.query_one(EntryLine).value == ""
        assert isinstance(app.focused, PromptBar)
        assert app.answers == []
        app.now = 10.0 + PROMPT_GUARD_S
        await pilot.press("Y", "N")
        assert app.answers == ["y", "n"]
