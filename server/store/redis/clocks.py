"""Clock deadlines and the beat on Redis.

The room hash holds the authoritative deadline; the sorted set ``{clocks}:due`` is an
index of when to look at a room. It lives in another slot than the rooms, so it cannot
be written in the commit script on a cluster. Instead, before the commit the new
deadline is added with ``ZADD LT`` (the index may only move *earlier*, never past the
real deadline), and :meth:`RedisClocks.claim_due` checks every due index entry against
its room: truly due rooms are claimed with a lease (atomically, ``lua/claim.lua``, so
one instance wins), others are re-filed at ``min(real deadline, now + lease)``. A crash
anywhere can only make the index early, which costs one extra check, never a missed
flag. Every instance beats (``lua/beat.lua``), so a gap in the beats shows an outage.
"""

from __future__ import annotations

from typing import Any

from server.store.base import Outage
from server.store.redis.codecs import text
from server.store.redis.core import RedisCore, runs_to_completion


class RedisClocks(RedisCore):
    """Deadlines claimed by any instance, and the beat that finds outages."""

    @runs_to_completion
    async def set_deadline(self, room_id: str, deadline_ms: int | None) -> None:
        state_key = self.keys.room_state(room_id)
        if deadline_ms is None:
            await self.scripts.set_deadline([state_key], [""])
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(self.keys.deadlines, {room_id: deadline_ms}, lt=True)
            await self.scripts.set_deadline([state_key], [deadline_ms], client=pipe)
            await pipe.execute()

    @runs_to_completion
    async def claim_due(self, now_ms: int, lease_ms: int, limit: int = 100) -> list[str]:
        claimed: list[tuple[int, str]] = []
        for _ in range(3):  # each round re-files or leases what it saw, so rounds progress
            want = limit - len(claimed)
            if want <= 0:
                break
            seen: list[Any] = await self.redis.zrangebyscore(
                self.keys.deadlines, "-inf", now_ms, start=0, num=want, withscores=True
            )
            if not seen:
                break
            rooms = [(text(member), int(score)) for member, score in seen]
            async with self.redis.pipeline(transaction=False) as pipe:
                for room_id, _score in rooms:
                    pipe.hmget(self.keys.room_state(room_id), ["version", "deadline", "count_due"])
                facts = await pipe.execute()
            actions: list[tuple[str, int, str, int, int | None]] = []
            for (room_id, score), (version, *dues) in zip(rooms, facts, strict=True):
                known = [int(d) for d in dues if d is not None]
                real = min(known) if known else None
                if version is None:
                    actions.append((room_id, score, "drop", 0, None))
                elif real is None:
                    actions.append((room_id, score, "move", now_ms + lease_ms, None))
                elif real <= now_ms:
                    actions.append((room_id, now_ms, "claim", now_ms + lease_ms, real))
                else:
                    actions.append((room_id, score, "move", min(real, now_ms + lease_ms), None))
            async with self.redis.pipeline(transaction=False) as pipe:
                for room_id, score, action, new_score, _real in actions:
                    await self.scripts.claim(
                        [self.keys.deadlines], [room_id, score, action, new_score], client=pipe
                    )
                won = await pipe.execute()
            claimed += [
                (real, room_id)
                for (room_id, _s, action, _n, real), ok in zip(actions, won, strict=True)
                if action == "claim" and ok == 1 and real is not None
            ]
            if len(seen) < want:
                break
        return [room_id for _, room_id in sorted(claimed)]

    @runs_to_completion
    async def beat(self, now_ms: int, gap_ms: int) -> Outage | None:
        start, end = await self.scripts.beat([self.keys.clock_beat], [now_ms, gap_ms])
        return None if start is None or end is None else Outage(int(start), int(end))
