"""The client's reducer: what the player sees after each server message, without a terminal."""

from __future__ import annotations

import dataclasses
from typing import Any

import msgspec

from client.present import queue_label
from client.state.game import Seat as GameSeat
from client.state.history import (
    GAMES_PAGE,
    GamesRequested,
    HistoryFailed,
    LeaderboardRequested,
    ProfileRequested,
    RecordRequested,
)
from client.state.lobby import AiChoice, LobbyAsked, LobbyUnsent
from client.state.log import LOG_LIMIT, Note
from client.state.model import ViewModel, reduce
from client.state.questions import can_hint, can_move, can_seat_ai
from client.state.room import ResumeDone, ResumeStarted, RoomClosed
from client.state.session import ConnectionChanged
from client.state.words import NO_AI_RATED, NO_HINT_RATED, RATINGS_PENDING, leaving_words
from engine.types import Color, Point, Reason, Rule
from protocol import events as ev
from protocol import messages as msg
from protocol.values import (
    ChatLine,
    Clocks,
    GamePlayer,
    GameResult,
    GameSummary,
    LeaderboardEntry,
    Limits,
    Opening,
    Pending,
    PlayerRef,
    RatingChange,
    RoomSummary,
    RoomView,
    Seats,
    Standing,
    Swap2State,
    TimeControl,
)

ALICE = PlayerRef(id="p-alice", name="alice", rating=1500)
BOB = PlayerRef(id="p-bob", name="bob", rating=1480)
T0 = 100.0  # local monotonic seconds


def view(**changes: object) -> RoomView:
    fields: dict[str, object] = {
        "id": "r1",
        "rule": Rule.FREESTYLE,
        "size": 15,
        "opening": Opening.FREE,
        "time": TimeControl(base_ms=300_000, inc_ms=3_000),
        "rated": False,
        "private": False,
        "players": Seats(black=ALICE, white=BOB),
        "spectators": 0,
        "state": "playing",
        "moves": [],
        "to_move": "black",
        "clocks": Clocks(black_ms=300_000, white_ms=300_000),
        "seq": 3,
    }
    fields.update(changes)
    return RoomView(**fields)  # type: ignore[arg-type]


def welcomed(player: str = "p-alice", *, move_limit_ms: int | None = None) -> ViewModel:
    """Alice welcomed by a server; ``move_limit_ms``: the untimed move limit it says."""
    limits = Limits() if move_limit_ms is None else Limits(untimed_move_ms=move_limit_ms)
    return reduce(
        ViewModel(),
        msg.Welcome(player=player, name="alice", token="t", resumed=False, limits=limits),
        T0,
    )


def in_room(model: ViewModel | None = None, **changes: object) -> ViewModel:
    return reduce(model or welcomed(), msg.Snapshot(room=view(**changes)), T0)


def event(seq: int, e: ev.RoomEvent, room: str = "r1") -> msg.Event:
    return msg.Event(room=room, seq=seq, event=e)


def moved(seq: int, point: str, color: str, clocks: Clocks | None = None) -> msg.Event:
    return event(seq, ev.Moved(point=point, color=color, move_no=seq, clocks=clocks))  # type: ignore[arg-type]


def test_welcome_sets_identity_and_online() -> None:
    """After welcome the player id, name and token are known and the link is online."""
    model = welcomed()
    assert (model.me, model.session.name, model.session.token) == ("p-alice", "alice", "t")
    assert model.session.link.online


def test_snapshot_then_events_builds_the_board() -> None:
    """A snapshot's moves are drawn, then live moves add stones in colour order."""
    model = in_room(moves=["h8", "h9"], seq=5)
    model = reduce(model, moved(6, "i9", "black"), T0)
    game = model.room
    assert game is not None
    assert game.moves == (Point(7, 7), Point(7, 6), Point(8, 6))
    assert game.picture.stones[Point(8, 6)] is Color.BLACK
    assert game.picture.stones[Point(7, 6)] is Color.WHITE
    assert game.picture.last == Point(8, 6)
    assert game.to_move is Color.WHITE
    assert game.move_number == 4
    assert game.seq == 6


def test_events_of_another_room_are_ignored() -> None:
    """A move in a room not on screen does not touch the board."""
    model = in_room()
    after = reduce(
        model, event(4, ev.Moved(point="h8", color="black", move_no=1, clocks=None), room="r2"), T0
    )
    assert after.room == model.room


def test_repeated_event_is_applied_once() -> None:
    """An event whose seq the snapshot already covered is not applied again."""
    model = in_room(moves=["h8"], to_move="white", seq=4)
    model = reduce(model, moved(4, "h8", "black"), T0)
    assert model.room is not None
    assert model.room.moves == (Point(7, 7),)


def test_takeback_removes_the_last_moves() -> None:
    """An undone event removes the taken-back stones and gives the turn back."""
    model = in_room(moves=["h8", "h9", "i9"], to_move="white", seq=6)
    model = reduce(model, event(7, ev.Undone(points=["i9", "h9"], clocks=None)), T0)
    game = model.room
    assert game is not None
    assert game.moves == (Point(7, 7),)
    assert game.to_move is Color.WHITE
    assert game.picture.last == Point(7, 7)
    assert "i9, h9 taken back" in model.log[-1].text


def test_six_in_a_row_in_standard_rules_says_why_the_game_goes_on() -> None:
    """Black fills the gap of h8-i8-j8 _ l8-m8: six in a row, which wins nothing in
    standard rules, and the log says so (a player who made six read no word of why)."""
    moves = ["h8", "a1", "i8", "a3", "j8", "a5", "l8", "a7", "m8", "a9"]
    model = in_room(rule=Rule.STANDARD, moves=moves, to_move="black")
    model = reduce(model, moved(10, "k8", "black"), T0)
    assert model.log[-1].text == (
        "k8: six or more in a row do not win in standard rules, only exactly five."
    )
    free = in_room(rule=Rule.FREESTYLE, moves=moves, to_move="black")
    free = reduce(free, moved(10, "k8", "black"), T0)
    assert all("six or more" not in line.text for line in free.log)


def test_game_over_highlights_the_line_and_names_the_winner() -> None:
    """game_over stores the winning line on the picture and logs who won."""
    model = in_room(moves=["h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4"], to_move="black")
    model = reduce(model, moved(4, "l8", "black"), T0)
    line = ["h8", "i8", "j8", "k8", "l8"]
    model = reduce(model, event(5, ev.GameOver(winner="black", reason=Reason.FIVE, line=line)), T0)
    game = model.room
    assert game is not None
    assert game.outcome is not None
    assert game.state == "over"
    assert game.outcome.winner is Color.BLACK
    assert game.picture.line == frozenset(Point(x, 7) for x in range(7, 12))
    assert model.log[-1].text == "alice (black) wins with five in a row from h8 to l8."
    assert can_move(model) == "The game is over."


def test_snapshot_of_a_finished_game_keeps_its_result() -> None:
    """A late joiner of a finished game sees the result and the line."""
    result = GameResult(winner="white", reason=Reason.RESIGN, line=None)
    model = in_room(state="over", result=result, moves=["h8"])
    assert model.room is not None
    assert model.room.outcome is not None
    assert model.room.outcome.winner is Color.WHITE
    assert model.room.outcome.reason is Reason.RESIGN


