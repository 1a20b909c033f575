"""The sans-I/O room core: state x action -> new state + events, or a coded refusal."""

from __future__ import annotations

import pytest

from engine import Opening, Rule
from protocol.events import Answered, GameOver, Moved, PlayerLeft, Undone
from protocol.values import TimeControl
from server import game
from server.game import GameError, GameRules, apply
from server.room import Room, Seat, decode_room, encode_room

RULES = GameRules(grace_ms=1000, takeback_cooldown_ms=1000, max_takeback_declines=2)
A, B = "p-a", "p-b"


def started(
    *, opening: Opening = Opening.FREE, time: TimeControl | None = None, now: int = 0
) -> Room:
    """A room with A in seat 0 and B in seat 1, game started."""
    room = game.new_room(
        "r-1",
        rule=Rule.FREESTYLE,
        size=15,
        opening=opening,
        time=time,
        rated=False,
        private=False,
        code=None,
        now_ms=now,
    )
    room = apply(room, game.Join(Seat(id=A, name="a")), now, RULES).room
    return apply(room, game.Join(Seat(id=B, name="b")), now, RULES).room


def play(room: Room, moves: str, now: int = 0) -> Room:
    for i, point in enumerate(moves.split()):
        player = room.seats[room.actor() or 0]
        assert player is not None
        room = apply(room, game.Move(player.id, point), now + i, RULES).room
    return room


def test_table_refuses_actions_the_state_does_not_take() -> None:
    """Moves before the game starts and after it ends are refused with stable codes."""
    waiting = game.new_room(
        "r-1",
        rule=Rule.RENJU,
        size=15,
        opening=Opening.FREE,
        time=None,
        rated=False,
        private=False,
        code=None,
        now_ms=0,
    )
    waiting = apply(waiting, game.Join(Seat(id=A, name="a")), 0, RULES).room
    with pytest.raises(GameError) as refused:
        apply(waiting, game.Move(A, "h8"), 0, RULES)
    assert refused.value.code == "wrong_phase"
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


def test_a_spectator_arriving_as_the_flag_falls_watches_the_ended_game() -> None:
    """Joining to watch a game whose clock just ran out: the flag falls and the join holds."""
    room = play(started(time=TimeControl(base_ms=1000, inc_ms=0)), "h8", now=0)
    outcome = apply(room, game.Join(Seat(id="p-c", name="c"), as_player=False), 1500, RULES)
    assert outcome.error is None
    assert isinstance(outcome.events[0], GameOver)
    assert outcome.room.state == "over"
    assert outcome.room.spectators == ["p-c"]
    seat = apply(room, game.Join(Seat(id="p-d", name="d")), 1500, RULES)
    assert seat.error is not None  # a seat in it is still refused, after the flag fell
    assert seat.error.code == "room_full"
    assert isinstance(seat.events[0], GameOver)


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


def test_disconnect_before_the_game_frees_the_seat() -> None:
    """A waiting room does not hold a seat for someone who left; a running game does."""
    waiting = game.new_room(
        "r-1",
        rule=Rule.FREESTYLE,
        size=15,
        opening=Opening.FREE,
        time=None,
        rated=False,
        private=False,
        code=None,
        now_ms=0,
    )
    waiting = apply(waiting, game.Join(Seat(id=A, name="a")), 0, RULES).room
    outcome = apply(waiting, game.SetPresence(A, False), 0, RULES)
    assert isinstance(outcome.events[0], PlayerLeft)
    assert outcome.room.seats == [None, None]
    running = apply(started(), game.SetPresence(B, False), 100, RULES).room
    assert running.seats[1] is not None
    with pytest.raises(GameError):
        apply(running, game.Claim(A), 1099, RULES)
    claimed = apply(running, game.Claim(A), 1100, RULES)
    assert isinstance(claimed.events[-1], GameOver)


def test_a_move_declines_the_opponents_pending_offer() -> None:
    """Playing on instead of answering declines the opponent's draw offer."""
    room = play(started(), "h8")
    room = apply(room, game.Offer(A, "draw"), 0, RULES).room
    outcome = apply(room, game.Move(B, "a1"), 0, RULES)
    assert outcome.room.pending is None
    assert [type(e) for e in outcome.events] == [Answered, Moved]
