"""Searches off the event loop: the engine runs in a pool of processes.

Each request carries an absolute deadline (wall-clock seconds; the processes
share the machine's clock), not a duration: a request that waited in the
pool's queue behind other games' searches gets only the time that is left, and
one whose time is already gone answers at once with the quick shape player.
A request still waiting for a free process when its time is up is withdrawn,
and the quick player answers instead, in a process of its own (a few ms; not
in this process, whose event loop serves every game).
So a slow or busy pool costs strength, never a flag.

Closing never waits for a search to use up its budget (up to ``--move-time``
seconds): queued searches are dropped, and a process still searching after a
short grace exits at once (each process watches a shared stop event), so a
worker told to stop is gone in well under a second whatever it was thinking.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import random
import signal
import threading
import time
from concurrent.futures import BrokenExecutor, ProcessPoolExecutor
from typing import TYPE_CHECKING, Any, NamedTuple

from engine import Board, Rule
from engine.ai import patterns, swap2, think
from protocol.convert import point_to_wire, points_from_wire

if TYPE_CHECKING:
    from multiprocessing.synchronize import Event as ProcessEvent

log = logging.getLogger("gomoku.worker")

QUICK_LEVEL = "novice"
"""The level played when there is no time to search: one move deep, a few ms."""
MIN_SEARCH_S = 0.02
"""Below this much time left, a search would not finish its first iteration."""
QUICK_RESERVE_S = 0.03
"""Kept back from every budget for the quick player, should the pool be too busy."""


class Choice(NamedTuple):
    """The engine's answer: the move (``h8``), its score for the side to move,
    plies to a forced win (or None), why it was chosen, seconds spent, and whether
    it came from the quick level because no time was left to search."""

    point: str
    score: int
    win_in: int | None
    reason: str
    elapsed: float
    quick: bool = False


def board_from_wire(rule: str, size: int, moves: list[str]) -> Board:
    board = Board(size, Rule(rule))
    for point in points_from_wire(moves, size):
        board.play(point)
    return board


def search(rule: str, size: int, moves: list[str], level: str, deadline: float) -> Choice:
    """Runs in a pool process: the move for the side to move after ``moves``, found
    by ``level`` before ``deadline`` (``time.time()`` seconds)."""
    start = time.perf_counter()
    board = board_from_wire(rule, size, moves)
    left = deadline - time.time()
    quick = left < MIN_SEARCH_S
    result = think(board, level=QUICK_LEVEL if quick else level, time_limit=max(0.0, left))
    return Choice(
        point_to_wire(result.best, size),
        result.score,
        result.win_in,
        result.reason,
        time.perf_counter() - start,
        quick,
    )


class Swap2Plan(NamedTuple):
    """The engine's swap2 decision (:mod:`engine.ai.swap2`): ``choice`` is "place" (the
    opener's three stones), "black", "white" or "place2"; ``stones`` the stones to place
    (wire points), for "place" and "place2"."""

    choice: str
    stones: list[str]


def swap2_plan(rule: str, size: int, moves: list[str], budget_s: float) -> Swap2Plan:
    """Runs in a pool process: the swap2 decision after ``moves`` (0, 3 or 5 stones)."""
    board = board_from_wire(rule, size, moves)
    rng = random.Random()
    if not moves:
        stones = swap2.opening(board, rng, budget_s=budget_s)
        return Swap2Plan("place", [point_to_wire(p, size) for p in stones])
    decision = (
        swap2.after_three(board, rng, budget_s=budget_s)
        if len(moves) == 3
        else swap2.after_five(board, budget_s=budget_s)
    )
    return Swap2Plan(decision.choice, [point_to_wire(p, size) for p in decision.stones])


PARENT_CHECK_S = 0.5
"""How often a pool process checks that the worker that started it still lives."""
CLOSE_GRACE_S = 0.2
"""How long closing lets running searches end by themselves before stopping them."""


def _exit_with_parent(parent: int, stop: ProcessEvent) -> None:
    """Runs in a pool process: exit when the worker process is gone (even SIGKILLed,
    which gives the pool no chance to stop its processes), so none is left behind;
    and at once, mid-search, when the worker sets ``stop`` (it is closing). Ctrl-C in
    a terminal reaches every process of its group: here it is left to the worker,
    which stops the pool (each process printed a KeyboardInterrupt traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while not stop.wait(PARENT_CHECK_S):
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:  # pragma: no cover - the pid was reused by another user
                os._exit(0)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _outcome_seen(future: asyncio.Future[Any]) -> None:
    """Mark a search's failure as seen: a caller cancelled mid-search (the worker is
    stopping) no longer awaits it, and asyncio would log it as never retrieved."""
    if not future.cancelled():
        future.exception()


def warm_up() -> int:
    """Runs in a pool process once: import the engine and build its tables."""
    patterns.line_table(True)  # the exactly-five tables of standard and renju
    think(Board.from_moves("h8 i9"), level="master", time_limit=0.05)
    think(Board.from_moves("h8 i9"), level="beginner", time_limit=0.05)
    return os.getpid()


def _context() -> multiprocessing.context.BaseContext:
    """``forkserver`` where there is one (no fork of a threaded parent), else spawn."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["worker.thinker"])
        return context
    return multiprocessing.get_context("spawn")


class Thinker:
    """A process pool for engine searches, shared by every game of a worker.

    A pool whose process died (``BrokenExecutor``) is replaced, and the move at
    hand is found in this process by the quick level instead.
    """

    def __init__(self, processes: int | None = None) -> None:
        self.processes = max(1, processes or os.cpu_count() or 1)
        self._stop = _context().Event()
        self._closed = False
        self._pool = self._new_pool()
        self._quick = self._new_pool(1)
        self.late = 0
        """Searches withdrawn because no process was free in time."""

    def _new_pool(self, processes: int | None = None) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            processes or self.processes,
            mp_context=_context(),
            initializer=_exit_with_parent,
            initargs=(os.getpid(), self._stop),
        )

    async def start(self) -> None:
        """Start every process and warm its engine, so the first moves are not slow."""
        loop = asyncio.get_running_loop()
        await asyncio.gather(
            *(loop.run_in_executor(self._pool, warm_up) for _ in range(self.processes)),
            loop.run_in_executor(self._quick, warm_up),
        )

    def start_blocking(self) -> None:
        """:meth:`start` for callers outside an event loop."""
        futures = [self._pool.submit(warm_up) for _ in range(self.processes)]
        for future in [*futures, self._quick.submit(warm_up)]:
            future.result()

    async def move(
        self, rule: str, size: int, moves: list[str], level: str, budget_s: float
    ) -> Choice:
        """The engine's move at ``level`` within ``budget_s`` seconds from now."""
        budget_s = max(0.0, budget_s)
        reserve = min(QUICK_RESERVE_S, budget_s * 0.2)
        search_s = budget_s - reserve
        loop = asyncio.get_running_loop()
        moves = list(moves)
        pending = loop.run_in_executor(
            self._pool, search, rule, size, moves, level, time.time() + search_s
        )
        pending.add_done_callback(_outcome_seen)  # if our caller is gone: no "never retrieved"
        try:
            return await asyncio.wait_for(asyncio.shield(pending), search_s + reserve / 4)
        except TimeoutError:
            pending.cancel()  # a search that has not started never will
            self.late += 1
        except BrokenExecutor:
            if self._closed:
                raise
            log.warning("the search pool broke; starting a new one")
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._new_pool()
        try:
            return await loop.run_in_executor(self._quick, search, rule, size, moves, level, 0.0)
        except BrokenExecutor:
            if self._closed:
                raise
            log.warning("the quick pool broke; starting a new one")
            self._quick.shutdown(wait=False, cancel_futures=True)
            self._quick = self._new_pool(1)
            return search(rule, size, moves, level, 0.0)  # a few ms, this once

    async def swap2(self, rule: str, size: int, moves: list[str], budget_s: float) -> Swap2Plan:
        """The engine's swap2 decision after ``moves``, within about ``budget_s`` seconds
        (None of the pool's fallbacks: a broken or late pool raises, and the seat then
        falls back to a fixed shape or a plain choice)."""
        loop = asyncio.get_running_loop()
        pending = loop.run_in_executor(
            self._pool, swap2_plan, rule, size, list(moves), max(0.05, budget_s * 0.7)
        )
        pending.add_done_callback(_outcome_seen)
        return await asyncio.wait_for(asyncio.shield(pending), max(0.1, budget_s))

    def close(self, grace_s: float = CLOSE_GRACE_S) -> None:
        """Stop both pools and their processes (blocking; call it off the event loop).

        Queued searches are dropped. A search still running after ``grace_s`` is cut
        short: its process exits (its caller, if any is left, gets ``BrokenExecutor``),
        so closing takes about ``grace_s`` at most, not the rest of a move budget."""
        if self._closed:
            return
        self._closed = True
        pools = (self._pool, self._quick)

        def shut_down() -> None:
            for pool in pools:
                pool.shutdown(wait=True, cancel_futures=True)

        closing = threading.Thread(target=shut_down, name="thinker-close")
        closing.start()
        closing.join(grace_s)
        if closing.is_alive():
            log.info("stopping the searches still running")
            self._stop.set()
            closing.join()
