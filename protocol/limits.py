"""Protocol version and the default limits that protocol.md documents.

The server may be configured with other limits; it reports the ones in force
in ``welcome.limits`` (see :class:`protocol.values.Limits`).
"""

from __future__ import annotations

from engine.notation import MAX_SIZE, MIN_SIZE

PROTOCOL_VERSION = 1

MAX_CLIENT_FRAME = 4096  # bytes, client -> server (websockets ``max_size`` on the server)
MAX_SERVER_FRAME = 1 << 20  # bytes, server -> client (lobby lists and snapshots can be large)

RATE_PER_S = 20  # messages per second per connection, sustained
RATE_BURST = 40  # token-bucket size
CHAT_PER_WINDOW = 5  # chat messages ...
CHAT_WINDOW_MS = 10_000  # ... per this window, per player
PING_INTERVAL_MS = 20_000  # server pings this often ...
PING_TIMEOUT_MS = 20_000  # ... and closes if no pong arrives within this
GRACE_MS = 60_000  # a disconnected player's seat is kept this long before a claim
UNTIMED_MOVE_MS = 600_000  # without a clock, a move may take this long before a claim
FIRST_STONE_MS = 30_000  # with a clock, the first stone's time before the game is aborted

NAME_MAX = 24
CHAT_MAX = 300
CHAT_HISTORY = 30  # the last chat lines a snapshot carries
ID_MAX = 40  # room ids, player ids
CODE_MAX = 32  # private-room invite codes
TOKEN_MAX = 128  # resume tokens and bot keys
DEFAULT_SIZE = 15

MAX_BASE_MS = 24 * 3_600_000
MAX_INC_MS = 3_600_000
MAX_SAFE_INT = 2**53 - 1
"""The largest integer in any message, so JavaScript clients can use plain numbers."""
MAX_REQUEST_ID = MAX_SAFE_INT

RATED_MIN_STONES = 2
"""A rated game that ends with fewer stones than this (before its second) does not count."""
ABORTED_BELOW_STONES = 4
"""A rated game both players left (a draw by ``abandon``) with fewer stones than this
(before each had made two moves) was aborted: it does not count either."""

__all__ = [
    "ABORTED_BELOW_STONES",
    "CHAT_HISTORY",
    "CHAT_MAX",
    "CHAT_PER_WINDOW",
    "CHAT_WINDOW_MS",
    "CODE_MAX",
    "DEFAULT_SIZE",
    "FIRST_STONE_MS",
    "GRACE_MS",
    "ID_MAX",
    "MAX_BASE_MS",
    "MAX_CLIENT_FRAME",
    "MAX_INC_MS",
    "MAX_REQUEST_ID",
    "MAX_SERVER_FRAME",
    "MAX_SIZE",
    "MIN_SIZE",
    "NAME_MAX",
    "PING_INTERVAL_MS",
    "PING_TIMEOUT_MS",
    "PROTOCOL_VERSION",
    "RATED_MIN_STONES",
    "RATE_BURST",
    "RATE_PER_S",
    "TOKEN_MAX",
    "UNTIMED_MOVE_MS",
]