def test_clock_ticks_locally_for_the_side_to_move() -> None:
    """Between updates the running clock goes down by local time, the other stays."""
    model = in_room(
        moves=["h8"], to_move="white", clocks=Clocks(black_ms=290_000, white_ms=300_000)
    )
    clocks = model.room.clocks if model.room else None
    assert clocks is not None
    assert clocks.running is Color.WHITE
    assert clocks.remaining(Color.WHITE, T0 + 2.5) == 297_500
    assert clocks.remaining(Color.BLACK, T0 + 2.5) == 290_000
    assert clocks.remaining(Color.WHITE, T0 + 1000) == 0


def test_move_resets_clocks_from_the_server() -> None:
    """A moved event's clocks replace the local estimate and switch the running side."""
    model = in_room(moves=["h8"], to_move="white", seq=4)
    model = reduce(
        model, moved(5, "h9", "white", Clocks(black_ms=250_000, white_ms=280_000)), T0 + 10
    )
    clocks = model.room.clocks if model.room else None
    assert clocks is not None
    assert clocks.running is Color.BLACK
    assert clocks.remaining(Color.BLACK, T0 + 11) == 249_000
    assert clocks.remaining(Color.WHITE, T0 + 11) == 280_000


def test_game_over_sets_the_final_clocks_and_stops_them() -> None:
    """game_over's clocks are shown as they are, and no clock runs after it."""
    model = in_room(moves=["h8"], to_move="white", seq=4)
    final = Clocks(black_ms=290_000, white_ms=281_500)
    over = ev.GameOver(winner="black", reason=Reason.RESIGN, clocks=final)
    model = reduce(model, event(5, over), T0 + 20)
    clocks = model.room.clocks if model.room else None
    assert clocks is not None
    assert clocks.running is None
    assert clocks.remaining(Color.WHITE, T0 + 60) == 281_500
    assert clocks.remaining(Color.BLACK, T0 + 60) == 290_000


BOB_CHOOSES: dict[str, Any] = {
    "opening": Opening.SWAP2,
    "state": "opening",
    "moves": ["h8", "h9", "j10"],
    "to_move": "white",
    "swap2": Swap2State(phase="choose", to_act="p-bob", choices=["black", "white", "place2"]),
}
"""A swap2 room after alice's three stones: bob (White for now) chooses."""


def test_no_takeback_reaches_into_the_opening_stones() -> None:
    """A takeback is there only for a player's own stone, at most two back and not one
    of a swap2 opening's: as the choice that ends the opening sets them live, and as a
    snapshot after it says."""
    model = in_room(**BOB_CHOOSES)
    took_black = ev.Chose(player="p-bob", choice="black", black="p-bob", white="p-alice")
    model = reduce(model, event(5, took_black), T0)
    game = model.room
    assert game is not None
    assert game.opening_stones == 3
    assert not game.can_take_back("p-alice")  # her stones are the opening's
    assert not game.can_take_back("p-bob")  # he has none
    game = dataclasses.replace(game, moves=game.read_points(["h8", "h9", "j10", "a1"]))
    assert game.can_take_back("p-alice")  # a1, hers (White)
    assert not game.can_take_back("p-bob")
    five = in_room(moves=["h8", "h9", "j10", "g7", "k11", "a1"], opening_stones=5)
    assert five.room is not None
    assert not five.room.can_take_back("p-alice")  # Black's last is k11, an opening stone
    assert five.room.can_take_back("p-bob")  # a1, White's
    assert not in_room(moves=[]).room.can_take_back("p-alice")  # type: ignore[union-attr]


def test_in_a_swap2_opening_the_clock_of_whoever_must_act_runs() -> None:
    """The chooser's clock runs while they choose, whatever colour the next stone is;
    after a choice of colours each keeps their own time, as ``chose`` tells it."""
    model = in_room(**BOB_CHOOSES, clocks=Clocks(black_ms=298_000, white_ms=300_000))
    assert model.room is not None
    assert model.room.clocks is not None
    assert model.room.clocks.running is Color.WHITE  # bob chooses, seated as White
    took_black = ev.Chose(
        player="p-bob",
        choice="black",
        black="p-bob",
        white="p-alice",
        clocks=Clocks(black_ms=292_000, white_ms=298_000),
    )
    after = reduce(model, event(5, took_black), T0 + 8)
    assert after.room is not None
    assert after.room.clocks is not None
    assert after.room.black is not None
    assert after.room.black.name == "bob"
    assert after.room.clocks.remaining(Color.BLACK, T0 + 9) == 292_000  # bob's own time
    assert after.room.clocks.running is Color.WHITE  # alice plays stone 4
    assert after.room.clocks.remaining(Color.WHITE, T0 + 9) == 297_000
    # After place2 the opener chooses, though the next stone (the sixth) is White's.
    five = in_room(
        opening=Opening.SWAP2,
        state="opening",
        moves=["h8", "h9", "j10", "g7", "k11"],
        to_move="white",
        swap2=Swap2State(phase="choose", to_act="p-alice", choices=["black", "white"]),
    )
    assert five.room is not None
    assert five.room.clocks is not None
    assert five.room.clocks.running is Color.BLACK
    placing = reduce(
        five, event(9, ev.OpeningPhase(phase="place2", to_act="p-bob", choices=[])), T0
    )
    assert placing.room is not None
    assert placing.room.clocks is not None
    assert placing.room.clocks.running is Color.WHITE


def test_clocks_do_not_run_before_the_first_move_or_after_the_end() -> None:
    """No clock runs before Black's first stone, nor once the game is over."""
    model = in_room()
    assert model.room is not None
    assert model.room.clocks is not None
    assert model.room.clocks.running is None
    model = reduce(model, event(4, ev.GameOver(winner=None, reason=Reason.AGREEMENT)), T0)
    assert model.room is not None
    assert model.room.clocks is not None
    assert model.room.clocks.running is None


def test_reconnecting_state_shows_attempt_and_next_try() -> None:
    """Losing the link logs it, with what staying away costs in a running game (the
    opponent is told they may claim; the player was not), disables moves and
    describes the retry schedule."""
    model = in_room()
    model = reduce(model, ConnectionChanged("reconnecting", attempt=3, next_try_at=T0 + 4), T0)
    assert not model.session.link.online
    assert model.session.link.describe(T0) == "reconnecting (attempt 3, next try in 4s)"
    assert model.log[-1].text == (
        "Connection lost; reconnecting. bob may claim the win after 1:00 away."
    )
    # Against the project's AI: it waits as long as a move may take (the move limit).
    ai = PlayerRef(id="p-ai", name="AI novice", rating=1500, bot=True)
    against_ai = in_room(welcomed(move_limit_ms=600_000), players=Seats(black=ALICE, white=ai))
    against_ai = reduce(against_ai, ConnectionChanged("reconnecting", attempt=1), T0)
    assert against_ai.log[-1].text == (
        "Connection lost; reconnecting. AI novice claims the win after 10:00 away."
    )
    assert can_move(model) == "Offline: moves are disabled until the connection is back."
    model = reduce(model, ConnectionChanged("connected"), T0 + 5)
    closed = ConnectionChanged("reconnecting", detail="closed by the server")
    model = reduce(model, closed, T0 + 6)
    assert model.log[-1].text.startswith("Connection lost (closed by the server); reconnecting.")
    watching = reduce(in_room(state="waiting"), ConnectionChanged("reconnecting"), T0)
    assert watching.log[-1].text == "Connection lost; reconnecting."


