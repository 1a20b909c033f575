"""How much CPU an idle terminal client uses: ``gomoku play`` in a pseudo-terminal.

Starts a ``gomoku-server`` (no AI worker) and one ``gomoku play`` in an 80x24
pseudo-terminal whose output is read and thrown away (as a terminal would draw
it), then measures the client's user + system CPU time from /proc over
``--seconds`` (10 by default) in each state a player leaves it in:

1. the lobby, nothing happening;
2. a game in progress without a clock (the player typed ``n`` Enter for a room
   with the default settings, a second player joined, a move each was made),
   nobody moving.

Target: under 1% of one core in both (issue 15, point 12; it was 4-5%). Linux
only (/proc). The machine is shared: run it when it is quiet, or compare A/B in
the same run (``PYTHONPATH=/path/to/other/checkout`` runs another version's
client against the same harness).

Usage: python bench/client_idle.py [--seconds 10]
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import pty
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from websockets.sync.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import cpu_seconds, environment, gomoku_server

from protocol import messages as m
from protocol.codec import decode_server, encode
from protocol.events import Moved
from protocol.values import RoomSummary

TARGET_PERCENT = 1.0
SETTLE_S = 3.0  # after a change of screen, before measuring


class TerminalClient:
    """``gomoku play`` on a pseudo-terminal of 80x24; its output is drained."""

    def __init__(self, port: int, name: str, config_dir: Path) -> None:
        script = shutil.which("gomoku", path=str(Path(sys.executable).parent))
        if script is None:
            raise SystemExit("gomoku is not installed in this environment (pip install -e .)")
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "GOMOKU_CONFIG_DIR": str(config_dir)}
        self.process = subprocess.Popen(
            [script, "play", f"127.0.0.1:{port}", "--name", name],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.master = master
        self.drained = 0
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            self.drained += len(data)

    def type(self, keys: str) -> None:
        """Type ``keys`` as a person would: one key at a time."""
        for key in keys:
            os.write(self.master, key.encode())
            time.sleep(0.05)

    def cpu_percent(self, seconds: float) -> float:
        """The share of one core the client used over the next ``seconds``."""
        pid = self.process.pid
        start_cpu, start = cpu_seconds(pid), time.monotonic()
        time.sleep(seconds)
        used, wall = cpu_seconds(pid) - start_cpu, time.monotonic() - start
        return 100 * used / wall

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        with contextlib.suppress(OSError):
            os.close(self.master)


@contextlib.contextmanager
def terminal_client(port: int, name: str) -> Iterator[TerminalClient]:
    with tempfile.TemporaryDirectory(prefix="gomoku-idle-") as directory:
        client = TerminalClient(port, name, Path(directory))
        try:
            yield client
        finally:
            client.stop()


class Opponent:
    """A second player speaking the protocol directly."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.ids = iter(range(1, 1_000_000))
        self.send(m.Hello(id=next(self.ids), name="opponent"))
        self.until(m.Welcome)

    def send(self, message: m.ClientMessage) -> None:
        self.ws.send(encode(message))

    def until(self, kind: type[m.ServerMessage], timeout: float = 20.0) -> m.ServerMessage:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SystemExit(f"client_idle: no {kind.__name__} within {timeout} s")
            frame = self.ws.recv(timeout=left)
            if isinstance(frame, bytes):
                message = decode_server(frame)
                if isinstance(message, kind):
                    return message

    def first_waiting_room(self) -> str:
        self.send(m.LobbyWatch(on=True))
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            frame = self.ws.recv(timeout=max(0.1, deadline - time.monotonic()))
            if not isinstance(frame, bytes):
                continue
            message = decode_server(frame)
            rooms: list[RoomSummary] = []
            if isinstance(message, m.Lobby):
                rooms = list(message.rooms)
            elif isinstance(message, m.LobbyRoom):
                rooms = [message.room]
            for room in rooms:
                if room.state == "waiting":
                    return room.id
        raise SystemExit("client_idle: the client's room never showed in the lobby")

    def until_moved(self, point: str) -> None:
        """Wait for the move ``point`` to be played in the room."""
        while True:
            event = self.until(m.Event)
            assert isinstance(event, m.Event)
            if isinstance(event.event, Moved) and event.event.point == point:
                return


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="measure this long")
    args = parser.parse_args()
    for line in environment():
        print(line)
    print(f"client: {sys.executable} -m client.cli (PYTHONPATH={os.environ.get('PYTHONPATH', '')})")
    results: list[tuple[str, float]] = []
    with gomoku_server() as server, terminal_client(server.port, "idle") as client:
        time.sleep(SETTLE_S)
        results.append(("lobby", client.cpu_percent(args.seconds)))

        with connect(f"ws://127.0.0.1:{server.port}/", compression=None) as ws:
            opponent = Opponent(ws)
            client.type("n")  # the new-room dialog; Enter creates it with the defaults
            time.sleep(1.0)
            client.type("\r")
            room = opponent.first_waiting_room()
            opponent.send(m.Join(id=next(opponent.ids), room=room, role="player"))
            opponent.until(m.Snapshot)
            time.sleep(1.0)
            client.type("\r")  # Black plays the cursor's point, the centre (h8)
            opponent.until_moved("h8")
            opponent.send(m.Move(id=next(opponent.ids), room=room, point="a1"))
            opponent.until_moved("a1")
            time.sleep(SETTLE_S)
            results.append(("game in progress, no clock", client.cpu_percent(args.seconds)))
        if client.drained == 0:
            raise SystemExit("client_idle: the client drew nothing; it did not start")
    failed = False
    for name, percent in results:
        verdict = "ok" if percent < TARGET_PERCENT else "ABOVE TARGET"
        failed |= percent >= TARGET_PERCENT
        print(
            f"{name}: {percent:.2f}% of a core over {args.seconds:g} s "
            f"(target < {TARGET_PERCENT:g}%: {verdict})"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
