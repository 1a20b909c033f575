"""The sans-I/O room core: state x action -> new state + events, or a coded refusal."""

from __future__ import annotations

import contextlib
import dataclasses

import pytest

from engine import Opening, Reason, Rule
from protocol.errors import ErrorCode
from protocol.events import Answered, Chose, GameOver, Moved, PlayerLeft, Presence, Undone
from protocol.values import TimeControl
from server import game
from server.game import GameError, GameRules, apply
from server.room import Room, Seat, decode_room, encode_room
from server.store import Attachment, Attendance

RULES = GameRules(
    grace_ms=1000,
    takeback_cooldown_ms=1000,
    max_takeback_declines=2,
    attach_wait_ms=50,
    offline_after_ms=0,
)
A, B = "p-a", "p-b"


def waiting(
    *,
    rule: Rule = Rule.FREESTYLE,
    opening: Opening = Opening.FREE,
    time: TimeControl | None = None,
    now: int = 0,
) -> Room:
    """A room with A in seat 0, waiting for a second player."""
    room = game.new_room(
        "r-1",
        rule=rule,
        size=15,
        opening=opening,
        time=time,
        rated=False,
        private=False,
        code=None,
        now_ms=now,
    )
    return apply(room, game.Join(Seat(id=A, name="a")), now, RULES).room


def started(
    *, opening: Opening = Opening.FREE, time: TimeControl | None = None, now: int = 0
) -> Room:
    """A room with A in seat 0 and B in seat 1, game started."""
    room = waiting(opening=opening, time=time, now=now)
    return apply(room, game.Join(Seat(id=B, name="b")), now, RULES).room


def play(room: Room, moves: str, now: int = 0) -> Room:
    for i, point in enumerate(moves.split()):
        player = room.seats[room.actor() or 0]
        assert player is not None
        room = apply(room, game.Move(player.id, point), now + i, RULES).room
    return room


def test_table_refuses_actions_the_state_does_not_take() -> None:
    """Moves before the game starts and after it ends are refused with stable codes, and
    a refusal says what cannot be done and why in words (it named the wire's state:
    "not possible while the room is waiting")."""
    with pytest.raises(GameError) as refused:
        apply(waiting(rule=Rule.RENJU), game.Move(A, "h8"), 0, RULES)
    assert refused.value.code == "wrong_phase"
    assert str(refused.value) == (
        "you cannot place a stone now: the game has not begun (the room waits for its "
        "second player)"
    )
    with pytest.raises(GameError) as refused:
        apply(started(), game.Offer(A, "rematch"), 0, RULES)
    assert str(refused.value) == "you cannot offer a rematch now: the game is under way"
    over = apply(started(), game.Resign(A), 0, RULES).room
    for action in (game.Move(B, "h8"), game.Offer(A, "draw"), game.Claim(B)):
        with pytest.raises(GameError) as refused:
            apply(over, action, 0, RULES)
        assert refused.value.code == "game_over"


def test_apply_never_mutates_its_input_and_state_round_trips() -> None:
    """A refused or accepted action leaves the given room untouched; rooms encode losslessly."""
    room = play(started(), "h8 a1")
    before = encode_room(room)
    with pytest.raises(GameError):
        apply(room, game.Move(A, "a1"), 5, RULES)
    after = apply(room, game.Move(A, "h9"), 5, RULES).room
    assert encode_room(room) == before
    assert decode_room(encode_room(after)) == after
    assert after.moves == ["h8", "a1", "h9"]


def _rooms_in_every_phase() -> list[Room]:
    """Rooms in the states a handler can change: waiting, swap2 under way, a timed game
    with a takeback asked for, the same after it was declined and a draw offered, and a
    finished game."""
    swap2 = play(started(opening=Opening.SWAP2), "h8 h9 j10")
    timed = play(started(time=TimeControl(base_ms=60_000, inc_ms=1_000)), "h8 a1 h9 a2", 10)
    asked = apply(timed, game.Offer(A, "takeback"), 20, RULES).room
    declined = apply(asked, game.Answer(B, "takeback", False), 21, RULES).room
    declined = apply(declined, game.Offer(A, "draw"), 22, RULES).room
    over = apply(play(started(), "h8 a1"), game.Resign(B), 5, RULES).room
    return [waiting(), swap2, asked, declined, over]


