"""Threat-space search: forced wins by continuous fours (VCF) and by threes and
fours (VCT), for the side to move.

Both work on a :class:`~engine.ai.position.Position` in place (every move is
undone before returning) and stop when the shared :class:`Budget` runs out.
A found win is a :class:`Win`: the principal variation and the number of
plies to the five. When the defender's forced block is a forbidden point
(renju, Black defending) the defender cannot block at all; the variation then
ends with the attacker's four and ``plies`` counts the five that follows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from engine.ai import patterns as pt
from engine.ai.position import BLACK, Position


class OutOfTime(Exception):
    """The budget ran out; the search unwinds and answers with what it has."""


@dataclass
class Budget:
    """A deadline on ``clock`` and a node limit, checked every 64 nodes."""

    clock: Callable[[], float]
    deadline: float
    node_limit: int | None = None
    nodes: int = 0

    def tick(self) -> None:
        self.nodes += 1
        if self.nodes & 63 == 0:
            if self.clock() >= self.deadline:
                raise OutOfTime
            if self.node_limit is not None and self.nodes >= self.node_limit:
                raise OutOfTime


@dataclass
class Win:
    pv: list[int]
    plies: int


@dataclass
class _Memo:
    failed: dict[int, int] = field(default_factory=dict)  # hash -> depth that failed


def legal_for(pos: Position, colour: int, i: int) -> bool:
    """Whether ``colour`` may play the empty cell ``i`` (only Black in renju may not)."""
    return not (colour == BLACK and pos.mirror is not None and pos.is_forbidden(i))


def flex_four_cell(pos: Position, colour: int) -> int:
    """A legal cell where ``colour`` makes an open four or a double four (-1 if none).
    A double four is a renju foul for Black, so it only counts for others."""
    for i in pos.cells_with_class(colour, pt.K_FOUR_FOUR):
        if pos.cls[colour][i] == pt.K_FIVE:
            continue
        renju_black = colour == BLACK and pos.mirror is not None
        if renju_black and (pos.cls[colour][i] != pt.K_OPEN_FOUR or pos.is_forbidden(i)):
            continue
        return i
    return -1


def _finish_flex(pos: Position, attacker: int, i: int) -> Win:
    """The variation after ``attacker`` plays an open/double four at ``i``."""
    pos.play(i)
    fives = pos.cells_with_class(attacker, pt.K_FIVE)
    block = fives[0]
    pos.play(block)
    final = pos.first_with_class(attacker, pt.K_FIVE)
    pos.undo()
    pos.undo()
    return Win([i, block, final], 3)


def vcf(pos: Position, depth: int, budget: Budget) -> Win | None:
    """A win for the side to move by continuous fours, at most ``depth`` fours deep."""
    return _vcf(pos, depth, budget, _Memo())


def _vcf(pos: Position, depth: int, budget: Budget, memo: _Memo) -> Win | None:
    budget.tick()
    a = pos.side
    d = 3 - a
    five = pos.first_with_class(a, pt.K_FIVE)
    if five >= 0:
        return Win([five], 1)
    their_fives = pos.cells_with_class(d, pt.K_FIVE)
    if len(their_fives) > 1:
        return None
    if not their_fives:
        flex = flex_four_cell(pos, a)
        if flex >= 0:
            return _finish_flex(pos, a, flex)
    if depth <= 0 or memo.failed.get(pos.hash, -1) >= depth:
        return None
    if their_fives:
        block = their_fives[0]
        moves = [block] if pos.cls[a][block] >= pt.K_FOUR else []
    else:
        moves = pos.cells_with_class(a, pt.K_FOUR)
        cls = pos.cls[a]
        moves.sort(key=lambda i: (-cls[i], -pos.value(a, i)))
    for m in moves:
        if not legal_for(pos, a, m):
            continue
        pos.play(m)
        try:
            found = _after_four(pos, a, m, depth, budget, memo)
        finally:
            pos.undo()
        if found is not None:
            return Win([m, *found.pv], found.plies + 1)
    memo.failed[pos.hash] = depth
    return None


def _after_four(
    pos: Position, a: int, m: int, depth: int, budget: Budget, memo: _Memo
) -> Win | None:
    """The defender (to move) must block the four ``a`` just made at ``m``."""
    d = 3 - a
    if pos.has_class(d, pt.K_FIVE):
        return None  # the defender makes five instead of blocking
    block = pos.five_point_after(a, m)
    if block < 0:
        return None
    if not legal_for(pos, d, block):
        return Win([], 2)  # no legal block: the attacker's five follows
    pos.play(block)
    try:
        rest = _vcf(pos, depth - 1, budget, memo)
    finally:
        pos.undo()
    if rest is None:
        return None
    return Win([block, *rest.pv], rest.plies + 1)


def vct(pos: Position, depth: int, vcf_depth: int, budget: Budget) -> Win | None:
    """A win for the side to move by threes and fours, ``depth`` attacking moves deep
    (fours do not count against it). The defender answers a three with any of its
    own fours or any point that stops the three from becoming a straight four."""
    return _vct(pos, depth, vcf_depth, budget, _Memo(), _Memo())


def _vct(
    pos: Position, depth: int, vcf_depth: int, budget: Budget, memo: _Memo, vcf_memo: _Memo
) -> Win | None:
    budget.tick()
    win = _vcf(pos, vcf_depth, budget, vcf_memo)
    if win is not None or depth <= 0:
        return win
    if memo.failed.get(pos.hash, -1) >= depth:
        return None
    a = pos.side
    d = 3 - a
    if pos.has_class(d, pt.K_FIVE):
        return None  # must block a four; VCF above already tried blocking with a four
    cls = pos.cls[a]
    threes = [
        i for i in pos.cells_with_class(a, pt.K_THREE) if cls[i] in (pt.K_THREE, pt.K_THREE_THREE)
    ]
    threes.sort(key=lambda i: (-cls[i], -pos.value(a, i)))
    for m in threes[:12]:
        if not legal_for(pos, a, m):
            continue
        pos.play(m)
        try:
            found = _defend_three(pos, depth, vcf_depth, budget, memo, vcf_memo)
        finally:
            pos.undo()
        if found is not None:
            return Win([m, *found.pv], found.plies + 1)
    memo.failed[pos.hash] = depth
    return None


def _defend_three(
    pos: Position, depth: int, vcf_depth: int, budget: Budget, memo: _Memo, vcf_memo: _Memo
) -> Win | None:
    """The defender (to move) answers an open three; the attacker must win against
    every answer. Returns the line against the answer searched first.

    An answer that makes a four only delays: the attacker blocks it and the
    three still stands, so the defender must answer again (at the same depth)."""
    d = pos.side
    a = 3 - d
    if pos.count[d][pt.K_FIVE]:
        return None
    if flex_four_cell(pos, a) < 0:
        return None  # the "three" does not threaten a straight four (e.g. a renju fake)
    answers = set(pos.cells_with_class(a, pt.K_FOUR)) | set(pos.cells_with_class(d, pt.K_FOUR))
    first: Win | None = None
    tried = False
    for r in sorted(answers, key=lambda i: -pos.value(a, i)):
        if not legal_for(pos, d, r):
            continue
        tried = True
        pos.play(r)
        try:
            if pos.count[d][pt.K_FIVE]:
                found = _block_counter_four(pos, depth, vcf_depth, budget, memo, vcf_memo)
            else:
                found = _vct(pos, depth - 1, vcf_depth, budget, memo, vcf_memo)
        finally:
            pos.undo()
        if found is None:
            return None
        if first is None:
            first = Win([r, *found.pv], found.plies + 1)
    if not tried:
        return Win([], 4)  # no legal answer: the straight four and the five follow
    return first


def _block_counter_four(
    pos: Position, depth: int, vcf_depth: int, budget: Budget, memo: _Memo, vcf_memo: _Memo
) -> Win | None:
    """The attacker (to move) meets the defender's four: it makes five if it can,
    else blocks, and the defender must answer the standing three again."""
    budget.tick()
    a = pos.side
    d = 3 - a
    five = pos.first_with_class(a, pt.K_FIVE)
    if five >= 0:
        return Win([five], 1)
    fives = pos.cells_with_class(d, pt.K_FIVE)
    if len(fives) != 1 or not legal_for(pos, a, fives[0]):
        return None
    pos.play(fives[0])
    try:
        found = _defend_three(pos, depth, vcf_depth, budget, memo, vcf_memo)
    finally:
        pos.undo()
    if found is None:
        return None
    return Win([fives[0], *found.pv], found.plies + 1)
