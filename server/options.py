"""``gomoku-server``'s command line: every option, the environment variables that may set
them, and the checks that refuse a bad one before anything starts (one line naming the
option or variable, the usage line, exit status 2: :mod:`protocol.options`)."""

from __future__ import annotations

import argparse
import errno
import ipaddress
import socket
import sys
import urllib.parse
from collections.abc import Sequence
from pathlib import Path

from protocol.options import (
    EnvOptions,
    HelpFormatter,
    count,
    key,
    number,
    port,
    seconds,
    usable_cpus,
)
from server import __version__
from server.config import Bots, ConnectionLimits, ServerConfig, Timers
from server.game import GameRules
from server.store import datafile

USAGE = "gomoku-server [options]   (gomoku-server --help lists them)"
DAY_MS = 86_400_000


def listen_host(text: str) -> str:
    """An address this machine can listen on: an IP address, or a name that resolves."""
    try:
        socket.getaddrinfo(text or None, None, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not an address here ({exc})") from None
    return text


def redacted(url: str) -> str:
    """The URL without its password, for logs and messages."""
    try:
        parts = urllib.parse.urlsplit(url)
        password = parts.password
    except ValueError:  # unparseable: show nothing after the scheme
        return url.split("://", 1)[0] + "://..." if "://" in url else "..."
    if password is None:
        return url
    netloc = parts.netloc.replace(f":{password}@", ":***@", 1)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def cannot_use_redis(url: str, why: object) -> str:
    """The one line that says the server cannot start on the Redis at ``url``."""
    return f"gomoku-server: cannot use redis at {redacted(url)}: {why}"


_LISTEN_ERRORS = {
    errno.EADDRINUSE: "the port is in use (another program, or another gomoku-server, "
    "listens there; choose another with --port)",
    errno.EACCES: "permission denied (a port below 1024 needs root; choose another with --port)",
    errno.EADDRNOTAVAIL: "this machine has no such address (--host)",
}


def cannot_listen(host: str, port: int, exc: OSError) -> str:
    """The one line that says the server cannot listen where it was asked to: in words
    for the usual causes, rather than asyncio's "error while attempting to bind on
    address ... address already in use"."""
    why = _LISTEN_ERRORS.get(exc.errno or 0) or exc.strerror or str(exc)
    shown = f"[{host}]" if ":" in host else host
    return f"gomoku-server: cannot listen on {shown}:{port}: {why}"


def redis_url(text: str) -> str:
    """A Redis URL: ``redis://[:password@]host[:port][/db]``, ``rediss://`` (TLS) the
    same, or ``unix:///path/to/socket[?db=N]``. Messages never show the password."""
    shown = repr(redacted(text))
    try:
        parts = urllib.parse.urlsplit(text)
        parts.port  # noqa: B018  (raises for a port out of range)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{shown} is not a valid URL: {exc}") from None
    if parts.scheme == "unix":
        if not parts.path:
            raise argparse.ArgumentTypeError(f"{shown} names no socket path")
        return _redis_client_accepts(text)
    if parts.scheme not in ("redis", "rediss"):
        raise argparse.ArgumentTypeError(f"{shown} is not a redis://, rediss:// or unix:// URL")
    if not parts.hostname:
        raise argparse.ArgumentTypeError(f"{shown} names no host")
    db = parts.path.lstrip("/")
    if db and not db.isdigit():
        raise argparse.ArgumentTypeError(f"{shown}: the database {db!r} is not a number")
    return _redis_client_accepts(text)


def _redis_client_accepts(text: str) -> str:
    """``text`` if the Redis client can use it (its query options, say); a missing client
    (the ``redis`` extra) is a bad setting too."""
    try:
        from redis.connection import parse_url
    except ImportError:
        raise argparse.ArgumentTypeError(
            "the Redis client is not installed (pip install 'gomoku-arena[redis]')"
        ) from None
    try:
        parse_url(text)  # type: ignore[no-untyped-call]
    except (ValueError, TypeError) as exc:
        raise argparse.ArgumentTypeError(f"{redacted(text)!r}: {exc}") from None
    return text


def proxy_address(text: str) -> str:
    """A reverse proxy's IP address, written as the server sees peers (``::1``, not
    ``0:0::1``)."""
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an IP address") from None


def web_origin(text: str) -> str:
    """A web origin as browsers send it: ``https://host[:port]``, no path; or ``*``
    (any origin)."""
    if text == "*":
        return text
    try:
        parts = urllib.parse.urlsplit(text)
        parts.port  # noqa: B018
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a valid origin: {exc}") from None
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path
        or parts.query
        or parts.fragment
        or parts.username is not None
    ):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a web origin (http:// or https://, a host, a port perhaps, "
            "nothing after)"
        )
    if "*" in parts.hostname:
        raise argparse.ArgumentTypeError(
            f"{text!r}: an origin names one site (no wildcards): list each, or * alone for any"
        )
    return text


