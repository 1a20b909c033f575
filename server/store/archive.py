"""What outlives a room: Glicko-2 ratings per pool, the leaderboard, and finished games.

A pool is one rating list (for example one per rule: "renju", "freestyle");
the server decides the names. Records are opaque bytes (the engine's JSON
record, :func:`engine.record.format_json`), kept without expiry and listed per
player, newest first. :class:`MemoryArchive` is the embedded implementation;
the Redis store implements the same methods (:mod:`server.store.redis`), and
``tests/test_archive_contract.py`` holds both to one contract.
"""

from __future__ import annotations

import abc
import dataclasses
import time
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from server.rating import PlayerRating, age, periods_between, rate_game

LEADERBOARD_SIZE = 20


class RatedGame(NamedTuple):
    """What rating one game did: both players' standings before and after it, Black's
    first in each pair."""

    before: tuple[PlayerRating, PlayerRating]
    after: tuple[PlayerRating, PlayerRating]


class Archive(abc.ABC):
    """Ratings, leaderboard and finished-game records."""

    @abc.abstractmethod
    async def rating(self, pool: str, player_id: str) -> PlayerRating:
        """The player's standing in the pool now (a new player's default if never rated):
        its RD widened for the time since the player's last rated game there
        (:func:`standing_at`)."""

    @abc.abstractmethod
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
        """Apply one rated game (``black_score`` 1, 0.5 or 0) that ended at ``ended_ms``
        (None: now) to both players, atomically, and answer what it did.

        Each player is rated from their standing at the game's end (its RD widened for
        the time since their last rated game), and the game's end becomes their last
        rated game (unless a later one is already stored).

        A game is applied once: a retried call (the same ``game_id``) changes nothing and
        answers what the first call did, so a server that died between rating a game and
        announcing it can still announce the right figures. None only for a game rated by
        an older server that kept no figures.
        """

    @abc.abstractmethod
    async def leaderboard(
        self, pool: str, limit: int = LEADERBOARD_SIZE
    ) -> list[tuple[str, PlayerRating]]:
        """The best established players now (provisional ratings are left out, as on
        lichess, and so are those made provisional again by long time away), highest
        first; equal ratings by player id."""

    @abc.abstractmethod
    async def unsettled(
        self, pool: str, limit: int = LEADERBOARD_SIZE
    ) -> list[tuple[str, PlayerRating]]:
        """The players the leaderboard leaves out because their rating had not settled by
        their last rated game (newcomers: a club's first evenings have nobody established
        yet), as of now, highest first; equal ratings by player id. A settled player made
        provisional by time away alone is in neither list until they play again."""

    @abc.abstractmethod
    async def put_record(
        self, game_id: str, record: bytes, player_ids: Sequence[str], ended_ms: int
    ) -> None:
        """Keep a finished game's record and list it under each of its players."""

    @abc.abstractmethod
    async def get_record(self, game_id: str) -> bytes | None:
        """A kept record, or None."""

    @abc.abstractmethod
    async def player_games(
        self, player_id: str, limit: int = 20, before_ms: int | None = None
    ) -> list[str]:
        """Ids of the player's finished games, newest first; ``before_ms`` pages back
        (games that ended strictly before it)."""

    @abc.abstractmethod
    async def recent_games(self, limit: int = 100, since_ms: int = 0) -> list[tuple[str, int]]:
        """Every player's finished games that ended at ``since_ms`` or later, newest first,
        at most ``limit``: (game id, when it ended). An operator's list of a lesson's or an
        evening's games (a game someone started before this list was kept, on Redis, is
        listed under its players only)."""

    @abc.abstractmethod
    async def put_names(self, names: Mapping[str, str]) -> None:
        """Remember players' display names (player id -> name), replacing older ones, so
        leaderboards and profiles can name players who are not connected."""

    @abc.abstractmethod
    async def names(self, player_ids: Sequence[str]) -> dict[str, str]:
        """The remembered names of these players; unknown ids are left out."""


def now_ms() -> int:
    return int(time.time() * 1000)


def standing_at(standing: PlayerRating, played_ms: int | None, at_ms: int) -> PlayerRating:
    """The standing at ``at_ms`` of a player whose last rated game in the pool ended at
    ``played_ms``: its RD widened for the rating periods between (lichess's pace, see
    :mod:`server.rating`), rating, volatility and results unchanged. A standing stored
    before the archive kept that moment (None) is taken as it is."""
    if played_ms is None or at_ms <= played_ms:
        return standing
    return dataclasses.replace(
        standing, rating=age(standing.rating, periods_between(played_ms, at_ms))
    )


