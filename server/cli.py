"""``gomoku-server``: run a server and print where people can join it.

This module is the command's entry point and imports next to nothing: SIGINT and
SIGTERM are taken (:mod:`stopsignals`) before the server's modules are imported, so
that a Ctrl-C or a SIGTERM at any moment of the start stops the server quietly, with
status 0. The command itself is :func:`server.serve.run`, ``status`` is
:func:`server.status.status_main`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence

from stopsignals import Stopped, StopSignals, run_command


def main(argv: Sequence[str] | None = None) -> int:
    started = time.monotonic()
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["status"]:
        return status(words[1:], started)

    def serve(signals: StopSignals) -> int:
        from server.serve import run  # the server's modules, the event loop: after

        return run(words, signals)

    return run_command(serve, logger="gomoku.server", what="the server")


def status(words: list[str], started: float) -> int:
    """``gomoku-server status``: a stop signal ends it as a shell says of a process a
    signal ended (it is a query, not a service)."""
    signals = StopSignals()
    signals.raise_stopped()
    try:
        from server.status import status_main

        return status_main(words, started)
    except Stopped as stopped:
        signals.ignore()
        return 128 + stopped.signal


if __name__ == "__main__":
    sys.exit(main())
