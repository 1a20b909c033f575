"""The embedded store ``gomoku-server`` runs with when it has no Redis: live rooms,
lobby, queues and clocks in memory (:class:`~server.store.memory.MemoryStore`), and what
a player expects to outlive a restart, their identity (sessions), ratings, names and
finished games, in a data file (:class:`~server.store.datafile.DataFile`). The games
being played between people are kept in it by a stop and taken up by the next start
(:meth:`EmbeddedStore.keep_games`); a crash, or a kill -9, loses them, nothing else."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from server.rating import PlayerRating
from server.store.archive import LEADERBOARD_SIZE, RatedGame
from server.store.datafile import DataFile
from server.store.kept import decode_kept, encode_kept
from server.store.memory import MemoryStore


class EmbeddedStore(MemoryStore):
    """A :class:`MemoryStore` whose sessions and archive live in ``data`` (opened by the
    caller, so a bad file is reported before the server starts; closed with the store)."""

    def __init__(self, data: DataFile, *, max_events: int = 2000) -> None:
        super().__init__(max_events=max_events)
        self.data = data

    def __repr__(self) -> str:
        return f"EmbeddedStore({self.data!r})"

    async def close(self) -> None:
        await super().close()
        await self.data.close()

    async def healthy(self) -> bool:
        """The data file takes writes (a full disk answered every new player and every
        game's end ``unavailable`` while ``/healthz`` said ok)."""
        return await self.data.writable()

    # -- games kept over a restart ----------------------------------------------------

    async def keep_games(self, room_ids: Sequence[str]) -> None:
        """Keep ``room_ids`` (games being played) in the data file for the next start."""
        await self.data.keep_games(encode_kept(self.keep_rooms(room_ids)))

    async def take_up_games(self) -> list[str]:
        """Take up the games a stop kept (see :meth:`keep_games`); their ids. They stay
        in the data file until :meth:`forget_kept_games` (once this server serves). A
        kept value this version cannot read takes up nothing (and stays for the next
        stop to replace)."""
        data = await self.data.kept_games()
        if data is None:
            return []
        try:
            kept = decode_kept(data)
        except ValueError:
            return []
        return self.restore_rooms(kept)

    async def forget_kept_games(self) -> None:
        await self.data.forget_kept_games()

    # -- sessions --------------------------------------------------------------------

    async def put_session(self, token_hash: str, data: bytes) -> None:
        await self.data.put_session(token_hash, data)

    async def get_session(self, token_hash: str) -> bytes | None:
        return await self.data.get_session(token_hash)

    async def delete_session(self, token_hash: str) -> None:
        await self.data.delete_session(token_hash)

    # -- the archive ------------------------------------------------------------------

    async def rating(self, pool: str, player_id: str) -> PlayerRating:
        return await self.data.rating(pool, player_id)

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
        return await self.data.rate(pool, game_id, black, white, black_score, ended_ms=ended_ms)

    async def leaderboard(
        self, pool: str, limit: int = LEADERBOARD_SIZE
    ) -> list[tuple[str, PlayerRating]]:
        return await self.data.leaderboard(pool, limit)

    async def unsettled(
        self, pool: str, limit: int = LEADERBOARD_SIZE
    ) -> list[tuple[str, PlayerRating]]:
        return await self.data.unsettled(pool, limit)

    async def put_record(
        self, game_id: str, record: bytes, player_ids: Sequence[str], ended_ms: int
    ) -> None:
        await self.data.put_record(game_id, record, player_ids, ended_ms)

    async def get_record(self, game_id: str) -> bytes | None:
        return await self.data.get_record(game_id)

    async def player_games(
        self, player_id: str, limit: int = 20, before_ms: int | None = None
    ) -> list[str]:
        return await self.data.player_games(player_id, limit, before_ms)

    async def recent_games(self, limit: int = 100, since_ms: int = 0) -> list[tuple[str, int]]:
        return await self.data.recent_games(limit, since_ms)

    async def put_names(self, names: Mapping[str, str]) -> None:
        await self.data.put_names(names)

    async def names(self, player_ids: Sequence[str]) -> dict[str, str]:
        return await self.data.names(player_ids)
