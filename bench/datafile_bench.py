"""What the embedded store's data file costs: per hello and per finished game, and how
long the event loop is held while it works.

Run: ``.venv/bin/python bench/datafile_bench.py [--rounds N] [--dir DIR]``.

The embedded store (``gomoku-server`` without Redis) keeps sessions, ratings, names and
finished games in SQLite (server/store/datafile.py), on a thread of its own. For each
operation a server does, this prints the time the awaiting coroutine waits (the write on
the data thread, plus the hand-over there and back) and, from a ticker that wakes every
millisecond meanwhile, the event loop's longest stall (how late the ticker woke): what
other players would notice. The plain memory store runs the same calls for comparison.

- *hello (new player)*: ``put_session`` of a new session;
- *hello (returning)*: ``get_session`` of a known one;
- *finished game*: what archiving a rated game writes: ``put_names`` (2 names),
  ``put_record`` (a 2 KB record listed under 2 players) and ``rate`` (2 standings).

The file is in ``--dir`` (default: a temp directory, usually on the same disk as the
user's data directory); ``synchronous=NORMAL`` in WAL mode, as the server runs it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from server.store import MemoryStore, Store
from server.store.datafile import DataFile
from server.store.embedded import EmbeddedStore

RECORD = bytes(2048)  # about a finished 60-move game's JSON record
SESSION = bytes(80)


async def measure(
    store: Store, op: Callable[[Store, int], Awaitable[object]], rounds: int
) -> tuple[list[float], list[float]]:
    """Run ``op`` ``rounds`` times: the wait per call (us), and how late a 1 ms ticker
    woke meanwhile, each time (ms): the loop's stalls."""
    late: list[float] = []
    running = True

    async def ticker() -> None:
        loop = asyncio.get_running_loop()
        while running:
            before = loop.time()
            await asyncio.sleep(0.001)
            late.append((loop.time() - before - 0.001) * 1000)

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0.01)
    late.clear()
    waits = []
    for i in range(rounds):
        start = time.perf_counter()
        await op(store, i)
        waits.append((time.perf_counter() - start) * 1e6)
    running = False
    await tick
    return waits, late


async def new_player(store: Store, i: int) -> None:
    await store.put_session(f"hash-{i}", SESSION)


async def returning_player(store: Store, i: int) -> None:
    await store.get_session(f"hash-{i}")


async def finished_game(store: Store, i: int) -> None:
    black, white = f"p{i % 97}", f"p{(i + 1) % 97}"
    await store.put_names({black: "Black", white: "White"})
    await store.put_record(f"g{i}", RECORD, [black, white], 1_700_000_000_000 + i)
    await store.rate("renju", f"g{i}", black, white, 1.0)


async def run(rounds: int, directory: Path) -> None:
    data = DataFile(directory / "bench.sqlite3")
    data.open()
    stores: list[tuple[str, Store]] = [
        ("memory", MemoryStore()),
        ("data file", EmbeddedStore(data)),
    ]
    print(f"# datafile_bench: {rounds} rounds per figure, file in {directory}")
    print(f"# {platform.platform()}, Python {platform.python_version()}, load {os.getloadavg()}")
    print("| store | operation | wait p50 (us) | wait p99 (us) | loop stall p99 / max (ms) |")
    print("|---|---|---|---|---|")
    for label, store in stores:
        for name, op in (
            ("hello (new player)", new_player),
            ("hello (returning)", returning_player),
            ("finished game", finished_game),
        ):
            waits, late = await measure(store, op, rounds)
            q = statistics.quantiles(waits, n=100)
            stall = statistics.quantiles(late, n=100)[98] if len(late) > 1 else 0.0
            print(
                f"| {label} | {name} | {q[49]:.0f} | {q[98]:.0f} "
                f"| {stall:.2f} / {max(late, default=0.0):.2f} |"
            )
    for _, store in stores:
        await store.close()
    size = (directory / "bench.sqlite3").stat().st_size
    print(f"\nfile after the run: {size / 1024:.0f} KiB for {rounds} sessions and {rounds} games")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    if args.dir is not None:
        asyncio.run(run(args.rounds, args.dir))
        return
    with tempfile.TemporaryDirectory(prefix="gomoku-datafile-", dir=Path.home()) as tmp:
        asyncio.run(run(args.rounds, Path(tmp)))


if __name__ == "__main__":
    main()
