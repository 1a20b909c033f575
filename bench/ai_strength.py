"""Strength benchmark (issue 19): matches through the ``gomoku match`` runner, with figures.

Presets (``--preset``, several allowed; default ``frozen``):

* ``frozen``: master against the master of issue 19's start (``bench/master_19``),
  target 75% in freestyle, 65% in standard and renju (``--rule``);
* ``bots``: master against every reference bot in ``../shared/bots``, target 100%;
* ``ladder``: every level against the level below it, target 65%;
* ``clock``: master against the frozen master with a game clock as well
  (``--match-ms``, default 60 s a side): how close it plays to ``time_left``.

Per pairing it prints wins, losses and draws (and per colour), the score against the
target, the Elo difference with its 95% margin, engine A's (and B's) nodes per
second and median depth from the brains' ``--verbose`` MESSAGE lines, the time per
move the referee measured, and the largest *overrun*: how far a move went past the
time it was allowed (the turn time, or the game clock when that was shorter); the
target is under 50 ms. The header gives the machine's cores and load averages: the
engines share the CPU with whatever else runs.

    .venv/bin/python bench/ai_strength.py --preset frozen                  # 80 games
    .venv/bin/python bench/ai_strength.py --preset frozen --rule renju
    .venv/bin/python bench/ai_strength.py --preset bots --preset ladder
    .venv/bin/python bench/ai_strength.py --preset clock --match-ms 30000
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import itertools
import math
import os
import re
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from engine import Rule
from engine.ai import LEVEL_NAMES, engine_info
from gomocup.match import GameResult, MatchResult, elo_with_margin, read_openings, run_match

ROOT = Path(__file__).resolve().parent.parent
# ../shared beside the checkout (or beside the folder of worktrees that holds it).
SHARED = next(
    (p / "shared" for p in (ROOT.parent, ROOT.parent.parent) if (p / "shared").is_dir()),
    ROOT.parent / "shared",
)
DEFAULT_BOTS = SHARED / "bots"
DEFAULT_OPENINGS = SHARED / "openings" / "freestyle-15x15.txt"
FROZEN = ROOT / "bench" / "master_19" / "pbrain.py"
BOT_NAMES = ("random_near", "seed000_greedy", "seed003_weights", "seed002_alphabeta")
_FIGURES = re.compile(r"depth (\d+) score (-?\d+) nodes (\d+) time ([\d.]+)s")
PRESETS = ("frozen", "bots", "ladder", "clock")


@dataclass(frozen=True)
class Pairing:
    name: str
    engine_a: str
    engine_b: str
    target: float
    match_ms: int = 0


def our_brain(level: str) -> str:
    return f"{sys.executable} -m gomocup.brain --level {level} --verbose"


def frozen_brain() -> str:
    return f"{sys.executable} -S {FROZEN} --verbose"


def pairings(preset: str, rule: Rule, bots: Path, match_ms: int) -> list[Pairing]:
    master = LEVEL_NAMES[-1]
    if preset == "frozen":
        target = 0.75 if rule is Rule.FREESTYLE else 0.65
        return [Pairing(f"{master} vs frozen master", our_brain(master), frozen_brain(), target)]
    if preset == "clock":
        return [
            Pairing(
                f"{master} vs frozen, {match_ms // 1000} s clocks",
                our_brain(master),
                frozen_brain(),
                0.5,
                match_ms,
            )
        ]
    if preset == "bots":
        return [
            Pairing(f"{master} vs {bot}", our_brain(master), f"python3 {bots / bot}.py", 1.0)
            for bot in BOT_NAMES
        ]
    return [
        Pairing(f"{upper} vs {lower}", our_brain(upper), our_brain(lower), 0.65)
        for lower, upper in itertools.pairwise(LEVEL_NAMES)
    ]


@dataclass(frozen=True)
class SearchFigures:
    nodes_per_second: float
    median_depth: float
    moves: int
    longest: float  # the longest thinking time the brain reported itself


def search_figures(messages: list[str]) -> SearchFigures:
    """Nodes per second (all nodes over all thinking time) and the median depth of
    the searched moves, from a brain's verbose MESSAGE lines."""
    nodes = 0
    seconds = 0.0
    longest = 0.0
    depths: list[int] = []
    for line in messages:
        m = _FIGURES.search(line)
        if m and int(m.group(3)) > 1:
            depths.append(int(m.group(1)))
            nodes += int(m.group(3))
            seconds += float(m.group(4))
            longest = max(longest, float(m.group(4)))
    nps = nodes / seconds if seconds else 0.0
    median = statistics.median(depths) if depths else 0.0
    return SearchFigures(nps, median, len(depths), longest)


