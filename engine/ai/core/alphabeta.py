"""The AI core's alpha-beta search (layer 3 of :mod:`engine.ai.core`): the static
evaluation, move generation (restricted to the answers when the opponent has a
four or an open three), and principal variation search with a transposition
table, killer moves and late-move reductions."""

from __future__ import annotations

from array import array

from .constants import (
    BLACK,
    EMPTY,
    FOUR_THREE_BONUS,
    INFINITY,
    K_FIVE,
    K_FOUR,
    K_FOUR_FOUR,
    K_FOUR_THREE,
    K_OPEN_FOUR,
    K_THREE,
    K_THREE_THREE,
    LIKELY_LOSS,
    MATE_BOUND,
    MAX_PLY,
    MOVE_CAP,
    RENJU,
    THREE_THREE_ANSWERED_BONUS,
    THREE_THREE_BONUS,
    WIN,
)
from .threats import ThreatSearch

_TT_OFFSET = 1 << 22


class AlphaBeta(ThreatSearch):
    """A board with the threat searches and an alpha-beta search over it, with a
    transposition table of ``2 ** tt_bits`` entries."""

    def __init__(self, size: int, rule: int, tt_bits: int = 20) -> None:
        super().__init__(size, rule)
        self.tt_mask = (1 << tt_bits) - 1
        self.tt_key = array("Q", [0]) * (1 << tt_bits)
        self.tt_val = array("q", [0]) * (1 << tt_bits)
        self.mv = array("i", [0]) * (MAX_PLY * MOVE_CAP)
        self.mk = array("q", [0]) * (MAX_PLY * MOVE_CAP)
        self.killers = array("i", [-1]) * (2 * MAX_PLY)
        # Search settings (copied from a SearchConfig by ``Core.search``).
        self.c_width = 12
        self.c_threat_eval = True
        self.c_reductions = True
        self.c_leaf_vcf = 0

    # -- alpha-beta -------------------------------------------------------------

    def evaluate(self) -> int:
        """Static value for the side to move: both sides' cell values, own minus the
        opponent's, and the worth of having the move with a four-three or three-three
        to make. Called where neither side has a five to make and the side to move
        has no open four to make: those are decided before."""
        me = self.side()
        opp = 3 - me
        score = self.tot[me] - self.tot[opp]
        if not self.c_threat_eval:
            return score
        if self.count[me * 8 + K_FOUR_THREE]:
            return score + FOUR_THREE_BONUS
        if self.count[opp * 8 + K_OPEN_FOUR] or self.count[opp * 8 + K_FOUR_FOUR]:
            return score
        if self.count[me * 8 + K_THREE_THREE] and not (self.rule == RENJU and me == BLACK):
            if self.count[opp * 8 + K_FOUR] or self.count[opp * 8 + K_FOUR_THREE]:
                return score + THREE_THREE_ANSWERED_BONUS
            return score + THREE_THREE_BONUS
        return score

    def generate(self, me: int, width: int, ply: int, tt_move: int) -> int:
        """Moves for ``me`` at ``ply`` into the move buffer, best first, at most
        ``width`` unless the opponent's open three restricts them to its answers
        (then all of them, and the count is negated: the list is complete)."""
        opp = 3 - me
        start = ply * MOVE_CAP
        n = 0
        forced = self.flex_four_cell(opp) >= 0
        bm = me * self.T
        bo = opp * self.T
        renju_black = me == BLACK and self.rule == RENJU
        if self.nstones == 0:
            self.mv[start] = self.index(self.size // 2, self.size // 2)
            return 1
        for j in range(self.ncells):
            i = self.board[j]
            if self.cells[i] != EMPTY:
                continue
            if forced:
                if self.cls[bm + i] < K_FOUR and self.cls[bo + i] < K_FOUR:
                    continue
            elif not self.near[i]:
                continue
            if renju_black and self.is_forbidden(i):
                continue
            if n < MOVE_CAP:
                self.mv[start + n] = i
                self.mk[start + n] = self.val[bm + i] + self.val[bo + i]
                n += 1
        self._sort(self.mv, self.mk, start, n)
        if forced:
            width = n
        # The table's move and the killers first (those that are in the list).
        head = 0
        k1 = self.killers[2 * ply] if ply < MAX_PLY else -1
        k2 = self.killers[2 * ply + 1] if ply < MAX_PLY else -1
        for f in range(3):
            m = tt_move if f == 0 else (k1 if f == 1 else k2)
            if m < 0:
                continue
            found = -1
            for j in range(head, n):
                if self.mv[start + j] == m:
                    found = j
                    break
            if found < 0:
                continue
            for j in range(found, head, -1):
                self.mv[start + j] = self.mv[start + j - 1]
            self.mv[start + head] = m
            head += 1
        limit = width if width > head else head
        if n > limit:
            n = limit
        return -n if forced else n

    def _leaf(self, ply: int) -> int:
        """A leaf: the evaluation, unless the side to move has a short VCF."""
        if self.c_leaf_vcf > 0 and self.has_class(self.side(), K_FOUR):
            r = self.vcf(self.c_leaf_vcf, 0)
            if self.aborted:
                return 0
            if r:
                return WIN - ply - r
        return self.evaluate()

    def pvs(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        self._tick()
        if self.aborted:
            return 0
        me = self.side()
        opp = 3 - me
        if self.count[me * 8 + K_FIVE]:
            return WIN - ply - 1
        if self.nstones >= self.ncells:
            return 0
        if self.count[opp * 8 + K_FIVE]:
            block = self.first_with_class(opp, K_FIVE)
            if self.count[opp * 8 + K_FIVE] > 1 or not self.legal_for(me, block):
                return -(WIN - ply - 2)
            if ply + 1 >= MAX_PLY:
                return self.evaluate()
            self.play(block)
            score = -self.pvs(depth, -beta, -alpha, ply + 1)
            self.undo()
            return score
        if (
            self.count[me * 8 + K_OPEN_FOUR] or self.count[me * 8 + K_FOUR_FOUR]
        ) and self.flex_four_cell(me) >= 0:
            return WIN - ply - 3
        if depth <= 0 or ply + 1 >= MAX_PLY:
            return self._leaf(ply)
        slot = self.hash & self.tt_mask
        tt_move = -1
        if self.tt_key[slot] == self.hash:
            entry = self.tt_val[slot]
            tt_move = ((entry >> 12) & 4095) - 1
            if ((entry >> 2) & 1023) >= depth:
                flag = entry & 3
                e_score = (entry >> 24) - _TT_OFFSET
                if e_score >= MATE_BOUND:
                    e_score -= ply
                elif e_score <= -MATE_BOUND:
                    e_score += ply
                if flag == 0:
                    return e_score
                if flag == 1 and e_score >= beta:
                    return e_score
                if flag == 2 and e_score <= alpha:
                    return e_score
        n = self.generate(me, self.c_width, ply, tt_move)
        complete = n < 0
        if complete:
            n = -n
        if n == 0:
            return self.evaluate()
        reduce = self.c_reductions and depth >= 3 and n > 4
        start = ply * MOVE_CAP
        original_alpha = alpha
        best_score = -INFINITY
        best_move = self.mv[start]
        child = depth - 1
        bm = me * self.T
        bo = opp * self.T
        for j in range(n):
            m = self.mv[start + j]
            quiet = reduce and j >= 3 and self.cls[bm + m] < K_THREE
            quiet = quiet and self.cls[bo + m] < K_THREE
            self.play(m)
            if j == 0:
                score = -self.pvs(child, -beta, -alpha, ply + 1)
            else:
                if quiet:
                    score = -self.pvs(child - 1, -alpha - 1, -alpha, ply + 1)
                    if score > alpha and not self.aborted:
                        score = -self.pvs(child, -alpha - 1, -alpha, ply + 1)
                else:
                    score = -self.pvs(child, -alpha - 1, -alpha, ply + 1)
                if alpha < score < beta and not self.aborted:
                    score = -self.pvs(child, -beta, -alpha, ply + 1)
            self.undo()
            if self.aborted:
                return 0
            if score > best_score:
                best_score = score
                best_move = m
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if m != tt_move and self.killers[2 * ply] != m:
                            self.killers[2 * ply + 1] = self.killers[2 * ply]
                            self.killers[2 * ply] = m
                        break
        if best_score <= -MATE_BOUND:
            if not complete:
                best_score = -LIKELY_LOSS
            elif best_score < -(WIN - ply - 4):
                best_score = -(WIN - ply - 4)  # a move that ignores the three loses in 4
        if best_score <= original_alpha:
            flag = 2
        elif best_score >= beta:
            flag = 1
        else:
            flag = 0
        stored = best_score
        if stored >= MATE_BOUND:
            stored += ply
        elif stored <= -MATE_BOUND:
            stored -= ply
        self.tt_key[slot] = self.hash
        self.tt_val[slot] = (
            (stored + _TT_OFFSET) << 24
            | (best_move + 1) << 12
            | (depth if depth < 1023 else 1023) << 2
            | flag
        )
        return best_score
