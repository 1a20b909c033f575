"""A slow client: busy rooms watched by a spectator that stops reading. Do the other
players notice, and when does the server drop it?

Run: ``.venv/bin/python bench/slow_client.py [--pairs 10] [--seconds 10] [--rounds 1]``.

``--pairs`` games are played as fast as the server allows (``bench/load.py``'s
scripted pairs, restarting in a new room every ``--game-moves`` moves). The run
is done twice, each time on a fresh server:

* baseline: just the players;
* slow: one more client (a raw socket) spectates every room as soon as it is
  created, and never reads a byte after its handshake.

The bench prints the players' mover round trip (p50/p99) in both runs (in the
slow run, over the moves made while the slow spectator was still connected), and
when the server dropped the slow spectator (polling ``/metrics`` for
``gomoku_slow_readers_dropped_total``): how long after it stopped reading and how
many moves the server had accepted meanwhile. The server's own send buffer is
``--send-buffer`` KiB (its default unless given); the kernel's socket buffers on
both sides hold a few MiB more on loopback before the server's buffer fills.
Target: the players' p99 with the slow spectator within 20% of the baseline.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import multiprocessing
import os
import queue
import socket
import struct
import threading
import time
from typing import Any

from harness import environment, gomoku_server, percentile, record
from load import Outcome, drive
from websockets.sync.client import connect as sync_connect

from protocol import messages as m
from protocol.codec import encode
from server.config import ConnectionLimits

TARGET_RATIO = 1.2


def masked(payload: bytes) -> bytes:
    """One client frame (binary, masked) for the raw socket."""
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    size = len(payload)
    length = bytes([0x80 | size]) if size < 126 else b"\xfe" + struct.pack("!H", size)
    head = b"\x82" + length
    return head + mask + body


class Spectator(threading.Thread):
    """Joins every room whose id arrives on ``rooms``; reads everything, or (``slow``)
    nothing at all."""

    def __init__(self, port: int, rooms: Any, slow: bool, rcvbuf: int | None) -> None:
        super().__init__(daemon=True)
        self.port, self.rooms, self.slow, self.rcvbuf = port, rooms, slow, rcvbuf
        self.stop = threading.Event()
        self.joined = 0
        self.stopped_reading: float | None = None
        self.cut_off: float | None = None

    def run(self) -> None:
        if self.slow:
            self._run_raw()
        else:
            self._run_reader()

    def _run_reader(self) -> None:
        with sync_connect(
            f"ws://127.0.0.1:{self.port}/", compression=None, max_size=None, max_queue=None
        ) as ws:
            reader = threading.Thread(target=lambda: [None for _ in ws], daemon=True)
            reader.start()
            ws.send(encode(m.Hello(name="watcher")))
            self._join_rooms(lambda frame: ws.send(frame))

    def _run_raw(self) -> None:
        sock = socket.socket()
        if self.rcvbuf:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, self.rcvbuf)
        sock.connect(("127.0.0.1", self.port))
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall(
            (
                "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(1)  # byte by byte: nothing after the handshake is read
        self.stopped_reading = time.time()
        sock.sendall(masked(encode(m.Hello(name="sloth"))))
        try:
            self._join_rooms(sock.sendall)
        except OSError:
            self.cut_off = time.time()  # the server aborted the connection
        finally:
            with contextlib.suppress(OSError):
                sock.close()

    def _join_rooms(self, send: Any) -> None:
        while not self.stop.is_set():
            try:
                room = self.rooms.get(timeout=0.2)
            except queue.Empty:
                continue
            frame = encode(m.Join(room=room, role="spectator"))
            send(masked(frame) if self.slow else frame)
            self.joined += 1


class DropWatch(threading.Thread):
    """Polls ``/metrics``: when the server dropped a slow reader, and the moves by then."""

    def __init__(self, server: Any) -> None:
        super().__init__(daemon=True)
        self.server = server
        self.stop = threading.Event()
        self.dropped_at: float | None = None
        self.moves_at_drop = 0
        self.moves_at_start = server.metrics().get("gomoku_moves_total", 0)

    def run(self) -> None:
        while not self.stop.is_set() and self.dropped_at is None:
            metrics = self.server.metrics()
            if metrics.get("gomoku_slow_readers_dropped_total", 0) > 0:
                self.dropped_at = time.time()
                self.moves_at_drop = metrics.get("gomoku_moves_total", 0)
            time.sleep(0.05)


def one_run(slow: bool, args: argparse.Namespace) -> tuple[Outcome, Spectator, DropWatch]:
    extra = ["--send-buffer", str(args.send_buffer)]
    with gomoku_server(extra) as server:
        rooms: Any = multiprocessing.get_context("spawn").Queue() if slow else None
        spectator = Spectator(server.port, rooms, slow, args.rcvbuf)
        watch = DropWatch(server)
        if slow:
            spectator.start()
        watch.start()
        load_args = argparse.Namespace(
            pairs=args.pairs,
            seconds=args.seconds,
            warmup=args.warmup,
            game_moves=args.game_moves,
            client_processes=1,
            pair_rate=0.0,
        )
        outcome = drive("slow" if slow else "baseline", [server.url], [], load_args, rooms)
        spectator.stop.set()
        watch.stop.set()
        if slow:
            spectator.join(10)
        watch.join(10)
    return outcome, spectator, watch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--pairs", type=int, default=10, help="busy games (10)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured window (10)")
    parser.add_argument("--warmup", type=float, default=2.0, help="(2)")
    parser.add_argument("--game-moves", type=int, default=60, help="(60)")
    parser.add_argument(
        "--send-buffer",
        type=int,
        default=ConnectionLimits().send_buffer // 1024,
        metavar="KIB",
        help="the server's send buffer per connection (its default)",
    )
    parser.add_argument(
        "--rcvbuf", type=int, default=None, help="the slow client's SO_RCVBUF (kernel default)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="baseline and slow runs this many times, in turn; the verdict takes the "
        "median of the rounds' ratios, which a busy moment moves less (1)",
    )
    args = parser.parse_args()
    head = [
        *environment(),
        f"slow client: {args.pairs} games played flat out for {args.seconds:g} s "
        f"(after {args.warmup:g} s warm-up); server send buffer {args.send_buffer} KiB",
    ]
    print("\n".join(head), flush=True)
    lines = list(head)
    ratios = []
    for number in range(1, args.rounds + 1):
        if args.rounds > 1:
            lines.append(f"round {number}:")
        ratio, said = one_round(args)
        ratios.append(ratio)
        lines += said
        print("\n".join(said), flush=True)
    ratio = sorted(ratios)[(len(ratios) - 1) // 2]
    verdict = (
        f"players' p99 with the slow spectator: x{ratio:.2f} of the baseline"
        + (f" (the median round of {args.rounds})" if args.rounds > 1 else "")
        + f" (target <= x{TARGET_RATIO:g}): {'met' if ratio <= TARGET_RATIO else 'NOT met'}"
    )
    lines.append(verdict)
    print(verdict)
    record("slow_client", lines)


def one_round(args: argparse.Namespace) -> tuple[float, list[str]]:
    """A baseline run then a slow run: the players' p99 ratio, and what to print."""
    base, _, _ = one_run(False, args)
    slow, spectator, watch = one_run(True, args)
    until = watch.dropped_at or float("inf")
    attached = [rtt for sent_at, rtt in slow.window if sent_at < until]
    p50, p99 = percentile(attached, 50) * 1000, percentile(attached, 99) * 1000
    ratio = p99 / base.p99_ms
    said = [
        f"baseline (players only): {base.moves_per_s:.0f} moves/s, "
        f"players' p50 {base.p50_ms:.2f} ms, p99 {base.p99_ms:.2f} ms",
        f"with a spectator that stopped reading, while it was connected: "
        f"{len(attached)} moves, players' p50 {p50:.2f} ms, p99 {p99:.2f} ms "
        f"(whole window: {slow.moves_per_s:.0f} moves/s, p99 {slow.p99_ms:.2f} ms): "
        f"x{ratio:.2f} of the baseline",
    ]
    if watch.dropped_at is not None and spectator.stopped_reading is not None:
        said.append(
            f"the server dropped the slow spectator "
            f"{watch.dropped_at - spectator.stopped_reading:.1f} s after it stopped reading, "
            f"having joined {spectator.joined} rooms, after "
            f"{watch.moves_at_drop - watch.moves_at_start} moves were accepted in all rooms"
        )
    else:
        said.append("the server did NOT drop the slow spectator within the run")
    return ratio, said


if __name__ == "__main__":
    main()
