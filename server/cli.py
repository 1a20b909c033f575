"""``gomoku-server``: run a server and print where people can join it."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import socket
import sys
import urllib.parse
from collections.abc import Coroutine, Sequence
from typing import Any

from server import __version__
from server.app import GomokuServer
from server.config import Bots, ConnectionLimits, ServerConfig
from server.game import GameRules
from server.store import Store, StoreUnavailable

log = logging.getLogger("gomoku.server")


def lan_address() -> str | None:
    """This machine's LAN address, found without sending anything: connecting a
    UDP socket only picks the route and source address."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            address: str = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("0.") else address


def join_addresses(host: str, port: int) -> list[str]:
    """The ``ws://`` addresses to tell players, most useful first."""
    if host in ("0.0.0.0", "", "::"):
        hosts = [h for h in (lan_address(), socket.gethostname(), "127.0.0.1") if h]
    else:
        hosts = [host]
    seen: list[str] = []
    for h in hosts:
        url = f"ws://{h}:{port}"
        if url not in seen:
            seen.append(url)
    return seen


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="gomoku-server", description="Run a Gomoku Arena server (WebSocket + MessagePack)."
    )
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all)")
    parser.add_argument("--port", type=int, default=8765, help="port (default: 8765)")
    parser.add_argument(
        "--grace",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="how long a disconnected player's seat is kept before the opponent may claim (60)",
    )
    parser.add_argument(
        "--bot-key",
        action="append",
        default=[],
        metavar="KEY",
        help="a key that marks a connection as a bot (the AI worker); repeatable; "
        "also GOMOKU_BOT_KEYS=key1,key2",
    )
    parser.add_argument(
        "--bots",
        type=int,
        default=1,
        metavar="N",
        help="local AI worker processes to start (each plays --bot-seats games at once); "
        "0 turns them off (1)",
    )
    parser.add_argument(
        "--bot-seats",
        type=int,
        default=Bots().embedded_seats,
        metavar="N",
        help=f"games each local AI worker plays at once ({Bots().embedded_seats})",
    )
    parser.add_argument(
        "--redis",
        default=os.environ.get("GOMOKU_REDIS_URL") or None,
        metavar="URL",
        help="keep games in Redis (redis://host:port/db), shared by every server started "
        "with the same URL; also GOMOKU_REDIS_URL (default: in memory, this process only)",
    )
    parser.add_argument(
        "--loop",
        choices=["auto", "uvloop", "asyncio"],
        default="auto",
        help="event loop: uvloop (its C socket transports take 15-25%% less CPU per move "
        "in bench/load.py) or asyncio's own; auto: uvloop where it is installed",
    )
    add_limit_options(parser)
    parser.add_argument(
        "--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"]
    )
    parser.add_argument("--version", action="version", version=f"gomoku-server {__version__}")
    return parser.parse_args(argv)


