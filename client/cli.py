"""The ``gomoku`` command.

Each subcommand is one ``_add_<name>`` function that adds its parser and sets
``run`` to the function doing the work; :data:`SUBCOMMANDS` lists them, so a
new subcommand is a function and one line. A ``run`` function returns the exit
code: 0 for success, 2 for input the user can fix (with a message on stderr).

Options are checked as the command line is read (argparse types, most from
:mod:`client.usage`): a bad one gets the usage line and one line naming it,
exit status 2, before anything starts. A check ``run`` makes itself (a move
list against the board size) raises :class:`~client.usage.OptionError`, which
:func:`main` reports the same way.

This module stays free of the terminal UI (textual) so that it loads fast and
works on a lean install.
"""

from __future__ import annotations

import argparse
import dataclasses
import errno
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from client import __version__
from client.play_cli import add_play_parser, add_review_parser
from client.usage import OptionError
from engine.ai import SearchResult, analysis_fields, engine_info, think
from engine.ai.backend import env_problem as core_env_problem
from engine.analysis import analyze, run_through, sorted_points
from engine.board import Board
from engine.errors import NotationError, RecordError
from engine.notation import MAX_SIZE, MIN_SIZE, format_point
from engine.record import GameRecord, parse_move_list
from engine.types import Color, Reason, Rule
from gomocup.match import add_match_parser
from protocol.options import HelpFormatter, RawDescriptionHelpFormatter, count, seconds

EXIT_OK = 0
EXIT_FAILURE = 1  # the output could not be written
EXIT_USAGE = 2  # bad input: the same code argparse uses for a bad command line
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C

Subparsers = Any  # argparse's _SubParsersAction is private; its type is not worth importing
AddSubcommand = Callable[[Subparsers], None]


def _add_analyze(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "analyze",
        help="show a position: the board, whose turn, the result, forbidden points",
        description=(
            "Replay a move list or a game record and show the position: a board diagram "
            "(X black, O white, * forbidden for Black), whose turn it is and the result; or "
            "one JSON object. Ctrl-C stops the AI's thinking at once (one line, exit "
            "status 130)."
        ),
    )
    parser.add_argument(
        "--rule",
        choices=[rule.value for rule in Rule],
        help="the rule (default: freestyle; a .json record says its own)",
    )
    parser.add_argument(
        "--size",
        type=count(MIN_SIZE, MAX_SIZE),
        help=f"board size, {MIN_SIZE}..{MAX_SIZE} (default: 15; a record says its own)",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--moves",
        default="",
        help='the moves from the start, Black first: "h8 i9 j10" or "h8i9j10"',
    )
    source.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="read the moves from a game record, as gomoku review does: .json (as "
        "gomoku match --save and gomoku review --export write it), .psq, or a move list; "
        "--rule and --size apply to the formats that do not carry them",
    )
    parser.add_argument(
        "--at",
        type=count(0),
        metavar="N",
        help="the position after the first N moves (default: all of them)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--time",
        type=seconds(),
        metavar="SECONDS",
        help="let the AI think this long and add its best move, score, principal "
        "variation (pv) and win_in (own moves to a proven win, or null)",
    )
    parser.add_argument(
        "--engine-info",
        action="store_true",
        help="say which AI core runs (compiled or plain Python) and why, and exit",
    )
    parser.set_defaults(run=_run_analyze)


def _run_analyze(args: argparse.Namespace) -> int:
    if (problem := core_env_problem()) is not None:
        args.parser.error(problem)
    if args.engine_info:
        info = engine_info()
        print(json.dumps(info) if args.json else "\n".join(f"{k}: {v}" for k, v in info.items()))
        return EXIT_OK
    record = _analyzed_record(args)
    if args.at is not None:
        if args.at > len(record.moves):
            raise OptionError("--at", f"the game has {len(record.moves)} moves, not {args.at}")
        record = dataclasses.replace(record, moves=record.moves[: args.at], result=None)
    try:
        board = record.board()
    except RecordError as exc:
        raise OptionError("--record" if args.record else "--moves", str(exc)) from None
    thinks = args.time is not None and not board.is_over()
    if not args.json:
        print(describe(board), flush=True)  # before the AI thinks: the board at once
        stated = record.result
        if stated is not None and board.result is None:  # a resignation, a flag fallen...
            ended = "a draw" if stated.winner is None else f"{stated.winner} wins"
            print(f"The record says: {ended} ({stated.reason}).", flush=True)
    found = _think_until_ctrl_c(board, args.time) if thinks else None
    if thinks and found is None:
        print("gomoku analyze: stopped (Ctrl-C)", file=sys.stderr)
        return EXIT_INTERRUPTED
    if args.json:
        data = analyze(board)
        stated = record.result
        # What the text says as "The record says": a resignation, a flag fallen.
        data["recorded_result"] = (
            None
            if stated is None or board.result is not None
            else {
                "winner": None if stated.winner is None else str(stated.winner),
                "reason": str(stated.reason),
            }
        )
        if args.time is not None:
            data.update(analysis_fields(board, found))
        print(json.dumps(data))
    elif found is not None:
        win = _score_words(found.score, found.win_in)
        side = "Black" if board.turn is Color.BLACK else "White"
        best = format_point(found.best, board.size)
        print(f"AI ({args.time:g} s): {best}, score {found.score} for {side}{win}")
        print("line: " + " ".join(format_point(p, board.size) for p in found.pv))
    return EXIT_OK


