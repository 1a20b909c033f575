"""A bare WebSocket relay: the ceiling of this stack for ``bench/load.py``.

Each connection's path names a pair (``ws://127.0.0.1:P/pair-17``); every binary
frame one side sends is written to both sides of its pair, unread and
unchecked. No protocol, no validation, no store: only what ``websockets`` itself
costs, with the same settings as the server (no compression, 4 KiB frames, the same
garbage collector set-up, and the same event loop: uvloop where it is installed, as
``gomoku-server --loop auto``).

Run: ``.venv/bin/python bench/relay.py [--port P]``; prints ``relay listening on
port P`` once it serves, and stops on SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import signal

from websockets.asyncio.server import ServerConnection, broadcast, serve

from protocol.limits import MAX_CLIENT_FRAME
from server.serve import run_loop, tune_gc
from stopsignals import StopSignals


async def relay(port: int) -> None:
    pairs: dict[str, list[ServerConnection]] = collections.defaultdict(list)

    async def handle(ws: ServerConnection) -> None:
        assert ws.request is not None
        pair = pairs[ws.request.path]
        pair.append(ws)
        try:
            async for frame in ws:
                broadcast(pair, frame)  # a synchronous write to both sides, as the server does
        finally:
            pair.remove(ws)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    async with serve(
        handle, "127.0.0.1", port, compression=None, max_size=MAX_CLIENT_FRAME, max_queue=16
    ) as server:
        tune_gc()  # as gomoku-server does once started
        bound = next(iter(server.sockets)).getsockname()[1]
        print(f"relay listening on port {bound}", flush=True)
        await stop.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    run_loop(relay(parser.parse_args().port), "auto", StopSignals())


if __name__ == "__main__":
    main()
