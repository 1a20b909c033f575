"""Strength benchmark: our levels against the reference bots and against each other.

Runs :func:`gomocup.match.run_match` in-process (the same code as ``gomoku
match``) and prints, per pairing, the score and Elo difference of engine A (ours),
our nodes per second (from the brain's ``--verbose`` MESSAGE lines) and our
average and maximum time per move as the referee saw it. The header names the
machine's cores and its load averages, before and after: the engines share the
CPU with whatever else runs, and a loaded machine plays weaker.

Targets (issue 5): the strongest level scores >= 95% against every reference bot
at 1 s per move; every level scores >= 65% against the level below it.

    .venv/bin/python bench/strength.py --only bots          # 80 games a bot: 40 openings x 2
    .venv/bin/python bench/strength.py --only ladder --games 40
    .venv/bin/python bench/strength.py --pairing "master vs intermediate" --rule renju --games 10
    .venv/bin/python bench/strength.py --quick              # a small version

By default every opening is played twice (colours swapped): 80 games a pairing
with the 40 shared openings. The reference bots live outside the project
(``../shared/bots``, set with ``--bots``); only this benchmark uses them.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import itertools
import math
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from engine import Rule
from engine.ai import LEVEL_NAMES
from gomocup.match import MatchResult, elo_with_margin, read_openings, run_match

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BOTS = ROOT.parent / "shared" / "bots"
DEFAULT_OPENINGS = ROOT.parent / "shared" / "openings" / "freestyle-15x15.txt"
BOT_NAMES = ("random_near", "seed000_greedy", "seed003_weights", "seed002_alphabeta")
_FIGURES = re.compile(r"nodes (\d+) time ([\d.]+)s")


@dataclass(frozen=True)
class Pairing:
    name: str
    engine_a: str
    engine_b: str
    target: float


def our_brain(level: str) -> str:
    return f"{sys.executable} -m gomocup.brain --level {level} --verbose"


def pairings(bots: Path) -> list[Pairing]:
    """Every pairing: the strongest level against each bot, then the ladder."""
    strongest = LEVEL_NAMES[-1]
    found = [
        Pairing(f"{strongest} vs {bot}", our_brain(strongest), f"python3 {bots / bot}.py", 0.95)
        for bot in BOT_NAMES
    ]
    for lower, upper in itertools.pairwise(LEVEL_NAMES):
        found.append(Pairing(f"{upper} vs {lower}", our_brain(upper), our_brain(lower), 0.65))
    return found


def select(every: list[Pairing], only: str, names: list[str]) -> list[Pairing]:
    """The pairings named (any "<level> vs <level>" too), or those of ``only``."""
    if names:
        known = {p.name: p for p in every}
        chosen = []
        for name in names:
            upper, _, lower = name.partition(" vs ")
            if name in known:
                chosen.append(known[name])
            elif upper in LEVEL_NAMES and lower in LEVEL_NAMES:
                chosen.append(Pairing(name, our_brain(upper), our_brain(lower), 0.65))
            else:
                listed = ", ".join(known)
                raise SystemExit(f"unknown pairing {name!r}; known: {listed}, or LEVEL vs LEVEL")
        return chosen
    if only == "bots":
        return [p for p in every if p.target > 0.9]
    if only == "ladder":
        return [p for p in every if p.target <= 0.9]
    return every


def nodes_per_second(result: MatchResult) -> float:
    nodes = seconds = 0.0
    for line in result.messages["A"]:
        m = _FIGURES.search(line)
        if m:
            nodes += int(m.group(1))
            seconds += float(m.group(2))
    return nodes / seconds if seconds else 0.0


def report(pairing: Pairing, result: MatchResult, wall: float) -> str:
    wins, losses, draws = result.record("A", "any")
    diff, margin = elo_with_margin(wins, losses, draws)
    times = result.move_times("A") or [0.0]
    score = result.score("A")
    verdict = "ok" if score >= pairing.target else "BELOW TARGET"
    failures = sum(1 for g in result.games if g.reason.startswith(("A ", "B ")))
    as_black = result.record("A", "black")
    as_white = result.record("A", "white")
    return (
        f"{pairing.name:32} W-L-D {wins}-{losses}-{draws}  score {100 * score:5.1f}%"
        f" (target {100 * pairing.target:.0f}%: {verdict})  Elo {_number(diff)} +/- "
        f"{_number(margin, '')}\n{'':32} as black {_wld(as_black)}, as white {_wld(as_white)}"
        f"  nps {nodes_per_second(result):6.0f}  time/move avg {sum(times) / len(times):.3f}"
        f" max {max(times):.3f} s  forfeits {failures}  ({wall:.0f} s)"
    )


def _wld(record: tuple[int, int, int]) -> str:
    return "-".join(str(n) for n in record)


def _number(value: float, sign: str = "+") -> str:
    return "inf" if math.isinf(value) or math.isnan(value) else f"{value:{sign}.0f}"


def _load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--games", type=int, default=0, help="games per pairing (default: 2 per opening)"
    )
    parser.add_argument("--turn-ms", type=int, default=1000, help="time per move (default 1000)")
    parser.add_argument("--jobs", type=int, default=1, help="games at once (the box has 2 cores)")
    parser.add_argument("--quick", action="store_true", help="4 games a pairing at 200 ms")
    parser.add_argument("--only", choices=("all", "bots", "ladder"), default="all")
    parser.add_argument(
        "--pairing",
        action="append",
        default=[],
        help='one pairing by name, e.g. "master vs novice"',
    )
    parser.add_argument("--rule", choices=[r.value for r in Rule], default=Rule.FREESTYLE.value)
    parser.add_argument("--bots", type=Path, default=DEFAULT_BOTS)
    parser.add_argument("--openings", type=Path, default=DEFAULT_OPENINGS)
    args = parser.parse_args()
    openings = read_openings(args.openings, 15)
    games = args.games or 2 * len(openings)
    turn_ms = args.turn_ms
    if args.quick:
        games, turn_ms = 4, 200
    chosen = select(pairings(args.bots), args.only, args.pairing)
    print(
        f"{datetime.datetime.now():%Y-%m-%d %H:%M}  {os.cpu_count()} cores, load {_load()}"
        f"  rule {args.rule}, {games} games a pairing, {turn_ms} ms a move,"
        f" {args.jobs} at once, openings {args.openings.name}",
        flush=True,
    )
    for pairing in chosen:
        start = time.perf_counter()
        result = asyncio.run(
            run_match(
                pairing.engine_a,
                pairing.engine_b,
                openings,
                games=games,
                rule=Rule(args.rule),
                turn_ms=turn_ms,
                jobs=args.jobs,
            )
        )
        print(report(pairing, result, time.perf_counter() - start), flush=True)
    print(f"load after: {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