def _score_words(score: int, win_in: int | None) -> str:
    """What a score near a win or a loss means, after it: a reader took "score 989999"
    (a line that only looks won, in the time given) for the proven "999989"."""
    from engine.ai.search import LIKELY_LOSS, MATE_BOUND

    if win_in is not None:
        return f", a win in {win_in} (proven)"
    if score <= -MATE_BOUND:
        return ", a loss (proven)"
    if abs(score) >= LIKELY_LOSS:
        return f", it looks {'won' if score > 0 else 'lost'} (not proven in the time)"
    return ""


def _analyzed_record(args: argparse.Namespace) -> GameRecord:
    """The record ``--record`` names, or the moves of ``--moves``; OptionError if bad.
    Notes on the reading (an option the file overrules, a record cut before a foul)
    go to stderr."""
    rule = None if args.rule is None else Rule(args.rule)
    if args.record is None:
        try:
            return parse_move_list(args.moves, size=args.size or 15, rule=rule or Rule.FREESTYLE)
        except (RecordError, NotationError) as exc:
            raise OptionError("--moves", str(exc)) from None
    from client.review import open_record  # no terminal UI

    record, _, notes = open_record(args.record, "--record", rule=rule, size=args.size)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    return record


def _think_until_ctrl_c(board: Board, time_limit: float) -> SearchResult | None:
    """The AI's master-level search on ``board`` for ``time_limit`` seconds, or None
    when Ctrl-C came first. SIGINT only sets a flag: a KeyboardInterrupt raised in the
    compiled search's clock callback would be printed as "Exception ignored" and lost.
    From then on each reading of the search's clock is a day later than the one before,
    so every deadline it holds has passed and it stops at its next look at the clock."""
    interrupted: list[int] = []
    reads = 0  # of the clock since the interruption

    def on_sigint(signum: int, frame: FrameType | None) -> None:
        interrupted.append(signum)

    def clock() -> float:
        nonlocal reads
        if not interrupted:
            return time.perf_counter()
        reads += 1
        return time.perf_counter() + 86400.0 * reads

    try:
        previous = signal.getsignal(signal.SIGINT)
        if previous == signal.SIG_IGN:  # started in the background (``&``): left so
            return think(board, level="master", time_limit=time_limit)
        signal.signal(signal.SIGINT, on_sigint)
    except ValueError:  # not the main thread: the search cannot be interrupted there
        return think(board, level="master", time_limit=time_limit)
    try:
        found = think(board, level="master", time_limit=time_limit, clock=clock)
    finally:
        signal.signal(signal.SIGINT, previous)
    return None if interrupted else found


def describe(board: Board) -> str:
    """A board diagram with a header and a footer a person can read."""
    size = board.size
    forbidden = sorted_points(board.forbidden_points(), size)
    last = board.last_move
    header = f"{board.rule}, {size}x{size}, {len(board)} move{'' if len(board) == 1 else 's'}"
    if last is not None:
        header += f", last move {format_point(last, size)} ({board.turn.other})"
    lines = [header, "", board.diagram(marks=forbidden), ""]
    result = board.result
    if result is None:
        lines.append(f"{str(board.turn).capitalize()} to move.")
        # Six in a row with "to move" under it read as a rule the engine had got wrong:
        # said, as the clients say it.
        if board.rule is Rule.STANDARD and last is not None:
            stones = {p: c for p in board.moves if (c := board[p]) is not None}
            if (made := run_through(stones, last)) > 5:
                lines.append(
                    f"{format_point(last, size)} makes {made} in a row: under the standard "
                    "rule only exactly five wins."
                )
    elif result.winner is None and result.reason == Reason.BOARD_FULL and len(board) < size**2:
        # Renju: points are left, and none of them is Black's to play (no passing here).
        lines.append(f"Draw ({result.reason}: every empty point is forbidden for Black).")
    elif result.winner is None:
        lines.append(f"Draw ({result.reason}).")
    else:
        line = " ".join(format_point(p, size) for p in result.line or ())
        lines.append(f"{str(result.winner).capitalize()} wins ({result.reason}: {line}).")
    if forbidden:
        names = ", ".join(f"{format_point(p, size)} ({board.foul(p)})" for p in forbidden)
        lines.append(f"Forbidden for Black (*): {names}")
    return "\n".join(lines)


#: The subcommands, in the order ``gomoku --help`` lists them.
SUBCOMMANDS: list[AddSubcommand] = [
    _add_analyze,
    add_match_parser,
    add_play_parser,
    add_review_parser,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gomoku",
        description="Gomoku Arena: play, watch and analyze Gomoku.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"gomoku {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(subparsers)
    for name, subparser in subparsers.choices.items():
        subparser.set_defaults(parser=subparser)  # main reports an OptionError with it
        subparser.prog = f"gomoku {name}"
        raw = subparser.formatter_class is argparse.RawDescriptionHelpFormatter
        subparser.formatter_class = RawDescriptionHelpFormatter if raw else HelpFormatter
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # said by the subcommand, with its usage line
            owner: argparse.ArgumentParser = getattr(args, "parser", parser)
            owner.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:  # argparse exits on --help and on bad arguments
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    run: Callable[[argparse.Namespace], int] | None = getattr(args, "run", None)
    if run is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        code = run(args)
        sys.stdout.flush()  # here, where a closed pipe can be told, not at the exit
        return code
    except OptionError as exc:
        subparser: argparse.ArgumentParser = args.parser
        subparser.print_usage(sys.stderr)
        print(f"{subparser.prog}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        # The reader went away (``| head -1``: nothing more to say to anyone), or the
        # disk is full (said in one line). Python would meet the error again flushing
        # stdout at exit, so stdout goes to /dev/null.
        if not isinstance(exc, BrokenPipeError):
            if exc.errno != errno.ENOSPC:
                raise
            print(f"gomoku: cannot write the output: {exc.strerror}", file=sys.stderr)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
