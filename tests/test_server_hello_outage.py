"""A `hello` that the store fails part-way: the connection stays unidentified (nothing but
another `hello` is handled on it) and a `hello` after the outage succeeds.

The outage is real: redis-server is killed with SIGKILL and started again on the same port
and data. Only its moment is chosen, by a store that kills Redis just before a given call
of the hello path (after the session was read, so the hello is already half done).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from redis_fixtures import RedisServer
from server_fixtures import Connect, TestClient, seated_pair, wait_healthy

from protocol import messages as m
from protocol.events import Moved, Presence
from server.app import GomokuServer
from server.store.redis import RedisStore

MakeServer = Callable[..., Awaitable[GomokuServer]]


class RedisDiesDuringHello(RedisStore):
    """The Redis store, with an outage armed to start at the next call of ``player_rooms``
    (the hello lists the player's rooms, its last step)."""

    def __init__(self, redis: RedisServer) -> None:
        super().__init__(redis.url, poll_interval_s=0.2)
        self.redis_server = redis
        self.armed: str | None = None

    def _maybe_die(self, method: str) -> None:
        if self.armed == method:
            self.armed = None
            self.redis_server.stop(kill=True)

    async def player_rooms(self, player_id: str) -> list[str]:
        self._maybe_die("player_rooms")
        return await super().player_rooms(player_id)


async def _presence(client: TestClient, player: str) -> Presence:
    """Skip messages until the next presence event about ``player``."""
    message = await client.until(
        lambda x: (
            isinstance(x, m.Event) and isinstance(x.event, Presence) and x.event.player == player
        )
    )
    assert isinstance(message, m.Event)
    assert isinstance(message.event, Presence)
    return message.event


async def _refused(client: TestClient, message: Any, code: str) -> None:
    await client.send(message)
    error = await client.expect(m.Error, wait_s=20)
    assert (error.code, error.re) == (code, message.id), (message, error)


async def test_a_hello_cut_by_an_outage_leaves_the_connection_unidentified(
    make_server: MakeServer, connect: Connect, persistent_redis: RedisServer
) -> None:
    """Redis dies while Alice's returning hello runs: she gets `unavailable`, and until a
    hello succeeds every other message on that connection is refused with `not_hello`
    (during the outage and after it); once Redis is back her hello goes through on the
    same connection, she is back in her room once she joins it again and plays, and
    nothing she sent before landed."""
    dies_at = "player_rooms"
    store = RedisDiesDuringHello(persistent_redis)
    server = await make_server(store=store)
    alice, bob, room = await seated_pair(connect, to=server)
    await alice.ws.close()
    assert not (await _presence(bob, alice.player)).online

    again = await connect(to=server)
    store.armed = dies_at
    await _refused(again, m.Hello(name="alice", token=alice.token, id=1), "unavailable")
    assert store.armed is None, "the outage did not start inside the hello"
    await _refused(again, m.Move(room=room, point="h8", id=2), "not_hello")
    await _refused(again, m.GetProfile(id=3), "not_hello")

    persistent_redis.start()
    await wait_healthy(server.port)
    await _refused(again, m.Move(room=room, point="h8", id=4), "not_hello")
    await _refused(again, m.Resume(room=room, after=0, id=5), "not_hello")
    await _refused(again, m.Chat(room=room, text="am I in?", id=6), "not_hello")

    await again.send(m.Hello(name="alice", token=alice.token, id=7))
    welcome = await again.expect(m.Welcome)
    assert (welcome.player, welcome.resumed, welcome.rooms, welcome.re) == (
        alice.player,
        True,
        [room],
        7,
    )
    snap = await again.join(room)
    assert (await _presence(bob, alice.player)).online
    assert snap.room.moves == []  # the moves sent before the hello never landed
    await again.move(room, "h8")
    moved = await bob.until_event(Moved)
    assert (moved.point, moved.move_no) == ("h8", 1)
    assert server.metrics.counters["gomoku_errors_internal_total"] == 0
