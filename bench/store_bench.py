"""Store speed: moves per second and commit latency, memory store vs Redis store, in one run.

Run: ``.venv/bin/python bench/store_bench.py [--redis URL] [--games N] [--moves N]``.
Without ``--redis`` it starts a throw-away ``redis-server`` on a free port (no
persistence) and stops it at the end.

What it measures, per backend:

- *sequential*: one game, one move at a time (load, commit with one event and
  a new clock deadline), as a server does for one room: commit latency p50/p99;
- *parallel*: ``--games`` games moving concurrently, each move a load + commit,
  as a busy server does: moves per second, and per-move latency p50/p99.

And, for Redis only, the two ways to do the check-and-set: the Lua script the
store uses vs an equivalent WATCH/MULTI/EXEC transaction, sequentially and with
two writers racing on one room (where WATCH retries).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager

from redis.asyncio import Redis
from redis.exceptions import WatchError

from server.store import Conflict, MemoryStore, Store
from server.store.redis import RedisStore

STATE = bytes(600)  # about a mid-game room encoded as MessagePack
EVENT = bytes(60)  # about one `moved` event


@contextmanager
def throwaway_redis() -> Iterator[str]:
    """A redis-server on a free port in a temp dir, without persistence; its URL."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server not found: install it or pass --redis URL")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as directory:
        command = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
        command += ["--appendonly", "no", "--dir", directory]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        try:
            for _ in range(500):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                    break
                except OSError:
                    time.sleep(0.01)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            process.wait(timeout=10)


def _ms(samples_ns: list[int], q: float) -> float:
    ordered = sorted(samples_ns)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1e6


async def _play(store: Store, room_id: str, moves: int, samples: list[int]) -> None:
    await store.commit(room_id, 0, STATE)
    for move in range(moves):
        start = time.perf_counter_ns()
        record = await store.load_room(room_id)
        assert record is not None
        await store.commit(room_id, record.version, STATE, [EVENT], deadline_ms=10**12 + move)
        samples.append(time.perf_counter_ns() - start)


async def bench_store(name: str, store: Store, games: int, moves: int) -> None:
    await store.start()
    try:
        sequential: list[int] = []
        await _play(store, f"{name}-seq", moves * 2, sequential)
        parallel: list[int] = []
        start = time.perf_counter()
        await asyncio.gather(*(_play(store, f"{name}-{g}", moves, parallel) for g in range(games)))
        elapsed = time.perf_counter() - start
        print(
            f"{name:>6}: sequential commit p50 {_ms(sequential, 0.5):6.3f} ms"
            f"  p99 {_ms(sequential, 0.99):6.3f} ms  ({1e9 / statistics.mean(sequential):8.0f}"
            f" moves/s) | {games} games in parallel: {len(parallel) / elapsed:8.0f} moves/s,"
            f" move p50 {_ms(parallel, 0.5):7.3f} ms p99 {_ms(parallel, 0.99):7.3f} ms"
        )
    finally:
        await store.close()


async def _watch_multi_commit(client: Redis, store: RedisStore, room: str, version: int) -> bool:
    """The store's commit done with WATCH/MULTI instead of Lua; False on a lost race."""
    state_key, events_key = store.keys.room_state(room), store.keys.room_events(room)
    async with client.pipeline(transaction=True) as pipe:
        await pipe.watch(state_key)
        current, seq = await pipe.hmget(state_key, ["version", "seq"])
        if int(current or 0) != version:
            return False
        new_seq = int(seq or 0) + 1
        pipe.multi()  # type: ignore[no-untyped-call]
        pipe.xadd(events_key, {"d": EVENT}, id=f"{new_seq}-0", maxlen=store.max_events)
        pipe.hset(state_key, mapping={"version": version + 1, "seq": new_seq, "state": STATE})
        pipe.publish(store.keys.room_bell(room), new_seq)
        try:
            await pipe.execute()
        except WatchError:
            return False
        return True


async def _time(n: int, step: Callable[[int], Awaitable[object]]) -> list[int]:
    samples = []
    for i in range(n):
        start = time.perf_counter_ns()
        await step(i)
        samples.append(time.perf_counter_ns() - start)
    return samples


async def bench_cas(url: str, n: int) -> None:
    store = RedisStore(url)
    await store.start()
    client: Redis = Redis.from_url(url)
    try:
        await store.commit("lua", 0, STATE)
        await store.commit("watch", 0, STATE)
        await store.commit("race-lua", 0, STATE)
        await store.commit("race-watch", 0, STATE)
        lua = await _time(n, lambda i: store.commit("lua", i + 1, STATE, [EVENT]))
        watch = await _time(n, lambda i: _watch_multi_commit(client, store, "watch", i + 1))
        print(
            f"   CAS: Lua script p50 {_ms(lua, 0.5):.3f} ms p99 {_ms(lua, 0.99):.3f} ms"
            f" | WATCH/MULTI p50 {_ms(watch, 0.5):.3f} ms p99 {_ms(watch, 0.99):.3f} ms"
        )

        async def lua_writer(room: str, rounds: int) -> int:
            wins = 0
            for _ in range(rounds):
                record = await store.load_room(room)
                assert record is not None
                try:
                    await store.commit(room, record.version, STATE, [EVENT])
                    wins += 1
                except Conflict:
                    pass
            return wins

        async def watch_writer(room: str, rounds: int) -> int:
            wins = 0
            for _ in range(rounds):
                record = await store.load_room(room)
                assert record is not None
                wins += await _watch_multi_commit(client, store, room, record.version)
            return wins

        for label, writer, room in (
            ("Lua", lua_writer, "race-lua"),
            ("WATCH/MULTI", watch_writer, "race-watch"),
        ):
            start = time.perf_counter()
            wins = await asyncio.gather(writer(room, n // 2), writer(room, n // 2))
            elapsed = time.perf_counter() - start
            record = await store.load_room(room)
            assert record is not None
            assert record.version == 1 + sum(wins)  # nothing lost
            print(
                f"   race, 2 writers x {n // 2} tries ({label}): {sum(wins)} commits landed,"
                f" {sum(wins) / elapsed:.0f} commits/s"
            )
    finally:
        await client.aclose()
        await store.close()


async def main_async(url: str, games: int, moves: int) -> None:
    await bench_store("memory", MemoryStore(), games, moves)
    await bench_store("redis", RedisStore(url), games, moves)
    await bench_cas(url, moves * 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--redis", help="Redis URL (default: start a throw-away redis-server)")
    parser.add_argument("--games", type=int, default=50, help="games in parallel (50)")
    parser.add_argument("--moves", type=int, default=200, help="moves per game (200)")
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus")
    if args.redis:
        asyncio.run(main_async(args.redis, args.games, args.moves))
    else:
        with throwaway_redis() as url:
            asyncio.run(main_async(url, args.games, args.moves))


if __name__ == "__main__":
    main()
