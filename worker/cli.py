"""``gomoku-ai``: run an AI worker against a Gomoku Arena server.

This module is the command's entry point and imports next to nothing: SIGINT and
SIGTERM are taken (:mod:`worker.signals`) before the engine, the protocol and the event
loop are imported, so that a Ctrl-C or a SIGTERM at any moment of the start stops the
worker quietly, with status 0. The command itself is :func:`worker.serve.run`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from worker.signals import Stopped, StopSignals


def main(argv: Sequence[str] | None = None) -> int:
    signals = StopSignals()
    signals.raise_stopped()
    try:
        from worker.serve import run  # the engine, the protocol, the event loop: after

        return run(argv, signals)
    except Exception:
        if signals.received is None:
            raise
        stop = signals.received  # raised through Python code that wrapped it
    except Stopped as stopped:
        stop = str(stopped)
    signals.ignore()
    import logging

    # Said if logging is set up by then (the options were read), else nothing.
    logging.getLogger("gomoku.worker").info("%s: stopping before the worker started", stop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
