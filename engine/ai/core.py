"""The AI's hot path, written once: the board with incremental line patterns,
move generation, evaluation, threat-space search (VCF and VCT) and the
alpha-beta search that uses them.

One source, two ways to run it. As it stands this is plain Python. When the
package is installed with a C compiler present, ``setup.py`` compiles this very
file with Cython, reading the C types of every attribute and local from
``core.pxd`` beside it, and the compiled module ``engine.ai.core`` (a ``.so``)
is imported in its place; :mod:`engine.ai.backend` says which one is in use and
can load this file as plain Python on request. Both run the same statements in
the same order, so at a fixed depth they choose the same move: the test suite
compares them. That is why the code looks like C: flat ``array`` buffers, no
exceptions, no closures, integers that never leave 64 bits. Where plain Python
would be needlessly slow (sorting a move list) it takes a different route to the
same result, behind ``COMPILED``.

Board layout: a flat array with a border of ``PAD`` wall cells on every side;
point ``(x, y)`` is cell ``(y + PAD) * W + x + PAD`` with ``W = size + 2 * PAD``.
Every cell keeps, per colour and direction, a base-3 *line key* of the ten cells
around it on that line (the slots of :mod:`engine.ai.patterns`: 0 empty, 1 own
stone, 2 opponent or wall), so a stone changes one key per neighbour by one add.
A key reads as a line pattern through :func:`engine.ai.patterns.line_table`, and
four patterns read as the cell's threat class and value through the tables
``CLASS`` and ``SCORE``. The empty cells keep their classes, values and per-class
counts up to date on every move and undo.

Scores are from the side to move's point of view. A win proven ``n`` plies from
the root scores ``WIN - n``. Only a proof makes a mate score: a five on the board,
a block that cannot be made, an open four, a VCF or VCT line, or an alpha-beta
node whose moves covered every defence (the answers to a four or an open three).
A node that lost with every move it tried but did not try them all scores
``-LIKELY_LOSS`` instead, short of a mate.
"""

from __future__ import annotations

import random
from array import array
from collections.abc import Callable

from engine.ai import patterns as pt

COMPILED = not __file__.endswith(".py")

# Threat classes, as in engine.ai.patterns (checked below): C constants when compiled.
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

# Line-key slots of the neighbour at offset -5..5 (patterns' layout); 0 unused.
_SLOT = {-4: 0, -3: 1, -2: 2, -1: 3, 1: 4, 2: 5, 3: 6, 4: 7, -5: 8, 5: 9}
_TT_OFFSET = 1 << 22
_MASK64 = (1 << 64) - 1


def _zobrist(cells: int) -> array[int]:
    """Stone keys by ``colour * cells + cell``: fixed, so hashes repeat between runs."""
    rng = random.Random(0x5EED19)
    keys = array("Q", [0]) * (3 * cells)
    for n in range(cells, 3 * cells):
        keys[n] = rng.getrandbits(64)
    return keys


