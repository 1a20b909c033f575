"""Opening rules: free and swap2, who places and chooses, and who ends up with which colour."""

from __future__ import annotations

from typing import Any

import pytest

from engine.board import Board
from engine.notation import parse_moves
from engine.opening import Action, OpeningError, OpeningState, Phase, takeback_count
from engine.types import Color, Opening


def play_opening(state: OpeningState, board: Board, moves: str) -> OpeningState:
    """Place ``moves`` on the board, each by the player the opening names."""
    for point in parse_moves(moves):
        player = state.to_move(board.turn)
        board.play(point)
        state = state.place(player)
    return state


def test_free_opening() -> None:
    """In the free opening player 0 is Black and the game starts at once."""
    state = OpeningState.start(Opening.FREE)
    assert state.done
    assert state.actor is None
    assert state.color_of(0) is Color.BLACK
    assert state.color_of(1) is Color.WHITE
    assert state.to_move(Color.BLACK) == 0
    assert state.to_move(Color.WHITE) == 1
    assert state.allowed() == frozenset()


def test_swap2_second_player_takes_black() -> None:
    """After three stones player 1 may take Black; player 0 (White) moves next."""
    board = Board()
    state = OpeningState.start(Opening.SWAP2)
    assert state.phase is Phase.PLACE3
    assert state.color_of(0) is None
    state = play_opening(state, board, "h8 i9 j8")
    assert state.phase is Phase.CHOOSE_AFTER_3
    assert state.actor == 1
    assert state.allowed() == {Action.BLACK, Action.WHITE, Action.PLACE2}
    state = state.choose(1, "black")
    assert state.done
    assert state.color_of(1) is Color.BLACK
    assert state.player_of(Color.WHITE) == 0
    assert board.turn is Color.WHITE
    assert state.to_move(board.turn) == 0


def test_swap2_second_player_takes_white() -> None:
    """After three stones player 1 may take White and plays the fourth stone."""
    board = Board()
    state = play_opening(OpeningState.start(Opening.SWAP2), board, "h8 i9 j8")
    state = state.choose(1, Action.WHITE)
    assert state.done
    assert state.color_of(0) is Color.BLACK
    assert state.color_of(1) is Color.WHITE
    assert state.to_move(board.turn) == 1
    board.play(parse_moves("k8")[0])
    assert state.to_move(board.turn) == 0


@pytest.mark.parametrize(("choice", "black"), [(Action.BLACK, 0), (Action.WHITE, 1)])
def test_swap2_place_two_more(choice: Action, black: int) -> None:
    """Player 1 may place two more stones (W, B) and let player 0 choose."""
    board = Board()
    state = play_opening(OpeningState.start(Opening.SWAP2), board, "h8 i9 j8")
    state = state.choose(1, "place2")
    assert state.phase is Phase.PLACE2
    assert state.actor == 1
    assert state.to_move(board.turn) == 1
    state = play_opening(state, board, "g7 k10")
    assert len(board) == 5
    assert state.phase is Phase.CHOOSE_AFTER_5
    assert state.actor == 0
    assert state.allowed() == {Action.BLACK, Action.WHITE}
    state = state.choose(0, choice)
    assert state.done
    assert state.black == black
    assert state.to_move(Color.WHITE) == 1 - black  # White plays the sixth stone
    assert state.to_move(Color.BLACK) == black


def test_swap2_who_places_each_stone() -> None:
    """Player 0 places stones 1-3 and, after place2, player 1 places stones 4-5."""
    board = Board()
    state = OpeningState.start(Opening.SWAP2)
    placers = []
    for point in parse_moves("h8 i9 j8"):
        placers.append(state.to_move(board.turn))
        board.play(point)
        state = state.place(placers[-1])
    state = state.choose(1, "place2")
    for point in parse_moves("g7 k10"):
        placers.append(state.to_move(board.turn))
        board.play(point)
        state = state.place(placers[-1])
    assert placers == [0, 0, 0, 1, 1]
    assert state.stones == 5


@pytest.mark.parametrize(
    ("setup", "player", "action", "message"),
    [
        ("", 1, Action.PLACE, "it is player 0's turn in the opening, not player 1's"),
        ("", 0, Action.BLACK, "black is not allowed in phase place3"),
        ("", 0, Action.PLACE2, "place2 is not allowed in phase place3"),
        ("h8 i9 j8", 0, Action.BLACK, "it is player 1's turn"),
        ("h8 i9 j8", 1, Action.PLACE, "place is not allowed in phase choose-after-3"),
        ("h8 i9 j8 place2", 0, Action.PLACE, "it is player 1's turn"),
        ("h8 i9 j8 place2", 1, Action.WHITE, "white is not allowed in phase place2"),
        (
            "h8 i9 j8 place2 g7 k10",
            0,
            Action.PLACE2,
            "place2 is not allowed in phase choose-after-5",
        ),
        ("h8 i9 j8 place2 g7 k10", 1, Action.BLACK, "it is player 0's turn"),
        ("h8 i9 j8 place2 g7 k10", 0, Action.PLACE, "place is not allowed"),
        ("h8 i9 j8 white", 1, Action.PLACE, "the swap2 opening is over"),
        ("h8 i9 j8 white", 0, Action.BLACK, "the swap2 opening is over"),
    ],
)
def test_swap2_rejects_wrong_player_or_action(
    setup: str, player: int, action: Action, message: str
) -> None:
    """A wrong player or an action the phase does not take raises OpeningError."""
    board = Board()
    state = OpeningState.start(Opening.SWAP2)
    for token in setup.split():
        if token in ("place2", "black", "white"):
            state = state.choose(state.actor or 0, token)
        else:
            state = play_opening(state, board, token)
    before = state
    with pytest.raises(OpeningError, match=message):
        state.apply(player, action)
    assert state == before  # states are values: a refused action changes nothing