def data_path(text: str) -> Path:
    """Where a data file can be: not a directory, in a directory that exists."""
    if not text.strip():
        raise argparse.ArgumentTypeError("empty: name the data file (or use --ephemeral)")
    path = Path(text).expanduser()
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a directory; name a file in it")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"there is no directory {str(path.parent)!r}")
    return path


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line and environment, checked (the parser exits with status 2 on a
    bad value)."""
    parser = argparse.ArgumentParser(
        prog="gomoku-server",
        usage=USAGE,
        formatter_class=HelpFormatter,
        description="Run a Gomoku Arena server: WebSocket (MessagePack or JSON) for the "
        "terminal client and bots, and the browser client's page on the same port. "
        "`gomoku-server status --redis URL` prints the cluster on a Redis instead: its "
        "instances, AI workers and load.",
    )
    env = EnvOptions(parser)
    parser.add_argument(
        "--host",
        type=listen_host,
        default="0.0.0.0",
        help="address to listen on (default: 0.0.0.0, every IPv4 address; :: every IPv6 one)",
    )
    parser.add_argument("--port", type=port, default=8765, help="port, 0: any free one (8765)")
    parser.add_argument(
        "--grace",
        type=seconds(0),
        default=60.0,
        metavar="SECONDS",
        help="how long a disconnected player's seat is kept: before the opponent may claim, "
        "or before a room waiting for an opponent gives it up (60)",
    )
    parser.add_argument(
        "--offline-after",
        type=seconds(0),
        default=3.0,
        metavar="SECONDS",
        help="how long a seated player's last connection may be gone before the opponent "
        "is told they are offline, so a page reload is no news; the grace period still "
        "counts from when they left (3)",
    )
    parser.add_argument(
        "--untimed-move-limit",
        type=seconds(0),
        default=600.0,
        metavar="SECONDS",
        help="in a game without a clock, how long a player may take over one move before "
        "the opponent may claim the win, whether the player is connected or not; 0: no "
        "limit (600)",
    )
    env.add_list(
        parser,
        "--bot-key",
        "GOMOKU_BOT_KEYS",
        type=key,
        metavar="KEY",
        help="a key that marks a connection as a bot (the AI worker); repeatable",
    )
    parser.add_argument(
        "--bots",
        type=count(0),
        default=1,
        metavar="N",
        help="local AI worker processes to start (each plays --bot-seats games at once); "
        "0 turns them off (1)",
    )
    parser.add_argument(
        "--bot-seats",
        type=count(1),
        default=Bots().embedded_seats,
        metavar="N",
        help=f"games each local AI worker plays at once ({Bots().embedded_seats})",
    )
    env.add(
        parser,
        "--redis",
        "GOMOKU_REDIS_URL",
        type=redis_url,
        default=None,
        metavar="URL",
        help="keep games in Redis (redis://host:port/db, rediss:// for TLS, "
        "unix:///path), shared by every server started with the same URL (default: in "
        "memory, this process only)",
    )
    env.add(
        parser,
        "--data",
        "GOMOKU_DATA",
        type=data_path,
        default=None,
        metavar="PATH",
        help="without Redis: the file that keeps players, ratings and finished games across "
        "restarts, and the games being played between people over a stop and start "
        f"(default: {datafile.default_path()})",
    )
    parser.add_argument(
        "--ephemeral",
        action="store_true",
        help="without Redis: keep nothing; players, ratings and games are gone when the "
        "server stops",
    )
    parser.add_argument(
        "--loop",
        choices=["auto", "uvloop", "asyncio"],
        default="auto",
        help="event loop: uvloop (its C socket transports take 15-25%% less CPU per move "
        "in bench/load.py) or asyncio's own; auto: uvloop where it is installed",
    )
    add_process_options(parser, env)
    add_limit_options(parser, env)
    add_lifetime_options(parser, env)
    parser.add_argument(
        "--stop-on-eof",
        action="store_true",
        help="stop when standard input closes: gomoku play --local starts its server so, "
        "so that it never outlives the client",
    )
    parser.add_argument(
        "--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"]
    )
    parser.add_argument("--version", action="version", version=f"gomoku-server {__version__}")
    args = parser.parse_args(argv)
    env.resolve(args)
    if args.loop == "uvloop" and not _uvloop_installed():
        parser.error("argument --loop: uvloop is not installed here")
    _check_processes(parser, env, args)
    args.data_file = _open_data(parser, env, args)
    return args


def process_count(text: str) -> int:
    """How many server processes: a whole number; ``auto`` or 0 (returned as 0): one per
    CPU this process may run on (:func:`~protocol.options.usable_cpus`)."""
    return 0 if text == "auto" else count(0, 1024)(text)


def reuse_port_spreads_connections() -> bool:
    """Whether processes sharing a port with SO_REUSEPORT each get a share of the new
    connections: on Linux. (BSDs and macOS accept the option but give every connection
    to one socket; Windows has no such option.)"""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def _check_processes(
    parser: argparse.ArgumentParser, env: EnvOptions, args: argparse.Namespace
) -> None:
    """Several processes need a store they share (Redis) and an OS that spreads one
    port's connections over them."""
    if args.processes == 1:
        return
    given = env.source("processes", "--processes")
    if args.redis is None:
        parser.error(
            f"{given}: several server processes need --redis; with the embedded store each "
            "process would keep rooms of its own, and players on different processes "
            "could never meet"
        )
    if not reuse_port_spreads_connections():
        parser.error(
            f"{given}: several server processes share the port with SO_REUSEPORT, which "
            f"spreads connections only on Linux (this is {sys.platform}); start one "
            "server per port behind a load balancer instead"
        )
    if args.processes == 0:
        args.processes = usable_cpus()


