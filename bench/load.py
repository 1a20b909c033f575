"""Move throughput and latency: N concurrent games against the server in its own
process (memory store, then Redis store), and the same clients against a bare relay
(``bench/relay.py``: no protocol, no validation, no store) as the ceiling.

Run: ``.venv/bin/python bench/load.py [--pairs 100] [--seconds 10]
[--client-processes 2] [--targets relay,memory,redis,redis2,redis2busy,redisapart,
redis2same] [--rounds 1 | --interleave SECONDS] [--pair-rate 0]``
(``--interleave``: every target served at once, their pairs moving in turns of that
many seconds, recorded as its own section, load-interleaved)
(``redis2``: ``gomoku-server --processes 2`` on one Redis, the kernel spreading the
connections over the two processes, so about half the pairs start with their players
on different processes, until the server hands one of the two connections to the
other's process at the first join (``server/handoff.py``); ``redis2same``: two server
instances on one Redis, with no handoff, where both players of each game connect to
the same one from the start: what two processes cost with no game ever split;
``redis2busy``: ``redis2`` given twice ``--pairs``, so that each of the two processes
serves as many pairs as the one process of ``redis`` does; ``redisapart``: two
one-process servers, each on a Redis of its own, each given ``--pairs``: one process's
cost on a machine as busy as for ``redis2busy``).

Each game is a pair of scripted clients on 15x15 playing a fixed legal sequence of
spread-out moves in which nobody makes five; after ``--game-moves`` moves Black
resigns and the pair starts a new room (against the relay the sequence simply
starts again). Each client sends its move only after it has received the
opponent's, so every pair is a closed loop and the total rate is what the server
sustains; with ``--pair-rate R`` a pair also waits until 1/R s have passed since its
previous move, so the targets serve the same offered rate with cores to spare (the
figure to compare there is the CPU per move). A mover's round trip is the time from
sending a move to receiving its own ``moved`` event (the relay: its own frame echoed
back). An error frame or a request left unanswered for 30 s costs that pair its game
(it starts a new one) and is counted and printed.

The clients run in ``--client-processes`` processes (default 2) so the load
generator is less of a bottleneck; on a 2-core machine they still share the CPU
with the server and redis-server. Each row prints the CPU share (1 core = 100%) of
the target (all its processes), of the load generator and of redis-server during the
window, so where the cores went is on the line; the target's CPU time per move is the
figure least moved by that competition, and the one the two-process target compares
(two processes' CPU per move <= 1.1x one's). Beside it, the target's read and write
system calls per move (from ``/proc/PID/io``): a count of the I/O a move took, where the
CPU time is a measure. A process's CPU per move depends on how busy it is (one busy
process finds more events at each turn of its event loop and writes more of them at
once, and even at the same calls per move it spends less CPU time on each), so the
two-process target is read two ways: ``redis2`` splits one process's pairs over two
(the same work, each process half as busy), and ``redis2busy`` gives each of the two
processes the one's pairs (twice the work, each process as busy as the one), and
``redis2busy`` is also set against ``redisapart`` (the same work on two servers that
share nothing), since a busier machine makes every process's turns carry more events
too. The last two need ``--pair-rate`` on a machine whose cores the closed loop fills.
Rate limits and the per-address limit are lifted on the server (everything comes from
127.0.0.1). Targets: memory store >= 60% of the relay's moves/s with p99 <= 2x the
relay's; Redis store >= 30% of the relay's moves/s. With ``--rounds N`` the targets
run in turn N times, and each verdict is the median of the N rounds' own ratios (two
targets measured seconds apart share the machine's pace of the moment, which drifts
by 20% or more over minutes here).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import dataclasses
import math
import multiprocessing
import multiprocessing.synchronize
import random
import re
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from harness import (
    cpu_seconds,
    environment,
    gomoku_server,
    percentile,
    raise_open_files,
    record,
    redis_cpu_seconds,
    redis_server,
    tree_cpu_seconds,
    tree_io_calls,
)
from websockets.asyncio.client import ClientConnection, connect

from engine import Board, Rule, format_point
from engine.types import Point
from protocol import events as ev
from protocol import messages as m
from protocol.codec import decode_client, decode_server, encode

MEMORY_TARGET = 0.60
P99_TARGET = 2.0
REDIS_TARGET = 0.30
TWO_PROCESS_TARGET = 1.10  # two processes' CPU per move against one's


def quiet_sequence(moves: int, seed: int = 8, size: int = 15) -> list[str]:
    """A legal freestyle sequence of ``moves`` spread-out stones in which nobody wins."""
    rng = random.Random(seed)
    board = Board(size, Rule.FREESTYLE)
    points = [Point(x, y) for x in range(size) for y in range(size)]
    rng.shuffle(points)
    sequence: list[str] = []
    for point in points:
        if len(sequence) == moves:
            break
        if board.play(point) is not None:
            board.undo(1)  # this stone would win: skip it
            continue
        sequence.append(format_point(point, size))
    assert len(sequence) == moves
    return sequence


@dataclasses.dataclass
class Sample:
    sent_at: float  # time.time() when the move was sent
    rtt: float  # seconds until the mover saw its own move


# --- the clients (run in worker processes) --------------------------------------------


REPLY_TIMEOUT_S = 30.0


@dataclasses.dataclass(frozen=True)
class Turns:
    """With ``--interleave``: the targets take turns of ``slice_s`` seconds from
    ``start`` (a ``time.time()``), in order; this one is number ``index`` of ``count``."""

    start: float
    slice_s: float
    count: int
    index: int

    def delay(self, now: float) -> float:
        """Seconds from ``now`` until this target's next turn (0 during one)."""
        cycle = self.count * self.slice_s
        into = (now - self.start) % cycle
        mine = self.index * self.slice_s
        if mine <= into < mine + self.slice_s:
            return 0.0
        return (mine - into) % cycle


