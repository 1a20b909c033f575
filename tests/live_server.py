"""The installed ``gomoku-server`` command as a subprocess on a free 127.0.0.1 port, for
tests that need the real process and its command-line flags (the fuzzer, the limits an
operator sets). Its stderr goes to a log file the test can read. Also whether a
process (of any command) still runs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie nobody reaps counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@dataclasses.dataclass
class LiveServer:
    """A running ``gomoku-server`` process."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    def http(self, path: str) -> tuple[int, str]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=10) as r:
            return r.status, r.read().decode()

    def metric(self, name: str) -> int:
        _, text = self.http("/metrics")
        found = re.search(rf"^{name} (\d+)$", text, re.MULTILINE)
        assert found is not None, f"{name} missing from /metrics"
        return int(found.group(1))

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


def start(
    args: Sequence[str],
    log: Path,
    env: Mapping[str, str] | None = None,
    *,
    ephemeral: bool | None = None,
    cwd: Path | None = None,
) -> LiveServer:
    """Start ``gomoku-server --host 127.0.0.1 --port 0 --bots 0 --drain 0 ARGS...`` (no AI
    worker processes, no pause before a stop unless ``args`` ask for one, and
    GOMOKU_REDIS_URL ignored: the store is what ``args`` say, and with
    none of ``--redis``, ``--data``, ``--ephemeral`` in them it is ``--ephemeral`` unless
    ``ephemeral`` is False; ``env`` adds variables; run in ``cwd``, else this process's
    directory) and wait for its banner."""
    script = shutil.which("gomoku-server", path=str(Path(sys.executable).parent))
    assert script is not None, "gomoku-server is not installed in this environment"
    command = [script, "--host", "127.0.0.1", "--port", "0", "--bots", "0", "--drain", "0"]
    command += args
    if ephemeral or (ephemeral is None and not {"--redis", "--data", "--ephemeral"} & set(args)):
        command.append("--ephemeral")  # never the user's own data file
    inherited = {
        k: v for k, v in os.environ.items() if k not in ("GOMOKU_REDIS_URL", "GOMOKU_DATA")
    }
    environment = {**inherited, **(env or {}), "PYTHONUNBUFFERED": "1"}
    with log.open("wb") as err:
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=err, env=environment, cwd=cwd
        )
    assert process.stdout is not None
    banner = ""
    found = None
    while found is None:  # "store: redis at ..." comes before the banner
        line = process.stdout.readline().decode()
        if not line:
            stop(process)
            raise AssertionError(f"the server did not start: {banner!r}\n{log.read_text()}")
        banner += line
        found = re.search(r"listening on port (\d+)", line)
    return LiveServer(process, int(found.group(1)), log)


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stdout is not None:
        process.stdout.close()


@contextlib.contextmanager
def live_server(
    args: Sequence[str] = (), env: Mapping[str, str] | None = None
) -> Iterator[LiveServer]:
    """A started server (see :func:`start`), stopped and its log removed on exit."""
    with tempfile.TemporaryDirectory(prefix="gomoku-live-") as tmp:
        server = start(args, Path(tmp) / "server.log", env)
        try:
            yield server
        finally:
            stop(server.process)
