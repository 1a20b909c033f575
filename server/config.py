"""Server settings: one keyword-only dataclass, grouped by concern.

Defaults are the documented protocol limits (:mod:`protocol.limits`); tests
shrink the timings to run quickly.
"""

from __future__ import annotations

import dataclasses

from protocol import limits
from server.game import GameRules


@dataclasses.dataclass(frozen=True, kw_only=True)
class ConnectionLimits:
    """What one connection may send, and how idle peers are detected."""

    max_frame: int = limits.MAX_CLIENT_FRAME
    rate_per_s: float = limits.RATE_PER_S
    rate_burst: int = limits.RATE_BURST
    flood_strikes: int = limits.RATE_BURST
    """Messages refused with ``rate_limited`` in a row before the connection is closed (1008)."""
    chat_per_window: int = limits.CHAT_PER_WINDOW
    chat_window_ms: int = limits.CHAT_WINDOW_MS
    ping_interval_s: float | None = limits.PING_INTERVAL_MS / 1000
    ping_timeout_s: float | None = limits.PING_TIMEOUT_MS / 1000
    send_buffer: int = 256 * 1024
    """Bytes of frames waiting for a connection that does not read them fast enough;
    one more frame beyond this drops the connection (slow reader)."""
    send_timeout_s: float = 30.0
    """A connection whose frames make no progress for this long is dropped (a reader
    that stopped reading; such a peer also stalls keepalive pings)."""
    close_timeout_s: float = 2.0
    """How long a closing handshake may take before the TCP connection is aborted."""
    max_connections: int = 10_000
    max_conns_per_ip: int = 64
    """Open connections from one client address (0: no limit); beyond it the
    handshake is refused with HTTP 429."""
    max_rooms_per_player: int = 5
    """Open rooms one player may have asked for at once (``create_room``,
    ``create_ai_game``); one more is refused with ``too_many_rooms``. Counted in the
    store, so across every instance sharing it."""
    max_games_per_player: int = 10
    """Unfinished games one player may sit in at once; joining one more as a player is
    refused with ``too_many_games``: one connection took the free seat of all 21 rooms
    waiting in the lobby, and every one of those games started with an opponent who
    never moved. 0: no limit."""
    max_ai_per_player: int = 2
    """AI seats one player may have playing at once (opponents in their games, both
    seats of an AI-vs-AI game they started); one more is refused with ``too_many_ai``:
    the AI seats are few, and one person took every free one. 0: no limit."""
    code_failures: int = 5
    """Joins by an invite code that leads nowhere one connection may make within
    ``code_failure_window_ms``; beyond, its joins by code (right or wrong) are refused
    with ``rate_limited`` until the oldest failure leaves the window. Codes have about
    2**44.6 values: this keeps guessing hopeless."""
    code_failures_per_ip: int = 20
    """The same, for all connections from one client address to this server instance
    (so reconnecting does not reset it)."""
    code_failure_window_ms: int = 60_000
    new_players_per_ip: int = 60
    """New players (a ``hello`` without a resume token) one client address may become
    within ``per_ip_window_ms``; one more is refused with ``rate_limited``: one address
    made hundreds of players a second, each a session kept 30 days. Generous enough for
    a class behind one school address. 0: no limit."""
    rooms_per_ip: int = 60
    """Rooms (``create_room``, ``create_ai_game``) one client address may open within
    ``per_ip_window_ms``; one more is refused with ``rate_limited``: one address filled
    the lobby with 400 rooms in 0.3 s, as new players. 0: no limit."""
    per_ip_window_ms: int = 60_000
    chat_per_ip: int = 0
    """Chat lines all the players of one client address may post within the chat window
    (``chat_window_ms``, as a player's own limit); one more is refused with
    ``chat_rate_limited``. For a server whose rooms are flooded: new players are free,
    and ten of one address put fifty lines into a room in two seconds. 0 (the default):
    no limit, as a class behind one school address chats at the end of every game."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class Matchmaking:
    """Quick-match pairing: the allowed rating gap widens while players wait."""

    interval_s: float = 1.0
    base_gap: float = 100.0
    gap_per_second: float = 20.0
    default_rating: int = 1500
    ai_retry_s: float = 5.0
    """How often a player still waiting after ``ai_after_ms`` is offered an AI again when
    none was free: an AI seat comes free when a game with it ends."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class Timers:
    """Background work: clock flags and housekeeping."""

    tick_interval_s: float = 0.1
    """How often due clock deadlines are claimed (the flag latency)."""
    deadline_lease_ms: int = 5_000
    purge_interval_s: float = 30.0
    """How often expired rooms are dropped from the memory store."""
    finished_room_ttl_ms: int = 3_600_000
    """How long a finished room stays loadable (results, rematch, resume); then every
    key of it is gone but its archived record."""
    waiting_room_ttl_ms: int = 1_800_000
    """How long a room waits for its players: if its game has not begun by then, its
    seats are given up and it is gone."""
    session_ttl_ms: int = 30 * 86_400_000
    """How long a resume token stays valid without being used (each hello with it starts
    this again); the player's ratings and games stay."""
    instance_lease_ms: int = 10_000
    """A server instance renews a lease in the store every fifth of this; when one stops
    renewing it (killed, or cut off from the store), another instance detaches its
    connections after this long, so they keep no player online."""
    archive_retry_ms: int = 10_000
    """A finished game whose record or rating update did not get written (the store
    was down, the instance died) is tried again by any instance after this long."""
    outage_after_ms: int = 2_000
    """A silence of every instance's heartbeat longer than this is an outage: running
    clocks get that time back (server.outage)."""
    outage_grace_max_ms: int = 600_000
    """The most time one outage gives back to a clock (or a claim countdown)."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class Bots:
    """AI workers: liveness, seat hand-over, hints, and the embedded local worker."""

    heartbeat_ms: int = 5_000
    """How often a worker says it is alive; silent for three of these, it is closed."""
    lease_ms: int = 3_000
    """How long a gone worker's seats wait for it before they go back to the AI pool for
    another worker: long enough for a reconnect after a network drop, short enough that
    the games of a worker that died stand still for only a few seconds."""
    default_level: str = "intermediate"
    """The level a player gets when asking for an AI without naming one."""
    hint_ms: int = 500
    """How long a worker may think about a hint."""
    hint_timeout_ms: int = 5_000
    """How long the server waits for a hint before telling the player none came."""
    job_idle_ms: int = 3_000
    """An AI pool job taken by an instance that did not finish it within this long (the
    instance died) is taken over by another (a hint's: ``hint_ms`` longer)."""
    embedded: int = 0
    """Local worker processes the server starts itself (``gomoku-server --bots``; the
    command line defaults to 1, tests to 0)."""
    embedded_seats: int = 4
    """Games each embedded worker plays at once."""
    embedded_key: str | None = None
    """The bot key the embedded workers log in with; None: a random one made at start.
    The processes of ``gomoku-server --processes`` share one (a worker's connection may
    land on any of them)."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class ServerConfig:
    """Everything ``gomoku-server`` can be told."""

    host: str = "0.0.0.0"
    port: int = 8765
    limits: ConnectionLimits = dataclasses.field(default_factory=ConnectionLimits)
    game: GameRules = dataclasses.field(default_factory=GameRules)
    matchmaking: Matchmaking = dataclasses.field(default_factory=Matchmaking)
    timers: Timers = dataclasses.field(default_factory=Timers)
    bot_keys: frozenset[str] = frozenset()
    """Keys that mark a connection as a bot (the AI worker); empty: any bot_key is refused."""
    trusted_proxies: frozenset[str] = frozenset()
    """Peer addresses of reverse proxies whose ``X-Forwarded-For`` names the client
    (its last entry); the per-address connection limit then counts that client."""
    allowed_origins: frozenset[str] = frozenset()
    """Web origins (``https://play.example.org``) whose pages may open connections;
    empty: any. Clients that send no ``Origin`` (everything but browsers) are always let in."""
    bots: Bots = dataclasses.field(default_factory=Bots)
    lobby_part_rooms: int = 500
    """Rooms per ``lobby`` frame: a long list goes out in parts (500 summaries are about
    120 KB, well inside the client's 1 MiB frame limit)."""
    server_name: str = "gomoku-arena"
    drain_s: float = 3.0
    """Stopping with players connected (SIGTERM, SIGINT), ``gomoku-server`` first serves
    this long with ``/healthz`` answering 503, so a load balancer's health checks take it
    out of rotation before its clients are told to go (1001) and reconnect elsewhere."""
    reuse_port: bool = False
    """Listen with SO_REUSEPORT, so the processes of ``gomoku-server --processes`` share
    one port (the kernel spreads connections over them)."""
    handoff_key: str | None = None
    """The key the processes of ``gomoku-server --processes`` share to hand each other
    connections (:mod:`server.handoff`); None: no handoffs."""