def test_resume_reports_the_moves_caught_up() -> None:
    """After a resume the log says how many moves arrived while away."""
    model = in_room(moves=["h8"], to_move="white", seq=4)
    model = reduce(model, ConnectionChanged("reconnecting", attempt=1), T0)
    model = reduce(model, msg.Welcome(player="p-alice", name="alice", token="t", resumed=True), T0)
    model = reduce(model, ResumeStarted("r1"), T0)
    model = reduce(model, moved(5, "h9", "white"), T0)
    model = reduce(model, moved(6, "i9", "black"), T0)
    model = reduce(model, ResumeDone("r1"), T0)
    assert model.log[-1].text == "Back, 2 moves caught up."
    assert model.session.link.online


def test_a_rated_games_end_with_its_ratings_pending_says_so() -> None:
    """A rated game ends while the server cannot write (a full disk): the log says the
    result, then that the ratings come later, not that the game did not count."""
    model = in_room(rated=True, moves=["h8", "a1", "h9"], to_move="white", seq=6)
    over = ev.GameOver(winner="black", reason=Reason.RESIGN, ratings_pending=True)
    model = reduce(model, event(7, over), T0)
    texts = [line.text for line in model.log[-2:]]
    assert texts[1] == RATINGS_PENDING
    assert texts[0] == "bob (white) resigned: alice (black) wins."


def test_chat_lines_are_logged_with_the_name() -> None:
    """A chat event shows as 'name: text' of kind chat; a spectator's line says the author
    is watching, and one's own says so, so that one named as a player cannot speak for
    them."""
    model = in_room()
    model = reduce(model, event(4, ev.ChatPosted(player="p-bob", name="bob", text="gl hf")), T0)
    assert model.log[-1].kind == "chat"
    assert model.log[-1].text == "bob: gl hf"
    posing = ev.ChatPosted(player="p-cy", name="bob", text="I resign, you win")
    model = reduce(model, event(5, posing), T0)
    assert model.log[-1].text == "bob (watching): I resign, you win"
    # The opponent renamed to one's own name: one's own lines are the ones marked.
    mine = ev.ChatPosted(player="p-alice", name="alice", text="gg")
    model = reduce(model, event(6, mine), T0)
    assert model.log[-1].text == "alice (you): gg"
    theirs = ev.ChatPosted(player="p-bob", name="alice", text="gg")
    model = reduce(model, event(7, theirs), T0)
    assert model.log[-1].text == "alice: gg"


def test_two_players_of_one_name_are_told_apart_by_colour_for_a_spectator() -> None:
    """Two pupils both named kim: a spectator read "kim: hi" from either; their lines say
    their colour, while their own lines are the ones a player reads as "(you)"."""
    kims = Seats(
        black=PlayerRef(id="p-alice", name="kim", rating=1500),
        white=PlayerRef(id="p-bob", name="kim", rating=1500),
    )
    lines = [
        event(4, ev.ChatPosted(player="p-alice", name="kim", text="hi")),
        event(5, ev.ChatPosted(player="p-bob", name="kim", text="hello")),
    ]
    watching = in_room(welcomed("p-cy"), players=kims)
    playing = in_room(welcomed("p-alice"), players=kims)
    different = in_room(welcomed("p-cy"))  # alice and bob
    for model, said in (
        (watching, ["kim (black): hi", "kim (white): hello"]),
        (playing, ["kim (you): hi", "kim: hello"]),
        (different, ["kim: hi", "kim: hello"]),
    ):
        for line in lines:
            model = reduce(model, line, T0)
        assert [line.text for line in model.log[-2:]] == said


def test_a_snapshot_logs_what_was_said_before() -> None:
    """A room put on screen by a snapshot (a relaunch, a late spectator) shows its recent
    chat after the room's and the game's lines, as if one had been there."""
    said = [
        ChatLine(seq=4, player="p-bob", name="bob", text="gl hf"),
        ChatLine(seq=6, player="p-alice", name="alice", text="you too"),
        ChatLine(seq=7, player="p-cy", name="cy", text="hi all"),
    ]
    model = in_room(moves=["h8", "h9"], seq=8, chat=said)
    texts = [(line.kind, line.text) for line in model.log]
    assert texts[2:5] == [
        ("chat", "bob: gl hf"),
        ("chat", "alice (you): you too"),
        ("chat", "cy (watching): hi all"),
    ]
    assert texts[-1] == ("event", "2 moves played so far.")


def test_log_is_bounded() -> None:
    """The events pane keeps only the last LOG_LIMIT lines."""
    model = welcomed()
    for i in range(LOG_LIMIT + 10):
        model = reduce(model, Note(f"line {i}"), T0)
    assert len(model.log) == LOG_LIMIT
    assert model.log[-1].text == f"line {LOG_LIMIT + 9}"


def test_offer_and_answer() -> None:
    """An opponent's offer is pending until answered; both are logged."""
    model = in_room(moves=["h8"], to_move="white")
    model = reduce(model, event(4, ev.Offered(kind="draw", by="p-bob")), T0)
    assert model.room is not None
    assert model.room.pending == Pending(kind="draw", by="p-bob")
    assert model.log[-1].text == "bob offers a draw."
    model = reduce(model, event(5, ev.Answered(kind="draw", by="p-alice", accept=False)), T0)
    assert model.room is not None
    assert model.room.pending is None
    assert model.log[-1].text == "You declined a draw."


def test_takeback_request_wording() -> None:
    """A takeback request reads 'asks for a takeback'."""
    model = in_room(moves=["h8"], to_move="white")
    model = reduce(model, event(4, ev.Offered(kind="takeback", by="p-bob")), T0)
    assert model.log[-1].text == "bob asks for a takeback."


def test_a_takeback_request_withdrawn_by_its_requesters_move_says_so() -> None:
    """The server withdraws a takeback request when its requester moves (``answered`` by
    the requester): the log says they moved on, not that they declined."""
    model = in_room(moves=["h8", "a1"], to_move="black")
    model = reduce(model, event(4, ev.Offered(kind="takeback", by="p-bob")), T0)
    model = reduce(model, event(5, ev.Answered(kind="takeback", by="p-bob", accept=False)), T0)
    assert model.log[-1].text == "bob moved on: the request for a takeback is withdrawn."


def test_turn_rules_for_moving() -> None:
    """Black (alice) may move first; after her move it is bob's turn, not hers."""
    model = in_room()
    assert can_move(model) is None
    model = reduce(model, moved(4, "h8", "black"), T0)
    assert can_move(model) == "Not your turn."
    assert can_move(model, frozenset({"p-alice", "p-bob"})) is None  # hot seat


