"""worker/timing.py: how long a seat may think about one move, from the room's clock and
the worker's cap."""

from __future__ import annotations

from worker.timing import move_budget_ms


def test_budget_without_a_clock_is_the_cap() -> None:
    """No clock: the per-move cap is the budget."""
    budget = move_budget_ms(
        remaining_ms=None, inc_ms=0, stones=10, cells=225, cap_ms=700, overhead_ms=100
    )
    assert budget == 700


def test_budget_never_risks_the_clock() -> None:
    """The budget stays under half the usable time, and is zero when nothing is left."""
    for remaining in (50, 120, 400, 1_000, 5_000, 60_000, 600_000):
        for inc in (0, 1_000, 5_000):
            budget = move_budget_ms(
                remaining_ms=remaining,
                inc_ms=inc,
                stones=30,
                cells=225,
                cap_ms=10_000,
                overhead_ms=100,
            )
            assert 0 <= budget <= max(0, (remaining - 100) / 2)
    assert (
        move_budget_ms(
            remaining_ms=90, inc_ms=0, stones=0, cells=225, cap_ms=1_000, overhead_ms=100
        )
        == 0
    )


def test_budget_uses_the_increment_and_the_cap() -> None:
    """An increment buys time per move; the cap bounds it."""
    kwargs = {"stones": 20, "cells": 225, "cap_ms": 60_000, "overhead_ms": 100}
    without = move_budget_ms(remaining_ms=60_000, inc_ms=0, **kwargs)
    with_inc = move_budget_ms(remaining_ms=60_000, inc_ms=3_000, **kwargs)
    assert with_inc > without
    kwargs["cap_ms"] = 500
    assert move_budget_ms(remaining_ms=60_000, inc_ms=3_000, **kwargs) == 500
