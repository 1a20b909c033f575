"""Unreachable or wrong servers, each against a real socket: the connection names
what went wrong (refused, name not found, timed out, TLS, not a Gomoku server,
protocol version mismatch), keeps trying with the next try's time, and stops when
the player says so."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import http.server
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from client_fixtures import FAST, until
from server_fixtures import Connect
from textual import events
from textual.keys import _character_to_key
from textual.widgets import Input
from websockets.asyncio.client import connect as ws_connect
from websockets.asyncio.server import ServerConnection, serve

from client.address import ServerAddress
from client.app import GomokuApp
from client.config import Identity, save_identity
from client.connection import Connection
from client.options import PlayOptions
from client.present import link_banner
from client.screens.connect import ConnectScreen
from client.screens.lobby import LobbyScreen
from client.screenshot import screen_text
from client.state.model import Action
from client.state.session import ConnectionChanged, Link
from protocol import messages as m
from protocol.backoff import Backoff
from protocol.codec import decode_client, encode
from server.app import GomokuServer
from server.config import ConnectionLimits

NEVER = Backoff(initial=60, maximum=60, jitter=0)  # one attempt is enough to judge


async def first_failure(
    address: ServerAddress, *, open_timeout: float = 5.0, hello_timeout: float = 10.0
) -> ConnectionChanged:
    """Connect once to ``address``; the reconnecting report that follows."""
    seen: asyncio.Queue[ConnectionChanged] = asyncio.Queue()

    def dispatch(action: Action) -> None:
        if isinstance(action, ConnectionChanged) and action.status == "reconnecting":
            seen.put_nowait(action)

    link = Connection(
        address,
        "ann",
        dispatch=dispatch,
        backoff=NEVER,
        open_timeout=open_timeout,
        hello_timeout=hello_timeout,
    )
    task = asyncio.create_task(link.run())
    try:
        return await asyncio.wait_for(seen.get(), 30)
    finally:
        await link.close()
        await asyncio.wait_for(task, 5)


def closed_port() -> int:
    """A port nothing listens on (bound for a moment, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_a_closed_port_is_refused() -> None:
    changed = await first_failure(ServerAddress("127.0.0.1", closed_port()))
    assert changed.problem == "refused"
    assert changed.detail.startswith("connection refused (nothing listens on port ")
    assert changed.attempt == 1
    assert changed.next_try_at is not None


async def test_a_port_typed_after_a_bare_ipv6_address_is_asked_about() -> None:
    """``::1:9623`` is the IPv6 address ::1:9623 on port 8765; when nothing answers
    there, the failure asks whether port 9623 of [::1] was meant (it said only "network
    error (Connect call failed ...)")."""
    port = next(p for p in range(9100, 9999) if _free_on_ipv6_loopback(p))  # 4 digits
    typed = ServerAddress.parse(f"::1:{port}")
    assert (typed.host, typed.port) == (f"::1:{port}", 8765)
    changed = await first_failure(typed)
    assert changed.detail.endswith(f"; did you mean [::1]:{port}?)"), changed.detail


def _free_on_ipv6_loopback(port: int) -> bool:
    with socket.socket(socket.AF_INET6) as sock:
        try:
            sock.bind(("::1", port))
        except OSError:
            return False
    return True


async def test_an_unknown_name_is_not_found() -> None:
    changed = await first_failure(ServerAddress("nosuchhost.invalid", 8765))
    assert changed.problem == "not_found"
    assert changed.detail == "name not found (no host is called nosuchhost.invalid)"


@contextlib.asynccontextmanager
async def silent_tcp_server() -> AsyncIterator[int]:
    """A TCP server that accepts and never says a word."""
    held: list[asyncio.StreamWriter] = []

    async def accept(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        for writer in held:
            writer.close()
        server.close()
        await server.wait_closed()


async def test_a_server_that_never_answers_times_out() -> None:
    async with silent_tcp_server() as port:
        changed = await first_failure(ServerAddress("127.0.0.1", port), open_timeout=0.5)
    assert changed.problem == "timeout"
    assert changed.detail == "timed out (no answer)"


@contextlib.contextmanager
def plain_http_server(directory: Path) -> Iterator[int]:
    """Python's own HTTP file server, which knows nothing of WebSocket."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(directory), **kwargs)  # type: ignore[arg-type]

        def log_message(self, format: str, *args: object) -> None:
            pass

    with serving(Quiet) as port:
        yield port


@contextlib.contextmanager
def serving(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[int]:
    """An HTTP server on a free port of 127.0.0.1, in a thread, answering with ``handler``."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


async def test_a_plain_http_server_is_not_a_gomoku_server(tmp_path: Path) -> None:
    with plain_http_server(tmp_path) as port:
        changed = await first_failure(ServerAddress.parse(f"http://127.0.0.1:{port}/"))
    assert changed.problem == "not_gomoku"
    assert changed.detail == "not a Gomoku server (it answered HTTP/1.0 200, not a WebSocket)"


@contextlib.asynccontextmanager
async def websocket_server(handler: object) -> AsyncIterator[int]:
    async with serve(handler, "127.0.0.1", 0, compression=None) as server:  # type: ignore[arg-type]
        yield next(iter(server.sockets)).getsockname()[1]


async def test_a_websocket_server_of_another_protocol_is_not_a_gomoku_server() -> None:
    """An echo server answers hello with hello: not our protocol."""

    async def echo(ws: ServerConnection) -> None:
        async for frame in ws:
            await ws.send(frame)

    async with websocket_server(echo) as port:
        changed = await first_failure(ServerAddress("127.0.0.1", port))
    assert changed.problem == "not_gomoku"
    assert "its replies are not the Gomoku protocol" in changed.detail


async def test_a_websocket_server_that_never_welcomes_is_not_a_gomoku_server() -> None:
    async def mute(ws: ServerConnection) -> None:
        await ws.wait_closed()

    async with websocket_server(mute) as port:
        changed = await first_failure(ServerAddress("127.0.0.1", port), hello_timeout=0.5)
    assert changed.problem == "not_gomoku"
    assert "no answer to hello" in changed.detail


async def test_a_newer_protocol_version_is_a_version_mismatch() -> None:
    """A server that speaks only version 2 refuses hello with unsupported_version."""

    async def newer(ws: ServerConnection) -> None:
        hello = decode_client(await ws.recv())
        assert isinstance(hello, m.Hello)
        refusal = m.Error(
            code="unsupported_version", message="this server speaks version 2", re=hello.id
        )
        await ws.send(encode(refusal))
        await ws.wait_closed()

    async with websocket_server(newer) as port:
        changed = await first_failure(ServerAddress("127.0.0.1", port))
    assert changed.problem == "version"
    assert changed.detail == (
        "protocol version mismatch (this client speaks 1; this server speaks version 2)"
    )


async def test_wss_to_a_plain_server_is_a_tls_failure(server: GomokuServer) -> None:
    changed = await first_failure(ServerAddress("127.0.0.1", server.port, "wss"))
    assert changed.problem == "tls"
    assert changed.detail == (
        "TLS failure (the server broke off the handshake; is it a plain ws:// one?)"
    )


def test_the_banner_names_the_problem_the_next_try_and_the_key() -> None:
    """What the screens say while the link is down."""
    link = Link(
        "reconnecting",
        attempt=3,
        next_try_at=104.2,
        detail="connection refused (nothing listens on port 9)",
        problem="refused",
    )
    assert link_banner(link, "host:9", 100.0) == (
        "Cannot connect to host:9: connection refused (nothing listens on port 9). "
        "Next try in 5s (attempt 3) · Esc: stop trying"
    )
    lost = Link("reconnecting", 1, 100.0, "", "lost", was_online=True)
    assert link_banner(lost, "host:9", 100.0).startswith("Connection lost. Trying now")
    closed = dataclasses.replace(lost, detail="closed by the server")
    assert link_banner(closed, "host:9", 100.0).startswith(
        "Connection lost: closed by the server. Trying now"
    )


async def test_esc_stops_trying_and_the_connect_screen_says_why(tmp_path: Path) -> None:
    """Started against a closed port, the lobby shows why and when the next try is;
    Esc stops trying and the connect screen offers the address again."""
    port = closed_port()
    options = PlayOptions(server=ServerAddress("127.0.0.1", port), name="ann", config_dir=tmp_path)
    app = GomokuApp(options, backoff=Backoff(initial=5, maximum=5, jitter=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        wanted = f"Cannot connect to 127.0.0.1:{port}: connection refused"
        await until(pilot, lambda: wanted in screen_text(app).replace("\n", " "))
        assert "Esc: stop trying" in screen_text(app)
        assert "Esc Stop trying" in screen_text(app)  # the footer has it too
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
        text = screen_text(app)
        assert "Stopped trying: connection refused" in text
        assert f"127.0.0.1:{port}" in text
        assert app.connection is None


async def test_after_esc_the_address_is_there_to_fix(server: GomokuServer, tmp_path: Path) -> None:
    """Started with --name against a closed port, Esc puts the cursor in the Server
    field: the right address typed over it and Enter reach the lobby."""
    options = PlayOptions(
        server=ServerAddress("127.0.0.1", closed_port()), name="dave", config_dir=tmp_path
    )
    app = GomokuApp(options, backoff=Backoff(initial=5, maximum=5, jitter=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "connection refused" in screen_text(app))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
        await pilot.pause()
        assert app.focused is app.screen.query_one("#address")
        await pilot.press(*f"127.0.0.1:{server.port}", "enter")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await until(pilot, lambda: f"dave @ 127.0.0.1:{server.port} · online" in screen_text(app))


async def test_a_name_at_its_limit_says_so(tmp_path: Path) -> None:
    """Typing past the name's 24 characters, keys stopped with no word: the form says
    a name holds 24 at most, and stops saying it once the name is shorter."""
    options = PlayOptions(server=ServerAddress("127.0.0.1", closed_port()), config_dir=tmp_path)
    app = GomokuApp(options, backoff=Backoff(initial=5, maximum=5, jitter=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
        await pilot.press(*"a" * 23)
        assert "characters at most" not in screen_text(app)
        await pilot.press("b", "c")
        await until(pilot, lambda: "A name holds 24 characters at most" in screen_text(app))
        assert app.screen.query_one("#name", Input).value == "a" * 23 + "b"
        await pilot.press("backspace")
        await until(pilot, lambda: "characters at most" not in screen_text(app))


async def test_an_emoji_family_typed_as_a_name_keeps_its_joiners(
    server: GomokuServer, tmp_path: Path
) -> None:
    """The name field types the zero-width joiners of an emoji family, as the chat line
    does: the player is the family, not a man, a woman and a girl (Input dropped the
    joiners, and the server kept what the other clients refuse as two names)."""
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    options = PlayOptions(server=ServerAddress("127.0.0.1", server.port), config_dir=tmp_path)
    app = GomokuApp(options, backoff=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
        field = app.screen.query_one("#name", Input)
        await until(pilot, lambda: app.focused is field)
        for character in family + " fan":
            key = character if character.isalnum() else _character_to_key(character)
            field.post_message(events.Key(key, character))
        await pilot.pause(0.1)
        assert field.value == f"{family} fan"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        assert app.model.session.name == f"{family} fan"


async def test_a_remembered_name_the_rules_no_longer_take_is_asked_again_and_kept_player(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """A name remembered from before brackets were refused (``Ann (FR)``): the client
    asks for another and says why (it ended in a traceback, its hello refused by its
    own checks), and the new name is the same player, renamed, not a new one."""
    ann = await connect("Ann FR0")  # the player she was, with the token kept for her
    assert ann.player is not None
    assert ann.token is not None
    await ann.ws.close()
    key = ServerAddress("127.0.0.1", server.port).key
    save_identity(Identity(name="Ann (FR)", tokens={key: ann.token}), tmp_path)
    options = PlayOptions(server=ServerAddress("127.0.0.1", server.port), config_dir=tmp_path)
    app = GomokuApp(options, backoff=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ConnectScreen), "the form")
        await until(pilot, lambda: "no longer taken as a name" in screen_text(app), "why")
        field = app.screen.query_one("#name", Input)
        field.value = "Ann FR"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await until(pilot, lambda: app.model.session.me is not None, "welcomed")
        assert app.model.session.me == ann.player
        assert app.model.session.name == "Ann FR"


@pytest.mark.parametrize("address", ["ws://127.0.0.1:{port}", "http://127.0.0.1:{port}/"])
async def test_the_address_the_server_prints_connects(
    server: GomokuServer, tmp_path: Path, address: str
) -> None:
    """ws://host:port (as gomoku-server prints it) and http://host:port/ both reach
    the server."""
    options = PlayOptions(
        server=ServerAddress.parse(address.format(port=server.port)),
        name="ann",
        config_dir=tmp_path,
    )
    app = GomokuApp(options, backoff=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.model.session.link.online)
        assert f"ann @ 127.0.0.1:{server.port}" in screen_text(app)


@contextlib.contextmanager
def answering(status: int, body: bytes = b"", location: str | None = None) -> Iterator[int]:
    """An HTTP server (a proxy, say) that answers every request with ``status``."""

    class Answer(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # as a proxy answers

        def do_GET(self) -> None:
            self.send_response(status)
            if location is not None:
                self.send_header("Location", location)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    with serving(Answer) as port:
        yield port


async def test_a_server_that_turns_us_away_says_why(make_server: Any) -> None:
    """A server at its per-address limit answers HTTP 429 with the reason: the player
    reads that reason, not "not a Gomoku server"."""
    server = await make_server(limits=ConnectionLimits(max_conns_per_ip=1))
    async with ws_connect(f"ws://127.0.0.1:{server.port}/"):
        changed = await first_failure(ServerAddress("127.0.0.1", server.port))
    assert changed.problem == "turned_away"
    assert changed.detail == "turned away (too many connections from your address, HTTP 429)"


async def test_a_page_of_the_server_pasted_as_its_address_says_which_to_use(
    make_server: Any,
) -> None:
    """The health page's address pasted (``http://host:port/healthz``): the failure says
    to try the server's own address, without the path (it said only "not a Gomoku
    server")."""
    server = await make_server()
    changed = await first_failure(ServerAddress.parse(f"http://127.0.0.1:{server.port}/healthz"))
    assert changed.problem == "not_gomoku"
    assert changed.detail.endswith(f"; try 127.0.0.1:{server.port}, without /healthz)")


async def test_a_proxy_without_its_server_and_a_redirect_are_named_as_such() -> None:
    """A proxy's 502 while the server restarts is no wrong address; an address that
    redirects (a path without its final /) says where to; a 400 to ws:// asks whether
    the port is a TLS one."""
    with answering(502, b"<html>Bad Gateway</html>") as port:
        changed = await first_failure(ServerAddress("127.0.0.1", port))
    assert changed.problem == "no_server"
    assert changed.detail == "no server behind the proxy (HTTP 502; it may be restarting)"
    with answering(301, location="https://play.example.org/arena/") as port:
        changed = await first_failure(ServerAddress("127.0.0.1", port, path="/arena"))
    assert changed.problem == "moved"
    assert changed.detail == (
        "moved (it sends you to wss://play.example.org/arena/: connect to that address)"
    )
    with answering(400, b"<html>The plain HTTP request was sent to HTTPS port</html>") as port:
        changed = await first_failure(ServerAddress("127.0.0.1", port))
    assert changed.problem == "not_gomoku"
    assert changed.detail.endswith("(it answered HTTP 400, not a WebSocket; is it a wss:// one?)")
