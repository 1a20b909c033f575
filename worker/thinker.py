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
short grace exits at once (each process watches a pipe the worker closes), so a
worker told to stop is gone in well under a second whatever it was thinking.

Signals are the worker's alone: the pool's processes start with SIGINT and SIGTERM
held back and leave the worker's process group before they take them again, so
neither a terminal's Ctrl-C nor a SIGTERM to the whole group (``timeout``, a
service manager) reaches them; the worker stops them as it stops.
"""

from __future__ import annotations

import asyncio
import contextlib
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
from protocol.options import usable_cpus

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

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


CLOSE_GRACE_S = 0.2
"""How long closing lets running searches end by themselves before stopping them."""


SHIELDED_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})
"""The signals a pool process must not get from its worker's process group: a terminal's
Ctrl-C reaches every process of the group, and ``timeout`` or a service manager sends
SIGTERM to all of them. The worker stops its pool itself; a pool process killed by one
while it started broke the pool, and the worker printed a traceback."""


def _exit_with_parent(stop: Connection) -> None:
    """Runs in a pool process first: leave the worker's process group, and exit as soon
    as the worker's end of the ``stop`` pipe is closed (nothing is ever sent on it): when
    the worker closes it to cut running searches short, and when the worker is gone,
    however (even SIGKILLed, which gives the pool no chance to stop its processes: the
    system closes it then), so none is left behind.

    (It was a shared event the worker set, and each process also checked every 0.5 s
    that the worker lived. A process that ended while it waited on the event left a
    sleeper behind that never woke, and setting the event then waited for it for good:
    a worker stopped while its pool warmed up hung.)

    A pool process starts with SIGINT and SIGTERM blocked (:func:`_start_forkserver`), so
    one sent to the group while it started is held back: it is dropped here, once the
    process is in a group of its own, where no group signal reaches it. SIGTERM sent to
    the process itself (the pool stopping a broken pool's processes) works as usual;
    SIGINT is ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # drops one held back meanwhile
        os.setpgid(0, 0)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, SHIELDED_SIGNALS)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)

    def watch() -> None:
        with contextlib.suppress(OSError, EOFError):
            stop.poll(None)  # returns at the end of the pipe
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _start_forkserver() -> None:
    """Start the fork server the pool processes are forked from (if it is not running)
    with SIGINT and SIGTERM blocked: it inherits the mask, and so does every process it
    forks, from its first instruction. Its own start takes a while (it imports the engine
    beforehand, :func:`_context`), and a Ctrl-C then killed it with a traceback; now it
    ignores SIGINT (as the fork server does once started) and holds SIGTERM back for
    good (it exits when the worker does), and each pool process sorts the signals out
    first thing (:func:`_exit_with_parent`).

    The resource tracker is started first: it blocks and unblocks the same signals around
    its own start, which would end the block here early."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - Windows: no fork server
        return
    from multiprocessing import forkserver, resource_tracker

    resource_tracker.ensure_running()
    held = signal.pthread_sigmask(signal.SIG_BLOCK, SHIELDED_SIGNALS)
    try:
        forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


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
        self.processes = max(1, processes or usable_cpus())
        self._stop, self._stopping = _context().Pipe(duplex=False)
        """The pool processes' end of a pipe, and ours: closing ours stops them all."""
        self._closed = False
        self._pool = self._new_pool()
        self._quick = self._new_pool(1)
        self.late = 0
        """Searches withdrawn because no process was free in time."""

    def _new_pool(self, processes: int | None = None) -> ProcessPoolExecutor:
        context = _context()
        if context.get_start_method() == "forkserver":
            _start_forkserver()
        return ProcessPoolExecutor(
            processes or self.processes,
            mp_context=context,
            initializer=_exit_with_parent,
            initargs=(self._stop,),
        )

    async def start(self) -> None:
        """Start every process and warm its engine, so the first moves are not slow.

        A process killed meanwhile (a service manager's SIGTERM to every process of the
        worker, the OOM killer) breaks its pool: the pools are replaced, unwarmed, as
        :meth:`move` replaces a pool that breaks later."""
        loop = asyncio.get_running_loop()
        try:
            await asyncio.gather(
                *(loop.run_in_executor(self._pool, warm_up) for _ in range(self.processes)),
                loop.run_in_executor(self._quick, warm_up),
            )
        except BrokenExecutor:
            if self._closed:
                return
            log.warning("a search process died as the pool started; starting new ones")
            for pool in (self._pool, self._quick):
                pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._new_pool()
            self._quick = self._new_pool(1)

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
        try:
            if closing.is_alive():
                log.info("stopping the searches still running")
                self._stopping.close()
                closing.join()
        finally:
            self._stopping.close()  # and the processes of a pool replaced earlier, if any