def _open_data(
    parser: argparse.ArgumentParser, env: EnvOptions, args: argparse.Namespace
) -> datafile.DataFile | None:
    """The data file the embedded store keeps, opened (and locked) now, after every other
    check passed: None with Redis or ``--ephemeral``."""
    chosen = [
        env.source(dest, flag)
        for dest, flag in (("redis", "--redis"), ("data", "--data"), ("ephemeral", "--ephemeral"))
        if getattr(args, dest)
    ]
    if len(chosen) > 1:
        parser.error(f"{chosen[1]}: not allowed with {chosen[0]} (choose one store)")
    if args.redis or args.ephemeral:
        return None
    path: Path = args.data or datafile.default_path()
    where = env.source("data", "--data") if args.data else "the default data file"
    try:
        if args.data is None:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        data = datafile.DataFile(path, session_ttl_ms=round(args.session_ttl * DAY_MS))
        data.open()
    except (OSError, datafile.DataFileError) as exc:
        parser.error(f"{where}: {exc}")
    return data


def _uvloop_installed() -> bool:
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return False
    return True


def add_process_options(parser: argparse.ArgumentParser, env: EnvOptions) -> None:
    """How the server runs as processes and how it stops (README: deployment)."""
    env.add(
        parser,
        "--processes",
        "GOMOKU_PROCESSES",
        type=process_count,
        default=1,
        metavar="N",
        help="with --redis, on Linux: run N server processes that share the port "
        "(SO_REUSEPORT) and one supervisor that starts them, passes SIGTERM, SIGINT and SIGHUP on "
        "and starts again one that dies; the two players of a game are brought onto one "
        "process; each starts its own --bots workers; 0 or auto: one per CPU (1)",
    )
    parser.add_argument(  # set by the supervisor for the processes it starts
        "--process-index", type=count(1, 1024), default=None, help=argparse.SUPPRESS
    )
    env.add(
        parser,
        "--drain",
        "GOMOKU_DRAIN",
        type=seconds(0, 3600),
        default=ServerConfig().drain_s,
        metavar="SECONDS",
        help="stopping (SIGTERM, SIGINT, SIGHUP) with players connected (AI workers do not count): "
        "serve this long with /healthz answering 503, so a load balancer sends new "
        "connections elsewhere, then close connections with 1001 (clients resume elsewhere "
        f"with their token); a second signal stops at once; 0: no pause "
        f"({ServerConfig().drain_s:g})",
    )


