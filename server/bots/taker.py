"""This instance's side of the shared AI pool: it publishes its workers (so every
instance knows the cluster's AI capacity and levels) and its own figures, and takes jobs
for its workers: AI seats at the levels where one of them has a free seat, and hints
while any is connected. A job it takes is done once its worker has it; a job no worker
here can do after all goes back to the pool; a job taken by an instance that died is
taken over after ``job_idle_ms`` (hints: ``hint_ms`` more).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from server.bots import jobs
from server.bots.hints import HintDesk
from server.bots.registry import WorkerRegistry
from server.bots.seating import AiSeating, worker_record
from server.config import Bots
from server.metrics import Metrics
from server.service import now_ms
from server.store import Store, StoreUnavailable
from server.store.pool import PoolJob
from server.store_watch import StoreWatch

log = logging.getLogger("gomoku.server")

TAKE_BLOCK_MS = 1_000
"""How long one take waits for a job (the queues to read are chosen again after it)."""
RECLAIM_BATCH = 10


class JobTaker:
    """Publishes this instance's workers and figures, and takes pool jobs for them."""

    def __init__(
        self,
        instance: Callable[[], str],
        registry: WorkerRegistry,
        seating: AiSeating,
        hints: HintDesk,
        store: Store,
        settings: Bots,
        metrics: Metrics,
        figures: Callable[[], jobs.InstanceRecord],
    ) -> None:
        self.instance = instance
        self.registry = registry
        self.seating = seating
        self.hints = hints
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.figures = figures
        self._published: set[str] = set()
        self._hint_tasks: set[asyncio.Task[None]] = set()
        self._serving: set[str] = set()
        """Hint jobs this instance is answering (its worker thinks): past the idle time
        they are taken over from it too, but not asked of a worker here a second time."""

    @property
    def tick_s(self) -> float:
        return max(0.05, min(1.0, self.settings.heartbeat_ms / 2000))

    def queues(self) -> list[str]:
        """The queues this instance takes from now: each level a worker here has a free
        seat for, and hints while any worker is here."""
        live = self.registry.live_workers()
        levels = sorted({lv for w in live if w.free > 0 for lv in w.levels})
        return [jobs.seat_queue(lv) for lv in levels] + ([jobs.HINT_QUEUE] if live else [])

    # -- publishing --------------------------------------------------------------------

    async def publish(self) -> None:
        """Write this instance's live workers and its figures to the store (and forget
        the workers that left)."""
        until = now_ms() + 3 * self.settings.heartbeat_ms
        instance = self.instance()
        live = self.registry.live_workers()
        if live:
            await self.seating.count_held()
        for worker in live:
            record = worker_record(worker, instance)
            await self.store.put_worker(worker.id, jobs.encode(record), until)
        current = {w.id for w in live}
        for gone in self._published - current:
            await self.store.drop_worker(gone)
        self._published = current
        await self.store.put_instance_info(instance, jobs.encode(self.figures()), until)

    async def _keep_publishing(self) -> None:
        watch = StoreWatch("this instance's AI workers are published when it answers")
        while True:
            try:
                await self.publish()
                watch.answered()
            except StoreUnavailable as error:
                watch.failed(error)
            except Exception:
                self.metrics.inc("gomoku_errors_internal_total")
                log.exception("publishing this instance's AI workers failed")
            await asyncio.sleep(self.tick_s)

    # -- taking ----------------------------------------------------------------------------

    async def run(self) -> None:
        """Publish, take and take over jobs until cancelled; then withdraw the workers."""
        publisher = asyncio.create_task(self._keep_publishing())
        reclaimed_at = 0.0
        loop = asyncio.get_running_loop()
        watch = StoreWatch("AI jobs wait for it")
        try:
            while True:
                try:
                    queues = self.queues()
                    if not queues:
                        await asyncio.sleep(self.tick_s)
                        continue
                    if loop.time() - reclaimed_at >= self.tick_s:
                        reclaimed_at = loop.time()
                        await self._reclaim(queues)
                    taken = await self.store.pool_take(self.instance(), queues, 1, TAKE_BLOCK_MS)
                    for job in taken:
                        await self._handle(job)
                    watch.answered()
                except StoreUnavailable as error:
                    watch.failed(error)
                    await asyncio.sleep(self.tick_s)
                except Exception:
                    self.metrics.inc("gomoku_errors_internal_total")
                    log.exception("taking AI jobs failed")
                    await asyncio.sleep(self.tick_s)
        finally:
            publisher.cancel()
            for task in list(self._hint_tasks):
                task.cancel()
            with contextlib.suppress(Exception):
                for worker in self._published:
                    await self.store.drop_worker(worker)
                await self.store.drop_instance_info(self.instance())

    async def _reclaim(self, queues: list[str]) -> None:
        for queue in queues:
            idle = self.settings.job_idle_ms
            if queue == jobs.HINT_QUEUE:
                idle += self.settings.hint_ms
            for job in await self.store.pool_reclaim(self.instance(), queue, idle, RECLAIM_BATCH):
                if job.job_id in self._serving:
                    continue  # ours, and still waiting for our worker's answer
                log.info(
                    "AI job %s of %s taken over: the instance that took it did not finish it "
                    "within %d ms",
                    job.job_id,
                    queue,
                    idle,
                )
                self.metrics.inc("gomoku_ai_jobs_taken_over_total")
                await self._handle(job)

    async def _handle(self, job: PoolJob) -> None:
        kind: type[jobs.HintJob | jobs.SeatJob]
        kind = jobs.HintJob if job.queue == jobs.HINT_QUEUE else jobs.SeatJob
        try:
            value = jobs.decode(job.data, kind)
        except jobs.BadRecord as error:
            log.warning("AI job %s dropped: %s", job.job_id, error)
            await self.store.pool_done(job.queue, job.job_id)
            return
        if isinstance(value, jobs.HintJob):  # answered in its own task: the worker thinks
            self._serving.add(job.job_id)
            task = asyncio.create_task(self._serve_hint(job, value))
            self._hint_tasks.add(task)
            task.add_done_callback(self._hint_tasks.discard)
            return
        if not await self.seating.take(value):
            await self._put_back(job)
            return
        await self.store.pool_done(job.queue, job.job_id)

    async def _serve_hint(self, job: PoolJob, hint: jobs.HintJob) -> None:
        try:
            if not await self.hints.serve(hint):
                await self._put_back(job)
                return
            await self.store.pool_done(job.queue, job.job_id)
        except StoreUnavailable as error:
            log.info("AI hint job %s: %s (another instance takes it over)", job.job_id, error)
        except Exception:
            self.metrics.inc("gomoku_errors_internal_total")
            log.exception("AI hint job %s failed", job.job_id)
        finally:
            self._serving.discard(job.job_id)

    async def _put_back(self, job: PoolJob) -> None:
        """No worker here can do the job after all: back in its queue for anyone."""
        await self.store.pool_put(job.queue, job.data)
        await self.store.pool_done(job.queue, job.job_id)
