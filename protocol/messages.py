"""The message catalogue: every map a client or the server may send.

Each message is a frozen msgspec Struct encoded as a MessagePack map whose
``type`` key names it. :data:`ClientMessage` and :data:`ServerMessage` are the
tagged unions the codec decodes into.

Unknown fields are ignored when decoding (forward compatibility: a newer peer
may add optional fields); unknown ``type`` values are refused. Every
client message may carry ``id``, which the server echoes as ``re`` in its
direct reply or error.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from engine.types import Foul, Opening, Rule
from protocol.events import RoomEvent
from protocol.limits import DEFAULT_SIZE, PROTOCOL_VERSION
from protocol.values import (
    GAMES_MAX,
    LEADERBOARD_MAX,
    MAX_LIST,
    MAX_MOVES,
    RECORD_TEXT_MAX,
    AiWait,
    BoardSize,
    ChatText,
    GameSummary,
    InviteCode,
    JoinRole,
    LeaderboardEntry,
    LevelName,
    Limits,
    Millis,
    MoveList,
    Name,
    OfferKind,
    PlayerId,
    RecordFormat,
    RequestId,
    RoomId,
    RoomSummary,
    RoomView,
    SeatRequest,
    Seq,
    Standing,
    SwapChoice,
    TimeControl,
    Token,
    TypedName,
    WirePoint,
    check_chat_text,
    check_name,
)

__all__ = [
    "Answer",
    "BotAccepted",
    "BotHeartbeat",
    "BotReady",
    "BotRelease",
    "BotSeat",
    "Chat",
    "Choose",
    "Claim",
    "ClientMessage",
    "CreateAiGame",
    "CreateRoom",
    "Error",
    "Event",
    "Games",
    "GetLeaderboard",
    "GetProfile",
    "GetRecord",
    "Hello",
    "Hint",
    "HintRequest",
    "HintResult",
    "Join",
    "Leaderboard",
    "Leave",
    "Left",
    "ListGames",
    "Lobby",
    "LobbyGone",
    "LobbyRoom",
    "LobbyWatch",
    "Move",
    "Offer",
    "Ping",
    "Pong",
    "Profile",
    "Queue",
    "Queued",
    "Record",
    "Resign",
    "Resume",
    "SeatAi",
    "ServerMessage",
    "Snapshot",
    "Suggestion",
    "Unqueue",
    "Unqueued",
    "Welcome",
]


class _ClientMessage(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of client -> server messages. ``id`` is echoed as ``re`` in the reply."""

    id: RequestId | None = None


