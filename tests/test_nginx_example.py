"""SECURITY.md's nginx example, run: Debian's nginx (scripts/test installs it when
missing) with the very lines the document shows, in front of two ``gomoku-server``
processes on one real Redis. The test changes only what a reader changes: the ports,
and plain HTTP instead of a certificate (the checks below do not depend on TLS). Taken
as written, the example had locked browsers out on any port but 443 and given players
502s while a server restarted."""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from balancer_fixtures import free_port
from live_server import LiveServer, start, stop
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus

from protocol import messages as m
from protocol.codec import decode_server, encode

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT_S = 20.0


def nginx_binary() -> str:
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
    assert found is not None, "nginx is not installed (scripts/test installs it)"
    return found


def documented_blocks() -> list[str]:
    """The nginx code blocks of SECURITY.md's example, in order."""
    text = (ROOT / "SECURITY.md").read_text()
    section = text[text.index("### Example: nginx in front of two servers") :]
    return re.findall(r"```nginx\n(.*?)```", section, re.S)


def site_config(listen: int, upstreams: tuple[int, int]) -> str:
    """The example with a reader's changes: the servers' ports, a port to listen on
    without TLS, and the path block (its "..." filled with the root location's lines)."""
    site, under_path = documented_blocks()
    site = site.replace("127.0.0.1:8765", f"127.0.0.1:{upstreams[0]}")
    site = site.replace("127.0.0.1:8766", f"127.0.0.1:{upstreams[1]}")
    site = site.replace("listen 443 ssl;", f"listen 127.0.0.1:{listen};")
    site = "\n".join(line for line in site.splitlines() if "ssl_certificate" not in line)
    root = re.search(r"    location / \{\n(.*?)\n    \}", site, re.S)
    assert root is not None
    proxy_lines = "\n".join(
        line
        for line in root.group(1).splitlines()
        if line.strip().startswith("proxy_") and "proxy_pass" not in line
    )
    under_path = re.sub(r"\s*# \.\.\. the same proxy_ lines.*", "\n" + proxy_lines, under_path)
    assert site.rstrip().endswith("}")
    return site.rstrip()[:-1] + under_path + "}\n"


@pytest.fixture
def proxied(redis_url: str, tmp_path: Path) -> Iterator[tuple[int, list[LiveServer]]]:
    """nginx on a free port (not 443) in front of two servers on one Redis."""
    ports = (free_port("127.0.0.1"), free_port("127.0.0.1"))
    servers: list[LiveServer] = []
    nginx: subprocess.Popen[bytes] | None = None
    try:  # whatever fails on the way, nothing started outlives the test
        for i, port in enumerate(ports):
            log = tmp_path / f"server{i}.log"
            servers.append(start(["--redis", redis_url, "--port", str(port)], log))
        listen = free_port("127.0.0.1")
        (tmp_path / "gomoku.conf").write_text(site_config(listen, ports))
        (tmp_path / "nginx.conf").write_text(
            f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\n"
            "worker_processes 1;\nevents {}\n"
            f"http {{\n  access_log off;\n  client_body_temp_path {tmp_path}/body;\n"
            f"  proxy_temp_path {tmp_path}/proxy;\n  include {tmp_path}/gomoku.conf;\n}}\n"
        )
        command = [nginx_binary(), "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")]
        nginx = subprocess.Popen([*command, "-g", "daemon off;"], stderr=subprocess.PIPE)
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{listen}/healthz", timeout=1).read()
                break
            except OSError:
                assert nginx.poll() is None, nginx.stderr.read() if nginx.stderr else ""
                assert time.monotonic() < deadline, "nginx did not start"
                time.sleep(0.1)
        yield listen, servers
    finally:
        if nginx is not None:
            nginx.terminate()
            nginx.wait(10)
            if nginx.stderr is not None:
                nginx.stderr.close()
        for server in servers:
            stop(server.process)


def fetch(url: str) -> tuple[int, str]:
    """The status of a GET of ``url`` and the address it ended at (after redirects)."""
    with urllib.request.urlopen(url, timeout=5) as answer:
        return answer.status, answer.url


async def hello_through(url: str, origin: str | None) -> m.Welcome:
    async with ws_connect(url, origin=origin, compression=None) as ws:  # type: ignore[arg-type]
        await ws.send(encode(m.Hello(name="ann")))
        welcome = decode_server(await ws.recv())
    assert isinstance(welcome, m.Welcome), welcome
    return welcome


async def test_the_page_connects_through_the_example_on_another_port_and_under_a_path(
    proxied: tuple[int, list[LiveServer]],
) -> None:
    """On a port that is not 443, the server's own page (its Origin names the port)
    connects through the example, at the root and under /arena/, where the page's
    files are found too; another site's page is still refused."""
    listen, _ = proxied
    site = f"http://127.0.0.1:{listen}"
    await hello_through(f"ws://127.0.0.1:{listen}/", site)
    await hello_through(f"ws://127.0.0.1:{listen}/arena/", site)
    for path in ("/arena/", "/arena/style.css", "/arena/js/main.js", "/arena/js/net.js"):
        assert await asyncio.to_thread(fetch, site + path) == (200, site + path)
    assert await asyncio.to_thread(fetch, site + "/arena") == (200, site + "/arena/")
    with pytest.raises(Exception, match="HTTP 403"):
        await hello_through(f"ws://127.0.0.1:{listen}/", "https://evil.example.com")


async def test_a_server_restarting_behind_the_example_costs_no_connection(
    proxied: tuple[int, list[LiveServer]], redis_url: str, tmp_path: Path
) -> None:
    """One server stops (a failed connect to it), comes back, then the other stops:
    every new connection meanwhile reaches the server that is up (nginx's default
    failure count had both marked down for seconds, and answered 502)."""
    listen, servers = proxied
    url = f"ws://127.0.0.1:{listen}/"
    first, second = servers
    stop(first.process)
    for _ in range(3):
        await hello_through(url, None)
    back = start(["--redis", redis_url, "--port", str(first.port)], tmp_path / "back.log")
    servers[0] = back
    stop(second.process)
    for _ in range(5):
        await hello_through(url, None)


async def test_the_example_slows_a_flood_of_handshakes_and_not_the_page(
    proxied: tuple[int, list[LiveServer]],
) -> None:
    """From one address, the example lets 60 WebSocket handshakes through at once and
    then refuses (HTTP 503) those beyond 2 a second (one address made hundreds of
    players a second); the page's files, asked for as often, are not counted."""
    listen, _ = proxied
    url = f"ws://127.0.0.1:{listen}/"

    async def handshake() -> int:
        try:
            async with ws_connect(url, compression=None):
                return 101
        except InvalidStatus as refused:
            return refused.response.status_code

    answers = [await handshake() for _ in range(80)]
    assert answers[:60] == [101] * 60
    assert 503 in answers[60:]
    page = f"http://127.0.0.1:{listen}/style.css"
    assert {(await asyncio.to_thread(fetch, page))[0] for _ in range(80)} == {200}
