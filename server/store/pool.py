"""The shared AI pool's part of the store: AI work as jobs that any server instance with
a worker can take, the answers to them, and what every instance and worker publishes
about itself (for capacity checks, ``/metrics`` and ``gomoku-server status``).

* **Jobs** wait in a queue per name (a level for AI seats, ``hint`` for hints), oldest
  first. :meth:`AiPool.pool_take` hands each waiting job to one taker (an instance, on
  behalf of its workers); the job stays *taken* until :meth:`AiPool.pool_done`. A taken
  job whose taker did not finish it within ``idle_ms`` (the instance died) is taken over
  by :meth:`AiPool.pool_reclaim`. Delivery is at least once: whoever acts on a job
  checks that it still applies (the seat's token, the room's position) before it acts.
  On Redis this is a stream per queue with one consumer group (``XADD``,
  ``XREADGROUP``, ``XACK``+``XDEL``, ``XAUTOCLAIM``).
* **Answers**: a job that needs a reply (a hint) names a reply key; the taker posts the
  answer there (:meth:`AiPool.pool_answer`) and the asker waits for it
  (:meth:`AiPool.pool_answer_wait`). An answer nobody reads is forgotten after a while.
* **Workers and instances**: records (opaque bytes here) with a lease each; records
  whose lease ran out are not listed.

Values are opaque bytes; :class:`MemoryAiPool` is the in-process implementation (the
memory store's), :mod:`server.store.redis.pool` the Redis one, and
``tests/test_pool_contract.py`` holds both to one contract.
"""

from __future__ import annotations

import abc
import asyncio
import itertools
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

ANSWER_TTL_MS = 60_000
"""How long an answer nobody waited for stays in the store."""


class PoolJob(NamedTuple):
    """A job as a taker got it: the queue it waited in, its id there, and its data."""

    queue: str
    job_id: str
    data: bytes


class QueueDepth(NamedTuple):
    """A queue's jobs: waiting for a taker, and taken (not done yet)."""

    waiting: int
    taken: int


class AiPool(abc.ABC):
    """Jobs, answers, and the records of workers and instances."""

    # -- jobs ----------------------------------------------------------------------

    @abc.abstractmethod
    async def pool_put(self, queue: str, data: bytes) -> str:
        """Put a job at the end of ``queue``; its id."""

    @abc.abstractmethod
    async def pool_take(
        self, taker: str, queues: Sequence[str], count: int, block_ms: int
    ) -> list[PoolJob]:
        """Take up to ``count`` waiting jobs from each of ``queues`` (oldest first) for
        ``taker``, waiting up to ``block_ms`` (at most 2000) for one if none waits (0:
        do not wait). Each job taken is held until done or taken over."""

    @abc.abstractmethod
    async def pool_reclaim(self, taker: str, queue: str, idle_ms: int, count: int) -> list[PoolJob]:
        """Take over for ``taker`` up to ``count`` taken jobs of ``queue`` handed out more
        than ``idle_ms`` ago and not done (their taker is presumably gone)."""

    @abc.abstractmethod
    async def pool_done(self, queue: str, job_id: str) -> bool:
        """The job is finished (or found not to apply any more): out of the pool. False
        if it was not there (done already)."""

    @abc.abstractmethod
    async def pool_depths(self) -> dict[str, QueueDepth]:
        """Every queue ever used, by name, with its jobs waiting and taken."""

    # -- answers -------------------------------------------------------------------

    @abc.abstractmethod
    async def pool_answer(self, reply: str, data: bytes) -> None:
        """Post an answer under ``reply`` (an id the asker chose)."""

    @abc.abstractmethod
    async def pool_answer_wait(self, reply: str, timeout_ms: int) -> bytes | None:
        """The first answer posted under ``reply``, waiting up to ``timeout_ms`` for it;
        None if none came. An answer is read once."""

    # -- records with a lease ----------------------------------------------------------

    @abc.abstractmethod
    async def put_worker(self, worker: str, data: bytes, until_ms: int) -> None:
        """Record (or replace) an AI worker's record, live until ``until_ms``."""

    @abc.abstractmethod
    async def drop_worker(self, worker: str) -> None:
        """Forget a worker's record (no-op if unknown)."""

    @abc.abstractmethod
    async def workers(self, now_ms: int) -> dict[str, bytes]:
        """Every worker whose record is live at ``now_ms``, by id (sorted)."""

    @abc.abstractmethod
    async def put_instance_info(self, instance: str, data: bytes, until_ms: int) -> None:
        """Record (or replace) what a server instance publishes about itself."""

    @abc.abstractmethod
    async def drop_instance_info(self, instance: str) -> None:
        """Forget an instance's record (no-op if unknown): it stopped cleanly, so it
        leaves the cluster's figures at once rather than when its lease runs out."""

    @abc.abstractmethod
    async def instance_infos(self, now_ms: int) -> dict[str, bytes]:
        """Every instance whose record is live at ``now_ms``, by id (sorted)."""


@dataclass
class _Job:
    queue: str
    data: bytes
    holder: str | None = None
    taken_ms: float = 0.0