class _ServerMessage(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of server -> client messages."""


# --- client -> server -------------------------------------------------------------------


class Hello(_ClientMessage, frozen=True, tag="hello"):
    """The first message of every connection; nothing else is accepted before it.
    With ``token`` it resumes the player that token was issued to."""

    name: TypedName
    token: Token | None = None
    version: Annotated[int, msgspec.Meta(ge=1)] = PROTOCOL_VERSION
    bot_key: Token | None = None

    def __post_init__(self) -> None:
        check_name(self.name)


class LobbyWatch(_ClientMessage, frozen=True, tag="lobby_watch"):
    """Start (``on``) or stop receiving lobby updates; starting sends a full ``lobby``."""

    on: bool = True


class CreateRoom(_ClientMessage, frozen=True, tag="create_room"):
    """Create a room and sit down in it (``seat``: black, white or any)."""

    rule: Rule = Rule.FREESTYLE
    size: BoardSize = DEFAULT_SIZE
    opening: Opening = Opening.FREE
    time: TimeControl | None = None
    private: bool = False
    rated: bool = False
    seat: SeatRequest = "any"


class Join(_ClientMessage, frozen=True, tag="join"):
    """Join a room by id (``room``) or a private room by invite ``code`` (exactly one),
    as a player (the free seat) or a spectator. The wire key of ``role`` is ``as``."""

    room: RoomId | None = None
    code: InviteCode | None = None
    role: JoinRole = msgspec.field(name="as", default="player")

    def __post_init__(self) -> None:
        if (self.room is None) == (self.code is None):
            raise ValueError("join needs exactly one of the fields `room` and `code`")


class Leave(_ClientMessage, frozen=True, tag="leave"):
    """Stop watching a room, or give up a seat in a room whose game is not running.
    Leaving a running game counts as a disconnect (``resign`` is explicit)."""

    room: RoomId


class Resume(_ClientMessage, frozen=True, tag="resume"):
    """Re-attach to a room after a reconnect: the events after seq ``after``, or a fresh
    snapshot when they are no longer kept."""

    room: RoomId
    after: Seq


class Queue(_ClientMessage, frozen=True, tag="queue"):
    """Quick match: wait for an opponent with the same rule and time control. With
    ``ai_after_ms``, an AI of ``ai_level`` takes the other seat if no person came by then."""

    rule: Rule = Rule.FREESTYLE
    time: TimeControl | None = None
    ai_after_ms: AiWait | None = None
    ai_level: LevelName | None = None


class Unqueue(_ClientMessage, frozen=True, tag="unqueue"):
    """Leave the quick-match queue."""


class Ping(_ClientMessage, frozen=True, tag="ping"):
    """Ask for a ``pong`` at once: how a client that cannot see the WebSocket's own pings
    (a browser's page) finds out that its connection still carries anything. Answered
    before ``hello`` too, and never refused for an AI seat's connection."""


class Move(_ClientMessage, frozen=True, tag="move"):
    """Place a stone (also the stones of a swap2 opening). ``move_no``, when given, is
    the number the stone takes (stones on the board + 1, as ``moved`` counts): a move
    chosen for another position (held in a dead connection, say, while the game went on
    from another) is refused with ``stale_move``, never played there."""

    room: RoomId
    point: WirePoint
    move_no: Annotated[int, msgspec.Meta(ge=1, le=MAX_MOVES)] | None = None


class Choose(_ClientMessage, frozen=True, tag="choose"):
    """A swap2 decision: take black, take white, or place two more stones."""

    room: RoomId
    choice: SwapChoice


class Resign(_ClientMessage, frozen=True, tag="resign"):
    """Resign the game in ``room``."""

    room: RoomId


class Offer(_ClientMessage, frozen=True, tag="offer"):
    """Offer a draw, request a takeback, or propose a rematch (one pending per room)."""

    room: RoomId
    kind: OfferKind


class Answer(_ClientMessage, frozen=True, tag="answer"):
    """Accept or decline the opponent's pending offer of ``kind``."""

    room: RoomId
    kind: OfferKind
    accept: bool


class Claim(_ClientMessage, frozen=True, tag="claim"):
    """Claim the win when the opponent has been gone past the grace period, or, in a game
    without a clock, has been to act past the move limit (``Limits.untimed_move_ms``)."""

    room: RoomId


class Chat(_ClientMessage, frozen=True, tag="chat"):
    """Say something in a room (players and spectators)."""

    room: RoomId
    text: ChatText

    def __post_init__(self) -> None:
        check_chat_text(self.text)


class SeatAi(_ClientMessage, frozen=True, tag="seat_ai"):
    """Ask for an AI of ``level`` (null: the server's default) in the empty seat of a
    room you sit in."""

    room: RoomId
    level: LevelName | None = None


class CreateAiGame(_ClientMessage, frozen=True, tag="create_ai_game"):
    """Create a room where two AIs play each other; you watch it as a spectator."""

    rule: Rule = Rule.FREESTYLE
    size: BoardSize = DEFAULT_SIZE
    opening: Opening = Opening.FREE
    time: TimeControl | None = None
    private: bool = False
    black: LevelName | None = None
    white: LevelName | None = None


class Hint(_ClientMessage, frozen=True, tag="hint"):
    """Ask an AI for the best move for the side to move (unrated games only)."""

    room: RoomId


class BotReady(_ClientMessage, frozen=True, tag="bot_ready"):
    """An AI worker (a connection identified with a bot key) offers ``seats`` games at
    once at any of ``levels``. Sent again, it replaces the previous offer."""

    seats: Annotated[int, msgspec.Meta(ge=0, le=10_000)]
    levels: Annotated[list[LevelName], msgspec.Meta(min_length=1, max_length=32)]


class BotHeartbeat(_ClientMessage, frozen=True, tag="bot_heartbeat"):
    """An AI worker is alive; sent every ``heartbeat_ms`` from ``bot_accepted``."""


class HintResult(_ClientMessage, frozen=True, tag="hint_result"):
    """An AI worker's answer to ``hint_request``; ``point`` null if it found none."""

    request: RequestId
    point: WirePoint | None = None
    reason: Annotated[str, msgspec.Meta(max_length=40)] = ""


class GetLeaderboard(_ClientMessage, frozen=True, tag="get_leaderboard"):
    """The best established players of one rule's rating list."""

    rule: Rule = Rule.FREESTYLE
    limit: Annotated[int, msgspec.Meta(ge=1, le=LEADERBOARD_MAX)] = 20


class GetProfile(_ClientMessage, frozen=True, tag="get_profile"):
    """A player's ratings and results under each rule (null ``player``: your own)."""

    player: PlayerId | None = None


class ListGames(_ClientMessage, frozen=True, tag="list_games"):
    """A player's finished games, newest first (null ``player``: your own). To page back,
    send the ``ended_ms`` of the last game you got as ``before_ms``."""

    player: PlayerId | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=GAMES_MAX)] = 20
    before_ms: Millis | None = None


