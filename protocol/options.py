"""Checks for the settings of the programs that speak the protocol (``gomoku-server``,
``gomoku-ai``): ports, WebSocket URLs, counts, durations, names and keys, given on the
command line or in an environment variable.

Each check is an ``argparse`` type: it takes the text as given and returns the value, or
raises :class:`argparse.ArgumentTypeError` with a short phrase saying what is wrong, so a
bad option ends the program with the usage line, one line naming the option, and exit
status 2, before anything starts. :class:`EnvOptions` gives environment variables the same
treatment, naming the variable. No I/O here but reading ``os.environ``.
"""

from __future__ import annotations

import argparse
import math
import os
import textwrap
import urllib.parse
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

from protocol.limits import NAME_MAX, TOKEN_MAX

T = TypeVar("T")

MAX_COUNT = 1_000_000_000
"""The largest count any setting takes (well inside the 64-bit integers of the wire)."""
MAX_SECONDS = 365 * 86_400.0
"""The longest duration any setting takes: a year."""


def port(text: str) -> int:
    """A TCP port, 0 to 65535 (0: any free port)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port (0 to 65535)")
    return value


def count(minimum: int, maximum: int = MAX_COUNT) -> Callable[[str], int]:
    """A whole number from ``minimum`` to ``maximum``."""

    def check(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        _check_range(value, minimum, maximum)
        return value

    check.__name__ = "count"  # what argparse calls the type in its own messages
    return check


def number(minimum: float, maximum: float = MAX_COUNT, *, unit: str = "") -> Callable[[str], float]:
    """A finite number from ``minimum`` to ``maximum`` (``unit`` names it in messages)."""
    what = f"a number of {unit}" if unit else "a number"

    def check(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        _check_range(value, minimum, maximum)
        return value

    check.__name__ = "number"
    return check


def _check_range(value: float, minimum: float, maximum: float) -> None:
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{value:g} is less than {minimum:g}")
    if value > maximum:
        raise argparse.ArgumentTypeError(f"{value:g} is more than {maximum:.0f}")


def seconds(minimum: float = 0.0, maximum: float = MAX_SECONDS) -> Callable[[str], float]:
    """A duration in seconds, from ``minimum`` to ``maximum`` (a year)."""
    return number(minimum, maximum, unit="seconds")


def websocket_url(text: str) -> str:
    """A ``ws://`` or ``wss://`` URL with a host (and a valid port, if it has one)."""
    try:
        parts = urllib.parse.urlsplit(text)
        given_port = parts.port
    except ValueError as exc:  # a bad port or a malformed IPv6 address
        raise argparse.ArgumentTypeError(f"{text!r} is not a valid URL: {exc}") from None
    if parts.scheme not in ("ws", "wss"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a ws:// or wss:// URL")
    if not parts.hostname:
        raise argparse.ArgumentTypeError(f"{text!r} names no host")
    if given_port == 0:
        raise argparse.ArgumentTypeError(f"{text!r}: port 0 cannot be connected to")
    return text


def display_name(text: str) -> str:
    """A display name the protocol accepts (1 to 24 characters)."""
    if not 1 <= len(text) <= NAME_MAX:
        raise argparse.ArgumentTypeError(f"{text!r} is not a name of 1 to {NAME_MAX} characters")
    return text


def key(text: str) -> str:
    """A secret a ``hello`` can carry (a bot key): 1 to 128 characters."""
    if not 1 <= len(text) <= TOKEN_MAX:
        raise argparse.ArgumentTypeError(
            f"a key must have 1 to {TOKEN_MAX} characters, not {len(text)}"
        )
    return text


class EnvOptions:
    """Options an environment variable may set when the command line does not.

    Each is added to the parser with no default; :meth:`resolve` then fills in, for each
    one not given, the variable's value (checked by the option's own type, and refused
    with the parser's usage line and one line naming the variable) or else the default.
    An empty variable counts as unset.
    """

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser
        self._options: list[tuple[str, str, Callable[[str], Any], Any]] = []
        self._lists: list[tuple[str, str, Callable[[str], Any]]] = []
        self.from_env: dict[str, str] = {}
        """Options set from the environment: dest -> the variable's name."""

    def add(
        self,
        group: argparse._ActionsContainer,
        flag: str,
        env: str,
        *,
        type: Callable[[str], T],
        default: T | None,
        help: str,
        **kwargs: Any,
    ) -> None:
        action = group.add_argument(
            flag, type=type, default=None, help=f"{help}; also {env}", **kwargs
        )
        self._options.append((action.dest, env, type, default))

    def add_list(
        self,
        group: argparse._ActionsContainer,
        flag: str,
        env: str,
        *,
        type: Callable[[str], T],
        help: str,
        **kwargs: Any,
    ) -> None:
        """A repeatable option; the variable's comma-separated items add to it."""
        action = group.add_argument(
            flag, type=type, action="append", default=[], help=f"{help}; also {env}=A,B", **kwargs
        )
        self._lists.append((action.dest, env, type))

    def resolve(self, args: argparse.Namespace) -> None:
        """Fill in what the environment says (checked) and the defaults."""
        for dest, env, convert, default in self._options:
            if getattr(args, dest) is not None:
                continue
            raw = os.environ.get(env, "")
            if raw == "":
                setattr(args, dest, default)
            else:
                setattr(args, dest, self.convert(env, raw, convert))
                self.from_env[dest] = env
        for dest, env, convert in self._lists:
            items = [item.strip() for item in os.environ.get(env, "").split(",")]
            given = [self.convert(env, item, convert) for item in items if item]
            setattr(args, dest, getattr(args, dest) + given)

    def source(self, dest: str, flag: str) -> str:
        """How to name where an option's value came from in a message."""
        env = self.from_env.get(dest)
        return flag if env is None else f"{env} (the environment)"

    def convert(self, env: str, raw: str, convert: Callable[[str], T]) -> T:
        """``convert(raw)``, or the parser's error naming the variable."""
        try:
            return convert(raw)
        except (argparse.ArgumentTypeError, ValueError) as exc:
            self.error(f"environment variable {env}: {exc}")

    def error(self, message: str) -> NoReturn:
        self.parser.error(message)


def usable_cpus() -> int:
    """The CPUs this process may run on: its affinity mask where the OS has one (as
    ``taskset`` sets it), else every CPU. The default of ``--processes`` for the server
    and for the AI worker's search pool (under ``taskset -c 0`` on a small host the pool
    started one search process per CPU of the machine, each 63 MB)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class HelpFormatter(argparse.HelpFormatter):
    """``--help`` wrapped at spaces only: argparse also breaks lines at hyphens, which
    split ``gomoku-server status``, ``--bot-seats`` and a data file's path across two
    lines, where a reader copies them from."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        text = " ".join(text.split())
        return textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in self._split_lines(text, width - len(indent)))


class RawDescriptionHelpFormatter(argparse.RawDescriptionHelpFormatter, HelpFormatter):
    """:class:`HelpFormatter` with the description and epilog kept as written."""