def apply_game(
    black: PlayerRating, white: PlayerRating, black_score: float
) -> tuple[PlayerRating, PlayerRating]:
    """Both standings after one game, each rated against the other's pre-game rating."""
    new_black, new_white = rate_game(black.rating, white.rating, black_score)
    return black.after(new_black, black_score), white.after(new_white, 1.0 - black_score)


def ranked(standings: Mapping[str, PlayerRating], limit: int) -> list[tuple[str, PlayerRating]]:
    """The leaderboard rule on plain data (standings as of now): established players,
    best first."""
    return best_first({p: s for p, s in standings.items() if not s.rating.provisional}, limit)


def best_first(standings: Mapping[str, PlayerRating], limit: int) -> list[tuple[str, PlayerRating]]:
    """The first ``limit`` of ``standings`` by rating, highest first; equal ones by id."""
    board = sorted(standings.items(), key=lambda item: (-item[1].rating.rating, item[0]))
    return board[:limit]


class MemoryArchive(Archive):
    """The archive in dicts, for the embedded server (gone when the process ends)."""

    def __init__(self) -> None:
        self._ratings: dict[str, dict[str, PlayerRating]] = {}
        self._played: dict[str, dict[str, int]] = {}
        """Per pool: when each player's last rated game there ended (ms)."""
        self._rated: dict[tuple[str, str], RatedGame] = {}
        self._records: dict[str, bytes] = {}
        self._games: dict[str, dict[str, int]] = {}
        self._names: dict[str, str] = {}

    def _standing(self, pool: str, player_id: str, at_ms: int) -> PlayerRating:
        stored = self._ratings.get(pool, {}).get(player_id, PlayerRating())
        return standing_at(stored, self._played.get(pool, {}).get(player_id), at_ms)

    async def rating(self, pool: str, player_id: str) -> PlayerRating:
        return self._standing(pool, player_id, now_ms())

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
        done = self._rated.get((pool, game_id))
        if done is not None:
            return done
        ended = now_ms() if ended_ms is None else ended_ms
        before = (self._standing(pool, black, ended), self._standing(pool, white, ended))
        new = apply_game(*before, black_score)
        standings, played = self._ratings.setdefault(pool, {}), self._played.setdefault(pool, {})
        for player_id, standing in zip((black, white), new, strict=True):
            standings[player_id] = standing
            played[player_id] = max(played.get(player_id, ended), ended)
        done = self._rated[(pool, game_id)] = RatedGame(before, new)
        return done

    async def leaderboard(
        self, pool: str, limit: int = LEADERBOARD_SIZE
    ) -> list[tuple[str, PlayerRating]]:
        at = now_ms()
        return ranked({p: self._standing(pool, p, at) for p in self._ratings.get(pool, {})}, limit)

    async def unsettled(
        self, pool: str, limit: int = LEADERBOARD_SIZE
    ) -> list[tuple[str, PlayerRating]]:
        at, stored = now_ms(), self._ratings.get(pool, {})
        new = [p for p, s in stored.items() if s.rating.provisional]  # as their last game left it
        return best_first({p: self._standing(pool, p, at) for p in new}, limit)

    async def put_record(
        self, game_id: str, record: bytes, player_ids: Sequence[str], ended_ms: int
    ) -> None:
        self._records[game_id] = record
        for player_id in player_ids:
            self._games.setdefault(player_id, {})[game_id] = ended_ms

    async def get_record(self, game_id: str) -> bytes | None:
        return self._records.get(game_id)

    async def player_games(
        self, player_id: str, limit: int = 20, before_ms: int | None = None
    ) -> list[str]:
        games = self._games.get(player_id, {})
        listed = [
            (ended, game_id)
            for game_id, ended in games.items()
            if before_ms is None or ended < before_ms
        ]
        listed.sort(reverse=True)
        return [game_id for _, game_id in listed[:limit]]

    async def recent_games(self, limit: int = 100, since_ms: int = 0) -> list[tuple[str, int]]:
        ended = {game_id: at for games in self._games.values() for game_id, at in games.items()}
        listed = sorted(
            ((at, game_id) for game_id, at in ended.items() if at >= since_ms), reverse=True
        )
        return [(game_id, at) for at, game_id in listed[:limit]]

    async def put_names(self, names: Mapping[str, str]) -> None:
        self._names.update(names)

    async def names(self, player_ids: Sequence[str]) -> dict[str, str]:
        return {p: self._names[p] for p in player_ids if p in self._names}
