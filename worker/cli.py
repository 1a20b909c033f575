"""``gomoku-ai``: run an AI worker against a Gomoku Arena server.

This module is the command's entry point and imports next to nothing: SIGINT and
SIGTERM are taken (:mod:`stopsignals`) before the engine, the protocol and the event
loop are imported, so that a Ctrl-C or a SIGTERM at any moment of the start stops the
worker quietly, with status 0. The command itself is :func:`worker.serve.run`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from stopsignals import StopSignals, run_command


def main(argv: Sequence[str] | None = None) -> int:
    def serve(signals: StopSignals) -> int:
        from worker.serve import run  # the engine, the protocol, the event loop: after

        return run(argv, signals)

    return run_command(serve, logger="gomoku.worker", what="the worker")


if __name__ == "__main__":
    sys.exit(main())
