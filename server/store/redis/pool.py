"""The shared AI pool on Redis (the contract: :mod:`server.store.pool`).

Jobs: a stream per queue with one consumer group (``takers``); a taker is a consumer.
``XADD`` puts, ``XREADGROUP ... >`` takes (the entry becomes pending for the taker),
``XACK`` plus ``XDEL`` finishes (so a stream holds only jobs waiting or taken), and
``XAUTOCLAIM`` takes over jobs pending longer than the idle time. Answers: a list per
reply id (``RPUSH`` with an expiry, ``BLPOP``). Worker and instance records: a hash
each, with a sorted set of lease ends beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from redis.exceptions import ResponseError

from server.store.pool import ANSWER_TTL_MS, PoolJob, QueueDepth
from server.store.redis.codecs import text
from server.store.redis.core import RedisCore, runs_to_completion

GROUP = "takers"
MAX_BLOCK_MS = 2_000
"""A blocking read never waits longer than this (well inside the socket timeout)."""


class RedisAiPool(RedisCore):
    """Jobs, answers, and worker and instance records, shared by every instance."""

    def __init__(self, url: str, **options: Any) -> None:
        super().__init__(url, **options)
        self._grouped: set[str] = set()
        """Queues whose stream and consumer group this process knows exist."""

    async def _group(self, queue: str) -> str:
        """The queue's stream key, with its stream and consumer group made if missing
        (a group made at id 0, so jobs put before it existed are taken too)."""
        key = self.keys.ai_jobs(queue)
        if queue not in self._grouped:
            try:
                await self.redis.xgroup_create(key, GROUP, id="0", mkstream=True)
            except ResponseError as error:
                if "BUSYGROUP" not in str(error):
                    raise
            await self.redis.sadd(self.keys.ai_queues, queue)
            self._grouped.add(queue)
        return key

    @runs_to_completion
    async def pool_put(self, queue: str, data: bytes) -> str:
        key = await self._group(queue)
        return text(await self.redis.xadd(key, {"d": data}))

    @runs_to_completion
    async def pool_take(
        self, taker: str, queues: Sequence[str], count: int, block_ms: int
    ) -> list[PoolJob]:
        if count <= 0 or not queues:
            return []
        streams: dict[Any, Any] = {await self._group(queue): ">" for queue in queues}
        by_key = {self.keys.ai_jobs(queue): queue for queue in queues}
        block = min(block_ms, MAX_BLOCK_MS) if block_ms > 0 else None
        try:
            reply: Any = await self.redis.xreadgroup(
                GROUP, taker, streams, count=count, block=block
            )
        except ResponseError as error:
            if "NOGROUP" not in str(error):
                raise
            self._grouped.difference_update(queues)  # Redis lost them (see pool_reclaim)
            return []
        taken = []
        for key, entries in reply or []:
            for job_id, fields in entries:
                if fields:  # an entry deleted meanwhile has no fields
                    taken.append(PoolJob(by_key[text(key)], text(job_id), fields[b"d"]))
        return taken

    @runs_to_completion
    async def pool_reclaim(self, taker: str, queue: str, idle_ms: int, count: int) -> list[PoolJob]:
        key = await self._group(queue)
        try:
            reply: Any = await self.redis.xautoclaim(key, GROUP, taker, idle_ms, "0-0", count=count)
        except ResponseError as error:
            if "NOGROUP" not in str(error):
                raise
            # Redis lost the group (it restarted without its data): made again next time.
            # This raised every second, before any take, and the AI pool stopped for good.
            self._grouped.discard(queue)
            return []
        return [PoolJob(queue, text(job_id), fields[b"d"]) for job_id, fields in reply[1] if fields]

    @runs_to_completion
    async def pool_done(self, queue: str, job_id: str) -> bool:
        key = self.keys.ai_jobs(queue)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.xack(key, GROUP, job_id)
            pipe.xdel(key, job_id)
            _, deleted = await pipe.execute()
        return bool(deleted)

    @runs_to_completion
    async def pool_depths(self) -> dict[str, QueueDepth]:
        queues = sorted(text(q) for q in await self.redis.smembers(self.keys.ai_queues))
        depths = {}
        for queue in queues:
            key = self.keys.ai_jobs(queue)
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.xlen(key)
                pipe.xpending(key, GROUP)
                length, pending = await pipe.execute(raise_on_error=False)
            taken = pending["pending"] if isinstance(pending, dict) else 0
            total = length if isinstance(length, int) else 0
            depths[queue] = QueueDepth(max(0, total - taken), taken)
        return depths

    @runs_to_completion
    async def pool_answer(self, reply: str, data: bytes) -> None:
        key = self.keys.ai_answer(reply)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.rpush(key, data)
            pipe.pexpire(key, ANSWER_TTL_MS)
            await pipe.execute()

    async def pool_answer_wait(self, reply: str, timeout_ms: int) -> bytes | None:
        key = self.keys.ai_answer(reply)
        left = max(0, timeout_ms)
        while True:
            wait = min(left, MAX_BLOCK_MS)
            answer = await self._pop_answer(key, wait)
            if answer is not None or left <= wait:
                return answer
            left -= wait

    @runs_to_completion
    async def _pop_answer(self, key: str, wait_ms: int) -> bytes | None:
        if wait_ms <= 0:
            data: Any = await self.redis.lpop(key)
            return None if data is None else bytes(data)
        popped: Any = await self.redis.blpop([key], timeout=wait_ms / 1000)
        return None if popped is None else bytes(popped[1])

    # -- records with a lease -------------------------------------------------------------

    async def _put_leased(
        self, records: str, leases: str, name: str, data: bytes, until: int
    ) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(records, name, data)
            pipe.zadd(leases, {name: until})
            await pipe.execute()

    async def _live(self, records: str, leases: str, now_ms: int) -> dict[str, bytes]:
        gone: Any = await self.redis.zrangebyscore(leases, "-inf", f"({now_ms}")
        if gone:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.zremrangebyscore(leases, "-inf", f"({now_ms}")
                pipe.hdel(records, *gone)
                await pipe.execute()
        live: Any = await self.redis.zrangebyscore(leases, now_ms, "+inf")
        names = sorted(text(n) for n in live)
        if not names:
            return {}
        values: Any = await self.redis.hmget(records, names)
        return {name: bytes(v) for name, v in zip(names, values, strict=True) if v is not None}

    @runs_to_completion
    async def put_worker(self, worker: str, data: bytes, until_ms: int) -> None:
        await self._put_leased(
            self.keys.ai_workers, self.keys.ai_worker_leases, worker, data, until_ms
        )

    async def _drop_leased(self, records: str, leases: str, name: str) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hdel(records, name)
            pipe.zrem(leases, name)
            await pipe.execute()

    @runs_to_completion
    async def drop_worker(self, worker: str) -> None:
        await self._drop_leased(self.keys.ai_workers, self.keys.ai_worker_leases, worker)

    @runs_to_completion
    async def workers(self, now_ms: int) -> dict[str, bytes]:
        return await self._live(self.keys.ai_workers, self.keys.ai_worker_leases, now_ms)

    @runs_to_completion
    async def put_instance_info(self, instance: str, data: bytes, until_ms: int) -> None:
        await self._put_leased(
            self.keys.instance_info, self.keys.instance_info_leases, instance, data, until_ms
        )

    @runs_to_completion
    async def drop_instance_info(self, instance: str) -> None:
        await self._drop_leased(self.keys.instance_info, self.keys.instance_info_leases, instance)

    @runs_to_completion
    async def instance_infos(self, now_ms: int) -> dict[str, bytes]:
        return await self._live(self.keys.instance_info, self.keys.instance_info_leases, now_ms)
