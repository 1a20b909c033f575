"""The numbers the AI core's layers share: threat classes, colours, rules, score
bounds, buffer sizes and the reasons a move was chosen.

Plain Python, never compiled: each compiled layer declares the ones it uses as C
ints in its ``.pxd`` and imports them from here once, when it is loaded (a C global
then, not a dictionary lookup in the hot loops).
"""

from __future__ import annotations

from engine.ai import patterns as pt

# Threat classes, as in engine.ai.patterns (checked below).
K_THREE = 1
K_THREE_THREE = 2
K_FOUR = 3
K_FOUR_THREE = 4
K_FOUR_FOUR = 5
K_OPEN_FOUR = 6
K_FIVE = 7
if (K_THREE, K_THREE_THREE, K_FOUR, K_FOUR_THREE, K_FOUR_FOUR, K_OPEN_FOUR, K_FIVE) != (
    pt.K_THREE,
    pt.K_THREE_THREE,
    pt.K_FOUR,
    pt.K_FOUR_THREE,
    pt.K_FOUR_FOUR,
    pt.K_OPEN_FOUR,
    pt.K_FIVE,
):
    raise ImportError("engine.ai.core: threat classes out of step with engine.ai.patterns")

PAD = 5
EMPTY = 0
BLACK = 1
WHITE = 2
WALL = 3

FREESTYLE = 0
STANDARD = 1
RENJU = 2

WIN = 1_000_000
MATE_BOUND = WIN - 10_000
LIKELY_LOSS = MATE_BOUND - 1
INFINITY = WIN + 1
ASPIRATION = 120
MAX_PLY = 96  # alpha-beta plies (forced blocks included)
MOVE_CAP = 400  # moves a node may list (a 19x19 board has 361 cells; 20x20+ are cut)
VPLY = 160  # threat-search plies
LINE_CAP = 160  # moves a threat line may hold
MEMO_BITS = 16

FOUR_THREE_BONUS = 3000
THREE_THREE_BONUS = 1500
THREE_THREE_ANSWERED_BONUS = 400

# Reasons a move was chosen (the Python side names them).
R_WIN = 0
R_BLOCK = 1
R_THREAT = 2
R_POSITIONAL = 3
