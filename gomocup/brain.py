"""``pbrain-gomoku``: the engine as a Gomocup brain on stdin and stdout.

The protocol lives in :class:`gomocup.session.BrainSession`; this module only
moves lines between it and the pipes. The level comes from ``--level`` or the
environment variable ``GOMOKU_LEVEL`` (default: master).

Lines are read by a thread of their own, so that ``END`` stops a search in progress:
the manager kills a brain that has not exited soon after END, and nothing is sent
after END is read, not even the answer to a command that came before it in the same
write. The end of the input (a pipe closed without END) cuts a search short too, but
what was asked is still answered, for someone who pipes commands in. A line may end
with CR LF, LF or a lone CR.
"""

from __future__ import annotations

import argparse
import os
import queue
import sys
import threading
import time
from collections.abc import Iterator, Sequence

from engine.ai import LEVEL_NAMES
from engine.ai.backend import env_problem as core_env_problem
from gomocup.session import BrainSession, is_end

READ_SIZE = 65536
FAR_FUTURE_S = 1e9
"""Added to the search's clock once END came: every deadline has passed."""


def split_lines(chunks: Iterator[bytes]) -> Iterator[str]:
    """The lines in a stream of byte chunks, each ending with CR LF, LF or a lone CR
    (a CR LF split over two chunks is one line end), decoded leniently as UTF-8."""
    pending = b""
    after_cr = False
    for chunk in chunks:
        if after_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        after_cr = chunk.endswith(b"\r")
        pending += chunk
        *lines, pending = pending.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        for line in lines:
            yield line.decode("utf-8", "replace")
    if pending:
        yield pending.decode("utf-8", "replace")


def _chunks(fd: int) -> Iterator[bytes]:
    while chunk := os.read(fd, READ_SIZE):
        yield chunk


class Reader(threading.Thread):
    """Reads the manager's lines into ``lines`` (None at the end of the input) and sets
    ``ended`` as soon as END or the end of the input is read, and ``end_read`` as soon
    as END is."""

    def __init__(self, fd: int) -> None:
        super().__init__(daemon=True, name="stdin")
        self.fd = fd
        self.lines: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self.ended = threading.Event()
        self.end_read = threading.Event()

    def run(self) -> None:
        try:
            for line in split_lines(_chunks(self.fd)):
                if is_end(line):
                    self.end_read.set()
                    self.ended.set()
                self.lines.put(line)
        except OSError:
            pass
        self.ended.set()
        self.lines.put(None)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="pbrain-gomoku", description="Gomoku Arena's AI as a Gomocup (pbrain) brain."
    )
    parser.add_argument(
        "--level",
        choices=LEVEL_NAMES,
        default=os.environ.get("GOMOKU_LEVEL", "master").lower(),
        help="playing strength (default: $GOMOKU_LEVEL or master)",
    )
    parser.add_argument(
        "--verbose", action="store_true", help="send a MESSAGE line with search figures per move"
    )
    args = parser.parse_args(argv)
    if args.level not in LEVEL_NAMES:  # argparse checks a default against no choices
        parser.error(
            f"GOMOKU_LEVEL={os.environ.get('GOMOKU_LEVEL', '')!r} is not a level "
            f"(choose from {', '.join(LEVEL_NAMES)})"
        )
    if (problem := core_env_problem()) is not None:
        parser.error(problem)
    reader = Reader(sys.stdin.fileno())

    def clock() -> float:
        return time.perf_counter() + (FAR_FUTURE_S if reader.ended.is_set() else 0.0)

    session = BrainSession(args.level, verbose=args.verbose, clock=clock)
    reader.start()
    while (line := reader.lines.get()) is not None:
        if reader.end_read.is_set():
            # END is read: at this line, or behind it (they came in one write), or while
            # the line before was worked on. The manager wants the brain gone: nothing
            # more is worked on or sent.
            break
        replies = session.feed(line)
        if reader.end_read.is_set():
            break  # END came while this was worked on (a move): its answer is not sent
        try:
            for reply in replies:
                sys.stdout.write(reply + "\n")
            sys.stdout.flush()
        except BrokenPipeError:
            # Nobody reads the answers any more (the manager went without END).
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            break
        if session.finished:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
