"""Running ``gomoku-server`` (:func:`run`, once :func:`server.cli.main` has taken the
signals): one server process until a signal, or the supervisor of ``--processes``; and
where people can join it."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import ipaddress
import logging
import os
import socket
import sys
import urllib.parse
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from protocol import logs
from server import __version__
from server.app import GomokuServer
from server.config import ServerConfig
from server.local_workers import url_host
from server.options import (
    DAY_MS,
    cannot_listen,
    cannot_use_redis,
    parse_args,
    redacted,
    server_config,
)
from server.processes import process_config, ready_line, stop_on_eof, supervise
from server.shared_figures import FOLDER_VARIABLE, SharedFigures
from server.store import Store, StoreUnavailable
from server.store.embedded import EmbeddedStore
from stopsignals import STOP_SIGNALS, StopSignals

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


def lan_address6() -> str | None:
    """This machine's IPv6 address that others reach it at (a global or unique local
    one), found as :func:`lan_address` finds the IPv4 one; None without an IPv6 route
    (a link-local address needs its interface, which a friend's machine cannot name)."""
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as probe:
            probe.connect(("2001:db8::1", 1))  # (documentation prefix: nothing is sent)
            address: str = probe.getsockname()[0]
    except OSError:
        return None
    host = ipaddress.IPv6Address(address.split("%", 1)[0])
    return None if host.is_link_local or host.is_loopback or host.is_unspecified else str(host)


def page_address(ws_url: str) -> str:
    """The browser client's page on the server a ``ws://`` address names."""
    return "http://" + ws_url.removeprefix("ws://") + "/"


WILDCARD_HOSTS = ("0.0.0.0", "", "::")
"""``--host`` values that listen on every interface."""


def url_host_is_loopback(url: str) -> bool:
    """Whether a ``ws://`` address names this machine's loopback (127.0.0.1, [::1]): one
    that players on other machines cannot use."""
    host = urllib.parse.urlsplit(url).hostname or ""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def join_addresses(host: str, port: int) -> list[str]:
    """The ``ws://`` addresses to tell players, most useful first."""
    if host == "::":  # IPv6 only (asyncio's sockets for it take no IPv4)
        hosts = [h for h in (lan_address6(), "::1") if h]
    elif host in WILDCARD_HOSTS:
        hosts = [h for h in (lan_address(), socket.gethostname(), "127.0.0.1") if h]
    else:
        hosts = [host]
    seen: list[str] = []
    for h in hosts:
        url = f"ws://{url_host(h)}:{port}"
        if url not in seen:
            seen.append(url)
    return seen


def make_store(
    args: argparse.Namespace, *, quiet: bool = False
) -> tuple[Store | None, tuple[type[Exception], ...]]:
    """The store the options chose and the errors that mean it is unusable: Redis, or the
    embedded store with the data file already opened (None: in memory only). Says which
    unless ``quiet`` (a process of ``--processes``: its supervisor said it)."""
    say = (lambda text: None) if quiet else print
    if args.data_file is not None:
        say(f"store: in memory, with players, ratings and games kept in {args.data_file.path}")
        return EmbeddedStore(args.data_file), ()
    if args.redis is None:
        say("store: in memory only (--ephemeral): nothing is kept when the server stops")
        return None, ()
    say(f"store: redis at {redacted(args.redis)}")
    # Imported only here: the redis extra is needed only by servers that use it.
    from redis.exceptions import RedisError

    from server.store.redis import RedisStore

    session_ttl_ms = round(args.session_ttl * DAY_MS)
    return RedisStore(args.redis, session_ttl_ms=session_ttl_ms), (RedisError, StoreUnavailable)


def banner(host: str, port: int, *, processes: int = 1) -> str:
    """Where players can join, and the health and metrics addresses."""
    shared = f" ({processes} processes)" if processes > 1 else ""
    lines = [f"gomoku-server {__version__} listening on port {port}{shared}; players can join at:"]
    for url in join_addresses(host, port):
        only_here = "    (this machine only)" if url_host_is_loopback(url) else ""
        lines.append(f"  {url}    in a browser: {page_address(url)}{only_here}")
    # Where it answers: "::" takes IPv6 only.
    local = "[::1]" if host == "::" else "127.0.0.1" if host in WILDCARD_HOSTS else url_host(host)
    lines.append(f"health: http://{local}:{port}/healthz  metrics: /metrics")
    return "\n".join(lines)


GC_YOUNG_THRESHOLD = 10_000
"""Allocations between two collections of the youngest generation (Python's default is
700): a move allocates a few hundred objects that reference counting frees, and a
collection every few moves cost more than it found."""


def tune_gc() -> None:
    """Set the cyclic garbage collector up for serving, once started: what start-up made
    (modules, tables, caches) is frozen out of every later collection, and the youngest
    generation is collected every :data:`GC_YOUNG_THRESHOLD` allocations. Under
    ``bench/load.py`` (memory store) this took 117-128 us of CPU per move to 108-125 in
    three A/B pairs (gen2 collections had taken 50-90 ms each)."""
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])


STOP_AFTER_FAILED_START_S = 5.0
"""The most a server that could not start spends releasing what it took."""