class GetRecord(_ClientMessage, frozen=True, tag="get_record"):
    """A finished game's record, exported as JSON, PSQ or a move list."""

    game: RoomId
    format: RecordFormat = "json"


ClientMessage = (
    Hello
    | LobbyWatch
    | CreateRoom
    | Join
    | Leave
    | Resume
    | Queue
    | Unqueue
    | Move
    | Choose
    | Resign
    | Offer
    | Answer
    | Claim
    | Chat
    | SeatAi
    | CreateAiGame
    | Hint
    | BotReady
    | BotHeartbeat
    | HintResult
    | GetLeaderboard
    | GetProfile
    | ListGames
    | GetRecord
    | Ping
)
"""Any client -> server message, discriminated by ``type``."""


# --- server -> client -------------------------------------------------------------------


class Welcome(_ServerMessage, frozen=True, tag="welcome"):
    """The answer to ``hello``. ``token`` is the secret that resumes this player later;
    it is sent only here. ``rooms`` lists the rooms the player is seated in."""

    player: PlayerId
    name: Name
    token: Token
    resumed: bool
    rooms: Annotated[list[RoomId], msgspec.Meta(max_length=MAX_LIST)] = []
    protocol: int = PROTOCOL_VERSION
    server: Annotated[str, msgspec.Meta(max_length=100)] = ""
    limits: Limits = msgspec.field(default_factory=Limits)
    re: RequestId | None = None


class Error(_ServerMessage, frozen=True, tag="error"):
    """A request was refused, or a frame could not be read. ``code`` is stable (see
    :class:`protocol.errors.ErrorCode`; kept a plain string so a client tolerates codes
    added later); ``message`` is for people. ``foul`` comes with ``forbidden``."""

    code: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    message: Annotated[str, msgspec.Meta(max_length=1000)]
    re: RequestId | None = None
    room: RoomId | None = None
    foul: Foul | None = None


class Lobby(_ServerMessage, frozen=True, tag="lobby"):
    """The list of listed rooms (public rooms, waiting or playing). A long list comes in
    parts, one frame each: part 0 replaces what the client had, later parts add to it,
    and ``more`` says whether another part follows."""

    rooms: Annotated[list[RoomSummary], msgspec.Meta(max_length=MAX_LIST)]
    re: RequestId | None = None
    part: Annotated[int, msgspec.Meta(ge=0)] = 0
    more: bool = False


class LobbyRoom(_ServerMessage, frozen=True, tag="lobby_room"):
    """A listed room was added or changed."""

    room: RoomSummary


class LobbyGone(_ServerMessage, frozen=True, tag="lobby_gone"):
    """A listed room closed or left the list."""

    room: RoomId


class Queued(_ServerMessage, frozen=True, tag="queued"):
    """You are waiting for a quick match; ``since_ms`` is how long you have waited."""

    rule: Rule
    time: TimeControl | None
    since_ms: Millis | None = None
    ai_after_ms: AiWait | None = None
    re: RequestId | None = None


class Unqueued(_ServerMessage, frozen=True, tag="unqueued"):
    """You left the quick-match queue (on request, or because you were matched)."""

    re: RequestId | None = None


class Pong(_ServerMessage, frozen=True, tag="pong"):
    """The answer to ``ping``."""

    re: RequestId | None = None


