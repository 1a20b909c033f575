"""Whether the cluster's AI workers can play one more seat at a level.

Seats are not interchangeable: a worker plays only the levels it offers. Counting every
seat of every worker let four quick matches asking for ``master`` through, when only one
worker with two seats offered it and the others had seats free at other levels: two of
the games waited for a worker that never came, and were aborted.

A seat a worker took (its record in the store names the worker) uses that worker's
capacity; a seat waiting in the pool may still go to any worker offering its level. The
new seat fits if the waiting seats that can be played at all are one more with it: by
Hall's theorem, if no set of levels falls shorter of seats with it than the worst one
did without (a seat waiting at a level nobody plays any more is short either way, and
does not stop a seat of another level).
"""

from __future__ import annotations

import collections
import itertools
from collections.abc import Iterable, Mapping

from server.bots.jobs import WorkerRecord
from server.bots.registry import SeatRecord

MAX_LEVELS_SEARCHED = 12
"""Past this many levels with waiting seats (4,096 sets), only the new seat's level is
looked at: fewer of its seats than its workers have left."""


def held_by(seats: Iterable[SeatRecord]) -> collections.Counter[str]:
    """How many seats each worker holds, by the store's records (a seat whose
    connection plays through another server instance is its worker's all the same)."""
    return collections.Counter(seat.worker for seat in seats if seat.worker)


def room_for(level: str, seats: Iterable[SeatRecord], workers: Mapping[str, WorkerRecord]) -> bool:
    """Whether a new seat at ``level`` can be played by ``workers`` (every connected
    worker of the cluster) beside ``seats`` (every AI seat in play)."""
    left = {worker_id: record.seats for worker_id, record in workers.items()}
    waiting: collections.Counter[str] = collections.Counter()
    for seat in seats:
        if seat.worker in left:
            left[seat.worker] -= 1
        else:  # in the pool, or its worker is gone: any worker of its level may take it
            waiting[seat.level] += 1
    offers = {worker_id: frozenset(record.levels) for worker_id, record in workers.items()}

    def offered(wanted: frozenset[str]) -> int:
        return sum(max(0, left[w]) for w, levels in offers.items() if wanted & levels)

    levels = sorted(set(waiting) | {level})
    if len(levels) > MAX_LEVELS_SEARCHED:
        return waiting[level] + 1 <= offered(frozenset({level}))
    worst_without = worst_with = 0
    for size in range(1, len(levels) + 1):
        for group in itertools.combinations(levels, size):
            wanted = frozenset(group)
            short = sum(waiting[name] for name in wanted) - offered(wanted)
            worst_without = max(worst_without, short)
            worst_with = max(worst_with, short + (level in wanted))
    return worst_with == worst_without