class _Leased:
    """Records with a lease each, in a dict."""

    def __init__(self) -> None:
        self.records: dict[str, tuple[bytes, int]] = {}

    def live(self, now_ms: int) -> dict[str, bytes]:
        for key in [k for k, (_, until) in self.records.items() if until < now_ms]:
            del self.records[key]
        return {key: data for key, (data, _) in sorted(self.records.items())}


class MemoryAiPool(AiPool):
    """The AI pool in this process: deques, dicts, and a future that wakes takers."""

    def __init__(self) -> None:
        self._waiting: dict[str, deque[str]] = {}
        self._jobs: dict[str, _Job] = {}
        self._job_ids = itertools.count(1)
        self._arrival: asyncio.Future[None] | None = None
        self._answers: dict[str, deque[tuple[bytes, float]]] = {}
        self._answered: asyncio.Future[None] | None = None
        self._workers = _Leased()
        self._instance_info = _Leased()

    @staticmethod
    def _wake(future: asyncio.Future[None] | None) -> None:
        if future is not None and not future.done():
            future.set_result(None)

    @staticmethod
    async def _until(future: asyncio.Future[None], timeout_ms: float) -> bool:
        """Wait for ``future`` (shared by every waiter) up to ``timeout_ms``; whether it came."""
        try:
            await asyncio.wait_for(asyncio.shield(future), max(0.0, timeout_ms) / 1000)
        except TimeoutError:
            return False
        return True

    async def pool_put(self, queue: str, data: bytes) -> str:
        job_id = f"{next(self._job_ids)}"
        self._jobs[job_id] = _Job(queue, data)
        self._waiting.setdefault(queue, deque()).append(job_id)
        self._wake(self._arrival)
        return job_id

    def _pop(self, taker: str, queues: Sequence[str], count: int) -> list[PoolJob]:
        taken: list[PoolJob] = []
        for queue in queues:
            waiting = self._waiting.get(queue)
            for _ in range(count):
                if not waiting:
                    break
                job_id = waiting.popleft()
                job = self._jobs[job_id]
                job.holder, job.taken_ms = taker, _now_ms()
                taken.append(PoolJob(queue, job_id, job.data))
        return taken

    async def pool_take(
        self, taker: str, queues: Sequence[str], count: int, block_ms: int
    ) -> list[PoolJob]:
        taken = self._pop(taker, queues, count)
        if taken or block_ms <= 0 or count <= 0 or not queues:
            return taken
        if self._arrival is None or self._arrival.done():
            self._arrival = asyncio.get_running_loop().create_future()
        if not await self._until(self._arrival, min(block_ms, 2000)):
            return []
        return self._pop(taker, queues, count)

    async def pool_reclaim(self, taker: str, queue: str, idle_ms: int, count: int) -> list[PoolJob]:
        now = _now_ms()
        taken: list[PoolJob] = []
        for job_id, job in self._jobs.items():
            if len(taken) >= count:
                break
            if job.queue == queue and job.holder is not None and now - job.taken_ms > idle_ms:
                job.holder, job.taken_ms = taker, now
                taken.append(PoolJob(queue, job_id, job.data))
        return taken

    async def pool_done(self, queue: str, job_id: str) -> bool:
        job = self._jobs.get(job_id)
        if job is None or job.queue != queue:
            return False
        del self._jobs[job_id]
        if job.holder is None:
            self._waiting[queue].remove(job_id)
        return True

    async def pool_depths(self) -> dict[str, QueueDepth]:
        depths = {queue: [len(waiting), 0] for queue, waiting in self._waiting.items()}
        for job in self._jobs.values():
            if job.holder is not None:
                depths[job.queue][1] += 1
        return {queue: QueueDepth(*counts) for queue, counts in sorted(depths.items())}

    async def pool_answer(self, reply: str, data: bytes) -> None:
        now = _now_ms()
        for key in [k for k, q in self._answers.items() if q and q[0][1] < now]:
            del self._answers[key]  # answers nobody waited for
        self._answers.setdefault(reply, deque()).append((data, now + ANSWER_TTL_MS))
        self._wake(self._answered)

    async def pool_answer_wait(self, reply: str, timeout_ms: int) -> bytes | None:
        end = _now_ms() + timeout_ms
        while True:
            answers = self._answers.get(reply)
            if answers:
                data, _ = answers.popleft()
                if not answers:
                    del self._answers[reply]
                return data
            if self._answered is None or self._answered.done():
                self._answered = asyncio.get_running_loop().create_future()
            if not await self._until(self._answered, end - _now_ms()):
                return None

    async def put_worker(self, worker: str, data: bytes, until_ms: int) -> None:
        self._workers.records[worker] = (data, until_ms)

    async def drop_worker(self, worker: str) -> None:
        self._workers.records.pop(worker, None)

    async def workers(self, now_ms: int) -> dict[str, bytes]:
        return self._workers.live(now_ms)

    async def put_instance_info(self, instance: str, data: bytes, until_ms: int) -> None:
        self._instance_info.records[instance] = (data, until_ms)

    async def drop_instance_info(self, instance: str) -> None:
        self._instance_info.records.pop(instance, None)

    async def instance_infos(self, now_ms: int) -> dict[str, bytes]:
        return self._instance_info.live(now_ms)


def _now_ms() -> float:
    return time.time() * 1000
