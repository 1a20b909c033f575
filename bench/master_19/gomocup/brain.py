"""``pbrain-gomoku``: the engine as a Gomocup brain on stdin and stdout.

The protocol lives in :class:`gomocup.session.BrainSession`; this module only
moves lines between it and the pipes. The level comes from ``--level`` or the
environment variable ``GOMOKU_LEVEL`` (default: master).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from engine.ai import LEVEL_NAMES
from gomocup.session import BrainSession


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
    session = BrainSession(args.level, verbose=args.verbose)
    for line in sys.stdin:
        for reply in session.feed(line):
            sys.stdout.write(reply + "\n")
        sys.stdout.flush()
        if session.finished:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
