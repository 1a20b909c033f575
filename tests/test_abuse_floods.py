"""Floods and connection counts: message floods (also before hello, and chat spread over
rooms and connections) are limited and then cut off while the game survives;
connections per address (as ``gomoku-server`` flags too), per process, through a
trusted proxy, and from allowed web origins only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import pytest
from abuse_fixtures import MakeServer, close_code, limits, refused_status, wait_for
from live_server import live_server
from server_fixtures import Connect, TestClient, seated_pair
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from protocol import messages as m
from protocol.codec import encode
from protocol.events import ChatPosted, GameOver, GameStarted, Moved, PlayerJoined
from server.app import GomokuServer
from server.config import ConnectionLimits

# --- floods ----------------------------------------------------------------------------------


async def test_message_flood_rate_limited_then_closed(
    make_server: MakeServer, connect: Connect
) -> None:
    """Beyond the token bucket messages are refused, naming the dropped request; a
    sustained flood closes with 1008."""
    limits = ConnectionLimits(
        rate_per_s=5, rate_burst=5, flood_strikes=10, ping_interval_s=None, ping_timeout_s=None
    )
    server = await make_server(limits=limits)
    alice = await connect(to=server)
    await alice.hello("alice")  # takes one token
    for _ in range(4):
        await alice.send(m.LobbyWatch(on=False))  # accepted silently
    await alice.send(m.LobbyWatch(on=False, id=77))
    refused = await alice.expect_error("rate_limited")
    assert refused.re == 77  # the sender knows which message to send again
    await asyncio.sleep(0.5)  # the bucket refills
    await alice.send(m.LobbyWatch(on=True))
    await alice.expect(m.Lobby)
    for _ in range(30):
        await alice.send(m.LobbyWatch(on=False))

    async def drain() -> None:
        while True:
            await alice.expect_error("rate_limited")

    with pytest.raises(ConnectionClosed) as closed:
        await drain()
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1008


async def test_a_flooding_player_is_cut_off_and_the_game_survives(
    make_server: MakeServer, connect: Connect
) -> None:
    """A seated player who floods moves is rate limited and then disconnected (1008);
    the opponent's moves go through meanwhile, no flooded move lands, and the flooder
    resumes the intact game with the token."""
    server = await make_server(limits=limits(rate_per_s=10, rate_burst=10, flood_strikes=20))
    alice = await connect("alice", to=server)
    bob = await connect("bob", to=server)
    room = (await alice.create(seat="black")).room.id
    await bob.join(room)
    await alice.event(PlayerJoined, room)
    await alice.event(GameStarted, room)
    for i in range(200):
        await bob.send(m.Move(room=room, point=f"a{1 + i % 15}"))  # out of turn, all of them
    await alice.move(room, "h8")
    assert (await alice.event(Moved, room)).point == "h8"
    codes: list[str] = []

    async def read_until_closed() -> None:
        while True:
            message = await bob.recv()
            if isinstance(message, m.Error):
                codes.append(message.code)

    with pytest.raises(ConnectionClosed) as closed:
        await read_until_closed()
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1008
    assert set(codes) <= {"not_your_turn", "rate_limited"}
    assert "rate_limited" in codes
    assert codes.count("not_your_turn") <= 10  # only the burst reached the game
    back = await connect(to=server)
    await back.hello("bob", token=bob.token)
    await back.send(m.Resume(room=room, after=0))
    replayed = await back.until_event(Moved)  # the log from the start, gap-free
    assert replayed.point == "h8"
    await alice.move(room, "h9")
    await alice.until(lambda x: isinstance(x, m.Error) and x.code == "not_your_turn")
    await back.move(room, "a1")
    assert (await alice.until_event(Moved)).point == "a1"
    snap = await (await connect("carol", to=server)).join(room, "spectator")
    assert snap.room.moves == ["h8", "a1"]


async def test_an_unidentified_flood_is_cut_off(make_server: MakeServer, connect: Connect) -> None:
    """A connection that never says hello and floods garbage, text frames and requests
    is rate limited and then closed (1008) like anyone else: only the burst is read."""
    server = await make_server(limits=limits(rate_per_s=5, rate_burst=5, flood_strikes=10))
    flooder = await connect(to=server)
    frames: list[bytes | str] = [b"\xc1garbage", "a text frame", encode(m.CreateRoom())]
    for i in range(300):
        await flooder.send_raw(frames[i % len(frames)])
    codes: list[str] = []

    async def read_until_closed() -> None:
        while True:
            message = await flooder.recv()
            assert isinstance(message, m.Error), message
            codes.append(message.code)

    with pytest.raises(ConnectionClosed) as closed:
        await read_until_closed()
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1008
    assert set(codes) <= {"bad_message", "bad_frame", "not_hello", "rate_limited"}
    assert codes.count("rate_limited") >= 10
    assert len(codes) - codes.count("rate_limited") <= 10  # the burst and a little refill
    alice = await connect("alice", to=server)  # the server itself is unharmed
    assert alice.player


async def test_chat_flood_is_limited(connect: Connect) -> None:
    """More than 5 chat lines in 10 s are refused with chat_rate_limited, saying the limit
    and when the next line may come (it said "wait a little")."""
    alice, _bob, room = await seated_pair(connect)
    for i in range(5):
        await alice.send(m.Chat(room=room, text=f"line {i}"))
    await alice.events(5)
    await alice.send(m.Chat(room=room, text="one too many"))
    refused = await alice.expect_error("chat_rate_limited")
    said, _, wait = refused.message.rpartition(" in ")
    assert said == "too many chat lines: 5 in 10 s at most; the next"
    assert wait.endswith(" s")
    assert 1 <= int(wait.removesuffix(" s")) <= 10
    await alice.move(room, "h8")  # other messages still go through
    await alice.event(Moved, room)


async def test_chat_limit_is_per_player_across_rooms(connect: Connect) -> None:
    """Spreading chat over several rooms (as a spectator, say) does not multiply the
    allowance: the sixth line in 10 s is refused in whichever room it goes to."""
    _alice, _bob, first = await seated_pair(connect)
    _dave, _erin, second = await seated_pair(connect)
    carol = await connect("carol")
    await carol.join(first, "spectator")
    await carol.join(second, "spectator")
    for i in range(5):
        room = (first, second)[i % 2]
        await carol.send(m.Chat(room=room, text=f"line {i}"))
        assert (await carol.until_event(ChatPosted)).text == f"line {i}"
    for room in (first, second):
        await carol.send(m.Chat(room=room, text="one too many", id=9))
        error = await carol.until(lambda x: isinstance(x, m.Error))
        assert isinstance(error, m.Error)
        assert (error.code, error.re) == ("chat_rate_limited", 9)


async def test_chat_limit_is_per_player_across_connections(connect: Connect) -> None:
    """A second connection of the same player does not get a fresh chat allowance."""
    alice, bob, room = await seated_pair(connect)
    alice2 = await connect()
    await alice2.hello("alice", token=alice.token)
    await alice2.send(m.Resume(room=room, after=0))
    await alice2.until(lambda x: isinstance(x, m.Event) and isinstance(x.event, GameStarted))
    for i in range(3):
        await alice.send(m.Chat(room=room, text=f"from one {i}"))
        await alice.until_event(ChatPosted)
    for i in range(2):
        await alice2.send(m.Chat(room=room, text=f"from two {i}"))
        await alice2.until_event(ChatPosted)
    await alice2.send(m.Chat(room=room, text="sixth line"))
    await alice2.until(lambda x: isinstance(x, m.Error) and x.code == "chat_rate_limited")
    await bob.send(m.Chat(room=room, text="bob has his own allowance"))
    await bob.until(
        lambda x: (
            isinstance(x, m.Event)
            and isinstance(x.event, ChatPosted)
            and x.event.text == "bob has his own allowance"
        )
    )


# --- connections per address and per process -------------------------------------------------


async def test_connections_per_address_are_limited(
    make_server: MakeServer, connect: Connect
) -> None:
    """A fourth connection from one address is refused with HTTP 429 while three are
    open; another address is unaffected, health checks still answer, and closing one
    connection makes room again."""
    server = await make_server(limits=limits(max_conns_per_ip=3))
    clients = [await connect(f"p{i}", to=server) for i in range(3)]
    assert await refused_status(server.port) == 429
    assert await refused_status(server.port, local_addr=("127.0.0.2", 0)) is None
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert (await reader.read()).startswith(b"HTTP/1.1 200")
    writer.close()
    await clients[0].ws.close()
    await wait_for(lambda: server.listener.per_address["127.0.0.1"] == 2)
    again = await connect("again", to=server)
    assert again.player
    assert server.metrics.counters["gomoku_refused_per_ip_total"] == 1
    assert "gomoku_refused_per_ip_total 1" in server.metrics.render()


@pytest.mark.parametrize(
    ("flags", "env", "limit"),
    [
        ([], {}, 64),
        (["--max-conns-per-ip", "3"], {}, 3),
        (["--max-conns-per-ip", "0"], {}, None),
        ([], {"GOMOKU_MAX_CONNS_PER_IP": "3"}, 3),
        (["--max-conns-per-ip", "3"], {"GOMOKU_MAX_CONNS_PER_IP": "not read"}, 3),
    ],
    ids=["default", "three", "unlimited", "from the environment", "the flag wins"],
)
async def test_the_operator_sets_the_per_address_limit(
    flags: list[str], env: dict[str, str], limit: int | None
) -> None:
    """``gomoku-server`` holds one address to 64 open connections unless
    ``--max-conns-per-ip`` (or, without it, ``GOMOKU_MAX_CONNS_PER_IP``) says otherwise;
    0 lifts the limit."""
    opened = []
    with live_server(flags, env) as live:
        try:
            for _ in range(limit if limit is not None else 80):  # 80: past the default
                opened.append(await ws_connect(live.url, compression=None))
            if limit is not None:
                assert await refused_status(live.port) == 429
                await opened.pop().close()
                await wait_for(lambda: live.metric("gomoku_connections") == limit - 1)
                opened.append(await ws_connect(live.url, compression=None))
            assert live.metric("gomoku_refused_per_ip_total") == (0 if limit is None else 1)
        finally:
            for ws in opened:
                await ws.close()


async def test_connections_per_process_are_limited(make_server: MakeServer) -> None:
    """Past the process's connection limit a new connection is closed with 1008 right
    after its handshake, whatever its address; the open ones carry on, and one leaving
    makes room."""
    server = await make_server(limits=limits(max_connections=2, max_conns_per_ip=0))
    ws1 = await ws_connect(f"ws://127.0.0.1:{server.port}/", compression=None)
    ws2 = await ws_connect(
        f"ws://127.0.0.1:{server.port}/", compression=None, local_addr=("127.0.0.2", 0)
    )
    first, second = TestClient(ws1), TestClient(ws2)
    extra = TestClient(
        await ws_connect(
            f"ws://127.0.0.1:{server.port}/", compression=None, local_addr=("127.0.0.3", 0)
        )
    )
    assert await close_code(extra) == 1008
    await first.hello("first")
    await second.hello("second")
    await ws1.close()
    await wait_for(lambda: len(server.connections) == 1)
    again = TestClient(await ws_connect(f"ws://127.0.0.1:{server.port}/", compression=None))
    assert (await again.hello("again")).name == "again"
    await ws2.close()
    await again.ws.close()


async def test_forwarded_for_is_trusted_only_from_a_trusted_proxy(
    make_server: MakeServer,
) -> None:
    """Behind a trusted proxy each client named in X-Forwarded-For has its own limit;
    from any other peer the header is ignored, so it cannot dodge the limit."""
    proxied = await make_server(
        limits=limits(max_conns_per_ip=1), trusted_proxies=frozenset({"127.0.0.1"})
    )
    direct = await make_server(limits=limits(max_conns_per_ip=1))

    def via(client: str) -> dict[str, Any]:
        return {"additional_headers": {"X-Forwarded-For": f"198.51.100.7, {client}"}}

    a, b = "203.0.113.1", "203.0.113.2"
    first = await ws_connect(f"ws://127.0.0.1:{proxied.port}/", compression=None, **via(a))
    assert await refused_status(proxied.port, **via(a)) == 429
    assert await refused_status(proxied.port, **via(b)) is None
    spoofer = await ws_connect(f"ws://127.0.0.1:{direct.port}/", compression=None, **via(a))
    assert await refused_status(direct.port, **via(b)) == 429
    await first.close()
    await spoofer.close()


async def test_the_log_names_the_address_of_each_hello(
    make_server: MakeServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Each hello and resume is logged with the client's address (behind a trusted
    proxy, the one X-Forwarded-For names): what an operator can block, where the name
    (not unique) and the player id (free to make anew) were all the log said."""
    server = await make_server(trusted_proxies=frozenset({"127.0.0.1"}))
    headers: dict[str, Any] = {"additional_headers": {"X-Forwarded-For": "203.0.113.9"}}
    with caplog.at_level(logging.INFO, logger="gomoku.server"):
        ws = await ws_connect(f"ws://127.0.0.1:{server.port}/", compression=None, **headers)
        ann = TestClient(ws)
        welcome = await ann.hello("ann")
        await ws.close()
        again = await ws_connect(f"ws://127.0.0.1:{server.port}/", compression=None)
        back = TestClient(again)
        await back.send(m.Hello(name="ann", token=welcome.token))
        await back.expect(m.Welcome)
        await again.close()
    said = [
        r.getMessage() for r in caplog.records if r.getMessage().startswith(("hello", "resumed"))
    ]
    assert said == [
        f"hello {welcome.player} (ann) from 203.0.113.9",
        f"resumed {welcome.player} (ann) from 127.0.0.1",
    ]


