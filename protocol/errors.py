"""Stable error codes, WebSocket close codes, and the decoding exception.

The string values of :class:`ErrorCode` and the integers of :class:`CloseCode`
are part of the wire protocol: clients in any language switch on them, so a
value is never renamed or reused; new ones may be added (see protocol.md,
"Versioning").
"""

from __future__ import annotations

import enum


class ErrorCode(enum.StrEnum):
    """The ``code`` of an ``error`` frame."""

    BAD_FRAME = "bad_frame"  # a text frame, or a frame that is not a MessagePack map
    BAD_MESSAGE = "bad_message"  # not MessagePack, not a map, unknown type, wrong field type
    BAD_VALUE = "bad_value"  # right types, value out of range (size 40, a 500-char chat)
    TOO_LARGE = "too_large"  # frame above the size limit; the connection closes with 1009
    NOT_HELLO = "not_hello"  # anything but hello before hello
    UNSUPPORTED_VERSION = "unsupported_version"  # hello with a protocol version we do not speak
    BAD_TOKEN = "bad_token"  # resume token unknown or expired
    BAD_BOT_KEY = "bad_bot_key"
    RATE_LIMITED = "rate_limited"
    CHAT_RATE_LIMITED = "chat_rate_limited"
    NO_SUCH_ROOM = "no_such_room"
    ROOM_FULL = "room_full"
    NOT_IN_ROOM = "not_in_room"
    NOT_YOUR_SEAT = "not_your_seat"
    NOT_YOUR_TURN = "not_your_turn"
    STALE_MOVE = "stale_move"  # a move whose move_no is not the next stone's number
    OCCUPIED = "occupied"
    OFF_BOARD = "off_board"
    FORBIDDEN = "forbidden"  # renju foul for Black; the error's ``foul`` names it
    GAME_OVER = "game_over"
    WRONG_PHASE = "wrong_phase"
    NO_OFFER = "no_offer"
    OFFER_PENDING = "offer_pending"
    THROTTLED = "throttled"
    NOT_CLAIMABLE = "not_claimable"
    ALREADY_QUEUED = "already_queued"
    NOT_QUEUED = "not_queued"
    NO_AI_AVAILABLE = "no_ai_available"  # no AI worker offers that level or has a free seat
    AI_NOT_ALLOWED = "ai_not_allowed"  # an AI seat in a rated room
    HINT_NOT_ALLOWED = "hint_not_allowed"  # a hint in a rated game
    NOT_A_BOT = "not_a_bot"  # a worker message on a connection without a bot key
    NO_SUCH_GAME = "no_such_game"  # get_record of a game the archive does not hold
    NO_SUCH_PLAYER = "no_such_player"  # get_profile of a player who never finished a game
    TOO_MANY_ROOMS = "too_many_rooms"  # create_room / create_ai_game beyond the open-room cap
    TOO_MANY_GAMES = "too_many_games"  # join as a player beyond the unfinished games one may have
    TOO_MANY_AI = "too_many_ai"  # an AI asked for beyond the AIs one player may have playing
    UNAVAILABLE = "unavailable"  # the store is unreachable right now; retry in a moment
    INTERNAL = "internal"

    def __repr__(self) -> str:
        return f"ErrorCode.{self.name}"


class CloseCode(enum.IntEnum):
    """WebSocket close codes the server uses (RFC 6455 section 7.4.1)."""

    NORMAL = 1000
    GOING_AWAY = 1001  # server shutting down; reconnect later and resume
    PROTOCOL_ERROR = 1002  # WebSocket-level violation (sent by the WebSocket library)
    INVALID_DATA = 1007  # a text frame that is not UTF-8 (sent by the WebSocket library)
    POLICY = 1008  # flood beyond the rate limit, too many connections
    TOO_BIG = 1009  # frame above the size limit
    INTERNAL = 1011  # a bug on our side
    SERVICE_RESTART = 1012  # the store lost its data: connect again and start afresh

    def __repr__(self) -> str:
        return f"CloseCode.{self.name}"


class ProtocolError(ValueError):
    """A frame that is not a valid message, or a message the receiver refuses.

    ``code`` is the stable wire code, ``message`` human text naming the field
    at fault, ``field`` its dotted path when known (``"time.base_ms"``) and
    ``re`` the ``id`` of the offending client message when it could be read,
    so the ``error`` reply can echo it; ``room`` likewise its ``room`` (set by the codec
    on a message that failed validation).
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        field: str | None = None,
        re: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.re = re
        self.room: str | None = None

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.code!r}, {self.message!r}, "
            f"field={self.field!r}, re={self.re!r})"
        )


class UnknownMessageType(ProtocolError):
    """A well-formed map whose ``type`` this side does not know.

    A client should ignore such a frame from a newer server (forward
    compatibility); a server answers it with ``bad_message``.
    """