class Pace:
    """Spaces one pair's moves ``interval`` s apart at the least (``--pair-rate``); an
    interval of 0 lets the pair move as soon as it may (the closed loop). With
    ``turns``, a pair moves only in its target's turns (``--interleave``)."""

    def __init__(self, interval: float, turns: Turns | None = None) -> None:
        self.interval = interval
        self.turns = turns
        self.next_at = 0.0

    async def wait(self) -> None:
        if self.turns is not None and (delay := self.turns.delay(time.time())) > 0:
            await asyncio.sleep(delay + 0.001)  # a timer may end a little early
        if not self.interval:
            return
        now = time.perf_counter()
        if self.next_at > now:
            await asyncio.sleep(self.next_at - now)
            now = self.next_at
        self.next_at = now + self.interval


class NoReply(RuntimeError):
    """The server did not answer in time: a stuck game is a finding, not a hang."""


class Refused(RuntimeError):
    """The server answered a request with an error frame."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


PROBLEMS: collections.Counter[str] = collections.Counter()
"""What went wrong in this client process: error codes, and ``no reply``."""


async def recv_until(
    ws: ClientConnection, predicate: Callable[[Any], bool], what: str = "a reply"
) -> Any:
    # One timeout for the whole wait, not one per frame: asyncio.wait_for makes a task
    # per call (13 us of the load generator's CPU for each frame read here), which the
    # clients would pay on every frame and the relay's not at all.
    try:
        async with asyncio.timeout(REPLY_TIMEOUT_S):
            while True:
                message = decode_server(await ws.recv())
                if predicate(message):
                    return message
                if isinstance(message, m.Error):
                    raise Refused(message.code)
    except TimeoutError:
        raise NoReply(f"no {what} within {REPLY_TIMEOUT_S:g} s") from None


def own_move(point: str) -> Callable[[Any], bool]:
    def match(x: Any) -> bool:
        return isinstance(x, m.Event) and isinstance(x.event, ev.Moved) and x.event.point == point

    return match


async def server_pair(
    url: str,
    index: int,
    sequence: list[str],
    stop_at: float,
    samples: list[Sample],
    pace: Pace,
    rooms: Any = None,
) -> None:
    """Two players of one pair: new room, ``len(sequence)`` moves, resign, again. Each
    new room's id goes to ``rooms`` (a queue) if given."""
    black = await connect(url, compression=None, max_size=1 << 22)
    white = await connect(url, compression=None, max_size=1 << 22)
    for ws, name in ((black, f"b{index}"), (white, f"w{index}")):
        while time.time() < stop_at:
            await ws.send(encode(m.Hello(name=name)))
            try:
                await recv_until(ws, lambda x: isinstance(x, m.Welcome))
                break
            except Refused as exc:
                PROBLEMS[f"hello: {exc.code}"] += 1
                if exc.code == "wrong_phase":
                    break  # the refused hello had in fact identified us
                await asyncio.sleep(0.1)
    while time.time() < stop_at:
        try:
            await server_game(black, white, sequence, stop_at, samples, pace, rooms)
        except Refused as exc:
            PROBLEMS[exc.code] += 1
        except NoReply:
            PROBLEMS["no reply"] += 1
    await black.close()
    await white.close()