async def test_forwarded_for_in_two_lines_counts_the_proxys_entry(
    make_server: MakeServer,
) -> None:
    """A client's own X-Forwarded-For line and the one a proxy adds (HAProxy adds a line
    rather than extending the client's) are one list: the last entry, the proxy's,
    names the client, whatever the client wrote."""
    proxied = await make_server(
        limits=limits(max_conns_per_ip=1), trusted_proxies=frozenset({"127.0.0.1"})
    )

    def via(forged: str, client: str) -> dict[str, Any]:
        lines = [("X-Forwarded-For", forged), ("X-Forwarded-For", client)]
        return {"additional_headers": lines}

    a, b = "203.0.113.1", "203.0.113.2"
    first = await ws_connect(f"ws://127.0.0.1:{proxied.port}/", compression=None, **via(b, a))
    assert await refused_status(proxied.port, **via(b, a)) == 429
    assert await refused_status(proxied.port, **via(a, b)) is None
    await first.close()


async def test_forwarded_for_counts_one_address_however_it_is_written(
    make_server: MakeServer,
) -> None:
    """The per-address limit counts the address X-Forwarded-For names, not its text:
    another port, upper case, a leading zero or an IPv4-mapped form is the same client
    (each had a limit of its own), and an entry that names no address counts as the
    proxy itself."""
    proxied = await make_server(
        limits=limits(max_conns_per_ip=1), trusted_proxies=frozenset({"127.0.0.1"})
    )

    def via(client: str) -> dict[str, Any]:
        return {"additional_headers": {"X-Forwarded-For": client}}

    url = f"ws://127.0.0.1:{proxied.port}/"
    held = [await ws_connect(url, compression=None, **via("[2001:db8::6]:1001"))]
    for same in ("[2001:db8::6]:1002", "2001:DB8::6", "2001:0db8::6"):
        assert await refused_status(proxied.port, **via(same)) == 429, same
    held.append(await ws_connect(url, compression=None, **via("192.0.2.7:4444")))
    assert await refused_status(proxied.port, **via("::ffff:192.0.2.7")) == 429
    held.append(await ws_connect(url, compression=None, **via("not an ip")))
    assert await refused_status(proxied.port, **via("unknown")) == 429  # the proxy's: taken
    assert await refused_status(proxied.port) == 429
    for ws in held:
        await ws.close()


