"""Kill -9 of a server instance under load: no acknowledged move lost, and how long the
games took to move again.

Run: ``.venv/bin/python bench/failover.py [--games 40] [--moves 100] [--kill-at 0.3]``.

Two ``gomoku-server --redis`` processes (A and B) share one redis-server. Each game
has Black on A and White on B, and both play as fast as the server answers (each
sends its move once it has seen the opponent's). Once ``--kill-at`` of all the moves
are in, A gets SIGKILL in the middle of the load; its players connect to B (as the balancer sends
them to the instance that is left), say hello with their token, resume their room
after the last event they saw and play on; a move that got no answer is sent again
(a duplicate is refused, never applied twice). Every ``moved`` event a player
received is an acknowledged move. At the end each game's log is read from B: every
acknowledged move must be in it at the number it was acknowledged with, and every
game must have reached its last move. Printed: the acknowledged moves lost (target
0), and per game the time from the kill to the first move of its Black (who was on A)
acknowledged to Black on B (the recovery time: reconnect, hello, resume, move), p50 and
max. (White, on B all along, may hear a move that A made just before it died a few ms
after the kill: that is not a recovery, and is not counted as one.)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import time
from collections.abc import Callable

from harness import environment, gomoku_server, percentile, raise_open_files, record, redis_server
from load import quiet_sequence
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from protocol import events as ev
from protocol import messages as m
from protocol.codec import decode_server, encode

RETRY_S = 1.0  # a move without an answer is sent again after this
SHRUGGED = {"not_your_turn", "occupied", "unavailable"}
"""Refusals a player shrugs off: a resent move that had landed, or a store hiccup."""


@dataclasses.dataclass
class Ledger:
    acked: dict[str, dict[int, str]] = dataclasses.field(default_factory=dict)
    """room -> move number -> point, from every ``moved`` event a player received."""
    problems: list[str] = dataclasses.field(default_factory=list)
    refusals: dict[str, int] = dataclasses.field(default_factory=dict)
    kill_at = 0
    """Once this many moves are acknowledged, ``kill_point`` is set."""
    kill_point: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)
    total = 0
    killed_at: float | None = None
    first_after_kill: dict[str, float] = dataclasses.field(default_factory=dict)
    """room -> when Black's first move after the kill was acknowledged."""

    def moved(self, room: str, move_no: int, point: str, *, recovered: bool = False) -> None:
        """A ``moved`` event a player received; ``recovered``: by a player of the killed
        instance, on its connection to the other."""
        seen = self.acked.setdefault(room, {})
        if move_no not in seen:
            self.total += 1
            if self.total >= self.kill_at:
                self.kill_point.set()
        if seen.setdefault(move_no, point) != point:
            self.problems.append(f"{room}: move {move_no} was {seen[move_no]}, then {point}")
        # Black's own move, as Black hears it again (White, on the other instance, may
        # hear a move the killed one made just before it died, a few ms after the kill).
        black = move_no % 2 == 1
        if black and recovered and self.killed_at is not None and room not in self.first_after_kill:
            self.first_after_kill[room] = time.monotonic()


class Player:
    """One seat: plays its colour's moves of ``sequence``; on a lost connection it goes
    to ``fallback`` and resumes."""

    def __init__(self, name: str, url: str, fallback: str, parity: int, sequence: list[str],
                 ledger: Ledger) -> None:  # fmt: skip
        self.name, self.url, self.fallback, self.parity = name, url, fallback, parity
        self.sequence, self.ledger = sequence, ledger
        self.ws: ClientConnection | None = None
        self.token: str | None = None
        self.room, self.seq, self.moves = "", 0, 0
        self.sent_at = 0.0
        self.recovered = False
        """Connected again, to ``fallback``, after a lost connection."""

    async def hello(self, url: str) -> None:
        self.ws = await connect(url, compression=None, open_timeout=5, max_size=1 << 22)
        await self.ws.send(encode(m.Hello(name=self.name, token=self.token)))
        while not isinstance(welcome := decode_server(await self.ws.recv()), m.Welcome):
            pass
        self.token = welcome.token

    def apply(self, message: m.ServerMessage) -> None:
        if isinstance(message, m.Snapshot) and message.room.id == self.room:
            self.moves, self.seq = len(message.room.moves), message.room.seq
        elif isinstance(message, m.Event) and message.room == self.room:
            if message.seq <= self.seq:
                return  # a resume may repeat what was seen
            if message.seq != self.seq + 1:
                self.ledger.problems.append(f"{self.name}: event {message.seq} after {self.seq}")
            self.seq = message.seq
            if isinstance(message.event, ev.Moved):
                self.moves += 1
                event = message.event
                self.ledger.moved(self.room, event.move_no, event.point, recovered=self.recovered)
                self.sent_at = 0.0
        elif isinstance(message, m.Error):
            self.ledger.refusals[message.code] = self.ledger.refusals.get(message.code, 0) + 1
            if message.code not in SHRUGGED:
                self.ledger.problems.append(f"{self.name}: {message.code} {message.message}")

    async def play(self) -> None:
        while self.moves < len(self.sequence):
            try:
                if self.ws is None:
                    await self.hello(self.fallback)
                    self.recovered = True
                    assert self.ws is not None
                    await self.ws.send(encode(m.Resume(room=self.room, after=self.seq)))
                    self.sent_at = 0.0
                await self.step()
            except (ConnectionClosed, OSError, InvalidHandshake, TimeoutError):
                self.ws = None
                await asyncio.sleep(0.05)
        if self.ws is not None:
            await self.ws.close()

    async def step(self) -> None:
        assert self.ws is not None
        now = time.monotonic()
        if self.moves % 2 == self.parity and now - self.sent_at > RETRY_S:
            point = self.sequence[self.moves]
            await self.ws.send(encode(m.Move(room=self.room, point=point)))
            self.sent_at = now
        with contextlib.suppress(TimeoutError):
            self.apply(decode_server(await asyncio.wait_for(self.ws.recv(), 0.5)))


