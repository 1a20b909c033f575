"""What a worker counts about itself (the benchmark and the tests read it)."""

from __future__ import annotations

import asyncio
import dataclasses
import time


@dataclasses.dataclass
class WorkerStats:
    """Counters of one worker. A move is *within budget* when it was sent no later
    than its time budget after the worker learnt it was its turn."""

    moves: int = 0
    within_budget: int = 0
    max_over_ms: float = 0.0
    think_ms_total: float = 0.0
    quick_moves: int = 0
    """Moves played by the quick level because the search had no time left (a busy pool)."""
    refused: int = 0
    """Moves or choices the server refused (an illegal move would show here)."""
    rate_limited: int = 0
    """Plays the server dropped for coming too fast (each is sent again)."""
    games: int = 0
    finished: int = 0
    brain_failures: int = 0
    hints: int = 0
    draws_offered: int = 0
    resigned: int = 0
    takebacks_accepted: int = 0
    rematches_accepted: int = 0
    reconnects: int = 0
    loop_max_gap_ms: float = 0.0
    """The longest gap between two ticks of a 10 ms heartbeat task on the event loop
    (about 10 when the loop never stalls; 0 if not measured). On a busy machine it
    also holds the time the operating system gave the process no CPU."""
    loop_max_busy_ms: float = 0.0
    """The most CPU time the event-loop thread spent between two heartbeat ticks: how
    long other work kept the loop from the heartbeat, without the time the process
    waited for a CPU."""

    def record_move(self, elapsed_ms: float, budget_ms: float) -> None:
        self.moves += 1
        self.think_ms_total += elapsed_ms
        if elapsed_ms <= budget_ms:
            self.within_budget += 1
        else:
            self.max_over_ms = max(self.max_over_ms, elapsed_ms - budget_ms)

    def as_dict(self) -> dict[str, int | float]:
        """The counters as ``--stats`` writes them: counts as whole numbers, times in
        milliseconds as they are."""
        return dataclasses.asdict(self)


async def watch_loop(stats: WorkerStats, tick_s: float = 0.01) -> None:
    """A heartbeat task: sleep ``tick_s`` forever and keep the longest gap between
    wake-ups in ``stats.loop_max_gap_ms`` (a stalled event loop shows as a long gap)."""
    last, last_cpu = time.perf_counter(), time.thread_time()
    while True:
        await asyncio.sleep(tick_s)
        now, cpu = time.perf_counter(), time.thread_time()
        stats.loop_max_gap_ms = max(stats.loop_max_gap_ms, (now - last) * 1000)
        stats.loop_max_busy_ms = max(stats.loop_max_busy_ms, (cpu - last_cpu) * 1000)
        last, last_cpu = now, cpu
