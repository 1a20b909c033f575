"""What a search may do (:class:`SearchConfig`) and what its scores mean.

The search itself lives in :mod:`engine.ai.core` (run compiled or as plain Python,
see :mod:`engine.ai.backend`): PVS alpha-beta with iterative deepening, aspiration
windows, a transposition table kept between moves, killer moves and late-move
reductions, over threat-based move generation; VCF and VCT threat-space search at
the root (its own forced wins first, then the opponent's, whose answers become the
candidates) and, with ``leaf_vcf``, at the leaves.

Scores are from the side to move's point of view. A forced win proven ``n`` plies
from the root scores ``WIN - n``; a proven loss ``-(WIN - n)``. Only a proof makes
such a score (see :mod:`engine.ai.core`); a line that merely looks lost scores
``-LIKELY_LOSS``, short of ``MATE_BOUND``. The three are the core's own
(:mod:`engine.ai.core.constants`), named here for the rest of the AI.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.ai.core.constants import LIKELY_LOSS as LIKELY_LOSS
from engine.ai.core.constants import MATE_BOUND as MATE_BOUND
from engine.ai.core.constants import WIN as WIN

REASONS = ("win", "block", "threat", "positional")  # by the core's reason codes


@dataclass(frozen=True)
class SearchConfig:
    """How hard the search tries. ``vct_depth`` 0 skips the side to move's VCT at the
    root; ``defend_vct`` also looks for the opponent's VCT (not only its VCF) there;
    ``leaf_vcf`` is the VCF depth tried at the leaves (0: none)."""

    max_depth: int = 40
    width: int = 12
    root_width: int = 24
    vcf_depth: int = 16
    vct_depth: int = 0
    safety_moves: int = 10  # root moves checked for an opponent VCF after them
    defend_vct: bool = False
    threat_eval: bool = True
    reductions: bool = True  # late-move reductions
    vct_width: int = 12  # attacking moves a VCT node tries
    leaf_vcf: int = 0


def win_in(plies: int) -> int | None:
    """Own moves to a proven five, from the plies of the proof (0: none): the side to
    move can force five in at most this many of its own moves."""
    return (plies + 1) // 2 if plies > 0 else None