async def seat(index: int, a: str, b: str, moves: int, ledger: Ledger) -> tuple[Player, Player]:
    """Black on A (falls back to B), White on B; both seated in a new room."""
    sequence = quiet_sequence(moves, seed=index)
    black = Player(f"black{index}", a, b, 0, sequence, ledger)
    white = Player(f"white{index}", b, b, 1, sequence, ledger)
    await black.hello(a)
    await white.hello(b)
    assert black.ws is not None and white.ws is not None  # noqa: PT018
    await black.ws.send(encode(m.CreateRoom(seat="black")))
    while not isinstance(snap := decode_server(await black.ws.recv()), m.Snapshot):
        pass
    black.room = white.room = snap.room.id
    black.seq = snap.room.seq
    await white.ws.send(encode(m.Join(room=black.room)))
    while not isinstance(joined := decode_server(await white.ws.recv()), m.Snapshot):
        pass
    white.seq = joined.room.seq
    return black, white


async def audit(url: str, rooms: list[str], ledger: Ledger) -> tuple[int, int]:
    """(acknowledged moves, of them missing from the room's log or at another number)."""
    ws = await connect(url, compression=None, max_size=1 << 22)
    acked = lost = 0
    try:
        await ws.send(encode(m.Hello(name="auditor")))
        for index, room in enumerate(rooms):
            await ws.send(encode(m.Join(room=room, role="spectator", id=index)))
            while not isinstance(snap := decode_server(await ws.recv()), m.Snapshot):
                pass
            logged = snap.room.moves
            for move_no, point in ledger.acked.get(room, {}).items():
                acked += 1
                lost += move_no > len(logged) or logged[move_no - 1] != point
            await ws.send(encode(m.Leave(room=room)))
    finally:
        await ws.close()
    return acked, lost


async def run(
    args: argparse.Namespace, a_url: str, b_url: str, kill: Callable[[], None]
) -> list[str]:
    ledger = Ledger()
    games = await asyncio.gather(
        *(seat(i, a_url, b_url, args.moves, ledger) for i in range(args.games))
    )
    ledger.kill_at = int(args.kill_at * args.games * args.moves)
    started = time.monotonic()
    tasks = [asyncio.create_task(p.play()) for pair in games for p in pair]
    await ledger.kill_point.wait()
    before = ledger.total
    kill_after = time.monotonic() - started
    ledger.killed_at = time.monotonic()
    kill()
    async with asyncio.timeout(args.timeout):
        await asyncio.gather(*tasks)
    ended = time.monotonic()
    rooms = [black.room for black, _ in games]
    acked, lost = await audit(b_url, rooms, ledger)
    finished = sum(len(ledger.acked.get(r, {})) == args.moves for r in rooms)
    recovery = [
        ledger.first_after_kill[r] - ledger.killed_at for r in rooms if r in ledger.first_after_kill
    ]
    total = ledger.total
    return [
        f"moves acknowledged: {before} in the {kill_after:.2f} s before the kill "
        f"({before / kill_after:.0f}/s), {total - before} after it, {total} in all "
        f"({total / (ended - started):.0f}/s over {ended - started:.1f} s)",
        f"games that reached their last move: {finished} of {args.games}; refusals shrugged "
        f"off: {ledger.refusals or 'none'}; problems: {ledger.problems[:3] or 'none'}",
        f"recovery (kill -> the first move of the killed instance's player acknowledged "
        f"on the other), {len(recovery)} "
        f"games: p50 {percentile(recovery, 50) * 1000:.0f} ms, max "
        f"{max(recovery, default=float('nan')) * 1000:.0f} ms",
        f"acknowledged moves lost: {lost} of {acked} (target 0): "
        f"{'met' if lost == 0 and not ledger.problems and finished == args.games else 'NOT met'}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=40, help="concurrent games (40)")
    parser.add_argument("--moves", type=int, default=100, help="moves per game (100)")
    parser.add_argument(
        "--kill-at", type=float, default=0.3, help="kill once this share of the moves is in (0.3)"
    )
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds (120)")
    args = parser.parse_args()
    raise_open_files()
    head = [
        *environment(),
        f"failover: {args.games} games of {args.moves} moves, Black on instance A and White "
        f"on B (one Redis), played flat out; A killed with SIGKILL once "
        f"{args.kill_at:.0%} of the moves were in",
    ]
    print("\n".join(head), flush=True)
    with redis_server() as url:
        extra = ["--redis", url, "--grace", "60"]
        with gomoku_server(extra) as a, gomoku_server(extra) as b:
            lines = asyncio.run(run(args, a.url, b.url, a.process.kill))
            errors = b.errors_logged()
    if errors:
        lines.append(f"instance B logged errors: {errors[:500]}")
    print("\n".join(lines))
    record("failover", [*head, *lines])


if __name__ == "__main__":
    main()