async def server_game(
    black: ClientConnection,
    white: ClientConnection,
    sequence: list[str],
    stop_at: float,
    samples: list[Sample],
    pace: Pace,
    rooms: Any,
) -> None:
    """One game of a pair: a new room, the moves (until ``stop_at``), Black resigns."""
    await black.send(encode(m.CreateRoom(seat="black")))
    snap = await recv_until(black, lambda x: isinstance(x, m.Snapshot))
    room = snap.room.id
    if rooms is not None:
        rooms.put(room)
    await white.send(encode(m.Join(room=room)))
    await recv_until(white, lambda x: isinstance(x, m.Snapshot))
    await recv_until(
        black, lambda x: isinstance(x, m.Event) and isinstance(x.event, ev.GameStarted)
    )
    for i, point in enumerate(sequence):
        mover = black if i % 2 == 0 else white
        await pace.wait()
        sent_at, start = time.time(), time.perf_counter()
        await mover.send(encode(m.Move(room=room, point=point)))
        await recv_until(mover, own_move(point))
        samples.append(Sample(sent_at, time.perf_counter() - start))
        if time.time() >= stop_at:
            break
    await black.send(encode(m.Resign(room=room)))
    for ws in (black, white):
        await recv_until(ws, lambda x: isinstance(x, m.Event) and isinstance(x.event, ev.GameOver))
    await black.send(encode(m.Leave(room=room)))
    await white.send(encode(m.Leave(room=room)))


async def relay_pair(
    url: str,
    index: int,
    sequence: list[str],
    stop_at: float,
    samples: list[Sample],
    pace: Pace,
    rooms: Any = None,
) -> None:
    """The same two players against the relay: each move frame comes back to both."""
    black = await connect(f"{url}pair-{index}", compression=None, max_size=1 << 22)
    white = await connect(f"{url}pair-{index}", compression=None, max_size=1 << 22)
    room = f"r-{index:010d}"[:12]
    i = 0
    while time.time() < stop_at:
        point = sequence[i % len(sequence)]
        mover = black if i % 2 == 0 else white
        await pace.wait()
        sent_at, start = time.time(), time.perf_counter()
        await mover.send(encode(m.Move(room=room, point=point)))
        try:
            async with asyncio.timeout(REPLY_TIMEOUT_S):  # as recv_until waits for the server
                while True:  # the opponent's previous move may still be waiting first
                    echoed = decode_client(await mover.recv())
                    if isinstance(echoed, m.Move) and echoed.point == point:
                        break
        except TimeoutError:
            PROBLEMS["no reply"] += 1  # counted and printed, as for the server's pairs
            break
        samples.append(Sample(sent_at, time.perf_counter() - start))
        i += 1
    await black.close()
    await white.close()


def client_process(
    mode: str,
    urls: list[str],
    first: int,
    count: int,
    sequence: list[str],
    interval: float,
    clock_box: Any,
    ready: Any,
    go: multiprocessing.synchronize.Event,
    results: Any,
    rooms: Any,
    turn: tuple[int, int, float] | None = None,
) -> None:
    """One load-generating process: ``count`` pairs, started together on ``go``;
    they stop at the time the main process puts in ``clock_box`` (``[start, stop]``).
    Pair ``i`` plays on ``urls[i % len(urls)]`` (both its players). ``turn`` (its
    target's index, how many targets, the slice's seconds): the pairs move only in
    their target's turns, counted from ``start``."""
    raise_open_files()

    async def run() -> list[Sample]:
        samples: list[Sample] = []
        play = server_pair if mode != "relay" else relay_pair
        ready.put(first)
        await asyncio.to_thread(go.wait)
        start, stop_at = clock_box[0], clock_box[1]
        turns = None if turn is None else Turns(start, turn[2], turn[1], turn[0])
        await asyncio.gather(
            *(
                play(
                    urls[(first + i) % len(urls)],
                    first + i,
                    sequence,
                    stop_at,
                    samples,
                    Pace(interval, turns),
                    rooms,
                )
                for i in range(count)
            )
        )
        return samples

    samples = asyncio.run(run())
    results.put(([(s.sent_at, s.rtt) for s in samples], dict(PROBLEMS)))


# --- one run against one target ---------------------------------------------------------


@dataclasses.dataclass
class Outcome:
    name: str
    moves_per_s: float
    p50_ms: float
    p99_ms: float
    samples: int
    cpu_share: float  # the target process's CPU use during the window (1.0 = one core)
    clients_share: float = float("nan")  # the load generator's (its client processes)
    redis_share: float = float("nan")  # redis-server's, for the Redis targets
    window: list[tuple[float, float]] = dataclasses.field(default_factory=list, repr=False)
    """Every (sent_at, round trip) in the window."""
    problems: dict[str, int] = dataclasses.field(default_factory=dict)
    """Error frames and unanswered requests the clients met (games restarted after each)."""
    io_calls_per_s: float = float("nan")  # the target's read/write system calls a second

    @property
    def cpu_us_per_move(self) -> float:
        """The target's CPU time per move: unlike moves/s, little changed by other
        processes competing for the cores (the figure to compare across busy runs)."""
        return self.cpu_share * 1e6 / self.moves_per_s if self.moves_per_s else float("nan")

    @property
    def io_calls_per_move(self) -> float:
        """The target's read and write system calls per move: a count of what a move's I/O
        took, which its CPU time alone does not give (that also moves with how busy the
        process was, and with what else ran on its core in between)."""
        return self.io_calls_per_s / self.moves_per_s if self.moves_per_s else float("nan")