async def test_an_ipv6_client_is_counted_by_its_64(make_server: MakeServer) -> None:
    """The per-address limit counts an IPv6 client by its /64, which a home or a server
    is given whole: another address of it is the same client (80 addresses of one /64
    all got in, where one address was refused after 64); the next /64 is another."""
    proxied = await make_server(
        limits=limits(max_conns_per_ip=1), trusted_proxies=frozenset({"127.0.0.1"})
    )

    def via(client: str) -> dict[str, Any]:
        return {"additional_headers": {"X-Forwarded-For": client}}

    url = f"ws://127.0.0.1:{proxied.port}/"
    held = await ws_connect(url, compression=None, **via("2001:db8:1:2::1"))
    assert await refused_status(proxied.port, **via("2001:db8:1:2:ffff::9")) == 429
    assert await refused_status(proxied.port, **via("2001:db8:1:3::1")) is None
    await held.close()


async def test_only_allowed_web_origins_may_connect(make_server: MakeServer) -> None:
    """With allowed origins set, a page from another origin is refused (HTTP 403) while
    pages from an allowed origin and clients that send no origin get in; ``*`` lets
    every origin in. (The default, the page's own origin only: tests/test_web_http.py.)"""
    server = await make_server(allowed_origins=frozenset({"https://play.example.org"}))
    evil: Any = {"origin": "https://evil.example.com"}
    good: Any = {"origin": "https://play.example.org"}
    assert await refused_status(server.port, **evil) == 403
    assert await refused_status(server.port, **good) is None
    assert await refused_status(server.port) is None
    anywhere = await make_server(allowed_origins=frozenset({"*"}))
    assert await refused_status(anywhere.port, **evil) is None