@pytest.mark.parametrize("index", range(5))
def test_no_action_changes_the_room_it_was_applied_to(index: int) -> None:
    """Every action, accepted or refused, in every phase, leaves the room it was given
    exactly as it was (the service keeps that room as the next action's room before)."""
    room = _rooms_in_every_phase()[index]
    here = _attending(**{A: (1, None), B: (0, 10)})
    actions: list[game.GameAction] = [
        game.Join(Seat(id=B, name="b")),
        game.Leave(A),
        game.Tick(here),
        game.Tick(_attending(**{A: (0, 10), B: (0, 10)})),
        game.Move(A, "k11"),
        game.Move(B, "k11"),
        game.Choose(B, "white"),
        game.Choose(A, "black"),
        game.Resign(A),
        game.Claim(A, here),
        game.Offer(A, "draw"),
        game.Offer(B, "takeback"),
        game.Answer(B, "draw", True),
        game.Answer(B, "draw", False),
        game.Answer(B, "takeback", True),
        game.Answer(B, "takeback", False),
        game.Answer(A, "takeback", False),
        game.Offer(A, "rematch"),
        game.Answer(B, "rematch", True, "r-9"),
    ]
    before = encode_room(room)
    for action in actions:
        for now in (30, 100_000):  # and once past every clock and grace period
            with contextlib.suppress(GameError):
                apply(room, action, now, RULES)
            assert encode_room(room) == before, (action, now)


def test_late_action_after_the_flag_fell_reports_game_over() -> None:
    """An action arriving after the mover's time ran out commits the timeout and is refused."""
    room = play(started(time=TimeControl(base_ms=1000, inc_ms=0)), "h8", now=0)
    assert room.deadline_ms() == 1000
    outcome = apply(room, game.Move(B, "a1"), 1500, RULES)
    assert outcome.error is not None
    assert outcome.error.code == "game_over"
    over = outcome.events[0]
    assert isinstance(over, GameOver)
    assert (over.winner, over.reason) == ("black", "timeout")
    assert outcome.room.deadline_ms() is None
    tick = apply(room, game.Tick(), 999, RULES)
    assert not tick.changed


def clocks_after(outcome: game.Outcome) -> tuple[int, int]:
    moved = next(e for e in outcome.events if isinstance(e, Moved))
    assert moved.clocks is not None
    return moved.clocks.black_ms, moved.clocks.white_ms


def test_a_stone_is_not_charged_its_links_round_trip() -> None:
    """A stone from a link with a 300 ms round trip, 1.3 s after the opponent's, is
    charged 1 s (3+2: the quota gives every stone back its lag); one from a link without
    lag is charged all 1.3 s."""
    room = play(started(time=TimeControl(base_ms=180_000, inc_ms=2_000)), "h8", now=0)
    laggy = apply(room, game.Move(B, "a1", lag_ms=300), 1_300, RULES)
    assert clocks_after(laggy)[1] == 180_000 - 1_000 + 2_000
    plain = apply(room, game.Move(B, "a1"), 1_300, RULES)
    assert clocks_after(plain)[1] == 180_000 - 1_300 + 2_000


def test_lag_compensation_gives_back_no_more_than_its_quota() -> None:
    """In a 10 s game (0.2 s of quota a stone, 0.6 s at first) a link that says 2 s of
    lag gets 0.6 s back on its first stone, then 0.2 s on each; never more than the
    stone took."""
    room = play(started(time=TimeControl(base_ms=10_000, inc_ms=0)), "h8", now=0)
    room = apply(room, game.Move(B, "a1", lag_ms=2_000), 1_000, RULES).room
    assert room.clocks_ms[1] == 10_000 - 400
    room = apply(room, game.Move(A, "h9"), 1_000, RULES).room
    outcome = apply(room, game.Move(B, "a2", lag_ms=2_000), 2_000, RULES)
    assert clocks_after(outcome)[1] == 10_000 - 400 - 800
    room = apply(outcome.room, game.Move(A, "h10"), 2_000, RULES).room
    outcome = apply(room, game.Move(B, "a3", lag_ms=2_000), 2_100, RULES)
    assert clocks_after(outcome)[1] == 10_000 - 400 - 800  # 0.1 s taken, 0.1 s back


