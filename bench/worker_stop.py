"""How long ``gomoku-ai`` takes to stop on SIGTERM, whatever it is doing.

README says a worker stops "within a second or so whatever it is doing: searches
still running are cut short and reconnect waits abandoned". The tests check that a
stop cuts those short (tests/test_worker_robustness.py); this prints how long it
takes, over ``--rounds`` runs of each case:

* mid-search: a worker playing an AI-vs-AI game at ``master`` with a 60-second
  budget per move, SIGTERM half a second into a search;
* waiting to reconnect: the server gone, the worker (and its seat) sitting out its
  back-off (0.2 s doubling to 5 s), SIGTERM a second later.

Each figure is from the signal to the process's exit. A server runs in this process
on a free 127.0.0.1 port; the worker is a ``python -m worker`` process.

Run: ``.venv/bin/python bench/worker_stop.py [--rounds N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import signal
import statistics
import time

from harness import BOT_KEY, worker_process
from websockets.asyncio.client import connect as ws_connect

from protocol import messages as m
from protocol.codec import decode_server, encode
from protocol.events import Moved
from protocol.limits import MAX_SERVER_FRAME
from server.app import GomokuServer
from server.config import ServerConfig


async def _server(port: int = 0) -> GomokuServer:
    config = ServerConfig(host="127.0.0.1", port=port, bot_keys=frozenset({BOT_KEY}))
    server = GomokuServer(config)
    await server.start()
    return server


async def _worker(server: GomokuServer, *args: str) -> asyncio.subprocess.Process:
    process = await worker_process(server.port, "--seats", "2", "--processes", "1", *args)
    for _ in range(1200):  # the worker process starts its pool, then registers
        if server.bots.live_workers():
            return process
        await asyncio.sleep(0.05)
    raise SystemExit("the worker did not register within a minute")


async def _stop(process: asyncio.subprocess.Process) -> float:
    """Seconds from SIGTERM to the process's exit."""
    started = time.perf_counter()
    process.send_signal(signal.SIGTERM)
    await process.wait()
    return time.perf_counter() - started


async def mid_search() -> float:
    server = await _server()
    try:
        worker = await _worker(server, "--move-time", "60", "--pace", "0")
        url = f"ws://127.0.0.1:{server.port}/"
        async with ws_connect(url, compression=None, max_size=MAX_SERVER_FRAME) as ws:
            await ws.send(encode(m.Hello(name="bench", id=0)))
            await ws.recv()
            await ws.send(encode(m.CreateAiGame(black="master", white="master", id=1)))
            while True:  # the first stone is down: the next search has a minute
                message = decode_server(await ws.recv())
                if isinstance(message, m.Event) and isinstance(message.event, Moved):
                    break
            await asyncio.sleep(0.5)
            return await _stop(worker)
    finally:
        await server.stop()


async def waiting_to_reconnect() -> float:
    server = await _server()
    worker = await _worker(server, "--pace", "0")
    url = f"ws://127.0.0.1:{server.port}/"
    async with ws_connect(url, compression=None, max_size=MAX_SERVER_FRAME) as ws:
        await ws.send(encode(m.Hello(name="bench", id=0)))
        await ws.recv()
        await ws.send(encode(m.CreateRoom(seat="black", id=1)))
        room = decode_server(await ws.recv())
        assert isinstance(room, m.Snapshot)
        await ws.send(encode(m.SeatAi(room=room.room.id, level="novice", id=2)))
        await asyncio.sleep(1.0)  # the AI sits down: the worker and a seat are connected
    await server.stop()  # both wait to reconnect now (a back-off of up to 5 s each time)
    await asyncio.sleep(1.0)
    return await _stop(worker)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=5, help="runs of each case (5)")
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    for name, case in (("mid-search", mid_search), ("waiting to reconnect", waiting_to_reconnect)):
        times = [asyncio.run(case()) for _ in range(args.rounds)]
        print(
            f"SIGTERM to exit, {name}: median {statistics.median(times):.2f} s, "
            f"max {max(times):.2f} s over {args.rounds} runs"
        )


if __name__ == "__main__":
    main()