class Left(_ServerMessage, frozen=True, tag="left"):
    """You no longer watch ``room``: the answer to ``leave``, or, ``closed``, sent unasked
    because the room is gone (its time was up)."""

    room: RoomId
    re: RequestId | None = None
    closed: bool = False


class Snapshot(_ServerMessage, frozen=True, tag="snapshot"):
    """A room's full state; live ``event`` messages for it follow from ``room.seq + 1``."""

    room: RoomView
    re: RequestId | None = None


class Event(_ServerMessage, frozen=True, tag="event"):
    """One entry of a room's event log, with its sequence number."""

    room: RoomId
    seq: Annotated[int, msgspec.Meta(ge=1)]
    event: RoomEvent


class Suggestion(_ServerMessage, frozen=True, tag="suggestion"):
    """The answer to ``hint``: the AI's move for the side to move in the position after
    ``move_no`` stones, and why (``win``, ``block``, ``threat``, ``positional``)."""

    room: RoomId
    point: WirePoint
    reason: Annotated[str, msgspec.Meta(max_length=40)]
    move_no: Annotated[int, msgspec.Meta(ge=0)]
    re: RequestId | None = None


class BotAccepted(_ServerMessage, frozen=True, tag="bot_accepted"):
    """The answer to ``bot_ready``: the worker's id, how often to send
    ``bot_heartbeat``, and how long its seats wait for it after it is gone."""

    worker: PlayerId
    heartbeat_ms: Millis
    lease_ms: Millis
    re: RequestId | None = None


class BotSeat(_ServerMessage, frozen=True, tag="bot_seat"):
    """To a worker: play as ``player`` in ``room`` at ``level``. Open a new connection,
    ``hello`` with ``name``, ``token`` and your bot key, then ``join`` ``room``."""

    player: PlayerId
    token: Token
    name: Name
    room: RoomId
    level: LevelName


class BotRelease(_ServerMessage, frozen=True, tag="bot_release"):
    """To a worker: stop playing as ``player``; its token no longer works."""

    player: PlayerId
    reason: Annotated[str, msgspec.Meta(max_length=200)] = ""


class HintRequest(_ServerMessage, frozen=True, tag="hint_request"):
    """To a worker: the best move for the side to move after ``moves``, within
    ``time_ms``; answer with ``hint_result`` carrying ``request``."""

    request: RequestId
    room: RoomId
    rule: Rule
    size: BoardSize
    moves: MoveList
    time_ms: Millis


class Leaderboard(_ServerMessage, frozen=True, tag="leaderboard"):
    """The answer to ``get_leaderboard``: established players of ``rule``, best first;
    then, apart, those whose rating has not settled yet (``unsettled``, as many at most,
    ranked within their own list), whom the leaderboard leaves out: a club's first
    evenings have nobody established."""

    rule: Rule
    entries: Annotated[list[LeaderboardEntry], msgspec.Meta(max_length=LEADERBOARD_MAX)]
    re: RequestId | None = None
    unsettled: Annotated[list[LeaderboardEntry], msgspec.Meta(max_length=LEADERBOARD_MAX)] = (
        msgspec.field(default_factory=list)
    )


class Profile(_ServerMessage, frozen=True, tag="profile"):
    """The answer to ``get_profile``: one standing per rule."""

    player: PlayerId
    name: Name
    ratings: Annotated[list[Standing], msgspec.Meta(max_length=8)]
    re: RequestId | None = None


class Games(_ServerMessage, frozen=True, tag="games"):
    """The answer to ``list_games``: the player's finished games, newest first."""

    player: PlayerId
    items: Annotated[list[GameSummary], msgspec.Meta(max_length=GAMES_MAX)]
    re: RequestId | None = None


class Record(_ServerMessage, frozen=True, tag="record"):
    """The answer to ``get_record``: the game exported in ``format``."""

    game: RoomId
    format: RecordFormat
    text: Annotated[str, msgspec.Meta(max_length=RECORD_TEXT_MAX)]
    re: RequestId | None = None


ServerMessage = (
    Welcome
    | Error
    | Lobby
    | LobbyRoom
    | LobbyGone
    | Queued
    | Unqueued
    | Pong
    | Left
    | Snapshot
    | Event
    | Suggestion
    | BotAccepted
    | BotSeat
    | BotRelease
    | HintRequest
    | Leaderboard
    | Profile
    | Games
    | Record
)
"""Any server -> client message, discriminated by ``type``."""