def test_the_flag_waits_for_a_stone_still_on_its_way() -> None:
    """Black's clock runs out at 1 s; their link's last round trip was 300 ms, so the
    flag falls at 1.3 s: a stone arriving at 1.2 s counts (with 0.1 s left), the
    ticker finds nothing to do before 1.3 s and flags after it."""
    room = play(started(time=TimeControl(base_ms=60_000, inc_ms=0)), "h8", now=0)
    room = apply(room, game.Move(B, "a1"), 59_000, RULES).room
    assert room.deadline_ms() == 59_000 + 60_000  # Black's link: no lag seen yet
    room.clocks_ms[0] = 1_000  # Black, to move: 1 s left
    assert room.seats[0] is not None
    room.seats[0].lag_ms = 300  # as Black's last stone found it
    assert room.deadline_ms() == 59_000 + 1_000 + 300
    assert not apply(room, game.Tick(), 59_000 + 1_299, RULES).changed
    late = apply(room, game.Move(A, "h9", lag_ms=300), 59_000 + 1_200, RULES)
    assert late.error is None
    assert clocks_after(late)[0] == 100
    flagged = apply(room, game.Tick(), 59_000 + 1_300, RULES)
    over = flagged.events[0]
    assert isinstance(over, GameOver)
    assert (over.winner, over.reason) == ("white", "timeout")


def test_a_seat_asked_for_as_the_flag_falls_is_refused_and_the_flag_falls() -> None:
    """Asking for a seat in a game whose clock just ran out: the flag falls, the seat is
    refused."""
    room = play(started(time=TimeControl(base_ms=1000, inc_ms=0)), "h8", now=0)
    seat = apply(room, game.Join(Seat(id="p-d", name="d")), 1500, RULES)
    assert seat.error is not None
    assert seat.error.code == "room_full"
    assert isinstance(seat.events[0], GameOver)
    assert seat.room.state == "over"


def test_a_seat_in_a_finished_game_is_refused_as_over_not_started() -> None:
    """A late comer with the invite code of a game played without them is told the game
    is over (it said "the game has started"), and may still watch."""
    over = apply(started(), game.Resign(A), 0, RULES).room
    with pytest.raises(GameError) as refused:
        apply(over, game.Join(Seat(id="p-d", name="d")), 10, RULES)
    assert (refused.value.code, refused.value.message) == (
        "room_full",
        "the game in that room is over; join as a spectator",
    )
    with pytest.raises(GameError) as refused:
        apply(started(), game.Join(Seat(id="p-d", name="d")), 10, RULES)
    assert refused.value.message == "the game has started; join as a spectator"


def test_takeback_never_reaches_into_the_swap2_opening() -> None:
    """After swap2, the opening stones cannot be taken back."""
    room = started(opening=Opening.SWAP2)
    room = play(room, "h8 h9 i8")
    room = apply(room, game.Choose(B, "white"), 0, RULES).room  # B is White, moves next
    with pytest.raises(GameError) as refused:
        apply(room, game.Offer(B, "takeback"), 0, RULES)
    assert refused.value.code == "wrong_phase"
    room = play(room, "a1")
    room = apply(room, game.Offer(B, "takeback"), 0, RULES).room
    outcome = apply(room, game.Answer(A, "takeback", True), 0, RULES)
    undone = outcome.events[-1]
    assert isinstance(undone, Undone)
    assert undone.points == ["a1"]
    assert outcome.room.moves == ["h8", "h9", "i8"]


def test_a_takeback_takes_back_the_increments_of_the_stones_it_removes() -> None:
    """Each stone an accepted takeback removes takes the increment its player earned with
    it off their clock; time spent stays spent (10+3, times in ms)."""
    room = started(time=TimeControl(base_ms=10_000, inc_ms=3_000))
    room = apply(room, game.Move(A, "h8"), 0, RULES).room  # A 13,000 (no clock ran yet)
    room = apply(room, game.Move(B, "a1"), 1_000, RULES).room  # B 12,000
    room = apply(room, game.Move(A, "h9"), 3_000, RULES).room  # A 14,000
    room = apply(room, game.Offer(B, "takeback"), 4_000, RULES).room
    outcome = apply(room, game.Answer(A, "takeback", True), 5_000, RULES)
    assert outcome.room.moves == ["h8"]
    undone = outcome.events[-1]
    assert isinstance(undone, Undone)
    assert undone.points == ["h9", "a1"]
    assert undone.clocks is not None
    assert undone.clocks.black_ms == 10_000 + 3_000 - 2_000  # h8's increment stays
    assert undone.clocks.white_ms == 10_000 - 1_000 - 2_000
    room = apply(outcome.room, game.Move(B, "a2"), 6_000, RULES).room  # B 9,000
    room = apply(room, game.Offer(B, "takeback"), 6_500, RULES).room  # on A's turn
    outcome = apply(room, game.Answer(A, "takeback", True), 7_000, RULES)
    undone = outcome.events[-1]
    assert isinstance(undone, Undone)
    assert undone.points == ["a2"]
    assert undone.clocks is not None
    assert (undone.clocks.black_ms, undone.clocks.white_ms) == (11_000 - 1_000, 9_000 - 3_000)


