"""Who the player is on the server and whether the link is up: the connection and
identity part of the client's state.

The server's ``welcome`` sets the identity (player id, name, resume token, the
server's version, its move limit in a game without a clock, the time a game with one
has for its first stone) and marks the link connected; the connection reports each
change of the link with :class:`ConnectionChanged`, and a server that forgot the
player with :class:`IdentityLost`.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from protocol import messages as msg

ConnectionStatus = Literal["connecting", "connected", "reconnecting", "offline"]


# --- local actions --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class ConnectionChanged:
    """The connection went up or down. ``attempt`` counts reconnect tries (1 = the
    first retry), ``next_try_at`` is the monotonic time of the next one; ``problem``
    (a :data:`client.failures.Problem`) and ``detail`` say why the last attempt
    failed; ``was_online`` that it had been welcomed (a lost link, not a failed
    connect)."""

    status: ConnectionStatus
    attempt: int = 0
    next_try_at: float | None = None
    detail: str = ""
    problem: str = ""
    was_online: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class IdentityLost:
    """The server no longer knows this player (``bad_token``: it restarted without
    keeping its players): the client carries on as a new player, without the old
    rooms."""


# --- the state ---------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Link:
    """The connection as the player sees it: its status, and while it is down, why
    the last attempt failed and when the next one is."""

    status: ConnectionStatus = "connecting"
    attempt: int = 0
    next_try_at: float | None = None
    detail: str = ""
    problem: str = ""
    was_online: bool = False

    @property
    def online(self) -> bool:
        return self.status == "connected"

    def describe(self, now: float) -> str:
        """``online``, ``reconnecting (attempt 3, next try in 4s)``, ..."""
        if self.status == "connected":
            return "online"
        if self.status == "reconnecting":
            text = f"reconnecting (attempt {self.attempt}"
            if self.next_try_at is not None:
                wait = max(0.0, self.next_try_at - now)
                text += f", next try in {wait:.0f}s" if wait >= 0.5 else ", trying now"
            return text + ")"
        return self.status


@dataclasses.dataclass(frozen=True, slots=True)
class Session:
    """This player on this server (``me`` is None until welcomed) and the link.
    ``move_limit_ms`` is the server's move limit in a game without a clock (``welcome``'s
    ``untimed_move_ms``; 0: none): a player to act that long may be claimed against.
    ``first_stone_ms`` is how long a game with a clock waits for its first stone before
    the server aborts it (``welcome``'s ``first_stone_ms``; 0: not known). ``grace_ms``
    is how long a player may be away before the opponent may claim the win (0: not
    known)."""

    me: str | None = None
    name: str = ""
    token: str | None = None
    server: str = ""
    link: Link = Link()
    move_limit_ms: int = 0
    first_stone_ms: int = 0
    grace_ms: int = 0


def reduce_session(session: Session, action: object) -> Session:
    """``session`` after ``action`` (any action; those of other concerns leave it)."""
    match action:
        case msg.Welcome(player=player, name=name, token=token, server=server, limits=limits):
            return Session(
                player,
                name,
                token,
                server,
                Link("connected"),
                limits.untimed_move_ms,
                limits.first_stone_ms,
                limits.grace_ms,
            )
        case ConnectionChanged(status, attempt, at, detail, problem, was_online):
            # "Connection lost" for as long as the client tries to get back a link it had.
            old = session.link
            had_link = old.online or (old.status == "reconnecting" and old.was_online)
            link = Link(status, attempt, at, detail, problem, was_online or had_link)
            return dataclasses.replace(session, link=link)
    return session
