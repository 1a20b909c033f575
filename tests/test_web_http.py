"""The browser client's side of the server, over real sockets: the page and its files
over plain HTTP on the WebSocket port (types, caching, gzip, CSP, HEAD, 404, no path
traversal), the ``Origin`` check at the WebSocket handshake, and JSON connections
(``gomoku.json``) under the same limits as MessagePack ones."""

from __future__ import annotations

import argparse
import asyncio
import gzip
import logging
import re
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

import msgspec
import pytest
from abuse_fixtures import refused_status
from server_fixtures import TestClient
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from client.state.words import FOUL_WORDS, HINT_REASONS, HOW_TO_PLAY, OPENING_WORDS, RULE_WORDS
from engine.ai import LEVEL_NAMES
from engine.ai.levels import LEVELS
from engine.types import Foul, Opening, Rule
from protocol import messages as m
from protocol.codec import JSON
from protocol.errors import CloseCode
from server.app import GomokuServer
from server.bots.hints import REASONS as HINT_REASON_CODES
from server.config import ConnectionLimits
from server.handshake import OriginPolicy
from server.http_files import CONTENT_TYPES
from server.options import web_origin
from server.serve import page_address

MakeServer = Callable[..., Awaitable[GomokuServer]]
STATIC = resources.files("web") / "static"