def test_spectator_cannot_move() -> None:
    """A spectator is told they are watching."""
    model = in_room(welcomed("p-carol"))
    assert can_move(model) == "You are watching this game."


def test_a_room_entered_without_a_seat_says_it_is_watched() -> None:
    """The log of a room entered as a spectator says so at once, and why when both seats
    are taken: a code typed to play a full room's game only watched it, unsaid."""
    texts = [line.text for line in in_room(welcomed("p-carol")).log]
    assert texts[1] == "Both seats are taken: you are watching."
    waiting = in_room(welcomed("p-carol"), players=Seats(black=ALICE), state="waiting")
    assert [line.text for line in waiting.log][1] == "You are watching."
    assert "watching" not in " ".join(line.text for line in in_room().log)  # alice plays


def test_waiting_room_fills_and_starts() -> None:
    """A waiting room gets its second player, then starts with Black to move."""
    model = in_room(players=Seats(black=ALICE), state="waiting", to_move=None, clocks=None)
    assert can_move(model) == "Waiting for an opponent."
    model = reduce(model, event(4, ev.PlayerJoined(seat="white", player="p-bob", name="bob")), T0)
    tc = TimeControl(base_ms=60_000)
    model = reduce(model, event(5, ev.GameStarted(black="p-alice", white="p-bob", time=tc)), T0)
    game = model.room
    assert game is not None
    assert game.white is not None
    assert game.white.name == "bob"
    assert game.state == "playing"
    assert game.clocks is not None
    assert game.clocks.black_ms == 60_000
    assert can_move(model) is None
    assert "Game started: alice (black) vs bob (white), 1+0." in model.log[-1].text


def test_a_swap2_game_starts_without_colours_in_the_log() -> None:
    """The room's line says swap2, and the start of a swap2 game names no colours: they
    are chosen in the opening."""
    waiting = in_room(
        players=Seats(black=ALICE),
        state="waiting",
        to_move=None,
        clocks=None,
        opening=Opening.SWAP2,
    )
    assert waiting.log[0].text.startswith("Room r1: freestyle, 15x15, swap2, 5+3")
    model = reduce(waiting, event(4, ev.PlayerJoined(seat="white", player="p-bob", name="bob")), T0)
    model = reduce(model, event(5, ev.GameStarted(black="p-alice", white="p-bob", time=None)), T0)
    assert "Game started: alice vs bob, swap2 (colours to be chosen), no clock." in [
        line.text for line in model.log
    ]


def test_the_swap2_log_offers_only_the_choices_open() -> None:
    """After place2 the opener only picks a colour; the log says so, and tells a place2
    choice in words."""
    model = in_room(**BOB_CHOOSES)
    model = reduce(model, event(5, ev.Chose(player="p-bob", choice="place2")), T0)
    assert model.log[-1].text == "Swap2: bob chose to place two more."
    final = ev.OpeningPhase(phase="choose", to_act="p-alice", choices=["black", "white"])
    model = reduce(model, event(8, final), T0)
    assert model.log[-1].text == "Swap2: alice to choose a colour."


def test_a_snapshot_in_a_swap2_opening_says_who_does_what() -> None:
    """Who joins (or comes back) during a swap2 opening reads the line the room read
    when the phase began: who is to place stones or choose."""
    bob = PlayerRef(id="p-bob", name="bob", rating=1500)
    placing = in_room(
        players=Seats(black=ALICE, white=bob),
        opening=Opening.SWAP2,
        state="opening",
        swap2=Swap2State(phase="place3", to_act="p-alice"),
    )
    said = "Swap2: alice to place the first three stones (black, white, black)."
    assert placing.log[-1].text == said
    choosing = in_room(players=Seats(black=ALICE, white=bob), **BOB_CHOOSES)
    assert [line.text for line in choosing.log[-2:]] == [
        "3 moves played so far.",
        "Swap2: bob to choose a colour or place two more.",
    ]


def test_leaving_a_finished_game_is_no_disconnect() -> None:
    """After the game, an opponent going away has simply left: nothing to claim."""
    result = GameResult(winner="white", reason=Reason.RESIGN, line=None)
    model = in_room(state="over", result=result, moves=["h8", "h9"])
    model = reduce(model, event(6, ev.Presence(player="p-bob", online=False)), T0)
    assert model.log[-1].text == "bob left."


def test_presence_sets_a_claim_countdown() -> None:
    """An opponent's disconnect marks them offline with the local time a claim opens."""
    model = in_room(moves=["h8"], to_move="white")
    model = reduce(
        model, event(4, ev.Presence(player="p-bob", online=False, deadline_ms=60_000)), T0
    )
    game = model.room
    assert game is not None
    assert game.white is not None
    assert not game.white.online
    assert game.white.claim_at == T0 + 60
    assert model.log[-1].text == "bob went offline; the win may be claimed in 1:00."
    model = reduce(model, event(5, ev.Presence(player="p-bob", online=True)), T0)
    assert model.room is not None
    assert model.room.white is not None
    assert model.room.white.online


def test_ones_own_drop_replayed_is_said_as_ones_own() -> None:
    """Back after a drop, the replayed presence events are about alice herself: "You
    were disconnected", not "alice went offline; the win may be claimed in 0:59"."""
    model = in_room(moves=["h8"], to_move="white")
    gone = ev.Presence(player="p-alice", online=False, deadline_ms=59_000)
    model = reduce(model, event(4, gone), T0)
    assert model.log[-1].text == (
        "You were disconnected; your opponent could claim the win if you did not come back in time."
    )
    model = reduce(model, event(5, ev.Presence(player="p-alice", online=True)), T0)
    assert model.log[-1].text == "You are back."


def claim_at(model: ViewModel) -> float | None:
    assert model.room is not None
    return model.room.move_claim_at


def test_the_move_limit_counts_from_the_snapshot_and_again_from_each_turn() -> None:
    """Without a clock, the time the opponent may claim against the player to act: from
    the snapshot's countdown, then the welcome's limit again from each stone, choice,
    takeback and the game's start; chat and presence leave it; it ends with the game.
    With a clock, or a server without the limit, there is none."""
    untimed: dict[str, object] = {"time": None, "clocks": None}
    model = in_room(None, moves=["h8"], to_move="white", move_deadline_ms=250_000, **untimed)
    assert claim_at(model) == T0 + 250
    model = reduce(model, moved(4, "h9", "white"), T0 + 10)
    assert claim_at(model) == T0 + 10 + 600  # welcome's untimed_move_ms, 600000 here
    model = reduce(model, event(5, ev.ChatPosted(player="p-bob", name="bob", text="hm")), T0 + 20)
    model = reduce(model, event(6, ev.Presence(player="p-bob", online=False)), T0 + 20)
    assert claim_at(model) == T0 + 610
    model = reduce(model, event(7, ev.Undone(points=["h9"], clocks=None)), T0 + 30)
    assert claim_at(model) == T0 + 630
    over = ev.GameOver(winner="black", reason=Reason.TIMEOUT)
    assert claim_at(reduce(model, event(8, over), T0 + 40)) is None

    waiting: dict[str, object] = {
        "state": "waiting",
        "to_move": None,
        "players": Seats(black=ALICE),
    }
    opening = in_room(None, opening="swap2", **waiting, **untimed)
    assert claim_at(opening) is None
    started = ev.GameStarted(black="p-alice", white="p-bob", time=None)
    opening = reduce(opening, event(4, started), T0 + 5)
    assert claim_at(opening) == T0 + 605
    chose = ev.Chose(player="p-bob", choice="white", black="p-alice", white="p-bob")
    opening = reduce(opening, event(5, chose), T0 + 9)
    assert claim_at(opening) == T0 + 609

    clock = msgspec.structs.replace(started, time=TimeControl(base_ms=60_000, inc_ms=0))
    timed = reduce(in_room(None, **waiting), event(4, clock), T0)
    assert claim_at(timed) is None
    assert claim_at(reduce(timed, moved(5, "h8", "black"), T0)) is None
    plain = in_room(welcomed(move_limit_ms=0), moves=["h8"], to_move="white", **untimed)
    assert claim_at(reduce(plain, moved(4, "h9", "white"), T0)) is None


