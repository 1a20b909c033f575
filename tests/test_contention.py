"""A crowd chatting never makes a game action fail: spectators on two instances sharing one
Redis chat as fast as the server lets them while the players move, and every move lands
(bench/crowd.py measures the same with 50 spectators; this test only counts failures)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
from collections.abc import Awaitable, Callable

from server_fixtures import Connect, TestClient, make_config

from protocol import messages as m
from protocol.events import ChatPosted, Moved
from server.app import GomokuServer
from server.config import ConnectionLimits
from server.store.redis import RedisStore

MakeServer = Callable[..., Awaitable[GomokuServer]]
SPECTATORS = 6
MOVES = 20
CHAT_PAUSE_S = 0.001
"""Still about twenty chat lines land in the room between two moves (measured: 70-86 lines
from each spectator over the 20 moves), where the old design's moves met a conflict at one."""


def quiet_moves(count: int) -> list[str]:
    """Alternate Black and White on every other row, Black on even columns and White on
    odd ones: gaps everywhere, so nobody makes five and the game runs ``count`` moves."""
    points = [f"{column}{row}" for row in range(1, 16, 2) for column in "abcdefghijklmno"]
    return points[:count]


def _answers(message: m.ServerMessage, player: str, sent: int) -> bool:
    """The echo of ``player``'s chat line, or the error refusing request ``sent``."""
    if isinstance(message, m.Error):
        return message.re == sent
    return (
        isinstance(message, m.Event)
        and isinstance(message.event, ChatPosted)
        and message.event.player == player
    )


def _played(message: m.ServerMessage, point: str) -> bool:
    """The move at ``point`` logged, or an error (the only errors a player gets here)."""
    if isinstance(message, m.Error):
        return True
    return (
        isinstance(message, m.Event)
        and isinstance(message.event, Moved)
        and message.event.point == point
    )


async def _chat_flat_out(client: TestClient, room: str, stop: asyncio.Event) -> None:
    """Send chat lines as fast as they are answered (each waits for its own echo), with a
    breath of ``CHAT_PAUSE_S`` between: the servers, the players and the crowd share this
    test's one event loop, and unpaced chat would outrun the players' reading (every
    line reaches them too) until their own keepalive gives up."""
    sent = 0
    while not stop.is_set():
        sent += 1
        await client.send(m.Chat(room=room, text=f"line {sent}", id=sent))
        await client.until(functools.partial(_answers, player=client.player, sent=sent))
        await asyncio.sleep(CHAT_PAUSE_S)


async def test_spectators_chatting_never_make_a_move_fail(
    make_server: MakeServer, connect: Connect, redis_url: str
) -> None:
    """Six spectators (three per instance) chat without pause while Black (on one
    instance) and White (on the other) play 40 moves: no move and no chat line is refused,
    and nothing fails inside either server."""
    limits = ConnectionLimits(
        ping_interval_s=None,
        ping_timeout_s=None,
        rate_per_s=10_000,
        rate_burst=10_000,
        chat_per_window=1_000_000,
    )
    servers = [
        await make_server(make_config(limits=limits), store=RedisStore(redis_url)) for _ in range(2)
    ]
    black = await connect("black", to=servers[0])
    white = await connect("white", to=servers[1])
    room = (await black.create(seat="black")).room.id
    await white.join(room)
    crowd = []
    for i in range(SPECTATORS):
        spectator = await connect(f"s{i}", to=servers[i % 2])
        await spectator.join(room, "spectator")
        crowd.append(spectator)
    stop = asyncio.Event()
    chatters = [asyncio.create_task(_chat_flat_out(s, room, stop)) for s in crowd]
    refused: collections.Counter[str] = collections.Counter()
    try:
        await asyncio.sleep(0.2)  # the chat is in full flow before the first move
        for i, point in enumerate(quiet_moves(MOVES)):
            mover = black if i % 2 == 0 else white
            await mover.send(m.Move(room=room, point=point, id=i))
            reply = await mover.until(functools.partial(_played, point=point))
            if isinstance(reply, m.Error):
                refused[reply.code] += 1
    finally:
        stop.set()
        for chatter in chatters:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(chatter, 10)
        for client in (black, white, *crowd):  # unread chat waits in them: no close handshake
            client.ws.transport.abort()
    assert refused == collections.Counter()
    for chatter in chatters:
        assert chatter.exception() is None
    for server in servers:
        assert server.metrics.counters["gomoku_errors_internal_total"] == 0
        assert server.metrics.errors == collections.Counter()
