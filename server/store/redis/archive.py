"""Ratings and finished games on Redis (the :class:`~server.store.archive.Archive`
methods): per pool a hash of standings, a hash of when each player's last rated game
ended, a leaderboard sorted set, one of the players not settled yet and rated-once
markers under one hash tag, updated by a WATCH/MULTI transaction (Glicko-2 runs in
Python, :mod:`server.rating`); one string per finished game (no expiry) and per player
a sorted set of game ids by end time; one hash of display names. Live room keys expire;
these stay."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, cast

from redis.exceptions import WatchError

from server.rating import PlayerRating
from server.store.archive import (
    LEADERBOARD_SIZE,
    RatedGame,
    apply_game,
    best_first,
    now_ms,
    ranked,
    standing_at,
)
from server.store.redis import codecs
from server.store.redis.codecs import text
from server.store.redis.core import DAY_MS, RedisCore, runs_to_completion

RATED_MARKER_TTL_MS = 30 * DAY_MS
"""How long a rated game is remembered to refuse rating it twice, with what it did to both
ratings (retries come within seconds)."""


class RedisArchive(RedisCore):
    """Ratings, the leaderboard, finished games' records and players' names."""

    async def rating(self, pool: str, player_id: str) -> PlayerRating:
        stored, played = await self.hot(
            ("HGET", self.keys.ratings(pool), player_id),
            ("HGET", self.keys.rated_at(pool), player_id),
        )
        return standing_at(codecs.decode_standing(stored), _ms(played), now_ms())

    @runs_to_completion
    async def rate(
        self,
        pool: str,
        game_id: str,
        black: str,
        white: str,
        black_score: float,
        *,
        ended_ms: int | None = None,
    ) -> RatedGame | None:
        ratings, board = self.keys.ratings(pool), self.keys.leaderboard(pool)
        unsettled = self.keys.unsettled(pool)
        rated_at, marker = self.keys.rated_at(pool), self.keys.rated_game(pool, game_id)
        ended = now_ms() if ended_ms is None else ended_ms
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(ratings, marker)  # rated_at changes with ratings only
                    done: Any = await pipe.get(marker)
                    if done is not None:
                        return codecs.decode_rated(done)
                    stored: Any = await pipe.hmget(ratings, [black, white])
                    played: Any = await pipe.hmget(rated_at, [black, white])
                    before = (
                        standing_at(codecs.decode_standing(stored[0]), _ms(played[0]), ended),
                        standing_at(codecs.decode_standing(stored[1]), _ms(played[1]), ended),
                    )
                    new = apply_game(*before, black_score)
                    pipe.multi()  # type: ignore[no-untyped-call]
                    for player_id, standing, last in zip((black, white), new, played, strict=True):
                        pipe.hset(ratings, player_id, codecs.encode_standing(standing))
                        pipe.hset(rated_at, player_id, max(_ms(last) or ended, ended))
                        if standing.rating.provisional:
                            pipe.zrem(board, player_id)
                            pipe.zadd(unsettled, {player_id: standing.rating.rating})
                        else:
                            pipe.zadd(board, {player_id: standing.rating.rating})
                            pipe.zrem(unsettled, player_id)
                    rated = RatedGame(before, new)
                    pipe.set(marker, codecs.encode_rated(rated), px=RATED_MARKER_TTL_MS)
                    await pipe.execute()
                    return rated
                except WatchError:
                    await asyncio.sleep(0)  # another game of these players landed first

    @runs_to_completion
    async def leaderboard(
        self, pool: str, limit: int = LEADERBOARD_SIZE
    ) -> list[tuple[str, PlayerRating]]:
        # The sorted set holds the players established when they last played; time away
        # may have made some provisional again, so it is read a page at a time until
        # ``limit`` players established now are found, and everyone tied with the last.
        board, at = self.keys.leaderboard(pool), now_ms()
        found: dict[str, PlayerRating] = {}
        page = max(2 * limit, 50)
        start = 0
        while True:
            top: Any = await self.redis.zrevrange(board, start, start + page - 1, withscores=True)
            players = [text(p) for p, _ in top]
            if players:
                stored, played = await self.hot(
                    ("HMGET", self.keys.ratings(pool), *players),
                    ("HMGET", self.keys.rated_at(pool), *players),
                )
                for player, data, last in zip(players, stored, played, strict=True):
                    standing = standing_at(codecs.decode_standing(data), _ms(last), at)
                    if not standing.rating.provisional:
                        found[player] = standing
            if len(top) < page:
                break
            cut = sorted((s.rating.rating for s in found.values()), reverse=True)
            if len(cut) >= limit and top[-1][1] < cut[limit - 1]:
                break  # nobody further down is as high as the last one in
            start += page
        return ranked(found, limit)

    async def unsettled(
        self, pool: str, limit: int = LEADERBOARD_SIZE
    ) -> list[tuple[str, PlayerRating]]:
        # Its scores are the ratings their last games left, which time away does not
        # change (only the RD widens): the order read is the order now.
        top: Any = await self.redis.zrevrange(self.keys.unsettled(pool), 0, 2 * limit - 1)
        players = [text(p) for p in top]
        if not players:
            return []
        stored, played = await self.hot(
            ("HMGET", self.keys.ratings(pool), *players),
            ("HMGET", self.keys.rated_at(pool), *players),
        )
        at = now_ms()
        return best_first(
            {
                player: standing_at(codecs.decode_standing(data), _ms(last), at)
                for player, data, last in zip(players, stored, played, strict=True)
            },
            limit,
        )

    async def put_record(
        self, game_id: str, record: bytes, player_ids: Sequence[str], ended_ms: int
    ) -> None:
        # The record first, in the same write (Redis runs them in order): a crash in between
        # leaves an unlisted record, never a dangling id. Sent twice, all is written again.
        await self.hot(
            ("SET", self.keys.record(game_id), record),
            *(("ZADD", self.keys.player_games(p), ended_ms, game_id) for p in player_ids),
            ("ZADD", self.keys.finished, ended_ms, game_id),
        )

    @runs_to_completion
    async def get_record(self, game_id: str) -> bytes | None:
        data: Any = await self.redis.get(self.keys.record(game_id))
        return cast(bytes | None, data)

    @runs_to_completion
    async def player_games(
        self, player_id: str, limit: int = 20, before_ms: int | None = None
    ) -> list[str]:
        newest = "+inf" if before_ms is None else f"({before_ms}"
        games: Any = await self.redis.zrevrangebyscore(
            self.keys.player_games(player_id), newest, "-inf", start=0, num=limit
        )
        return [text(game_id) for game_id in games]

    @runs_to_completion
    async def recent_games(self, limit: int = 100, since_ms: int = 0) -> list[tuple[str, int]]:
        games: Any = await self.redis.zrevrangebyscore(
            self.keys.finished, "+inf", since_ms, start=0, num=limit, withscores=True
        )
        return [(text(game_id), int(ended)) for game_id, ended in games]

    async def put_names(self, names: Mapping[str, str]) -> None:
        if names:
            pairs = [part for item in sorted(names.items()) for part in item]
            await self.hot(("HSET", self.keys.names, *pairs))

    @runs_to_completion
    async def names(self, player_ids: Sequence[str]) -> dict[str, str]:
        if not player_ids:
            return {}
        found: Any = await self.redis.hmget(self.keys.names, list(player_ids))
        return {p: text(n) for p, n in zip(player_ids, found, strict=True) if n is not None}


def _ms(stored: Any) -> int | None:
    """A stored moment (ms), or None where none is stored."""
    return None if stored is None else int(stored)
