"""``gomoku match``: two Gomocup brains play each other, refereed by our engine.

Each opening is played twice with colours swapped. Every move is checked with
:class:`engine.Board`: an illegal move (occupied, off the board, a renju foul),
an answer that is not a move, a crash, or an answer later than the turn time
plus a tolerance loses the game for that brain. The result is a table of wins,
losses and draws per colour, the score, and the Elo difference with its 95%
error margin.

A brain sees the opening (and later its first position) through ``BOARD``,
then each of its opponent's moves through ``TURN``.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import Board, Color, IllegalMoveError, NotationError, Point, Rule, parse_gomocup
from engine.notation import MIN_SIZE, check_size
from gomocup.driver import Brain, BrainError, BrainTimeout
from protocol.options import count

_RULE_INFO = {Rule.FREESTYLE: 0, Rule.STANDARD: 1, Rule.RENJU: 4}
Z95 = 1.959964


@dataclass(frozen=True)
class GameResult:
    """One game: which engine ("A"/"B") was Black, the winner ("A", "B" or None
    for a draw), why it ended, the moves, each engine's move times and, per move,
    the time it was allowed (the turn time, or less when its game clock had less);
    and the engine, if any, that forfeited it by failing to start."""

    opening: int
    black: str
    winner: str | None
    reason: str
    moves: list[Point]
    times: dict[str, list[float]]
    allowed: dict[str, list[float]] = field(default_factory=dict)
    unstarted: str | None = None
    """The engine whose brain could not be started for this game (it forfeited it)."""


@dataclass
class MatchResult:
    games: list[GameResult] = field(default_factory=list)
    messages: dict[str, list[str]] = field(default_factory=lambda: {"A": [], "B": []})

    def record(self, engine: str, colour: str) -> tuple[int, int, int]:
        """(wins, losses, draws) of ``engine`` when it played ``colour`` ("black"/"white"/"any")."""
        wins = losses = draws = 0
        for game in self.games:
            as_black = game.black == engine
            if (colour == "black" and not as_black) or (colour == "white" and as_black):
                continue
            if game.winner is None:
                draws += 1
            elif game.winner == engine:
                wins += 1
            else:
                losses += 1
        return wins, losses, draws

    def score(self, engine: str = "A") -> float:
        wins, losses, draws = self.record(engine, "any")
        total = wins + losses + draws
        return (wins + draws / 2) / total if total else 0.5

    def move_times(self, engine: str) -> list[float]:
        return [t for game in self.games for t in game.times.get(engine, [])]

    def max_overrun(self, engine: str) -> float:
        """The most seconds a move of ``engine`` took beyond the time it was allowed
        (negative: every move came in under its limit by at least that much)."""
        overruns = [
            t - a
            for game in self.games
            for t, a in zip(game.times.get(engine, []), game.allowed.get(engine, []), strict=False)
        ]
        return max(overruns, default=0.0)


def elo(score: float) -> float:
    """The Elo difference that predicts ``score`` (0..1); infinite at 0 and 1."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def elo_with_margin(wins: int, losses: int, draws: int) -> tuple[float, float]:
    """Elo difference and its 95% margin (normal approximation over game scores)."""
    n = wins + losses + draws
    if n == 0:
        return 0.0, math.inf
    p = (wins + draws / 2) / n
    variance = (wins * (1 - p) ** 2 + losses * p**2 + draws * (0.5 - p) ** 2) / n
    se = math.sqrt(variance / n)
    lo, hi = elo(p - Z95 * se), elo(p + Z95 * se)
    return elo(p), (hi - lo) / 2


_OFFSET_LINE = re.compile(r"-?\d{1,3}(?:\s*,\s*-?\d{1,3})*", re.ASCII)
_OFFSET_HINT = re.compile(r"-|,\s", re.ASCII)


