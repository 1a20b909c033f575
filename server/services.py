"""What the server offers every connection and message handler, put together once by
:class:`~server.app.GomokuServer`: the handlers reach the rest of the server through
this and through their :class:`~server.handlers.base.Session`, never through the
server object."""

from __future__ import annotations

import dataclasses

from server.bots import AiSeating, HintDesk, JobTaker, WorkerRegistry
from server.config import ServerConfig
from server.handoff import Handoff
from server.housekeeping import Housekeeping
from server.hub import Hub
from server.matchmaking import Matchmaker
from server.metrics import Metrics
from server.players import LocalPlayers
from server.ratelimit import KeyedWindows
from server.service import RoomService
from server.store import Store


@dataclasses.dataclass(frozen=True, kw_only=True)
class Services:
    """The server's parts a connection may use."""

    version: str
    config: ServerConfig
    metrics: Metrics
    store: Store
    rooms: RoomService
    """Every change to a room goes through it."""
    hub: Hub
    """Room and lobby feeds to this instance's connections."""
    players: LocalPlayers
    """The players connected here."""
    housekeeping: Housekeeping
    """This instance in the store (connection ids, attachments to drop later)."""
    matchmaker: Matchmaker
    workers: WorkerRegistry
    taker: JobTaker
    ai: AiSeating
    hints: HintDesk
    bot_keys: set[str]
    """Accepted bot keys: the configured ones and the local workers' own."""
    code_failures: KeyedWindows
    """Joins by a wrong invite code per client address (guessing)."""
    key_failures: KeyedWindows
    """Hellos with a wrong bot key per client address (guessing), as codes."""
    new_players: KeyedWindows
    """Hellos without a resume token per client address (``new_players_per_ip``)."""
    new_rooms: KeyedWindows
    """Rooms opened per client address (``rooms_per_ip``)."""
    chat_lines: KeyedWindows
    """Chat lines per client address (``chat_per_ip``)."""
    handoff: Handoff | None = None
    """Moves connections to the sibling process holding their game (a process of
    ``gomoku-server --processes``; None otherwise)."""