def test_a_takeback_leaving_the_player_to_move_no_time_ends_the_game_on_time() -> None:
    """A requester who spent on this turn more than they had without the increment of the
    stone taken back is out of time: their flag falls with the takeback."""
    room = started(time=TimeControl(base_ms=10_000, inc_ms=3_000))
    room = play(room, "h8", now=0)  # A 13,000
    room = apply(room, game.Move(B, "a1"), 1_000, RULES).room  # B 12,000
    room = apply(room, game.Move(A, "h9"), 12_000, RULES).room  # A 5,000
    room = apply(room, game.Move(B, "a2"), 13_000, RULES).room  # B 14,000
    room = apply(room, game.Offer(A, "takeback"), 17_000, RULES).room
    outcome = apply(room, game.Answer(B, "takeback", True), 17_500, RULES)  # A 500 left
    assert [type(e) for e in outcome.events] == [Answered, Undone, GameOver]
    undone, over = outcome.events[1], outcome.events[2]
    assert isinstance(undone, Undone)
    assert undone.clocks is not None
    assert (undone.clocks.black_ms, undone.clocks.white_ms) == (0, 11_000)
    assert isinstance(over, GameOver)
    assert (over.winner, over.reason) == ("white", Reason.TIMEOUT)
    assert outcome.room.state == "over"
    assert outcome.room.moves == ["h8", "a1"]


def test_a_takeback_to_the_empty_board_leaving_no_time_ends_the_game_on_time() -> None:
    """Taken back to the empty board, the clocks stop as before the first stone: a Black
    left with no time was to move on 0:00 for good (and a stone then earned the
    increment). The flag falls with the takeback, as on a board with stones."""
    room = started(time=TimeControl(base_ms=6_000, inc_ms=5_000))
    room = play(room, "h8", now=0)  # A 11,000 (the clocks run from the first stone)
    room = apply(room, game.Move(B, "h9"), 500, RULES).room  # B 10,500
    room = apply(room, game.Offer(A, "takeback"), 8_500, RULES).room
    outcome = apply(room, game.Answer(B, "takeback", True), 8_600, RULES)  # A 2,400 - 5,000
    assert [type(e) for e in outcome.events] == [Answered, Undone, GameOver]
    over = outcome.events[2]
    assert isinstance(over, GameOver)
    assert (over.winner, over.reason) == ("white", Reason.TIMEOUT)
    assert (outcome.room.state, outcome.room.moves) == ("over", [])


def test_declined_takebacks_are_throttled_then_refused() -> None:
    """Each decline doubles the wait; after the limit, no more takebacks this game."""
    room = play(started(), "h8 a1 h9")
    now = 0
    for wait in (1000, 2000):
        room = apply(room, game.Offer(A, "takeback"), now, RULES).room
        room = apply(room, game.Answer(B, "takeback", False), now, RULES).room
        with pytest.raises(GameError) as refused:
            apply(room, game.Offer(A, "takeback"), now + wait - 1, RULES)
        assert refused.value.code == "throttled"
        now += wait
    with pytest.raises(GameError) as refused:
        apply(room, game.Offer(A, "takeback"), now + 60_000, RULES)
    assert refused.value.code == "throttled"


def test_a_declined_draw_offer_waits_two_moves_before_the_next() -> None:
    """A draw offer declined, or declined by the opponent playing on, may not be made
    again until two more moves of each side (an offer at every turn took the
    opponent's keys while their clock ran); the opponent may still offer theirs."""
    room = play(started(), "h8 a1")
    room = apply(room, game.Offer(A, "draw"), 0, RULES).room
    room = apply(room, game.Answer(B, "draw", False), 0, RULES).room
    with pytest.raises(GameError) as refused:
        apply(room, game.Offer(A, "draw"), 0, RULES)
    assert refused.value.code == "throttled"
    assert str(refused.value) == (
        "your draw offer was declined: offer again once 4 more stones are on the board"
    )
    room = play(room, "h9 a2 h10")
    with pytest.raises(GameError) as refused:
        apply(room, game.Offer(A, "draw"), 0, RULES)
    assert str(refused.value).endswith("once 1 more stone is on the board")
    room = apply(room, game.Offer(B, "draw"), 0, RULES).room  # B's own offer: no repeat
    room = play(room, "a3")  # B's move keeps B's offer
    assert room.pending is not None
    room = play(room, "h11")  # A plays on: declined
    assert room.pending is None
    room = apply(room, game.Offer(A, "draw"), 0, RULES).room  # A's wait is over
    room = apply(room, game.Answer(B, "draw", False), 0, RULES).room
    room = decode_room(encode_room(room))  # kept in the store
    for player in (A, B):
        with pytest.raises(GameError):
            apply(room, game.Offer(player, "draw"), 0, RULES)


