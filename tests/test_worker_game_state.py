"""worker/game.py: the game state a seat follows from the room's snapshot and events."""

from __future__ import annotations

from engine import Color, Rule
from engine.types import Reason
from protocol.events import (
    Answered,
    Chose,
    GameOver,
    GameStarted,
    Moved,
    Offered,
    OpeningPhase,
    Undone,
)
from protocol.values import Clocks, PlayerRef, RoomView, Seats, TimeControl
from worker.game import GameState


def _view(**changes: object) -> RoomView:
    fields: dict[str, object] = {
        "id": "r1",
        "rule": Rule.FREESTYLE,
        "size": 15,
        "opening": "free",
        "time": TimeControl(base_ms=60_000),
        "rated": False,
        "private": False,
        "players": Seats(
            black=PlayerRef(id="ai", name="AI", bot=True), white=PlayerRef(id="ann", name="ann")
        ),
        "spectators": 0,
        "state": "playing",
        "moves": [],
        "to_move": "black",
        "clocks": Clocks(black_ms=60_000, white_ms=60_000),
        "seq": 3,
    }
    fields.update(changes)
    return RoomView(**fields)  # type: ignore[arg-type]


def test_game_state_follows_moves_offers_and_takebacks() -> None:
    """The AI knows when it must move, what is offered, and what a takeback removed."""
    game = GameState.from_view(_view(), "ai", now=0.0)
    assert game.task() == "place"
    game.apply(Moved(point="h8", color="black", move_no=1, clocks=None), now=0.0)
    assert game.task() is None
    game.apply(
        Moved(point="a1", color="white", move_no=2, clocks=Clocks(black_ms=5_000, white_ms=1)),
        now=10.0,
    )
    assert game.task() == "place"
    assert game.remaining_ms(now=11.0) == 4_000  # its clock runs while it thinks
    version = game.version
    game.apply(Offered(kind="takeback", by="ann"), now=11.0)
    assert game.pending is not None
    game.apply(Answered(kind="takeback", by="ai", accept=True), now=11.0)
    game.apply(Undone(points=["a1"], clocks=None), now=11.0)
    assert game.moves == ["h8"]
    assert game.version > version
    assert game.task() is None
    game.apply(GameOver(winner=None, reason=Reason.AGREEMENT), now=12.0)
    assert not game.live


def test_game_state_follows_a_swap2_opening() -> None:
    """In swap2 the seat acts by phase: it places for the opener, chooses when asked."""
    view = _view(opening="swap2", state="opening", clocks=None, time=None)
    game = GameState.from_view(view, "ann", now=0.0)
    game.apply(GameStarted(black="ai", white="ann", time=None))
    game.apply(OpeningPhase(phase="place3", to_act="ai"))
    assert game.task() is None
    for n, point in enumerate(["h8", "i8", "i9"], 1):
        color = "black" if n % 2 else "white"
        game.apply(Moved(point=point, color=color, move_no=n, clocks=None))  # type: ignore[arg-type]
    game.apply(OpeningPhase(phase="choose", to_act="ann", choices=["black", "white", "place2"]))
    assert game.task() == "choose"
    game.apply(Chose(player="ann", choice="black", black="ann", white="ai"))
    assert game.my_seat_color() is Color.BLACK
    assert game.task() is None  # White (the AI) plays stone 4
    assert game.state == "playing"


def test_the_ai_budgets_from_its_own_clock_after_a_swap2_colour_choice() -> None:
    """The person who took Black took their own time with them: the AI, now White,
    reads its time from ``chose``'s clocks, not from the clock Black had before."""
    minute = TimeControl(base_ms=60_000, inc_ms=0)
    view = _view(opening="swap2", state="opening", clocks=None, time=minute)
    game = GameState.from_view(view, "ai", now=0.0)
    game.apply(GameStarted(black="ai", white="ann", time=minute), now=0.0)
    for n, point in enumerate(["h8", "i8", "i9"], 1):
        color = "black" if n % 2 else "white"
        clocks = Clocks(black_ms=55_000, white_ms=60_000)  # the AI placed in 5 s
        game.apply(Moved(point=point, color=color, move_no=n, clocks=clocks), now=5.0)  # type: ignore[arg-type]
    took = Clocks(black_ms=40_000, white_ms=55_000)  # ann thought 20 s, takes Black
    game.apply(Chose(player="ann", choice="black", black="ann", white="ai", clocks=took), now=25.0)
    assert game.my_seat_color() is Color.WHITE
    assert game.remaining_ms(now=26.0) == 54_000


def test_no_move_is_asked_for_after_a_five_before_its_game_over_arrives() -> None:
    """A five ends the game on the board; the server sends game_over only after it has
    archived the game, and meanwhile the other seat has nothing to play (it tried, and
    the engine's 'the game is over' was logged as a failure with a traceback)."""
    game = GameState.from_view(_view(clocks=None, time=None), "ann", now=0.0)
    stones = ["h8", "a1", "i8", "a3", "j8", "a5", "k8", "a7", "l8"]
    for n, point in enumerate(stones, 1):
        color = "black" if n % 2 else "white"
        game.apply(Moved(point=point, color=color, move_no=n, clocks=None))  # type: ignore[arg-type]
    assert game.live
    assert game.task() is None
