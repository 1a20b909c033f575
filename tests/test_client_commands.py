"""What a line typed on the game screen means: a point, a point off the board, or chat."""

from __future__ import annotations

import pytest

from client.commands import NotOnBoard, ReversedPoint, typed_point
from engine.types import Point

FULL_WIDTH = ["\uff48\uff18", "\uff28\uff18", "h\u30008"]  # as a CJK keyboard types h8


@pytest.mark.parametrize("text", ["h8", "H8", "h 8", "h08", *FULL_WIDTH])
def test_a_point_is_read_however_it_is_typed(text: str) -> None:
    assert typed_point(text, 15) == Point(7, 7)


@pytest.mark.parametrize("text", ["gl hf", "h8!", "88h", "hh8", "20z", "16h", ""])
def test_anything_else_is_chat(text: str) -> None:
    assert typed_point(text, 15) is None


def test_a_point_off_the_board_is_refused_with_the_bounds() -> None:
    with pytest.raises(
        NotOnBoard, match=r"^p8 is not on this 15x15 board \(columns a-o, rows 1-15\)\.$"
    ):
        typed_point("P8", 15)
    with pytest.raises(NotOnBoard, match="h16"):
        typed_point("h16", 15)
    assert typed_point("z26", 26) == Point(25, 0)


@pytest.mark.parametrize(("text", "name"), [("8i", "i8"), ("8 I", "i8"), ("08h", "h8")])
def test_a_point_typed_row_first_is_neither_played_nor_chat(text: str, name: str) -> None:
    """A beginner's ``8i`` went out to the opponent as a chat line."""
    with pytest.raises(ReversedPoint) as refused:
        typed_point(text, 15)
    assert str(refused.value) == f"{text} was not sent: to play that point, type {name}."


@pytest.mark.parametrize(("text", "name"), [("h_", "h8"), ("jç", "j9"), ("a&é", "a12")])
def test_a_row_typed_without_shift_on_a_french_keyboard_is_neither_played_nor_chat(
    text: str, name: str
) -> None:
    """On AZERTY the digit row types & é " ' ( - è _ ç à without Shift: ``h_`` went out
    to the opponent as a chat line while the clock ran."""
    with pytest.raises(ReversedPoint) as refused:
        typed_point(text, 15)
    assert str(refused.value) == f"{text} was not sent: to play {name}, type its row with Shift."
