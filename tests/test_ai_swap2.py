"""The AI in the swap2 opening, in both roles: the engine's decisions and the
Gomocup ``SWAP2BOARD`` command. (Rooms: tests/test_worker_games.py.)"""

from __future__ import annotations

import random

import pytest

from engine import Board, Point, Rule, parse_point
from engine.ai import swap2
from gomocup.session import BrainSession


def board(moves: str, rule: Rule = Rule.FREESTYLE) -> Board:
    return Board.from_moves(moves, rule=rule)


@pytest.mark.parametrize("rule", list(Rule))
def test_the_opener_places_three_legal_stones_that_leave_an_even_game(rule: Rule) -> None:
    """Black on the centre, White touching it, Black near: and neither side clearly ahead."""
    stones = swap2.opening(Board(15, rule), random.Random(5))
    game = Board(15, rule)
    for p in stones:
        game.play(p)
    assert stones[0] == Point(7, 7)
    assert max(abs(stones[1].x - 7), abs(stones[1].y - 7)) == 1
    assert abs(swap2.white_score(game)) <= swap2.EVEN


def test_the_second_player_takes_white_when_white_stands_better() -> None:
    """Black's stones in two corners, White on the centre: take White and play on."""
    decision = swap2.after_three(board("a1 h8 o15"), random.Random(1))
    assert decision.choice == "white"
    assert decision.move is not None
    assert board("a1 h8 o15").is_legal(decision.move)


def test_the_second_player_takes_black_when_black_stands_better() -> None:
    """Two black stones together on the centre, White's in a corner: take Black."""
    decision = swap2.after_three(board("h8 a1 i9"), random.Random(1))
    assert (decision.choice, decision.move, decision.stones) == ("black", None, ())


def test_the_second_player_places_two_in_an_even_position() -> None:
    """An even shape: place White's and Black's stones, and the five stones stay even."""
    three = board("h8 i8 i7")
    decision = swap2.after_three(three, random.Random(1))
    assert decision.choice == "place2"
    assert len(decision.stones) == 2
    five = three.copy()
    for p in decision.stones:
        five.play(p)
    assert len(five) == 5
    assert abs(swap2.white_score(five)) <= swap2.EVEN


def test_the_opener_after_five_takes_the_better_colour() -> None:
    """After five stones the opener takes Black where Black has three in a row, White
    (and plays the sixth stone) where White's stones are the ones together."""
    black = swap2.after_five(board("h8 a1 i8 a3 j8"))
    assert black.choice == "black"
    white = swap2.after_five(board("h8 h9 a1 i9 b2"))
    assert white.choice == "white"
    assert white.move is not None


def swap2board(session: BrainSession, stones: str) -> list[str]:
    lines = [f"{p.x},{p.y}" for p in Board.from_moves(stones).moves] if stones else []
    replies: list[str] = []
    for line in ["SWAP2BOARD", *lines, "DONE"]:
        replies += session.feed(line)
    return replies


def test_swap2board_in_every_phase() -> None:
    """Gomocup's SWAP2BOARD: three stones on an empty board; SWAP (take Black), one
    move (take White) or two (place2) after three; SWAP or the sixth stone after five."""
    session = BrainSession("master", rng=random.Random(2))
    assert session.feed("START 15") == ["OK"]
    session.feed("INFO timeout_turn 1000")
    (opening,) = swap2board(session, "")
    points = [tuple(int(v) for v in p.split(",")) for p in opening.split()]
    assert len(points) == 3
    assert len(set(points)) == 3
    assert swap2board(session, "h8 a1 i9") == ["SWAP"]
    (white,) = swap2board(session, "a1 h8 o15")
    assert len(white.split()) == 1
    (place2,) = swap2board(session, "h8 i8 i7")
    assert len(place2.split()) == 2
    assert session.board is not None
    assert len(session.board) == 5
    assert swap2board(session, "h8 a1 i8 a3 j8") == ["SWAP"]
    (sixth,) = swap2board(session, "h8 h9 a1 i9 b2")
    x, y = (int(v) for v in sixth.split(","))
    assert board("h8 h9 a1 i9 b2").is_legal(Point(x, y))


def test_swap2board_refuses_a_stone_count_it_cannot_answer() -> None:
    """Two stones are no swap2 phase: a clear ERROR, and the session goes on."""
    session = BrainSession("master")
    session.feed("START 15")
    assert swap2board(session, "h8 i9")[0].startswith("ERROR SWAP2BOARD")
    assert session.feed("BEGIN") == [f"{parse_point('h8').x},{parse_point('h8').y}"]