def test_a_declined_rematch_offer_is_not_made_again() -> None:
    """A rematch offer declined may not be repeated in that room (30 offers in 10 s
    each took the opponent's keys with the question); the one who declined may still
    offer one, and the rule survives the store."""
    room = play(started(), "h8 a1 h9 a2 h10 a3 h11 a4 h12")
    assert room.state == "over"
    room = apply(room, game.Offer(A, "rematch"), 0, RULES).room
    room = apply(room, game.Answer(B, "rematch", False), 0, RULES).room
    room = decode_room(encode_room(room))
    with pytest.raises(GameError) as refused:
        apply(room, game.Offer(A, "rematch"), 60_000, RULES)
    assert refused.value.code == "throttled"
    assert str(refused.value) == (
        "your rematch offer was declined: the other player may still offer one"
    )
    room = apply(room, game.Offer(B, "rematch"), 0, RULES).room
    outcome = apply(room, game.Answer(A, "rematch", True, "r-2"), 0, RULES)
    assert outcome.spawn is not None


def test_an_untimed_game_lets_a_player_claim_from_one_who_does_not_move() -> None:
    """Without a clock, an opponent who stayed connected and never moved held the game
    for good (leaving it lost it): after the move limit without a stone, the player
    waiting may claim the win on time. Each stone starts the count again; a takeback
    too. Not in a timed game, nor with no limit, nor on one's own turn."""
    room = play(started(), "h8 a1 h9", now=1_000)  # stones at 1.000, 1.001, 1.002 s
    assert room.actor() == 1  # B, white, to move since 1.002 s
    with pytest.raises(GameError) as early:
        apply(room, game.Claim(A), 1_002 + 600_000 - 1_001, RULES)
    assert early.value.code == "not_claimable"
    assert str(early.value) == (
        "your opponent is connected, or left only a moment ago; they have 2 s left to move"
    )
    with pytest.raises(GameError) as own_turn:
        apply(room, game.Claim(B), 1_002 + 600_000, RULES)
    assert str(own_turn.value) == "your opponent is connected, or left only a moment ago"
    outcome = apply(room, game.Claim(A), 1_002 + 600_000, RULES)
    (over,) = outcome.events
    assert isinstance(over, GameOver)
    assert (over.winner, over.reason) == ("black", Reason.TIMEOUT)
    unlimited = GameRules(grace_ms=1000, untimed_move_ms=0)
    with pytest.raises(GameError):
        apply(room, game.Claim(A), 10**9, unlimited)
    # A takeback hands the turn over again: the count starts from it.
    asked = apply(room, game.Offer(B, "takeback"), 500_000, RULES).room
    taken = apply(asked, game.Answer(A, "takeback", True), 500_000, RULES).room
    assert taken.actor() == 1
    with pytest.raises(GameError):
        apply(taken, game.Claim(A), 1_002 + 600_000, RULES)
    assert apply(taken, game.Claim(A), 1_100_000, RULES).room.state == "over"
    timed = play(started(time=TimeControl(base_ms=10**9, inc_ms=0)), "h8")
    with pytest.raises(GameError):
        apply(timed, game.Claim(A), 700_000, RULES)