def test_a_room_without_a_clock_says_its_move_limit_from_the_start() -> None:
    """The room's first line says the move limit of a game without a clock (it was said
    only in its last minute); a server without one, or a timed room, says none."""
    limited = welcomed(move_limit_ms=600_000)
    first = in_room(limited, time=None).log[0].text
    assert "no clock (10:00 a move, or the opponent may claim)" in first
    assert "a move" not in in_room(welcomed(move_limit_ms=0), time=None).log[0].text
    five = TimeControl(base_ms=300_000, inc_ms=0)
    assert "a move" not in in_room(limited, time=five).log[0].text


def abort_at(model: ViewModel) -> float | None:
    assert model.room is not None
    return model.room.abort_at


def test_the_first_stones_time_counts_from_the_start_until_a_stone_is_down() -> None:
    """With a clock, the time the server aborts a game nobody begins: from the
    snapshot's countdown, or the welcome's 30 s from the start; gone with the first
    stone (anyone's) and at the end; a takeback to the empty board starts it again.
    Without a clock there is none."""
    model = in_room(None, abort_in_ms=25_000)
    assert abort_at(model) == T0 + 25
    model = reduce(model, event(4, ev.ChatPosted(player="p-bob", name="bob", text="hm")), T0 + 1)
    assert abort_at(model) == T0 + 25
    model = reduce(model, moved(5, "h8", "black"), T0 + 10)
    assert abort_at(model) is None
    model = reduce(model, moved(6, "h9", "white"), T0 + 11)
    model = reduce(model, event(7, ev.Undone(points=["h9"], clocks=None)), T0 + 12)
    assert abort_at(model) is None  # a stone is still down
    model = reduce(model, event(8, ev.Undone(points=["h8"], clocks=None)), T0 + 20)
    assert abort_at(model) == T0 + 20 + 30  # welcome's first_stone_ms, 30000 here
    over = ev.GameOver(winner=None, reason=Reason.ABANDON)
    assert abort_at(reduce(model, event(9, over), T0 + 50)) is None

    waiting: dict[str, object] = {"state": "waiting", "to_move": None, "clocks": None}
    lobby = in_room(None, players=Seats(black=ALICE), **waiting)
    assert abort_at(lobby) is None
    five = TimeControl(base_ms=300_000, inc_ms=0)
    started = ev.GameStarted(black="p-alice", white="p-bob", time=five)
    assert abort_at(reduce(lobby, event(4, started), T0 + 5)) == T0 + 35
    untimed = in_room(None, players=Seats(black=ALICE), time=None, **waiting)
    untimed = reduce(untimed, event(4, msgspec.structs.replace(started, time=None)), T0 + 5)
    assert abort_at(untimed) is None
    untimed = reduce(untimed, moved(5, "h8", "black"), T0 + 6)
    untimed = reduce(untimed, event(6, ev.Undone(points=["h8"], clocks=None)), T0 + 7)
    assert abort_at(untimed) is None


def test_a_waiting_rooms_player_gone_has_their_seat_kept_not_a_claim() -> None:
    """Before the game, the countdown of a player gone is how long their seat is kept:
    there is no win to claim."""
    model = in_room(welcomed("p-carol"), players=Seats(black=ALICE), state="waiting", to_move=None)
    model = reduce(
        model, event(4, ev.Presence(player="p-alice", online=False, deadline_ms=60_000)), T0
    )
    assert model.log[-1].text == "alice went offline; their seat is kept for 1:00."


def test_an_offer_made_before_one_came_in_is_in_the_log() -> None:
    """A spectator (or a player back) arriving while an offer waits for its answer reads
    it, as one who saw it made did: its answer was logged for an offer never shown."""
    pending = Pending(kind="draw", by="p-bob")
    model = in_room(welcomed("p-carol"), moves=["h8", "h9"], pending=pending)
    assert model.log[-1].text == "bob offers a draw."
    model = in_room(welcomed("p-bob"), moves=["h8", "h9"], pending=pending)
    assert model.log[-1].text == "You offer a draw."


def test_a_finished_game_opened_after_its_rematch_began_says_where_it_went() -> None:
    """The rematch's event came before one came in: the snapshot's rematch is said."""
    result = GameResult(winner="white", reason=Reason.RESIGN, line=None)
    model = in_room(
        welcomed("p-carol"),
        state="over",
        result=result,
        moves=["h8"],
        rematch_room="r-2",
        rematch_code="ABC-DEF-GHJ",
    )
    assert model.log[-1].text == "Its players went on to a rematch (invite code ABC-DEF-GHJ)."
    assert model.room is not None
    assert (model.room.rematch_room, model.room.rematch_code) == ("r-2", "ABC-DEF-GHJ")


def test_renju_forbidden_points_shown_for_black_only() -> None:
    """In renju the board marks Black's forbidden points while Black is to move."""
    moves = ["h8", "a1", "i9", "a2", "i7", "a3", "j8", "a4"]
    model = in_room(rule=Rule.RENJU, moves=moves, to_move="black")
    assert model.room is not None
    assert model.room.picture.forbidden == frozenset({Point(8, 7)})  # i8: double three
    model = reduce(model, moved(4, "o15", "black"), T0)
    assert model.room is not None
    assert model.room.picture.forbidden == frozenset()


def test_lobby_list_updates() -> None:
    """The lobby table follows lobby, lobby_room and lobby_gone."""
    summary = RoomSummary(
        id="r9",
        rule=Rule.RENJU,
        size=15,
        opening=Opening.FREE,
        time=None,
        rated=False,
        private=False,
        players=Seats(black=ALICE),
        spectators=0,
        state="waiting",
    )
    model = reduce(welcomed(), msg.Lobby(rooms=[summary]), T0)
    assert list(model.lobby.rooms) == ["r9"]
    changed = RoomSummary(
        **{**{f: getattr(summary, f) for f in summary.__struct_fields__}, "spectators": 2}
    )
    model = reduce(model, msg.LobbyRoom(room=changed), T0)
    assert model.lobby.rooms["r9"].spectators == 2
    model = reduce(model, msg.LobbyGone(room="r9"), T0)
    assert model.lobby.rooms == {}
    model = reduce(model, msg.Lobby(rooms=[summary], more=True), T0)
    other = msgspec.structs.replace(summary, id="r10")
    model = reduce(model, msg.Lobby(rooms=[other], part=1), T0)
    assert sorted(model.lobby.rooms) == ["r10", "r9"]  # a later part adds to the list
    model = reduce(model, msg.Lobby(rooms=[other]), T0)
    assert list(model.lobby.rooms) == ["r10"]  # part 0 starts it afresh


