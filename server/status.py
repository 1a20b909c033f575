"""``gomoku-server status --redis URL``: the cluster on a Redis, in plain text (its
instances, AI workers, AI pool queues and rooms), read once; exit 1 when no instance is
live, 2 with one line when Redis cannot be reached or the options are wrong."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import time
from collections.abc import Sequence

from protocol.options import HelpFormatter
from server.cluster import describe, read_cluster, unheard
from server.options import redacted, redis_url
from server.service import now_ms
from server.store import StoreUnavailable

BUDGET_S = 4.5
"""How long the command may take from its first line of code to its last, whatever Redis
does (README: within 6 s; the rest is the interpreter's own start and exit). The read
gets what its start (imports: half a second, or twice that on a loaded machine) left of
it, less the close; a Redis answers it in milliseconds."""
MIN_READ_S = 1.0
"""The read's time however long the start took."""
CLOSE_TIMEOUT_S = 0.25
"""How long closing the store may take after the read (the process ends anyway)."""


def parse_status_args(argv: Sequence[str]) -> argparse.Namespace:
    """The options; a bad one exits 2 with the usage line and one line saying what is
    wrong, as the server's own options do."""
    parser = argparse.ArgumentParser(
        prog="gomoku-server status",
        formatter_class=HelpFormatter,
        description="Print the instances, AI workers and load of the cluster on a Redis.",
        epilog="Exit status: 0 with an instance live, 1 with none (none publishes to the "
        "store, or every one is silent), 2 when Redis cannot be read or an option is wrong.",
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        type=redis_url,
        help="the cluster's Redis, as given to its servers (default: $GOMOKU_REDIS_URL)",
    )
    args = parser.parse_args(argv)
    if args.redis is None and (given := os.environ.get("GOMOKU_REDIS_URL")):
        try:
            args.redis = redis_url(given)
        except argparse.ArgumentTypeError as exc:
            parser.error(f"environment variable GOMOKU_REDIS_URL: {exc}")
    if not args.redis:
        parser.error("--redis URL is needed (or GOMOKU_REDIS_URL)")
    return args


async def _read(url: str, timeout_s: float) -> tuple[str, int]:
    """The cluster in words, and how many of its instances are live (not silent)."""
    from server.store.redis import RedisStore  # the redis extra: only when used

    store = RedisStore(url)
    try:
        async with asyncio.timeout(timeout_s):
            cluster = await read_cluster(store)
    finally:
        # A Redis that takes connections and does not answer (stopped, hung) holds the
        # calls under way, and a store's close waits 10 s for them: 15.6 s in all for
        # one line. The command ends with the process, so it waits no longer than this.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(CLOSE_TIMEOUT_S):
                await store.close()
    now = now_ms()
    return describe(cluster, now), len(cluster.instances) - len(unheard(cluster.instances, now))


def status_main(argv: Sequence[str], started: float | None = None) -> int:
    """Print the cluster; 0, 1 when no instance is live (a script's check: an empty
    store and a dead cluster alike), or 2 (one line on stderr) when it cannot be read.
    ``started``: ``time.monotonic()`` when the command began (default: now)."""
    args = parse_status_args(argv)
    from redis.exceptions import RedisError

    from server.store.redis.lane import password_trouble

    begun = time.monotonic() if started is None else started
    timeout_s = max(MIN_READ_S, BUDGET_S - CLOSE_TIMEOUT_S - (time.monotonic() - begun))
    try:
        text, live = asyncio.run(_read(args.redis, timeout_s))
    except (StoreUnavailable, RedisError, OSError, ValueError) as error:
        if isinstance(error, TimeoutError):  # it connected (or is connecting); no answer
            reason = (
                f"it takes connections but does not answer within {timeout_s:.1f} s "
                "(is it Redis? a TLS one needs rediss://)"
            )
        elif (trouble := password_trouble(error)) is not None:
            reason = trouble
        else:
            reason = str(error) or type(error).__name__
        print(
            f"gomoku-server status: cannot reach redis at {redacted(args.redis)}: {reason}",
            file=sys.stderr,
        )
        return 2
    print(f"cluster on redis at {redacted(args.redis)}")
    sys.stdout.write(text)
    return 0 if live else 1
