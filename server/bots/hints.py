"""Hints: the best move for the side to move, asked of the least busy worker
(``hint_request``) and awaited for ``hint_timeout_ms``; the worker answers with
``hint_result``. A request whose worker goes away is answered "no move" at once."""

from __future__ import annotations

import asyncio
import itertools

from protocol import messages as m
from protocol.errors import ErrorCode
from server.bots.registry import HintAnswer, WorkerRegistry
from server.config import Bots
from server.game import GameError
from server.metrics import Metrics
from server.room import Room


class HintDesk:
    """Hint requests to this instance's workers, and their answers."""

    def __init__(self, registry: WorkerRegistry, settings: Bots, metrics: Metrics) -> None:
        self.registry = registry
        self.settings = settings
        self.metrics = metrics
        self._requests = itertools.count(1)

    async def hint(self, room: Room) -> tuple[str, str]:
        """Ask the least busy worker for the best move in ``room``; (point, reason).
        Raises GameError ``no_ai_available`` when none is connected or answers in time."""
        registry = self.registry
        worker = registry.pick(None, any_level=True) or next(iter(registry.live_workers()), None)
        if worker is None or worker.link is None:
            raise GameError(ErrorCode.NO_AI_AVAILABLE, "no AI worker is connected to give hints")
        request = next(self._requests)
        future: asyncio.Future[HintAnswer] = asyncio.get_running_loop().create_future()
        worker.hints[request] = future
        worker.link.send(
            m.HintRequest(
                request=request,
                room=room.id,
                rule=room.rule,
                size=room.size,
                moves=list(room.moves),
                time_ms=self.settings.hint_ms,
            )
        )
        try:
            point, reason = await asyncio.wait_for(future, self.settings.hint_timeout_ms / 1000)
        except TimeoutError:
            raise GameError(ErrorCode.NO_AI_AVAILABLE, "no AI answered in time") from None
        finally:
            worker.hints.pop(request, None)
        if point is None:
            raise GameError(ErrorCode.NO_AI_AVAILABLE, reason or "the AI found no move")
        self.metrics.inc("gomoku_hints_total")
        return point, reason

    def hint_result(self, worker_id: str, result: m.HintResult) -> None:
        """A worker's answer; one that is late, or to another worker's request, is dropped."""
        worker = self.registry.workers.get(worker_id)
        pending = None if worker is None else worker.hints.get(result.request)
        if pending is None or pending.done():
            return
        pending.set_result((result.point, result.reason))

    def close(self) -> None:
        """The server stops: every request waiting for an answer gets "no move"."""
        for worker in self.registry.workers.values():
            worker.fail_hints("the server is shutting down")
            worker.hints.clear()