def test_quick_match_queue_state() -> None:
    """Queued shows a waiting state with its start time; unqueued or a game ends it."""
    model = reduce(welcomed(), msg.Queued(rule=Rule.FREESTYLE, time=None, since_ms=2000), T0)
    assert model.lobby.queue is not None
    assert model.lobby.queue.since == T0 - 2
    model = reduce(model, msg.Unqueued(), T0)
    assert model.lobby.queue is None
    model = reduce(model, msg.Queued(rule=Rule.FREESTYLE, time=None), T0)
    model = in_room(model)
    assert model.lobby.queue is None


def test_error_is_logged() -> None:
    """A refusal shows the server's message in the log as a sentence, as the log's own
    lines are: a point or a name that begins it as written, under "Not now:" when it
    says what stands in the way."""
    model = in_room()
    model = reduce(model, msg.Error(code="occupied", message="h8 is occupied", room="r1"), T0)
    assert model.log[-1].kind == "error"
    assert model.log[-1].text == "h8 is occupied."  # the point as written
    said = {
        ("wrong_phase", "bob has left the room"): "Not now: bob has left the room.",
        ("throttled", "wait 4 s before asking again"): "Not now: wait 4 s before asking again.",
        ("chat_rate_limited", "too many chat lines"): "Too many chat lines.",
        ("bad_value", "no such level."): "No such level.",
    }
    for (code, message), text in said.items():
        model = reduce(model, msg.Error(code=code, message=message, room="r1"), T0)
        assert model.log[-1].text == text


def test_leaving_returns_to_the_lobby() -> None:
    """RoomClosed and Left clear the room on screen."""
    assert reduce(in_room(), RoomClosed("r1"), T0).room is None
    assert reduce(in_room(), msg.Left(room="r1"), T0).room is None


def test_rematch_points_to_the_new_room() -> None:
    """A rematch event records the new room id; the new room's log opens by saying it is
    the rematch, and how the last game ended (gone with the last room's log)."""
    model = in_room(state="over", result=GameResult(winner="black", reason=Reason.RESIGN))
    model = reduce(model, event(4, ev.Rematch(room="r2")), T0)
    assert model.room is not None
    assert model.room.rematch_room == "r2"
    swapped = Seats(black=BOB, white=ALICE)
    model = reduce(model, msg.Snapshot(room=view(id="r2", players=swapped, seq=2)), T0)
    assert [line.text for line in model.log[:2]] == [
        "Rematch of r1. Last game: bob (white) resigned: alice (black) wins.",
        "Room r2: freestyle, 15x15, 5+3.",
    ]
    elsewhere = reduce(model, msg.Snapshot(room=view(id="r3")), T0)
    assert elsewhere.log[0].text.startswith("Room r3")  # not a rematch of r2


# --- AI: hints, AI seats, the quick match's AI fallback --------------------------------------


def test_suggestion_marks_the_hint_until_the_next_move() -> None:
    """A suggestion for the position on screen is drawn and explained; the next stone
    takes the mark away."""
    model = in_room(moves=["h8"], to_move="white", seq=4)
    model = reduce(model, msg.Suggestion(room="r1", point="i9", reason="block", move_no=1), T0)
    game = model.room
    assert game is not None
    assert game.picture.hint == Point(8, 6)
    assert model.log[-1].text == "Hint for white: i9 (it stops a threat)."
    model = reduce(model, moved(5, "i9", "white"), T0)
    assert model.room is not None
    assert model.room.hint is None
    assert model.room.picture.hint is None


def test_stale_or_foreign_suggestion_is_not_drawn() -> None:
    """A hint about an earlier position, or another room, marks nothing."""
    model = in_room(moves=["h8", "h9"], seq=5)
    stale = reduce(model, msg.Suggestion(room="r1", point="i9", reason="win", move_no=1), T0)
    assert stale.room is not None
    assert stale.room.picture.hint is None
    assert "came too late" in stale.log[-1].text
    other = reduce(model, msg.Suggestion(room="r2", point="i9", reason="win", move_no=2), T0)
    assert other.room == model.room


def test_resync_keeps_a_fresh_hint_and_game_over_clears_it() -> None:
    """A snapshot of the same position keeps the hint; the end of the game removes it."""
    model = in_room(moves=["h8"], to_move="white", seq=4)
    model = reduce(model, msg.Suggestion(room="r1", point="i9", reason="threat", move_no=1), T0)
    model = in_room(model, moves=["h8"], to_move="white", seq=4)
    assert model.room is not None
    assert model.room.picture.hint == Point(8, 6)
    over = ev.GameOver(winner="black", reason=Reason.RESIGN)
    model = reduce(model, event(5, over), T0)
    assert model.room is not None
    assert model.room.picture.hint is None


def test_hints_only_in_unrated_running_games() -> None:
    """can_hint says why not: rated, not running, a swap2 choice; else None."""
    assert can_hint(in_room()) is None
    assert can_hint(in_room(rated=True)) == NO_HINT_RATED
    assert can_hint(in_room(state="waiting", players=Seats(black=ALICE))) is not None
    assert can_hint(ViewModel()) == "You are not in a game."


def test_ai_seat_only_when_waiting_unrated_and_seated() -> None:
    """can_seat_ai: a waiting unrated room with a free seat, asked by its player."""

    def waiting(model: ViewModel | None = None, rated: bool = False) -> ViewModel:
        seats = Seats(black=ALICE)
        return in_room(model, state="waiting", players=seats, to_move=None, rated=rated)

    assert can_seat_ai(waiting()) is None
    assert can_seat_ai(waiting(rated=True)) == NO_AI_RATED
    assert can_seat_ai(in_room()) == "Both seats are taken."
    spectator = waiting(welcomed("p-carol"))
    assert can_seat_ai(spectator) == "Only a player sitting in this room can ask for an AI."


def test_rated_room_says_why_hints_and_ai_are_off() -> None:
    """Entering a rated room logs that it has no hints or AI seats."""
    assert in_room(rated=True).log[0].text.endswith("Rated: no hints or AI seats.")
    assert "Rated" not in in_room().log[-1].text


def test_ai_refusals_are_logged_with_a_heading() -> None:
    """no_ai_available and ai_not_allowed read as what was refused, then the server's why."""
    model = in_room()
    error = msg.Error(code="no_ai_available", message="every AI is busy; try again in a moment")
    model = reduce(model, error, T0)
    assert model.log[-1].text == "No AI available: every AI is busy; try again in a moment."
    model = reduce(
        model, msg.Error(code="ai_not_allowed", message="rated games are for people"), T0
    )
    assert model.log[-1].text == "AI seat refused: rated games are for people."
    assert model.log[-1].kind == "error"


