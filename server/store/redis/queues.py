"""Matchmaking queues on Redis: per queue a sorted set of ratings and a hash of when
each player started waiting (and their name), changed by ``lua/queue_add.lua`` and
``lua/queue_remove.lua``; a set of queue names. Pairing runs
:func:`~server.store.base.pair_queue` under WATCH/MULTI, so every backend pairs by one
rule and two instances never take the same player."""

from __future__ import annotations

import asyncio
from typing import Any

from redis.exceptions import WatchError

from server.store.base import QueueEntry, pair_queue
from server.store.redis import codecs
from server.store.redis.codecs import text
from server.store.redis.core import RedisCore, runs_to_completion


class RedisQueues(RedisCore):
    """Quick-match queues shared by every instance."""

    def _queue_keys(self, queue: str) -> list[str]:
        return [self.keys.queue_ratings(queue), self.keys.queue_since(queue)]

    @runs_to_completion
    async def queue_add(self, queue: str, entry: QueueEntry) -> bool:
        waiting = codecs.encode_waiting(entry)
        args: list[str | bytes] = [entry.player_id, repr(float(entry.rating)), waiting]
        added = bool(await self.scripts.queue_add(self._queue_keys(queue), args))
        if added:
            await self.redis.sadd(self.keys.queue_names, queue)
        return added

    @runs_to_completion
    async def queue_remove(self, queue: str, player_id: str) -> bool:
        return bool(await self.scripts.queue_remove(self._queue_keys(queue), [player_id]))

    @runs_to_completion
    async def queue_entries(self, queue: str) -> list[QueueEntry]:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zrange(self.keys.queue_ratings(queue), 0, -1, withscores=True)
            pipe.hgetall(self.keys.queue_since(queue))
            ratings, since = await pipe.execute()
        return codecs.queue_entries(ratings, since)

    @runs_to_completion
    async def queue_names(self) -> list[str]:
        names = sorted(text(n) for n in await self.redis.smembers(self.keys.queue_names))
        if not names:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.zcard(self.keys.queue_ratings(name))
            sizes = await pipe.execute()
        return [name for name, size in zip(names, sizes, strict=True) if size]

    @runs_to_completion
    async def queue_pair(
        self, queue: str, now_ms: int, *, base_gap: float, gap_per_second: float
    ) -> list[tuple[QueueEntry, QueueEntry]]:
        ratings_key, since_key = self._queue_keys(queue)
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(ratings_key, since_key)
                    ratings: Any = await pipe.zrange(ratings_key, 0, -1, withscores=True)
                    since: Any = await pipe.hgetall(since_key)
                    pairs = pair_queue(
                        codecs.queue_entries(ratings, since),
                        now_ms,
                        base_gap=base_gap,
                        gap_per_second=gap_per_second,
                    )
                    if not pairs:
                        return []  # leaving the block resets the pipeline and its WATCH
                    pipe.multi()  # type: ignore[no-untyped-call]
                    taken = [e.player_id for pair in pairs for e in pair]
                    pipe.zrem(ratings_key, *taken)
                    pipe.hdel(since_key, *taken)
                    await pipe.execute()
                    return pairs
                except WatchError:
                    await asyncio.sleep(0)  # another instance paired first: look again
                    continue
