"""``gomoku-server status --redis URL``: the cluster on a Redis, in plain text (its
instances, AI workers, AI pool queues and rooms), read once; exit 2 with one line when
Redis cannot be reached or the options are wrong."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from collections.abc import Sequence

from server.cluster import describe, read_cluster
from server.options import redacted, redis_url
from server.service import now_ms
from server.store import StoreUnavailable

TIMEOUT_S = 5.0
"""How long the whole read may take before Redis counts as unreachable."""
CLOSE_TIMEOUT_S = 0.5
"""How long closing the store may take after the read (the process ends anyway)."""


def parse_status_args(argv: Sequence[str]) -> argparse.Namespace:
    """The options; a bad one exits 2 with the usage line and one line saying what is
    wrong, as the server's own options do."""
    parser = argparse.ArgumentParser(
        prog="gomoku-server status",
        description="Print the instances, AI workers and load of the cluster on a Redis.",
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


async def _read(url: str) -> str:
    from server.store.redis import RedisStore  # the redis extra: only when used

    store = RedisStore(url)
    try:
        async with asyncio.timeout(TIMEOUT_S):
            cluster = await read_cluster(store)
    finally:
        # A Redis that takes connections and does not answer (stopped, hung) holds the
        # calls under way, and a store's close waits 10 s for them: 15.6 s in all for
        # one line. The command ends with the process, so it waits no longer than this.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(CLOSE_TIMEOUT_S):
                await store.close()
    return describe(cluster, now_ms())


def status_main(argv: Sequence[str]) -> int:
    """Print the cluster; 0, or 2 (one line on stderr) when it cannot be read."""
    args = parse_status_args(argv)
    from redis.exceptions import RedisError

    try:
        text = asyncio.run(_read(args.redis))
    except (StoreUnavailable, RedisError, OSError, TimeoutError, ValueError) as error:
        reason = str(error) or type(error).__name__
        print(
            f"gomoku-server status: cannot reach redis at {redacted(args.redis)}: {reason}",
            file=sys.stderr,
        )
        return 2
    print(f"cluster on redis at {redacted(args.redis)}")
    sys.stdout.write(text)
    return 0
