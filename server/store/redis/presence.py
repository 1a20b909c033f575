"""Presence on Redis: which connections, of any instance, are attached to a room, and
the instances' leases.

Per room a hash of attached connections (connection -> player) and a hash of counts
(per player, per instance, and the players in all), changed by ``lua/attach.lua`` and
``lua/detach.lua``; per instance a set of the rooms it has connections attached to, and
one sorted set of every instance's lease. A survivor reaps the attachments of an
instance whose lease ran out (``lua/reap.lua``), room by room.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from server.store.base import Attachment, Attendance
from server.store.redis.codecs import text
from server.store.redis.core import RedisCore, call_token, runs_to_completion


class RedisPresence(RedisCore):
    """Attachments of connections to rooms, and instance leases."""

    async def attach(self, room_id: str, player_id: str, conn_id: str) -> int | None:
        instance = conn_id.partition("/")[0]
        keys = [
            self.keys.room_state(room_id),
            self.keys.room_conns(room_id),
            self.keys.room_people(room_id),
        ]
        # The instance's index first: a crash in between leaves an index entry for a room
        # where it has nothing attached, which its reaping skips. Both may run twice (the
        # hot path): the script attaches a connection once.
        index = ("SADD", self.keys.instance_rooms(instance), room_id)
        args = [conn_id, player_id, instance]
        count = (await self.hot_script([index], self.scripts.attach, keys, args))[-1]
        return None if count == -1 else int(count)

    async def detach(self, room_id: str, conn_id: str, now_ms: int) -> int | None:
        keys = [self.keys.room_conns(room_id), self.keys.room_people(room_id)]
        # The token tells a second run of this call from a second detach: the first
        # answers again, the second finds the connection gone.
        args: list[str | int] = [conn_id, now_ms, call_token()]
        count, mine = (await self.hot_script((), self.scripts.detach, keys, args))[-1]
        if count == -1:
            return None
        if mine == 0:  # this instance has nothing attached there any more
            await self.hot(("SREM", self.keys.instance_rooms(conn_id.partition("/")[0]), room_id))
        return int(count)

    async def connections_of(self, room_id: str, player_id: str) -> list[str]:
        found = (await self.hot(("HGETALL", self.keys.room_conns(room_id))))[0]
        if isinstance(found, dict):  # redis-py's pool, without the lane
            found = [item for pair in found.items() for item in pair]
        conns = zip(found[::2], found[1::2], strict=True)
        return sorted(text(conn) for conn, player in conns if text(player) == player_id)

    async def attendance(self, room_id: str, players: Sequence[str]) -> Attendance:
        fields = ["players"]
        for player in players:
            fields += [f"n:{player}", f"left:{player}"]
        replies = await self.hot(
            ("MULTI",),
            ("HMGET", self.keys.room_people(room_id), *fields),
            ("HGET", self.keys.room_state(room_id), "shown"),
            ("EXEC",),
        )
        found, shown = replies[-1]
        seated: dict[str, Attachment] = {}
        for i, player in enumerate(players):
            conns, left = found[1 + 2 * i], found[2 + 2 * i]
            if conns is not None or left is not None:
                seated[player] = Attachment(int(conns or 0), None if left is None else int(left))
        return Attendance(int(found[0] or 0), seated, int(shown or 0))

    @runs_to_completion
    async def data_epoch(self) -> str:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(self.keys.data_epoch, secrets.token_hex(8), nx=True)
            pipe.get(self.keys.data_epoch)
            _, epoch = await pipe.execute()
        return text(epoch)

    @runs_to_completion
    async def instance_beat(self, instance_id: str, until_ms: int) -> int | None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zscore(self.keys.instance_leases, instance_id)
            pipe.zadd(self.keys.instance_leases, {instance_id: until_ms})
            before, _ = await pipe.execute()
        return None if before is None else int(before)

    @runs_to_completion
    async def expired_instances(self, now_ms: int, lease_ms: int) -> list[str]:
        leases = self.keys.instance_leases
        seen: list[Any] = await self.redis.zrangebyscore(
            leases, "-inf", now_ms, start=0, num=20, withscores=True
        )
        if not seen:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for member, _score in seen:
                await self.scripts.claim(
                    [leases], [member, now_ms, "claim", now_ms + lease_ms], client=pipe
                )
            won = await pipe.execute()
        return [text(member) for (member, _), ok in zip(seen, won, strict=True) if ok == 1]

    @runs_to_completion
    async def reap_instance(self, instance_id: str, now_ms: int) -> dict[str, list[str]]:
        index = self.keys.instance_rooms(instance_id)
        rooms = sorted(text(r) for r in await self.redis.smembers(index))
        gone: dict[str, list[str]] = {}
        for room_id in rooms:
            keys = [self.keys.room_conns(room_id), self.keys.room_people(room_id)]
            players = await self.scripts.reap(keys, [instance_id, now_ms])
            if players:
                gone[room_id] = [text(p) for p in players]
        # Forgotten only once every room is done: a reaper that dies half-way leaves the
        # rest to the next one (the lease of the dead instance is still in the index).
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(index)
            pipe.zrem(self.keys.instance_leases, instance_id)
            await pipe.execute()
        return gone
