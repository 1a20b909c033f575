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
from typing import Any

from engine.ai import patterns as pt
from engine.ai.search import SearchConfig


@dataclass(frozen=True)
class Level:
    """A named strength. ``search`` None means the one-move "human" player;
    ``max_time`` caps the seconds per move whatever the clock allows;
    ``noise`` is the score margin within which the search picks at random;
    ``miss_four``/``miss_three`` are the chances of overlooking such a threat;
    ``words`` says how it plays, for a player choosing one (both clients show it)."""

    name: str
    search: SearchConfig | None
    max_time: float | None
    noise: int = 0
    miss_four: float = 0.0
    miss_three: float = 0.0
    attack: float = 1.0  # weight of own shape against the opponent's, for the human player
    words: str = ""


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level(
            "beginner",
            None,
            0.05,
            noise=80,
            miss_four=0.35,
            miss_three=0.8,
            attack=1.4,
            words="first games: misses threats",
        ),
        Level(
            "novice",
            None,
            0.05,
            noise=10,
            miss_four=0.0,
            miss_three=0.1,
            attack=1.0,
            words="blocks fours, sees shapes",
        ),
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
            words="reads two moves ahead",
        ),
        Level(
            "advanced",
            SearchConfig(max_depth=3, width=10, root_width=14, vcf_depth=10, safety_moves=6),
            0.3,
            words="finds forced wins",
        ),
        Level("master", SearchConfig(vct_depth=3, defend_vct=True), None, words="full strength"),
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


def human_move(core: Any, level: Level, rng: random.Random) -> tuple[int, str]:
    """A one-move-deep choice by shape on ``core`` (an :class:`engine.ai.core.root.Core`),
    with the level's blind spots: it completes a five, blocks a four (unless it misses
    it), plays a winning four-three or open four of its own, answers an open three
    (unless it misses them), and otherwise plays the best-looking shape near the
    stones, with some randomness.

    Returns the cell and why it was chosen ("win", "block", "threat", "positional")."""
    me = core.side()
    opp = 3 - me
    five = core.first_with_class(me, pt.K_FIVE)
    if five >= 0:
        return int(five), "win"
    blind: set[int] = set()  # the opponent's threat points this player overlooks
    their_fives = [i for i in core.cells_with_class(opp, pt.K_FIVE) if core.legal_for(me, i)]
    if their_fives:
        if rng.random() >= level.miss_four:
            return their_fives[0], "block"
        blind.update(their_fives)
    if rng.random() >= level.miss_three:
        attack = [i for i in core.cells_with_class(me, pt.K_FOUR_THREE) if core.legal_for(me, i)]
        if attack:
            best = max(attack, key=lambda i: (core.class_of(me, i), core.value_of(me, i)))
            return best, "threat"
    if core.flex_four_cell(opp) >= 0:
        defences = set(core.cells_with_class(opp, pt.K_FOUR))
        defences |= set(core.cells_with_class(me, pt.K_FOUR))
        legal = sorted(i for i in defences if core.legal_for(me, i))
        if legal and rng.random() >= level.miss_three:
            return max(legal, key=lambda i: core.value_of(opp, i) + rng.random()), "block"
        blind.update(core.cells_with_class(opp, pt.K_FOUR))
    scored = []
    for i in core.candidates():
        if not core.legal_for(me, i):
            continue
        defence = 0 if i in blind else core.value_of(opp, i)
        shape = level.attack * core.value_of(me, i) + defence + 4 * core.near_of(i)
        scored.append((shape + rng.uniform(0, level.noise), i))
    if not scored:  # no stone to play near: an empty board
        legal = [i for i in core.on_board() if core.is_empty(i) and core.legal_for(me, i)]
        middle = (core.size - 1) / 2
        centre = [  # where a person opens, weak or not: the centre or next to it
            i for i in legal if max(abs(c - middle) for c in core.point(i)) <= 1
        ]
        return rng.choice(centre or legal), "positional"
    _, best = max(scored)
    reason = "threat" if core.class_of(me, best) >= pt.K_THREE else "positional"
    return best, reason
