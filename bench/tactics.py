"""The tactics suite (issue 19): positions with a proven forced win, and how the AI does on them.

    .venv/bin/python bench/tactics.py collect --games 60   # self-play -> bench/tactics-suite.txt
    .venv/bin/python bench/tactics.py run --time 1.0       # found / missed / wrong length

``collect`` plays games between AI levels (each move at a short time, a little
randomness so the games differ) and keeps positions where the side to move can
force a five, proven by :func:`distance`: an exhaustive threat-space solver, run
with no time limit, that gives the *exact* number of own moves to the five within
threat space (the attacker plays fours and threes, every one of them; the defender
answers a four with its block and a three with every move that stops it, or with
one of its own fours; a defender that ignores a three meets the straight four).
Any line the solver proves is a real forced win, so its length bounds the true
distance from above; quiet attacking moves, which the solver does not try, could
only make a win shorter.

``run`` gives each position to ``think`` (master, ``--time`` seconds) and counts:
*found* (a win reported; exact or longer than the solver's distance; its first move
checked by the solver), *missed* (no win reported), *wrong length* (``win_in``
shorter than the solver's distance: a claim the solver contradicts, unless a quiet
move the solver does not try wins faster) and *wrong move* (a move after which the
solver finds no win in time).
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import time
from pathlib import Path
from typing import Any

from engine import Board, Rule, format_moves, parse_moves
from engine.ai import new_core, think
from engine.ai.levels import LEVELS

SUITE = Path(__file__).resolve().parent / "tactics-suite.txt"
K_THREE, K_FOUR, K_FIVE = 1, 3, 7  # threat classes of engine.ai.patterns
MAX_MOVES = 7  # own moves the collector looks for a win within


class TooBig(Exception):
    """The solver met its node limit (only ``run`` sets one, to check answers)."""


class Solver:
    """Exhaustive threat-space proof search on one core (see the module docstring)."""

    def __init__(self, core: Any, node_limit: int | None = None) -> None:
        self.core = core
        self.memo: dict[tuple[int, int, int], bool] = {}
        self.nodes = 0
        self.node_limit = node_limit

    def _count(self) -> None:
        self.nodes += 1
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise TooBig

    def attack(self, n: int) -> bool:
        """The side to move forces five within ``n`` own moves."""
        core = self.core
        self._count()
        if n < 1:
            return False
        a = core.side()
        d = 3 - a
        if core.first_with_class(a, K_FIVE) >= 0:
            return True
        key = (core.hash, 0, n)
        if key in self.memo:
            return self.memo[key]
        result = self._attack(a, d, n)
        self.memo[key] = result
        return result

    def _attack(self, a: int, d: int, n: int) -> bool:
        core = self.core
        theirs = core.cells_with_class(d, K_FIVE)
        if theirs:
            if len(theirs) > 1 or not core.legal_for(a, theirs[0]):
                return False
            return self._after(theirs[0], n)
        if n < 2:
            return False
        if core.flex_four_cell(a) >= 0:
            return True
        # Every three and every four (the open fours were taken above).
        return any(
            core.legal_for(a, m) and self._after(m, n) for m in core.cells_with_class(a, K_THREE)
        )

    def _after(self, m: int, n: int) -> bool:
        self.core.play(m)
        try:
            return self.defend(n - 1)
        finally:
            self.core.undo()

    def defend(self, n: int) -> bool:
        """The defender is to move; the attacker forces five within ``n`` own moves
        whatever it does."""
        core = self.core
        self._count()
        d = core.side()
        a = 3 - d
        if core.first_with_class(d, K_FIVE) >= 0:
            return False
        key = (core.hash, 1, n)
        if key in self.memo:
            return self.memo[key]
        result = self._defend(a, d, n)
        self.memo[key] = result
        return result

    def _defend(self, a: int, d: int, n: int) -> bool:
        core = self.core
        fives = core.cells_with_class(a, K_FIVE)
        if len(fives) >= 2:
            return n >= 1
        if fives:
            if not core.legal_for(d, fives[0]):
                return n >= 1
            return self._reply(fives[0], n)
        if n < 2 or core.flex_four_cell(a) < 0:
            return False  # no threat (a free move for the defender), or too slow
        answers = set(core.cells_with_class(a, K_FOUR)) | set(core.cells_with_class(d, K_FOUR))
        return all(self._reply(r, n) for r in sorted(answers) if core.legal_for(d, r))

    def _reply(self, r: int, n: int) -> bool:
        self.core.play(r)
        try:
            return self.attack(n)
        finally:
            self.core.undo()


def distance(board: Board, limit: int = MAX_MOVES) -> int | None:
    """Own moves to the five the side to move forces in threat space (None: none
    within ``limit``). Exhaustive, no time limit."""
    solver = Solver(new_core(board))
    for n in range(1, limit + 1):
        if solver.attack(n):
            return n
    return None


def collect(games: int, seed: int, per_game: int) -> list[tuple[Rule, str, int]]:
    rng = random.Random(seed)
    found: list[tuple[Rule, str, int]] = []
    seen: set[tuple[Rule, str]] = set()
    levels = ("intermediate", "advanced", "master")
    rules = (Rule.FREESTYLE, Rule.STANDARD, Rule.RENJU)
    for g in range(games):
        rule = rules[g % 3]
        board = Board(15, rule)
        black, white = rng.choice(levels), rng.choice(levels)
        kept = 0
        while not board.is_over() and len(board) < 120:
            level = black if len(board) % 2 == 0 else white
            if len(board) < 4:
                move = think(board, level="novice", rng=rng).best
            else:
                move = think(board, level=level, time_limit=0.05, rng=rng).best
            board.play(move)
            if board.is_over() or kept >= per_game:
                continue
            quick = new_core(board).vct(4, 12, 0)
            if not quick:
                continue
            n = distance(board)
            key = (rule, format_moves(board.moves))
            if n is not None and n >= 2 and key not in seen:
                seen.add(key)
                found.append((rule, key[1], n))
                kept += 1
        print(f"game {g + 1}/{games}: {len(found)} positions", file=sys.stderr, flush=True)
    return found


def read_suite(path: Path) -> list[tuple[Rule, Board, int]]:
    suite = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        rule, moves, n = line.split("\t")
        board = Board(15, Rule(rule))
        for p in parse_moves(moves, 15):
            board.play(p)
        suite.append((Rule(rule), board, int(n)))
    return suite


def run(path: Path, seconds: float, limit: int | None) -> None:
    suite = read_suite(path)[:limit]
    counts: collections.Counter[str] = collections.Counter()
    by_length: dict[int, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    master = LEVELS["master"]
    start = time.perf_counter()
    for _, board, n in suite:
        result = think(board, level=master, time_limit=seconds)
        outcome = judge(board, result.best, result.win_in, n)
        counts[outcome] += 1
        by_length[n][outcome] += 1
    print(f"{len(suite)} positions, {seconds} s a move, {time.perf_counter() - start:.0f} s")
    for key in OUTCOMES:
        print(f"  {key:34} {counts[key]}")
    found = ", ".join(
        f"{n}: {sum(c[k] for k in c if k.startswith('found'))}/{sum(c.values())}"
        for n, c in sorted(by_length.items())
    )
    print(f"  found, by the solver's distance (own moves): {found}")


OUTCOMES = (
    "found exact",
    "found longer",
    "found, move not confirmed",
    "missed",
    "wrong length",
    "wrong move",
)


def judge(board: Board, move: Any, win_in: int | None, n: int) -> str:
    """Classify one answer against the solver's distance ``n`` (own moves): *missed*
    (no win reported), *wrong length* (``win_in`` shorter than ``n``), *wrong move*
    (after the move the solver finds no win within ``win_in - 1`` more moves, where
    ``win_in`` is within its reach), else *found* (exact or longer; the move is
    checked with a node limit, and a claim longer than ``n + 1`` only against that
    bound: "not confirmed" when the check did not settle it)."""
    if win_in is None:
        return "missed"
    if win_in < n:
        return "wrong length"
    after = board.copy()
    after.play(move)
    if after.is_over():
        return "found exact" if n == 1 else "found longer"
    reach = min(win_in, n + 1)  # a longer claim is checked against the shorter bound
    try:
        kept = Solver(new_core(after), node_limit=200_000).defend(reach - 1)
    except TooBig:
        return "found, move not confirmed"
    if not kept:
        return "wrong move" if win_in <= n + 1 else "found, move not confirmed"
    return "found exact" if win_in == n else "found longer"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="self-play positions with proven wins into the suite")
    c.add_argument("--games", type=int, default=60)
    c.add_argument("--seed", type=int, default=19)
    c.add_argument("--per-game", type=int, default=4, help="positions kept from one game")
    c.add_argument("--out", type=Path, default=SUITE)
    r = sub.add_parser("run", help="the AI on every position of the suite")
    r.add_argument("--time", type=float, default=1.0)
    r.add_argument("--limit", type=int, default=None, help="only the first N positions")
    r.add_argument("--suite", type=Path, default=SUITE)
    args = parser.parse_args()
    if args.command == "collect":
        found = collect(args.games, args.seed, args.per_game)
        lines = [f"{rule}\t{moves}\t{n}" for rule, moves, n in found]
        header = "# rule<TAB>moves<TAB>own moves to a forced five (exhaustive threat-space solver)"
        args.out.write_text("\n".join([header, *lines]) + "\n")
        print(f"{len(found)} positions -> {args.out}")
    else:
        run(args.suite, args.time, args.limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
