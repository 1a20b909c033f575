"""How long the AI may think about one move, given the room's clock.

The share is the usable remaining time spread over the moves still to come,
plus most of the increment; never more than half of what is left, never more
than the per-move cap. ``overhead_ms`` is held back from every move for the
network, the process pool and the server's bookkeeping, so the AI does not
lose on time while it still had some.
"""

from __future__ import annotations

MIN_MOVES_TO_COME = 8
MAX_MOVES_TO_COME = 30
INCREMENT_SHARE = 0.8


def move_budget_ms(
    *,
    remaining_ms: int | None,
    inc_ms: int,
    stones: int,
    cells: int,
    cap_ms: int,
    overhead_ms: int,
) -> int:
    """Milliseconds to think about the next move (0: answer at once).

    ``remaining_ms`` None means the room has no clock: the cap is the budget.
    """
    if remaining_ms is None:
        return max(0, cap_ms)
    usable = remaining_ms - overhead_ms
    if usable <= 0:
        return 0
    moves_to_come = max(MIN_MOVES_TO_COME, min(MAX_MOVES_TO_COME, (cells - stones) // 5))
    share = usable / moves_to_come + INCREMENT_SHARE * inc_ms
    return max(0, int(min(share, usable * 0.5, cap_ms)))
