"""``gomoku-ai``'s command line and environment, checked before anything starts."""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from pathlib import Path

from engine.ai import LEVEL_NAMES
from engine.ai.backend import env_problem as core_env_problem
from gomocup.driver import brain_command
from protocol.options import (
    EnvOptions,
    HelpFormatter,
    count,
    display_name,
    key,
    seconds,
    websocket_url,
)
from protocol.values import LEVEL_PATTERN
from worker import __version__
from worker.config import WorkerConfig


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


USAGE = "gomoku-ai [options]   (gomoku-ai --help lists them)"
DEFAULT_SERVER = "ws://127.0.0.1:8765"


def _brain_command(text: str) -> str:
    """A Gomocup brain command whose program can run here
    (:func:`gomocup.driver.brain_command`)."""
    try:
        return brain_command(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _output_file(text: str) -> Path:
    """A file that can be written: its directory exists, and it is not a directory."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a directory")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"no directory {str(path.parent)!r} to write it in")
    return path


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line and environment, checked (the parser exits with status 2 on a
    bad value, naming the option or variable)."""
    parser = argparse.ArgumentParser(
        prog="gomoku-ai",
        usage=USAGE,
        formatter_class=HelpFormatter,
        description="Play AI seats on a Gomoku Arena server (an AI worker).",
    )
    env = EnvOptions(parser)
    parser.add_argument(
        "--server",
        type=websocket_url,
        action="append",
        help="the server's address, ws://HOST:PORT or wss://HOST:PORT (ws://127.0.0.1:8765); "
        "give it again for other instances of the same cluster, tried in turn when the one "
        "in use cannot be reached",
    )
    parser.add_argument("--seats", type=count(1), default=4, help="games played at once (4)")
    parser.add_argument(
        "--levels",
        type=_levels,
        default=list(LEVEL_NAMES),
        help=f"levels offered, comma-separated (default: {','.join(LEVEL_NAMES)})",
    )
    parser.add_argument(
        "--brain",
        type=_brain_command,
        metavar="CMD",
        help="play with this external Gomocup brain instead of the built-in engine",
    )
    parser.add_argument(
        "--brain-level",
        type=_level_name,
        metavar="NAME",
        help="the level name the brain is offered as (default: brain:<its file name>)",
    )
    env.add(
        parser,
        "--bot-key",
        "GOMOKU_BOT_KEY",
        type=key,
        default=None,
        metavar="KEY",
        help="the server's bot key (required)",
    )
    parser.add_argument(
        "--processes",
        type=count(1, 1024),
        default=None,
        help="search processes (default: one per CPU this process may run on, as taskset "
        "allows; one more answers the quick level's moves)",
    )
    parser.add_argument(
        "--move-time",
        type=seconds(0.01, 3600),
        default=2.0,
        metavar="SECONDS",
        help="most time per move, and the time per move without a clock (2)",
    )
    parser.add_argument(
        "--pace",
        type=count(0, 3_600_000),
        default=500,
        metavar="MS",
        help="in games between two AIs, the least time a move takes, so people can watch "
        "(500; 0: full speed)",
    )
    parser.add_argument("--resign", action="store_true", help="resign games proven lost")
    parser.add_argument(
        "--linger",
        type=seconds(0, 3600),
        default=20.0,
        metavar="SECONDS",
        help="how long a seat waits for a rematch after its game, while the person it "
        "played is still in the room (20)",
    )
    parser.add_argument(
        "--name", type=display_name, default="AI worker", help="the worker's display name"
    )
    parser.add_argument(
        "--stats",
        type=_output_file,
        metavar="FILE",
        help="when the worker stops, write its counters here as JSON (games, moves, think "
        "times, refusals, event-loop gaps)",
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
    args = parser.parse_args(argv)
    env.resolve(args)
    if args.bot_key is None:
        parser.error("give the server's bot key (--bot-key or GOMOKU_BOT_KEY)")
    if (problem := core_env_problem()) is not None:
        parser.error(problem)
    return args


def config_from_args(args: argparse.Namespace) -> WorkerConfig:
    return WorkerConfig(
        server=(args.server or [DEFAULT_SERVER])[0],
        also=tuple(args.server[1:]) if args.server else (),
        bot_key=args.bot_key,
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
