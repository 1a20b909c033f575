"""What the server benchmarks share: a ``gomoku-server`` (and ``redis-server``)
subprocess on a free 127.0.0.1 port, the machine and versions every result is
printed with, percentiles, and the results file ``bench/RESULTS.md``.

Everything here talks to 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import importlib.metadata
import os
import platform
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "RESULTS.md"
START_TIMEOUT_S = 30.0

# Benchmarks measure capacity, not policy: the per-connection rate limits and the
# per-address limits (everything comes from 127.0.0.1) are lifted.
UNLIMITED = [
    "--rate-limit",
    "1000000",
    "--rate-burst",
    "1000000",
    "--max-conns-per-ip",
    "0",
    "--new-players-per-ip",
    "0",
    "--rooms-per-ip",
    "0",
]


def raise_open_files(limit: int = 65536) -> int:
    """Raise this process's open-files limit as far as allowed; the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


BOT_KEY = "bench-bot-key"
"""The bot key the benches' servers accept and their AI workers present."""


async def worker_process(port: int, *args: str) -> asyncio.subprocess.Process:
    """``python -m worker`` connected to the server on 127.0.0.1:``port`` with ``args``,
    logging warnings only; its bot key comes from the environment, as a deployment
    passes it."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "worker",
        "--server",
        f"ws://127.0.0.1:{port}",
        "--log-level",
        "WARNING",
        *args,
        env={**os.environ, "GOMOKU_BOT_KEY": BOT_KEY},
        stdin=asyncio.subprocess.DEVNULL,
    )


def redis_server_version() -> str:
    binary = shutil.which("redis-server")
    if binary is None:
        return "not installed"
    out = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    found = re.search(r"v=(\S+)", out)
    return found.group(1) if found else out.strip()


def git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
    except OSError:
        return "unknown"
    dirty = subprocess.run(  # the results file itself does not count
        ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/RESULTS.md"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return (out.stdout.strip() or "unknown") + (" + uncommitted changes" if dirty else "")


def environment() -> list[str]:
    """The lines every result is printed with: machine, load, versions."""
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return [
        f"machine: {os.cpu_count()} cores ({platform.machine()}, {platform.system()}), "
        f"load average {load} at start (the machine is shared: figures are noisy)",
        f"python {platform.python_version()}, websockets {version('websockets')}, "
        f"msgspec {version('msgspec')}, redis-py {version('redis')}, "
        f"hiredis {version('hiredis')}, redis-server {redis_server_version()}, "
        f"uvloop {version('uvloop')} (the server's and the relay's event loop when installed)",
        f"commit {git_commit()}, {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC",
    ]


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by nearest rank; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[rank]


def summary_ms(samples_s: Sequence[float]) -> str:
    return (
        f"p50 {percentile(samples_s, 50) * 1000:.2f} ms, "
        f"p99 {percentile(samples_s, 99) * 1000:.2f} ms "
        f"(mean {statistics.fmean(samples_s) * 1000:.2f} ms, n={len(samples_s)})"
        if samples_s
        else "no samples"
    )


def rss_kib(pid: int) -> int:
    """Resident memory of a process, from /proc (Linux)."""
    status = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"VmRSS:\s+(\d+) kB", status)
    assert found is not None
    return int(found.group(1))


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def process_tree(pid: int) -> list[int]:
    """``pid`` and every process below it (Linux: /proc/PID/task/TID/children)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(child) for child in (task / "children").read_text().split()]
    return found


def tree_cpu_seconds(pid: int) -> float:
    """User + system CPU time used so far by ``pid`` and the processes below it that are
    still running (a ``gomoku-server --processes N`` supervisor and its servers)."""
    total = 0.0
    for member in process_tree(pid):
        with contextlib.suppress(OSError, IndexError):
            total += cpu_seconds(member)
    return total


def io_calls(pid: int) -> int:
    """How many read and write system calls a process has made so far (``syscr`` and
    ``syscw`` of /proc/PID/io, Linux): the read/write/readv/writev family, which is how
    uvloop reads and writes its sockets (send, recv and their kin are not counted)."""
    text = Path(f"/proc/{pid}/io").read_text()
    fields = dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)
    return int(fields["syscr"]) + int(fields["syscw"])


def tree_io_calls(pid: int) -> int:
    """:func:`io_calls` of ``pid`` and the processes below it that are still running."""
    total = 0
    for member in process_tree(pid):
        with contextlib.suppress(OSError, KeyError):
            total += io_calls(member)
    return total


def redis_info(url: str, section: str) -> str:
    """One section of redis-server's INFO (over a raw RESP connection, so reading it
    costs the benchmark no client library's work)."""
    host, port = url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(f"INFO {section}\r\n".encode())
        data = sock.recv(65536)  # a bulk string: $LENGTH CRLF body CRLF
        head, _, data = data.partition(b"\r\n")
        while len(data) < int(head[1:]) + 2 and (chunk := sock.recv(65536)):
            data += chunk
    return data.decode()