@dataclasses.dataclass
class Served:
    """A target, started: where its clients connect and what is measured of it."""

    name: str
    urls: list[str]
    pids: list[int]
    """Its processes (with their process trees) whose CPU time is the target's."""
    redis_urls: Sequence[str] = ()
    pairs: int = 0
    errors: Callable[[], str] = lambda: ""
    """What its servers logged as errors so far."""


def start_clients(
    ctx: Any,
    target: Served,
    args: argparse.Namespace,
    shared: tuple[Any, Any, multiprocessing.synchronize.Event, Any, Any],
    turn: tuple[int, int, float] | None = None,
) -> list[Any]:
    """The client processes of ``target``'s pairs (``shared``: the clock box, the ready
    and results queues, the go event and the rooms queue), started."""
    clock_box, ready, go, results, rooms = shared
    sequence = quiet_sequence(args.game_moves)
    interval = 1 / args.pair_rate if args.pair_rate > 0 else 0.0
    share = [target.pairs // args.client_processes] * args.client_processes
    share[0] += target.pairs - sum(share)
    processes = []
    first = 0
    for count in share:
        proc = ctx.Process(
            target=client_process,
            args=(target.name, target.urls, first, count, sequence, interval, clock_box),
            kwargs={"ready": ready, "go": go, "results": results, "rooms": rooms, "turn": turn},
        )
        proc.start()
        processes.append(proc)
        first += count
    return processes


def readers_for(target: Served, processes: list[Any]) -> dict[str, Callable[[], float]]:
    """The counters read of ``target`` and of its client ``processes``."""
    readers: dict[str, Callable[[], float]] = {
        "clients": lambda: sum(cpu_seconds(p.pid) for p in processes if p.pid is not None)
    }
    if target.pids:
        readers["target"] = lambda: sum(tree_cpu_seconds(pid) for pid in target.pids)
        readers["target calls"] = lambda: sum(tree_io_calls(pid) for pid in target.pids)
    if target.redis_urls:
        readers["redis"] = lambda: sum(redis_cpu_seconds(url) for url in target.redis_urls)
    return readers


def gathered(results: Any, count: int, timeout: float) -> tuple[list[Sample], dict[str, int]]:
    """What ``count`` client processes measured: their samples and problems."""
    samples: list[Sample] = []
    problems: collections.Counter[str] = collections.Counter()
    for _ in range(count):
        got, seen = results.get(timeout=timeout)
        samples.extend(Sample(sent_at, rtt) for sent_at, rtt in got)
        problems.update(seen)
    return samples, dict(problems)


def outcome_of(
    name: str,
    samples: Sequence[Sample],
    spans: Sequence[tuple[float, float]],
    rates: dict[str, float],
    problems: dict[str, int],
) -> Outcome:
    """The outcome of the moves sent in ``spans`` (``[begin, end)`` each), with the
    counters' ``rates`` over them."""
    inside = [(x.sent_at, x.rtt) for x in samples if any(a <= x.sent_at < b for a, b in spans)]
    window = [rtt for _, rtt in inside]
    seconds = sum(b - a for a, b in spans)
    return Outcome(
        name,
        len(window) / seconds,
        percentile(window, 50) * 1000,
        percentile(window, 99) * 1000,
        len(window),
        rates.get("target", float("nan")),
        rates["clients"],
        rates.get("redis", float("nan")),
        inside,
        problems,
        io_calls_per_s=rates.get("target calls", float("nan")),
    )


def drive(
    mode: str,
    urls: list[str],
    pids: list[int],
    args: argparse.Namespace,
    rooms: Any = None,
    redis_urls: Sequence[str] = (),
    pairs: int | None = None,
) -> Outcome:
    """Start the client processes, run the window, and gather what they measured
    (``rooms``: a queue that gets the id of every room the pairs create). The target's
    CPU time is that of ``pids`` and their process trees (a ``--processes N``
    supervisor's servers too; ``pairs``: how many, ``--pairs`` if not given)."""
    target = Served(mode, urls, pids, redis_urls, args.pairs if pairs is None else pairs)
    ctx = multiprocessing.get_context("spawn")
    ready: Any = ctx.Queue()
    results: Any = ctx.Queue()
    go = ctx.Event()
    clock_box: Any = ctx.Array("d", 2)  # [start, stop], set once every process is ready
    processes = start_clients(ctx, target, args, (clock_box, ready, go, results, rooms))
    for _ in processes:
        ready.get(timeout=120)
    begin = time.time() + args.warmup
    end = begin + args.seconds
    clock_box[:] = [begin - args.warmup, end]
    readings = Readings([readers_for(target, processes)], begin, args.seconds, 1)
    readings.start()
    go.set()
    samples, problems = gathered(results, len(processes), args.warmup + args.seconds + 300)
    for proc in processes:
        proc.join(30)
    readings.join()
    return outcome_of(mode, samples, [(begin, end)], readings.rates(0)[1], problems)


class Readings(threading.Thread):
    """Reads counters at the boundaries of ``turns`` turns of ``slice_s`` seconds from
    ``begin``, the targets (one dict of readers each) taking them in order: at each
    boundary, those of the target whose turn ends and of the one whose turn begins. One
    target with one turn: the start and the end of the measured window. Rates are what
    the counters gained a second: the CPU time of the target (its process tree), of the
    load generator and of redis-server, and the target's read and write system calls."""

    def __init__(
        self,
        readers: list[dict[str, Callable[[], float]]],
        begin: float,
        slice_s: float,
        turns: int,
    ) -> None:
        super().__init__(daemon=True)
        self.readers, self.begin, self.slice_s, self.turns = readers, begin, slice_s, turns
        self.readings: list[dict[int, tuple[float, dict[str, float]]]] = []
        """At boundary k (k = 0 .. turns): target index -> (when, counters)."""

    def run(self) -> None:
        count = len(self.readers)
        for k in range(self.turns + 1):
            time.sleep(max(0.0, self.begin + k * self.slice_s - time.time()))
            read: dict[int, tuple[float, dict[str, float]]] = {}
            for index in dict.fromkeys(((k - 1) % count, k % count)):  # ending, then beginning
                read[index] = (
                    time.time(),
                    {name: reader() for name, reader in self.readers[index].items()},
                )
            self.readings.append(read)

    def rates(self, k: int) -> tuple[float, dict[str, float]]:
        """Turn ``k``'s seconds and its target's counters over them, as rates."""
        index = k % len(self.readers)
        then, before = self.readings[k][index]
        now, after = self.readings[k + 1][index]
        return now - then, {name: (after[name] - before[name]) / (now - then) for name in before}


def drive_turns(
    targets: list[Served], args: argparse.Namespace
) -> tuple[dict[str, list[Outcome]], dict[str, Outcome]]:
    """Every target served at once, its pairs moving only in its turns of
    ``--interleave`` seconds, the targets in order, until each had ``--seconds`` of
    turns: each cycle's outcome of each target (a cycle is one turn of each), and each
    target's outcome over all its turns."""
    ctx = multiprocessing.get_context("spawn")
    ready: Any = ctx.Queue()
    go = ctx.Event()
    clock_box: Any = ctx.Array("d", 2)
    count, slice_s = len(targets), args.interleave
    cycles = max(1, math.ceil(args.seconds / slice_s - 1e-9))
    groups = []
    for index, target in enumerate(targets):
        results: Any = ctx.Queue()
        shared = (clock_box, ready, go, results, None)
        processes = start_clients(ctx, target, args, shared, turn=(index, count, slice_s))
        groups.append((processes, results))
    for processes, _ in groups:
        for _ in processes:
            ready.get(timeout=120)
    cycle = count * slice_s
    start = time.time()
    begin = start + math.ceil(args.warmup / cycle) * cycle
    end = begin + cycles * cycle
    clock_box[:] = [start, end]
    readings = Readings(
        [readers_for(t, processes) for t, (processes, _) in zip(targets, groups, strict=True)],
        begin,
        slice_s,
        cycles * count,
    )
    readings.start()
    go.set()
    measured = [
        gathered(results, len(processes), end - start + 300) for processes, results in groups
    ]
    for processes, _ in groups:
        for proc in processes:
            proc.join(30)
    readings.join()
    rounds: dict[str, list[Outcome]] = {t.name: [] for t in targets}
    spans: dict[str, list[tuple[float, float]]] = {t.name: [] for t in targets}
    used: dict[str, collections.Counter[str]] = {t.name: collections.Counter() for t in targets}
    for k in range(cycles * count):
        target = targets[k % count]
        samples, _ = measured[k % count]
        lo = begin + k * slice_s
        seconds, rates = readings.rates(k)
        rounds[target.name].append(
            outcome_of(target.name, samples, [(lo, lo + slice_s)], rates, {})
        )
        spans[target.name].append((lo, lo + slice_s))
        used[target.name].update({name: rate * seconds for name, rate in rates.items()})
    whole = {}
    for target, (samples, problems) in zip(targets, measured, strict=True):
        seconds = cycles * slice_s
        rates = {name: total / seconds for name, total in used[target.name].items()}
        whole[target.name] = outcome_of(target.name, samples, spans[target.name], rates, problems)
    return rounds, whole


# --- the targets -------------------------------------------------------------------------


def start_relay() -> tuple[subprocess.Popen[bytes], str]:
    relay = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("relay.py")), "--port", "0"],
        stdout=subprocess.PIPE,
    )
    assert relay.stdout is not None
    found = re.search(rb"port (\d+)", relay.stdout.readline())
    if found is None:
        relay.kill()
        raise SystemExit("the relay did not start")
    return relay, f"ws://127.0.0.1:{int(found.group(1))}/"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--pairs", type=int, default=100, help="concurrent games (100)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured window (10)")
    parser.add_argument("--warmup", type=float, default=2.0, help="unmeasured start (2)")
    parser.add_argument("--game-moves", type=int, default=60, help="moves per game (60)")
    parser.add_argument("--client-processes", type=int, default=2, help="(2)")
    parser.add_argument(
        "--targets",
        default="relay,memory,redis",
        help="what to measure, comma-separated (relay,memory,redis; redis2: two server "
        "processes on one Redis, gomoku-server --processes 2; redis2same: two instances on "
        "one Redis, each game's players on one of them; redis2busy: redis2 with twice the "
        "pairs, each process as busy as redis's one; redisapart: two one-process servers "
        "with a Redis each, given twice the pairs); ratios need the relay",
    )
    parser.add_argument(
        "--pair-rate",
        type=float,
        default=0.0,
        help="moves per second a pair makes at most (0: as fast as the target answers, "
        "the closed loop). At a fixed rate every target serves the same moves/s with cores "
        "to spare, so their CPU per move compares the same work; ratios to the relay then "
        "say nothing. Recorded as its own section (load-paced) (0)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="measure the targets this many times, one after the other in turn; each "
        "verdict takes the median of the rounds' ratios, each ratio between two targets "
        "measured back to back, so the machine's pace moves both alike (1)",
    )
    parser.add_argument(
        "--interleave",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="serve every target at once and let their pairs move in turns of this many "
        "seconds, the targets in order, until each had --seconds of turns (in place of "
        "--rounds); each verdict takes the median of the cycles' ratios (a cycle: one turn "
        "of each target), two targets' turns being this close in time (0: off)",
    )
    args = parser.parse_args()
    if args.interleave < 0 or (args.interleave > 0 and args.rounds != 1):
        parser.error("--interleave takes a number of seconds > 0, in place of --rounds")

    head = [
        *environment(),
        f"load: {args.pairs} concurrent games ({2 * args.pairs} clients in "
        f"{args.client_processes} processes), {args.seconds:g} s measured after "
        f"{args.warmup:g} s warm-up, {args.game_moves}-move games on 15x15"
        + (
            f", each pair moving at most {args.pair_rate:g} times a second"
            if args.pair_rate > 0
            else ", each pair moving as soon as it may"
        )
        + (
            f" (redis2busy and redisapart: {2 * args.pairs} games)"
            if {"redis2busy", "redisapart"} & set(args.targets.split(","))
            else ""
        ),
    ]
    print("\n".join(head), flush=True)
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    known = {"relay", "memory", "redis", "redis2", "redis2busy", "redisapart", "redis2same"}
    if unknown := set(targets) - known:
        raise SystemExit(f"unknown target {', '.join(sorted(unknown))}")
    if args.interleave > 0:
        interleaved(targets, head, args)
        return
    runs: dict[str, list[Outcome]] = {target: [] for target in targets}
    errors = ""
    rows: list[str] = []
    print(HEADER, flush=True)
    for number in range(1, args.rounds + 1):
        relay_outcome: Outcome | None = None
        for target in targets:
            outcome, logged = measure(target, args)
            errors += logged
            runs[target].append(outcome)
            relay_outcome = outcome if target == "relay" else relay_outcome
            rows.append(row(outcome, relay_outcome if target != "relay" else None))
            if args.rounds > 1:
                rows[-1] += f"  (round {number})"
            print(rows[-1], flush=True)
    paced = args.pair_rate > 0
    medians = {target: median_run(outcomes, paced=paced) for target, outcomes in runs.items()}
    relay_median = medians.get("relay")
    lines = [*head, HEADER, *rows]
    if args.rounds > 1:
        by = "CPU per move" if paced else "moves/s"
        lines.append(f"each target's median round of {args.rounds} (by {by}):")
        lines += [row(o, relay_median if o.name != "relay" else None) for o in medians.values()]
        lines.append("verdicts: each is the median of the rounds' own ratios")
    lines += verdicts(runs)
    if errors:
        lines.append(f"server errors logged: {errors[:500]}")
    print("\n".join(lines[len(head) + 1 + len(rows) :]))
    record("load-paced" if args.pair_rate > 0 else "load", lines)