def add_limit_options(parser: argparse.ArgumentParser) -> None:
    """Abuse limits an operator may tune (SECURITY.md explains each)."""
    d = ConnectionLimits()
    group = parser.add_argument_group("limits (see SECURITY.md)")
    group.add_argument(
        "--max-connections",
        type=int,
        default=d.max_connections,
        metavar="N",
        help=f"open connections in this process; more are closed with 1008 ({d.max_connections})",
    )
    group.add_argument(
        "--max-conns-per-ip",
        type=int,
        default=d.max_conns_per_ip,
        metavar="N",
        help="open connections from one client address; more are refused with HTTP 429 "
        f"(0: no limit) ({d.max_conns_per_ip})",
    )
    group.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDR",
        help="a reverse proxy's address whose X-Forwarded-For names the client (for the "
        "per-address limit); repeatable",
    )
    group.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a web origin (https://play.example.org) whose pages may connect; repeatable; "
        "with none given any page may (clients that are not browsers send no origin and "
        "are always let in)",
    )
    group.add_argument(
        "--max-rooms-per-player",
        type=int,
        default=d.max_rooms_per_player,
        metavar="N",
        help="open rooms one player may have created (an AI-vs-AI game they started "
        f"counts); more are refused with too_many_rooms ({d.max_rooms_per_player})",
    )
    group.add_argument(
        "--max-code-failures",
        type=int,
        default=d.code_failures,
        metavar="N",
        help="joins by an invite code that leads nowhere one connection may make per "
        "--code-failure-window; then its joins by code get rate_limited "
        f"({d.code_failures})",
    )
    group.add_argument(
        "--max-code-failures-per-ip",
        type=int,
        default=d.code_failures_per_ip,
        metavar="N",
        help=f"... all connections from one address ({d.code_failures_per_ip})",
    )
    group.add_argument(
        "--code-failure-window",
        type=float,
        default=d.code_failure_window_ms / 1000,
        metavar="SECONDS",
        help=f"... within this many seconds ({d.code_failure_window_ms / 1000:g})",
    )
    group.add_argument(
        "--rate-limit",
        type=float,
        default=d.rate_per_s,
        metavar="PER_S",
        help=f"messages per second one connection may send, sustained ({d.rate_per_s:g})",
    )
    group.add_argument(
        "--rate-burst",
        type=int,
        default=d.rate_burst,
        metavar="N",
        help=f"... in bursts of up to N messages ({d.rate_burst})",
    )
    group.add_argument(
        "--send-buffer",
        type=int,
        default=d.send_buffer // 1024,
        metavar="KIB",
        help="KiB of frames a connection may leave unread before it is dropped "
        f"({d.send_buffer // 1024})",
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
        code_failures=args.max_code_failures,
        code_failures_per_ip=args.max_code_failures_per_ip,
        code_failure_window_ms=round(args.code_failure_window * 1000),
    )


def redacted(url: str) -> str:
    """The URL without its password, for logs."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def make_store(redis_url: str | None) -> tuple[Store | None, tuple[type[Exception], ...]]:
    """The Redis store for ``--redis`` and the errors that mean Redis is unusable;
    (None, ()) means the server's default store (in memory)."""
    if redis_url is None:
        return None, ()
    # Imported only here: the redis extra is needed only by servers that use it.
    from redis.exceptions import RedisError

    from server.store.redis import RedisStore

    return RedisStore(redis_url), (RedisError, StoreUnavailable)


async def serve(config: ServerConfig, store: Store | None = None) -> None:
    """Serve until SIGTERM or SIGINT, then close every connection with 1001."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    server = GomokuServer(config, store=store)
    await server.start()
    print(f"gomoku-server {__version__} listening on port {server.port}; players can join at:")
    for url in join_addresses(config.host, server.port):
        print(f"  {url}")
    print(f"health: http://127.0.0.1:{server.port}/healthz  metrics: /metrics", flush=True)
    try:
        await stop.wait()
        log.info("shutting down")
    finally:
        await server.stop()
    log.info("stopped")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(
        level=args.log_level, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr
    )
    logging.getLogger("websockets").setLevel(logging.WARNING)
    env_keys = [k for k in os.environ.get("GOMOKU_BOT_KEYS", "").split(",") if k]
    config = ServerConfig(
        host=args.host,
        port=args.port,
        game=GameRules(grace_ms=int(args.grace * 1000)),
        bot_keys=frozenset(args.bot_key + env_keys),
        limits=limits_from_args(args),
        trusted_proxies=frozenset(args.trusted_proxy),
        allowed_origins=frozenset(args.allow_origin),
        bots=Bots(embedded=max(0, args.bots), embedded_seats=max(1, args.bot_seats)),
    )
    if args.redis:
        print(f"store: redis at {redacted(args.redis)}", flush=True)
    store, store_errors = make_store(args.redis)
    try:
        run_loop(serve(config, store), args.loop)
    except store_errors as exc:
        print(f"gomoku-server: cannot use redis at {redacted(args.redis)}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"gomoku-server: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    return 0


def run_loop(main: Coroutine[Any, Any, None], loop: str) -> None:
    """Run ``main`` on the chosen event loop (``auto``: uvloop if it can be imported;
    it is not available on Windows)."""
    if loop != "asyncio":
        try:
            import uvloop
        except ImportError:
            if loop == "uvloop":
                main.close()
                raise SystemExit("gomoku-server: --loop uvloop: uvloop is not installed") from None
        else:
            uvloop.run(main)
            return
    asyncio.run(main)


if __name__ == "__main__":
    sys.exit(main())
