"""Hints through the shared AI pool: the asking instance puts the position in the pool's
``hint`` queue and waits ``hint_timeout_ms`` for the answer; an instance with a worker
takes the job, asks its least busy worker (``hint_request``), and posts the worker's
``hint_result`` back. A job whose worker goes away before answering goes back to the
pool for another worker; one whose instance dies is taken over after the idle time."""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets

from engine import NotationError
from protocol import messages as m
from protocol.errors import ErrorCode
from server.bots import jobs
from server.bots.registry import WENT_AWAY, HintAnswer, WorkerRegistry
from server.bots.seating import cluster_workers
from server.config import Bots
from server.game import GameError
from server.metrics import Metrics
from server.room import Room, cached_point
from server.service import now_ms
from server.store import Store

log = logging.getLogger("gomoku.server")

NO_MOVE = "the AI found no move"
"""Why a hint came back empty when its worker answered without a point."""

REASONS = frozenset({"win", "block", "threat", "positional", "lost"})
"""Why a suggestion was chosen, as protocol.md lists (anything else reads "positional")."""


def _legal(room: Room, point: str) -> bool:
    """Whether ``point`` is a stone the side to move may place in ``room`` now."""
    try:
        return room.board().is_legal(cached_point(point, room.size))
    except NotationError:
        return False


class HintDesk:
    """Hints asked by this instance's players, and hint jobs its workers answer."""

    def __init__(
        self, registry: WorkerRegistry, store: Store, settings: Bots, metrics: Metrics
    ) -> None:
        self.registry = registry
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self._requests = itertools.count(1)

    async def hint(self, room: Room) -> tuple[str, str]:
        """The best move in ``room`` from a worker of any instance; (point, reason).
        Raises GameError ``no_ai_available`` when none is connected or answers in time."""
        if not await cluster_workers(self.store) and not self.registry.live_workers():
            raise GameError(ErrorCode.NO_AI_AVAILABLE, "no AI worker is connected to give hints")
        reply = secrets.token_hex(12)
        wait_ms = self.settings.hint_timeout_ms
        job = jobs.HintJob(
            reply,
            room.id,
            room.rule,
            room.size,
            list(room.moves),
            self.settings.hint_ms,
            now_ms() + wait_ms,
        )
        await self.store.pool_put(jobs.HINT_QUEUE, jobs.encode(job))
        data = await self.store.pool_answer_wait(reply, wait_ms)
        if data is None:
            raise GameError(ErrorCode.NO_AI_AVAILABLE, "no AI answered in time")
        try:
            answer = jobs.decode(data, jobs.HintAnswer)
        except jobs.BadRecord:
            raise GameError(ErrorCode.NO_AI_AVAILABLE, "the AI's answer was unreadable") from None
        if answer.point is None:
            raise GameError(ErrorCode.NO_AI_AVAILABLE, answer.reason or NO_MOVE)
        if not _legal(room, answer.point):
            # A worker is a program of its own: a suggestion must be a move the player
            # could make here, whatever it sent.
            log.warning(
                "room %s: an AI worker suggested %r, not a legal move", room.id, answer.point
            )
            raise GameError(ErrorCode.NO_AI_AVAILABLE, "the AI's answer was not a legal move")
        self.metrics.inc("gomoku_hints_total")
        return answer.point, answer.reason if answer.reason in REASONS else "positional"

    async def serve(self, job: jobs.HintJob) -> bool:
        """Ask the least busy worker of this instance and post its answer. False (the
        job goes back to the pool) if no worker is here or it went away meanwhile; a job
        whose asker stopped waiting is done with at once."""
        if now_ms() >= job.until_ms:
            return True
        registry = self.registry
        worker = registry.pick(None, any_level=True) or next(iter(registry.live_workers()), None)
        if worker is None or worker.link is None:
            return False
        request = next(self._requests)
        future: asyncio.Future[HintAnswer] = asyncio.get_running_loop().create_future()
        worker.hints[request] = future
        worker.link.send(
            m.HintRequest(
                request=request,
                room=job.room,
                rule=job.rule,
                size=job.size,
                moves=job.moves,
                time_ms=job.time_ms,
            )
        )
        try:
            point, reason = await asyncio.wait_for(future, self.settings.hint_timeout_ms / 1000)
        except TimeoutError:
            point, reason = None, "no AI answered in time"
        finally:
            worker.hints.pop(request, None)
        if point is None and reason == WENT_AWAY:
            return False
        await self.store.pool_answer(job.reply, jobs.encode(jobs.HintAnswer(point, reason)))
        return True

    def hint_result(self, worker_id: str, result: m.HintResult) -> None:
        """A worker's answer; one that is late, or to another worker's request, is dropped."""
        worker = self.registry.workers.get(worker_id)
        pending = None if worker is None else worker.hints.get(result.request)
        if pending is None or pending.done():
            # No reply (the protocol's), but a line: a worker author whose request ids
            # were wrong had no way to find out.
            log.info(
                "AI worker %s answered hint request %d, which it was not asked or which "
                "timed out; dropped",
                worker_id,
                result.request,
            )
            return
        if result.point is None:  # a worker's own words never reach a player as the error
            pending.set_result((None, NO_MOVE))
            return
        pending.set_result((result.point, result.reason))

    def close(self) -> None:
        """The server stops: every request waiting for an answer gets "no move"."""
        for worker in self.registry.workers.values():
            worker.fail_hints(WENT_AWAY)  # back to the pool, for another instance
            worker.hints.clear()
