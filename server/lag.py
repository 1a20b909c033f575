"""Lag compensation: a stone's (or a swap2 choice's) time is charged without the
network's round trip, up to a quota, as lichess does.

A player on a slow link loses the round trip at every move: the opponent's stone
reaches them late, and their answer reaches the server late, and the server's clock ran
through both. The server measures each connection's round trip with WebSocket pings
(the connection's ``latency``; at once after connecting, then with every keepalive) and
an action carries it (``lag_ms``). When the stone is charged, up to that much of the
time it took is given back, but never more than the seat's quota: the quota starts at
three times a per-move gain, earns the gain with each stone and spends what was given
back, and holds at most seven gains. So a link's steady lag is forgiven move after move,
while a client that slows its pongs down to look laggy gains no more than the gain a
move. The gain is 1 s in games of 3 minutes or more (counting 40 moves' increments),
0.2 s in games of 15 s or less, in proportion between.

The same grace holds off the flag: the clock of a player to move whose stone may still
be on its way is not called out before the compensation their stone would get
(:func:`grace_ms`), so a stone played at 0.1 s left on a 300 ms link counts.
"""

from __future__ import annotations

from typing import Protocol

from protocol.values import TimeControl


class Seat(Protocol):
    """What lag compensation reads and writes of a seat (:class:`server.room.Seat`)."""

    lag_ms: int
    lag_quota_ms: int | None


MAX_LAG_MS = 2_000
"""A measured round trip above this is taken as this (a link stalled, not slow)."""
MOVES_COUNTED = 40
"""How many moves' increments count towards a game's length, as lichess counts them."""
SHORT_GAME_S, LONG_GAME_S = 15, 180
SHORT_GAIN_MS, LONG_GAIN_MS = 200, 1_000
QUOTA_START, QUOTA_MAX = 3, 7
"""The quota at the first stone, and at most, in gains."""


def gain_ms(time: TimeControl) -> int:
    """What each stone adds to the quota under ``time``."""
    total_s = (time.base_ms + MOVES_COUNTED * time.inc_ms) / 1000
    if total_s >= LONG_GAME_S:
        return LONG_GAIN_MS
    if total_s <= SHORT_GAME_S:
        return SHORT_GAIN_MS
    share = (total_s - SHORT_GAME_S) / (LONG_GAME_S - SHORT_GAME_S)
    return round(SHORT_GAIN_MS + share * (LONG_GAIN_MS - SHORT_GAIN_MS))


def quota_ms(time: TimeControl, seat: Seat) -> int:
    """The compensation ``seat`` may still be given under ``time``."""
    if seat.lag_quota_ms is None:
        return QUOTA_START * gain_ms(time)
    return seat.lag_quota_ms


def grace_ms(time: TimeControl | None, seat: Seat | None) -> int:
    """How far past zero ``seat``'s running clock may go before the flag falls: what a
    stone of theirs arriving now would be given back (0 in an untimed game)."""
    if time is None or seat is None:
        return 0
    return min(seat.lag_ms, quota_ms(time, seat))


def note_lag(seat: Seat, lag_ms: int) -> None:
    """``seat``'s latest measured round trip (from the action they just sent)."""
    seat.lag_ms = max(0, min(lag_ms, MAX_LAG_MS))


def compensate(time: TimeControl, seat: Seat, used_ms: int) -> int:
    """Of the ``used_ms`` ``seat`` took for a stone, what is given back (and spent from
    their quota, which the stone's gain then tops up)."""
    given = max(0, min(used_ms, grace_ms(time, seat)))
    gain = gain_ms(time)
    seat.lag_quota_ms = min(quota_ms(time, seat) - given + gain, QUOTA_MAX * gain)
    return given