def add_limit_options(parser: argparse.ArgumentParser, env: EnvOptions) -> None:
    """Abuse limits an operator may tune (SECURITY.md explains each), each also from an
    environment variable."""
    d = ConnectionLimits()
    group = parser.add_argument_group("limits (see SECURITY.md)")
    env.add(
        group,
        "--max-connections",
        "GOMOKU_MAX_CONNECTIONS",
        type=count(1),
        default=d.max_connections,
        metavar="N",
        help=f"open connections in this process; more are closed with 1008 ({d.max_connections})",
    )
    env.add(
        group,
        "--max-conns-per-ip",
        "GOMOKU_MAX_CONNS_PER_IP",
        type=count(0),
        default=d.max_conns_per_ip,
        metavar="N",
        help="open connections from one client address (an IPv6 one by its /64); more are "
        f"refused with HTTP 429 (0: no limit) ({d.max_conns_per_ip})",
    )
    env.add(
        group,
        "--new-players-per-ip",
        "GOMOKU_NEW_PLAYERS_PER_IP",
        type=count(0),
        default=d.new_players_per_ip,
        metavar="N",
        help="new players (a hello without a resume token) one client address may become "
        "per --per-ip-window; more are refused with rate_limited (0: no limit) "
        f"({d.new_players_per_ip})",
    )
    env.add(
        group,
        "--rooms-per-ip",
        "GOMOKU_ROOMS_PER_IP",
        type=count(0),
        default=d.rooms_per_ip,
        metavar="N",
        help="rooms one client address may open per --per-ip-window; more are refused with "
        f"rate_limited (0: no limit) ({d.rooms_per_ip})",
    )
    env.add(
        group,
        "--chat-per-ip",
        "GOMOKU_CHAT_PER_IP",
        type=count(0),
        default=d.chat_per_ip,
        metavar="N",
        help="chat lines all the players of one client address may post per 10 s (a "
        "player's own limit is 5), for a server whose rooms are flooded by throw-away "
        "players; more are refused with chat_rate_limited (0: no limit) "
        f"({d.chat_per_ip})",
    )
    env.add(
        group,
        "--per-ip-window",
        "GOMOKU_PER_IP_WINDOW",
        type=seconds(0.001),
        default=d.per_ip_window_ms / 1000,
        metavar="SECONDS",
        help=f"... within this many seconds ({d.per_ip_window_ms / 1000:g})",
    )
    env.add_list(
        group,
        "--trusted-proxy",
        "GOMOKU_TRUSTED_PROXIES",
        type=proxy_address,
        metavar="ADDR",
        help="a reverse proxy's IP address whose X-Forwarded-For names the client (for the "
        "per-address limits); repeatable",
    )
    env.add_list(
        group,
        "--allow-origin",
        "GOMOKU_ALLOW_ORIGINS",
        type=web_origin,
        metavar="ORIGIN",
        help="a web origin (https://play.example.org) whose pages may connect besides the "
        "server's own page; repeatable; '*' lets pages from anywhere connect (clients that "
        "are not browsers send no origin and are always let in)",
    )
    env.add(
        group,
        "--max-rooms-per-player",
        "GOMOKU_MAX_ROOMS_PER_PLAYER",
        type=count(1),
        default=d.max_rooms_per_player,
        metavar="N",
        help="open rooms one player may have created (an AI-vs-AI game they started "
        f"counts); more are refused with too_many_rooms ({d.max_rooms_per_player})",
    )
    env.add(
        group,
        "--max-games-per-player",
        "GOMOKU_MAX_GAMES_PER_PLAYER",
        type=count(0),
        default=d.max_games_per_player,
        metavar="N",
        help="unfinished games one player may sit in at once; joining one more is refused "
        f"with too_many_games; 0: no limit ({d.max_games_per_player})",
    )
    env.add(
        group,
        "--max-ai-per-player",
        "GOMOKU_MAX_AI_PER_PLAYER",
        type=count(0),
        default=d.max_ai_per_player,
        metavar="N",
        help="AI seats one player may have playing at once (an AI-vs-AI game takes two); "
        f"more are refused with too_many_ai; 0: no limit ({d.max_ai_per_player})",
    )
    env.add(
        group,
        "--max-code-failures",
        "GOMOKU_MAX_CODE_FAILURES",
        type=count(1),
        default=d.code_failures,
        metavar="N",
        help="joins by an invite code that leads nowhere one connection may make per "
        "--code-failure-window; then its joins by code get rate_limited "
        f"({d.code_failures})",
    )
    env.add(
        group,
        "--max-code-failures-per-ip",
        "GOMOKU_MAX_CODE_FAILURES_PER_IP",
        type=count(1),
        default=d.code_failures_per_ip,
        metavar="N",
        help=f"... all connections from one address ({d.code_failures_per_ip})",
    )
    env.add(
        group,
        "--code-failure-window",
        "GOMOKU_CODE_FAILURE_WINDOW",
        type=seconds(0.001),
        default=d.code_failure_window_ms / 1000,
        metavar="SECONDS",
        help=f"... within this many seconds ({d.code_failure_window_ms / 1000:g})",
    )
    env.add(
        group,
        "--rate-limit",
        "GOMOKU_RATE_LIMIT",
        type=number(1),
        default=float(d.rate_per_s),
        metavar="PER_S",
        help=f"messages per second one connection may send, sustained ({d.rate_per_s:g})",
    )
    env.add(
        group,
        "--rate-burst",
        "GOMOKU_RATE_BURST",
        type=count(1),
        default=d.rate_burst,
        metavar="N",
        help=f"... in bursts of up to N messages ({d.rate_burst})",
    )
    env.add(
        group,
        "--send-buffer",
        "GOMOKU_SEND_BUFFER",
        type=count(1, 1 << 30),
        default=d.send_buffer // 1024,
        metavar="KIB",
        help="KiB of frames a connection may leave unread before it is dropped "
        f"({d.send_buffer // 1024})",
    )