def interleaved(targets: list[str], head: list[str], args: argparse.Namespace) -> None:
    """``--interleave``: every target served at once, in turns (:func:`drive_turns`);
    its table, each target over all its turns, and its verdicts, by cycles."""
    head = [
        *head,
        f"interleaved: the targets served at once, their pairs moving in turns of "
        f"{args.interleave:g} s in this order, each for {args.seconds:g} s of turns",
    ]
    print(head[-1], flush=True)
    with contextlib.ExitStack() as stack:
        served = [stack.enter_context(serving(target, args)) for target in targets]
        runs, whole = drive_turns(served, args)
        errors = "".join(target.errors() for target in served)
    relay = whole.get("relay")
    rows = [row(o, relay if o.name != "relay" else None) for o in whole.values()]
    cycles = len(next(iter(runs.values())))
    lines = [
        *head,
        HEADER,
        *rows,
        f"verdicts: each is the median of the {cycles} cycles' own ratios",
    ]
    lines += verdicts(runs, unit="cycles")
    if errors:
        lines.append(f"server errors logged: {errors[:500]}")
    print("\n".join(lines[len(head) :]))
    record("load-paced-interleaved" if args.pair_rate > 0 else "load-interleaved", lines)


def measure(target: str, args: argparse.Namespace) -> tuple[Outcome, str]:
    """One run of the clients against ``target``, and what its server logged as errors."""
    with serving(target, args) as served:
        outcome = drive(
            target, served.urls, served.pids, args, redis_urls=served.redis_urls, pairs=served.pairs
        )
        return outcome, served.errors()


