"""The AI workers a server starts itself (``gomoku-server --bots N``): each a
``python -m worker`` process on this machine, connected to this server with a bot key of
its own, restarted with a growing pause if it dies, stopped with the server (and only
by it: signals sent to the server's process group do not reach it)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys

log = logging.getLogger("gomoku.server")


def url_host(host: str) -> str:
    """``host`` as it goes in a URL (or a ``host:port``): an IPv6 address in brackets
    (``[::1]``)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def local_url(host: str, port: int) -> str:
    """Where a worker on this machine reaches a server listening on ``host`` (loopback
    if it listens on all addresses)."""
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"ws://{url_host(host)}:{port}"


class LocalWorkers:
    """The worker processes this server runs."""

    def __init__(self, seats: int) -> None:
        self.seats = seats
        """Games each worker plays at once."""
        self._processes: list[asyncio.subprocess.Process] = []
        self._stopping = False

    async def run(self, url: str, key: str) -> None:
        """Run one local AI worker process (``python -m worker``) and restart it if it
        dies, with a growing pause, until :meth:`stop`."""
        pause = 0.5
        while not self._stopping:
            args = [
                sys.executable,
                "-P",  # not a ``worker`` package in the current directory
                "-m",
                "worker",
                "--server",
                url,
                "--seats",
                str(self.seats),
                "--log-level",
                # Its seats' lines (which room each plays, a claim) only when the server
                # is asked for its story at DEBUG: at INFO they would double its log.
                "DEBUG" if log.isEnabledFor(logging.DEBUG) else "WARNING",
                "--stop-on-eof",  # the pipe closes when this process ends, however it ends
            ]
            env = {**os.environ, "GOMOKU_BOT_KEY": key}
            # In a session of its own, as the processes of --processes are: a Ctrl-C in
            # the terminal reaches the server only, which stops the worker itself (the
            # worker stopped by it first was restarted while the server drained).
            process = await asyncio.create_subprocess_exec(
                *args, env=env, stdin=asyncio.subprocess.PIPE, start_new_session=True
            )
            self._processes.append(process)
            log.info("started the local AI worker (pid %d)", process.pid)
            started = asyncio.get_running_loop().time()
            code = await process.wait()
            self._processes.remove(process)
            if self._stopping:
                return
            log.warning("the local AI worker exited with code %s; restarting it", code)
            if asyncio.get_running_loop().time() - started > 30:
                pause = 0.5
            await asyncio.sleep(pause)
            pause = min(pause * 2, 30.0)

    async def stop(self) -> None:
        """Stop every worker: end of input, SIGTERM, and SIGKILL after 5 s."""
        self._stopping = True
        for process in list(self._processes):
            if process.stdin is not None:
                process.stdin.close()  # the worker stops at the end of its input
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
        for process in list(self._processes):
            try:
                await asyncio.wait_for(process.wait(), 5.0)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