def test_a_timed_game_nobody_begins_is_aborted() -> None:
    """A timed game whose first stone has not come 30 s after the start ends, aborted
    with no winner, at that moment (its due time says when); one begun in time goes on,
    and an untimed one; taken back to the empty board, where the clocks stop again, it
    has 30 s for the first stone again (it stood still for good)."""
    five = TimeControl(base_ms=300_000, inc_ms=0)
    room = started(time=five, now=1_000)
    assert room.aborted_at_ms() == 31_000  # among the times due_ms() looks at
    assert apply(room, game.Tick(), 30_999, RULES).events == []
    [over] = apply(room, game.Tick(), 31_000, RULES).events
    assert isinstance(over, GameOver)
    assert (over.winner, over.reason) == (None, Reason.ABANDON)  # aborted: no stone
    begun = play(started(time=five, now=1_000), "h8", now=30_000)
    assert apply(begun, game.Tick(), 40_000, RULES).events == []
    begun = apply(begun, game.Offer(A, "takeback"), 40_000, RULES).room
    emptied = apply(begun, game.Answer(B, "takeback", True), 40_000, RULES).room
    assert emptied.moves == []
    assert not emptied.clock_running()  # before the first stone again
    assert emptied.aborted_at_ms() == 70_000  # among the times due_ms() looks at
    assert apply(emptied, game.Tick(), 69_999, RULES).events == []
    [over] = apply(emptied, game.Tick(), 70_000, RULES).events
    assert isinstance(over, GameOver)
    assert (over.winner, over.reason) == (None, Reason.ABANDON)
    again = play(emptied, "h8", now=60_000)
    assert apply(again, game.Tick(), 100_000, RULES).events == []
    assert apply(started(now=1_000), game.Tick(), 100_000, RULES).events == []


def _attending(**players: tuple[int, int | None]) -> Attendance:
    """An attendance: player -> (connections attached, when the last one left)."""
    seated = {p: Attachment(conns, left) for p, (conns, left) in players.items()}
    return Attendance(sum(1 for conns, _ in players.values() if conns), seated)


def test_a_waiting_room_keeps_the_seat_of_a_player_gone_for_the_grace_period() -> None:
    """A reload or a dropped network no longer closes a room waiting for an opponent (its
    invite code handed out): the seat is kept for the grace period, given back on their
    return, given up after it; an opponent who joins meanwhile starts the game, in which
    the countdown goes on from when they left."""
    room = apply(waiting(), game.Tick(_attending(**{A: (1, None)})), 10, RULES).room
    left = apply(room, game.Tick(_attending(**{A: (0, 100)})), 120, RULES)
    assert left.events == [Presence(player=A, online=False, deadline_ms=980)]
    assert left.room.due_ms(RULES.grace_ms) == 1100
    room = left.room
    assert not apply(room, game.Tick(_attending(**{A: (0, 100)})), 1099, RULES).changed
    back = apply(room, game.Tick(_attending(**{A: (1, 100)})), 900, RULES)
    assert back.events == [Presence(player=A, online=True)]
    gone = apply(room, game.Tick(_attending(**{A: (0, 100)})), 1100, RULES)
    assert isinstance(gone.events[0], PlayerLeft)
    assert gone.room.seats == [None, None]
    joined = apply(room, game.Join(Seat(id=B, name="b")), 500, RULES).room
    assert joined.state == "playing"
    with pytest.raises(GameError):  # A's grace runs from when they left, not from the start
        apply(joined, game.Claim(B, _attending(**{A: (0, 100), B: (1, None)})), 1099, RULES)
    claimed = apply(joined, game.Claim(B, _attending(**{A: (0, 100), B: (1, None)})), 1100, RULES)
    assert isinstance(claimed.events[-1], GameOver)


def test_a_seat_waits_for_its_first_connection_then_follows_the_attached_ones() -> None:
    """A new seat shows online without a connection for attach_wait_ms; after that a
    waiting room gives it up, and a running game marks its player gone, once."""
    alone = waiting()
    nobody = _attending()
    assert not apply(alone, game.Tick(nobody), RULES.attach_wait_ms - 1, RULES).changed
    gone = apply(alone, game.Tick(nobody), RULES.attach_wait_ms, RULES)
    assert isinstance(gone.events[0], PlayerLeft)
    assert gone.room.seats == [None, None]

    running = started()
    both = _attending(**{A: (1, None), B: (2, None)})
    seen = apply(running, game.Tick(both), 5, RULES)
    assert seen.events == []
    assert seen.changed  # seen attached: no longer waited for
    running = seen.room
    b_left = apply(running, game.Tick(_attending(**{A: (1, None), B: (0, 40)})), 100, RULES)
    assert b_left.events == [Presence(player=B, online=False, deadline_ms=940)]
    running = b_left.room
    assert not apply(
        running, game.Tick(_attending(**{A: (1, None), B: (0, 40)})), 200, RULES
    ).changed
    with pytest.raises(GameError) as refused:
        apply(running, game.Claim(A, _attending(**{A: (1, None), B: (0, 40)})), 1039, RULES)
    assert refused.value.code == "not_claimable"
    assert str(refused.value) == "your opponent has 1 s left to come back"  # (not "1 ms")
    with pytest.raises(GameError) as refused:  # B is back: the claim finds them attached
        apply(running, game.Claim(A, _attending(**{A: (1, None), B: (1, 40)})), 1040, RULES)
    assert refused.value.code == "not_claimable"
    claimed = apply(running, game.Claim(A, _attending(**{A: (1, None), B: (0, 40)})), 1040, RULES)
    assert isinstance(claimed.events[-1], GameOver)
    # B came back and left again between two looks: both are told, the countdown restarts.
    blip = apply(running, game.Tick(_attending(**{A: (1, None), B: (0, 700)})), 800, RULES)
    assert blip.events == [
        Presence(player=B, online=True),
        Presence(player=B, online=False, deadline_ms=900),
    ]
    with pytest.raises(GameError):
        apply(blip.room, game.Claim(A, _attending(**{A: (1, None), B: (0, 700)})), 1040, RULES)