async def serve(
    config: ServerConfig,
    store: Store | None = None,
    *,
    process: int | None = None,
    eof_stops: bool = False,
    signals: StopSignals | None = None,
) -> None:
    """Serve until SIGTERM or SIGINT, drain (:meth:`server.listener.Listener.drain`: a
    second signal, even one that came with the first, cuts it short), then close every
    connection with 1001. ``process``: this is that process of ``--processes`` (it
    prints one ready line for the supervisor and stops when its standard input closes).
    ``eof_stops``: stop too when standard input closes (``--stop-on-eof``: the parent
    that started this server, ``gomoku play --local``, is gone). ``signals``: a stop
    signal noted before the event loop took them counts as one that came now."""
    stops: asyncio.Queue[str] = asyncio.Queue()
    loop = asyncio.get_running_loop()
    for sig in STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stops.put_nowait, sig.name)
    if signals is not None and signals.received is not None:
        stops.put_nowait(signals.received)  # its exception was lost on the way
    watch_stdin = eof_stops or process is not None
    orphaned = asyncio.create_task(stop_on_eof(stops)) if watch_stdin else None
    server = GomokuServer(config, store=store)
    starting = asyncio.create_task(server.start())
    signalled = asyncio.create_task(stops.get())
    try:
        # A signal stops a start that waits (on a store that does not answer, say).
        await asyncio.wait({starting, signalled}, return_when=asyncio.FIRST_COMPLETED)
        if not starting.done():
            starting.cancel()
            log.info("%s: stopping before the server started", signalled.result())
        await starting
    except BaseException as exc:
        signalled.cancel()
        # Releases the store (the data file's lock) too; bounded: a store that does not
        # answer would hold the process here (its lease and attachments expire anyway).
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(STOP_AFTER_FAILED_START_S):
                await server.stop()
        if isinstance(exc, asyncio.CancelledError) and signalled.done():
            return  # stopped by the operator while starting
        raise
    if signalled.done():
        stops.put_nowait(signalled.result())  # came as the start ended: still to act on
    else:
        signalled.cancel()
    tune_gc()
    # The log says when it started and where, and the instance id other instances'
    # lines name it by (the banner goes to standard output, without a time).
    log.info(
        "started: gomoku-server %s, instance %s, listening on %s",
        __version__,
        server.housekeeping.instance_id,
        server.figures().address,
    )
    if process is None:
        print(banner(config.host, server.port), flush=True)
    else:
        server.metrics.identity["process"] = str(process)
        print(ready_line(process, server.housekeeping.instance_id, server.port), flush=True)
    sharing = share_figures(server, process)
    try:
        log.info("%s: stopping", await stops.get())
        await server.warn_before_stop()
        if stops.empty() and (again := await server.listener.drain(config.drain_s, stops.get)):
            log.info("%s: stopping now", again)
        log.info("shutting down")
    finally:
        if orphaned is not None:
            orphaned.cancel()
        if sharing is not None:
            sharing.cancel()
            if server.metrics.shared is not None:
                server.metrics.shared.remove()
        await server.stop()
    log.info("stopped")


def share_figures(server: GomokuServer, process: int | None) -> asyncio.Task[None] | None:
    """Under ``--processes``, write this process's own figures where its siblings read
    them (:mod:`server.shared_figures`), and read theirs at each scrape."""
    folder = os.environ.get(FOLDER_VARIABLE)
    if process is None or not folder:
        return None
    shared = SharedFigures(Path(folder), process)
    server.metrics.shared = shared
    return asyncio.create_task(shared.run(server.metrics.own))


def run(words: list[str], signals: StopSignals) -> int:
    """``gomoku-server`` with these arguments, once :func:`server.cli.main` took the
    signals (a stop signal raises :class:`stopsignals.Stopped` until the event loop
    takes them, and they are ignored once it has closed)."""
    args = parse_args(words)
    process: int | None = args.process_index
    logs.configure(args.log_level, tag="" if process is None else f"[process {process}] ")
    if args.processes > 1:
        given = words
        try:
            return supervise(
                args,
                given,
                lambda port: print(banner(args.host, port, processes=args.processes), flush=True),
                signals=signals,
            )
        finally:
            signals.ignore()  # the loop gave them back to Python's handling as it closed
    config = server_config(args)
    if process is not None:
        config = process_config(config)
    store, store_errors = make_store(args, quiet=process is not None)
    sys.stdout.flush()
    main = serve(config, store, process=process, eof_stops=args.stop_on_eof, signals=signals)
    try:
        try:
            run_loop(main, args.loop, signals)
        finally:
            main.close()  # if a stop came before the loop ran it: not "never awaited"
    except store_errors as exc:
        print(cannot_use_redis(args.redis, exc), file=sys.stderr)
        return 1
    except StoreUnavailable as exc:  # the data file failed as the server stopped (an OSError)
        print(f"gomoku-server: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(cannot_listen(args.host, args.port, exc), file=sys.stderr)
        return 1
    finally:
        signals.ignore()  # the loop gave them back to Python's handling as it closed
    return 0


def run_loop(main: Coroutine[Any, Any, None], loop: str, signals: StopSignals) -> None:
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
            signals.run(main, uvloop.new_event_loop)
            return
    signals.run(main)
