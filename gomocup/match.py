"""``gomoku match``: two Gomocup brains play each other, refereed by our engine.

Each opening is played twice with colours swapped. Every move is checked with
:class:`engine.Board`: an illegal move (occupied, off the board, a renju foul),
an answer that is not a move, a crash, an answer later than the turn time
plus a tolerance, or a game clock run out loses the game for that brain. The result
is a table of wins, losses and draws per colour, the score, and the Elo difference
with its 95% error margin. Games can be saved as JSON records (``--save``), and the
brains' MESSAGE lines shown as they come (``--messages``). SIGINT (Ctrl-C) or SIGTERM
stops the match: every brain is killed and the table of the games finished is printed.

A brain sees the opening (and later its first position) through ``BOARD``,
then each of its opponent's moves through ``TURN``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime
import math
import re
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import Board, Color, IllegalMoveError, NotationError, Point, Rule, parse_gomocup
from engine.notation import MIN_SIZE, check_size, in_gomocup_words
from engine.record import GameRecord, Players, TimedMove, format_json
from engine.types import Reason, Result
from gomocup.driver import Brain, BrainBadAnswer, BrainError, BrainTimeout, brain_command
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
    """The opening's index in the list (0-based; people are shown it counted from 1)."""
    black: str
    winner: str | None
    reason: str
    moves: list[Point]
    times: dict[str, list[float]]
    allowed: dict[str, list[float]] = field(default_factory=dict)
    unstarted: str | None = None
    """The engine whose brain could not be started for this game (it forfeited it)."""
    game: int = 0
    """The game's number in the match, from 1 (the order games start in)."""
    loss: str | None = None
    """How the loser lost, when not on the board: "timeout", "out of time", "bad
    answer", "crash", "illegal move" or "failed to start"."""
    stamps: list[int | None] = field(default_factory=list)
    """Per move of ``moves``, milliseconds since the game began (None for the opening's)."""
    started_at: str | None = None
    """When the game began (ISO 8601, UTC)."""


@dataclass
class MatchResult:
    games: list[GameResult] = field(default_factory=list)
    messages: dict[str, list[str]] = field(default_factory=lambda: {"A": [], "B": []})
    stopped: bool = False
    """The match was stopped (``stop``) before every game was played."""

    def record(self, engine: str, colour: str) -> tuple[int, int, int]:
        """(wins, losses, draws) of ``engine`` when it played ``colour`` ("black"/"white"/"any"),
        leaving out a game forfeited by a brain that did not start (broken, not beaten)."""
        wins = losses = draws = 0
        for game in self.games:
            if game.unstarted:
                continue
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
    """The openings of :func:`read_numbered_openings`, without their line numbers."""
    return [opening for _, opening in read_numbered_openings(path, size, rule)]


