"""How fast an AI seat sends: never faster than the server's rate limit allows, and in
a game between two AIs no faster than people can watch."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import pytest
from server_fixtures import Connect, TestClient
from worker_fixtures import StartWorker, ai_config

from protocol import messages as m
from protocol.events import GameOver, Moved
from protocol.values import Limits
from server.app import GomokuServer
from server.config import ConnectionLimits
from worker.pacer import SendPacer


@pytest.fixture
async def server(ai_server: GomokuServer) -> GomokuServer:
    """The ``connect`` fixture's server: the one that accepts the test bot key."""
    return ai_server


async def watch_ai_game(client: TestClient, *, moves: int | None = None) -> list[float]:
    """Create a novice-vs-novice game and follow it (to its end, or ``moves`` stones),
    checking that no event is missed; the arrival time of each stone."""
    await client.send(m.CreateAiGame(black="novice", white="novice", id=1))
    view = (await client.expect(m.Snapshot)).room
    last = view.seq
    arrivals: list[float] = []
    while moves is None or len(arrivals) < moves:
        message = await client.recv(30)
        if not isinstance(message, m.Event) or message.room != view.id:
            continue
        assert message.seq == last + 1
        last = message.seq
        if isinstance(message.event, Moved):
            arrivals.append(time.monotonic())
        if isinstance(message.event, GameOver):
            break
    return arrivals


async def test_fast_ai_game_stays_under_a_tight_rate_limit(
    make_server: Callable[..., Awaitable[GomokuServer]],
    start_worker: StartWorker,
    connect: Connect,
) -> None:
    """Two instant AIs finish their game on a server allowing 10 messages/s, none refused."""
    limits = ConnectionLimits(
        rate_per_s=10, rate_burst=5, ping_interval_s=None, ping_timeout_s=None
    )
    server = await make_server(ai_config(limits=limits))
    worker = await start_worker(to=server, seats=2)
    arrivals = await watch_ai_game(await connect("cy", to=server))
    assert len(arrivals) >= 9  # a five takes at least nine stones
    assert (worker.stats.rate_limited, worker.stats.refused) == (0, 0)


async def test_ai_versus_ai_moves_at_the_watch_pace(
    start_worker: StartWorker, connect: Connect
) -> None:
    """With a 150 ms pace, seven stones of an AI-vs-AI game span at least ~0.9 s."""
    await start_worker(seats=2, pace_ms=150)
    arrivals = await watch_ai_game(await connect("cy"), moves=7)
    assert arrivals[-1] - arrivals[0] >= 6 * 0.150 - 0.05


async def test_ai_against_a_person_is_not_paced(
    start_worker: StartWorker, connect: Connect
) -> None:
    """The watch pace is for AI-vs-AI games: against a person the AI answers without it
    (paced, its move would take ten minutes; only a hang takes as long as the wait)."""
    await start_worker(pace_ms=600_000)
    client = await connect("ann")
    room = (await client.create(seat="white")).room.id
    await client.send(m.SeatAi(room=room, level="novice"))
    while not isinstance((message := await client.recv(60)), m.Event) or not isinstance(
        message.event, Moved
    ):
        pass
    assert message.event.color == "black"  # the AI's first stone (we sit as White)


async def test_pacer_spreads_sends_beyond_its_burst() -> None:
    """After its burst a pacer lets sends through at its rate: 7 sends at 50/s, burst 2."""
    pacer = SendPacer(50, 2)
    started = time.monotonic()
    for _ in range(7):
        await pacer.wait()
    assert time.monotonic() - started >= 5 / 50 - 0.01
    assert repr(pacer) == "SendPacer(50, 2)"


def test_pacer_stays_inside_the_announced_limits() -> None:
    """A seat's pacer keeps below the rate and burst the server announced."""
    pacer = SendPacer.within(Limits(rate_per_s=20, rate_burst=40))
    assert pacer.rate < 20
    assert pacer.burst < 40
    with pytest.raises(ValueError, match="positive"):
        SendPacer(0, 1)
