"""``gomoku play`` and ``gomoku review``: the argument parsing of the terminal UI.

Kept free of Textual at import time (``gomoku analyze`` must not pay for it, and
a lean install without the ``client`` extra must still say what is missing in
one line): the apps are imported inside the ``run`` functions.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from client.address import DEFAULT_PORT, AddressError, RoomLink, ServerAddress, room_link
from client.config import ENV_DIR, check_profile
from client.glyphs import GLYPH_SETS, Glyphs, glyphs_named
from client.usage import (
    EXIT_USAGE,
    OptionError,
    checked,
    load_ui,
    locale_is_utf8,
    terminal_problem,
)
from engine.notation import MAX_SIZE, MIN_SIZE
from engine.types import Rule
from protocol.options import count
from protocol.text import name_problem

if TYPE_CHECKING:
    from client.app import GomokuApp
    from client.screens.review import ReviewApp

EXIT_OK = 0


@dataclasses.dataclass(frozen=True, slots=True)
class ServerTarget:
    """SERVER as given: the server, and the room when it is a web page's link to one."""

    address: ServerAddress
    link: RoomLink | None


def _server_address(text: str) -> ServerTarget:
    try:
        return ServerTarget(ServerAddress.parse(text), room_link(text))
    except AddressError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


_server_address.__name__ = "address"


def _check_name(name: str) -> None:
    problem = name_problem(name)
    if problem is not None:
        raise ValueError(f"{name!r} is not a name: {problem}")


PLAY_DESCRIPTION = """\
Connect to a Gomoku Arena server and play, watch and chat.

SERVER is the address the server printed, in any of these forms: host,
host:port, [::1]:8765, ws://host:port, wss://host:port/path, http://host:port/
(http means ws, https means wss). Without a port: 8765 (80 or 443 with a
scheme). A web page's link to a room (http://host:port/#/room/K7Q-2MX-8RT)
connects to its server and enters that room.

On the game screen type a point (h8) and Enter to play it, or anything else to
chat; ? lists every key.

Your name and, per server, the token that brings your seats back are kept in
identity.json in $XDG_CONFIG_HOME/gomoku-arena (~/.config/gomoku-arena), or in
$GOMOKU_CONFIG_DIR. Two people on one computer: give each a profile, which
keeps its own (gomoku play --profile ann, gomoku play --profile bob)."""


def add_play_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play or watch on a server from the terminal",
        description=PLAY_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "server",
        nargs="?",
        type=_server_address,
        metavar="SERVER",
        help=f"the server's address (default: localhost:{DEFAULT_PORT}; none with --local)",
    )
    parser.add_argument(
        "--name",
        type=checked(_check_name),
        help="your display name; without it the first screen asks, the remembered one "
        "filled in (on a server you have played on, the remembered name connects at once). "
        "Another name is another player on the server; a name played as before on this "
        "computer is that player again (its resume token is kept here: another computer "
        "makes a new player of the same name, unless identity.json is copied over)",
    )
    parser.add_argument(
        "--profile",
        type=checked(check_profile),
        metavar="NAME",
        help="keep a separate name and resume token under NAME, so several people "
        "can play from one OS account (default: the default profile)",
    )
    parser.add_argument(
        "--glyphs",
        choices=sorted(GLYPH_SETS),
        help=GLYPHS_HELP,
    )
    parser.add_argument(
        "--one-click", action="store_true", help="a mouse click plays at once (default: two)"
    )
    parser.add_argument(
        "--local",
        action="store_true",
        help="start a server of your own on this machine (no network needed): hot seat or "
        "play the AI; no SERVER is given with it",
    )
    parser.set_defaults(run=run_play)


def _config_dir_problem() -> str | None:
    """What is wrong with $GOMOKU_CONFIG_DIR, if it is set to something unusable."""
    value = os.environ.get(ENV_DIR)
    if not value:
        return None
    path = Path(value)
    if path.exists() and not path.is_dir():
        return f"{ENV_DIR}={value} is not a directory"
    return None


def _play_app() -> type[GomokuApp]:
    import platformdirs  # noqa: F401  (the client extra: said at start, not mid-way)

    from client.app import GomokuApp

    return GomokuApp


def _review_app() -> type[ReviewApp]:
    from client.screens.review import ReviewApp

    return ReviewApp


GLYPHS_HELP = (
    "stones as round discs (unicode) or as X and O with plain ASCII everywhere (ascii: "
    "the default where the locale is not UTF-8, as with LANG=C, and for terminals that "
    "draw a disc two cells wide)"
)


