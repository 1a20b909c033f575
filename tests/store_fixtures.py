"""The store under contract: a fresh, empty store of each backend (memory, embedded, a
real redis-server), for ``tests/test_store_contract.py`` and ``tests/test_pool_contract.py``."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.store import MemoryStore, Store
from server.store.datafile import DataFile
from server.store.embedded import EmbeddedStore
from server.store.redis import RedisStore

BACKENDS = ["memory", "embedded", "redis", "redis-py"]
"""``redis-py``: the Redis store with its hot path (a room's commit and load) on redis-py's
pool instead of its own pipelined connection, as with a ``rediss://`` URL."""


@pytest.fixture(params=BACKENDS)
async def store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    """A fresh, empty store of each backend."""
    backend: Store
    if request.param == "memory":
        backend = MemoryStore(max_events=50)
    elif request.param == "embedded":  # memory, with a data file in the test's directory
        data = DataFile(request.getfixturevalue("tmp_path") / "server.sqlite3")
        data.open()
        backend = EmbeddedStore(data, max_events=50)
    else:  # a real redis-server (tests/redis_fixtures.py), emptied for this test
        url = request.getfixturevalue("redis_url")
        backend = RedisStore(url, max_events=50, lane=request.param == "redis")
    await backend.start()
    try:
        yield backend
    finally:
        await backend.close()
