"""The worker's pure parts: dead-draw judgement, the time budget, the game state it
follows from events, and the names it offers brains under."""

from __future__ import annotations

from engine import Board, Color, Point, Rule
from engine.ai import think
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
from worker.config import brain_level_name
from worker.game import GameState
from worker.judge import can_still_make_five, dead_draw, proven_lost
from worker.timing import move_budget_ms


def _blocked_board() -> Board:
    """A 5x5 board filled so that no line of five is free of either colour, with one
    point left empty."""
    rows = ["XOXOX", "XOXOX", "OXOXO", "OXOXO", "XOXO."]
    black = [(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "X"]
    white = [(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "O"]
    order = []
    for i, b in enumerate(black):
        order.append(b)
        if i < len(white):
            order.append(white[i])
    return Board.from_moves([Point(*p) for p in order], size=5, rule=Rule.FREESTYLE)


def test_an_open_board_is_not_a_dead_draw() -> None:
    """With room for fives, nobody should agree to a draw."""
    board = Board.from_moves("h8 i9 h9")
    assert can_still_make_five(board, Color.WHITE)
    assert not dead_draw(board)


def test_a_board_where_no_five_fits_is_a_dead_draw() -> None:
    """When every line of five holds both colours, the game can only be drawn."""
    board = _blocked_board()
    assert not board.is_over()
    assert not can_still_make_five(board, Color.BLACK)
    assert not can_still_make_five(board, Color.WHITE)
    assert dead_draw(board)


def test_only_a_proven_loss_is_resigned() -> None:
    """Facing an open four the search proves the loss; an ordinary position is no loss."""
    lost = think(Board.from_moves("h8 a1 h9 a3 h10 a5 h11"), level="advanced", time_limit=0.3)
    assert proven_lost(lost.score)
    playable = think(Board.from_moves("h8 i9 h9"), level="advanced", time_limit=0.3)
    assert not proven_lost(playable.score)


def test_budget_without_a_clock_is_the_cap() -> None:
    """No clock: the per-move cap is the budget."""
    budget = move_budget_ms(
        remaining_ms=None, inc_ms=0, stones=10, cells=225, cap_ms=700, overhead_ms=100
    )
    assert budget == 700


def test_budget_never_risks_the_clock() -> None:
    """The budget stays under half the usable time, and is zero when nothing is left."""
    for remaining in (50, 120, 400, 1_000, 5_000, 60_000, 600_000):
        for inc in (0, 1_000, 5_000):
            budget = move_budget_ms(
                remaining_ms=remaining,
                inc_ms=inc,
                stones=30,
                cells=225,
                cap_ms=10_000,
                overhead_ms=100,
            )
            assert 0 <= budget <= max(0, (remaining - 100) / 2)
    assert (
        move_budget_ms(
            remaining_ms=90, inc_ms=0, stones=0, cells=225, cap_ms=1_000, overhead_ms=100
        )
        == 0
    )


def test_budget_uses_the_increment_and_the_cap() -> None:
    """An increment buys time per move; the cap bounds it."""
    kwargs = {"stones": 20, "cells": 225, "cap_ms": 60_000, "overhead_ms": 100}
    without = move_budget_ms(remaining_ms=60_000, inc_ms=0, **kwargs)
    with_inc = move_budget_ms(remaining_ms=60_000, inc_ms=3_000, **kwargs)
    assert with_inc > without
    kwargs["cap_ms"] = 500
    assert move_budget_ms(remaining_ms=60_000, inc_ms=3_000, **kwargs) == 500


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


def test_brain_level_names_fit_the_protocol() -> None:
    """A brain command becomes a level name like brain:embryo."""
    assert brain_level_name("/opt/brains/pbrain-Embryo.exe --x") == "brain:pbrain-embryo"
    assert brain_level_name("python3 /tmp/tiny_brain.py") == "brain:tiny_brain"