def _glyphs(name: str | None) -> Glyphs:
    """The glyph set asked for, else by the locale: a terminal set to ``LANG=C`` may
    show UTF-8's discs and lines as bytes of garbage, as tmux and other terminal
    programs assume."""
    return glyphs_named(name or ("unicode" if locale_is_utf8() else "ascii"))


def run_play(args: argparse.Namespace) -> int:
    if args.local and args.server is not None:
        raise OptionError(
            "--local",
            f"it starts a server of its own: connect to {args.server.address.display} without "
            "--local, or give no SERVER",
        )
    problem = _config_dir_problem()
    if problem is not None:
        print(f"gomoku play: {problem}", file=sys.stderr)
        return EXIT_USAGE
    app_class = load_ui("gomoku play", _play_app)
    if app_class is not None and not args.local:
        from client.config import identity_problem

        if (problem := identity_problem(profile=args.profile)) is not None:
            print(
                f"gomoku play: {problem}; it keeps your players' resume tokens, so it is "
                "left as it is: mend it, move it away to start as a new player, or use "
                "--profile NAME",
                file=sys.stderr,
            )
            return EXIT_USAGE
    if app_class is None:
        return EXIT_USAGE
    if (problem := terminal_problem("gomoku play")) is not None:
        print(problem, file=sys.stderr)
        return EXIT_USAGE
    from client.options import PlayOptions

    options = PlayOptions(
        server=args.server.address if args.server else ServerAddress("localhost", DEFAULT_PORT),
        link=args.server.link if args.server else None,
        name=args.name,
        profile=args.profile,
        glyphs=_glyphs(args.glyphs),
        one_click=args.one_click,
        local=args.local,
    )
    app = app_class(options)
    app.run()
    return app.return_code or EXIT_OK  # 1 after a crash (its traceback is printed)


def add_review_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "review",
        help="step through a finished game from a record file, and export it",
        description=(
            "Review a game move by move: FILE is a .json record, a .psq (Piskvork) file "
            "or a move list (h8 i9 ...). Keys: Left/Right step, Home/End, e export, q quit. "
            "With --export OUT it converts the file and opens no screen."
        ),
    )
    parser.add_argument("file", type=Path, metavar="FILE")
    parser.add_argument(
        "--rule",
        choices=[r.value for r in Rule],
        help="the rule, for formats that do not record it (psq, move list; default freestyle)",
    )
    parser.add_argument(
        "--size",
        type=count(MIN_SIZE, MAX_SIZE),
        help=f"board size for a move list, {MIN_SIZE}..{MAX_SIZE} (default 15)",
    )
    parser.add_argument("--glyphs", choices=sorted(GLYPH_SETS), help=GLYPHS_HELP)
    parser.add_argument(
        "--export",
        type=Path,
        metavar="OUT",
        help="write the game to OUT (.json, .psq, else a move list) and stop, with no screen",
    )
    parser.set_defaults(run=run_review)


def run_review(args: argparse.Namespace) -> int:
    from client.review import open_record

    rule = None if args.rule is None else Rule(args.rule)
    record, kind_read, notes = open_record(args.file, "FILE", rule=rule, size=args.size)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    if args.export is not None:
        from client.review import (
            FormatError,
            export_record,
            original_json,
            rule_assumed,
            unrecorded,
        )

        try:
            kind = export_record(record, args.export, original_json=original_json(args.file))
        except OSError as exc:
            raise OptionError("--export", f"cannot write {args.export}: {exc.strerror}") from None
        except FormatError as exc:
            raise OptionError("--export", str(exc)) from None
        print(f"{args.file} ({len(record.moves)} moves) exported as {kind} to {args.export}")
        if (lost := unrecorded(record, kind)) is not None:
            print(f"note: {lost} (.json keeps everything)")
        if (assumed := rule_assumed(args.file, kind_read, rule, args.export)) is not None:
            print(f"note: {assumed}")
        return EXIT_OK
    review_app = load_ui("gomoku review", _review_app)
    if review_app is None:
        return EXIT_USAGE
    if (problem := terminal_problem("gomoku review")) is not None:
        print(f"{problem} (--export OUT converts the record without a screen)", file=sys.stderr)
        return EXIT_USAGE
    app = review_app(record, source=args.file, glyphs=_glyphs(args.glyphs))
    app.run()
    return app.return_code or EXIT_OK
