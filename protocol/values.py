"""Field types and the plain structures that messages carry.

Every constraint msgspec can check while decoding (lengths, ranges, patterns,
enumerations) is declared here, so untrusted bytes are validated in one pass
in C; the few checks msgspec cannot express live in ``__post_init__`` and
raise ``ValueError``, which msgspec reports as a validation error.

Points are ``h8`` strings on the wire (column letter from the left, row
number from the bottom). Whether a point is on a particular board is checked
by the server, which knows the board size; :mod:`protocol.convert` turns them
into :class:`engine.types.Point` through :mod:`engine.notation`.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from engine.types import Opening, Reason, Rule
from protocol.limits import (
    CHAT_HISTORY,
    CHAT_MAX,
    CHAT_PER_WINDOW,
    CHAT_WINDOW_MS,
    CODE_MAX,
    FIRST_STONE_MS,
    GRACE_MS,
    ID_MAX,
    MAX_BASE_MS,
    MAX_CLIENT_FRAME,
    MAX_INC_MS,
    MAX_REQUEST_ID,
    MAX_SAFE_INT,
    MAX_SIZE,
    MIN_SIZE,
    NAME_MAX,
    PING_INTERVAL_MS,
    PING_TIMEOUT_MS,
    RATE_BURST,
    RATE_PER_S,
    TOKEN_MAX,
    UNTIMED_MOVE_MS,
)
from protocol.text import chat_problem, name_problem

MAX_MOVES = MAX_SIZE * MAX_SIZE
MAX_LIST = 10_000  # rooms in a lobby list, entries in any other server list
LEADERBOARD_MAX = 100  # entries one leaderboard reply may hold
GAMES_MAX = 50  # finished games one games reply may hold
RECORD_TEXT_MAX = 256 * 1024  # characters of an exported record (a full 26x26 game is ~20k)

RequestId = Annotated[int, msgspec.Meta(ge=0, le=MAX_REQUEST_ID)]
"""A client-chosen request number, echoed as ``re`` in the reply."""
RoomId = Annotated[str, msgspec.Meta(min_length=1, max_length=ID_MAX)]
PlayerId = Annotated[str, msgspec.Meta(min_length=1, max_length=ID_MAX)]
InviteCode = Annotated[str, msgspec.Meta(min_length=1, max_length=CODE_MAX)]
Token = Annotated[str, msgspec.Meta(min_length=1, max_length=TOKEN_MAX)]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=NAME_MAX)]
TypedName = Annotated[str, msgspec.Meta(min_length=1, max_length=4 * NAME_MAX)]
"""A name as a client sends it: NAME_MAX characters once composed (NFC, as the server
keeps it; :func:`check_name`), so more code points with its accents decomposed."""
ChatText = Annotated[str, msgspec.Meta(min_length=1, max_length=CHAT_MAX)]
BoardSize = Annotated[int, msgspec.Meta(ge=MIN_SIZE, le=MAX_SIZE)]
# The patterns end in \Z, not $: msgspec matches them with Python's re, where $ also
# matches before a final newline ("h8\n" would pass); \Z is the end of the string only.
POINT_PATTERN = r"^[a-z][1-9][0-9]?\Z"
WirePoint = Annotated[str, msgspec.Meta(pattern=POINT_PATTERN)]
"""``h8``: a lower-case column letter and a row number 1..99 (on-board is checked later)."""
Millis = Annotated[int, msgspec.Meta(ge=0, le=MAX_SAFE_INT)]
LEVEL_PATTERN = r"^[a-z0-9][a-z0-9_.:+-]{0,39}\Z"
LevelName = Annotated[str, msgspec.Meta(pattern=LEVEL_PATTERN)]
"""An AI level or engine a worker offers: ``master``, ``beginner``, ``brain:embryo``...
(1 to 40 characters: lower-case letters, digits and ``_.:+-``)."""
AiWait = Annotated[int, msgspec.Meta(ge=0, le=3_600_000)]
"""How long a queued player waits for a person before an AI is seated (ms)."""
Count = Annotated[int, msgspec.Meta(ge=0, le=MAX_SAFE_INT)]
Seq = Annotated[int, msgspec.Meta(ge=0, le=MAX_SAFE_INT)]
MoveList = Annotated[list[WirePoint], msgspec.Meta(max_length=MAX_MOVES)]
ShortText = Annotated[str, msgspec.Meta(max_length=1000)]

ColorName = Literal["black", "white"]
SeatRequest = Literal["black", "white", "any", "random"]
"""``any``: the first free seat (Black in a new room); ``random``: drawn at random."""
JoinRole = Literal["player", "spectator"]
OfferKind = Literal["draw", "takeback", "rematch"]
SwapChoice = Literal["black", "white", "place2"]
RoomState = Literal["waiting", "opening", "playing", "over"]
Swap2Phase = Literal["place3", "choose", "place2"]
"""``place3``: the opener places black, white, black; ``choose``: the player to act picks
from ``choices``; ``place2``: the second player places white, black."""
RecordFormat = Literal["json", "psq", "moves"]
"""How a finished game is exported: the engine's JSON record, a Piskvork ``.psq`` file, or
the move list ``h8 i9 j10``."""

__all__ = [
    "GAMES_MAX",
    "LEADERBOARD_MAX",
    "LEVEL_PATTERN",
    "MAX_LIST",
    "MAX_MOVES",
    "POINT_PATTERN",
    "RECORD_TEXT_MAX",
    "AiWait",
    "BoardSize",
    "ChatLine",
    "ChatText",
    "Clocks",
    "ColorName",
    "Count",
    "GamePlayer",
    "GameResult",
    "GameSummary",
    "InviteCode",
    "JoinRole",
    "LeaderboardEntry",
    "LevelName",
    "Limits",
    "Millis",
    "MoveList",
    "Name",
    "OfferKind",
    "Opening",
    "Pending",
    "PlayerId",
    "PlayerRef",
    "RatingChange",
    "Reason",
    "RecordFormat",
    "RequestId",
    "RoomId",
    "RoomState",
    "RoomSummary",
    "RoomView",
    "Rule",
    "SeatRequest",
    "Seats",
    "Seq",
    "Standing",
    "Swap2Phase",
    "Swap2State",
    "SwapChoice",
    "TimeControl",
    "Token",
    "TypedName",
    "WirePoint",
    "check_chat_text",
    "check_name",
]


def check_name(name: str) -> None:
    """Display names: 1 to ``NAME_MAX`` characters people can see and read
    (:func:`protocol.text.name_problem` says what that excludes). Raises ValueError naming
    the field and the reason; clients check a name with it before sending it."""
    problem = name_problem(name)
    if problem is not None:
        raise ValueError(f"field `name`: {problem}")


def check_chat_text(text: str) -> None:
    """Chat lines: one line that is not blank (:func:`protocol.text.chat_problem`)."""
    problem = chat_problem(text)
    if problem is not None:
        raise ValueError(f"field `text`: {problem}")


def _decimal(ms: int, unit_ms: int) -> str:
    """``ms`` in ``unit_ms`` as a short exact decimal: ``1.5``, ``0.333`` (to the
    millisecond, as the web page writes it too)."""
    return f"{ms / unit_ms:.5f}".rstrip("0").rstrip(".")


class TimeControl(msgspec.Struct, frozen=True, kw_only=True):
    """Base time per player plus an increment added after each of their moves."""

    base_ms: Annotated[int, msgspec.Meta(ge=1, le=MAX_BASE_MS)]
    inc_ms: Annotated[int, msgspec.Meta(ge=0, le=MAX_INC_MS)] = 0

    def __str__(self) -> str:
        """``5+3`` style: minutes + seconds a move, as players say it. A base under a
        minute, or one that is no short decimal of minutes, is in seconds: ``30s+0``,
        ``100s+2`` (``0.5+0`` read oddly, and 10 s was ``0.166667+0``). The clients read
        back what this writes."""
        if self.base_ms < 60_000 or self.base_ms % 600:  # not a whole hundredth of a minute
            base = _decimal(self.base_ms, 1000) + "s"
        else:
            base = _decimal(self.base_ms, 60_000)
        return f"{base}+{_decimal(self.inc_ms, 1000)}"


class Clocks(msgspec.Struct, frozen=True, kw_only=True):
    """Remaining time of each side when the message was sent."""

    black_ms: Millis
    white_ms: Millis


class PlayerRef(msgspec.Struct, frozen=True, kw_only=True):
    """A seated player as others see them."""

    id: PlayerId
    name: Name
    rating: int | None = None
    provisional: bool = False
    """The rating is provisional (RD above 110): shown as ``1500?``."""
    bot: bool = False
    online: bool = True
    deadline_ms: Millis | None = None
    """While offline: milliseconds (from when this was sent) until the opponent may claim."""


class Seats(msgspec.Struct, frozen=True, kw_only=True):
    """Who sits where. During a swap2 opening the opener holds ``black`` until colours
    are chosen; the ``chose`` event says when they are final."""

    black: PlayerRef | None = None
    white: PlayerRef | None = None


class RoomSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One line of the lobby."""

    id: RoomId
    rule: Rule
    size: BoardSize
    opening: Opening
    time: TimeControl | None
    rated: bool
    private: bool
    players: Seats
    spectators: Count
    state: RoomState