def test_a_search_says_how_many_rooms_in_the_list_wait_with_its_settings() -> None:
    """Quick match pairs searching players, not rooms: the waiting line counts the
    rooms waiting for a player with the same rule and clock (a player waited with three
    of them in the list), not one's own, a full one or another clock's."""
    five = TimeControl(base_ms=300_000, inc_ms=3_000)

    def room(room_id: str, **changes: Any) -> RoomSummary:
        fields: dict[str, Any] = {
            **{"id": room_id, "rule": Rule.FREESTYLE, "size": 15, "opening": Opening.FREE},
            **{"time": five, "rated": False, "private": False, "spectators": 0},
            **{"players": Seats(white=PlayerRef(id="p-x", name="x")), "state": "waiting"},
        }
        return RoomSummary(**{**fields, **changes})

    rooms = [
        room("r1"),
        room("r2", rated=True),
        room("r3", time=None),  # another clock
        room("r4", rule=Rule.RENJU),
        room("r5", players=Seats(black=PlayerRef(id="p-me", name="me"))),  # one's own
        room("r6", state="playing"),
    ]
    queued = msg.Queued(rule=Rule.FREESTYLE, time=five, since_ms=0)
    model = reduce(welcomed(), queued, T0)
    label = queue_label(model.lobby.queue, T0 + 5, rooms, "p-me")
    assert label == (
        "Looking for an opponent (freestyle, 5+3) 0:05 · 2 such rooms open in the list"
        " - Esc to cancel"
    )
    assert "such room" not in queue_label(model.lobby.queue, T0 + 5, rooms[2:], "p-me")
    # At 80 columns (78 inside its padding) the count is said shorter, and the key to
    # cancel stays (it was cut).
    narrow = queue_label(model.lobby.queue, T0 + 5, rooms, "p-me", 78)
    assert narrow == "Searching (freestyle, 5+3) 0:05 · 2 such rooms open - Esc to cancel"


def test_going_away_is_said_as_it_is_with_the_opponent_here_or_away() -> None:
    """The questions before ^L and ^Q: an opponent here may claim the win after the
    grace period; one away within it means a draw if both stay away; one away past it
    means the game ends, won by the one leaving last (it said "may claim after 0:30",
    and the game ended at once)."""
    here = GameSeat("p-b", "bob")
    assert leaving_words(here, 30_000, T0) == "your opponent may claim the win after 0:30 away"
    away = GameSeat("p-b", "bob", online=False, claim_at=T0 + 10)
    assert leaving_words(away, 30_000, T0).startswith("bob is away too: if you both stay")
    assert leaving_words(away, 30_000, T0 + 11) == (
        "bob has been away past the grace period, so the game ends: you win it"
    )
    # The project's AI waits as long as a move may take before it claims (a child came
    # back after a minute to a lost game): the question says so.
    ai = GameSeat("p-ai", "AI novice", bot=True)
    said = leaving_words(ai, 30_000, T0, move_limit_ms=600_000)
    assert said == "the AI claims the win after 10:00 away"


def test_queue_with_an_ai_fallback_shows_when() -> None:
    """Queued with ai_after_ms: the waiting line says when an AI takes the seat."""
    queued = msg.Queued(rule=Rule.RENJU, time=None, since_ms=0, ai_after_ms=30_000)
    model = reduce(welcomed(), queued, T0)
    assert model.lobby.queue is not None
    assert model.lobby.queue.ai_after_ms == 30_000
    label = queue_label(model.lobby.queue, T0 + 12)
    assert label == "Looking for an opponent (renju, no clock) 0:12 · AI at 0:30 - Esc to cancel"
    # Still waiting past it: no AI was free then, and the server tries again.
    label = queue_label(model.lobby.queue, T0 + 42)
    assert label == (
        "Looking for an opponent (renju, no clock) 0:42 · AI when one is free - Esc to cancel"
    )


# --- ratings and history ------------------------------------------------------------------


def entry(rank: int, player: str, rating: int) -> LeaderboardEntry:
    return LeaderboardEntry(rank=rank, player=player, name=player, rating=rating, rd=60, games=40)


def standing(rule: Rule, rating: int = 1500) -> Standing:
    return Standing(
        rule=rule, rating=rating, rd=500, provisional=True, games=1, wins=1, losses=0, draws=0
    )


def summary(game: str = "r1", ended_ms: int = 0, **changes: Any) -> GameSummary:
    """A casual freestyle game of a list of games: alice (Black) beat bob with five."""
    listed = GameSummary(
        id=game,
        rule=Rule.FREESTYLE,
        size=15,
        opening=Opening.FREE,
        rated=False,
        black=GamePlayer(id="p-alice", name="alice"),
        white=GamePlayer(id="p-bob", name="bob"),
        result=GameResult(winner="black", reason=Reason.FIVE),
        moves=9,
        ended_ms=ended_ms,
    )
    return msgspec.structs.replace(listed, **changes)


def test_leaderboard_fills_the_rule_asked_for() -> None:
    """The reply for the rule on screen fills it; a late reply for another rule is dropped."""
    model = reduce(welcomed(), LeaderboardRequested(Rule.RENJU), T0)
    board = model.history.leaderboard
    assert board is not None
    assert board.loading
    late = msg.Leaderboard(rule=Rule.FREESTYLE, entries=[entry(1, "p-x", 1900)])
    assert reduce(model, late, T0).history == model.history
    reply = msg.Leaderboard(rule=Rule.RENJU, entries=[entry(1, "p-bob", 1700)])
    board = reduce(model, reply, T0).history.leaderboard
    assert board is not None
    assert not board.loading
    assert [e.player for e in board.entries] == ["p-bob"]


def test_own_profile_and_another_players() -> None:
    """A request for your own profile takes the reply about you; another player's
    reply about someone else is dropped; no_such_player ends the wait with its message."""
    ratings = [standing(rule) for rule in Rule]
    model = reduce(welcomed(), ProfileRequested(None), T0)
    other = msg.Profile(player="p-bob", name="bob", ratings=ratings)
    assert reduce(model, other, T0).history == model.history
    mine = reduce(model, msg.Profile(player="p-alice", name="alice", ratings=ratings), T0)
    profile = mine.history.profile
    assert profile is not None
    assert (profile.player, profile.name, profile.loading) == ("p-alice", "alice", False)
    model = reduce(model, ProfileRequested("p-nobody"), T0)
    model = reduce(model, msg.Error(code="no_such_player", message="no such player"), T0)
    assert model.history.profile is not None
    assert model.history.profile.error == "no such player"
    assert not model.history.profile.loading


def test_finished_games_page_back() -> None:
    """The first page replaces the list; the next page (before the oldest) appends; a
    full page says more may exist."""
    page = [summary(f"g{i}", 10_000 - i) for i in range(GAMES_PAGE)]
    model = reduce(welcomed(), GamesRequested(None), T0)
    model = reduce(model, msg.Games(player="p-alice", items=page), T0)
    archive = model.history.archive
    assert archive is not None
    assert archive.more
    assert archive.oldest_ms == 10_000 - GAMES_PAGE + 1
    model = reduce(model, GamesRequested(None, archive.oldest_ms), T0)
    model = reduce(model, msg.Games(player="p-alice", items=[summary("old", 5)]), T0)
    archive = model.history.archive
    assert archive is not None
    assert len(archive.games) == GAMES_PAGE + 1
    assert archive.games[-1].id == "old"
    assert not archive.more


