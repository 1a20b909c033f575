"""Lag compensation on real sockets: a player a long way away (a proxy holding the
server's bytes back 1 s) is not charged their link's round trip for a stone."""

from __future__ import annotations

import asyncio

from link_fixtures import slow_link
from server_fixtures import Connect, TestClient
from websockets.asyncio.client import connect as ws_connect

from protocol import events as ev
from protocol import messages as m
from protocol.values import TimeControl
from server.app import GomokuServer

DELAY_S = 1.0
BASE_MS, INC_MS = 180_000, 2_000


async def test_a_far_away_player_is_not_charged_the_round_trip(
    server: GomokuServer, connect: Connect
) -> None:
    """Bob's link holds every server frame back 1 s; he answers Alice's stone the moment
    it reaches him. His clock is charged far less than the 1 s the server's clock ran
    while the stone and his answer were on their way."""
    alice = await connect("alice")
    snapshot = await alice.create(seat="black", time=TimeControl(base_ms=BASE_MS, inc_ms=INC_MS))
    room = snapshot.room.id
    async with slow_link(server.port, DELAY_S) as port:
        ws = await ws_connect(f"ws://127.0.0.1:{port}/", compression=None, max_queue=None)
        bob = TestClient(ws)
        try:
            await bob.hello("bob")
            await bob.join(room)
            await asyncio.sleep(DELAY_S + 0.5)  # the server's first ping has come back
            await alice.move(room, "h8")
            assert (await bob.until_event(ev.Moved)).point == "h8"
            await bob.move(room, "a1")
            assert (await alice.until_event(ev.Moved)).point == "h8"
            moved = await alice.until_event(ev.Moved)
        finally:
            await ws.close()
    assert moved.point == "a1"
    assert moved.clocks is not None
    charged = BASE_MS + INC_MS - moved.clocks.white_ms
    assert charged < DELAY_S * 1000 / 2, f"charged {charged} ms for a stone played at once"


async def test_a_far_away_players_first_stone_gets_the_flags_grace(
    server: GomokuServer, connect: Connect
) -> None:
    """Bob's link holds the server's frames back 0.6 s. In a 2-second game he plays his
    first stone when his own count of his clock shows 0.3 s left: it counts, as his
    later stones would (the grace came only from a stone's own lag, so before a
    player's first stone the flag fell at zero, and a bullet player lost on time)."""
    delay = 0.6
    alice = await connect("alice")
    async with slow_link(server.port, delay) as port:
        ws = await ws_connect(f"ws://127.0.0.1:{port}/", compression=None, max_queue=None)
        bob = TestClient(ws)
        try:
            await bob.hello("bob")
            await asyncio.sleep(delay + 0.5)  # the server's first ping has come back
            snapshot = await bob.create(seat="white", time=TimeControl(base_ms=2_000, inc_ms=0))
            room = snapshot.room.id
            await alice.join(room)
            await alice.move(room, "h8")
            assert (await bob.until_event(ev.Moved)).point == "h8"
            await asyncio.sleep(1.7)  # his clock, as he counts it: 0.3 s left
            await bob.move(room, "a1")
            answer = await alice.until(
                lambda x: (
                    isinstance(x, m.Event)
                    and isinstance(x.event, ev.Moved | ev.GameOver)
                    and not (isinstance(x.event, ev.Moved) and x.event.point == "h8")
                )
            )
        finally:
            await ws.close()
    assert isinstance(answer, m.Event)
    assert isinstance(answer.event, ev.Moved), answer.event
    assert answer.event.point == "a1"
