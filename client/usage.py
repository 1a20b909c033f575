"""Checks of the ``gomoku`` commands' options, done while the command line is read.

The numbers, ports and durations are checked by :mod:`protocol.options` (the
server's and the worker's checks too); :func:`checked` makes an argparse
``type`` of any rule that raises ValueError (a profile name, a display name).
A bad option gets the usage line and one line naming it (``gomoku play: error:
argument --profile: 'a b' is not a profile name ...``), exit status 2, before
anything starts.
:class:`OptionError` is the same for a check that needs more than one option
(a move list and the board size it is played on): ``run`` raises it and
:func:`client.cli.main` reports it in the same form.

A missing optional dependency (the terminal UI's ``textual``) is reported by
:func:`missing_ui` as one line with the install command.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping
from typing import TypeVar

T = TypeVar("T")

EXIT_USAGE = 2
INSTALL_CLIENT = "pip install 'gomoku-arena[client]' (in a checkout: pip install -e '.[client]')"
UI_MODULES = frozenset({"textual", "rich", "platformdirs"})
"""What the terminal UI needs beyond the base install (the ``client`` extra)."""


class OptionError(ValueError):
    """``option`` is wrong in a way only ``run`` can tell; the message says how."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option

    def __str__(self) -> str:
        return f"argument {self.option}: {self.args[0]}"


def checked(check: Callable[[str], object]) -> Callable[[str], str]:
    """An argparse type from a check that raises ValueError with a reason."""

    def parse(text: str) -> str:
        try:
            check(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return text

    parse.__name__ = getattr(check, "__name__", "value")
    return parse


def load_ui(prog: str, load: Callable[[], T]) -> T | None:
    """``load()`` (the imports of the terminal UI), or None after saying in one line on
    stderr what is missing and how to install it, when the ``client`` extra is not."""
    try:
        return load()
    except ModuleNotFoundError as exc:
        line = missing_ui(exc, prog)
        if line is None:
            raise
        print(line, file=sys.stderr)
        return None


def missing_ui(exc: ModuleNotFoundError, prog: str) -> str | None:
    """The one line to print when the terminal UI cannot be imported because the
    ``client`` extra is not installed; None when ``exc`` is about something else."""
    root = (exc.name or "").split(".")[0]
    if root not in UI_MODULES:
        return None
    return f"{prog}: the terminal UI needs {root}, which is not installed: {INSTALL_CLIENT}"


def terminal_problem(prog: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The one line to print when this is no terminal a full-screen program can draw
    on: ``TERM=dumb`` (Emacs' shell, a serial console) or unset, or an input or output
    that is no terminal (a pipe, a file). None when it is one. (Textual drew its screen
    there anyway, 24-bit colours and mouse tracking included, into a file too.)"""
    env = os.environ if environ is None else environ
    term = env.get("TERM", "")
    if os.name != "nt" and term in ("", "dumb"):
        return (
            f"{prog}: this terminal (TERM={term or 'unset'}) cannot draw the screen: run it "
            "in a terminal such as xterm, or under tmux or screen"
        )
    for name, stream in (("output", sys.stdout), ("input", sys.stdin)):
        if stream is None or not stream.isatty():
            return f"{prog}: the screen needs a terminal, and its {name} is not one"
    return None


PEP_538_CTYPES = frozenset({"C.UTF-8", "C.utf8", "UTF-8"})
"""What Python sets ``LC_CTYPE`` to when it coerces a C or POSIX locale."""


def locale_is_utf8(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the locale the user set (``LC_ALL``, else ``LC_CTYPE``, else ``LANG``)
    says UTF-8, as terminal programs read it to choose their line drawing. ``C`` and
    ``POSIX`` do not (Python reads them as UTF-8, PEP 538, but the terminal may not);
    nothing set at all is taken as UTF-8, as most terminals are."""
    env = os.environ if environ is None else environ
    value = env.get("LC_ALL") or env.get("LC_CTYPE") or env.get("LANG")
    if not env.get("LC_ALL") and env.get("LC_CTYPE") in PEP_538_CTYPES:
        # Python itself put LC_CTYPE=C.UTF-8 in the environment at start-up, for a C or
        # POSIX locale (PEP 538): LANG is what the user set (LANG=C drew discs).
        value = env.get("LANG")
    if not value:
        return True
    codeset = value.partition(".")[2].partition("@")[0].lower().replace("-", "")
    return codeset == "utf8"
