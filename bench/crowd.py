"""A crowd in one room: do chatting spectators make the players' moves fail or wait?

Run: ``.venv/bin/python bench/crowd.py [--spectators 50] [--moves 400]
[--targets memory,redis,redis2]``.

One game on 26x26 (a legal sequence of spread-out stones in which nobody makes five),
watched by ``--spectators`` spectators who each chat at the flood-control limit (one
line every 2 s: 5 lines per 10 s, the server's chat limit, each spectator starting at
its own moment). Both players move as fast as they are allowed: each sends its next
stone as soon as the opponent's has arrived, and no faster than the server's message
rate limit (20 per second, bursts of 40; the server keeps it here at its default), with
the margin the project's AI worker keeps (80%: 16 per second, bursts of 32), since the
network and the server's scheduling can bring two sends closer together than they left.
Targets: ``memory`` (one server, the embedded store), ``redis`` (one server on Redis)
and ``redis2`` (two servers on one Redis: Black and half the spectators on one, White
and the other half on the other). A move's latency is from its sending to the mover
receiving its own ``moved`` event. The bench prints moves attempted, accepted and
failed by error code, the move p50/p99, the chat lines sent and refused, and what the
servers logged as errors. Target: 0 failed moves.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import dataclasses
import random
import time
from collections.abc import Iterator

from harness import ServerProcess, environment, percentile, raise_open_files, record, redis_server
from load import quiet_sequence
from spectators import hello

from protocol import events as ev
from protocol import messages as m
from protocol.codec import decode_server, encode
from protocol.limits import CHAT_PER_WINDOW, CHAT_WINDOW_MS, RATE_BURST, RATE_PER_S
from protocol.values import Limits
from worker.pacer import SHARE, SendPacer

SIZE = 26
CHAT_EVERY_S = CHAT_WINDOW_MS / 1000 / CHAT_PER_WINDOW
DEFAULT_RATES = ["--rate-limit", str(RATE_PER_S), "--rate-burst", str(RATE_BURST)]
"""The server's own message rate limit (the harness lifts it for capacity benches)."""


@dataclasses.dataclass
class Outcome:
    name: str
    attempted: int = 0
    accepted: int = 0
    failed: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    latencies: list[float] = dataclasses.field(default_factory=list)
    chats_sent: int = 0
    crowd_refused: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    """Spectators' chat lines (by error code) and joins ("join CODE") refused."""
    seconds: float = 0.0
    logged: str = ""

    def line(self) -> str:
        failed = sum(self.failed.values())
        refused = sum(self.crowd_refused.values())
        return (
            f"{self.name}: moves attempted {self.attempted}, accepted {self.accepted}, "
            f"failed {failed} (by code: {_codes(self.failed)}); move p50 "
            f"{percentile(self.latencies, 50) * 1000:.2f} ms, p99 "
            f"{percentile(self.latencies, 99) * 1000:.2f} ms; "
            f"{self.accepted / self.seconds:.1f} moves/s; chat lines sent {self.chats_sent}; "
            f"spectators' requests refused {refused} (by code: {_codes(self.crowd_refused)})"
        )


def _codes(counts: collections.Counter[str]) -> str:
    return ", ".join(f"{code} {n}" for code, n in sorted(counts.items())) or "none"


async def spectate(url: str, room: str, name: str, done: asyncio.Event, out: Outcome) -> None:
    """Watch the room and chat one line every CHAT_EVERY_S (from a random moment on)."""
    ws = await hello(url, name)
    await ws.send(encode(m.Join(room=room, role="spectator")))
    while not isinstance(message := decode_server(await ws.recv()), m.Snapshot):
        if isinstance(message, m.Error):  # a refused join is a finding: count it
            out.crowd_refused[f"join {message.code}"] += 1
            await ws.close()
            return

    async def read() -> None:
        async for frame in ws:
            message = decode_server(frame)
            if isinstance(message, m.Error):
                out.crowd_refused[message.code] += 1

    reader = asyncio.create_task(read())
    try:
        await asyncio.sleep(random.uniform(0, CHAT_EVERY_S))
        line = 0
        while not done.is_set():
            line += 1
            out.chats_sent += 1
            await ws.send(encode(m.Chat(room=room, text=f"{name} says {line}", id=line)))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), CHAT_EVERY_S * 1.05)  # a hair over
    finally:
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
        await ws.close()


