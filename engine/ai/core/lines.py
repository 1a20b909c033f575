"""The AI core's board: the position with incremental line patterns, the threat
class and value of every empty cell for both colours, reading them, and renju's
fouls for Black (layer 1 of :mod:`engine.ai.core`)."""

from __future__ import annotations

import random
from array import array

from engine.ai import patterns as pt

from .constants import (
    BLACK,
    EMPTY,
    PAD,
    RENJU,
    STANDARD,
    WALL,
    WHITE,
)

# Line-key slots of the neighbour at offset -5..5 (patterns' layout); 0 unused.
_SLOT = {-4: 0, -3: 1, -2: 2, -1: 3, 1: 4, 2: 5, 3: 6, 4: 7, -5: 8, 5: 9}


def _zobrist(cells: int) -> array[int]:
    """Stone keys by ``colour * cells + cell``: fixed, so hashes repeat between runs."""
    rng = random.Random(0x5EED19)
    keys = array("Q", [0]) * (3 * cells)
    for n in range(cells, 3 * cells):
        keys[n] = rng.getrandbits(64)
    return keys


class LineBoard:
    """A position of ``size`` x ``size`` under ``rule`` (FREESTYLE, STANDARD or RENJU).
    ``play``/``undo`` keep the line keys, patterns, classes, values and counts of
    every empty cell up to date."""

    def __init__(self, size: int, rule: int) -> None:
        if not 5 <= size <= 26:
            raise ValueError(f"board size {size} is not 5 to 26")
        self.size = size
        self.rule = rule
        self.W = W = size + 2 * PAD
        self.T = T = W * W
        self.dirs = array("i", [1, W, W + 1, W - 1])
        black_exact = rule in (STANDARD, RENJU)
        white_exact = rule == STANDARD
        self.ltb = array("B", pt.line_table(black_exact, 10))
        self.ltw = array("B", pt.line_table(white_exact, 10))
        self.klass = array("B", pt.CLASS)
        self.score = array("i", pt.SCORE)
        self.suspect = array("B", pt.SUSPECT)
        # Neighbours of a cell along each direction and the weight of the slot in which
        # the neighbour sees that cell: nb_off[di * 10 + j], nb_w[di * 10 + j].
        self.nb_off = array("i", [0]) * 40
        self.nb_w = array("i", [0]) * 40
        for di in range(4):
            j = 0
            for k in (-5, -4, -3, -2, -1, 1, 2, 3, 4, 5):
                self.nb_off[di * 10 + j] = k * self.dirs[di]
                self.nb_w[di * 10 + j] = pt.POW3[_SLOT[-k]]
                j += 1
        self.near_off = array("i", [k * d for d in self.dirs for k in (-2, -1, 1, 2)])
        self.cells = array("B", [WALL]) * T
        self.board = array("i", [0]) * (size * size)
        n = 0
        for y in range(size):
            for x in range(size):
                i = (y + PAD) * W + x + PAD
                self.cells[i] = EMPTY
                self.board[n] = i
                n += 1
        self.ncells = size * size
        self.key = array("i", [0]) * (12 * T)  # key[(c * 4 + di) * T + i], c = 1, 2
        self.pat = array("B", [0]) * (12 * T)
        self.cls = array("B", [0]) * (3 * T)  # cls[c * T + i]
        self.val = array("i", [0]) * (3 * T)
        self.count = array("i", [0]) * 24  # count[c * 8 + k]: empty cells of class k
        self.tot = array("q", [0]) * 3
        self.near = array("i", [0]) * T
        self.stones = array("i", [0]) * (size * size + 1)
        self.nstones = 0
        self.passes = 0
        self.hash = 0
        self.zob = _zobrist(T)
        self.pass_key = 0x2545F4914F6CDD1D
        self._init_keys()

    # -- board ----------------------------------------------------------------

    def _init_keys(self) -> None:
        """Every cell's line keys from the cells around it (walls read as blocked)."""
        T = self.T
        for di in range(4):
            d = self.dirs[di]
            for i in range(T):
                kb = 0
                kw = 0
                for k in (-5, -4, -3, -2, -1, 1, 2, 3, 4, 5):
                    q = i + k * d
                    v = self.cells[q] if 0 <= q < T else WALL
                    if v == EMPTY:
                        continue
                    w = pt.POW3[_SLOT[k]]
                    kb += w * (1 if v == BLACK else 2)
                    kw += w * (1 if v == WHITE else 2)
                self.key[(4 + di) * T + i] = kb
                self.key[(8 + di) * T + i] = kw
        for n in range(self.ncells):
            self._refresh(self.board[n], True)

    def _refresh(self, i: int, fresh: bool) -> None:
        """Recompute the empty cell ``i``'s patterns, classes and values from its keys
        (``fresh``: it held no class and no value before)."""
        T = self.T
        pb = 0
        pw = 0
        for di in range(4):
            b = self.ltb[self.key[(4 + di) * T + i]]
            w = self.ltw[self.key[(8 + di) * T + i]]
            self.pat[(4 + di) * T + i] = b
            self.pat[(8 + di) * T + i] = w
            pb |= b << (4 * di)
            pw |= w << (4 * di)
        self._set_cell(i, pb, pw, fresh)

    def _set_cell(self, i: int, pb: int, pw: int, fresh: bool) -> None:
        T = self.T
        kb = self.klass[pb]
        kw = self.klass[pw]
        vb = self.score[pb]
        vw = self.score[pw]
        if not fresh:
            self.count[8 + self.cls[T + i]] -= 1
            self.count[16 + self.cls[2 * T + i]] -= 1
            self.tot[1] -= self.val[T + i]
            self.tot[2] -= self.val[2 * T + i]
        self.cls[T + i] = kb
        self.cls[2 * T + i] = kw
        self.count[8 + kb] += 1
        self.count[16 + kw] += 1
        self.val[T + i] = vb
        self.val[2 * T + i] = vw
        self.tot[1] += vb
        self.tot[2] += vw

    def _packed(self, c: int, i: int) -> int:
        T = self.T
        base = 4 * c * T + i
        return (
            self.pat[base]
            | self.pat[base + T] << 4
            | self.pat[base + 2 * T] << 8
            | self.pat[base + 3 * T] << 12
        )

    def side(self) -> int:
        """The colour to move."""
        return WHITE if (self.nstones + self.passes) & 1 else BLACK

    def play(self, i: int) -> None:
        """Place the side to move's stone on the empty cell ``i`` (no legality check)."""
        T = self.T
        c = WHITE if (self.nstones + self.passes) & 1 else BLACK
        self.cells[i] = c
        self.count[8 + self.cls[T + i]] -= 1
        self.count[16 + self.cls[2 * T + i]] -= 1
        self.tot[1] -= self.val[T + i]
        self.tot[2] -= self.val[2 * T + i]
        self.cls[T + i] = 0
        self.cls[2 * T + i] = 0
        self.val[T + i] = 0
        self.val[2 * T + i] = 0
        self._spread(i, c, 1)
        self.stones[self.nstones] = i
        self.nstones += 1
        self.hash ^= self.zob[c * T + i]
        for n in range(8):
            self.near[i + self.near_off[n]] += 1

    def undo(self) -> None:
        """Take back the last stone."""
        T = self.T
        self.nstones -= 1
        i = self.stones[self.nstones]
        c = self.cells[i]
        self.hash ^= self.zob[c * T + i]
        self.cells[i] = EMPTY
        self._spread(i, c, -1)
        self._refresh(i, True)
        for n in range(8):
            self.near[i + self.near_off[n]] -= 1

    def pass_turn(self) -> None:
        """Pass the move to the other side, or take the pass back: how the search asks
        what the opponent could do if it were their move."""
        self.passes ^= 1
        self.hash ^= self.pass_key

    def _spread(self, i: int, c: int, sign: int) -> None:
        """A stone of colour ``c`` placed (sign 1) on or lifted (-1) from ``i``: change
        the line keys of its neighbours and refresh the empty ones whose pattern moved."""
        T = self.T
        db = sign if c == BLACK else 2 * sign
        dw = sign if c == WHITE else 2 * sign
        for di in range(4):
            kb_base = (4 + di) * T
            kw_base = (8 + di) * T
            for j in range(10):
                q = i + self.nb_off[di * 10 + j]
                w = self.nb_w[di * 10 + j]
                kb = self.key[kb_base + q] + w * db
                kw = self.key[kw_base + q] + w * dw
                self.key[kb_base + q] = kb
                self.key[kw_base + q] = kw
                if self.cells[q] != EMPTY:
                    continue
                b = self.ltb[kb]
                wp = self.ltw[kw]
                if b == self.pat[kb_base + q] and wp == self.pat[kw_base + q]:
                    continue
                self.pat[kb_base + q] = b
                self.pat[kw_base + q] = wp
                self._set_cell(q, self._packed(1, q), self._packed(2, q), False)

    def set_moves(self, moves: list[int]) -> None:
        """Clear the board and play ``moves`` (cell indices) in order."""
        while self.nstones:
            self.undo()
        if self.passes:
            self.pass_turn()
        for m in moves:
            self.play(m)

    # -- reading --------------------------------------------------------------

    def index(self, x: int, y: int) -> int:
        return (y + PAD) * self.W + x + PAD

    def point(self, i: int) -> tuple[int, int]:
        return i % self.W - PAD, i // self.W - PAD

    def class_of(self, c: int, i: int) -> int:
        """The threat class a stone of colour ``c`` on the empty cell ``i`` makes."""
        return self.cls[c * self.T + i]

    def value_of(self, c: int, i: int) -> int:
        """What a stone of colour ``c`` on the empty cell ``i`` is worth (its shape)."""
        return self.val[c * self.T + i]

    def has_class(self, c: int, at_least: int) -> bool:
        for k in range(at_least, 8):
            if self.count[c * 8 + k]:
                return True
        return False

    def first_with_class(self, c: int, at_least: int) -> int:
        """An empty cell (the lowest index) of class ``at_least`` or more for ``c``, or -1."""
        if not self.has_class(c, at_least):
            return -1
        base = c * self.T
        for n in range(self.ncells):
            i = self.board[n]
            if self.cells[i] == EMPTY and self.cls[base + i] >= at_least:
                return i
        return -1

    def cells_with_class(self, c: int, at_least: int) -> list[int]:
        """The empty cells of class ``at_least`` or more for ``c``, in index order."""
        found: list[int] = []
        if not self.has_class(c, at_least):
            return found
        base = c * self.T
        for n in range(self.ncells):
            i = self.board[n]
            if self.cells[i] == EMPTY and self.cls[base + i] >= at_least:
                found.append(i)
        return found

    def candidates(self) -> list[int]:
        """Empty cells within two steps (along a line) of a stone, in index order."""
        found: list[int] = []
        for n in range(self.ncells):
            i = self.board[n]
            if self.cells[i] == EMPTY and self.near[i]:
                found.append(i)
        return found

    def is_empty(self, i: int) -> bool:
        return self.cells[i] == EMPTY

    def near_of(self, i: int) -> int:
        """How many stones lie within two steps of ``i`` along its lines."""
        return self.near[i]

    def on_board(self) -> list[int]:
        """Every cell of the board, in index order."""
        return [self.board[n] for n in range(self.ncells)]

    # -- renju ----------------------------------------------------------------

    def is_forbidden(self, i: int) -> bool:
        """Whether Black may not play the empty cell ``i`` (renju only). The patterns
        clear most cells at once; the rest get the full check, :meth:`foul`."""
        if self.rule != RENJU or not self.suspect[self._packed(1, i)]:
            return False
        return self.foul(i) != 0

    def legal_for(self, c: int, i: int) -> bool:
        """Whether ``c`` may play the empty cell ``i`` (only Black in renju may not)."""
        return c != BLACK or not self.is_forbidden(i)

    def _run(self, i: int, d: int) -> int:
        """Length of the black run through the black cell ``i`` along ``d``."""
        lo = i
        while self.cells[lo - d] == BLACK:
            lo -= d
        hi = i
        while self.cells[hi + d] == BLACK:
            hi += d
        return (hi - lo) // d + 1

    def _five_with(self, i: int, q: int, d: int) -> bool:
        """Whether a black stone on the empty cell ``q`` makes exactly five along ``d``
        in a run that holds the black cell ``i``."""
        if self.cells[q] != EMPTY:
            return False
        self.cells[q] = BLACK
        lo = i
        while self.cells[lo - d] == BLACK:
            lo -= d
        hi = i
        while self.cells[hi + d] == BLACK:
            hi += d
        self.cells[q] = EMPTY
        return (hi - lo) // d == 4 and (lo - q) * (hi - q) <= 0

    def _makes_five(self, q: int) -> bool:
        """Whether a black stone on the empty cell ``q`` makes exactly five in some line."""
        self.cells[q] = BLACK
        five = False
        for di in range(4):
            if self._run(q, self.dirs[di]) == 5:
                five = True
                break
        self.cells[q] = EMPTY
        return five

    def foul(self, i: int) -> int:
        """Black's foul on the empty cell ``i``: 0 none, 1 double-three, 2 double-four,
        3 overline (the rule of :mod:`engine.renju`, which the tests compare this with:
        a five always wins; a three is a line one stone from a straight four whose
        stone neither makes five nor is itself forbidden)."""
        self.cells[i] = BLACK
        over = False
        fours = 0
        threes = 0
        for di in range(4):
            d = self.dirs[di]
            run = self._run(i, d)
            if run == 5:
                self.cells[i] = EMPTY
                return 0
            if run > 5:
                over = True
                continue
            points = 0
            last = -100
            straight = 0
            for k in range(-4, 5):
                if k != 0 and self._five_with(i, i + k * d, d):
                    points += 1
                    if k - last == 5:
                        straight += 1
                    last = k
            fours += points - straight
            if self._three_points(i, d, 0) > 0:
                threes += 1
        result = 0
        if over:
            result = 3
        elif fours >= 2:
            result = 2
        elif threes >= 2:
            real = 0
            seen = 0
            for di in range(4):
                d = self.dirs[di]
                if self._three_points(i, d, 0) == 0:
                    continue
                seen += 1
                if self._three_points(i, d, 1) > 0:
                    real += 1
                    if real == 2:
                        result = 1
                        break
                elif real + threes - seen < 2:
                    break
        self.cells[i] = EMPTY
        return result

    def _three_points(self, i: int, d: int, strict: int) -> int:
        """How many empty cells along ``d`` turn the line through the black cell ``i``
        into a straight four (both ends making exactly five). With ``strict``, only
        cells whose stone neither makes five (in another line) nor is itself a foul
        (the rule of :mod:`engine.renju`)."""
        found = 0
        for k in range(-3, 4):
            r = i + k * d
            if k == 0 or self.cells[r] != EMPTY:
                continue
            self.cells[r] = BLACK
            lo = i
            while self.cells[lo - d] == BLACK:
                lo -= d
            hi = i
            while self.cells[hi + d] == BLACK:
                hi += d
            ok = (
                (hi - lo) // d == 3
                and (lo - r) * (hi - r) <= 0
                and self._five_with(i, lo - d, d)
                and self._five_with(i, hi + d, d)
            )
            self.cells[r] = EMPTY
            if ok and strict:
                ok = not self._makes_five(r) and self.foul(r) == 0
            if ok:
                found += 1
        return found