def report(pairing: Pairing, result: MatchResult, wall: float) -> str:
    wins, losses, draws = result.record("A", "any")
    diff, margin = elo_with_margin(wins, losses, draws)
    times = result.move_times("A") or [0.0]
    score = result.score("A")
    verdict = "ok" if score >= pairing.target else "BELOW TARGET"
    failures = [g for g in result.games if g.reason.startswith(("A ", "B "))]
    a = search_figures(result.messages["A"])
    b = search_figures(result.messages["B"])
    lines = [
        f"{pairing.name:34} W-L-D {wins}-{losses}-{draws}  score {100 * score:5.1f}%"
        f" (target {100 * pairing.target:.0f}%: {verdict})  Elo {_number(diff)} +/- "
        f"{_number(margin, '')}",
        f"{'':34} as black {_wld(result.record('A', 'black'))},"
        f" as white {_wld(result.record('A', 'white'))}  ({wall:.0f} s)",
        f"{'':34} A: {a.nodes_per_second:8.0f} nodes/s, median depth {a.median_depth:4.1f}"
        f" over {a.moves} searched moves;  B: {b.nodes_per_second:8.0f} nodes/s,"
        f" median depth {b.median_depth:4.1f}",
        f"{'':34} A time/move avg {sum(times) / len(times):.3f} max {max(times):.3f} s"
        f" (its own longest search {a.longest:.3f} s),"
        f" largest overrun {1000 * result.max_overrun('A'):+.0f} ms;"
        f" B largest overrun {1000 * result.max_overrun('B'):+.0f} ms;"
        f" forfeits {len(failures)}",
    ]
    lines.extend(f"{'':34} game {g.opening}: {g.reason}" for g in failures)
    return "\n".join(lines)


def _wld(record: tuple[int, int, int]) -> str:
    return "-".join(str(n) for n in record)


def _number(value: float, sign: str = "+") -> str:
    return "inf" if math.isinf(value) or math.isnan(value) else f"{value:{sign}.0f}"


def _load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--preset", action="append", choices=PRESETS, default=[])
    parser.add_argument("--rule", choices=[r.value for r in Rule], default=Rule.FREESTYLE.value)
    parser.add_argument(
        "--games", type=int, default=0, help="games per pairing (default: 2 per opening)"
    )
    parser.add_argument("--turn-ms", type=int, default=1000, help="time per move (default 1000)")
    parser.add_argument(
        "--match-ms", type=int, default=60_000, help="game clock of the clock preset"
    )
    parser.add_argument("--jobs", type=int, default=1, help="games at once (the box has 2 cores)")
    parser.add_argument("--bots", type=Path, default=DEFAULT_BOTS)
    parser.add_argument("--openings", type=Path, default=DEFAULT_OPENINGS)
    parser.add_argument("--progress", action="store_true", help="a line per game")
    args = parser.parse_args()
    openings = read_openings(args.openings, 15)
    games = args.games or 2 * len(openings)
    rule = Rule(args.rule)
    info = engine_info()
    print(
        f"{datetime.datetime.now():%Y-%m-%d %H:%M}  {os.cpu_count()} cores, load {_load()}"
        f"  rule {rule}, {games} games a pairing, {args.turn_ms} ms a move,"
        f" {args.jobs} at once, openings {args.openings.name}; AI core: {info['core']}",
        flush=True,
    )
    for preset in args.preset or ["frozen"]:
        for pairing in pairings(preset, rule, args.bots, args.match_ms):
            start = time.perf_counter()
            done: list[GameResult] = []

            def progress(game: GameResult, done: list[GameResult] = done) -> None:
                done.append(game)
                if args.progress:
                    colour = "black" if game.black == "A" else "white"
                    print(
                        f"  game {len(done)}: opening {game.opening}, A {colour},"
                        f" winner {game.winner or 'draw'} ({game.reason}, {len(game.moves)} moves)",
                        flush=True,
                    )

            result = asyncio.run(
                run_match(
                    pairing.engine_a,
                    pairing.engine_b,
                    openings,
                    games=games,
                    rule=rule,
                    turn_ms=args.turn_ms,
                    match_ms=pairing.match_ms,
                    jobs=args.jobs,
                    on_game=progress,
                )
            )
            print(report(pairing, result, time.perf_counter() - start), flush=True)
    print(f"load after: {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
