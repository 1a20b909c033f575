"""Hoarding and guessing: open rooms per player are capped (across server processes
too, and counting AI games until they end); guessing invite codes and bot keys is
throttled per connection and per address; one address becomes a few new players and
opens a few rooms a window.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from abuse_fixtures import MakeServer, limits
from live_server import live_server
from server_fixtures import Connect, TestClient
from websockets.asyncio.client import connect as ws_connect
from worker_fixtures import StartWorker, ai_config

from protocol import messages as m
from protocol.events import GameOver, GameStarted
from server.ratelimit import KeyedWindows
from server.store.redis import RedisStore

# --- open rooms per player -------------------------------------------------------------------


async def create_or_refusal(client: TestClient, **room: Any) -> str:
    """Create a room: its id, or the error code of the refusal."""
    await client.send(m.CreateRoom(**room))
    reply = await client.recv()
    if isinstance(reply, m.Snapshot):
        return reply.room.id
    assert isinstance(reply, m.Error), reply
    return reply.code


@pytest.mark.parametrize("store", ["memory", "redis"])
async def test_open_rooms_per_player_are_capped(
    make_server: MakeServer, connect: Connect, request: pytest.FixtureRequest, store: str
) -> None:
    """A player with 3 open rooms is refused a fourth (too_many_rooms, nothing created)
    while another player creates rooms as usual; a waiting room left empty and a game
    that ended each give a slot back."""
    backend = RedisStore(request.getfixturevalue("redis_url")) if store == "redis" else None
    server = await make_server(limits=limits(max_rooms_per_player=3), store=backend)
    abuser = await connect("abuser", to=server)
    rooms = [await create_or_refusal(abuser, seat="black") for _ in range(2)]
    rooms.append(await create_or_refusal(abuser, private=True))
    await abuser.send(m.CreateRoom(id=4))
    refusal = await abuser.expect_error("too_many_rooms")
    assert refusal.re == 4
    assert "3 open rooms" in refusal.message
    assert sorted(await server.store.owned_rooms(abuser.player)) == sorted(rooms)
    player = await connect("player", to=server)
    assert [await create_or_refusal(player) for _ in range(3)] != ["too_many_rooms"] * 3
    await abuser.send(m.Leave(room=rooms[2]))  # nobody else was in it: it empties
    await abuser.expect(m.Left)
    rooms[2] = await create_or_refusal(abuser, seat="black")
    assert rooms[2].startswith("r-")
    assert await create_or_refusal(abuser) == "too_many_rooms"
    await player.join(rooms[0])
    await abuser.until_event(GameStarted)
    await abuser.send(m.Resign(room=rooms[0]))  # the game ends: the room is not open
    await abuser.until_event(GameOver)
    assert (await create_or_refusal(abuser)).startswith("r-")
    assert await create_or_refusal(abuser) == "too_many_rooms"


async def test_the_room_cap_holds_across_two_server_processes(redis_url: str) -> None:
    """With two gomoku-server processes on one Redis, a player's open rooms are counted
    once for both: 2 on one instance and 1 on the other reach a cap of 3, on either; so
    do requests racing on both at once."""
    flags = ["--redis", redis_url, "--max-rooms-per-player", "3"]
    with live_server(flags) as first, live_server(flags) as second:
        clients: list[TestClient] = []
        try:
            for live in (first, second, first, second):
                clients.append(TestClient(await ws_connect(live.url, compression=None)))
            one, two, racer_one, racer_two = clients
            await one.hello("abuser")
            await two.hello("abuser", token=one.token)
            assert (await create_or_refusal(one)).startswith("r-")
            assert (await create_or_refusal(one)).startswith("r-")
            assert (await create_or_refusal(two)).startswith("r-")
            assert await create_or_refusal(two) == "too_many_rooms"
            assert await create_or_refusal(one) == "too_many_rooms"
            await racer_one.hello("racer")
            await racer_two.hello("racer", token=racer_one.token)
            assert (await create_or_refusal(racer_two)).startswith("r-")
            assert (await create_or_refusal(racer_two)).startswith("r-")
            raced = await asyncio.gather(create_or_refusal(racer_one), create_or_refusal(racer_two))
            assert raced.count("too_many_rooms") == 1
        finally:
            for client in clients:
                await client.ws.close()


async def test_an_ai_game_someone_started_counts_until_it_ends(
    make_server: MakeServer, connect: Connect, start_worker: StartWorker
) -> None:
    """An AI-vs-AI game a player started counts against their cap (here 1) while it
    runs, though they only watch it; when it ends they may create a room again."""
    server = await make_server(ai_config(limits=limits(max_rooms_per_player=1)))
    await start_worker(to=server, seats=2)
    fan = await connect("fan", to=server)
    await fan.send(m.CreateAiGame(black="beginner", white="beginner", size=7))
    watched = (await fan.expect(m.Snapshot)).room.id
    await fan.send(m.CreateAiGame(black="beginner", white="beginner", size=7))
    await fan.until(lambda x: isinstance(x, m.Error) and x.code == "too_many_rooms")
    other = await connect("other", to=server)
    assert (await create_or_refusal(other)).startswith("r-")  # others are not held up
    over = await fan.until(lambda x: isinstance(x, m.Event) and isinstance(x.event, GameOver))
    assert isinstance(over, m.Event)
    assert over.room == watched
    await fan.send(m.CreateRoom(id=5))
    created = await fan.until(lambda x: isinstance(x, m.Snapshot | m.Error))
    assert isinstance(created, m.Snapshot), created
    assert created.re == 5


# --- guessing invite codes -------------------------------------------------------------------


async def try_code(client: TestClient, code: str) -> str:
    """Join by ``code`` as a spectator: "joined", or the error code of the refusal."""
    await client.send(m.Join(code=code, role="spectator"))
    reply = await client.recv()
    if isinstance(reply, m.Snapshot):
        return "joined"
    assert isinstance(reply, m.Error), reply
    return reply.code


async def test_guessing_invite_codes_is_throttled_per_connection_and_address(
    make_server: MakeServer, connect: Connect
) -> None:
    """After 3 codes that lead nowhere a connection's joins by code, even a right one,
    get rate_limited; its address's other connections share a budget of 5. A player on
    another address joins by code meanwhile, and once the window has passed the guesser
    is heard again."""
    window_ms = 3000
    server = await make_server(
        limits=limits(code_failures=3, code_failures_per_ip=5, code_failure_window_ms=window_ms)
    )
    alice = await connect("alice", to=server, local_addr=("127.0.0.2", 0))
    code = (await alice.create(private=True)).room.code
    assert code is not None
    guesser = await connect("guesser", to=server)
    started = asyncio.get_running_loop().time()
    assert [await try_code(guesser, f"AAA-AAA-A{c}A") for c in "234"] == ["no_such_room"] * 3
    await guesser.send(m.Join(code=code, role="spectator", id=9))
    refusal = await guesser.expect_error("rate_limited")
    assert refusal.re == 9
    assert "try again in" in refusal.message
    again = await connect("again", to=server)  # a new connection from the same address
    assert [await try_code(again, f"BBB-BBB-B{c}B") for c in "234"] == [
        "no_such_room",
        "no_such_room",
        "rate_limited",
    ]
    assert await try_code(again, code) == "rate_limited"
    bob = await connect("bob", to=server, local_addr=("127.0.0.3", 0))
    assert await try_code(bob, code.lower()) == "joined"
    elapsed = asyncio.get_running_loop().time() - started
    await asyncio.sleep(max(0.0, window_ms / 1000 - elapsed) + 0.1)
    assert await try_code(guesser, code) == "joined"


def test_failure_counts_per_address_keep_only_recent_addresses() -> None:
    """Addresses whose failures have all left the window are dropped, so guesses from
    ever new addresses cost memory only for the last window's."""
    windows = KeyedWindows(limit=2, window_ms=1000)
    for i in range(100):
        windows.add(f"10.0.0.{i}", now_ms=i)
    windows.add("10.0.0.1", now_ms=500)
    assert windows.wait_ms("10.0.0.1", now_ms=600) == 401  # two failures: the first leaves at 1001
    windows.add("192.0.2.1", now_ms=1200)
    assert set(windows.windows) == {"10.0.0.1", "192.0.2.1"}
    assert windows.wait_ms("10.0.0.1", now_ms=1200) == 0


