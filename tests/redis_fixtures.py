"""A real `redis-server` for the tests, started on a free 127.0.0.1 port in a temp dir.

No mock stands in for Redis: these fixtures run the real binary (scripts/test
installs it). Fixtures:

- ``redis_server``: one server for the whole session (no persistence), so the
  suite pays the start-up once;
- ``redis_url``: that server's URL, FLUSHALLed before each test that asks for it;
- ``persistent_redis``: a server of the test's own with append-only persistence,
  for tests that stop and restart it (``restart()`` keeps the port and the dir).

Load them with ``pytest_plugins = ["redis_fixtures"]`` in a conftest.py, or
import the fixture names into a test module.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

START_TIMEOUT_S = 10.0


class RedisServerError(RuntimeError):
    """redis-server could not be started (missing binary, or it never answered PING)."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def ping(port: int, timeout: float = 0.5) -> bool:
    """True if a Redis server on 127.0.0.1:port answers PING (raw RESP, no client library)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """One redis-server process the test suite owns; stopping it leaves no process behind."""

    def __init__(self, directory: Path, *, appendonly: bool = False) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RedisServerError(
                "redis-server is not installed; scripts/test installs it "
                "(apt-get install redis-server)"
            )
        self.binary = binary
        self.directory = directory
        self.appendonly = appendonly
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def _command(self) -> list[str]:
        return [
            self.binary,
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--dir",
            str(self.directory),
            "--daemonize",
            "no",
            "--save",
            "",
            "--appendonly",
            "yes" if self.appendonly else "no",
            # Every write reaches the file before the reply: a test that kills the server
            # right after a write must find it again.
            "--appendfsync",
            "always" if self.appendonly else "everysec",
            "--loglevel",
            "warning",
            "--logfile",
            str(self.directory / "redis.log"),
        ]

    def start(self) -> None:
        """Start on a free port (or the same port again after a stop) and wait for PING."""
        same_port = bool(self.port)
        for _ in range(1 if same_port else 5):
            if not same_port:
                self.port = free_port()
            self._process = subprocess.Popen(
                self._command(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            deadline = time.monotonic() + START_TIMEOUT_S
            while time.monotonic() < deadline:
                if ping(self.port):
                    return
                if self._process.poll() is not None:
                    break  # exited: most likely the port was taken in between
                time.sleep(0.02)
            self.stop()
        log = self.directory / "redis.log"
        detail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        raise RedisServerError(f"redis-server did not answer PING on port {self.port}\n{detail}")

    def stop(self, *, kill: bool = False) -> None:
        """Stop the process: SIGTERM (a clean shutdown) or, with ``kill``, SIGKILL (a crash)."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            if kill:
                process.kill()
            else:
                process.terminate()
            try:
                process.wait(timeout=START_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def hang(self, *, on: bool) -> None:
        """Freeze the process (SIGSTOP: connections stay open and nothing answers, as in
        a hung Redis) or let it go on (SIGCONT)."""
        assert self._process is not None
        self._process.send_signal(signal.SIGSTOP if on else signal.SIGCONT)

    def restart(self, *, kill: bool = False) -> None:
        """Stop and start again on the same port and dir (persisted data comes back)."""
        self.stop(kill=kill)
        self.start()

    def flushall(self) -> None:
        """Empty every database, so a test starts from nothing on a shared server."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as sock:
            sock.sendall(b"FLUSHALL\r\n")
            reply = sock.recv(64)
        if not reply.startswith(b"+OK"):
            raise RedisServerError(f"FLUSHALL failed: {reply!r}")


@contextlib.contextmanager
def running_redis(*, appendonly: bool = False) -> Iterator[RedisServer]:
    """A started RedisServer in a fresh temp dir; stopped and cleaned up on exit."""
    with tempfile.TemporaryDirectory(prefix="gomoku-redis-") as directory:
        server = RedisServer(Path(directory), appendonly=appendonly)
        server.start()
        try:
            yield server
        finally:
            server.stop()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """One redis-server without persistence, shared by the whole test session."""
    with running_redis() as server:
        yield server


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The shared server's URL, emptied first so this test sees no earlier test's keys."""
    if not redis_server.running:  # a test stopped it: bring it back for the next one
        redis_server.start()
    redis_server.flushall()
    return redis_server.url


@pytest.fixture
def persistent_redis() -> Iterator[RedisServer]:
    """A redis-server of this test's own with append-only persistence, free to restart."""
    with running_redis(appendonly=True) as server:
        yield server
