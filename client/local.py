"""``gomoku play --local``: a server of the client's own, for play with no network:
two people on one terminal (hot seat), or one person against the AI, with the same
screens.

The client starts ``gomoku-server`` as a child process (``python -m server``), the
way ``gomoku-server`` starts its AI worker: on 127.0.0.1 and a free port, so nothing
outside this machine can reach it; ``--ephemeral``, so it keeps nothing (a local
session's players and games are gone when the client exits, and no data file is
written); one local AI worker of its own (``--bots 1``), which it stops when it
stops; and ``--stop-on-eof``, so it never outlives the client, however the client
ends (the pipe to its standard input closes with the client); one process that stops
without a drain (``--processes 1 --drain 0``); and no move limit in a game without a
clock (``--untimed-move-limit 0``: the AI claimed a win after ten minutes' thought).
The client talks to it through the protocol, as to any server: it imports nothing of
the server.

The AI worker needs a moment to start; :meth:`LocalServer.wait_for_ai` asks the
server's ``/metrics`` until a worker is connected, so the client can wait for it
before it asks for an AI seat.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import re
import sys

AI_START_TIMEOUT_S = 30.0
SERVER_START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 5.0
LISTENING = re.compile(rb"listening on port (\d+)")
AI_WORKERS = re.compile(rb"^gomoku_ai_workers (\d+)", re.MULTILINE)


class LocalServerError(Exception):
    """The local server did not start; the message says why, in its own words."""


class LocalServer:
    """A ``gomoku-server`` child process on 127.0.0.1 with one local AI worker."""

    def __init__(self, process: asyncio.subprocess.Process, port: int) -> None:
        self.process = process
        self.port = port
        self._said: collections.deque[str] = collections.deque(maxlen=5)
        self._drains = [
            asyncio.create_task(self._drain(stream))
            for stream in (process.stdout, process.stderr)
            if stream is not None
        ]

    async def _drain(self, stream: asyncio.StreamReader) -> None:
        """Read what the server (and its worker) print, so that a full pipe never
        holds them up; the last lines are kept for an error message."""
        async for line in stream:
            self._said.append(line.decode(errors="replace").rstrip())

    async def ai_workers(self) -> int:
        """How many AI workers the server has now (its ``gomoku_ai_workers`` gauge)."""
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        try:
            writer.write(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            found = AI_WORKERS.search(await reader.read())
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
        return int(found[1]) if found else 0

    async def wait_for_ai(self, timeout_s: float = AI_START_TIMEOUT_S) -> bool:
        """True once the local AI worker has registered (False after ``timeout_s``)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while True:
            with contextlib.suppress(OSError):
                if await self.ai_workers() > 0:
                    return True
            if loop.time() >= deadline or self.process.returncode is not None:
                return False
            await asyncio.sleep(0.1)

    async def stop(self) -> None:
        """Stop the server (and with it its worker), and wait until it has gone."""
        process = self.process
        if process.stdin is not None:
            process.stdin.close()  # --stop-on-eof: the server stops at the end of its input
        try:
            await asyncio.wait_for(process.wait(), STOP_TIMEOUT_S)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
        for drain in self._drains:
            with contextlib.suppress(asyncio.CancelledError):
                await drain


async def start_local_server(*, ai: bool = True) -> LocalServer:
    """A running ``gomoku-server`` on 127.0.0.1 with a free port that keeps nothing;
    with ``ai``, it also starts its local AI worker (ready a moment later). Raises
    :class:`LocalServerError` if it does not start."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-P",  # not a ``server`` package in the current directory (python -m looks there first)
        "-m",
        "server",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--ephemeral",
        "--bots",
        "1" if ai else "0",
        "--stop-on-eof",
        "--processes",  # one process and no drain, whatever GOMOKU_PROCESSES and
        "1",  # GOMOKU_DRAIN say: nobody else serves this client's players
        "--drain",
        "0",
        "--untimed-move-limit",  # a family's "no clock" means no limit at all: nobody
        "0",  # else waits for the AI, and a grandparent's long think lost on time
        "--log-level",
        "WARNING",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    said: list[str] = []
    try:
        async with asyncio.timeout(SERVER_START_TIMEOUT_S):
            async for line in process.stdout:
                listening = LISTENING.search(line)
                if listening is not None:
                    return LocalServer(process, int(listening[1]))
                said.append(line.decode(errors="replace").rstrip())
    except TimeoutError:
        said.append(f"no answer within {SERVER_START_TIMEOUT_S:.0f} s")
    if process.stdin is not None:
        process.stdin.close()
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    errors = await process.stderr.read() if process.stderr is not None else b""
    await process.wait()
    said.extend(errors.decode(errors="replace").splitlines())
    raise LocalServerError(said[-1] if said else f"it exited with status {process.returncode}")