class Swap2State(msgspec.Struct, frozen=True, kw_only=True):
    """Where a swap2 opening stands: the phase, who must act, and (in ``choose``)
    the choices open to them."""

    phase: Swap2Phase
    to_act: PlayerId
    choices: Annotated[list[SwapChoice], msgspec.Meta(max_length=3)] = []


class Pending(msgspec.Struct, frozen=True, kw_only=True):
    """An offer waiting for the other player's answer."""

    kind: OfferKind
    by: PlayerId


class ChatLine(msgspec.Struct, frozen=True, kw_only=True):
    """A chat line of a room's log, as a snapshot recalls it (``seq`` is its event's)."""

    seq: Seq
    player: PlayerId
    name: Name
    text: ChatText


class GameResult(msgspec.Struct, frozen=True, kw_only=True):
    """How a game ended: ``winner`` null is a draw; ``line`` the winning five (or more)
    when the game was won on the board."""

    winner: ColorName | None
    reason: Reason
    line: MoveList | None = None


class Standing(msgspec.Struct, frozen=True, kw_only=True):
    """A player's Glicko-2 rating under one rule, rounded to whole points, and the rated
    results behind it. ``provisional`` while RD is above 110 (shown as ``1500?``)."""

    rule: Rule
    rating: int
    rd: int
    provisional: bool
    games: Count
    wins: Count
    losses: Count
    draws: Count


class LeaderboardEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One line of a leaderboard."""

    rank: Annotated[int, msgspec.Meta(ge=1)]
    player: PlayerId
    name: Name
    rating: int
    rd: int
    games: Count


class GamePlayer(msgspec.Struct, frozen=True, kw_only=True):
    """Who played a colour in a finished game."""

    id: PlayerId
    name: Name


class RatingChange(msgspec.Struct, frozen=True, kw_only=True):
    """What a rated game did to one player's rating under its rule (rounded Glicko-2)."""

    player: PlayerId
    before: int
    after: int
    provisional: bool = False
    """``after`` is still provisional (RD above 110)."""


class GameSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One finished game in a player's history; ``get_record`` fetches the whole record."""

    id: RoomId
    """The game's id: the id of the room it was played in."""
    rule: Rule
    size: BoardSize
    opening: Opening
    rated: bool
    """Whether the game changed ratings."""
    black: GamePlayer
    white: GamePlayer
    result: GameResult
    moves: Count
    ended_ms: Millis
    """When the game ended (Unix epoch, ms); ``list_games`` pages back with ``before_ms``."""
    aborted: bool = False
    """Whether the game was aborted (``abandon`` with no winner before each side made two
    moves, or a timed game nobody began): not a draw, it counts for nothing."""
    rated_room: bool = False
    """Whether the game was set up rated (a rated room): with ``rated`` false, a rated
    game that did not count (it ended before its second stone, or was aborted)."""
    ratings: Annotated[list[RatingChange], msgspec.Meta(max_length=2)] | None = None
    """What the game did to both players' ratings (Black's first), as its ``game_over``
    said; null when it did not change ratings, and for games kept before 2026-11-29."""


