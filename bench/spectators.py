"""Spectators: one game watched by N spectators; how long each move takes to reach them.

Run: ``.venv/bin/python bench/spectators.py [--spectators 1000] [--moves 60] [--interval-ms 100]``.

Two players (in this process) play a quiet 15x15 game, one move every
``--interval-ms``, while N spectators (in ``--client-processes`` processes) watch.
A delivery's latency is the time from the mover sending the move to a spectator
receiving its ``moved`` event (wall clock, one machine); the bench prints p50 and
p99 over every delivery, and per move the time until the last spectator had it.
The spectators' processes share the 2 cores with the server, so their own
reading is part of the figure. Target: p99 <= 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import multiprocessing.synchronize
import time
from typing import Any

from harness import environment, gomoku_server, percentile, raise_open_files, record
from load import quiet_sequence
from websockets.asyncio.client import ClientConnection, connect

from protocol import events as ev
from protocol import messages as m
from protocol.codec import decode_server, encode

TARGET_P99_MS = 50.0


async def hello(url: str, name: str) -> ClientConnection:
    ws = await connect(url, compression=None, max_size=1 << 22, ping_interval=None)
    await ws.send(encode(m.Hello(name=name)))
    while not isinstance(decode_server(await ws.recv()), m.Welcome):
        pass
    return ws


async def spectate(url: str, room: str, name: str, moves: int, joined: Any) -> list[float]:
    """Join as a spectator; the receipt time of each ``moved`` (index: move_no - 1)."""
    ws = await hello(url, name)
    await ws.send(encode(m.Join(room=room, role="spectator")))
    while not isinstance(decode_server(await ws.recv()), m.Snapshot):
        pass
    joined()
    seen = [0.0] * moves
    got = 0
    while got < moves:
        message = decode_server(await ws.recv())
        if isinstance(message, m.Event) and isinstance(message.event, ev.Moved):
            seen[message.event.move_no - 1] = time.time()
            got += 1
    await ws.close()
    return seen


def spectators(
    url: str, room: str, first: int, count: int, moves: int, ready: Any, results: Any
) -> None:
    """A client process of ``count`` spectators; reports each one's receipt times."""
    raise_open_files()

    async def run() -> None:
        left = count

        def joined() -> None:
            nonlocal left
            left -= 1
            if left == 0:
                ready.put(count)

        tasks = []
        for start in range(0, count, 50):  # join in batches: handshakes are not free
            batch = [
                asyncio.create_task(spectate(url, room, f"s{first + i}", moves, joined))
                for i in range(start, min(count, start + 50))
            ]
            tasks += batch
            await asyncio.sleep(0.05)
        results.put(await asyncio.gather(*tasks))

    asyncio.run(run())


async def players(url: str) -> tuple[ClientConnection, ClientConnection, str]:
    black, white = await hello(url, "black"), await hello(url, "white")
    await black.send(encode(m.CreateRoom(seat="black")))
    snap = decode_server(await black.recv())
    assert isinstance(snap, m.Snapshot)
    await white.send(encode(m.Join(room=snap.room.id)))
    return black, white, snap.room.id


async def play(
    black: ClientConnection, white: ClientConnection, room: str, sequence: list[str], gap: float
) -> list[float]:
    """Play the moves one every ``gap`` seconds; when each was sent."""
    sent: list[float] = []

    async def drain(ws: ClientConnection) -> None:
        async for _ in ws:
            pass

    readers = [asyncio.create_task(drain(ws)) for ws in (black, white)]
    for i, point in enumerate(sequence):
        mover = black if i % 2 == 0 else white
        sent.append(time.time())
        await mover.send(encode(m.Move(room=room, point=point)))
        await asyncio.sleep(gap)
    for task in readers:
        task.cancel()
    return sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--spectators", type=int, default=1000, help="(1000)")
    parser.add_argument("--moves", type=int, default=60, help="(60)")
    parser.add_argument("--interval-ms", type=float, default=100.0, help="between moves (100)")
    parser.add_argument("--client-processes", type=int, default=2, help="(2)")
    args = parser.parse_args()
    raise_open_files()
    head = [
        *environment(),
        f"spectators: one game watched by {args.spectators} spectators in "
        f"{args.client_processes} processes, {args.moves} moves one every "
        f"{args.interval_ms:g} ms",
    ]
    print("\n".join(head), flush=True)
    sequence = quiet_sequence(args.moves)
    with gomoku_server(open_files=args.spectators + 1000) as server:
        loop = asyncio.new_event_loop()
        black, white, room = loop.run_until_complete(players(server.url))
        ctx = multiprocessing.get_context("spawn")
        ready: Any = ctx.Queue()
        results: Any = ctx.Queue()
        per = args.spectators // args.client_processes
        processes = []
        for i in range(args.client_processes):
            count = per if i < args.client_processes - 1 else args.spectators - per * i
            proc = ctx.Process(
                target=spectators,
                args=(server.url, room, per * i, count, args.moves, ready, results),
            )
            proc.start()
            processes.append(proc)
        started = time.monotonic()
        for _ in processes:
            ready.get(timeout=600)
        joined_in = time.monotonic() - started
        # Every join told everyone in the room the new spectator count: let that settle.
        settle_until = time.monotonic() + 60
        while time.monotonic() < settle_until and loop.run_until_complete(quiet(black, white)):
            pass
        sent = loop.run_until_complete(play(black, white, room, sequence, args.interval_ms / 1000))
        received: list[list[float]] = []
        for _ in processes:
            received.extend(results.get(timeout=600))
        for proc in processes:
            proc.join(60)
        loop.run_until_complete(black.close())
        loop.run_until_complete(white.close())
        loop.close()
        errors = server.errors_logged()
    deliveries = [seen[i] - sent[i] for seen in received for i in range(args.moves)]
    last = [max(seen[i] for seen in received) - sent[i] for i in range(args.moves)]
    p99 = percentile(deliveries, 99) * 1000
    lines = [
        *head,
        f"{len(received)} spectators joined in {joined_in:.1f} s",
        f"move delivery to spectators ({len(deliveries)} deliveries): "
        f"p50 {percentile(deliveries, 50) * 1000:.1f} ms, p99 {p99:.1f} ms "
        f"(target p99 <= {TARGET_P99_MS:g} ms): {'met' if p99 <= TARGET_P99_MS else 'NOT met'}",
        f"until the last spectator had a move: p50 {percentile(last, 50) * 1000:.1f} ms, "
        f"p99 {percentile(last, 99) * 1000:.1f} ms, max {max(last) * 1000:.1f} ms",
    ]
    if errors:
        lines.append(f"server errors logged: {errors[:500]}")
    print("\n".join(lines[len(head) :]))
    record("spectators", lines)


async def quiet(black: ClientConnection, white: ClientConnection) -> bool:
    """Read what the players were sent; True while frames keep coming."""
    busy = False
    for ws in (black, white):
        try:
            while True:
                await asyncio.wait_for(ws.recv(), 0.5)
                busy = True
        except TimeoutError:
            pass
    return busy


if __name__ == "__main__":
    main()
