"""Who is who on Redis: sessions (under the hash of their resume token, with a time to
live that each use starts again), the rooms each player sits in, the rooms each player
owns (their cap of open rooms, ``lua/own_room.lua``), invite codes, and the AI seats
in play (one hash, so a restarted server finds them; a handover replaces a record
only if it is still the one the instance knew, ``lua/put_ai_seat.lua``)."""

from __future__ import annotations

from typing import Any, cast

from server.store.base import OWNED_ROOM_PENDING_MS
from server.store.redis.codecs import text
from server.store.redis.core import DAY_MS, RedisCore, runs_to_completion
from server.store.redis.scripts import PUT_AI_SEAT

OWNED_ROOMS_TTL_MS = 7 * DAY_MS
"""A player's count of open rooms is forgotten a week after the last room was counted."""


class RedisIdentity(RedisCore):
    """Sessions, players' rooms, owned rooms, invites and AI seats."""

    @runs_to_completion
    async def put_session(self, token_hash: str, data: bytes) -> None:
        await self.redis.set(self.keys.session(token_hash), data, px=self.session_ttl_ms)

    @runs_to_completion
    async def get_session(self, token_hash: str) -> bytes | None:
        # A session in use lives on: each look at it starts its time to live again.
        data: Any = await self.redis.getex(self.keys.session(token_hash), px=self.session_ttl_ms)
        return cast(bytes | None, data)

    @runs_to_completion
    async def delete_session(self, token_hash: str) -> None:
        await self.redis.delete(self.keys.session(token_hash))

    async def add_player_room(self, player_id: str, room_id: str) -> None:
        # The seat list lives as long as the player's session may (rooms that are gone are
        # dropped from it as it is read).
        key = self.keys.player_rooms(player_id)
        await self.hot(("SADD", key, room_id), ("PEXPIRE", key, self.session_ttl_ms))

    async def remove_player_room(self, player_id: str, room_id: str) -> None:
        await self.hot(("SREM", self.keys.player_rooms(player_id), room_id))

    @runs_to_completion
    async def player_rooms(self, player_id: str) -> list[str]:
        key = self.keys.player_rooms(player_id)
        rooms = sorted(text(r) for r in await self.redis.smembers(key))
        if not rooms:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for room_id in rooms:
                pipe.exists(self.keys.room_state(room_id))
            alive = await pipe.execute()
        gone = [room_id for room_id, ok in zip(rooms, alive, strict=True) if not ok]
        if gone:
            await self.redis.srem(key, *gone)
        return [room_id for room_id, ok in zip(rooms, alive, strict=True) if ok]

    @runs_to_completion
    async def add_owned_room(self, player_id: str, room_id: str, limit: int, now_ms: int) -> bool:
        key = self.keys.owned_rooms(player_id)
        args: list[str | int] = [room_id, now_ms, limit, OWNED_ROOMS_TTL_MS]
        # Every new room comes here: on the hot path (twice is harmless: the script counts
        # a room once).
        if (await self.hot_script((), self.scripts.own_room, [key], args))[-1]:
            return True
        # At the cap: forget rooms counted long enough ago that are gone, then look again.
        # (The rooms live in other cluster slots, so this cannot be part of the script;
        # forgetting a gone room twice is harmless.)
        counted: list[Any] = await self.redis.zrangebyscore(
            key, "-inf", now_ms - OWNED_ROOM_PENDING_MS
        )
        settled = [text(r) for r in counted]
        if not settled:
            return False
        async with self.redis.pipeline(transaction=False) as pipe:
            for owned in settled:
                pipe.exists(self.keys.room_state(owned))
            alive = await pipe.execute()
        gone = [r for r, ok in zip(settled, alive, strict=True) if not ok]
        if not gone:
            return False
        await self.redis.zrem(key, *gone)
        return bool(await self.scripts.own_room([key], args))

    async def remove_owned_room(self, player_id: str, room_id: str) -> None:
        await self.hot(("ZREM", self.keys.owned_rooms(player_id), room_id))

    @runs_to_completion
    async def owned_rooms(self, player_id: str) -> list[str]:
        owned: list[Any] = await self.redis.zrange(self.keys.owned_rooms(player_id), 0, -1)
        return sorted(text(r) for r in owned)

    @runs_to_completion
    async def put_invite(self, code: str, room_id: str) -> bool:
        key = self.keys.invite(code)
        if await self.redis.set(key, room_id, nx=True):
            return True
        holder = await self.redis.get(key)
        if holder is not None and await self.redis.exists(self.keys.room_state(text(holder))):
            return False
        # The code belonged to a room that is gone: take it over, unless someone else just did.
        return bool(await self.scripts.invite_replace([key], [holder or b"", room_id]))

    @runs_to_completion
    async def get_invite(self, code: str) -> str | None:
        room_id = await self.redis.get(self.keys.invite(code))
        if room_id is None or not await self.redis.exists(self.keys.room_state(text(room_id))):
            return None
        return text(room_id)

    @runs_to_completion
    async def put_ai_seat(
        self,
        player_id: str,
        data: bytes,
        *,
        replacing: bytes | None = None,
        within: int | None = None,
    ) -> bool:
        key = self.keys.ai_seats
        if replacing is None and within is None:
            await self.redis.hset(key, player_id, data)
            return True
        # EVAL rather than a registered script: seats are given out far less often than
        # moves are made, and the check and the write must be one step so that two
        # instances never both win (a handover) or both take the last free seat.
        written: Any = await self.redis.eval(
            PUT_AI_SEAT,
            1,
            key,
            player_id,
            data,
            replacing or b"",
            "0" if replacing is None else "1",
            -1 if within is None else within,
        )
        return bool(written)

    @runs_to_completion
    async def drop_ai_seat(self, player_id: str) -> bool:
        return bool(await self.redis.hdel(self.keys.ai_seats, player_id))

    @runs_to_completion
    async def ai_seats(self) -> dict[str, bytes]:
        seats: dict[Any, Any] = await self.redis.hgetall(self.keys.ai_seats)
        return {text(player_id): data for player_id, data in seats.items()}
