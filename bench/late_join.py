"""Late spectators: a long game with chat, then N spectators join it; what each join costs.

Run: ``.venv/bin/python bench/late_join.py [--spectators 300] [--moves 200]
[--chat-every 3] [--concurrency 10]``.

One server on Redis (a throw-away ``redis-server``). Two players (in this process) play
``--moves`` stones of a quiet 19x19 game, one after the other, while spectators who
joined for it say a chat line every ``--chat-every`` moves (each chatter says at most
the server's chat limit, 5 lines, so there are several). Then ``--spectators`` new
spectators, connected beforehand, join the room, ``--concurrency`` at a time. Each
join is answered by a snapshot carrying the room's last 30 chat lines. The bench
prints the server's CPU time per join (and Redis's), the join latency (from sending
``join`` to receiving the snapshot) p50 and p99, the Redis commands per join, and
whether every snapshot held the last 30 lines said, and writes them to its section of
bench/RESULTS.md. The server's CPU time is read from /proc in 10 ms ticks (with 300
joins, about 0.03 ms per join). The spectators share the machine's cores with the
server.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from harness import (
    environment,
    gomoku_server,
    percentile,
    raise_open_files,
    record,
    redis_cpu_seconds,
    redis_info,
    redis_server,
)
from load import quiet_sequence
from spectators import hello
from websockets.asyncio.client import ClientConnection

from protocol import events as ev
from protocol import messages as m
from protocol.codec import decode_server, encode
from protocol.limits import CHAT_HISTORY, CHAT_PER_WINDOW

SIZE = 19


@dataclass
class Client:
    """A connection whose frames a task reads as they come: snapshots and moves are
    handed to whoever waits for them, errors are counted."""

    ws: ClientConnection
    snapshots: asyncio.Queue[tuple[float, m.Snapshot]] = field(default_factory=asyncio.Queue)
    moves: asyncio.Queue[int] = field(default_factory=asyncio.Queue)
    errors: list[str] = field(default_factory=list)
    reader: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for frame in self.ws:
            message = decode_server(frame)
            if isinstance(message, m.Snapshot):
                self.snapshots.put_nowait((time.perf_counter(), message))
            elif isinstance(message, m.Event) and isinstance(message.event, ev.Moved):
                self.moves.put_nowait(message.event.move_no)
            elif isinstance(message, m.Error):
                self.errors.append(message.code)

    async def close(self) -> None:
        await self.ws.close()
        if self.reader is not None:
            await asyncio.gather(self.reader, return_exceptions=True)


async def connected(url: str, name: str) -> Client:
    client = Client(await hello(url, name))
    client.start()
    return client


async def join(
    client: Client, room: str, role: Literal["player", "spectator"] = "spectator"
) -> tuple[float, m.Snapshot]:
    """Join ``room`` (as a spectator): the seconds until the snapshot, and the snapshot."""
    start = time.perf_counter()
    await client.ws.send(encode(m.Join(room=room, role=role)))
    received, snapshot = await asyncio.wait_for(client.snapshots.get(), 60)
    return received - start, snapshot


async def play_with_chat(
    url: str, moves: int, chat_every: int
) -> tuple[str, list[str], list[Client]]:
    """The game: its room, the chat lines said in order, and every connection in it."""
    black, white = await connected(url, "black"), await connected(url, "white")
    await black.ws.send(encode(m.CreateRoom(size=SIZE, seat="black")))
    _, created = await asyncio.wait_for(black.snapshots.get(), 30)
    room = created.room.id
    await join(white, room, role="player")
    lines = moves // chat_every
    chatters = [await connected(url, f"chatter{i}") for i in range(-(-lines // CHAT_PER_WINDOW))]
    for chatter in chatters:
        await join(chatter, room)
    said: list[str] = []
    for i, point in enumerate(quiet_sequence(moves, size=SIZE)):
        mover = black if i % 2 == 0 else white
        await mover.ws.send(encode(m.Move(room=room, point=point)))
        while await asyncio.wait_for(mover.moves.get(), 30) != i + 1:
            pass
        if (i + 1) % chat_every == 0 and len(said) < lines:
            text = f"line {len(said) + 1} after move {i + 1}"
            await chatters[len(said) % len(chatters)].ws.send(encode(m.Chat(room=room, text=text)))
            said.append(text)
    return room, said, [black, white, *chatters]


async def run(url: str, args: argparse.Namespace, cpu: CpuMeter) -> list[str]:
    room, said, players = await play_with_chat(url, args.moves, args.chat_every)
    late = [await connected(url, f"late{i}") for i in range(args.spectators)]
    await asyncio.sleep(2.0)  # the last chat lines and spectator counts delivered
    cpu.start()
    latencies: list[float] = []
    snapshots: list[m.Snapshot] = []
    for first in range(0, len(late), args.concurrency):
        wave = late[first : first + args.concurrency]
        for latency, snapshot in await asyncio.gather(*(join(c, room) for c in wave)):
            latencies.append(latency)
            snapshots.append(snapshot)
    server_s, redis_s, calls = cpu.stop()
    expected = said[-CHAT_HISTORY:]
    right = sum(1 for s in snapshots if [line.text for line in s.room.chat] == expected)
    errors = sorted({code for c in [*players, *late] for code in c.errors})
    for client in [*players, *late]:
        await client.close()
    joins = len(latencies)
    return [
        f"game: {args.moves} moves on {SIZE}x{SIZE}, {len(said)} chat lines (one every "
        f"{args.chat_every} moves) by {len(players) - 2} chatting spectators; log ends at "
        f"seq {snapshots[-1].room.seq}",
        f"{joins} late spectators joined, {args.concurrency} at a time: server CPU "
        f"{server_s / joins * 1000:.3f} ms per join, redis CPU {redis_s / joins * 1000:.3f} ms "
        f"per join; join latency p50 {percentile(latencies, 50) * 1000:.2f} ms, p99 "
        f"{percentile(latencies, 99) * 1000:.2f} ms",
        f"redis commands per join: {calls.total() / joins:.1f} ("
        + ", ".join(f"{name} {n / joins:.1f}" for name, n in calls.most_common() if n >= joins / 10)
        + ")",
        f"snapshots holding the last {CHAT_HISTORY} chat lines said, oldest first: "
        f"{right} of {joins}; errors: {', '.join(errors) or 'none'}",
    ]


class CpuMeter:
    """What the server and redis-server do between start() and stop(): their CPU time,
    and the commands Redis ran (by name)."""

    def __init__(self, server_cpu: Callable[[], float], redis_url: str) -> None:
        self._server = server_cpu
        self._redis_url = redis_url
        self._at: tuple[float, float, Counter[str]] = (0.0, 0.0, Counter())

    def _now(self) -> tuple[float, float, Counter[str]]:
        url = self._redis_url
        return self._server(), redis_cpu_seconds(url), redis_calls(url)

    def start(self) -> None:
        self._at = self._now()

    def stop(self) -> tuple[float, float, Counter[str]]:
        server, redis, calls = self._now()
        return server - self._at[0], redis - self._at[1], calls - self._at[2]


def redis_calls(url: str) -> Counter[str]:
    """How many times redis-server ran each command so far (INFO commandstats)."""
    found = re.findall(r"cmdstat_([\w|]+):calls=(\d+)", redis_info(url, "commandstats"))
    return Counter({name: int(calls) for name, calls in found})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--spectators", type=int, default=300, help="(300)")
    parser.add_argument("--moves", type=int, default=200, help="(200)")
    parser.add_argument("--chat-every", type=int, default=3, help="moves (3)")
    parser.add_argument("--concurrency", type=int, default=10, help="joins at a time (10)")
    args = parser.parse_args()
    raise_open_files()
    head = environment()
    print("\n".join(head), flush=True)
    with redis_server() as url, gomoku_server(["--redis", url]) as server:
        lines = asyncio.run(run(server.url, args, CpuMeter(server.cpu_seconds, url)))
        errors = server.errors_logged()
    if errors:
        lines.append(f"server errors logged: {errors[:500]}")
    print("\n".join(lines))
    record("late_join", [*head, *lines])


if __name__ == "__main__":
    main()
