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

A room with no deadline at all (a waiting room whose game started untimed, a finished
game) leaves the index, so the ticker does not look at it every lease for as long as
the room is kept. It cannot simply be removed: a commit that gives the room a deadline
at that moment may have filed it already, as a no-op (``LT`` against the earlier entry),
and the hash not yet hold it. So it is parked (``{clocks}:parked``, same slot, moved
atomically) and looked at once more a lease later, when any such commit has long ended:
still no deadline, it is forgotten; a deadline since, it is filed in the index again.
"""

from __future__ import annotations

from typing import Any

from server.store.base import Outage
from server.store.redis.codecs import text
from server.store.redis.core import RedisCore, runs_to_completion
from server.store.redis.lane import Arg

_Action = tuple[str, int, str, int, int | None]
"""A room, the score seen, the action of ``claim.lua``, its new score, and the room's due
time if the action is a claim."""


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
        # Every instance asks several times a second, mostly to hear "nothing": the first
        # look at both sets is one call on the lane. (With the beat, three redis-py calls
        # a tick kept an idle instance at 17 ms of CPU a second; on the lane, 8-9 ms.)
        parked, seen = await self.hot(
            _due_command(self.keys.parked, now_ms, limit),
            _due_command(self.keys.deadlines, now_ms, limit),
        )
        await self._look_at_parked(_scored(parked))
        seen = _scored(seen)
        claimed: list[tuple[int, str]] = []
        for round_ in range(3):  # each round re-files or leases what it saw, so rounds progress
            want = limit - len(claimed)
            if want <= 0:
                break
            if round_:
                seen = await self._due(self.keys.deadlines, now_ms, want)
            if not seen:
                break
            actions: list[_Action] = []
            for (room_id, score), (exists, real) in zip(seen, await self._facts(seen), strict=True):
                if not exists:
                    actions.append((room_id, score, "drop", 0, None))
                elif real is None:
                    actions.append((room_id, score, "park", now_ms + lease_ms, None))
                elif real <= now_ms:
                    actions.append((room_id, now_ms, "claim", now_ms + lease_ms, real))
                else:
                    actions.append((room_id, score, "move", min(real, now_ms + lease_ms), None))
            won = await self._apply(actions)
            claimed += [
                (real, room_id)
                for (room_id, _s, action, _n, real), ok in zip(actions, won, strict=True)
                if action == "claim" and ok == 1 and real is not None
            ]
            if len(seen) < want:
                break
        return [room_id for _, room_id in sorted(claimed)]

    async def _look_at_parked(self, seen: list[tuple[str, int]]) -> None:
        """The rooms ``seen`` parked a lease ago or more: forgotten if they still have no
        deadline (or are gone), filed in the index again at their deadline if they have one."""
        if not seen:
            return
        actions: list[_Action] = [
            (room_id, score, "forget", 0, None)
            if not exists or real is None
            else (room_id, score, "unpark", real, None)
            for (room_id, score), (exists, real) in zip(seen, await self._facts(seen), strict=True)
        ]
        await self._apply(actions)

    async def _due(self, key: str, now_ms: int, limit: int) -> list[tuple[str, int]]:
        """Up to ``limit`` members of the sorted set ``key`` due by ``now_ms``, with scores."""
        (seen,) = await self.hot(_due_command(key, now_ms, limit))
        return _scored(seen)

    async def _facts(self, rooms: list[tuple[str, int]]) -> list[tuple[bool, int | None]]:
        """For each room: whether it exists, and its earliest due time (its clock's
        deadline or a held spectator count's), if any."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for room_id, _score in rooms:
                pipe.hmget(self.keys.room_state(room_id), ["version", "deadline", "count_due"])
            replies = await pipe.execute()
        facts: list[tuple[bool, int | None]] = []
        for version, *dues in replies:
            known = [int(d) for d in dues if d is not None]
            facts.append((version is not None, min(known) if known else None))
        return facts

    async def _apply(self, actions: list[_Action]) -> list[int]:
        """Run each action of ``claim.lua``; 1 for each claim won."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for room_id, score, action, new_score, _real in actions:
                await self.scripts.claim(
                    [self.keys.deadlines, self.keys.parked],
                    [room_id, score, action, new_score],
                    client=pipe,
                )
            return list(await pipe.execute())

    @runs_to_completion
    async def beat(self, now_ms: int, gap_ms: int) -> Outage | None:
        # On the lane, as the look for due rooms: a beat run twice (after a lost
        # connection) finds no gap the second time and answers the same outage.
        replies = await self.hot_script(
            (), self.scripts.beat, [self.keys.clock_beat], [now_ms, gap_ms]
        )
        start, end = replies[-1]
        return None if start is None or end is None else Outage(int(start), int(end))


def _due_command(key: str, now_ms: int, limit: int) -> tuple[Arg, ...]:
    """ZRANGEBYSCORE for up to ``limit`` members of ``key`` due by ``now_ms``, with scores."""
    return ("ZRANGEBYSCORE", key, "-inf", now_ms, "WITHSCORES", "LIMIT", 0, limit)


def _scored(reply: Any) -> list[tuple[str, int]]:
    """The members and scores of a ZRANGEBYSCORE ... WITHSCORES reply: RESP3 pairs (as
    redis-py's pool reads them) or RESP2's flat list (as the lane reads them)."""
    if reply and not isinstance(reply[0], list | tuple):
        reply = list(zip(reply[0::2], reply[1::2], strict=True))
    return [(text(member), int(float(score))) for member, score in reply]
