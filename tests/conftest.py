"""Shared test set-up: a hypothesis profile without deadlines, since the
machine is shared and timing is a benchmark's job, not a test's."""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("gomoku", deadline=None, max_examples=100)
settings.load_profile("gomoku")

from failure_reports import pytest_runtest_makereport  # noqa: E402, F401  (CPython 3.11 gh-106905)
from redis_fixtures import persistent_redis, redis_server, redis_url  # noqa: E402, F401  (real redis-server)
from server_fixtures import clients, connect, make_server, server  # noqa: E402, F401  (server tests' fixtures)
from store_fixtures import store  # noqa: E402, F401  (each store backend, for the contract suites)
from worker_fixtures import ai_server, start_worker, thinker  # noqa: E402, F401  (AI worker tests)