class RoomView(msgspec.Struct, frozen=True, kw_only=True):
    """A room's full state, sent as a ``snapshot`` before live events."""

    id: RoomId
    code: InviteCode | None = None
    """The invite code of a private room, shown to its players only."""
    rule: Rule
    size: BoardSize
    opening: Opening
    time: TimeControl | None
    rated: bool
    private: bool
    players: Seats
    spectators: Count
    state: RoomState
    moves: MoveList
    """Every stone on the board in the order played (swap2 stones included)."""
    to_move: ColorName | None
    clocks: Clocks | None
    abort_in_ms: Annotated[int, msgspec.Meta(ge=0)] | None = None
    """A game with a clock whose first stone has not come: ms until it is aborted
    (``Limits.first_stone_ms`` after its start, or after a takeback to the empty board);
    null otherwise."""
    move_deadline_ms: Annotated[int, msgspec.Meta(ge=0)] | None = None
    """In a game without a clock: ms until the opponent of the player to act may claim
    the win because they have not acted (``Limits.untimed_move_ms`` after the turn was
    handed to them, each stone or choice starting it again); null in a timed game, when
    nobody is to act, or on a server without the limit."""
    swap2: Swap2State | None = None
    opening_stones: Count = 0
    """How many of ``moves`` a swap2 opening placed (3 or 5; 0 until its colour choice
    settles them, and in a free opening): stones no takeback removes."""
    pending: Pending | None = None
    result: GameResult | None = None
    rematch_room: RoomId | None = None
    """After the game: the room of the rematch its players began (as the ``rematch``
    event said), so one who opens the finished room later can follow them."""
    rematch_code: InviteCode | None = None
    """That rematch's invite code, if it is private (as the ``rematch`` event gave it)."""
    seq: Seq
    """Sequence number of the last event in this room; live events continue from seq + 1."""
    chat: Annotated[list[ChatLine], msgspec.Meta(max_length=CHAT_HISTORY)] = []
    """The room's last chat lines (its recent log's, oldest first): what was said before
    this snapshot, for a player back after a reload or a spectator who came late."""


class Limits(msgspec.Struct, frozen=True, kw_only=True):
    """Limits the server enforces on this connection, sent in ``welcome``."""

    max_frame: int = MAX_CLIENT_FRAME
    rate_per_s: int = RATE_PER_S
    rate_burst: int = RATE_BURST
    chat_per_window: int = CHAT_PER_WINDOW
    chat_window_ms: int = CHAT_WINDOW_MS
    chat_max: int = CHAT_MAX
    name_max: int = NAME_MAX
    ping_interval_ms: int = PING_INTERVAL_MS
    ping_timeout_ms: int = PING_TIMEOUT_MS
    grace_ms: int = GRACE_MS
    untimed_move_ms: int = UNTIMED_MOVE_MS
    first_stone_ms: int = FIRST_STONE_MS
    """In a game with a clock, how long Black (the opener, in swap2) has for the first
    stone after the start before the game is aborted (no clock runs until it)."""
    """In a game without a clock, how long the player to act may take over a stone or a
    choice before the opponent may claim the win (0: no limit)."""
