"""The Redis store, put together from its parts (one module each, all on
:class:`~server.store.redis.core.RedisCore`); :mod:`server.store.redis` says how each
part maps onto Redis."""

from __future__ import annotations

from server.store.redis.archive import RedisArchive
from server.store.redis.clocks import RedisClocks
from server.store.redis.identity import RedisIdentity
from server.store.redis.lobby import RedisLobby
from server.store.redis.mail import RedisMail
from server.store.redis.pool import RedisAiPool
from server.store.redis.presence import RedisPresence
from server.store.redis.queues import RedisQueues
from server.store.redis.rooms import RedisRooms


class RedisStore(
    RedisRooms,
    RedisPresence,
    RedisClocks,
    RedisLobby,
    RedisIdentity,
    RedisMail,
    RedisQueues,
    RedisArchive,
    RedisAiPool,
):
    """The store on a Redis server (or cluster-compatible layout) at ``url``.

    ``max_events`` caps each room's log; ``session_ttl_ms`` is how long a resume
    token stays valid after its last use; ``poll_interval_s`` bounds how late a
    watched room's reader notices events if a pub/sub wake-up was lost. With ``lane``
    (the default) a room's commit and load go over one pipelined connection of their own
    (:mod:`server.store.redis.lane`) instead of redis-py's pool.
    """

    def __init__(
        self,
        url: str,
        *,
        max_events: int = 2000,
        prefix: str = "gomoku",
        session_ttl_ms: int = 30 * 86_400_000,
        poll_interval_s: float = 5.0,
        lane: bool = True,
    ) -> None:
        super().__init__(
            url,
            max_events=max_events,
            prefix=prefix,
            session_ttl_ms=session_ttl_ms,
            poll_interval_s=poll_interval_s,
            lane=lane,
        )