async def play(urls: tuple[str, str], moves: list[str], crowd: list[str], out: Outcome) -> None:
    """Black on the first URL, White on the second, the crowd on both in turn; play
    ``moves`` as fast as allowed while the crowd chats."""
    # Every message a player sends counts in the server's bucket: hello, create, join.
    pacers = [SendPacer.within(Limits()), SendPacer.within(Limits())]
    for pacer in pacers:
        await pacer.wait()
    black, white = await hello(urls[0], "black"), await hello(urls[1], "white")
    for pacer in pacers:
        await pacer.wait()
    await black.send(encode(m.CreateRoom(seat="black", size=SIZE)))
    snap = decode_server(await black.recv())
    assert isinstance(snap, m.Snapshot)
    room = snap.room.id
    await white.send(encode(m.Join(room=room)))
    done = asyncio.Event()
    watchers = [
        asyncio.create_task(spectate(urls[i % 2], room, name, done, out))
        for i, name in enumerate(crowd)
    ]
    await asyncio.sleep(CHAT_EVERY_S + 0.5)  # everyone in and chatting before the game
    started = time.monotonic()
    try:
        for i, point in enumerate(moves):
            mover = black if i % 2 == 0 else white
            await pacers[i % 2].wait()
            out.attempted += 1
            sent = time.monotonic()
            await mover.send(encode(m.Move(room=room, point=point, id=i)))
            while True:
                try:
                    message = decode_server(await asyncio.wait_for(mover.recv(), 30))
                except TimeoutError:
                    out.failed["no reply in 30 s"] += 1
                    break
                if isinstance(message, m.Error):
                    out.failed[message.code] += 1
                    break
                event = message.event if isinstance(message, m.Event) else None
                if isinstance(event, ev.Moved) and event.point == point:
                    out.accepted += 1
                    out.latencies.append(time.monotonic() - sent)
                    break
            if out.failed:
                break  # a failed move leaves the game out of step: stop and report it
    finally:
        out.seconds = time.monotonic() - started
        done.set()
        await asyncio.gather(*watchers, return_exceptions=True)
        for ws in (black, white):
            await ws.close()


@contextlib.contextmanager
def servers(target: str) -> Iterator[list[ServerProcess]]:
    if target == "memory":
        started = [ServerProcess(DEFAULT_RATES)]
        try:
            yield started
        finally:
            started[0].stop()
        return
    with redis_server() as url:
        count = 2 if target == "redis2" else 1
        started = []
        try:
            for _ in range(count):
                started.append(ServerProcess([*DEFAULT_RATES, "--redis", url]))
            yield started
        finally:
            for server in started:
                server.stop()


NAMES = {"memory": "memory", "redis": "redis", "redis2": "redis, two instances"}


def measure(target: str, args: argparse.Namespace) -> Outcome:
    out = Outcome(NAMES[target])
    moves = quiet_sequence(args.moves, size=SIZE)
    crowd = [f"s{i}" for i in range(args.spectators)]
    with servers(target) as started:
        urls = (started[0].url, started[-1].url)
        asyncio.run(play(urls, moves, crowd, out))
        out.logged = "\n".join(s.errors_logged() for s in started).strip()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--spectators", type=int, default=50, help="(50)")
    parser.add_argument("--moves", type=int, default=400, help=f"on {SIZE}x{SIZE} (400)")
    parser.add_argument("--targets", default="memory,redis,redis2", help="(memory,redis,redis2)")
    args = parser.parse_args()
    raise_open_files()
    head = [
        *environment(),
        f"crowd: one {SIZE}x{SIZE} game of {args.moves} moves watched by {args.spectators} "
        f"spectators, each chatting at the chat limit (a line every {CHAT_EVERY_S:g} s); "
        f"both players moving as fast as the rate limit allows ({RATE_PER_S:g}/s, bursts "
        f"of {RATE_BURST}; paced at {SHARE:.0%} of it, as the AI worker does)",
    ]
    print("\n".join(head), flush=True)
    outcomes: list[Outcome] = []
    lines = list(head)
    for target in [t.strip() for t in args.targets.split(",") if t.strip()]:
        if target not in NAMES:
            raise SystemExit(f"unknown target {target}")
        outcome = measure(target, args)
        outcomes.append(outcome)
        lines.append(outcome.line())
        print(lines[-1], flush=True)
        if outcome.logged:
            lines.append(f"  server errors logged: {outcome.logged[:500]}")
            print(lines[-1], flush=True)
    failed = sum(sum(o.failed.values()) for o in outcomes)
    verdict = "met" if failed == 0 and all(not o.logged for o in outcomes) else "NOT met"
    lines.append(f"failed moves: {failed} (target 0, and no server error logged): {verdict}")
    print(lines[-1])
    record("crowd", lines)


if __name__ == "__main__":
    main()
