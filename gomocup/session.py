"""The Gomocup ("pbrain") protocol, brain side, without I/O.

A :class:`BrainSession` takes the manager's lines one at a time and returns the
lines to send back; :mod:`gomocup.brain` connects it to stdin and stdout. The
protocol (https://plastovicka.github.io/protocl2en.htm) in short: START/
RECTSTART set up a board, INFO passes settings, BEGIN asks for the first move,
TURN passes the opponent's move and asks for ours, BOARD ... DONE passes a
whole position (``x,y,field``: 1 own stone, 2 opponent's; 3, a continuous game's
finished line, is refused: this brain plays no continuous games) and asks for a
move, TAKEBACK removes a stone, RESTART clears the board, ABOUT describes the
brain, END quits (a move being thought about when END comes is dropped unsent).
Nothing answers INFO: a setting the brain cannot take is said in a MESSAGE.

SWAP2BOARD (Gomocup's swap2 extension) passes the opening stones so far (``x,y``
lines, Black first, then DONE): with none the brain answers its three opening
stones (``x,y x,y x,y``); with three it answers ``SWAP`` (it takes Black), one move
(it takes White and plays the fourth stone) or two (it places the fourth and fifth
and lets the opponent choose); with five, ``SWAP`` or the sixth stone. The choices
come from :mod:`engine.ai.swap2`.

Time: a move's budget is ``timeout_turn`` (less a margin for the reply) and, when the
manager sends it, a share of ``time_left`` (with or without ``timeout_match``, but not
with ``timeout_match`` 0: no match limit; with ``timeout_match`` and no ``time_left``,
what the game's moves took comes off the match's limit). Piskvork's clock for a turn runs
from the command after the brain's last answer, INFO lines included; what the session
spends on those comes off the move. The tables of every rule, and a search set up for
each, are built at START, which is off the clock (``INFO rule`` then only picks one).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine import Board, NotationError, Point, Rule
from engine.ai import get_level, prepare, prepare_tables, swap2, think
from engine.ai.levels import Level
from engine.notation import in_gomocup_words

ABOUT = 'name="gomoku-arena", version="0.1.0", author="Gomoku Arena", country="-"'
DEFAULT_TIMEOUT_TURN_MS = 30_000  # Piskvork's default when the manager sends none
FAST_MOVE_S = 0.05  # timeout_turn 0 means "play as fast as possible"
REPLY_MARGIN_S = 0.08  # kept back from every turn for start-up, parsing and the reply
REPLY_MARGIN_SHARE = 0.4  # of a turn shorter than 0.2 s: 0.08 s left 10 ms of 50
LARGEST_SETTING = 2**31 - 1  # a larger INFO number is read as this (a 32-bit manager's most)
ECHO_MAX = 40  # characters of an unknown command or a bad line quoted back
BOM = "\ufeff"  # a byte order mark some Windows tools put before the first line


def rule_from_info(value: int) -> Rule:
    """Gomocup's ``INFO rule`` bitmask: 1 exactly five, 4 renju. The bits this brain
    does not play (2, a continuous game; 8, caro) leave the rule the others give, and
    :meth:`BrainSession._info` says so in a MESSAGE: a rule kept from an earlier INFO
    (renju, say) would be further from the game asked for than the plain one."""
    if value & 4:
        return Rule.RENJU
    if value & 1:
        return Rule.STANDARD
    return Rule.FREESTYLE


NUMBERS = {
    "timeout_turn": "timeout_turn_ms",
    "timeout_match": "timeout_match_ms",
    "time_left": "time_left_ms",
    "max_memory": "max_memory",
    "rule": "rule",
}
"""The INFO keys whose value is a whole number, and the Settings field each sets (the
rule, a bitmask, is read by :func:`rule_from_info`)."""


@dataclass
class Settings:
    timeout_turn_ms: int = DEFAULT_TIMEOUT_TURN_MS
    timeout_match_ms: int | None = None
    """None until the manager sends it; 0 means the match has no time limit."""
    time_left_ms: int | None = None
    max_memory: int = 0
    rule: Rule = Rule.FREESTYLE
    extra: dict[str, str] = field(default_factory=dict)


class BrainSession:
    """One brain's side of the protocol. ``feed(line)`` returns the reply lines
    (often none); ``finished`` turns true after END."""

    def __init__(
        self,
        level: Level | str = "master",
        *,
        clock: Callable[[], float] = time.perf_counter,
        rng: random.Random | None = None,
        verbose: bool = False,
    ) -> None:
        self.level = get_level(level)
        self.clock = clock
        self.rng = rng or random.Random()
        self.verbose = verbose
        self.settings = Settings()
        self.board: Board | None = None
        self.finished = False
        self._block: _Block | None = None
        """The BOARD or SWAP2BOARD whose lines are being read, up to its DONE."""
        self._spent = 0.0
        """Seconds spent on the commands since the last answer (on this turn's clock)."""
        self._used = 0.0
        """Seconds this game's moves took (what a match clock without time_left ran)."""

    # -- feeding ------------------------------------------------------------

    def feed(self, line: str) -> list[str]:
        """The lines that answer ``line`` (often none). The time spent on a line that
        gets no answer counts against the next move (see the module's docstring)."""
        started = self.clock()
        replies = self._feed(line)
        if replies:
            self._spent = 0.0
        else:
            self._spent += self.clock() - started
        return replies

    def _feed(self, line: str) -> list[str]:
        text = line.strip().lstrip(BOM)
        if self._block is not None:
            return self._block_line(text)
        if not text:
            return []
        command, _, argument = text.replace("\t", " ").partition(" ")
        handler = self._handlers().get(command.upper())
        if handler is None:
            return [f"UNKNOWN {_quoted(command)} is not a command this brain knows"]
        try:
            return handler(argument.strip())
        except ValueError as error:
            return [f"ERROR {command.upper()}: {self._error_text(error)}"]

    def _handlers(self) -> dict[str, Callable[[str], list[str]]]:
        return {
            "START": self._start,
            "RECTSTART": self._rectstart,
            "RESTART": self._restart,
            "INFO": self._info,
            "BEGIN": self._begin,
            "TURN": self._turn,
            "BOARD": self._board,
            "SWAP2BOARD": self._swap2board,
            "TAKEBACK": self._takeback,
            "ABOUT": lambda _: [ABOUT],
            "END": self._end,
        }

    # -- commands -----------------------------------------------------------

    def _start(self, argument: str) -> list[str]:
        size = _whole(argument, f"{_quoted(argument)} is not a board size like 15")
        if not 5 <= size <= 26:
            return [f"ERROR unsupported board size {size} (5 to 26 supported)"]
        self.board = Board(size, self.settings.rule)
        self._used = 0.0
        # START is off the turn's clock, and the manager's INFO rule comes after it,
        # on the first move's: every rule's tables, and a search set up for each rule
        # (20-30 ms each, 60-180 ms on a busy machine), are built here; the rule in
        # force is set up last, so it is the one kept longest.
        prepare_tables()
        for rule in sorted(Rule, key=lambda rule: rule is self.settings.rule):
            prepare(size, rule, self.level)
        return ["OK"]

    def _rectstart(self, argument: str) -> list[str]:
        width, _, height = argument.partition(",")
        expected = f"{_quoted(argument)} is not a board size like 15,15"
        if _whole(width, expected) != _whole(height, expected):
            return ["ERROR only square boards are supported"]
        return self._start(width)

    def _restart(self, _: str) -> list[str]:
        board = self._need_board()
        self.board = Board(board.size, self.settings.rule)
        self._used = 0.0
        return ["OK"]

    def _info(self, argument: str) -> list[str]:
        """A setting. The manager reads no answer to INFO (the protocol: "the brain
        doesn't answer"), so a setting this brain cannot take is said in a MESSAGE,
        which managers show in their log and never pair with a command; an ERROR here
        would be read as the answer to the manager's next command."""
        key, _, value = argument.partition(" ")
        try:
            return self._setting(key.lower(), value.strip())
        except ValueError as error:
            return [f"MESSAGE INFO {key.lower()}: {error}; ignored"]

    def _setting(self, key: str, value: str) -> list[str]:
        settings = self.settings
        if key not in NUMBERS:
            settings.extra[key] = value
            return []
        number = _whole(value, f"{_quoted(value)} is not a whole number", signed=True)
        if key != "rule":
            # A number past any real limit means no limit; kept as it was, a search's
            # arithmetic on it overflowed (a crash at the next move).
            setattr(settings, NUMBERS[key], max(-LARGEST_SETTING, min(number, LARGEST_SETTING)))
            return []
        if number < 0:
            raise ValueError(f"{number} is not a rule (bits: 1 exactly five, 4 renju)")
        settings.rule = rule_from_info(number)
        if self.board is not None and self.board.rule is not settings.rule:
            self.board = self._rebuilt(self.board, settings.rule)
        if self.board is not None:
            prepare(self.board.size, settings.rule, self.level)
        said = []
        if number & 2:
            said.append(
                "MESSAGE INFO rule: a continuous game (2) is not played here; "
                "a game ends at its first five"
            )
        if number & 8:
            said.append(
                f"MESSAGE INFO rule: caro (8) is not played here; played as {settings.rule.value}"
            )
        if unknown := number & ~15:
            said.append(
                f"MESSAGE INFO rule: {unknown} is no rule bit this brain knows (1 exactly "
                f"five, 2 continuous, 4 renju, 8 caro); played as {settings.rule.value}"
            )
        return said

    def _begin(self, _: str) -> list[str]:
        board = self._need_board()
        if len(board):
            return ["ERROR BEGIN on a board that has stones"]
        return self._move()

    def _turn(self, argument: str) -> list[str]:
        board = self._need_board()
        board.play(self._point(argument))  # an error names its point x,y (_error_text)
        return self._move()

    def _board(self, _: str) -> list[str]:
        self._open_block("BOARD")
        return []

    def _swap2board(self, _: str) -> list[str]:
        self._open_block("SWAP2BOARD")
        return []

    def _open_block(self, command: str) -> None:
        """Read the lines up to DONE as ``command``'s. Without a board the block is
        still read to its DONE, which gets the one ERROR (a manager pairs one reply
        with each command, so its stone lines must not each get an UNKNOWN)."""
        self._block = _Block(command)
        if self.board is None:
            self._block.error = "no board yet: send START first"

    def _block_line(self, text: str) -> list[str]:
        """One line inside BOARD or SWAP2BOARD: a stone, DONE, or a command meaning
        DONE never came. A bad stone line is remembered and answered at DONE."""
        block = self._block
        assert block is not None
        if not text:
            return []  # a blank line between stones is no stone
        if text.upper() == "DONE":
            self._block = None
            if block.error is not None:
                return [f"ERROR {block.command}: {block.error}"]
            if block.command == "BOARD":
                return self._board_done(block.stones)
            return self._swap2_done([point for point, _ in block.stones])
        if text.partition(" ")[0].upper() in self._handlers():
            # A command: the manager never sent DONE, and this block is given up. END
            # ends the brain at once, with nothing more sent; any other command gets
            # one ERROR for the block, then its own answer.
            self._block = None
            if is_end(text):
                return self._end("")
            return [f"ERROR {block.command}: no DONE before {_quoted(text)}", *self._feed(text)]
        if block.error is None:
            try:
                block.stones.append(
                    self._stone(text) if block.command == "BOARD" else (self._point(text), 0)
                )
            except ValueError as error:
                block.error = str(error)
        return []

    def _stone(self, text: str) -> tuple[Point, int]:
        """A BOARD line ``x,y,field``: the point and its field (1 own, 2 opponent's)."""
        x, comma, rest = text.partition(",")
        y, comma2, field = rest.partition(",")
        if not (comma and comma2) or "," in field:
            raise ValueError(f"{_quoted(text)} is not a line like 7,7,1")
        point = self._point(f"{x},{y}")
        owner = _whole(field.strip(), f"{_quoted(text)} is not a line like 7,7,1")
        if owner == 3:
            raise ValueError("field 3 (a continuous game's line) is not supported")
        if owner not in (1, 2):
            raise ValueError(f"{_quoted(text)}: the field is 1 (own stone) or 2 (opponent's)")
        return point, owner

    def _board_done(self, stones: list[tuple[Point, int]]) -> list[str]:
        try:
            self._load(stones)
        except ValueError as error:
            return [f"ERROR BOARD: {self._error_text(error)}"]
        return self._move()

    def _swap2_done(self, stones: list[Point]) -> list[str]:
        board = self._need_board()
        try:
            opening = Board.from_stones(
                stones[0::2], stones[1::2], size=board.size, rule=self.settings.rule
            )
        except ValueError as error:
            return [f"ERROR SWAP2BOARD: {self._error_text(error)}"]
        budget, _ = self.move_time()
        if len(stones) == 0:
            placed = swap2.opening(opening, self.rng, budget_s=budget)
        elif len(stones) in (3, 5):
            decision = (
                swap2.after_three(opening, self.rng, budget_s=budget)
                if len(stones) == 3
                else swap2.after_five(opening, budget_s=budget)
            )
            if decision.choice == "black":
                self.board = opening
                return ["SWAP"]
            placed = list(decision.stones)
            if decision.move is not None:
                placed.append(decision.move)
        else:
            return [f"ERROR SWAP2BOARD: {len(stones)} stones (0, 3 or 5 expected)"]
        for point in placed:
            opening.play(point)
        self.board = opening
        return [" ".join(f"{p.x},{p.y}" for p in placed)]

    def _takeback(self, argument: str) -> list[str]:
        """Remove one stone. Usually the last one; another (a BOARD lists its stones in
        any order, so its "last" need not be the game's) is taken out of its colour,
        every other stone keeping its own."""
        board = self._need_board()
        point = self._point(argument)
        if board.last_move == point:
            board.undo(1)
            return ["OK"]
        if board[point] is None:
            return [f"ERROR TAKEBACK: no stone on {argument}"]
        black, white = board.moves[0::2], board.moves[1::2]
        black = [p for p in black if p != point]
        white = [p for p in white if p != point]
        self.board = Board.from_stones(black, white, size=board.size, rule=board.rule)
        return ["OK"]

    def _end(self, _: str) -> list[str]:
        self.finished = True
        return []

    # -- helpers ------------------------------------------------------------

    def _need_board(self) -> Board:
        if self.board is None:
            raise ValueError("no board yet: send START first")
        return self.board

    def _error_text(self, error: ValueError) -> str:
        """What went wrong, with the point the engine named in board notation (``h8 is
        occupied``) named as the manager names points (``7,7 is occupied``)."""
        return str(error) if self.board is None else in_gomocup_words(error, self.board.size)

    def _point(self, text: str) -> Point:
        board = self._need_board()
        expected = f"{_quoted(text)} is not a point like 7,7"
        x_text, comma, y_text = text.partition(",")
        if not comma:
            raise NotationError(expected)
        try:
            x, y = _whole(x_text, expected), _whole(y_text, expected)
        except ValueError:
            raise NotationError(expected) from None
        if not (0 <= x < board.size and 0 <= y < board.size):
            raise NotationError(f"{x},{y} is off a {board.size}x{board.size} board")
        return Point(x, y)

    def _load(self, stones: list[tuple[Point, int]]) -> None:
        board = self._need_board()
        own = [p for p, owner in stones if owner == 1]
        theirs = [p for p, owner in stones if owner == 2]
        if len(own) == len(theirs):
            black, white = own, theirs  # we are to move with as many stones: Black
        elif len(theirs) == len(own) + 1:
            black, white = theirs, own
        else:
            raise ValueError(f"{len(own)} own and {len(theirs)} opponent stones cannot be a game")
        self.board = Board.from_stones(black, white, size=board.size, rule=self.settings.rule)

    def _rebuilt(self, board: Board, rule: Rule) -> Board:
        moves = board.moves
        return Board.from_stones(moves[0::2], moves[1::2], size=board.size, rule=rule)

    def move_time(self) -> tuple[float, float | None]:
        """(seconds for this move, seconds left in the game or None), less what this
        turn's clock already ran on the commands before the move's."""
        settings = self.settings
        turn_ms = settings.timeout_turn_ms
        margin = min(REPLY_MARGIN_S, REPLY_MARGIN_SHARE * max(0, turn_ms) / 1000)
        reserve = margin + self._spent
        turn = FAST_MOVE_S if turn_ms <= 0 else max(0.01, turn_ms / 1000 - reserve)
        left = None
        # time_left counts down a match's limit: with or without timeout_match, but not
        # when timeout_match says there is none (0), whatever time_left then says. A
        # manager that sends timeout_match and no time_left: what this game's moves took
        # comes off it (a first move took 3 s of a 2 s match).
        match_ms = settings.timeout_match_ms
        if settings.time_left_ms is not None and match_ms != 0:
            left = max(0.01, settings.time_left_ms / 1000 - reserve)
        elif match_ms is not None and match_ms > 0:
            left = max(0.01, match_ms / 1000 - self._used - REPLY_MARGIN_S - self._spent)
        return turn, left

    def _move(self) -> list[str]:
        board = self._need_board()
        if board.is_over():
            return ["ERROR the game is over"]
        turn, left = self.move_time()
        started = self.clock()
        result = think(
            board, level=self.level, time_limit=turn, time_left=left, clock=self.clock, rng=self.rng
        )
        self._used += self.clock() - started + self._spent
        board.play(result.best)
        lines = []
        if self.verbose:
            lines.append(
                f"MESSAGE depth {result.depth} score {result.score} nodes {result.nodes}"
                f" time {result.elapsed:.3f}s"
            )
        lines.append(f"{result.best.x},{result.best.y}")
        return lines


@dataclass
class _Block:
    """A BOARD or SWAP2BOARD being read: its stones so far (SWAP2BOARD's with field
    0), and the first bad line's error, answered at DONE."""

    command: str
    stones: list[tuple[Point, int]] = field(default_factory=list)
    error: str | None = None


def is_end(line: str) -> bool:
    """Whether ``line`` is END, the manager's order to exit."""
    return line.strip().lstrip(BOM).upper() == "END"


def _whole(text: str, expected: str, *, signed: bool = False) -> int:
    """``text`` as a whole number in ASCII digits (with a leading minus if ``signed``).
    Python's ``int`` would also take ``1_0``, ``+3`` and other scripts' digits, which no
    manager sends: a line that has them is a line gone wrong. Raises ValueError saying
    ``expected``."""
    text = text.strip()
    digits = text[1:] if signed and text.startswith("-") else text
    if not (digits.isascii() and digits.isdigit()):
        raise ValueError(expected)
    if len(digits.lstrip("0")) > 18:  # no setting means that; a time in them overflowed a
        raise ValueError(f"{_quoted(text)} is too large")  # float (past 4300, int() refuses)
    return int(text)


def _quoted(text: str) -> str:
    """``text`` quoted back in a reply, cut to :data:`ECHO_MAX` characters."""
    return repr(text if len(text) <= ECHO_MAX else text[:ECHO_MAX] + "...")
