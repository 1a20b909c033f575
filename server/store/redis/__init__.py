"""The Redis store (:class:`RedisStore`): the same contract as the memory store, shared
by every server instance."""

from server.store.redis.store import RedisStore

__all__ = ["RedisStore"]
