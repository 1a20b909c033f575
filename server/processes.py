"""``gomoku-server --processes N``: N server processes on one port, and the supervisor
that runs them.

Each process is a whole server (``python -m server`` with the same options) listening
with SO_REUSEPORT, so the kernel spreads new connections over them; they share
everything else through Redis, as servers on different machines do. The supervisor
(the process the operator started) holds the port bound (listening only in the
processes), starts the processes, prints the banner once all of them listen, passes
SIGTERM and SIGINT on to them (each drains, then closes its connections with 1001) and
exits when they have stopped. A process that dies on its own (a crash, the OOM killer)
is started again after a pause that doubles up to 30 s; one that fails while the server
is starting stops the whole server with its exit status, since starting it again would
fail the same way (Redis unreachable, say). Each process reads its standard input, a
pipe from the supervisor, and stops when it closes: a supervisor killed with SIGKILL
leaves no process behind.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import errno
import logging
import os
import re
import secrets
import signal
import socket
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from protocol.backoff import sleep_unless
from server import __version__
from server.config import ServerConfig
from server.options import cannot_listen, cannot_use_redis, redacted
from server.shared_figures import FOLDER_VARIABLE, SharedFigures
from stopsignals import STOP_SIGNALS, StopSignals

log = logging.getLogger("gomoku.server")

EMBEDDED_KEY_VARIABLE = "GOMOKU_PROCESSES_EMBEDDED_KEY"
"""How the supervisor gives its processes the one bot key their local AI workers log in
with (a worker's connection may land on any process). An environment variable, since
command lines are visible to every user of the machine."""

HANDOFF_KEY_VARIABLE = "GOMOKU_PROCESSES_HANDOFF_KEY"
"""How the supervisor gives its processes the key they prove they are siblings with when
they hand each other connections (:mod:`server.handoff`)."""

_READY = re.compile(r" process (\d+) \(pid \d+, instance \w+\) ready on port \d+$")
RESTART_PAUSE_S = (0.5, 30.0)
"""The first and the longest pause before a process that died is started again."""


def process_config(config: ServerConfig) -> ServerConfig:
    """A process's settings: its local AI workers log in with the key the supervisor
    gave every process (:data:`EMBEDDED_KEY_VARIABLE`), and it hands connections to its
    siblings with the other key it gave them (:data:`HANDOFF_KEY_VARIABLE`)."""
    key = os.environ.get(EMBEDDED_KEY_VARIABLE) or None
    return dataclasses.replace(
        config,
        bots=dataclasses.replace(config.bots, embedded_key=key),
        handoff_key=os.environ.get(HANDOFF_KEY_VARIABLE) or None,
    )


def ready_line(index: int, instance: str, port: int) -> str:
    """What a process prints once it listens; the supervisor waits for it. (Not
    "listening on port": that is the banner, printed once every process is ready.)"""
    return (
        f"gomoku-server {__version__} process {index} (pid {os.getpid()}, instance "
        f"{instance}) ready on port {port}"
    )


async def stop_on_eof(stops: asyncio.Queue[str]) -> None:
    """Ask the server to stop when standard input reaches its end: the process that
    started it (the supervisor, or ``gomoku play --local``) is gone.

    Read on a thread, since standard input may be anything: a pipe, a terminal (Ctrl+D
    ends it), a regular file or ``/dev/null`` (which end at once). The event loop's
    pipe reader accepts only pipes and sockets, and uvloop aborted the process on the
    others. The thread is a daemon: a server stopped for another reason does not wait
    for it."""
    loop = asyncio.get_running_loop()
    ended: asyncio.Future[None] = loop.create_future()

    def finish() -> None:
        if not ended.done():
            ended.set_result(None)

    def read() -> None:
        with contextlib.suppress(OSError, ValueError, AttributeError):  # no stdin: ended
            while os.read(sys.stdin.fileno(), 4096):
                pass
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody to tell
            loop.call_soon_threadsafe(finish)

    threading.Thread(target=read, name="stdin-eof", daemon=True).start()
    await ended
    stops.put_nowait("standard input closed (the process that started this one is gone)")


def reserve_port(host: str, port: int) -> socket.socket:
    """A socket bound (not listening) to the server's address with SO_REUSEPORT: it
    holds the port for the supervisor's lifetime (port 0: picks one) and gets no
    connections itself. Raises OSError if the address cannot be had, or if something
    already listens there: SO_REUSEPORT would let us share the port with another server
    of this user without a word."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
        if _answers(family, sock.getsockname()):
            raise OSError(errno.EADDRINUSE, "another server already listens there")
    except OSError:
        sock.close()
        raise
    return sock


def _answers(family: int, bound: tuple[str, int] | tuple[str, int, int, int]) -> bool:
    """Whether something accepts connections at the address a socket is bound to (the
    loopback address for a wildcard one)."""
    host = bound[0]
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1" if family == socket.AF_INET else "::1"
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        return probe.connect_ex((host, bound[1])) == 0


class Supervisor:
    """Runs ``count`` server processes on one port until a signal stops them."""

    def __init__(self, command: Sequence[str], count: int, port: int) -> None:
        self.command = list(command)
        """The processes' command line, without the options each one gets of its own."""
        self.count = count
        self.port = port
        self.figures = tempfile.TemporaryDirectory(prefix="gomoku-figures-")
        """Where each process writes its own figures for /metrics (server.shared_figures)."""
        self.env = {
            **os.environ,
            EMBEDDED_KEY_VARIABLE: "embedded-" + secrets.token_urlsafe(24),
            HANDOFF_KEY_VARIABLE: secrets.token_urlsafe(24),
            FOLDER_VARIABLE: self.figures.name,
        }
        self.processes: dict[int, asyncio.subprocess.Process] = {}
        self.ready: set[int] = set()
        """Processes that printed their ready line (and have not died since)."""
        self.started = False
        """Every process has listened once: from now on one that dies is started again."""
        self.failed: int | None = None
        """The exit status of a process that failed while the server was starting."""
        self.stop = asyncio.Event()
        self.changed = asyncio.Event()
        """A process became ready or failed, or a signal came."""

    async def run(self, on_ready: Callable[[], None], signals: StopSignals | None = None) -> int:
        """Start the processes, call ``on_ready`` once every one listens, and return the
        exit status once they have stopped (after a signal, or a failed start).
        ``signals``: a stop signal noted before the loop took them stops them at once."""
        loop = asyncio.get_running_loop()
        for sig in STOP_SIGNALS:
            loop.add_signal_handler(sig, self.forward, sig)
        if signals is not None and signals.received is not None:
            self.forward(signal.Signals[signals.received])  # its exception was lost
        tasks = [asyncio.create_task(self.keep(i)) for i in range(1, self.count + 1)]
        try:
            while not self.stop.is_set() and self.failed is None and len(self.ready) < self.count:
                await self.changed.wait()
                self.changed.clear()
            if self.failed is not None:
                self.forward(signal.SIGTERM)
            elif not self.stop.is_set():
                self.started = True
                on_ready()
            await asyncio.gather(*tasks)
        finally:
            for sig in STOP_SIGNALS:
                loop.remove_signal_handler(sig)
        return self.failed or 0

    def forward(self, sig: int) -> None:
        """Pass a signal on to every process (a second one makes them stop at once)."""
        if not self.stop.is_set():
            log.info("stopping %d server processes", len(self.processes))
        self.stop.set()
        self.changed.set()
        for process in self.processes.values():
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(sig)

    async def keep(self, index: int) -> None:
        """Run process ``index`` until the server stops, starting it again when it dies
        on its own after the server has started."""
        loop = asyncio.get_running_loop()
        pause = RESTART_PAUSE_S[0]
        while not self.stop.is_set():
            process = await self.spawn(index)
            began = loop.time()
            await self.relay(index, process)
            code = await process.wait()
            del self.processes[index]
            self.ready.discard(index)
            # Its figures go with it: a killed one's stayed in every scrape, its players
            # counted twice once they were back on a sibling.
            SharedFigures(Path(self.figures.name), index).remove_file()
            if self.stop.is_set():
                return
            if not self.started:
                log.error("server process %d exited with status %s while starting", index, code)
                self.failed = code or 1
                self.changed.set()
                return
            if loop.time() - began > RESTART_PAUSE_S[1]:
                pause = RESTART_PAUSE_S[0]
            log.warning(
                "server process %d (pid %d) exited with status %s; starting it again in %g s",
                index,
                process.pid,
                code,
                pause,
            )
            await sleep_unless(self.stop, pause)
            pause = min(pause * 2, RESTART_PAUSE_S[1])

    async def spawn(self, index: int) -> asyncio.subprocess.Process:
        """Start process ``index`` in a session of its own (a Ctrl-C in the terminal
        reaches the supervisor only, which passes it on once)."""
        command = [*self.command, "--processes", "1", "--process-index", str(index)]
        command += ["--port", str(self.port)]
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env=self.env,
            start_new_session=True,
        )
        self.processes[index] = process
        if self.stop.is_set():  # a signal came while it was starting
            process.send_signal(signal.SIGTERM)
        return process

    async def relay(self, index: int, process: asyncio.subprocess.Process) -> None:
        """Copy the process's standard output to ours until it ends; its ready line
        marks it listening."""
        assert process.stdout is not None
        async for raw in process.stdout:
            line = raw.decode(errors="replace").rstrip("\n")
            print(line, flush=True)
            if _READY.search(line):
                self.ready.add(index)
                self.changed.set()


