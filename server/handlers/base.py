"""What a message handler gets: the :class:`Session` (the client's connection as a
handler sees it: who it is, what it follows, how to answer) and through it the server's
:class:`~server.services.Services`. A handler refuses a request with :class:`Refused`
(or a :class:`~server.game.GameError` from the room core); the connection turns either
into an ``error`` frame with the request's id."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Coroutine, Sequence, Set
from typing import Any, Protocol

import msgspec

from engine import Rule
from protocol import messages as m
from protocol.errors import ErrorCode
from server import game
from server.notices import Notice
from server.ratelimit import KeyedWindows, SlidingWindow
from server.room import Seat
from server.services import Services
from server.sessions import SessionRecord


class Refused(Exception):
    """A request refused before it reached a room (no such room, not queued...)."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def refuse_ai_seat(session: Session, doing: str) -> None:
    """Refuse ``doing`` to an AI seat's connection (``ai_not_allowed``): a seat plays the
    game it was given out for, with the ordinary messages, and nothing else. It must not
    open rooms, queue, or sit down in a person's room that asked for no AI (a game that
    then looked rated, and whose seat the pool would later hand over)."""
    identity = session.identity
    if identity is not None and identity.bot and identity.worker is not None:
        raise Refused(
            ErrorCode.AI_NOT_ALLOWED, f"an AI seat plays only the game it was given: not {doing}"
        )


def seconds(ms: int) -> int:
    """A wait in whole seconds, rounded up, as a refusal says it."""
    return -(-ms // 1000)


def per_address(session: Session, windows: KeyedWindows, what: str, now_ms: int) -> None:
    """Count one more of ``what`` (a new player, a room) from the session's address, or
    refuse it with ``rate_limited``, saying how long to wait, when the address has had
    its fill in the window (windows of limit 0 have no limit)."""
    wait = windows.wait_ms(session.limit_key, now_ms)
    if wait:
        raise Refused(
            ErrorCode.RATE_LIMITED,
            f"too many {what} from your address; try again in {seconds(wait)} s",
        )
    windows.add(session.limit_key, now_ms)


class Session(Protocol):
    """A client's connection as the message handlers see it."""

    # -- who it is ------------------------------------------------------------------

    services: Services
    identity: SessionRecord | None
    """The player (or worker, or AI seat) it said hello as; None before ``hello``."""
    token_hash: str | None
    """The hash of the resume token it said hello with."""
    worker: bool
    """True once it is a registered AI worker (``bot_ready``)."""
    conn_id: str
    """This connection, unique over every instance."""

    @property
    def address(self) -> str:
        """The client's address (a trusted proxy's client), as logged."""

    @property
    def limit_key(self) -> str:
        """The client's address as the per-address limits count it
        (:func:`server.addresses.limit_key`: an IPv6 client by its /64)."""

    @property
    def player(self) -> str:
        """The player's id (after ``hello``)."""

    def lag_ms(self) -> int:
        """The link's round trip as the server's last WebSocket ping found it (0 before
        any pong came back): what lag compensation gives back (:mod:`server.lag`)."""

    def measure_lag(self) -> None:
        """Ping the client now (its pong sets :meth:`lag_ms`): the keepalive's first
        ping comes only after its interval, and a blitz game may be over by then."""

    def seat(self) -> Seat:
        """The player as a seat in a room."""

    async def rating(self, rule: Rule) -> float:
        """The player's Glicko-2 rating under ``rule`` (1500 before any rated game)."""

    async def rated_seat(self, rule: Rule) -> Seat:
        """:meth:`seat` showing the player's rating under ``rule`` (an AI's stays None)."""

    # -- what it asked for --------------------------------------------------------------

    queue: str | None
    """The matchmaking queue it waits in, if any."""
    queue_ticket: int
    """Counts ``queue`` requests, so a stale AI-fallback timer does nothing."""
    hint_pending: bool
    """A hint it asked for is on its way (one at a time)."""

    @property
    def code_failures(self) -> SlidingWindow:
        """Its joins by a wrong invite code (guessing)."""

    # -- answering ------------------------------------------------------------------------

    def send(self, message: msgspec.Struct) -> None: ...

    def send_together(self, messages: Sequence[msgspec.Struct]) -> None:
        """Messages that make one reply (a long lobby in parts), sent as one frame would be."""

    def error(
        self,
        code: ErrorCode,
        message: str,
        *,
        re: int | None = None,
        room: str | None = None,
        foul: str | None = None,
    ) -> None: ...

    def close(self, code: int, reason: str) -> None: ...

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` beside the connection's read loop (ended with the connection)."""

    def answer_later(self, message: m.ClientMessage, work: Coroutine[Any, Any, None]) -> None:
        """Finish answering ``message`` beside the read loop (:meth:`spawn`), its refusals
        turned into error frames as the handler's would be: for a request that waits on
        something slow, so that the connection's next messages do not wait behind it."""

    async def notice(self, notice: Notice) -> None:
        """A note for this player from any server instance."""

    # -- rooms -----------------------------------------------------------------------------

    @property
    def rooms(self) -> Collection[str]:
        """The rooms whose events it follows."""

    @property
    def attached(self) -> Set[str]:
        """The rooms it is attached to (its player is present there)."""

    async def attach(self, room_id: str) -> bool:
        """Attach to a room (its player is present there from now on); True if no
        connection of the player's was attached there before. Raises NoSuchRoom."""

    async def attach_seated(self, room_id: str, *, follow: bool = True) -> None:
        """Attach to a room its player sits in, and (``follow``) follow it, snapshot
        first, if this connection did not; nothing for a room they do not sit in."""

    async def detach(self, room_id: str) -> None:
        """Detach from a room (``leave``)."""

    async def sync_room(self, room_id: str, after: int | None, re: int | None = None) -> None:
        """Follow a room: the events after ``after`` (or a snapshot), then live events."""

    def unwatch(self, room_id: str) -> None:
        """Stop following a room's events."""

    def follow_lobby(self, on: bool) -> None:
        """Start or stop getting the lobby's changes."""

    async def act(
        self, room_id: str, action: game.GameAction, *, follow: bool = True
    ) -> game.Outcome:
        """Apply the player's action to a room (attaching there first, and following it
        unless ``follow`` is False: the caller sends the snapshot itself); its outcome.
        Raises the action's refusal (GameError)."""


Handler = Callable[[Session, Any], Awaitable[None]]
"""A message handler: the session and the decoded client message."""
