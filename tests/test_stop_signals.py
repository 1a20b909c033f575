"""Ctrl-C (SIGINT) or SIGTERM to the whole process group, at each moment of the start of
``gomoku-ai`` and of ``gomoku-server`` with its local AI worker: a quiet stop, status 0.

A terminal's Ctrl-C goes to every process of its group, and ``timeout`` or a service
manager sends SIGTERM to all of them too. In the first seconds that printed Python
tracebacks: a ``KeyboardInterrupt`` in the middle of the imports, in the pool's fork
server while it imported the engine (then ``EOFError`` in the worker), or a pool process
killed while it warmed up (then ``BrokenProcessPool``), and the worker exited with 1.

Each moment is found by watching the processes, not by sleeping: the command's own
code runs (it catches SIGTERM, which Python leaves alone), the fork server exists, its
first pool process exists, all of them exist. (Before the command's code runs, while
the interpreter itself starts, nothing of ours can take a signal.)
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads the process table from /proc"
)

BIN = Path(sys.executable).parent


def process_table() -> dict[int, tuple[int, str]]:
    """Every process: its parent and its state (``Z``: a zombie, as good as gone)."""
    table: dict[int, tuple[int, str]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        state, ppid = stat[stat.rindex(")") + 2 :].split()[:2]
        table[int(entry.name)] = (int(ppid), state)
    return table


def descendants(pid: int, table: dict[int, tuple[int, str]]) -> list[int]:
    """The live processes under ``pid``, children before grandchildren."""
    found: list[int] = []
    parents = [pid]
    while parents:
        parent = parents.pop(0)
        children = [p for p, (ppid, state) in table.items() if ppid == parent and state != "Z"]
        found += children
        parents += children
    return found


def command_line(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    return ""


def catches_sigterm(pid: int) -> bool:
    """Whether the process has a handler for SIGTERM (Python has none of its own)."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) >> (signal.SIGTERM - 1) & 1)
    return False


def fork_servers(pid: int, table: dict[int, tuple[int, str]]) -> list[int]:
    return [p for p in descendants(pid, table) if "multiprocessing.forkserver" in command_line(p)]


def pool_processes(pid: int, table: dict[int, tuple[int, str]]) -> list[int]:
    return [child for server in fork_servers(pid, table) for child in descendants(server, table)]


Moment = Callable[[int], bool]
"""Whether the command started as ``pid`` has come to the moment to signal it."""

WORKER_MOMENTS: dict[str, Moment] = {
    "its code runs": catches_sigterm,
    "the fork server starts": lambda pid: bool(fork_servers(pid, process_table())),
    "the first pool process starts": lambda pid: bool(pool_processes(pid, process_table())),
    # --processes 1: one search process and the quick one, warming up
    "the pool warms up": lambda pid: len(pool_processes(pid, process_table())) >= 2,
}


def local_worker(pid: int) -> int | None:
    """The local AI worker a server started as ``pid`` runs (None: none yet)."""
    table = process_table()
    workers = [p for p in descendants(pid, table) if " -m worker " in command_line(p)]
    return workers[0] if workers else None


def in_local_worker(moment: Moment) -> Moment:
    """``moment`` of the server's local AI worker (it has not come while there is none)."""

    def come(pid: int) -> bool:
        worker = local_worker(pid)
        return worker is not None and moment(worker)

    return come


SERVER_MOMENTS: dict[str, Moment] = {
    "its code runs": catches_sigterm,
    "its local worker starts": lambda pid: local_worker(pid) is not None,
    **{f"the worker: {name}": in_local_worker(WORKER_MOMENTS[name]) for name in WORKER_MOMENTS},
}


async def signalled_at(
    command: list[str], moment: Moment, sig: signal.Signals
) -> tuple[int, str, list[int]]:
    """Start ``command`` as a process group of its own, send ``sig`` to the whole group
    as soon as ``moment`` comes; its exit status, its standard error, and every process
    it had then."""
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert process.stderr is not None
    error = asyncio.create_task(process.stderr.read())
    try:
        deadline = time.monotonic() + 60
        while not moment(process.pid):
            assert process.returncode is None, "it exited by itself"
            assert time.monotonic() < deadline, "the moment never came"
            await asyncio.sleep(0.002)
        seen = descendants(process.pid, process_table())
        os.killpg(process.pid, sig)
        code = await asyncio.wait_for(process.wait(), 30)
        return code, (await asyncio.wait_for(error, 10)).decode(), seen
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()