def redis_problem(url: str) -> str | None:
    """Why the server processes could not use the Redis at ``url`` (None: it answers).
    The supervisor asks once before starting them, so that a Redis that is down or a
    database that does not exist is said in one line, not once by every process."""
    from redis import Redis  # the redis extra: needed only with --redis
    from redis.exceptions import RedisError

    try:
        with Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5) as client:
            client.ping()
    except (RedisError, OSError, ValueError) as exc:
        return str(exc)
    return None


def supervise(
    args: argparse.Namespace,
    argv: Sequence[str],
    announce: Callable[[int], None],
    *,
    signals: StopSignals,
) -> int:
    """Run ``args.processes`` server processes with the options ``argv`` gave, calling
    ``announce(port)`` once all of them listen; the exit status: 0 after a signal, 1 if
    the port cannot be had, a failed process's status if one failed to start.
    ``signals``: see :meth:`Supervisor.run`."""
    try:
        reserved = reserve_port(args.host, args.port)
    except OSError as exc:
        print(cannot_listen(args.host, args.port, exc), file=sys.stderr)
        return 1
    with reserved:
        port: int = reserved.getsockname()[1]
        print(
            f"store: redis at {redacted(args.redis)}, shared by {args.processes} server processes",
            flush=True,
        )
        problem = redis_problem(args.redis)
        if problem is not None:
            print(cannot_use_redis(args.redis, problem), file=sys.stderr)
            return 1
        # -P: ``python -m`` would look for ``server`` in the current directory first.
        command = [sys.executable, "-P", "-m", "server", *argv]
        supervisor = Supervisor(command, args.processes, port)
        with supervisor.figures:
            main = supervisor.run(lambda: announce(port), signals)
            return signals.run(main)