def test_no_stone_while_a_choice_is_awaited() -> None:
    """While player 1 must choose, asking who places the next stone is an error."""
    board = Board()
    state = play_opening(OpeningState.start(Opening.SWAP2), board, "h8 i9 j8")
    with pytest.raises(OpeningError, match="player 1 must choose"):
        state.to_move(board.turn)


@pytest.mark.parametrize("player", [2, -1, True])
def test_players_are_zero_or_one(player: int) -> None:
    """Only players 0 and 1 exist."""
    with pytest.raises(OpeningError, match="player must be 0 or 1"):
        OpeningState.start(Opening.SWAP2).place(player)


def test_unknown_choice() -> None:
    """A choice that is no opening action is refused with the list of actions."""
    state = play_opening(OpeningState.start(Opening.SWAP2), Board(), "h8 i9 j8")
    with pytest.raises(OpeningError, match="'red' is not an opening action"):
        state.choose(1, "red")
    with pytest.raises(OpeningError, match="placing a stone is not a choice"):
        state.choose(1, "place")


def test_opening_error_is_a_value_error() -> None:
    """OpeningError is a narrow ValueError."""
    assert issubclass(OpeningError, ValueError)


def every_state() -> list[OpeningState]:
    """All states of all three swap2 flows and the free opening."""
    states = [OpeningState.start(Opening.FREE)]
    for flow in ("black", "white", "place2 black", "place2 white"):
        state = OpeningState.start(Opening.SWAP2)
        board = Board()
        states.append(state)
        for token in ("h8 i9 j8 " + flow.replace("place2", "place2 g7 k10")).split():
            if token in ("place2", "black", "white"):
                state = state.choose(state.actor or 0, token)
            else:
                state = play_opening(state, board, token)
            states.append(state)
    return states


@pytest.mark.parametrize("state", every_state(), ids=repr)
def test_state_as_plain_data(state: OpeningState) -> None:
    """Every reachable state survives to_dict/from_dict and repr."""
    data = state.to_dict()
    assert all(isinstance(v, str | int | None) for v in data.values())
    assert OpeningState.from_dict(data) == state
    namespace = {"OpeningState": OpeningState, "Opening": Opening, "Phase": Phase}
    assert eval(repr(state), namespace) == state


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "not an opening state"),
        ({"opening": "swap3", "phase": "place3", "stones": 0, "black": None}, "not an opening"),
        ({"opening": "swap2", "phase": "nap", "stones": 0, "black": None}, "not an opening"),
        ({"opening": "free", "phase": "place3", "stones": 0, "black": None}, "has no phase"),
        ({"opening": "swap2", "phase": "place3", "stones": 3, "black": None}, "3 stones cannot"),
        ({"opening": "swap2", "phase": "place2", "stones": "4", "black": None}, "cannot stand"),
        ({"opening": "swap2", "phase": "done", "stones": 4, "black": 0}, "4 stones cannot"),
        ({"opening": "swap2", "phase": "done", "stones": 3, "black": None}, "black is None"),
        ({"opening": "swap2", "phase": "place3", "stones": 0, "black": 1}, "black is 1"),
        ({"opening": "swap2", "phase": "done", "stones": 3, "black": 2}, "black must be 0, 1"),
        ({"opening": "free", "phase": "done", "stones": 0, "black": 1}, "player 0 is Black"),
    ],
)
def test_state_from_bad_data(data: dict[str, Any], message: str) -> None:
    """Stored data that no opening can reach is refused."""
    with pytest.raises(OpeningError, match=message):
        OpeningState.from_dict(data)


def test_a_takeback_goes_back_to_the_players_last_stone_never_into_the_opening() -> None:
    """One stone if the player's is the last, two if the opponent answered it; none
    before their first stone or when their last is one the opening placed."""
    assert takeback_count(1, 0, Color.BLACK) == 1
    assert takeback_count(2, 0, Color.BLACK) == 2
    assert takeback_count(1, 0, Color.WHITE) == 0
    assert takeback_count(0, 0, Color.BLACK) == 0
    assert takeback_count(6, 5, Color.BLACK) == 0  # k11, the fifth, was the opening's
    assert takeback_count(6, 5, Color.WHITE) == 1
    assert takeback_count(4, 3, Color.WHITE) == 1
