"""Playing levels, from a beginner who makes human-looking mistakes to the
full-strength search.

The two weakest levels do not search: they look one move ahead the way a
new player does, by shape. They always take a five that is there, usually
(not always) block a four, often overlook an open three, and prefer moves
close to the stones already on the board. The stronger levels run the search
(:mod:`engine.ai.search`), each a clear step up from the one below:

* intermediate reads two plies with a plain evaluation, no threat search, and
  picks at random among moves it scores about the same: it sees what a move
  threatens now, not what a sequence of threats will do;
* advanced reads three plies with the side-to-move evaluation, finds forced
  wins by fours (VCF) for itself and checks its moves against the opponent's;
* master searches as deep as its time allows and adds the forced wins by
  threes and fours (VCT), its own and the opponent's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.ai import patterns as pt
from engine.ai.position import Position
from engine.ai.search import SearchConfig
from engine.ai.threats import flex_four_cell, legal_for


@dataclass(frozen=True)
class Level:
    """A named strength. ``search`` None means the one-move "human" player;
    ``max_time`` caps the seconds per move whatever the clock allows;
    ``noise`` is the score margin within which the search picks at random;
    ``miss_four``/``miss_three`` are the chances of overlooking such a threat."""

    name: str
    search: SearchConfig | None
    max_time: float | None
    noise: int = 0
    miss_four: float = 0.0
    miss_three: float = 0.0
    attack: float = 1.0  # weight of own shape against the opponent's, for the human player


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("beginner", None, 0.05, noise=80, miss_four=0.35, miss_three=0.8, attack=1.4),
        Level("novice", None, 0.05, noise=10, miss_four=0.0, miss_three=0.1, attack=1.0),
        Level(
            "intermediate",
            SearchConfig(
                max_depth=2,
                width=8,
                root_width=12,
                vcf_depth=0,
                safety_moves=0,
                threat_eval=False,
                reductions=False,
            ),
            0.3,
            noise=50,
        ),
        Level(
            "advanced",
            SearchConfig(max_depth=3, width=10, root_width=14, vcf_depth=10, safety_moves=6),
            0.3,
        ),
        Level("master", SearchConfig(vct_depth=3, defend_vct=True), None),
    )
}
LEVEL_NAMES = tuple(LEVELS)


def get_level(level: Level | str) -> Level:
    """The level named ``level`` (case-insensitive), or ``level`` itself."""
    if isinstance(level, Level):
        return level
    try:
        return LEVELS[level.strip().lower()]
    except KeyError:
        raise ValueError(
            f"unknown level {level!r}; choose one of {', '.join(LEVEL_NAMES)}"
        ) from None


def human_move(pos: Position, level: Level, rng: random.Random) -> tuple[int, str]:
    """A one-move-deep choice by shape, with the level's blind spots: it completes
    a five, blocks a four (unless it misses it), plays a winning four-three or open
    four of its own, answers an open three (unless it misses them), and otherwise
    plays the best-looking shape near the stones, with some randomness.

    Returns the cell and why it was chosen ("win", "block", "threat", "positional")."""
    me = pos.side
    opp = 3 - me
    five = pos.first_with_class(me, pt.K_FIVE)
    if five >= 0:
        return five, "win"
    blind: set[int] = set()  # the opponent's threat points this player overlooks
    their_fives = [i for i in pos.cells_with_class(opp, pt.K_FIVE) if legal_for(pos, me, i)]
    if their_fives:
        if rng.random() >= level.miss_four:
            return their_fives[0], "block"
        blind.update(their_fives)
    if rng.random() >= level.miss_three:
        attack = [i for i in pos.cells_with_class(me, pt.K_FOUR_THREE) if legal_for(pos, me, i)]
        if attack:
            return max(attack, key=lambda i: (pos.cls[me][i], pos.value(me, i))), "threat"
    if flex_four_cell(pos, opp) >= 0:
        defences = set(pos.cells_with_class(opp, pt.K_FOUR)) | set(
            pos.cells_with_class(me, pt.K_FOUR)
        )
        legal = [i for i in defences if legal_for(pos, me, i)]
        if legal and rng.random() >= level.miss_three:
            return max(legal, key=lambda i: pos.value(opp, i) + rng.random()), "block"
        blind.update(pos.cells_with_class(opp, pt.K_FOUR))
    near = pos.near
    scored = []
    for i in pos.candidates():
        if not legal_for(pos, me, i):
            continue
        defence = 0 if i in blind else pos.value(opp, i)
        shape = level.attack * pos.value(me, i) + defence + 4 * near[i]
        scored.append((shape + rng.uniform(0, level.noise), i))
    if not scored:
        legal = [i for i in pos.on_board if pos.is_legal(i)]
        return rng.choice(legal), "positional"
    _, best = max(scored)
    reason = "threat" if pos.cls[me][best] >= pt.K_THREE else "positional"
    return best, reason
