"""The terminal client's link to a real server: a refused hello is tried again."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from redis_fixtures import RedisServer

from client.address import ServerAddress
from client.connection import Connection
from client.state.model import Action
from client.state.session import ConnectionChanged
from protocol import messages as m
from protocol.backoff import Backoff
from server.app import GomokuServer
from server.store.redis import RedisStore


async def test_a_hello_refused_during_an_outage_is_tried_again(
    make_server: Callable[..., Awaitable[GomokuServer]], persistent_redis: RedisServer
) -> None:
    """With the server's Redis down, hello gets `unavailable`: the client shows why and
    keeps trying with a growing backoff, and is welcomed once Redis is back."""
    server = await make_server(store=RedisStore(persistent_redis.url, poll_interval_s=0.2))
    persistent_redis.stop(kill=True)
    seen: list[Action] = []
    retried = asyncio.Event()

    def dispatch(action: Action) -> None:
        seen.append(action)
        match action:
            case ConnectionChanged(attempt=attempt, detail=detail) if attempt >= 2:
                if "unavailable" in detail:
                    retried.set()
            case _:
                pass

    backoff = Backoff(0.05, 0.4)
    address = ServerAddress("127.0.0.1", server.port)
    link = Connection(address, "ann", dispatch=dispatch, backoff=backoff)
    task = asyncio.create_task(link.run())
    try:
        await asyncio.wait_for(retried.wait(), 30)
        refusals = [a for a in seen if isinstance(a, m.Error)]
        assert refusals
        assert {e.code for e in refusals} == {"unavailable"}
        assert not link.online
        persistent_redis.start()
        await asyncio.wait_for(link.wait_welcomed(), 30)
        assert any(isinstance(a, m.Welcome) for a in seen)
    finally:
        await link.close()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