# --- what one address may make ----------------------------------------------------------------


async def hello_or_refusal(port: int, name: str, *, token: str | None = None, **hello: Any) -> str:
    """Say hello on a new connection from 127.0.0.1: ``welcome``, or the refusal's code."""
    ws = await ws_connect(f"ws://127.0.0.1:{port}/", compression=None)
    client = TestClient(ws)
    try:
        await client.send(m.Hello(name=name, token=token, **hello))
        reply = await client.recv()
        return "welcome" if isinstance(reply, m.Welcome) else getattr(reply, "code", repr(reply))
    finally:
        await ws.close()


async def test_a_worker_known_by_its_token_is_not_locked_out_by_guesses_beside_it(
    make_server: MakeServer,
) -> None:
    """A worker already welcomed comes back with its token and the right key while wrong
    keys from its address are throttled: it gets in (its seats had been refused, and its
    players faced an AI that never moved); with a wrong key, or without its token, not."""
    config = ai_config()
    server = await make_server(
        limits=limits(code_failures_per_ip=5), bot_keys=config.bot_keys, bots=config.bots
    )
    (key,) = config.bot_keys
    ws = await ws_connect(f"ws://127.0.0.1:{server.port}/", compression=None)
    worker = TestClient(ws)
    await worker.send(m.Hello(name="w", bot_key=key))
    token = (await worker.expect(m.Welcome)).token
    await ws.close()
    said = [await hello_or_refusal(server.port, "x", bot_key=f"guess{n}") for n in range(6)]
    assert said == ["bad_bot_key"] * 5 + ["rate_limited"]
    assert await hello_or_refusal(server.port, "w", token=token, bot_key=key) == "welcome"
    assert await hello_or_refusal(server.port, "w", token=token, bot_key="guess") == "bad_bot_key"
    assert await hello_or_refusal(server.port, "w", bot_key=key) == "rate_limited"


