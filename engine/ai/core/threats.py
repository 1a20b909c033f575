"""The AI core's threat-space search (layer 2 of :mod:`engine.ai.core`): the node
budget and the clock, VCF (continuous fours) and VCT (threes and fours) in the
manner of Allis, with the winning line kept, and the memos of positions that
failed. Renju's fouls (layer 1) bind Black's threats and defences."""

from __future__ import annotations

from array import array
from collections.abc import Callable

from .constants import (
    BLACK,
    EMPTY,
    K_FIVE,
    K_FOUR,
    K_FOUR_FOUR,
    K_FOUR_THREE,
    K_OPEN_FOUR,
    K_THREE,
    K_THREE_THREE,
    LINE_CAP,
    MEMO_BITS,
    MOVE_CAP,
    RENJU,
    VPLY,
)
from .lines import LineBoard

COMPILED = not __file__.endswith(".py")


class ThreatSearch(LineBoard):
    """A board that can search for forced wins by fours (``vcf``) and by threes and
    fours (``vct``) within a node and time budget."""

    def __init__(self, size: int, rule: int) -> None:
        super().__init__(size, rule)
        self.memo_mask = (1 << MEMO_BITS) - 1
        self.vcf_key = array("Q", [0]) * (1 << MEMO_BITS)
        self.vcf_depth = array("i", [-1]) * (1 << MEMO_BITS)
        self.vct_key = array("Q", [0]) * (1 << MEMO_BITS)
        self.vct_depth = array("i", [-1]) * (1 << MEMO_BITS)
        self.vmv = array("i", [0]) * (VPLY * MOVE_CAP)
        self.vmk = array("q", [0]) * (VPLY * MOVE_CAP)
        self.line = array("i", [0]) * (VPLY * LINE_CAP)
        self.line_len = array("i", [0]) * VPLY
        self.nodes = 0
        self.node_cap = 1 << 62
        self.stop_at = float("inf")
        self.aborted = False
        self.bounded_done = True
        self.clock: Callable[[], float] | None = None
        self.clock_every = 255
        # Search settings (copied from a SearchConfig by ``Core.search``).
        self.c_vcf = 16
        self.c_vct_width = 12

    # -- threats --------------------------------------------------------------

    def flex_four_cell(self, c: int) -> int:
        """A legal cell where ``c`` makes an open four or a double four (-1 if none).
        A double four is a renju foul for Black, so it only counts for others."""
        if not (self.count[c * 8 + K_OPEN_FOUR] or self.count[c * 8 + K_FOUR_FOUR]):
            return -1
        base = c * self.T
        renju_black = c == BLACK and self.rule == RENJU
        for n in range(self.ncells):
            i = self.board[n]
            if self.cells[i] != EMPTY:
                continue
            k = self.cls[base + i]
            if k != K_OPEN_FOUR and k != K_FOUR_FOUR:
                continue
            if renju_black and (k != K_OPEN_FOUR or self.is_forbidden(i)):
                continue
            return i
        return -1

    def _five_point_after(self, c: int, i: int) -> int:
        """After ``c`` played a four at ``i``: a cell on ``i``'s lines where ``c`` now
        makes five (-1 if none)."""
        base = c * self.T
        for di in range(4):
            d = self.dirs[di]
            for k in (-4, -3, -2, -1, 1, 2, 3, 4):
                q = i + k * d
                if self.cells[q] == EMPTY and self.cls[base + q] == K_FIVE:
                    return q
        return -1

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes >= self.node_cap:
            self.aborted = True
        elif (self.nodes & self.clock_every) == 0 and self.clock is not None:
            if self.clock() >= self.stop_at:
                self.aborted = True

    def _set_line(self, vp: int, first: int, second: int) -> None:
        """Line ``vp`` := ``first`` (if >= 0), ``second`` (if >= 0), then line ``vp + 1``."""
        base = vp * LINE_CAP
        n = 0
        if first >= 0:
            self.line[base] = first
            n = 1
        if second >= 0:
            self.line[base + n] = second
            n += 1
        if vp + 1 < VPLY:
            child = (vp + 1) * LINE_CAP
            rest = self.line_len[vp + 1]
            if n + rest > LINE_CAP:
                rest = LINE_CAP - n
            for j in range(rest):
                self.line[base + n + j] = self.line[child + j]
            n += rest
        self.line_len[vp] = n

    def _line_of(self, vp: int) -> list[int]:
        base = vp * LINE_CAP
        return [self.line[base + j] for j in range(self.line_len[vp])]

    def _sort(self, mv: array[int], mk: array[int], start: int, n: int) -> None:
        """Sort moves ``mv[start : start + n]`` by their keys ``mk``, largest first, ties
        by cell index."""
        if not COMPILED:
            pairs = []
            for j in range(n):
                pairs.append((-mk[start + j], mv[start + j]))
            pairs.sort()
            for j in range(n):
                mk[start + j] = -pairs[j][0]
                mv[start + j] = pairs[j][1]
            return
        for j in range(1, n):
            m = mv[start + j]
            k = mk[start + j]
            h = j - 1
            while h >= 0 and (mk[start + h] < k or (mk[start + h] == k and mv[start + h] > m)):
                mv[start + h + 1] = mv[start + h]
                mk[start + h + 1] = mk[start + h]
                h -= 1
            mv[start + h + 1] = m
            mk[start + h + 1] = k

    def _memo_failed(self, which: int, depth: int) -> bool:
        slot = self.hash & self.memo_mask
        if which == 0:
            return self.vcf_key[slot] == self.hash and self.vcf_depth[slot] >= depth
        return self.vct_key[slot] == self.hash and self.vct_depth[slot] >= depth

    def _memo_fail(self, which: int, depth: int) -> None:
        slot = self.hash & self.memo_mask
        if which == 0:
            self.vcf_key[slot] = self.hash
            self.vcf_depth[slot] = depth
        else:
            self.vct_key[slot] = self.hash
            self.vct_depth[slot] = depth

    def _five_line(self, a: int, vp: int) -> bool:
        """Whether ``a`` (to move) makes five at once; if so, line ``vp`` := that point."""
        five = self.first_with_class(a, K_FIVE)
        if five < 0:
            return False
        self.line[vp * LINE_CAP] = five
        self.line_len[vp] = 1
        return True

    def _finish_flex(self, a: int, i: int, vp: int) -> int:
        """Line ``vp`` after ``a`` plays an open/double four at ``i``: 3 plies."""
        self.play(i)
        block = self.first_with_class(a, K_FIVE)
        self.play(block)
        final = self.first_with_class(a, K_FIVE)
        self.undo()
        self.undo()
        base = vp * LINE_CAP
        self.line[base] = i
        self.line[base + 1] = block
        self.line[base + 2] = final
        self.line_len[vp] = 3
        return 3

    def vcf(self, depth: int, vp: int) -> int:
        """Plies to a five the side to move forces by continuous fours, at most
        ``depth`` fours deep (0: none found); the line goes to line ``vp``."""
        self._tick()
        if self.aborted or vp >= VPLY - 4:
            return 0
        a = self.side()
        d = 3 - a
        if self._five_line(a, vp):
            return 1
        nd = self.count[d * 8 + K_FIVE]
        if nd > 1:
            return 0
        if nd == 0:
            flex = self.flex_four_cell(a)
            if flex >= 0:
                return self._finish_flex(a, flex, vp)
        if depth <= 0 or self._memo_failed(0, depth):
            return 0
        start = vp * MOVE_CAP
        n = 0
        if nd == 1:
            block = self.first_with_class(d, K_FIVE)
            if self.cls[a * self.T + block] >= K_FOUR:
                self.vmv[start] = block
                n = 1
        else:
            base = a * self.T
            for j in range(self.ncells):
                i = self.board[j]
                if self.cells[i] == EMPTY and self.cls[base + i] >= K_FOUR:
                    if n < MOVE_CAP:
                        self.vmv[start + n] = i
                        self.vmk[start + n] = self.cls[base + i] * 100_000 + self.val[base + i]
                        n += 1
            self._sort(self.vmv, self.vmk, start, n)
        for j in range(n):
            m = self.vmv[start + j]
            if not self.legal_for(a, m):
                continue
            self.play(m)
            r = self._after_four(a, m, depth, vp + 1, 0, 0)
            self.undo()
            if self.aborted:
                return 0
            if r:
                self._set_line(vp, m, -1)
                return r + 1
        self._memo_fail(0, depth)
        return 0

    def _after_four(self, a: int, m: int, depth: int, vp: int, vct: int, vcf_depth: int) -> int:
        """The defender (to move) must block the four ``a`` just made at ``m``; then
        the attacker goes on by fours (or, with ``vct``, by threes and fours)."""
        d = 3 - a
        if self.count[d * 8 + K_FIVE]:
            return 0  # the defender makes five instead of blocking
        block = self._five_point_after(a, m)
        if block < 0:
            return 0
        if not self.legal_for(d, block):
            self.line_len[vp] = 0
            return 2  # no legal block: anything, then the attacker's five
        self.play(block)
        if vct:
            r = self._vct(depth, vcf_depth, vp + 1)
        else:
            r = self.vcf(depth - 1, vp + 1)
        self.undo()
        if r == 0:
            return 0
        self._set_line(vp, block, -1)
        return r + 1

    def vct(self, depth: int, vcf_depth: int, vp: int) -> int:
        """Plies to a five the side to move forces by threes and fours, ``depth``
        attacking moves deep (0: none found); the line goes to line ``vp``.
        Against each three every defence is tried (the points that stop it and the
        defender's own fours), and the count is the longest: the defender picks."""
        return self._vct(depth, vcf_depth, vp)

    def _vct(self, depth: int, vcf_depth: int, vp: int) -> int:
        self._tick()
        if self.aborted or vp >= VPLY - 8:
            return 0
        r = self.vcf(vcf_depth, vp)
        if r or depth <= 0 or self.aborted:
            return r
        if self._memo_failed(1, depth):
            return 0
        a = self.side()
        d = 3 - a
        if self.count[d * 8 + K_FIVE]:
            return 0  # must block a four; VCF above already tried blocking with a four
        start = vp * MOVE_CAP
        n = 0
        base = a * self.T
        for j in range(self.ncells):
            i = self.board[j]
            if self.cells[i] != EMPTY:
                continue
            k = self.cls[base + i]
            if k == K_THREE or k == K_THREE_THREE or k == K_FOUR or k == K_FOUR_THREE:
                if n < MOVE_CAP:
                    self.vmv[start + n] = i
                    self.vmk[start + n] = k * 100_000 + self.val[base + i]
                    n += 1
        self._sort(self.vmv, self.vmk, start, n)
        if n > self.c_vct_width:
            n = self.c_vct_width
        for j in range(n):
            m = self.vmv[start + j]
            if not self.legal_for(a, m):
                continue
            four = self.cls[base + m] >= K_FOUR
            self.play(m)
            if four:
                r = self._after_four(a, m, depth - 1, vp + 1, 1, vcf_depth)
            else:
                r = self._defend_three(depth, vcf_depth, vp + 1)
            self.undo()
            if self.aborted:
                return 0
            if r:
                self._set_line(vp, m, -1)
                return r + 1
        self._memo_fail(1, depth)
        return 0

    def _defend_three(self, depth: int, vcf_depth: int, vp: int) -> int:
        """The defender (to move) answers an open three; the attacker must win against
        every answer. Plies: the longest over the answers, and at least 4 (a move that
        does not answer meets the straight four and the five)."""
        d = self.side()
        a = 3 - d
        if self.count[d * 8 + K_FIVE]:
            return 0
        if self.flex_four_cell(a) < 0:
            return 0  # the "three" threatens no straight four (e.g. a renju fake)
        start = vp * MOVE_CAP
        n = 0
        ba = a * self.T
        bd = d * self.T
        for j in range(self.ncells):
            i = self.board[j]
            if self.cells[i] != EMPTY:
                continue
            if self.cls[ba + i] >= K_FOUR or self.cls[bd + i] >= K_FOUR:
                if n < MOVE_CAP:
                    self.vmv[start + n] = i
                    self.vmk[start + n] = self.val[ba + i]
                    n += 1
        self._sort(self.vmv, self.vmk, start, n)
        worst = 0
        tried = 0
        for j in range(n):
            r = self.vmv[start + j]
            if not self.legal_for(d, r):
                continue
            tried += 1
            self.play(r)
            if self.count[d * 8 + K_FIVE]:
                x = self._block_counter_four(depth, vcf_depth, vp + 1)
            else:
                x = self._vct(depth - 1, vcf_depth, vp + 1)
            self.undo()
            if self.aborted or x == 0:
                return 0
            if x + 1 > worst:
                worst = x + 1
                self._set_line(vp, r, -1)
        if not tried:
            self.line_len[vp] = 0
        return worst if worst > 4 else 4

    def _block_counter_four(self, depth: int, vcf_depth: int, vp: int) -> int:
        """The attacker (to move) meets the defender's four: five if it can, else the
        block, and the defender must answer the standing three again."""
        self._tick()
        if self.aborted:
            return 0
        a = self.side()
        d = 3 - a
        if self._five_line(a, vp):
            return 1
        if self.count[d * 8 + K_FIVE] != 1:
            return 0
        block = self.first_with_class(d, K_FIVE)
        if not self.legal_for(a, block):
            return 0
        self.play(block)
        x = self._defend_three(depth, vcf_depth, vp + 1)
        self.undo()
        if x == 0:
            return 0
        self._set_line(vp, block, -1)
        return x + 1

    def _bounded(self, kind: int, depth: int, deadline: float, node_limit: int) -> int:
        """A VCF (kind 0) or VCT (1) for the side to move within ``deadline`` and
        ``node_limit`` more nodes; plies or 0. Clears an abort it caused itself, so the
        caller goes on unless its own budget ran out."""
        saved_stop = self.stop_at
        saved_cap = self.node_cap
        if deadline < self.stop_at:
            self.stop_at = deadline
        if node_limit > 0 and self.nodes + node_limit < self.node_cap:
            self.node_cap = self.nodes + node_limit
        stones = self.nstones
        if kind == 0:
            r = self.vcf(depth, 0)
        else:
            r = self._vct(depth, self.c_vcf, 0)
        while self.nstones > stones:
            self.undo()
        self.stop_at = saved_stop
        self.node_cap = saved_cap
        self.bounded_done = not self.aborted
        if self.aborted:
            self.aborted = self._out_of_budget()
            return 0
        return r

    def _out_of_budget(self) -> bool:
        if self.nodes >= self.node_cap:
            return True
        return self.clock is not None and self.clock() >= self.stop_at