def ping_frame(payload: bytes) -> bytes:
    """A client's ping (RFC 6455, 5.5.2): masked, here with a mask of zeros."""
    return bytes((0x89, 0x80 | len(payload))) + b"\0\0\0\0" + payload


async def open_raw(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A WebSocket connection made by hand (the handshake read), to send frames no
    library would: pings as fast as the socket takes them."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101")
    return reader, writer


async def server_frames(reader: asyncio.StreamReader) -> list[tuple[int, bytes]]:
    """The server's frames (opcode, payload) until it ends the TCP stream."""
    frames: list[tuple[int, bytes]] = []
    async with asyncio.timeout(10):
        while head := await reader.read(2):
            if len(head) == 1:
                head += await reader.readexactly(1)
            length = head[1] & 0x7F
            if length == 126:
                length = int.from_bytes(await reader.readexactly(2), "big")
            frames.append((head[0] & 0x0F, await reader.readexactly(length)))
    return frames


async def test_a_ping_flood_is_cut_off_and_players_play_on(
    server: GomokuServer, connect: Connect
) -> None:
    """Pings sent as fast as a socket takes them (each got its pong, beyond any limit:
    200 MB of unread pongs in 12 s, other players' moves stalled for seconds): past the
    message rate's burst the connection is closed with 1008 "too many pings", and a
    game meanwhile goes on."""
    alice, bob, room = await seated_pair(connect)
    reader, writer = await open_raw(server.port)
    writer.write(ping_frame(b"x" * 125) * 2_000)
    await alice.move(room, "h8")
    for player in (alice, bob):
        assert (await player.event(Moved, room)).point == "h8"
    frames = await server_frames(reader)
    writer.close()
    pongs = [f for f in frames if f[0] == 0xA]
    assert 30 <= len(pongs) <= 45  # the burst of 40 (and what refilled meanwhile)
    opcode, payload = frames[-1]
    assert opcode == 0x8
    assert (int.from_bytes(payload[:2], "big"), payload[2:]) == (1008, b"too many pings")
    await bob.move(room, "a1")
    assert (await alice.event(Moved, room)).point == "a1"