async def test_one_address_becomes_a_few_new_players_a_window(
    make_server: MakeServer, connect: Connect
) -> None:
    """From one address, 3 new players a window here: the 4th hello without a token is
    refused with rate_limited, saying how long to wait (one address made hundreds of
    players a second, each a session kept 30 days); a returning player still comes
    back, an AI worker with its key is not counted, and another address is not held
    up."""
    config = ai_config()
    server = await make_server(
        limits=limits(new_players_per_ip=3), bot_keys=config.bot_keys, bots=config.bots
    )
    first = await connect("ann", to=server)
    for name in ("bob", "cy"):
        await connect(name, to=server)
    ws = await ws_connect(f"ws://127.0.0.1:{server.port}/", compression=None)
    fourth = TestClient(ws)
    await fourth.send(m.Hello(name="dan"))
    refusal = await fourth.expect_error("rate_limited")
    assert refusal.message.startswith("too many new players from your address; try again in ")
    await ws.close()
    assert await hello_or_refusal(server.port, "ann", token=first.token) == "welcome"
    (key,) = config.bot_keys
    assert await hello_or_refusal(server.port, "worker", bot_key=key) == "welcome"
    await connect("eve", to=server, local_addr=("127.0.0.2", 0))


async def test_one_address_opens_a_few_rooms_a_window(
    make_server: MakeServer, connect: Connect
) -> None:
    """From one address, 4 rooms a window here, whoever asks: the 5th is refused with
    rate_limited (one address filled the lobby with 400 rooms in 0.3 s, as new players,
    each under its own cap of open rooms); another address opens one."""
    server = await make_server(limits=limits(rooms_per_ip=4))
    ann = await connect("ann", to=server)
    bob = await connect("bob", to=server)
    made = [await create_or_refusal(player) for player in (ann, ann, bob, bob, bob)]
    assert [r if r == "rate_limited" else "room" for r in made] == ["room"] * 4 + ["rate_limited"]
    cy = await connect("cy", to=server, local_addr=("127.0.0.2", 0))
    assert (await create_or_refusal(cy)).startswith("r-")


async def test_guessing_bot_keys_is_throttled_per_address_and_logged_within_it(
    make_server: MakeServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Wrong bot keys from one address are refused like wrong invite codes: after 5 a
    window here, its keys, right or wrong, get rate_limited, and the log says no more
    than the 5 (150 guesses in 2 s wrote 150 warnings); another address's worker gets
    in."""
    config = ai_config()
    server = await make_server(
        limits=limits(code_failures_per_ip=5), bot_keys=config.bot_keys, bots=config.bots
    )
    (key,) = config.bot_keys
    said = [await hello_or_refusal(server.port, "w", bot_key=f"guess{n}") for n in range(8)]
    assert said == ["bad_bot_key"] * 5 + ["rate_limited"] * 3
    assert await hello_or_refusal(server.port, "w", bot_key=key) == "rate_limited"
    warned = [r for r in caplog.records if "refused a bot key" in r.getMessage()]
    assert len(warned) == 5
    ws = await ws_connect(
        f"ws://127.0.0.1:{server.port}/", compression=None, local_addr=("127.0.0.2", 0)
    )
    worker = TestClient(ws)
    await worker.send(m.Hello(name="w", bot_key=key))
    await worker.expect(m.Welcome)
    await ws.close()
