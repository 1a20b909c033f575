"""``gomoku play`` and ``gomoku review``: the argument parsing of the terminal UI.

Kept free of Textual at import time (``gomoku analyze`` must not pay for it):
the apps are imported inside the ``run`` functions.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from client.connection import DEFAULT_PORT, AddressError, parse_address
from client.glyphs import GLYPH_SETS, glyphs_named
from engine.errors import RecordError
from engine.types import Rule

EXIT_OK = 0
EXIT_USAGE = 2


def add_play_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play or watch on a server from the terminal",
        description=(
            "Connect to a Gomoku Arena server and play, watch and chat. "
            "Keys: ? shows every key on every screen."
        ),
    )
    parser.add_argument(
        "server",
        nargs="?",
        default=f"localhost:{DEFAULT_PORT}",
        metavar="HOST[:PORT]",
        help=f"the server (default: localhost:{DEFAULT_PORT})",
    )
    parser.add_argument("--name", help="your display name (default: the remembered one)")
    parser.add_argument(
        "--glyphs",
        choices=sorted(GLYPH_SETS),
        default="unicode",
        help="stones as ●/○ (unicode) or X/O (ascii, for terminals that draw ● two cells wide)",
    )
    parser.add_argument(
        "--one-click", action="store_true", help="a mouse click plays at once (default: two)"
    )
    parser.add_argument(
        "--local",
        action="store_true",
        help="start a server inside this program (no network needed): hot seat or play the AI",
    )
    parser.set_defaults(run=run_play)


def run_play(args: argparse.Namespace) -> int:
    try:
        host, port = parse_address(args.server)
    except AddressError as exc:
        print(f"gomoku play: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from client.options import PlayOptions

    options = PlayOptions(
        host=host,
        port=port,
        name=args.name,
        glyphs=glyphs_named(args.glyphs),
        one_click=args.one_click,
        local=args.local,
    )
    if args.local:
        from client.local import run_local

        return run_local(options)
    from client.app import GomokuApp

    GomokuApp(options).run()
    return EXIT_OK


def add_review_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "review",
        help="step through a finished game from a record file, and export it",
        description=(
            "Review a game move by move: FILE is a .json record, a .psq (Piskvork) file "
            "or a move list (h8 i9 ...). Keys: ←/→ step, Home/End, e export, q quit."
        ),
    )
    parser.add_argument("file", type=Path, metavar="FILE")
    parser.add_argument(
        "--rule",
        choices=[r.value for r in Rule],
        default=Rule.FREESTYLE.value,
        help="the rule, for formats that do not record it (psq, move list)",
    )
    parser.add_argument(
        "--size", type=int, default=15, help="board size for a move list (default 15)"
    )
    parser.add_argument("--glyphs", choices=sorted(GLYPH_SETS), default="unicode")
    parser.set_defaults(run=run_review)


def run_review(args: argparse.Namespace) -> int:
    from client.review import load_record

    try:
        record = load_record(args.file, rule=Rule(args.rule), size=args.size)
    except OSError as exc:
        print(f"gomoku review: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return EXIT_USAGE
    except (RecordError, ValueError) as exc:
        print(f"gomoku review: {args.file}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from client.screens.review import ReviewApp

    ReviewApp(record, source=args.file, glyphs=glyphs_named(args.glyphs)).run()
    return EXIT_OK
