"""What a line typed on the game screen means: a point, a point off the board, or chat."""

from __future__ import annotations

import pytest

from client.commands import NotOnBoard, typed_point
from engine.types import Point


@pytest.mark.parametrize("text", ["h8", "H8", "h 8", "h08"])
def test_a_point_is_read_however_it_is_typed(text: str) -> None:
    assert typed_point(text, 15) == Point(7, 7)


@pytest.mark.parametrize("text", ["gl hf", "h8!", "8h", "hh8", ""])
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