def read_numbered_openings(
    path: Path, size: int, rule: Rule = Rule.FREESTYLE
) -> list[tuple[int, list[Point]]]:
    """Openings with the number of the file line each is on. One a line; ``#``
    comments. Two formats, told apart by the whole file:
    absolute Gomocup points ``x,y`` separated by spaces (``7,7 8,6``), or, when a line
    has a negative number or a comma followed by a space, offsets from the centre
    ``x,y, x,y`` (``0,0, 1,-1``) as Gomocup's openings files write them.

    Each is played out under ``rule`` as it is read, so a line that could not start a game
    (a point twice, a foul for Black, a game already won) is refused here, naming its
    line and the opening's number, counted from 1 as the match counts them (blank and
    comment lines are not openings), rather than crashing the match at that game. A
    file with no opening at all is refused. Raises :class:`NotationError` (bad input,
    the file not UTF-8 text included) or :class:`OSError`."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise NotationError(f"{path}: not a text file (UTF-8)") from None
    lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    offsets = any(_OFFSET_HINT.search(line) for line in lines)
    openings: list[tuple[int, list[Point]]] = []
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
            raise NotationError(f"{path}:{number}: opening {len(openings) + 1}: {error}") from None
        openings.append((number, opening))
    if not openings:
        raise NotationError(f"{path}: no openings in the file")
    return openings


class Seat:
    """One engine's brain process for a run of games, restarted after a failure. A
    brain that does not answer ``RESTART`` with ``OK`` (``UNKNOWN``, ``ERROR``, nothing)
    is ended and a fresh process started instead, then and for every later game."""

    def __init__(
        self,
        label: str,
        command: str,
        size: int,
        settings: dict[str, int],
        on_message: Callable[[str, int, str], None] | None = None,
    ) -> None:
        self.label = label
        self.command = command
        self.size = size
        self.settings = settings
        self.brain: Brain | None = None
        self.messages: list[str] = []
        self.on_message = on_message
        """Called with the engine's label, the game's number and each MESSAGE line."""
        self.game = 0
        self.restarts = True  # until RESTART fails once

    async def fresh(self, game: int = 0) -> Brain:
        """The brain, ready for game number ``game``: the running one told ``RESTART``,
        or a new process told ``START``. Raises BrainError when it cannot be started."""
        self.game = game
        if self.brain is not None and self.restarts:
            try:
                await self.brain.restart()
                await self.brain.info(**self.settings)
                return self.brain
            except BrainError:
                self.restarts = False
        await self.discard()
        self.brain = await Brain.popen(self.command, name=f"engine {self.label}")
        if self.on_message is not None:
            self.brain.on_message = self._message
        await self.brain.start(self.size)
        await self.brain.info(**self.settings)
        return self.brain

    def _message(self, line: str) -> None:
        if self.on_message is not None:
            self.on_message(self.label, self.game, line)

    def collect(self) -> None:
        if self.brain is not None:
            self.messages.extend(self.brain.messages)
            self.brain.messages.clear()

    async def discard(self, limit: float = 0.5) -> None:
        """End the brain: END, ``limit`` seconds to exit, then killed."""
        if self.brain is not None:
            self.collect()
            brain, self.brain = self.brain, None
            await brain.quit(limit=limit)


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
    game: int = 0,
) -> GameResult:
    """One refereed game (number ``game`` of the match, opening index ``number``);
    ``black`` names the seat ("A"/"B") that plays Black.

    A move may take ``turn_ms`` plus ``tolerance_ms``. With ``match_ms`` each side also
    has a game clock of that many milliseconds, which every move's time comes off in
    full: the brain is told its ``time_left`` (never below 0) before every move, and it
    loses "out of time" when its moves take more than the clock, the tolerance not
    counted (it is slack on each move's limit, not game time beyond a spent clock)."""
    white = "B" if black == "A" else "A"
    label = {Color.BLACK: black, Color.WHITE: white}
    board = Board(size, rule)
    times: dict[str, list[float]] = {"A": [], "B": []}
    allowed: dict[str, list[float]] = {"A": [], "B": []}
    left = {"A": float(match_ms), "B": float(match_ms)}
    stamps: list[int | None] = []
    started_at = datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")
    started_at = started_at.replace("+00:00", "Z")
    for point in opening:
        board.play(point)
        stamps.append(None)

    def loss(loser: str, kind: str, why: str) -> GameResult:
        winner = "B" if loser == "A" else "A"
        reason = f"{loser} {kind}: {why}"
        return GameResult(
            number,
            black,
            winner,
            reason,
            board.moves,
            times,
            allowed,
            game=game,
            loss=kind,
            stamps=stamps,
            started_at=started_at,
        )

    brains: dict[str, Brain] = {}
    for name in (black, white):
        try:
            brains[name] = await seats[name].fresh(game)
        except BrainError as error:
            await seats[name].discard()
            forfeit = loss(name, "failed to start", str(error))  # before any stone
            return dataclasses.replace(forfeit, moves=[], stamps=[], unstarted=name)
    seen = {"A": False, "B": False}
    begun = time.monotonic()
    while not board.is_over():
        mover = label[board.turn]
        brain = brains[mover]
        wait_ms: float = turn_ms + tolerance_ms
        limit_ms: float = turn_ms
        on_clock = False  # whether the game clock, not the turn, sets the wait
        if match_ms:
            limit_ms = min(turn_ms, left[mover])
            on_clock = left[mover] < wait_ms
            wait_ms = min(wait_ms, left[mover])
        its_move = len(times[mover]) + 1
        try:
            if match_ms:
                await brain.info(time_left=max(0, int(left[mover])))
            if seen[mover]:
                point = await brain.turn(board.last_move or Point(0, 0), limit=wait_ms / 1000)
            elif len(board) == 0:
                point = await brain.begin(limit=wait_ms / 1000)
            else:
                stones = [
                    (p, 1 if (n % 2 == 0) == (board.turn is Color.BLACK) else 2)
                    for n, p in enumerate(board.moves)
                ]
                point = await brain.board(stones, limit=wait_ms / 1000)
            seen[mover] = True
            times[mover].append(brain.last_elapsed)
            allowed[mover].append(limit_ms / 1000)
            if match_ms:
                left[mover] -= brain.last_elapsed * 1000
                if left[mover] < 0:  # not a move in time: the table counts it apart
                    del times[mover][-1], allowed[mover][-1]
                    return loss(mover, "out of time", _clock_out(match_ms, its_move))
            board.play(point)
            stamps.append(round(1000 * (time.monotonic() - begun)))
        except BrainTimeout as error:
            await seats[mover].discard()
            if on_clock:
                return loss(mover, "out of time", _clock_out(match_ms, its_move))
            return loss(mover, "timeout", str(error))
        except BrainBadAnswer as error:
            await seats[mover].discard()
            return loss(mover, "bad answer", str(error))
        except BrainError as error:
            await seats[mover].discard()
            return loss(mover, "crash", str(error))
        except IllegalMoveError as error:  # named as the brain named it: 7,6 is occupied
            return loss(mover, "illegal move", in_gomocup_words(error, board.size))
    result = board.result
    assert result is not None
    winner = None if result.winner is None else label[result.winner]
    return GameResult(
        number,
        black,
        winner,
        str(result.reason),
        board.moves,
        times,
        allowed,
        game=game,
        stamps=stamps,
        started_at=started_at,
    )


def _clock_out(match_ms: int, move: int) -> str:
    """Why a brain lost on its game clock (made only when it does)."""
    return f"its game clock of {match_ms / 1000:.2f} s ran out on its move {move}"


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
    on_message: Callable[[str, int, str], None] | None = None,
    stop: asyncio.Event | None = None,
) -> MatchResult:
    """Play ``games`` games: opening ``k // 2`` (cycling) with A as Black when ``k`` is even.
    ``match_ms`` > 0 gives each side a game clock of that length (``timeout_match``).
    ``on_message`` is called with the engine ("A"/"B"), the game's number and each
    MESSAGE/DEBUG/SUGGEST line a brain sends, as it comes.

    A brain that fails to start (it cannot be run, exits, or does not answer START
    with OK) forfeits that game, and no further game begins: the brain is broken, not
    beaten, and every later game would be forfeited the same way. (One that crashes,
    times out or plays an illegal move during a game loses that game, and the match
    goes on with a fresh process; one that does not answer RESTART with OK gets a
    fresh process for each game.)

    When ``stop`` is set, the games in progress are abandoned (not counted), every
    brain is killed, and the result holds the games finished, with ``stopped`` set."""
    if not openings:
        openings = [[]]
    stop = stop or asyncio.Event()
    settings = {
        "timeout_turn": turn_ms,
        "timeout_match": match_ms,
        "max_memory": 0,  # no limit, as Gomocup says it
        "game_type": 1,  # brain against brain
        "rule": _RULE_INFO[rule],
    }
    queue: asyncio.Queue[int] = asyncio.Queue()
    for k in range(games):
        queue.put_nowait(k)
    result = MatchResult()

    async def worker() -> None:
        seats = {
            "A": Seat("A", engine_a, size, settings, on_message),
            "B": Seat("B", engine_b, size, settings, on_message),
        }
        try:
            while not queue.empty() and not any(g.unstarted for g in result.games):
                if stop.is_set():
                    result.stopped = True
                    break
                k = queue.get_nowait()
                index = (k // 2) % len(openings)
                play = asyncio.ensure_future(
                    play_game(
                        seats,
                        "A" if k % 2 == 0 else "B",
                        openings[index],
                        index,
                        size=size,
                        rule=rule,
                        turn_ms=turn_ms,
                        tolerance_ms=tolerance_ms,
                        match_ms=match_ms,
                        game=k + 1,
                    )
                )
                stopper = asyncio.ensure_future(stop.wait())
                try:
                    await asyncio.wait({play, stopper}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    stopper.cancel()
                    if not play.done():
                        play.cancel()
                        await asyncio.wait({play})
                if play.cancelled():
                    result.stopped = True
                    break
                game = play.result()
                result.games.append(game)
                for seat in seats.values():
                    seat.collect()
                if on_game is not None:
                    on_game(game)
        finally:
            for name, seat in seats.items():
                await seat.discard(0.2 if stop.is_set() else 0.5)
                result.messages[name].extend(seat.messages)

    await asyncio.gather(*(worker() for _ in range(max(1, jobs))))
    return result


def game_record(game: GameResult, rule: Rule, size: int, engines: dict[str, str]) -> GameRecord:
    """The game as a record (:mod:`engine.record`), for ``gomoku review`` and ``gomoku
    analyze``: the players are the engines ("A: command"); a game lost on time is a
    ``timeout``, one lost otherwise off the board (a crash, a bad answer, an illegal
    move, a failure to start) an ``abandon``."""
    board = Board(size, rule)
    for point in game.moves:
        board.play(point)
    winner = Color.BLACK if game.winner == game.black else Color.WHITE
    result = None
    if game.loss is not None:
        why = Reason.TIMEOUT if game.loss in ("timeout", "out of time") else Reason.ABANDON
        result = Result(winner, why)
    white = "B" if game.black == "A" else "A"
    stamps = game.stamps if len(game.stamps) == len(game.moves) else [None] * len(game.moves)
    return GameRecord(
        rule=rule,
        size=size,
        players=Players(f"{game.black}: {engines[game.black]}", f"{white}: {engines[white]}"),
        moves=tuple(TimedMove(p, t) for p, t in zip(game.moves, stamps, strict=True)),
        result=board.result if board.result is not None else result,
        started_at=game.started_at,
    ).checked()


def opening_name(game: GameResult, lines: Sequence[int] | None = None) -> str:
    """The game's opening as people are shown it: ``opening 2 (line 5)`` (counted
    from 1, and its line in the openings file when ``lines`` gives them), or ``empty
    board`` when there are no openings (``lines`` empty)."""
    if lines is None:
        return f"opening {game.opening + 1}"
    if not lines:
        return "empty board"
    return f"opening {game.opening + 1} (line {lines[game.opening]})"


def format_table(
    result: MatchResult, engine_a: str, engine_b: str, *, lines: Sequence[int] | None = None
) -> str:
    """The results table: A's wins, losses and draws per colour, its score, the Elo
    difference, each engine's move times, and the games lost off the board. ``lines``:
    the openings' line numbers in their file, as :func:`opening_name` takes them."""
    table = [f"A: {engine_a}", f"B: {engine_b}", ""]
    table.append(f"{'':12}{'wins':>6}{'losses':>8}{'draws':>7}{'score':>9}")
    for colour in ("black", "white", "any"):
        wins, losses, draws = result.record("A", colour)
        n = wins + losses + draws
        score = f"{100 * (wins + draws / 2) / n:.1f}%" if n else "-"
        title = "A total" if colour == "any" else f"A as {colour}"
        table.append(f"{title:12}{wins:>6}{losses:>8}{draws:>7}{score:>9}")
    table.append("")
    table.append(f"Elo difference (A - B): {elo_line(*result.record('A', 'any'))}")
    for name in ("A", "B"):
        times = result.move_times(name)
        late = sum(
            1
            for game in result.games
            if game.loss in ("timeout", "out of time") and game.winner not in (name, None)
        )
        if times:
            overrun = round(1000 * result.max_overrun(name))
            table.append(
                f"{name} time per move: average {sum(times) / len(times):.3f} s,"
                f" max {max(times):.3f} s over {len(times)} moves answered in time, "
                + (
                    f"largest overrun {overrun} ms"
                    if overrun > 0
                    else f"none over its time ({-overrun} ms to spare at the closest)"
                )
                + (
                    f"; {late} more not answered in time lost {_counted(late, 'game')}"
                    if late
                    else ""
                )
            )
        elif late:
            table.append(
                f"{name} time per move: no move answered in time ({_counted(late, 'game')} lost)"
            )
    for number, game in enumerate(result.games, 1):
        if game.reason.startswith(("A ", "B ")):  # numbered as the progress lines
            where = opening_name(game, lines)
            uncounted = " (not counted)" if game.unstarted else ""
            table.append(f"game {game.game or number} ({where}): {game.reason}{uncounted}")
    return "\n".join(table)


def _counted(count: int, noun: str) -> str:
    """``1 move``, ``2 moves``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def elo_line(wins: int, losses: int, draws: int) -> str:
    """The Elo difference as a person reads it: with its 95% margin, or why there is
    none (a side that won every game is stronger by an unknown amount; a margin that
    runs to a 0% or 100% score is no bound)."""
    if wins + losses + draws == 0:
        return "none: no game was played"
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
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    configure_parser(parser)


DESCRIPTION = """\
Play two Gomocup (pbrain) brains against each other, each opening twice with
colours swapped, refereed by the engine. A brain that fails to start (it cannot
run, exits, or does not answer START with OK) stops the match (exit status 1);
one that crashes, gives a bad answer, times out, runs out of its game clock or
plays an illegal move during a game loses that game, and the match goes on with
a fresh process (as it does for a brain that does not answer RESTART with OK).
The last lines a brain wrote on stderr are shown when it fails to start or
crashes. Each brain runs in a process group of its own, killed whole when the
brain is ended. Ctrl-C (SIGINT) or SIGTERM stops the match: every brain is
killed, the table of the games finished is printed (a game in progress is not
counted), exit status 130 (143).

Openings are numbered from 1 in file order (blank and comment lines are not
openings); progress lines and errors give both the opening's number and its
file line."""


def _board_size(text: str) -> int:
    try:
        return check_size(count(MIN_SIZE)(text))
    except NotationError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _command(text: str) -> str:
    """A brain's command line (:func:`gomocup.driver.brain_command`), or argparse's one
    line saying what is wrong with it."""
    try:
        return brain_command(text)
    except ValueError as error:  # not a lost match: the match does not start
        raise argparse.ArgumentTypeError(str(error)) from None


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
    parser.add_argument(
        "--turn-ms",
        type=count(0),
        default=1000,
        help="time per move (ms), told to the brains as INFO timeout_turn; 0: as fast as "
        "they can, which Gomocup's timeout_turn 0 means (default 1000)",
    )
    parser.add_argument(
        "--tolerance-ms",
        type=count(0),
        default=1000,
        help="lateness allowed on each move beyond --turn-ms before the brain loses on "
        "time (default 1000); it adds nothing to the game clock",
    )
    parser.add_argument(
        "--match-ms",
        type=count(0),
        default=0,
        help="each side's game clock in a game (ms; default: none): every move's whole "
        "time comes off it (told to the brain as INFO time_left, never below 0), and a "
        "side whose moves take longer in all loses that game, out of time",
    )
    parser.add_argument("--jobs", type=count(1), default=1, help="games played at once")
    parser.add_argument("--quiet", action="store_true", help="no line per game")
    parser.add_argument(
        "--save",
        type=Path,
        metavar="DIR",
        help="write each game finished to DIR (made if missing) as a JSON record, "
        "game-N.json (N its number as in the progress lines, padded with zeros to the "
        "width of --games), for gomoku review and gomoku analyze --record",
    )
    parser.add_argument(
        "--messages",
        action="store_true",
        help="print the brains' MESSAGE (and DEBUG, SUGGEST) lines as they come, "
        "each after [A game N] or [B game N]",
    )
    parser.set_defaults(run=run)


_SIGNAL_NAMES = {signal.SIGINT: "Ctrl-C (SIGINT)", signal.SIGTERM: "SIGTERM"}


def run(args: argparse.Namespace) -> int:
    """Run a match from parsed arguments and print the table; 0 when every game was
    played, 1 when a brain failed to start (the match stops there), 2 for bad input,
    128 + the signal's number when SIGINT or SIGTERM stopped it."""
    try:
        numbered = (
            read_numbered_openings(args.openings, args.size, Rule(args.rule))
            if args.openings
            else []
        )
    except OSError as error:
        print(f"gomoku match: cannot read {args.openings}: {error.strerror}", file=sys.stderr)
        return 2
    except NotationError as error:
        print(f"gomoku match: {error}", file=sys.stderr)
        return 2
    save: Path | None = args.save
    if save is not None:
        try:
            save.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            print(f"gomoku match: cannot make {save}: {error.strerror}", file=sys.stderr)
            return 2
    engines = {"A": args.engine_a, "B": args.engine_b}
    lines = [line for line, _ in numbered]
    rule = Rule(args.rule)
    width = len(str(args.games))

    def progress(game: GameResult) -> None:
        result_games.append(game)
        if not args.quiet:
            winner = game.winner or "draw"
            colour = "black" if game.black == "A" else "white"
            print(
                f"game {game.game}: {opening_name(game, lines)}, A {colour},"
                f" winner {winner} after {_counted(len(game.moves), 'move')} ({game.reason})",
                flush=True,
            )
        if save is not None:
            path = save / f"game-{game.game:0{width}d}.json"
            try:
                path.write_text(
                    format_json(game_record(game, rule, args.size, engines), indent=2) + "\n",
                    encoding="utf-8",
                )
            except OSError as error:
                print(f"gomoku match: cannot write {path}: {error.strerror}", file=sys.stderr)

    def message(engine: str, number: int, line: str) -> None:
        print(f"[{engine} game {number}] {line}", flush=True)

    result_games: list[GameResult] = []
    caught: list[signal.Signals] = []

    async def main() -> MatchResult:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        handled: list[signal.Signals] = []

        def on_signal(signum: signal.Signals) -> None:
            if not caught:
                caught.append(signum)
            stop.set()

        for signum in _SIGNAL_NAMES:
            if signal.getsignal(signum) == signal.SIG_IGN:
                continue  # ignored where the match was started (``nohup``, ``&``): left so
            try:
                loop.add_signal_handler(signum, on_signal, signum)
                handled.append(signum)
            except (NotImplementedError, RuntimeError, ValueError):  # not on Windows
                pass
        try:
            return await run_match(
                args.engine_a,
                args.engine_b,
                [opening for _, opening in numbered],
                games=args.games,
                rule=rule,
                size=args.size,
                turn_ms=args.turn_ms,
                tolerance_ms=args.tolerance_ms,
                match_ms=args.match_ms,
                jobs=args.jobs,
                on_game=progress,
                on_message=message if args.messages else None,
                stop=stop,
            )
        finally:
            for signum in handled:
                loop.remove_signal_handler(signum)

    try:
        result = asyncio.run(main())
    except KeyboardInterrupt:  # where the loop cannot catch signals (Windows)
        caught[:] = [signal.SIGINT]
        result = MatchResult(games=result_games, stopped=True)
    print(format_table(result, args.engine_a, args.engine_b, lines=lines), flush=True)
    if caught:
        print(
            f"gomoku match: the match was stopped by {_SIGNAL_NAMES[caught[0]]} after "
            f"{len(result.games)} of {args.games} games (the games in progress are not "
            "counted)",
            file=sys.stderr,
        )
        return 128 + caught[0]
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
