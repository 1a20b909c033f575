"""The log lines the server and the AI worker write: one format for both, so that one
pattern reads either program's log (an operator joins them up by time)."""

from __future__ import annotations

import logging
import sys
import time

QUIET_LIBRARIES = ("websockets", "redis")
"""Libraries whose own lines are left out below WARNING: websockets' per-connection
lines, and redis-py's DEBUG line every few seconds about a Redis without
``CLIENT MAINT_NOTIFICATIONS``."""


def configure(level: str | int, *, tag: str = "") -> None:
    """Log to standard error at ``level``: each line's time with milliseconds and its
    zone's offset (a log read on another machine, or across a clock change, says which
    time it was), the level, ``tag`` (``[process 2] ``) and the message."""
    zone = time.strftime("%z")
    logging.basicConfig(
        level=level,
        format=f"%(asctime)s.%(msecs)03d{zone} %(levelname)s {tag}%(message)s",
        datefmt="%Y-%m-%d %H:%M:%S",
        stream=sys.stderr,
    )
    for library in QUIET_LIBRARIES:
        logging.getLogger(library).setLevel(logging.WARNING)
