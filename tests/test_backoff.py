"""The reconnect back-off that the terminal client and the AI worker share."""

from __future__ import annotations

import asyncio

import pytest

from protocol.backoff import Backoff, BackoffError, sleep_unless


def test_backoff_doubles_up_to_the_maximum() -> None:
    """Reconnect delays grow 0.5, 1, 2, ... and stop growing at the maximum."""
    backoff = Backoff(initial=0.5, maximum=4, jitter=0)
    assert [backoff.delay(n) for n in range(1, 7)] == [0.5, 1, 2, 4, 4, 4]
    jittered = Backoff(initial=1, maximum=1, jitter=0.5)
    assert all(0.5 <= jittered.delay(3) <= 1 for _ in range(50))


def test_jitter_only_shortens_a_wait() -> None:
    """The cap is a cap: a jittered wait lies between (1 - jitter) and 1 times the
    ceiling, at both ends of the random draw."""
    backoff = Backoff(initial=2, maximum=8, jitter=0.25)
    assert backoff.delay(5, draw=lambda: 0.0) == 8
    assert backoff.delay(5, draw=lambda: 0.999999) == pytest.approx(6, abs=1e-4)
    assert backoff.delay(1, draw=lambda: 0.5) == 2 * (1 - 0.125)


def test_a_long_outage_stays_at_the_maximum() -> None:
    """Thousands of failed attempts (hours of an outage) wait the maximum, never overflow."""
    backoff = Backoff(initial=0.5, maximum=15)
    assert backoff.ceiling(100_000) == 15
    assert Backoff(initial=0, maximum=15).ceiling(7) == 0
    assert Backoff(initial=3, maximum=15, factor=1).ceiling(7) == 3


def test_the_repr_reads_back() -> None:
    backoff = Backoff(initial=0.2, maximum=5.0, factor=3, jitter=0.1)
    assert repr(backoff) == "Backoff(initial=0.2, maximum=5.0, factor=3, jitter=0.1)"
    assert eval(repr(backoff)) == backoff


@pytest.mark.parametrize(
    ("settings", "why"),
    [
        ({"initial": -1}, "initial <= maximum"),
        ({"initial": 20, "maximum": 10}, "initial <= maximum"),
        ({"factor": 0.5}, "factor below 1"),
        ({"jitter": 1.5}, "jitter"),
        ({"maximum": float("inf")}, "finite"),
    ],
)
def test_settings_that_make_no_sense_are_refused(settings: dict[str, float], why: str) -> None:
    with pytest.raises(BackoffError, match=why):
        Backoff(**settings)


async def test_a_wait_is_cut_short_by_the_stop() -> None:
    """A stop set while the program waits to reconnect ends the wait (the test would
    time out on a 60-second wait that was not cut short)."""
    stop = asyncio.Event()
    waiting = asyncio.create_task(sleep_unless(stop, 60))
    await asyncio.sleep(0)
    stop.set()
    assert await asyncio.wait_for(waiting, 10) is True


async def test_a_wait_without_a_stop_runs_its_course() -> None:
    assert await sleep_unless(asyncio.Event(), 0.01) is False