async def all_gone(pids: list[int], timeout_s: float = 10.0) -> list[int]:
    """The processes of ``pids`` still alive after ``timeout_s`` (each should end)."""
    deadline = time.monotonic() + timeout_s
    while True:
        table = process_table()
        left = [pid for pid in pids if pid in table and table[pid][1] != "Z"]
        if not left or time.monotonic() > deadline:
            return left
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("moment", list(WORKER_MOMENTS))
async def test_gomoku_ai_stops_quietly_whenever_the_signal_comes(
    moment: str, sig: signal.Signals
) -> None:
    """The worker exits with 0 and at most one log line, without a traceback, and
    leaves no process behind (its pool's processes are out of the group: it stops
    them itself)."""
    command = [str(BIN / "gomoku-ai"), "--server", "ws://127.0.0.1:9", "--bot-key", "k1"]
    code, err, seen = await signalled_at(
        [*command, "--processes", "1"], WORKER_MOMENTS[moment], sig
    )
    assert "Traceback" not in err, err
    assert "Exception ignored" not in err, err
    assert code == 0, err
    assert len(err.splitlines()) <= 1, err
    assert await all_gone(seen) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("moment", list(SERVER_MOMENTS))
async def test_gomoku_server_stops_quietly_whenever_the_signal_comes(
    moment: str, sig: signal.Signals
) -> None:
    """The server exits with 0, without a traceback from itself or its local worker,
    and stops the worker (which the group's signal does not reach) without restarting
    it first."""
    command = [str(BIN / "gomoku-server"), "--host", "127.0.0.1", "--port", "0"]
    code, err, seen = await signalled_at(
        [*command, "--ephemeral", "--bots", "1"], SERVER_MOMENTS[moment], sig
    )
    assert "Traceback" not in err, err
    assert "Exception ignored" not in err, err
    assert code == 0, err
    assert "restarting" not in err, err
    assert await all_gone(seen) == []


HALF_MADE_LOOP = """
import asyncio, os, signal, sys
from {module} import Stopped, StopSignals

class InterruptedLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        os.kill(os.getpid(), signal.{sig})  # comes while the loop is being made
        super().__init__()

async def main() -> None:
    print("the loop ran")

signals = StopSignals()
signals.raise_stopped()
coroutine = main()
try:
    signals.run(coroutine, InterruptedLoop)
except Stopped as stopped:
    print("stopped by", stopped)
finally:
    coroutine.close()  # as the commands do: it never ran
"""


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("module", ["stopsignals"])
def test_a_signal_while_the_event_loop_is_made_stops_without_a_traceback(
    module: str, sig: str
) -> None:
    """The signal raises once the loop is whole (a half-made loop's finalizer printed
    "Exception ignored ... no attribute '_signal_handlers'" on a CI run)."""
    done = subprocess.run(
        [sys.executable, "-c", HALF_MADE_LOOP.format(module=module, sig=sig)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stderr == ""
    assert done.stdout == f"stopped by {sig}\n"


WHILE_TAKEN = """
import os, signal, sys
from stopsignals import run_command

install = signal.signal

def install_then_signalled(sig, handler):
    previous = install(sig, handler)
    if sig == signal.SIGTERM and callable(handler):  # the next handlers are not in yet
        os.kill(os.getpid(), signal.{sig})
    return previous

signal.signal = install_then_signalled
sys.exit(run_command(lambda signals: 3, logger="test", what="the test"))
"""


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_signal_while_the_handlers_are_taken_stops_quietly(sig: str) -> None:
    """A stop signal that comes once SIGTERM's handler is in, before the others are, is
    a quiet stop with status 0 (it raised out of run_command with a traceback)."""
    done = subprocess.run(
        [sys.executable, "-c", WHILE_TAKEN.format(sig=sig)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, "")