def _offset_points(line: str, size: int) -> list[Point]:
    """``x,y, x,y, ...`` as offsets from the centre (``size // 2``), as Gomocup's own
    openings files and c-gomoku-cli write them."""
    if _OFFSET_LINE.fullmatch(line) is None or line.count(",") % 2 == 0:
        raise NotationError(f"{line!r} is not a line of offsets like 0,0, 1,-1")
    numbers = [int(n) + size // 2 for n in line.replace(",", " ").split()]
    points = [Point(x, y) for x, y in zip(numbers[::2], numbers[1::2], strict=True)]
    for point, dx, dy in zip(points, numbers[::2], numbers[1::2], strict=True):
        if not (0 <= point.x < size and 0 <= point.y < size):
            raise NotationError(
                f"offset {dx - size // 2},{dy - size // 2} is off a {size}x{size} board"
            )
    return points


def read_openings(path: Path, size: int, rule: Rule = Rule.FREESTYLE) -> list[list[Point]]:
    """Openings, one a line; ``#`` comments. Two formats, told apart by the whole file:
    absolute Gomocup points ``x,y`` separated by spaces (``7,7 8,6``), or, when a line
    has a negative number or a comma followed by a space, offsets from the centre
    ``x,y, x,y`` (``0,0, 1,-1``) as Gomocup's openings files write them.

    Each is played out under ``rule`` as it is read, so a line that could not start a game
    (a point twice, a foul for Black, a game already won) is refused here, naming its
    line, rather than crashing the match at that game. Raises :class:`NotationError`
    (bad input, the file not UTF-8 text included) or :class:`OSError`."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise NotationError(f"{path}: not a text file (UTF-8)") from None
    lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    offsets = any(_OFFSET_HINT.search(line) for line in lines)
    openings = []
    for number, moves in enumerate(lines, 1):
        if not moves:
            continue
        try:
            if offsets:
                opening = _offset_points(moves, size)
            else:
                opening = [parse_gomocup(token, size) for token in moves.split()]
            board = Board(size, rule)
            for point in opening:
                board.play(point)
            if board.is_over():
                raise NotationError("the opening ends the game: there is nothing to play")
        except (NotationError, IllegalMoveError) as error:
            raise NotationError(f"{path}:{number}: {error}") from None
        openings.append(opening)
    return openings


class Seat:
    """One engine's brain process for a run of games, restarted after a failure."""

    def __init__(self, label: str, command: str, size: int, settings: dict[str, int]) -> None:
        self.label = label
        self.command = command
        self.size = size
        self.settings = settings
        self.brain: Brain | None = None
        self.messages: list[str] = []

    async def fresh(self) -> Brain:
        """The brain, on an empty board with the match's settings."""
        if self.brain is None:
            self.brain = await Brain.popen(self.command, name=f"engine {self.label}")
            await self.brain.start(self.size)
        else:
            await self.brain.restart()
        await self.brain.info(**self.settings)
        return self.brain

    def collect(self) -> None:
        if self.brain is not None:
            self.messages.extend(self.brain.messages)
            self.brain.messages.clear()

    async def discard(self) -> None:
        if self.brain is not None:
            self.collect()
            brain, self.brain = self.brain, None
            await brain.quit(limit=0.5)


async def play_game(
    seats: dict[str, Seat],
    black: str,
    opening: list[Point],
    number: int,
    *,
    size: int,
    rule: Rule,
    turn_ms: int,
    tolerance_ms: int,
    match_ms: int = 0,
) -> GameResult:
    """One refereed game; ``black`` names the seat ("A"/"B") that plays Black. With
    ``match_ms`` each side also has a game clock of that many milliseconds: the brain
    is told its ``time_left`` before every move, and loses when it runs out."""
    white = "B" if black == "A" else "A"
    label = {Color.BLACK: black, Color.WHITE: white}
    board = Board(size, rule)
    times: dict[str, list[float]] = {"A": [], "B": []}
    allowed: dict[str, list[float]] = {"A": [], "B": []}
    left = {"A": float(match_ms), "B": float(match_ms)}
    for point in opening:
        board.play(point)
    brains: dict[str, Brain] = {}
    for name in (black, white):
        try:
            brains[name] = await seats[name].fresh()
        except BrainError as error:
            await seats[name].discard()
            other = white if name == black else black
            reason = f"{name} failed to start: {error}"
            return GameResult(number, black, other, reason, [], times, unstarted=name)
    seen = {"A": False, "B": False}
    while not board.is_over():
        mover = label[board.turn]
        brain = brains[mover]
        limit_ms = min(turn_ms, left[mover]) if match_ms else turn_ms
        timeout = (limit_ms + tolerance_ms) / 1000
        try:
            if match_ms:
                await brain.info(time_left=int(left[mover]))
            if seen[mover]:
                point = await brain.turn(board.last_move or Point(0, 0), limit=timeout)
            elif len(board) == 0:
                point = await brain.begin(limit=timeout)
            else:
                stones = [
                    (p, 1 if (n % 2 == 0) == (board.turn is Color.BLACK) else 2)
                    for n, p in enumerate(board.moves)
                ]
                point = await brain.board(stones, limit=timeout)
            seen[mover] = True
            times[mover].append(brain.last_elapsed)
            allowed[mover].append(limit_ms / 1000)
            if match_ms:
                left[mover] -= brain.last_elapsed * 1000
                if left[mover] < -tolerance_ms:
                    return _loss(number, black, mover, "out of time", board, times, allowed)
            board.play(point)
        except BrainTimeout as error:
            await seats[mover].discard()
            return _loss(number, black, mover, f"timeout: {error}", board, times, allowed)
        except BrainError as error:
            await seats[mover].discard()
            return _loss(number, black, mover, f"crash: {error}", board, times, allowed)
        except IllegalMoveError as error:
            return _loss(number, black, mover, f"illegal move: {error}", board, times, allowed)
    result = board.result
    assert result is not None
    winner = None if result.winner is None else label[result.winner]
    return GameResult(number, black, winner, str(result.reason), board.moves, times, allowed)


def _loss(
    number: int,
    black: str,
    loser: str,
    reason: str,
    board: Board,
    times: dict[str, list[float]],
    allowed: dict[str, list[float]],
) -> GameResult:
    winner = "B" if loser == "A" else "A"
    return GameResult(number, black, winner, f"{loser} {reason}", board.moves, times, allowed)


async def run_match(
    engine_a: str,
    engine_b: str,
    openings: list[list[Point]],
    *,
    games: int,
    rule: Rule = Rule.FREESTYLE,
    size: int = 15,
    turn_ms: int = 1000,
    tolerance_ms: int = 1000,
    match_ms: int = 0,
    jobs: int = 1,
    on_game: Callable[[GameResult], None] | None = None,
) -> MatchResult:
    """Play ``games`` games: opening ``k // 2`` (cycling) with A as Black when ``k`` is even.
    ``match_ms`` > 0 gives each side a game clock of that length (``timeout_match``).

    A brain that fails to start (it cannot be run, exits, or does not answer START or
    RESTART with OK) forfeits that game, and no further game begins: the brain is
    broken, not beaten, and every later game would be forfeited the same way. (One
    that crashes, times out or plays an illegal move during a game loses that game,
    and the match goes on with a fresh process.)"""
    if not openings:
        openings = [[]]
    settings = {"timeout_turn": turn_ms, "timeout_match": match_ms, "rule": _RULE_INFO[rule]}
    queue: asyncio.Queue[int] = asyncio.Queue()
    for k in range(games):
        queue.put_nowait(k)
    result = MatchResult()

    async def worker() -> None:
        seats = {
            "A": Seat("A", engine_a, size, settings),
            "B": Seat("B", engine_b, size, settings),
        }
        try:
            while not queue.empty() and not any(g.unstarted for g in result.games):
                k = queue.get_nowait()
                index = (k // 2) % len(openings)
                game = await play_game(
                    seats,
                    "A" if k % 2 == 0 else "B",
                    openings[index],
                    index,
                    size=size,
                    rule=rule,
                    turn_ms=turn_ms,
                    tolerance_ms=tolerance_ms,
                    match_ms=match_ms,
                )
                result.games.append(game)
                for seat in seats.values():
                    seat.collect()
                if on_game is not None:
                    on_game(game)
        finally:
            for name, seat in seats.items():
                await seat.discard()
                result.messages[name].extend(seat.messages)

    await asyncio.gather(*(worker() for _ in range(max(1, jobs))))
    return result


def format_table(result: MatchResult, engine_a: str, engine_b: str) -> str:
    """The results table: A's wins, losses and draws per colour, its score, the Elo
    difference, and each engine's move times."""
    lines = [f"A: {engine_a}", f"B: {engine_b}", ""]
    lines.append(f"{'':12}{'wins':>6}{'losses':>8}{'draws':>7}{'score':>9}")
    for colour in ("black", "white", "any"):
        wins, losses, draws = result.record("A", colour)
        n = wins + losses + draws
        score = f"{100 * (wins + draws / 2) / n:.1f}%" if n else "-"
        title = "A total" if colour == "any" else f"A as {colour}"
        lines.append(f"{title:12}{wins:>6}{losses:>8}{draws:>7}{score:>9}")
    lines.append("")
    lines.append(f"Elo difference (A - B): {elo_line(*result.record('A', 'any'))}")
    for name in ("A", "B"):
        times = result.move_times(name)
        if times:
            overrun = round(1000 * result.max_overrun(name))
            lines.append(
                f"{name} time per move: average {sum(times) / len(times):.3f} s,"
                f" max {max(times):.3f} s over {len(times)} moves, "
                + (
                    f"largest overrun {overrun} ms"
                    if overrun > 0
                    else f"none over its time ({-overrun} ms to spare at the closest)"
                )
            )
    for number, game in enumerate(result.games, 1):  # numbered as the progress lines
        if game.reason.startswith(("A ", "B ")):
            lines.append(f"game {number} (opening {game.opening}): {game.reason}")
    return "\n".join(lines)


def elo_line(wins: int, losses: int, draws: int) -> str:
    """The Elo difference as a person reads it: with its 95% margin, or why there is
    none (a side that won every game is stronger by an unknown amount; a margin that
    runs to a 0% or 100% score is no bound)."""
    if wins + draws == 0:
        return "none: A lost every game"
    if losses + draws == 0:
        return "none: A won every game"
    diff, margin = elo_with_margin(wins, losses, draws)
    if math.isinf(margin) or math.isnan(margin):
        return f"{round(diff) or 0:+d} (too few games for a 95% margin)"
    return f"{round(diff) or 0:+d} +/- {margin:.0f} (95%)"


def add_match_parser(subparsers: Any) -> None:
    """Add the ``match`` subcommand (calling :func:`run`) to a CLI's subparsers."""
    parser = subparsers.add_parser(
        "match",
        help="play two Gomocup brains against each other",
        description="Play two Gomocup (pbrain) brains against each other, each opening "
        "twice with colours swapped, refereed by the engine. A brain that fails to start "
        "stops the match (exit status 1); one that crashes, times out or plays an illegal "
        "move during a game loses that game.",
    )
    configure_parser(parser)


def _board_size(text: str) -> int:
    try:
        return check_size(count(MIN_SIZE)(text))
    except NotationError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _command(text: str) -> str:
    """A brain's command line, split as the match will split it (shell quoting). A
    program named by a path (``/opt/brains/pbrain-x``, ``./pbrain-x``) must be an
    executable file there; a bare name is looked up on PATH, then beside this Python
    (the programs installed with this one, such as ``pbrain-gomoku``, where the
    environment is not activated)."""
    try:
        words = shlex.split(text)
    except ValueError as error:  # "No closing quotation"
        raise argparse.ArgumentTypeError(f"{text!r}: {str(error).lower()}") from None
    if not words:
        raise argparse.ArgumentTypeError("an empty command")
    program = words[0]
    if shutil.which(program) is not None:
        return text
    if os.sep in program or (os.altsep is not None and os.altsep in program):
        path = Path(program)
        if not path.exists():
            why = "no such command"
        elif path.is_dir():
            why = "a directory, not a program"
        else:
            why = "not an executable file"
        raise argparse.ArgumentTypeError(f"{program!r}: {why}")
    beside = Path(sys.executable).with_name(program)  # pbrain-gomoku in a venv not activated
    if shutil.which(beside) is not None:
        return shlex.join([str(beside), *words[1:]])
    raise argparse.ArgumentTypeError(f"{program!r}: no such command")  # not a lost match


def configure_parser(parser: argparse.ArgumentParser) -> None:
    """The options of a match; each is checked as it is read (one line and the usage
    for a bad one, exit status 2)."""
    parser.add_argument(
        "--engine-a", required=True, type=_command, help="command that runs brain A"
    )
    parser.add_argument(
        "--engine-b", required=True, type=_command, help="command that runs brain B"
    )
    parser.add_argument(
        "--openings",
        type=Path,
        help="openings file, one a line: Gomocup points (7,7 8,6) or, as Gomocup's own "
        "files, offsets from the centre (0,0, 1,-1)",
    )
    parser.add_argument("--games", type=count(1), default=2, help="number of games (default 2)")
    parser.add_argument("--rule", choices=[r.value for r in Rule], default=Rule.FREESTYLE.value)
    parser.add_argument("--size", type=_board_size, default=15, help="board size, 5..26")
    parser.add_argument("--turn-ms", type=count(1), default=1000, help="time per move (ms)")
    parser.add_argument(
        "--tolerance-ms",
        type=count(0),
        default=1000,
        help="lateness allowed beyond --turn-ms",
    )
    parser.add_argument(
        "--match-ms", type=count(0), default=0, help="each side's game clock (ms; default: none)"
    )
    parser.add_argument("--jobs", type=count(1), default=1, help="games played at once")
    parser.add_argument("--quiet", action="store_true", help="no line per game")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run a match from parsed arguments and print the table; 0 when every game was
    played, 1 when a brain failed to start (the match stops there), 2 for bad input."""
    try:
        openings = (
            read_openings(args.openings, args.size, Rule(args.rule)) if args.openings else [[]]
        )
    except OSError as error:
        print(f"gomoku match: cannot read {args.openings}: {error.strerror}", file=sys.stderr)
        return 2
    except NotationError as error:
        print(f"gomoku match: {error}", file=sys.stderr)
        return 2

    def progress(game: GameResult) -> None:
        if not args.quiet:
            winner = game.winner or "draw"
            colour = "black" if game.black == "A" else "white"
            print(
                f"game {len(result_games) + 1}: opening {game.opening}, A {colour},"
                f" winner {winner} ({game.reason}, {len(game.moves)} moves)",
                flush=True,
            )
        result_games.append(game)

    result_games: list[GameResult] = []
    result = asyncio.run(
        run_match(
            args.engine_a,
            args.engine_b,
            openings,
            games=args.games,
            rule=Rule(args.rule),
            size=args.size,
            turn_ms=args.turn_ms,
            tolerance_ms=args.tolerance_ms,
            match_ms=args.match_ms,
            jobs=args.jobs,
            on_game=progress,
        )
    )
    print(format_table(result, args.engine_a, args.engine_b))
    unstarted = next((game for game in result.games if game.unstarted), None)
    if unstarted is not None:
        print(
            f"gomoku match: the match stopped after {len(result.games)} of {args.games} "
            f"games: {unstarted.reason}",
            file=sys.stderr,
        )
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gomoku match")
    configure_parser(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