def redis_cpu_seconds(url: str) -> float:
    """CPU time redis-server has used so far (INFO cpu)."""
    fields = dict(re.findall(r"(used_cpu_(?:sys|user)):([\d.]+)", redis_info(url, "cpu")))
    return float(fields["used_cpu_sys"]) + float(fields["used_cpu_user"])


class ServerProcess:
    """A ``gomoku-server`` on a free 127.0.0.1 port, with its log in a temp file."""

    def __init__(self, extra: Sequence[str] = (), *, open_files: int = 65536) -> None:
        script = shutil.which("gomoku-server", path=str(Path(sys.executable).parent))
        if script is None:
            raise SystemExit(
                "gomoku-server is not installed in this environment (pip install -e .)"
            )
        help_text = subprocess.run([script, "--help"], capture_output=True, text=True).stdout
        args = [script, "--host", "127.0.0.1", "--port", "0", "--log-level", "WARNING"]
        if "--bots" in help_text:
            args += ["--bots", "0"]  # no AI worker processes competing for the CPU
        if "--max-rooms-per-player" in help_text:
            args += ["--max-rooms-per-player", "1000000"]  # capacity, not policy
        if "--ephemeral" in help_text and "--redis" not in extra:
            args += ["--ephemeral"]  # the memory store, with no data file to write
        args += [*UNLIMITED, *extra]
        self.log = Path(tempfile.mkstemp(prefix="gomoku-bench-", suffix=".log")[1])

        def more_files() -> None:
            hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
            want = open_files if hard == resource.RLIM_INFINITY else min(open_files, hard)
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))

        with self.log.open("wb") as err:
            self.process = subprocess.Popen(
                args,
                stdout=subprocess.PIPE,
                stderr=err,
                preexec_fn=more_files,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        assert self.process.stdout is not None
        banner = ""
        found = None
        for _ in range(10):  # e.g. "store: redis at ..." comes before the banner
            line = self.process.stdout.readline().decode()
            banner += line
            found = re.search(r"listening on port (\d+)", line)
            if found is not None or not line:
                break
        if found is None:
            log = self.log.read_text(errors="replace")
            self.stop()
            raise SystemExit(f"gomoku-server did not start: {banner!r}\n{log}")
        self.port = int(found.group(1))
        self.url = f"ws://127.0.0.1:{self.port}/"

    def http(self, path: str) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=30) as r:
            body: bytes = r.read()
            return body.decode()

    def metrics(self) -> dict[str, int]:
        text = self.http("/metrics")
        return {k: int(v) for k, v in re.findall(r"^(gomoku_\w+(?:\{[^}]*\})?) (\d+)$", text, re.M)}

    def rss_kib(self) -> int:
        return rss_kib(self.process.pid)

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.process.pid)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        with contextlib.suppress(OSError):
            self.log.unlink()

    def errors_logged(self) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(line for line in text.splitlines() if "ERROR" in line or "Trace" in line)


@contextlib.contextmanager
def gomoku_server(extra: Sequence[str] = (), **kwargs: int) -> Iterator[ServerProcess]:
    server = ServerProcess(extra, **kwargs)
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A throw-away redis-server (no persistence) on a free port; its URL."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server is not installed")
    with tempfile.TemporaryDirectory(prefix="gomoku-bench-redis-") as directory:
        port = free_port()
        args = [binary, "--bind", "127.0.0.1", "--port", str(port), "--dir", directory]
        args += ["--save", "", "--appendonly", "no", "--loglevel", "warning"]
        process = subprocess.Popen(
            args,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            while True:
                with (
                    contextlib.suppress(OSError),
                    socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock,
                ):
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        break
                if time.monotonic() > deadline or process.poll() is not None:
                    raise SystemExit(f"redis-server did not start on port {port}")
                time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            process.wait(20)


def record(name: str, lines: Sequence[str]) -> None:
    """Replace this benchmark's section of bench/RESULTS.md with ``lines``."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    body = "\n".join([start, f"## {name}", "", "```", *lines, "```", end])
    text = RESULTS.read_text() if RESULTS.exists() else RESULTS_HEADER
    if start in text and end in text:
        before, rest = text.split(start, 1)
        _, after = rest.split(end, 1)
        text = before + body + after
    else:
        text = text.rstrip("\n") + "\n\n" + body + "\n"
    RESULTS.write_text(text)


RESULTS_HEADER = """# Benchmark results

The latest run of each server benchmark in `bench/` (written by the benchmark
itself; run it again to refresh its section). Each section says the machine,
its load when the run started, the versions and the commit. The machine these
were taken on is shared with other work, so treat the figures as indicative.
"""