def test_a_player_gone_for_less_than_offline_after_is_not_announced() -> None:
    """A reload (gone and back within ``offline_after_ms``) changes nothing the opponent
    sees; gone for longer, the departure is announced then, with the grace counted from
    when they left, and the seat shows online (not claimable) until it is."""
    rules = dataclasses.replace(RULES, grace_ms=60_000, offline_after_ms=3_000)
    both = _attending(**{A: (1, None), B: (1, None)})
    running = apply(started(), game.Tick(both), 5, rules).room
    b_gone = _attending(**{A: (1, None), B: (0, 1_000)})
    left = apply(running, game.Tick(b_gone), 1_000, rules)
    assert left.events == []
    assert left.changed  # the room is looked at again when the wait is over
    assert left.room.due_ms(rules.grace_ms) == 4_000
    with pytest.raises(GameError) as refused:
        apply(left.room, game.Claim(A, b_gone), 3_999, rules)
    assert refused.value.code == "not_claimable"
    back = apply(left.room, game.Tick(_attending(**{A: (1, None), B: (1, 1_000)})), 1_800, rules)
    assert back.events == []
    assert all(seat is not None and seat.online for seat in back.room.seats)
    assert not apply(left.room, game.Tick(b_gone), 3_999, rules).changed
    announced = apply(left.room, game.Tick(b_gone), 4_000, rules)
    assert announced.events == [Presence(player=B, online=False, deadline_ms=57_000)]
    # gone again after a return inside the wait: the wait counts from the second departure
    again = apply(left.room, game.Tick(_attending(**{A: (1, None), B: (0, 3_500)})), 4_000, rules)
    assert again.events == []
    assert again.room.due_ms(rules.grace_ms) == 6_500
    # an AI seat's going is announced at once (its worker's death is found by presence)
    seat = running.seats[1]
    assert seat is not None
    seat.bot = True
    ai_gone = apply(running, game.Tick(b_gone), 1_000, rules)
    assert ai_gone.events == [Presence(player=B, online=False, deadline_ms=60_000)]


def test_a_player_who_never_attached_is_gone_once_and_can_be_claimed_against() -> None:
    """B's seat was taken while B was away (a rematch, a quick match) and no connection of
    B's ever attached: B is gone once the seat's wait is over, later looks change nothing,
    A's claim wins after a whole grace period, and if A leaves too, B (gone first) loses."""
    wait, grace = RULES.attach_wait_ms, RULES.grace_ms
    only_a = _attending(**{A: (1, None)})
    room = apply(started(), game.Tick(only_a), 5, RULES).room
    gone = apply(room, game.Tick(only_a), wait, RULES)
    assert gone.events == [Presence(player=B, online=False, deadline_ms=grace)]
    room = gone.room
    for now in (wait + 300, wait + 600):
        assert not apply(room, game.Tick(only_a), now, RULES).changed
    with pytest.raises(GameError) as refused:
        apply(room, game.Claim(A, only_a), wait + grace - 1, RULES)
    assert refused.value.code == "not_claimable"
    claimed = apply(room, game.Claim(A, only_a), wait + grace, RULES)
    assert claimed.events[-1] == GameOver(winner="black", reason=Reason.ABANDON, line=None)
    both_gone = apply(room, game.Tick(_attending(**{A: (0, wait + grace)})), wait + grace, RULES)
    assert [e for e in both_gone.events if isinstance(e, Presence)] == [
        Presence(player=A, online=False, deadline_ms=grace)
    ]
    assert both_gone.events[-1] == GameOver(winner="black", reason=Reason.ABANDON, line=None)


