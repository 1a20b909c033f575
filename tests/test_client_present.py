"""How the client words things: clocks, time controls, the lobby row."""

from __future__ import annotations

import pytest

from client.present import TimeControlError, format_clock, lobby_row, parse_time_control
from engine.types import Opening, Rule
from protocol.values import PlayerRef, RoomSummary, Seats, TimeControl


@pytest.mark.parametrize(
    ("ms", "shown"),
    [
        (300_000, "5:00"),
        (61_001, "1:02"),
        (10_000, "0:10"),
        (9_400, "0:09.4"),
        (0, "0:00.0"),
        (-5, "0:00.0"),
        (3_600_000, "1:00:00"),
    ],
)
def test_format_clock(ms: int, shown: str) -> None:
    """Minutes and seconds, tenths in the last ten seconds, hours when needed."""
    assert format_clock(ms) == shown


def test_parse_time_control() -> None:
    """5+3 is five minutes plus three seconds; none is no clock; nonsense is refused."""
    assert parse_time_control("5+3") == TimeControl(base_ms=300_000, inc_ms=3_000)
    assert parse_time_control(" 0.5 ") == TimeControl(base_ms=30_000, inc_ms=0)
    assert parse_time_control("none") is None
    assert parse_time_control("") is None
    with pytest.raises(TimeControlError):
        parse_time_control("five")
    with pytest.raises(TimeControlError):
        parse_time_control("0+3")


def test_lobby_row() -> None:
    """A lobby row names rule and flags, size, time, both players and the state."""
    room = RoomSummary(
        id="r1",
        rule=Rule.RENJU,
        size=15,
        opening=Opening.SWAP2,
        time=TimeControl(base_ms=600_000, inc_ms=5_000),
        rated=True,
        private=False,
        players=Seats(black=PlayerRef(id="a", name="ann", rating=1600)),
        spectators=4,
        state="waiting",
    )
    assert lobby_row(room) == ("renju swap2 rated", "15", "10+5", "ann 1600", "-", "4", "waiting")