@contextlib.contextmanager
def serving(target: str, args: argparse.Namespace) -> Iterator[Served]:
    """``target`` started (its servers, its Redis), and stopped at the end."""
    if target == "relay":
        relay, url = start_relay()
        try:
            yield Served("relay", [url], [relay.pid], pairs=args.pairs)
        finally:
            relay.terminate()
            relay.wait(20)
        return
    # two instances, each on its own port; redisapart: each on a Redis of its own too
    count = 2 if target in ("redis2same", "redisapart") else 1
    with contextlib.ExitStack() as stack:
        extras: list[list[str]] = [[] for _ in range(count)]
        redis_urls: list[str] = []
        if target != "memory":
            redis_urls = [
                stack.enter_context(redis_server())
                for _ in range(count if target == "redisapart" else 1)
            ]
            extras = [["--redis", redis_urls[i % len(redis_urls)]] for i in range(count)]
        if target in ("redis2", "redis2busy"):  # two processes, one port (SO_REUSEPORT)
            extras[0] += ["--processes", "2"]
        servers = [stack.enter_context(gomoku_server(extra)) for extra in extras]
        yield Served(
            target,
            [server.url for server in servers],
            [server.process.pid for server in servers],
            redis_urls,
            2 * args.pairs if target in ("redis2busy", "redisapart") else args.pairs,
            lambda: "".join(server.errors_logged() for server in servers),
        )