@pytest.mark.parametrize(
    ("b_left", "a_left", "decided_at", "winner"),
    [
        (100, 2_000, 2_000, "black"),  # B was past the grace while A was there: B loses
        (100, 600, 1_600, None),  # both gone within the grace: drawn by abandonment
    ],
)
def test_a_game_both_players_left_ends(
    b_left: int, a_left: int, decided_at: int, winner: str | None
) -> None:
    """Both players gone: the first loses if the other was still there past the first's
    grace period; else, once the second's grace is over too, the game is drawn."""
    room = apply(started(), game.Tick(_attending(**{A: (1, None), B: (1, None)})), 5, RULES).room
    room = play(room, "h8 a1 h9 a2", now=10)
    gone = _attending(**{A: (0, a_left), B: (0, b_left)})
    room = apply(room, game.Tick(_attending(**{A: (1, None), B: (0, b_left)})), b_left, RULES).room
    room = apply(room, game.Tick(gone), a_left, RULES).room
    if decided_at > a_left:  # else decided at once, as the second player left
        assert room.abandoned_at_ms(RULES.grace_ms) == decided_at
        assert room.due_ms(RULES.grace_ms) == decided_at
        assert room.state == "playing"
        assert apply(room, game.Tick(gone), decided_at - 1, RULES).room.state == "playing"
        room = apply(room, game.Tick(gone), decided_at, RULES).room
    assert room.state == "over"
    assert room.result is not None
    assert (room.result.winner, room.result.reason) == (winner, "abandon")


def test_the_requesters_own_move_withdraws_their_takeback_request() -> None:
    """Asking for a takeback and then moving (on one's turn) withdraws the request: it
    would take back the new move, not the one it was asked for. Not a decline: the
    requester may ask again at once. A draw offer outlives its maker's move."""
    room = play(started(), "h8 a1 h9 a2")
    room = apply(room, game.Offer(A, "takeback"), 0, RULES).room
    outcome = apply(room, game.Move(A, "h10"), 0, RULES)
    assert outcome.room.pending is None
    assert [type(e) for e in outcome.events] == [Answered, Moved]
    answered = outcome.events[0]
    assert isinstance(answered, Answered)
    assert (answered.kind, answered.by, answered.accept) == ("takeback", A, False)
    with pytest.raises(GameError) as refused:
        apply(outcome.room, game.Answer(B, "takeback", True), 0, RULES)
    assert refused.value.code == ErrorCode.NO_OFFER
    again = apply(outcome.room, game.Offer(A, "takeback"), 0, RULES).room  # no cooldown
    assert again.pending is not None
    assert (again.pending.kind, again.pending.by) == ("takeback", A)
    drawing = play(started(), "h8")
    drawing = apply(drawing, game.Offer(B, "draw"), 0, RULES).room
    drawing = apply(drawing, game.Move(B, "a1"), 0, RULES).room
    assert drawing.pending is not None
    assert drawing.pending.kind == "draw"


def test_a_move_declines_the_opponents_pending_offer() -> None:
    """Playing on instead of answering declines the opponent's draw offer."""
    room = play(started(), "h8")
    room = apply(room, game.Offer(A, "draw"), 0, RULES).room
    outcome = apply(room, game.Move(B, "a1"), 0, RULES)
    assert outcome.room.pending is None
    assert [type(e) for e in outcome.events] == [Answered, Moved]


def test_a_swap2_choice_tells_the_clocks_by_the_new_colours() -> None:
    """``chose`` carries the clocks: B thought 8 s over the choice and takes Black with
    their own time; A, who placed three stones in 3 s, keeps theirs as White."""
    minute = TimeControl(base_ms=60_000, inc_ms=0)
    room = play(started(opening=Opening.SWAP2, time=minute), "h8 h9 j10", now=1_000)
    outcome = apply(room, game.Choose(B, "black"), 1_002 + 8_000, RULES)
    [chose] = [e for e in outcome.events if isinstance(e, Chose)]
    assert (chose.black, chose.white) == (B, A)
    assert chose.clocks is not None
    assert chose.clocks.black_ms == 60_000 - 8_000  # B's own time, B thinking
    assert chose.clocks.white_ms == 60_000 - 2  # A placed the three stones at 1,000-1,002
    place2 = apply(room, game.Choose(B, "place2"), 1_002 + 5_000, RULES)
    [chose] = [e for e in place2.events if isinstance(e, Chose)]
    assert chose.clocks is not None
    assert (chose.clocks.black_ms, chose.clocks.white_ms) == (60_000 - 2, 60_000 - 5_000)