async def test_pings_at_a_keepalive_pace_are_answered(server: GomokuServer) -> None:
    """Ten pings a second (a library's keepalive sends one in 20 s) are all answered and
    the connection stays open."""
    reader, writer = await open_raw(server.port)
    for i in range(30):
        writer.write(ping_frame(str(i).encode()))
        await asyncio.sleep(0.1)
    async with asyncio.timeout(5):
        for i in range(30):
            head = await reader.readexactly(2)
            assert (head[0], await reader.readexactly(head[1])) == (0x8A, str(i).encode())
    writer.close()


async def test_one_player_cannot_take_the_seat_of_every_waiting_room(
    make_server: MakeServer, connect: Connect
) -> None:
    """A player in the most unfinished games one may be in (2 here) is refused a seat in
    one more (too_many_games) and may still watch it; once one of their games is over
    they may sit down again. One connection had joined all 21 rooms of the lobby."""
    server = await make_server(limits=limits(max_games_per_player=2))
    hosts = [await connect(f"host{i}", to=server) for i in range(3)]
    rooms = [(await host.create(seat="black")).room.id for host in hosts]
    squatter = await connect("squatter", to=server)

    async def join(room: str, request: int, role: str = "player") -> m.Snapshot | m.Error:
        await squatter.send(m.Join(room=room, role=role, id=request))  # type: ignore[arg-type]
        answer = await squatter.until(
            lambda x: isinstance(x, (m.Snapshot, m.Error)) and x.re == request
        )
        assert isinstance(answer, (m.Snapshot, m.Error))
        return answer

    assert isinstance(await join(rooms[0], 1), m.Snapshot)
    assert isinstance(await join(rooms[1], 2), m.Snapshot)
    refused = await join(rooms[2], 3)
    assert isinstance(refused, m.Error)
    assert refused.code == "too_many_games"
    assert refused.message.startswith("you are in 2 unfinished games")
    watching = await join(rooms[2], 4, role="spectator")
    assert isinstance(watching, m.Snapshot)
    await hosts[0].send(m.Resign(room=rooms[0]))
    await hosts[0].until_event(GameOver)
    seated = await join(rooms[2], 5)
    assert isinstance(seated, m.Snapshot)
    assert seated.room.players.white is not None
    assert seated.room.players.white.name == "squatter"


async def test_players_of_one_address_share_a_chat_limit(
    make_server: MakeServer, connect: Connect
) -> None:
    """Ten throw-away players of one address put fifty lines into a room in two seconds,
    each within its own limit: with --chat-per-ip 30 the address's lines are capped, and
    a line over it is refused saying so."""
    server = await make_server(limits=limits(chat_per_ip=30))
    host = await connect("host", to=server)
    room = (await host.create(seat="black")).room.id
    trolls = [await connect(f"t{i}", to=server) for i in range(7)]
    for troll in trolls:
        await troll.join(room, role="spectator")
    for troll in trolls:
        for n in range(5):
            await troll.send(m.Chat(room=room, text=f"spam {n}", id=100 + n))
    said = 0
    with contextlib.suppress(TimeoutError):
        while True:  # every line let through reaches the room's player
            message = await asyncio.wait_for(host.recv(), 1.0)
            said += isinstance(message, m.Event) and isinstance(message.event, ChatPosted)
    assert said == 30
    last = await trolls[-1].until(lambda x: isinstance(x, m.Error))
    assert isinstance(last, m.Error)
    assert last.code == "chat_rate_limited"
    assert "too many chat lines from your address: 30 in 10 s at most" in last.message
