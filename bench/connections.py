"""Idle connections: hold N connected players (hello done, watching the lobby) in
one server process; print the server's memory per connection and the time one
lobby update takes to reach all of them.

Run: ``.venv/bin/python bench/connections.py [--connections 10000] [--client-processes 4]``.

The server runs in its own process (memory store, no AI workers, no per-address
limit since every client comes from 127.0.0.1, ``--max-connections`` above N).
Memory per connection is the growth of the server's resident memory (RSS) from
a warm start (``--warm`` connections already open, so imports and first-use
allocations are not counted) to all N open, divided by the connections added.
Then one more client creates a public room: every watcher gets one
``lobby_room`` message, and the bench reports when the first, the median, the
99th percentile and the last watcher had it, counted from the moment the
``create_room`` was sent (the clients' own processing is included: their
processes share the CPU with the server). Target: <= 20 KiB per connection.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import multiprocessing.synchronize
import time
from typing import Any

from harness import environment, gomoku_server, percentile, raise_open_files, record
from websockets.asyncio.client import ClientConnection, connect

from protocol import messages as m
from protocol.codec import decode_server, encode

TARGET_KIB = 20.0


async def open_watcher(url: str, name: str) -> ClientConnection:
    ws = await connect(url, compression=None, max_size=1 << 22, ping_interval=None)
    await ws.send(encode(m.Hello(name=name)))
    while not isinstance(decode_server(await ws.recv()), m.Welcome):
        pass
    await ws.send(encode(m.LobbyWatch(on=True)))
    while not isinstance(decode_server(await ws.recv()), m.Lobby):
        pass
    return ws


async def first_lobby_room(ws: ClientConnection) -> float:
    """When this watcher received its first ``lobby_room`` (time.time())."""
    while True:
        message = decode_server(await ws.recv())
        if isinstance(message, m.LobbyRoom):
            return time.time()


def watchers(
    url: str,
    first: int,
    count: int,
    batch: int,
    opened: Any,
    go: multiprocessing.synchronize.Event,
    done: multiprocessing.synchronize.Event,
    results: Any,
) -> None:
    """A client process: open ``count`` watchers after ``go``, report, then wait for the
    lobby update on all of them and report when each got it."""
    raise_open_files()

    async def run() -> None:
        await asyncio.to_thread(go.wait)
        conns: list[ClientConnection] = []
        for start in range(0, count, batch):
            size = min(batch, count - start)
            conns += await asyncio.gather(
                *(open_watcher(url, f"w{first + start + i}") for i in range(size))
            )
        opened.put(len(conns))
        times = await asyncio.gather(*(first_lobby_room(ws) for ws in conns))
        results.put(list(times))
        await asyncio.to_thread(done.wait)
        for ws in conns:
            ws.transport.abort()

    asyncio.run(run())


async def create_public_room(url: str) -> float:
    """Open one more client and create a public room; when the request was sent."""
    ws = await connect(url, compression=None, max_size=1 << 22)
    await ws.send(encode(m.Hello(name="host")))
    await ws.recv()
    sent = time.time()
    await ws.send(encode(m.CreateRoom()))
    await ws.recv()
    await ws.close()
    return sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--connections", type=int, default=10_000, help="(10000)")
    parser.add_argument("--warm", type=int, default=200, help="open before the baseline (200)")
    parser.add_argument("--client-processes", type=int, default=4, help="(4)")
    parser.add_argument("--batch", type=int, default=100, help="handshakes at once (100)")
    args = parser.parse_args()
    raise_open_files()
    head = [
        *environment(),
        f"connections: {args.connections} idle players (hello + lobby_watch) in one server "
        f"process, clients in {args.client_processes} processes",
    ]
    print("\n".join(head), flush=True)
    extra = ["--max-connections", str(args.connections + args.warm + 100)]
    with gomoku_server(extra, open_files=args.connections + args.warm + 1000) as server:
        ctx = multiprocessing.get_context("spawn")
        opened: Any = ctx.Queue()
        results: Any = ctx.Queue()
        done = ctx.Event()
        plan = [(0, args.warm)]
        per = args.connections // args.client_processes
        for i in range(args.client_processes):
            count = per if i < args.client_processes - 1 else args.connections - per * i
            plan.append((args.warm + per * i, count))
        gos = [ctx.Event() for _ in plan]
        processes = [
            ctx.Process(
                target=watchers,
                args=(server.url, first, count, args.batch, opened, go, done, results),
            )
            for (first, count), go in zip(plan, gos, strict=True)
        ]
        for proc in processes:
            proc.start()
        gos[0].set()  # the warm-up connections first
        opened.get(timeout=300)
        time.sleep(2.0)
        base = server.rss_kib()
        started = time.monotonic()
        for go in gos[1:]:
            go.set()
        held = sum(opened.get(timeout=900) for _ in plan[1:])
        took = time.monotonic() - started
        time.sleep(3.0)  # let the server settle (handshake buffers freed)
        after = server.rss_kib()
        total = server.metrics().get("gomoku_connections", 0)
        per_conn = (after - base) / held
        sent = asyncio.run(create_public_room(server.url))
        times: list[float] = []
        for _ in processes:
            times.extend(results.get(timeout=300))
        done.set()
        for proc in processes:
            proc.join(60)
        errors = server.errors_logged()
    delays = [t - sent for t in times]
    lines = [
        *head,
        f"opened {held} connections (+{args.warm} warm-up) in {took:.1f} s; "
        f"the server reported {total} open",
        f"server RSS {base / 1024:.1f} MiB -> {after / 1024:.1f} MiB: "
        f"{per_conn:.1f} KiB per connection (target <= {TARGET_KIB:g} KiB): "
        f"{'met' if per_conn <= TARGET_KIB else 'NOT met'}",
        f"one lobby update reached {len(delays)} watchers: first after "
        f"{min(delays) * 1000:.0f} ms, median {percentile(delays, 50) * 1000:.0f} ms, "
        f"p99 {percentile(delays, 99) * 1000:.0f} ms, all of them after "
        f"{max(delays) * 1000:.0f} ms",
    ]
    if errors:
        lines.append(f"server errors logged: {errors[:500]}")
    print("\n".join(lines[len(head) :]))
    record("connections", lines)


if __name__ == "__main__":
    main()