class Core:
    """A position and the searches on it. ``rule`` is FREESTYLE, STANDARD or RENJU.
    ``play``/``undo`` keep everything incremental; ``search`` answers a move."""

    def __init__(self, size: int, rule: int, tt_bits: int = 20) -> None:
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
        # Search state.
        self.tt_mask = (1 << tt_bits) - 1
        self.tt_key = array("Q", [0]) * (1 << tt_bits)
        self.tt_val = array("q", [0]) * (1 << tt_bits)
        self.memo_mask = (1 << MEMO_BITS) - 1
        self.vcf_key = array("Q", [0]) * (1 << MEMO_BITS)
        self.vcf_depth = array("i", [-1]) * (1 << MEMO_BITS)
        self.vct_key = array("Q", [0]) * (1 << MEMO_BITS)
        self.vct_depth = array("i", [-1]) * (1 << MEMO_BITS)
        self.mv = array("i", [0]) * (MAX_PLY * MOVE_CAP)
        self.mk = array("q", [0]) * (MAX_PLY * MOVE_CAP)
        self.vmv = array("i", [0]) * (VPLY * MOVE_CAP)
        self.vmk = array("q", [0]) * (VPLY * MOVE_CAP)
        self.line = array("i", [0]) * (VPLY * LINE_CAP)
        self.line_len = array("i", [0]) * VPLY
        self.killers = array("i", [-1]) * (2 * MAX_PLY)
        self.mark = array("i", [0]) * T
        self.nodes = 0
        self.node_cap = 1 << 62
        self.stop_at = float("inf")
        self.aborted = False
        self.bounded_done = True
        self.partial_move = -1
        self.partial_score = 0
        self.clock: Callable[[], float] | None = None
        self.clock_every = 255
        # Search settings (copied from a SearchConfig by ``search``).
        self.c_max_depth = 40
        self.c_width = 12
        self.c_root_width = 24
        self.c_vcf = 16
        self.c_vct = 0
        self.c_vct_width = 12
        self.c_safety = 10
        self.c_defend_vct = False
        self.c_threat_eval = True
        self.c_reductions = True
        self.c_leaf_vcf = 0

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
        five = self.first_with_class(a, K_FIVE)
        if five >= 0:
            self.line[vp * LINE_CAP] = five
            self.line_len[vp] = 1
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
        five = self.first_with_class(a, K_FIVE)
        if five >= 0:
            self.line[vp * LINE_CAP] = five
            self.line_len[vp] = 1
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

    # -- root -----------------------------------------------------------------

    def configure(self, config: object) -> None:
        """Copy a :class:`engine.ai.search.SearchConfig`'s fields into the core."""
        self.c_max_depth = int(getattr(config, "max_depth"))  # noqa: B009
        self.c_width = int(getattr(config, "width"))  # noqa: B009
        self.c_root_width = int(getattr(config, "root_width"))  # noqa: B009
        self.c_vcf = int(getattr(config, "vcf_depth"))  # noqa: B009
        self.c_vct = int(getattr(config, "vct_depth"))  # noqa: B009
        self.c_vct_width = int(getattr(config, "vct_width"))  # noqa: B009
        self.c_safety = int(getattr(config, "safety_moves"))  # noqa: B009
        self.c_defend_vct = bool(getattr(config, "defend_vct"))  # noqa: B009
        self.c_threat_eval = bool(getattr(config, "threat_eval"))  # noqa: B009
        self.c_reductions = bool(getattr(config, "reductions"))  # noqa: B009
        self.c_leaf_vcf = int(getattr(config, "leaf_vcf"))  # noqa: B009

    def search(
        self,
        config: object,
        start: float,
        deadline: float,
        node_limit: int,
        clock: Callable[[], float] | None,
    ) -> tuple[int, int, list[int], int, int, int, list[tuple[int, int]]]:
        """The move for the side to move: (move, score, principal variation, plies to a
        proven five or 0, depth of the last completed iteration, reason, root scores).

        ``start`` and ``deadline`` are on ``clock`` (None: no clock, only ``node_limit``
        stops it; 0 or less: no node limit). The root, in this order: a five to make;
        a four to block; an open four to make; the side to move's own VCF, then VCT,
        each in its share of the time; the opponent's forced win as if we passed,
        whose answers become the candidates; then iterative deepening. The own
        threat searches deepen one attacking move at a time, so the line they find
        is the shortest of their kind."""
        self.configure(config)
        self.clock = clock
        self.stop_at = deadline if clock is not None else float("inf")
        self.nodes = 0
        self.node_cap = node_limit if node_limit > 0 else 1 << 62
        self.aborted = False
        for j in range(2 * MAX_PLY):
            self.killers[j] = -1
        me = self.side()
        opp = 3 - me
        if self.nstones == 0:
            centre = self.index(self.size // 2, self.size // 2)
            return centre, 0, [centre], 0, 0, R_POSITIONAL, []
        five = self.first_with_class(me, K_FIVE)
        if five >= 0:
            return five, WIN - 1, [five], 1, 1, R_WIN, []
        if self.count[opp * 8 + K_FIVE]:
            theirs = self.cells_with_class(opp, K_FIVE)
            legal = [i for i in theirs if self.legal_for(me, i)]
            block = legal[0] if legal else self._any_legal()
            if len(theirs) > 1 or not legal:
                return block, -(WIN - 2), [block], 0, 1, R_BLOCK, []
            self.play(block)
            score = -self.evaluate()
            self.undo()
            return block, score, [block], 0, 1, R_BLOCK, []
        flex = self.flex_four_cell(me)
        if flex >= 0:
            self._finish_flex(me, flex, 0)
            return flex, WIN - 3, self._line_of(0), 3, 3, R_WIN, []
        total = deadline - start
        now = clock() if clock is not None else start
        for kind, depth, share in ((0, self.c_vcf, 0.2), (1, self.c_vct, 0.15)):
            limit = deadline if clock is None else min(deadline, now + total * share)
            plies = 0
            for d in range(1, depth + 1):  # deepening: the shortest line (memos keep it cheap)
                plies = self._bounded(kind, d, limit, 0)
                if plies or self.aborted or not self.bounded_done:
                    break
            if self.aborted:
                break
            if plies:
                line = self._line_of(0)
                return line[0], WIN - plies, line, plies, plies, R_WIN, []
        moves, defending = self._root_moves(start, total)
        return self._iterate(start, total, moves, defending)

    def _any_legal(self) -> int:
        """A legal empty cell; failing that (renju: Black's only empty cells are fouls)
        an empty one, which the referee will refuse as it should; failing that cell 0."""
        me = self.side()
        empty = -1
        for n in range(self.ncells):
            i = self.board[n]
            if self.cells[i] == EMPTY:
                if self.legal_for(me, i):
                    return i
                if empty < 0:
                    empty = i
        return empty if empty >= 0 else self.board[0]

    def _now(self) -> float:
        return self.clock() if self.clock is not None else 0.0

    def _opponent_threat(self, deadline: float) -> tuple[list[int], int, bool]:
        """The opponent's forced win if it were their move: (its line, or [] if none;
        0 if it is a VCF, 1 a VCT; whether the searches finished)."""
        self.pass_turn()
        plies = self._bounded(0, self.c_vcf, deadline, 20_000)
        done = self.bounded_done
        kind = 0
        if not plies and self.c_defend_vct and not self.aborted:
            plies = self._bounded(1, self.c_vct if self.c_vct > 0 else 2, deadline, 5000)
            done = done and self.bounded_done
            kind = 1
        line = self._line_of(0) if plies else []
        self.pass_turn()
        return line, kind, done

    def _root_moves(self, start: float, total: float) -> tuple[list[int], bool]:
        """Root candidates, and whether they are answers to an opponent's forced win.

        If the opponent has a VCF (or, with ``defend_vct``, a VCT) as if we passed,
        the candidates are the moves that may stop it: the points of its line, the
        opponent's threat points, our own fours and threes. Each is checked for the
        opponent's forced win after it, as time allows, and those that leave one are
        dropped (unless all do). Otherwise the best ``safety_moves`` candidates are
        checked for an opponent VCF after them."""
        me = self.side()
        opp = 3 - me
        n = self.generate(me, self.c_root_width, 0, -1)
        if n < 0:
            n = -n
        moves = [self.mv[j] for j in range(n)]
        if not moves:
            moves = [self._any_legal()]
        if self.c_vcf <= 0 or self.c_safety <= 0:
            return moves, False
        clock = self.clock
        deadline = self.stop_at if clock is None else min(self.stop_at, start + total * 0.15)
        threat, kind, done = self._opponent_threat(deadline)
        if self.aborted:
            return moves, False
        if not threat and done and self.rule != RENJU:
            return moves, False
        check: list[int] = []
        if not threat:
            check = moves[: self.c_safety]
            kind = 0
        else:
            relevant = set(threat)
            relevant.update(self.cells_with_class(opp, K_THREE))
            relevant.update(self.cells_with_class(me, K_THREE))
            relevant = {i for i in relevant if self.cells[i] == EMPTY and self.legal_for(me, i)}
            first = [threat[0]] if threat[0] in relevant else []
            check = list(dict.fromkeys(first + [m for m in moves if m in relevant]))
            check += sorted(relevant.difference(check))
        now = self._now()
        deadline = self.stop_at if clock is None else min(self.stop_at, now + total * 0.15)
        unsafe: set[int] = set()
        safe: list[int] = []
        for m in check:
            if clock is not None and clock() >= deadline:
                break
            self.play(m)
            found = self._bounded(0, self.c_vcf, deadline, 4000)
            if not found and kind == 1 and not self.aborted:
                found = self._bounded(1, self.c_vct if self.c_vct > 0 else 2, deadline, 2500)
            self.undo()
            if self.aborted:
                break
            if found:
                unsafe.add(m)
            else:
                safe.append(m)
        if not threat:
            rest = [m for m in moves if m not in unsafe and m not in safe]
            return (safe + rest + [m for m in moves if m in unsafe]) or moves, False
        kept = safe + [m for m in check if m not in unsafe and m not in safe]
        return (kept or moves), True

    def _iterate(
        self, start: float, total: float, moves: list[int], defending: bool
    ) -> tuple[int, int, list[int], int, int, int, list[tuple[int, int]]]:
        best = moves[0]
        best_score = -INFINITY
        best_pv = [best]
        done_depth = 0
        root_scores: list[tuple[int, int]] = []
        soft = start + total * 0.55
        for depth in range(1, self.c_max_depth + 1):
            if depth > 1 and self.clock is not None and self.clock() >= soft:
                break
            self.partial_move = -1
            self.partial_score = 0
            score, move, scores = self._aspirate(depth, moves, best_score)
            if self.aborted:
                if self.partial_move >= 0 and self.partial_move != best:
                    # The unfinished iteration proved another move better than the
                    # last iteration's best (searched first): take it.
                    best = self.partial_move
                    best_score = self.partial_score
                    best_pv = [best]
                break
            best = move
            best_score = score
            done_depth = depth
            root_scores = scores
            moves.remove(move)
            moves.insert(0, move)
            best_pv = self._pv(move, depth)
            if score >= MATE_BOUND or score <= -MATE_BOUND:
                break  # a proven result: deeper search cannot change it
            if len(moves) == 1 and depth >= 2:
                break
        if best_score >= MATE_BOUND:
            reason = R_WIN
        elif defending:
            reason = R_BLOCK
        else:
            reason = self._reason(best)
        plies = WIN - best_score if best_score >= MATE_BOUND else 0
        return best, best_score, best_pv, plies, done_depth, reason, root_scores

    def _aspirate(
        self, depth: int, moves: list[int], guess: int
    ) -> tuple[int, int, list[tuple[int, int]]]:
        if depth <= 2 or guess >= MATE_BOUND or guess <= -MATE_BOUND:
            return self._root(depth, moves, -INFINITY, INFINITY)
        window = ASPIRATION
        alpha = guess - window
        beta = guess + window
        while True:
            score, move, scores = self._root(depth, moves, alpha, beta)
            if self.aborted or alpha < score < beta:
                return score, move, scores
            window *= 4
            if score <= alpha:
                alpha = max(-INFINITY, score - window)
            else:
                beta = min(INFINITY, score + window)
            if window > 20 * ASPIRATION:
                alpha = -INFINITY
                beta = INFINITY

    def _root(
        self, depth: int, moves: list[int], alpha: int, beta: int
    ) -> tuple[int, int, list[tuple[int, int]]]:
        best_score = -INFINITY
        best_move = moves[0]
        scores: list[tuple[int, int]] = []
        original_alpha = alpha
        for n, m in enumerate(moves):
            self.play(m)
            if n == 0:
                score = -self.pvs(depth - 1, -beta, -alpha, 1)
            else:
                score = -self.pvs(depth - 1, -alpha - 1, -alpha, 1)
                if alpha < score < beta and not self.aborted:
                    score = -self.pvs(depth - 1, -beta, -alpha, 1)
            self.undo()
            if self.aborted:
                break
            scores.append((m, score))
            if score > best_score:
                best_score = score
                best_move = m
                if score > alpha:
                    alpha = score
                    if original_alpha < score < beta:
                        self.partial_move = m
                        self.partial_score = score
                    if alpha >= beta:
                        break
        return best_score, best_move, scores

    def _pv(self, first: int, depth: int) -> list[int]:
        pv = [first]
        self.play(first)
        played = 1
        for _ in range(depth + 8):
            slot = self.hash & self.tt_mask
            if self.tt_key[slot] != self.hash:
                break
            move = ((self.tt_val[slot] >> 12) & 4095) - 1
            if move < 0 or self.cells[move] != EMPTY:
                break
            pv.append(move)
            self.play(move)
            played += 1
        for _ in range(played):
            self.undo()
        return pv

    def _reason(self, move: int) -> int:
        me = self.side()
        opp = 3 - me
        if self.cls[opp * self.T + move] >= K_THREE_THREE or self.flex_four_cell(opp) >= 0:
            return R_BLOCK
        if self.cls[me * self.T + move] >= K_THREE:
            return R_THREAT
        return R_POSITIONAL
