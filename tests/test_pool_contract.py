"""The AI pool's contract (:class:`server.store.pool.AiPool`): every store backend
(memory, embedded, a real redis-server) must pass these unchanged."""

from __future__ import annotations

import asyncio
import time

from server.store import Store
from server.store.pool import QueueDepth


def now_ms() -> int:
    return int(time.time() * 1000)


async def test_jobs_are_taken_once_oldest_first_per_queue(store: Store) -> None:
    """Each waiting job goes to one taker, oldest first; other queues are not touched."""
    first = await store.pool_put("novice", b"j1")
    await store.pool_put("novice", b"j2")
    await store.pool_put("master", b"m1")
    taken = await store.pool_take("a", ["novice"], 1, 0)
    assert [(j.queue, j.job_id, j.data) for j in taken] == [("novice", first, b"j1")]
    again = await store.pool_take("b", ["novice"], 5, 0)
    assert [j.data for j in again] == [b"j2"]
    assert await store.pool_take("c", ["novice"], 5, 0) == []
    both = await store.pool_take("c", ["novice", "master"], 5, 0)
    assert [j.data for j in both] == [b"m1"]


async def test_depths_count_waiting_and_taken_until_done(store: Store) -> None:
    """A queue's depth counts jobs waiting and taken; a job done leaves it (once)."""
    await store.pool_put("hint", b"h1")
    await store.pool_put("hint", b"h2")
    assert await store.pool_depths() == {"hint": QueueDepth(2, 0)}
    [job] = await store.pool_take("a", ["hint"], 1, 0)
    assert await store.pool_depths() == {"hint": QueueDepth(1, 1)}
    assert await store.pool_done("hint", job.job_id)
    assert not await store.pool_done("hint", job.job_id)
    assert await store.pool_depths() == {"hint": QueueDepth(1, 0)}


async def test_a_blocked_take_gets_a_job_put_meanwhile(store: Store) -> None:
    """A taker waiting on an empty queue gets the job put while it waits; with nothing
    put it comes back empty-handed."""
    assert await store.pool_take("a", ["expert"], 1, 50) == []
    waiting = asyncio.create_task(store.pool_take("a", ["expert"], 1, 1500))
    await asyncio.sleep(0.1)
    await store.pool_put("expert", b"late")
    taken = await waiting
    assert [j.data for j in taken] == [b"late"]


async def test_a_job_nobody_finished_is_taken_over(store: Store) -> None:
    """A job taken but not done within the idle time goes to a taker that reclaims it;
    a job done in time is not reclaimed."""
    await store.pool_put("novice", b"seat")
    await store.pool_put("novice", b"other")
    stuck, finished = await store.pool_take("dead", ["novice"], 2, 0)
    assert await store.pool_done("novice", finished.job_id)
    assert await store.pool_reclaim("alive", "novice", 10_000, 10) == []
    await asyncio.sleep(0.6)
    # Idle times of half a second: a busy machine's pause between two calls stays inside.
    reclaimed = await store.pool_reclaim("alive", "novice", 500, 10)
    assert [(j.job_id, j.data) for j in reclaimed] == [(stuck.job_id, b"seat")]
    assert await store.pool_reclaim("third", "novice", 500, 10) == []  # just taken again
    assert await store.pool_done("novice", stuck.job_id)
    assert await store.pool_depths() == {"novice": QueueDepth(0, 0)}


async def test_answers_are_read_once_and_waited_for(store: Store) -> None:
    """An answer posted under a reply id is read once; a waiter gets one posted while
    it waits; with none it gets None after the timeout."""
    await store.pool_answer("r1", b"h8")
    assert await store.pool_answer_wait("r1", 100) == b"h8"
    assert await store.pool_answer_wait("r1", 50) is None
    waiting = asyncio.create_task(store.pool_answer_wait("r2", 1500))
    await asyncio.sleep(0.1)
    await store.pool_answer("r2", b"j10")
    assert await waiting == b"j10"


async def test_worker_and_instance_records_last_their_lease(store: Store) -> None:
    """Records are listed while their lease runs, replaced when put again, and gone
    once dropped or expired."""
    now = now_ms()
    await store.put_worker("w2", b"two", now + 60_000)
    await store.put_worker("w1", b"one", now + 60_000)
    await store.put_worker("old", b"gone", now - 1)
    assert await store.workers(now) == {"w1": b"one", "w2": b"two"}
    await store.put_worker("w1", b"uno", now + 60_000)
    await store.drop_worker("w2")
    await store.drop_worker("nobody")
    assert await store.workers(now) == {"w1": b"uno"}
    assert await store.workers(now + 120_000) == {}
    await store.put_instance_info("i1", b"figures", now + 5_000)
    assert await store.instance_infos(now) == {"i1": b"figures"}
    assert await store.instance_infos(now + 10_000) == {}
    await store.put_instance_info("i2", b"more", now + 5_000)
    await store.drop_instance_info("i2")
    await store.drop_instance_info("nobody")
    assert await store.instance_infos(now) == {}
