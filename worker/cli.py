"""``gomoku-ai``: run an AI worker against a Gomoku Arena server."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import re
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.ai import LEVEL_NAMES
from protocol.values import LEVEL_PATTERN
from worker import __version__
from worker.config import WorkerConfig
from worker.control import AiWorker, WorkerRefused

log = logging.getLogger("gomoku.worker")


def _levels(text: str) -> list[str]:
    names = [name.strip().lower() for name in text.replace(",", " ").split() if name.strip()]
    unknown = [name for name in names if name not in LEVEL_NAMES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown level {', '.join(unknown) or text!r}; choose from {', '.join(LEVEL_NAMES)}"
        )
    return names


def _level_name(text: str) -> str:
    if not re.fullmatch(LEVEL_PATTERN, text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a level name (1 to 40 of a-z 0-9 _ . : + -, e.g. brain:embryo)"
        )
    return text


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="gomoku-ai",
        description="Play AI seats on a Gomoku Arena server (an AI worker).",
    )
    parser.add_argument("--server", default="ws://127.0.0.1:8765", help="ws://HOST:PORT")
    parser.add_argument("--seats", type=int, default=4, help="games played at once (4)")
    parser.add_argument(
        "--levels",
        type=_levels,
        default=list(LEVEL_NAMES),
        help=f"levels offered, comma-separated (default: {','.join(LEVEL_NAMES)})",
    )
    parser.add_argument(
        "--brain",
        metavar="CMD",
        help="play with this external Gomocup brain instead of the built-in engine",
    )
    parser.add_argument(
        "--brain-level",
        type=_level_name,
        metavar="NAME",
        help="the level name the brain is offered as (default: brain:<its file name>)",
    )
    parser.add_argument(
        "--bot-key",
        default=None,
        help="the server's bot key (or GOMOKU_BOT_KEY)",
    )
    parser.add_argument("--processes", type=int, default=None, help="search processes (CPUs)")
    parser.add_argument(
        "--move-time",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="most time per move, and the time per move without a clock (2)",
    )
    parser.add_argument(
        "--pace",
        type=int,
        default=500,
        metavar="MS",
        help="in games between two AIs, the least time a move takes, so people can watch "
        "(500; 0: full speed)",
    )
    parser.add_argument("--resign", action="store_true", help="resign games proven lost")
    parser.add_argument(
        "--linger",
        type=float,
        default=20.0,
        metavar="SECONDS",
        help="how long a seat waits for a rematch after its game (20)",
    )
    parser.add_argument("--name", default="AI worker", help="the worker's display name")
    parser.add_argument(
        "--stats", type=Path, metavar="FILE", help="write the worker's counters here as JSON"
    )
    parser.add_argument(
        "--stop-on-eof",
        action="store_true",
        help="stop when standard input closes: gomoku-server starts its local worker so, "
        "so that it never outlives the server",
    )
    parser.add_argument(
        "--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"]
    )
    parser.add_argument("--version", action="version", version=f"gomoku-ai {__version__}")
    return parser.parse_args(argv)


def config_from_args(args: argparse.Namespace) -> WorkerConfig:
    key = args.bot_key or os.environ.get("GOMOKU_BOT_KEY", "")
    return WorkerConfig(
        server=args.server,
        bot_key=key,
        seats=args.seats,
        levels=tuple(args.levels),
        brain=args.brain,
        brain_level=args.brain_level,
        processes=args.processes,
        move_time_s=args.move_time,
        pace_ms=args.pace,
        resign=args.resign,
        linger_s=args.linger,
        name=args.name,
    )


async def stop_on_eof(worker: AiWorker) -> None:
    """Stop the worker when standard input reaches its end (the parent is gone)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while await reader.read(4096):
        pass
    log.info("standard input closed: stopping")
    await worker.stop()


async def serve(worker: AiWorker, *, eof_stops: bool = False) -> int:
    """Run the worker until SIGTERM or SIGINT (or, with ``eof_stops``, until standard
    input closes); the exit status: 0 after a signal, 2 if the server refused us.

    A stop takes a second or so whatever the worker was doing (see
    :mod:`worker.control`): running searches are cut short, not waited for."""
    loop = asyncio.get_running_loop()
    stopping: set[asyncio.Task[None]] = set()

    def on_signal() -> None:
        task = loop.create_task(worker.stop())
        stopping.add(task)  # keep a reference until it is done
        task.add_done_callback(stopping.discard)

    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, on_signal)
    watcher = asyncio.create_task(stop_on_eof(worker)) if eof_stops else None
    try:
        await worker.run()
    except WorkerRefused as error:
        print(f"gomoku-ai: {error}", file=sys.stderr)
        return 2
    finally:
        if watcher is not None:
            watcher.cancel()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(
        level=args.log_level, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr
    )
    logging.getLogger("websockets").setLevel(logging.WARNING)
    config = config_from_args(args)
    if not config.bot_key:
        print("gomoku-ai: give the server's bot key (--bot-key or GOMOKU_BOT_KEY)", file=sys.stderr)
        return 2
    if config.seats < 1:
        print("gomoku-ai: --seats must be at least 1", file=sys.stderr)
        return 2
    worker = AiWorker(config, measure_loop=args.stats is not None)
    try:
        return asyncio.run(serve(worker, eof_stops=args.stop_on_eof))
    finally:
        if args.stats is not None:
            args.stats.write_text(json.dumps(worker.stats.as_dict(), indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(main())
