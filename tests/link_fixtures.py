"""A slow link for tests: a TCP proxy on 127.0.0.1 that holds the server's bytes back,
as a server a long way away would."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float) -> None:
    """Copy ``reader`` to ``writer``, each chunk ``delay`` seconds after it came, in order."""
    chunks: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
    loop = asyncio.get_running_loop()

    async def deliver() -> None:
        while True:
            due, chunk = await chunks.get()
            await asyncio.sleep(max(0.0, due - loop.time()))
            if not chunk:
                writer.close()
                return
            writer.write(chunk)
            await writer.drain()

    delivering = asyncio.create_task(deliver())
    try:
        while True:
            chunk = await reader.read(65536)
            chunks.put_nowait((loop.time() + delay, chunk))
            if not chunk:
                break
        await delivering
    finally:
        delivering.cancel()


@contextlib.asynccontextmanager
async def slow_link(port: int, delay: float) -> AsyncIterator[int]:
    """A TCP proxy to ``port`` on 127.0.0.1 that delays what the server sends by
    ``delay`` seconds (a long way away); yields the proxy's port."""
    tasks: set[asyncio.Task[None]] = set()

    async def serve(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        writers = [client_w]
        try:
            with contextlib.suppress(ConnectionError, asyncio.CancelledError):
                server_r, server_w = await asyncio.open_connection("127.0.0.1", port)
                writers.append(server_w)
                await asyncio.gather(
                    _pump(client_r, server_w, 0.0), _pump(server_r, client_w, delay)
                )
        finally:
            # Closed here too: a proxy torn down while bytes were held back (or while it
            # was still connecting) left sockets open, and their warnings failed
            # whichever test ran when they were collected.
            for writer in writers:
                writer.close()

    def started(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        task = asyncio.create_task(serve(client_r, client_w))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    proxy = await asyncio.start_server(started, "127.0.0.1", 0)
    try:
        yield proxy.sockets[0].getsockname()[1]
    finally:
        proxy.close()
        for task in list(tasks):
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