def test_record_arrives_or_is_not_found() -> None:
    """The record asked for is kept; no_such_game ends the wait with the reason."""
    model = reduce(welcomed(), RecordRequested("g1"), T0)
    assert model.history.record is not None
    assert model.history.record.text is None
    got = reduce(model, msg.Record(game="g1", format="json", text="{}"), T0)
    assert got.history.record is not None
    assert got.history.record.text == "{}"
    missing = reduce(model, msg.Error(code="no_such_game", message="no such game"), T0)
    assert missing.history.record is not None
    assert missing.history.record.error == "no such game"
    assert missing.log[-1].text == "Game not found: no such game."


def test_offline_or_unavailable_ends_every_wait() -> None:
    """A request that could not be sent, or an unavailable store, stops the loading."""
    model = reduce(welcomed(), LeaderboardRequested(Rule.FREESTYLE), T0)
    model = reduce(model, GamesRequested(None), T0)
    failed = reduce(model, HistoryFailed("Offline: not sent."), T0)
    assert failed.history.leaderboard is not None
    assert failed.history.leaderboard.error == "Offline: not sent."
    assert failed.history.archive is not None
    assert not failed.history.archive.loading
    down = reduce(model, msg.Error(code="unavailable", message="store down"), T0)
    assert down.history.leaderboard is not None
    assert down.history.leaderboard.error == "store down"


def test_a_rated_game_without_ratings_says_why_it_did_not_count() -> None:
    """protocol.md: a rated game that ends before its second stone does not count, nor one
    both players left before each had made two moves (aborted); an unrated game's end
    says nothing of ratings."""
    short = in_room(rated=True, moves=["h8"], to_move="white")
    short = reduce(short, event(4, ev.GameOver(winner="black", reason=Reason.RESIGN)), T0)
    assert short.log[-1].text == (
        "This game did not count for ratings: it ended before its second stone."
    )
    left = in_room(rated=True, moves=["h8", "a1", "h9"], to_move="white")
    left = reduce(left, event(4, ev.GameOver(winner=None, reason=Reason.ABANDON)), T0)
    assert [line.text for line in left.log[-2:]] == [
        "Game aborted: both players left.",
        "An aborted game does not count for ratings.",
    ]
    unrated = in_room(moves=["h8"], to_move="white")
    unrated = reduce(unrated, event(4, ev.GameOver(winner="black", reason=Reason.RESIGN)), T0)
    assert "ratings" not in unrated.log[-1].text
    begun = in_room(rated=True, moves=[], to_move="black")  # a timed game nobody began
    begun = reduce(begun, event(4, ev.GameOver(winner=None, reason=Reason.ABANDON)), T0)
    assert [line.text for line in begun.log[-2:]] == [  # one reason, not two
        "Game aborted before its first stone.",
        "An aborted game does not count for ratings.",
    ]


def test_the_lobbys_notice_is_the_refusal_of_its_latest_request_until_it_no_longer_applies() -> (
    None
):
    """A refusal echoing the lobby's request is its notice (not another request's, nor a
    refusal without its id); the next request, a game on screen or a change of the
    games sat in clear it; one asked from a dialog is not the lobby line's."""
    refused = msg.Error(code="room_full", message="the room is full", re=7)
    model = reduce(welcomed(), LobbyAsked(7), T0)
    assert model.lobby.asked == 7
    assert reduce(model, msg.Error(code="x", message="other", re=8), T0).lobby.notice == ""
    model = reduce(model, refused, T0)
    assert (model.lobby.asked, model.lobby.notice) == (None, "The room is full.")
    assert model.lobby.line_notice == "The room is full."
    assert reduce(model, LobbyAsked(9), T0).lobby.notice == ""
    assert reduce(model, msg.Snapshot(room=view()), T0).lobby.notice == ""
    seated = reduce(
        welcomed(),
        msg.Welcome(player="p-alice", name="alice", token="t", resumed=True, rooms=["r1"]),
        T0,
    )
    seated = reduce(reduce(seated, LobbyAsked(7), T0), refused, T0)
    assert seated.lobby.notice == "The room is full."
    # r1 leaving the lobby's list out of sight: that game ended, which the line says now
    ended = "Your game (r1) has ended: p shows how, in your profile."
    gone = reduce(seated, msg.LobbyGone(room="r1"), T0)
    assert gone.lobby.notice == ended
    # ... and, once the player's latest games come, against whom and how
    lost = summary(rated=True, result=GameResult(winner="white", reason=Reason.TIMEOUT))
    told = reduce(gone, msg.Games(player="p-alice", items=[lost]), T0).lobby.notice
    assert told == "Your game with bob (r1) has ended: you lost (time). p shows it in your profile."
    rated = msgspec.structs.replace(
        lost, ratings=[RatingChange(player="p-alice", before=1500, after=1484)]
    )
    told = reduce(gone, msg.Games(player="p-alice", items=[rated]), T0).lobby.notice
    assert "you lost (time), rating 1500 → 1484 (-16). p shows" in told
    in_dialog = reduce(reduce(welcomed(), LobbyAsked(7, in_dialog=True), T0), refused, T0)
    assert (in_dialog.lobby.notice, in_dialog.lobby.line_notice) == ("The room is full.", "")
    unsent = reduce(reduce(welcomed(), LobbyAsked(3), T0), LobbyUnsent(3), T0)
    assert (unsent.lobby.asked, unsent.lobby.notice) == (None, "Offline: not sent.")


def test_the_last_ai_game_settings_are_kept() -> None:
    choice = AiChoice(msg.CreateRoom(seat="white", size=13), "novice")
    model = reduce(welcomed(), choice, T0)
    assert model.lobby.ai_choice == choice
    assert reduce(model, msg.Snapshot(room=view()), T0).lobby.ai_choice == choice


def test_a_note_saying_again_what_the_last_line_says_is_not_repeated() -> None:
    model = in_room()
    for _ in range(3):
        model = reduce(model, Note("The game is over."), T0)
    assert [line.text for line in model.log].count("The game is over.") == 1
    model = reduce(reduce(model, Note("Not your turn."), T0), Note("The game is over."), T0)
    assert [line.text for line in model.log][-2:] == ["Not your turn.", "The game is over."]


def test_a_servers_message_cannot_drive_the_terminal() -> None:
    """An error's message from a hostile server, with escape sequences (clear the
    screen, retitle the terminal) and a direction override, is logged with each of
    them made a visible U+FFFD, the words kept."""
    said = "boom \x1b]0;PWNED\x07\x1b[2J\u202eevil"
    model = reduce(in_room(), msg.Error(code="internal", message=said), T0)
    line = model.log[-1].text
    assert line == "Boom \ufffd]0;PWNED\ufffd\ufffd[2J\ufffdevil."