async def fetch(
    port: int, path: str, *, method: str = "GET", headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One raw HTTP/1.1 request with the path exactly as given (nothing normalised)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    headers = {"Host": f"127.0.0.1:{port}", **(headers or {})}
    lines = [f"{method} {path} HTTP/1.1", *(f"{k}: {v}" for k, v in headers.items())]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    reply = await reader.read()
    writer.close()
    await writer.wait_closed()
    head, _, body = reply.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode().split("\r\n")
    fields = {}
    for line in header_lines:
        key, _, value = line.partition(":")
        fields[key.strip().lower()] = value.strip()
    return int(status_line.split()[1]), fields, body


def shipped() -> dict[str, bytes]:
    """URL path -> bytes of every file the web package ships."""
    found: dict[str, bytes] = {}

    def walk(folder: Any, prefix: str) -> None:
        for entry in folder.iterdir():
            if entry.is_dir():
                walk(entry, f"{prefix}/{entry.name}")
            else:
                found[f"{prefix}/{entry.name}"] = entry.read_bytes()

    walk(STATIC, "")
    return found


# --- the files -------------------------------------------------------------------------


async def test_the_page_and_every_shipped_file_is_served_with_its_type(
    server: GomokuServer,
) -> None:
    """``/`` is the page; every file of web/static is served, byte for byte, with the
    content type of its kind and ``nosniff``; the page loads only files that exist."""
    files = shipped()
    assert {"/index.html", "/style.css", "/js/main.js"} <= set(files)
    status, headers, body = await fetch(server.port, "/")
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert body == files["/index.html"]
    for path, data in files.items():
        status, headers, body = await fetch(server.port, path)
        suffix = "." + path.rsplit(".", 1)[-1]
        assert (status, headers["content-type"]) == (200, CONTENT_TYPES[suffix]), path
        assert headers["x-content-type-options"] == "nosniff"
        assert body == data
    assert (await fetch(server.port, "/js/board.js"))[1]["content-type"].startswith(
        "text/javascript"
    )
    refs = re.findall(r'(?:src|href)="([^"#]*)"', files["/index.html"].decode())
    assert len(refs) == 3
    for ref in refs:  # relative: the page works under a proxy's path (/arena/) too
        assert not ref.startswith("/"), f"index.html refers to {ref} from the root"
        assert "/" + ref in files, f"index.html refers to {ref}, which is not shipped"
    for path, data in files.items():
        if path.endswith(".js"):
            for ref in re.findall(r'from "\./([^"]+)"', data.decode()):
                assert f"/js/{ref}" in files, f"{path} imports {ref}, which is not shipped"


def test_the_pages_ai_levels_are_the_engines() -> None:
    """The levels the page offers (lobby and room) are the engine's, weakest first, each
    with the engine's words for how it plays."""
    source = shipped()["/js/levels.js"].decode()
    found = re.search(r"export const LEVELS = (\[[^\]]*\]);", source)
    assert found is not None, source
    assert tuple(msgspec.json.decode(found.group(1))) == LEVEL_NAMES
    table = re.search(r"const LEVEL_WORDS = \{([^}]*)\};", source)
    assert table is not None, source
    words = dict(re.findall(r'(\w+): "([^"]*)"', table.group(1)))
    assert words == {name: level.words for name, level in LEVELS.items()}


def test_the_pages_rules_for_newcomers_are_the_terminals() -> None:
    """The page's "How to play" says what the terminal's help says, paragraph for
    paragraph (nothing taught the rules to one who had never played)."""
    source = shipped()["/js/rules.js"].decode()
    found = re.search(r"export const HOW_TO_PLAY = (\[[^\]]*\]);", source)
    assert found is not None, source
    listed = re.sub(r",\s*\]$", "]", found.group(1))  # (JSON has no trailing comma)
    assert tuple(msgspec.json.decode(listed)) == HOW_TO_PLAY


def test_the_pages_rule_opening_and_foul_words_are_the_terminals() -> None:
    """The page's words for each rule, opening, renju foul and hint's reason are the
    terminal client's, for every value the protocol has (the page said a hint's
    reason as its code: "positional")."""
    source = shipped()["/js/rules.js"].decode()
    for name, words, values in (
        ("RULE_WORDS", RULE_WORDS, set(Rule)),
        ("OPENING_WORDS", OPENING_WORDS, set(Opening)),
        ("FOUL_WORDS", FOUL_WORDS, set(Foul)),
        ("HINT_REASONS", HINT_REASONS, HINT_REASON_CODES),
    ):
        table = re.search(rf"const {name} = \{{([^}}]*)\}};", source)
        assert table is not None, name
        found = dict(re.findall(r'"?([\w-]+)"?: "([^"]*)"', table.group(1)))
        assert found == {str(key): text for key, text in words.items()}
        assert set(words) == values


async def test_files_carry_an_etag_and_a_304_answers_a_fresh_copy(server: GomokuServer) -> None:
    """Each file has a strong ETag and ``no-cache`` (kept, but checked every time); asking
    with its ETag (also weakly, or in a list) gets 304 with no body; another gets 200."""
    status, headers, _ = await fetch(server.port, "/js/main.js")
    etag = headers["etag"]
    assert status == 200
    assert re.fullmatch(r'"[0-9a-f]{20}"', etag)
    assert headers["cache-control"] == "no-cache"
    for asked in (etag, f"W/{etag}", f'"other", {etag}', "*"):
        status, again, body = await fetch(
            server.port, "/js/main.js", headers={"If-None-Match": asked}
        )
        assert (status, body, again["etag"]) == (304, b"", etag)
    assert (await fetch(server.port, "/js/main.js", headers={"If-None-Match": '"x"'}))[0] == 200
    assert (await fetch(server.port, "/style.css"))[1]["etag"] != etag


async def test_gzip_when_the_client_accepts_it(server: GomokuServer) -> None:
    """Text files are gzip-compressed for a client that accepts gzip (and only then);
    the compressed body unpacks to the file, and ``Vary`` tells caches why."""
    plain = shipped()["/js/game.js"]
    status, headers, body = await fetch(
        server.port, "/js/game.js", headers={"Accept-Encoding": "br, gzip;q=0.8"}
    )
    assert (status, headers["content-encoding"]) == (200, "gzip")
    assert gzip.decompress(body) == plain
    assert len(body) < len(plain)
    assert int(headers["content-length"]) == len(body)
    assert headers["vary"] == "Accept-Encoding"
    for refusing in ({}, {"Accept-Encoding": "gzip;q=0"}, {"Accept-Encoding": "br"}):
        _, headers, body = await fetch(server.port, "/js/game.js", headers=refusing)
        assert "content-encoding" not in headers
        assert body == plain


async def test_the_page_has_a_policy_that_allows_only_its_own_server(
    server: GomokuServer,
) -> None:
    """The Content-Security-Policy allows scripts, styles and connections only from this
    server (its own ws:// and wss:// included, but for an IPv6 literal, which CSP cannot
    write), nothing inline, no frames; the page holds no inline script or style the
    policy would have to allow."""
    _, headers, body = await fetch(server.port, "/")
    policy = dict(
        ([*part.split(" ", 1), ""])[:2] for part in headers["content-security-policy"].split("; ")
    )
    host = f"127.0.0.1:{server.port}"
    assert policy["default-src"] == "'none'"
    assert policy["script-src"] == "'self'"
    assert policy["style-src"] == "'self'"
    assert policy["connect-src"] == f"'self' ws://{host} wss://{host}"
    assert policy["frame-ancestors"] == "'none'"
    assert "unsafe" not in headers["content-security-policy"]
    page = body.decode()
    assert not re.search(r"<script(?![^>]*\bsrc=)", page)
    assert "<style" not in page
    assert " style=" not in page
    assert not re.search(r"\son[a-z]+=", page)
    assert "http://" not in page
    assert "https://" not in page
    # A Host that is not a host and port is not echoed into the policy.
    _, forged, _ = await fetch(server.port, "/", headers={"Host": "x.org/ *; script-src *"})
    assert "connect-src 'self';" in forged["content-security-policy"]
    # An IPv6 literal is no source in CSP's grammar: 'self' covers it.
    _, six, _ = await fetch(server.port, "/", headers={"Host": f"[::1]:{server.port}"})
    assert "connect-src 'self';" in six["content-security-policy"]


async def test_head_answers_with_the_headers_of_a_get(server: GomokuServer) -> None:
    """HEAD gets the status and headers a GET would (the length of its body) and no body,
    for the page and for the health check."""
    _, get_headers, body = await fetch(server.port, "/")
    status, headers, empty = await fetch(server.port, "/", method="HEAD")
    assert (status, empty) == (200, b"")
    assert headers["content-length"] == str(len(body))
    assert headers["etag"] == get_headers["etag"]
    status, headers, empty = await fetch(server.port, "/healthz", method="HEAD")
    assert (status, headers["content-length"], empty) == (200, "3", b"")


async def test_unknown_paths_are_404_and_other_methods_405(server: GomokuServer) -> None:
    """Paths the package does not ship are 404; methods other than GET and HEAD are 405
    with ``Allow``."""
    for path in ("/nope", "/index.htm", "/js/", "/js", "/web/__init__.py", "/INDEX.HTML"):
        assert (await fetch(server.port, path))[0] == 404, path
    status, headers, _ = await fetch(server.port, "/", method="POST")
    assert (status, headers["allow"]) == (405, "GET, HEAD")


@pytest.mark.parametrize(
    "path",
    [
        "/../server/app.py",
        "/js/../../server/app.py",
        "/%2e%2e/server/app.py",
        "/%2E%2E%2Fserver%2Fapp.py",
        "/js/%2e%2e/%2e%2e/pyproject.toml",
        "/..%2f..%2fpyproject.toml",
        "/%252e%252e/%252e%252e/pyproject.toml",
        "/..\\..\\pyproject.toml",
        "/js/..%5c..%5cpyproject.toml",
        "//etc/passwd",
        "/%2fetc%2fpasswd",
        "/./index.html",
        "/js/./main.js",
        "/static/index.html",
        "/index.html%00.js",
        "/js/main.js/",
        "/.%2e/.%2e/server/app.py",
    ],
)
async def test_no_path_reaches_a_file_outside_the_shipped_ones(
    server: GomokuServer, path: str
) -> None:
    """Traversal attempts, encoded every way, and other spellings of real files are 404:
    only the exact paths of shipped files are served."""
    status, _, body = await fetch(server.port, path)
    assert status == 404
    assert body == b"not found\n"


# --- the handshake ------------------------------------------------------------------------


async def test_the_servers_own_page_may_connect_and_other_origins_may_not(
    make_server: MakeServer,
) -> None:
    """By default a WebSocket from the server's own page (an ``Origin`` naming the host
    and port it asked, http or https) is accepted, as is a client that sends no Origin;
    a page from another origin, another port of the same host or a sandboxed ``null``
    origin is refused with 403. Listing an origin lets it in too."""
    server = await make_server()
    own = f"http://127.0.0.1:{server.port}"
    assert await refused_status(server.port, origin=own) is None
    assert await refused_status(server.port, origin=own.replace("http", "https")) is None
    assert await refused_status(server.port, origin=own.upper().replace("HTTP", "http")) is None
    assert await refused_status(server.port) is None
    for other in (
        "https://evil.example.com",
        f"http://127.0.0.1:{server.port + 1}",
        f"http://localhost:{server.port}",
        "null",
        f"file://127.0.0.1:{server.port}",
    ):
        assert await refused_status(server.port, origin=other) == 403, other
    assert "gomoku_refused_origin_total 5" in server.metrics.render()
    listed = await make_server(allowed_origins=frozenset({"https://play.example.org/"}))
    assert await refused_status(listed.port, origin="https://play.example.org") is None
    assert await refused_status(listed.port, origin=f"http://127.0.0.1:{listed.port}") is None
    assert await refused_status(listed.port, origin="https://evil.example.com") == 403


def test_allow_origin_takes_a_star_for_any_origin() -> None:
    """``--allow-origin '*'`` (or GOMOKU_ALLOW_ORIGINS=*) is a valid option value; a
    wildcard inside a host, which would match nothing, is refused with the reason."""
    assert web_origin("*") == "*"
    assert OriginPolicy(["*"]).any
    with pytest.raises(argparse.ArgumentTypeError, match="no wildcards"):
        web_origin("https://*.example.org")


async def raw_handshake(port: int, origin: str, *hosts: str) -> int:
    """The status of a WebSocket handshake sent with these ``Origin`` and ``Host``
    headers (a client library writes its own Host: a proxy's differs)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    lines = ["GET / HTTP/1.1", *(f"Host: {host}" for host in hosts), f"Origin: {origin}"]
    lines += ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13"]
    lines += ["Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    status = int((await reader.readline()).split()[1])
    writer.close()
    await writer.wait_closed()
    return status


async def test_two_host_or_origin_headers_are_refused_not_an_error(
    make_server: MakeServer,
) -> None:
    """A handshake with two Host headers was an internal error (HTTP 500): it is no
    page of this server's."""
    server = await make_server()
    own = f"127.0.0.1:{server.port}"
    assert await raw_handshake(server.port, f"http://{own}", own) == 101
    assert await raw_handshake(server.port, f"http://{own}", own, own) == 403
    assert "gomoku_errors_internal_total 0" in server.metrics.render()


async def test_a_refused_page_is_logged_once_with_what_to_do(
    make_server: MakeServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A proxy that passes the Host without its port (nginx's $host) makes the server's
    own page look like another site's: the refusal is logged, once per origin and
    Host, saying what to change (players only saw the page stay offline)."""
    server = await make_server()
    origin = "https://play.example.org:8443"
    with caplog.at_level(logging.WARNING, logger="gomoku.server"):
        for _ in range(3):
            assert await raw_handshake(server.port, origin, "play.example.org") == 403
    told = [r.getMessage() for r in caplog.records if "refused a page" in r.getMessage()]
    assert told == [
        f"refused a page from {origin!r} (the request's Host is 'play.example.org'): if it "
        "is this server's own page behind a proxy, have the proxy pass the Host with its "
        "port (nginx: $http_host); another site's page may connect with --allow-origin"
    ]


def test_the_banner_names_the_page_beside_the_websocket() -> None:
    """The page of a ws:// address is its http:// twin."""
    assert page_address("ws://192.168.1.20:8765") == "http://192.168.1.20:8765/"


# --- JSON connections ------------------------------------------------------------------


async def json_client(port: int, **kwargs: Any) -> Any:
    return await ws_connect(
        f"ws://127.0.0.1:{port}/",
        compression=None,
        subprotocols=[Subprotocol("gomoku.json")],
        **kwargs,
    )


async def recv_json(ws: Any) -> dict[str, Any]:
    data = await asyncio.wait_for(ws.recv(), 5)
    assert isinstance(data, str), "a gomoku.json connection gets text frames only"
    JSON.decode_server(data)
    decoded: dict[str, Any] = msgspec.json.decode(data)
    return decoded


async def test_json_connections_get_the_same_errors_and_limits(make_server: MakeServer) -> None:
    """On a gomoku.json connection: a binary frame is bad_frame, broken JSON bad_message,
    a flood is rate_limited (with the dropped message's id), and the connection goes on;
    a frame over 4096 bytes is too_large and closes it with 1009."""
    server = await make_server(limits=ConnectionLimits(rate_per_s=5, rate_burst=5))
    ws = await json_client(server.port)
    assert ws.subprotocol == "gomoku.json"
    await ws.send(b'{"type": "hello", "name": "ann"}')
    reply = await recv_json(ws)
    assert (reply["type"], reply["code"]) == ("error", "bad_frame")
    await ws.send('{"type": "hello", "name": ')
    assert (await recv_json(ws))["code"] == "bad_message"
    await ws.send('{"type": "hello", "id": 7, "name": "ann"}')
    welcome = await recv_json(ws)
    assert (welcome["type"], welcome["re"], welcome["name"]) == ("welcome", 7, "ann")
    await asyncio.sleep(1.2)  # the bucket refills
    for i in range(8):
        await ws.send(msgspec.json.encode({"type": "unqueue", "id": 100 + i}).decode())
    replies = [await recv_json(ws) for _ in range(8)]
    assert {r["code"] for r in replies} == {"not_queued", "rate_limited"}
    limited = [r["re"] for r in replies if r["code"] == "rate_limited"]
    assert limited
    assert all(100 <= re < 108 for re in limited)
    await ws.send('{"type": "chat", "room": "r", "text": "' + "x" * 5000 + '"}')
    assert (await recv_json(ws))["code"] == "too_large"
    with pytest.raises(ConnectionClosed) as closed:
        await asyncio.wait_for(ws.recv(), 5)
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1009


async def test_a_text_frame_that_is_not_utf8_closes_1007_and_the_player_resumes(
    server: GomokuServer,
) -> None:
    """A text frame with invalid UTF-8 is closed with 1007 (as protocol.md's close codes
    say; the WebSocket rules require it); hello with the token afterwards is welcomed
    back as the same player."""
    ws = await json_client(server.port)
    await ws.send('{"type": "hello", "name": "ann"}')
    welcome = await recv_json(ws)
    await ws.send(b'{"type": "chat", "room": "r", "text": "\xff\xfe"}', text=True)
    with pytest.raises(ConnectionClosed) as closed:
        await asyncio.wait_for(ws.recv(), 5)
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == CloseCode.INVALID_DATA
    again = await json_client(server.port)
    await again.send(
        msgspec.json.encode({"type": "hello", "name": "ann", "token": welcome["token"]}).decode()
    )
    back = await recv_json(again)
    assert (back["type"], back["player"], back["resumed"]) == ("welcome", welcome["player"], True)
    await again.close()


async def test_json_and_messagepack_players_share_a_room(
    server: GomokuServer, connect: Callable[..., Awaitable[TestClient]]
) -> None:
    """A JSON player and a MessagePack player play one game; each gets every event in its
    own encoding, lobby updates included."""
    ws = await json_client(server.port)
    await ws.send('{"type": "hello", "id": 1, "name": "gil"}')
    await recv_json(ws)
    await ws.send('{"type": "lobby_watch", "id": 2}')
    assert (await recv_json(ws))["rooms"] == []
    hal = await connect("hal")
    snap = await hal.create(seat="black")
    room = snap.room.id
    assert (await recv_json(ws))["type"] == "lobby_room"
    await ws.send(f'{{"type": "join", "id": 3, "room": "{room}"}}')
    assert (await recv_json(ws))["type"] == "snapshot"
    assert (await recv_json(ws))["type"] == "lobby_room"  # the room is now playing
    await hal.expect(m.Event)
    await hal.expect(m.Event)
    await hal.move(room, "h8")
    moved = await recv_json(ws)
    assert moved["event"] == {
        "type": "moved",
        "point": "h8",
        "color": "black",
        "move_no": 1,
        "clocks": None,
    }
    await ws.send(f'{{"type": "move", "room": "{room}", "point": "a1"}}')
    await hal.expect(m.Event)
    assert (await recv_json(ws))["event"]["point"] == "a1"
    await ws.close()