def add_lifetime_options(parser: argparse.ArgumentParser, env: EnvOptions) -> None:
    """How long what the server keeps lives (README: nothing lives forever), each also
    from an environment variable."""
    d = Timers()
    group = parser.add_argument_group("lifetimes")
    env.add(
        group,
        "--waiting-room-ttl",
        "GOMOKU_WAITING_ROOM_TTL",
        type=seconds(1),
        default=d.waiting_room_ttl_ms / 1000,
        metavar="SECONDS",
        help=f"a room whose game has not begun by then closes ({d.waiting_room_ttl_ms // 1000})",
    )
    env.add(
        group,
        "--finished-room-ttl",
        "GOMOKU_FINISHED_ROOM_TTL",
        type=seconds(1),
        default=d.finished_room_ttl_ms / 1000,
        metavar="SECONDS",
        help="a finished game's room stays this long (results, rematch), then only its "
        f"archived record is kept ({d.finished_room_ttl_ms // 1000})",
    )
    env.add(
        group,
        "--session-ttl",
        "GOMOKU_SESSION_TTL",
        type=number(0.001, 3650, unit="days"),
        default=d.session_ttl_ms / DAY_MS,
        metavar="DAYS",
        help="a resume token unused for this long stops working (ratings and games stay) "
        f"({d.session_ttl_ms // DAY_MS})",
    )
    env.add(
        group,
        "--instance-lease",
        "GOMOKU_INSTANCE_LEASE",
        type=seconds(0.5, 3600),
        default=d.instance_lease_ms / 1000,
        metavar="SECONDS",
        help="with --redis: when a server instance dies, its connections stop keeping "
        f"players present in their rooms after this long ({d.instance_lease_ms // 1000})",
    )


def timers_from_args(args: argparse.Namespace) -> Timers:
    return Timers(
        waiting_room_ttl_ms=round(args.waiting_room_ttl * 1000),
        finished_room_ttl_ms=round(args.finished_room_ttl * 1000),
        session_ttl_ms=round(args.session_ttl * DAY_MS),
        instance_lease_ms=round(args.instance_lease * 1000),
    )


def limits_from_args(args: argparse.Namespace) -> ConnectionLimits:
    return ConnectionLimits(
        max_connections=args.max_connections,
        max_conns_per_ip=args.max_conns_per_ip,
        rate_per_s=args.rate_limit,
        rate_burst=args.rate_burst,
        flood_strikes=max(ConnectionLimits().flood_strikes, args.rate_burst),
        send_buffer=args.send_buffer * 1024,
        max_rooms_per_player=args.max_rooms_per_player,
        max_ai_per_player=args.max_ai_per_player,
        max_games_per_player=args.max_games_per_player,
        code_failures=args.max_code_failures,
        code_failures_per_ip=args.max_code_failures_per_ip,
        code_failure_window_ms=round(args.code_failure_window * 1000),
        new_players_per_ip=args.new_players_per_ip,
        rooms_per_ip=args.rooms_per_ip,
        per_ip_window_ms=round(args.per_ip_window * 1000),
        chat_per_ip=args.chat_per_ip,
    )


def server_config(args: argparse.Namespace) -> ServerConfig:
    """The settings ``args`` describe."""
    return ServerConfig(
        host=args.host,
        port=args.port,
        game=GameRules(
            grace_ms=round(args.grace * 1000),
            offline_after_ms=round(args.offline_after * 1000),
            untimed_move_ms=round(args.untimed_move_limit * 1000),
        ),
        bot_keys=frozenset(args.bot_key),
        limits=limits_from_args(args),
        trusted_proxies=frozenset(args.trusted_proxy),
        allowed_origins=frozenset(args.allow_origin),
        bots=Bots(embedded=args.bots, embedded_seats=args.bot_seats),
        timers=timers_from_args(args),
        drain_s=args.drain,
        reuse_port=args.process_index is not None,
    )


__all__ = ["USAGE", "parse_args", "server_config"]
