"""protocol/convert.py and protocol/errors.py: points, colours and results between the
engine and the wire, and the stable error codes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import NotationError
from engine.types import Color, Point, Reason, Result
from protocol import (
    ErrorCode,
    Move,
    color_from_wire,
    color_to_wire,
    decode_client,
    encode,
    point_from_wire,
    point_to_wire,
    result_to_wire,
)


@given(st.integers(min_value=5, max_value=26).flatmap(lambda n: st.tuples(st.just(n), st.data())))
def test_points_convert_both_ways(args: tuple[int, st.DataObject]) -> None:
    """h8 strings and engine Points convert losslessly on any board size."""
    size, data = args
    point = Point(data.draw(st.integers(0, size - 1)), data.draw(st.integers(0, size - 1)))
    text = point_to_wire(point, size)
    assert point_from_wire(text, size) == point
    assert decode_client(encode(Move(room="r", point=text))).point == text  # type: ignore[union-attr]


def test_point_mapping_matches_gomocup() -> None:
    """h8 is the centre (7,7); a1 is the bottom-left (0,14) on 15x15."""
    assert point_from_wire("h8", 15) == Point(7, 7)
    assert point_from_wire("a1", 15) == Point(0, 14)
    assert point_from_wire("o15", 15) == Point(14, 0)
    assert point_to_wire(Point(0, 0), 15) == "a15"
    with pytest.raises(NotationError):
        point_from_wire("p1", 15)  # valid on the wire, off a 15x15 board


def test_colours_and_results_convert() -> None:
    """Engine colours and results map to their wire names."""
    assert color_to_wire(Color.BLACK) == "black"
    assert color_from_wire("white") is Color.WHITE
    line = tuple(Point(x, 7) for x in range(3, 8))
    wire = result_to_wire(Result(Color.BLACK, Reason.FIVE, line), 15)
    assert (wire.winner, wire.reason, wire.line) == (
        "black",
        "five",
        ["d8", "e8", "f8", "g8", "h8"],
    )
    draw = result_to_wire(Result(None, Reason.BOARD_FULL), 15)
    assert (draw.winner, draw.line) == (None, None)


def test_error_codes_include_every_code_of_the_sketch() -> None:
    """The stable codes promised to clients all exist, spelled as documented."""
    sketch = {
        *("bad_frame", "bad_message", "too_large", "not_hello", "bad_token", "bad_bot_key"),
        *("rate_limited", "chat_rate_limited", "no_such_room", "room_full", "not_in_room"),
        *("not_your_seat", "not_your_turn", "occupied", "off_board", "forbidden", "game_over"),
        *("wrong_phase", "no_offer", "offer_pending", "throttled", "not_claimable"),
        *("already_queued", "not_queued", "bad_value", "internal"),
    }
    values = {code.value for code in ErrorCode}
    assert sketch <= values
