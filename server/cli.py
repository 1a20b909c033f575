"""``gomoku-server``: run a server and print where people can join it.

This module is the command's entry point and imports next to nothing: SIGINT and
SIGTERM are taken (:mod:`server.signals`) before the server's modules are imported, so
that a Ctrl-C or a SIGTERM at any moment of the start stops the server quietly, with
status 0. The command itself is :func:`server.serve.run`, ``status`` is
:func:`server.status.status_main`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence

from server.signals import Stopped, StopSignals


def main(argv: Sequence[str] | None = None) -> int:
    started = time.monotonic()
    signals = StopSignals()
    signals.raise_stopped()
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["status"]:
        try:
            from server.status import status_main

            return status_main(words[1:], started)
        except Stopped as stopped:
            signals.ignore()
            return 128 + stopped.signal  # as a shell says of a process a signal ended
    try:
        from server.serve import run  # the server's modules, the event loop: after

        return run(words, signals)
    except Exception:
        if signals.received is None:
            raise
        stop = signals.received  # raised through Python code that wrapped it
    except Stopped as stopped:
        stop = str(stopped)
    signals.ignore()
    import logging

    # Said if logging is set up by then (the options were read), else nothing.
    logging.getLogger("gomoku.server").info("%s: stopping before the server started", stop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