def median_run(outcomes: list[Outcome], *, paced: bool = False) -> Outcome:
    """The run with the median moves/s (the lower one of the middle two); at a fixed
    ``paced`` rate, where every round serves about the same moves/s, the run with the
    median CPU per move (the higher one of the middle two)."""
    if paced:
        ordered = sorted(outcomes, key=lambda o: o.cpu_us_per_move)
        return ordered[len(ordered) // 2]
    ordered = sorted(outcomes, key=lambda o: o.moves_per_s)
    return ordered[(len(ordered) - 1) // 2]


HEADER = (
    f"{'target':<10} {'moves/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'samples':>8} "
    f"{'target CPU':>10} {'CPU us/move':>11} {'calls/move':>10} {'clients CPU':>11} "
    f"{'redis CPU':>9}  vs relay"
)


def row(o: Outcome, relay: Outcome | None) -> str:
    redis = "" if o.redis_share != o.redis_share else f"{o.redis_share * 100:.0f}%"  # NaN
    text = (
        f"{o.name:<10} {o.moves_per_s:>9.0f} {o.p50_ms:>8.2f} {o.p99_ms:>8.2f} {o.samples:>8} "
        f"{o.cpu_share * 100:>9.0f}% {o.cpu_us_per_move:>11.0f} {o.io_calls_per_move:>10.2f} "
        f"{o.clients_share * 100:>10.0f}% {redis:>9}"
    )
    if relay is not None:
        text += (
            f"  moves/s x{o.moves_per_s / relay.moves_per_s:.2f}, "
            f"p99 x{o.p99_ms / relay.p99_ms:.2f}"
        )
    if o.problems:
        text += f"  (errors met, each cost its game a restart: {o.problems})"
    return text


def paired(
    ones: Sequence[Outcome],
    twos: Sequence[Outcome],
    ratio: Callable[[Outcome, Outcome], float],
    spec: str = ".2f",
) -> tuple[float, str]:
    """The median of each round's ``ratio(one, two)``, and the rounds' ratios as text
    (more than eight: their range and middle half).

    The targets of a round run one after the other, seconds apart, while this shared
    machine's pace moves by 20% or more over minutes: a ratio of two targets measured
    back to back is steadier than one of each target's median round, taken from
    rounds that may be minutes apart."""
    each = [ratio(one, two) for one, two in zip(ones, twos, strict=True)]
    if len(each) <= 8:
        return statistics.median(each), ", ".join(format(r, spec) for r in each)
    low, _, high = statistics.quantiles(each, n=4)
    return statistics.median(each), (
        f"{len(each)} of them, {min(each):{spec}} to {max(each):{spec}}, the middle half "
        f"{low:{spec}} to {high:{spec}}"
    )


def cpu_ratio(one: Outcome, two: Outcome) -> float:
    return two.cpu_us_per_move / one.cpu_us_per_move


def rate_ratio(one: Outcome, two: Outcome) -> float:
    return two.moves_per_s / one.moves_per_s


def p99_ratio(one: Outcome, two: Outcome) -> float:
    return two.p99_ms / one.p99_ms


def calls_ratio(one: Outcome, two: Outcome) -> float:
    return two.io_calls_per_move / one.io_calls_per_move


def verdicts(runs: dict[str, list[Outcome]], *, unit: str = "rounds") -> list[str]:
    """The targets' verdicts, each the median of the ``unit``'s own ratios (a round or
    a cycle: each target measured once)."""
    lines = []
    for name, base, how in (
        ("redis2", "redis", "one process's pairs split over two, each half as busy"),
        ("redis2busy", "redis", "twice the pairs, each process as busy as the one"),
        (
            "redis2busy",
            "redisapart",
            "against two one-process servers sharing nothing, with the same pairs",
        ),
    ):
        ones, twos = runs.get(base), runs.get(name)
        if ones is None or twos is None:
            continue
        ratio, each = paired(ones, twos, cpu_ratio)
        rate, _ = paired(ones, twos, rate_ratio)
        calls, _ = paired(ones, twos, calls_ratio)
        lines.append(
            f"{name}: two processes on one Redis ({how}) use {ratio:.2f}x the CPU per move "
            f"of {base} ({unit} {each}; target <= {TWO_PROCESS_TARGET:.2f}x): "
            f"{'met' if ratio <= TWO_PROCESS_TARGET else 'NOT met'}, with x{calls:.2f} "
            f"its read/write system calls a move; aggregate moves/s "
            f"x{rate:.2f} of {base}'s (the same 2 cores also run the clients "
            f"and redis-server: see their CPU columns)"
        )
    ones, same = runs.get("redis"), runs.get("redis2same")
    if ones is not None and same is not None:
        ratio, each = paired(ones, same, cpu_ratio)
        rate, _ = paired(ones, same, rate_ratio)
        lines.append(
            f"redis2same: two instances on one Redis, each game's players on one of them, use "
            f"{ratio:.2f}x the CPU per move of one process ({unit} {each}); aggregate "
            f"moves/s x{rate:.2f}. Not the target's case (in "
            f"redis2 the kernel splits about half the pairs over the two processes, and the "
            f"server then brings each pair onto one): it shows what no split at all costs"
        )
    relays = runs.get("relay")
    if relays is None:
        return lines
    for name, target in (("memory", MEMORY_TARGET), ("redis", REDIS_TARGET)):
        if name not in runs:
            continue
        share, shares = paired(relays, runs[name], rate_ratio, ".0%")
        p99, p99s = paired(relays, runs[name], p99_ratio)
        lines.append(
            f"{name}: {share:.1%} of the relay's moves/s ({unit} {shares}; target >= "
            f"{target:.0%}): {'met' if share >= target else 'NOT met'}; p99 {p99:.2f}x the "
            f"relay's ({unit} {p99s}; target <= {P99_TARGET:g}x): "
            f"{'met' if p99 <= P99_TARGET else 'NOT met'}"
        )
    return lines


if __name__ == "__main__":
    main()
