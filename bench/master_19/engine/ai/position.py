"""The search's own board: cells, line windows, patterns and values, all kept
up to date incrementally on every move and undo.

Layout: a flat array with a border of five guard cells on every side, so that
every line window (up to five cells each way) stays inside the array. Index
``(y + 5) * width + x + 5`` holds point ``(x, y)``, with ``width = size + 10``.

Every cell has, per direction, a *window*: the cells from ``reach`` before it
to ``reach`` after it on that line, two bits each (0 empty, 1 black, 2 white,
3 wall), in one small int. A stone changes the windows of its line neighbours
by a precomputed amount (one add each), and a window reads, through the pair
table of :mod:`engine.ai.patterns`, as the line patterns of both colours at
once (or OCCUPIED when the cell itself holds a stone).

For every *empty* cell the position keeps both colours' patterns per direction,
both colours' values (what a stone there is worth, one int for the two), and per
colour the cell's threat class (a ``bytearray``, so that threat cells are found
with a C-speed ``re`` scan) and the number of empty cells of each class; and the
sum of the values over the empty cells. A move only refreshes the empty cells
in its windows; an occupied cell's entries are stale until the undo that empties
it recomputes them. This is the hot path of the whole AI (see the profile in
``bench/RESULTS-strength.md``): it is written for the interpreter, not for looks.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable

from engine import renju
from engine.ai import patterns as pt
from engine.board import Board
from engine.types import Point, Rule

EMPTY = 0
BLACK = 1
WHITE = 2
WALL = 3
PAD = 5
VALUE_SHIFT = pt.VALUE_SHIFT
VALUE_MASK = (1 << VALUE_SHIFT) - 1
OCCUPIED = pt.OCCUPIED

_CLASS_AT_LEAST = [re.compile(b"[" + bytes([k]) + b"-\x07]") for k in range(8)]
_ZOBRIST_RNG = random.Random(0xA1)
_ZOBRIST = [[0] * (36 * 36), [_ZOBRIST_RNG.getrandbits(64) for _ in range(36 * 36)]]
_ZOBRIST.append([_ZOBRIST_RNG.getrandbits(64) for _ in range(36 * 36)])
_PASS_KEY = _ZOBRIST_RNG.getrandbits(64)


class Position:
    """A position for the search. ``play``/``undo`` are the hot path; everything
    else is built on the arrays they maintain.

    ``rule`` decides which line table each colour reads: exact five for both in
    standard, for Black in renju; five or more otherwise. In renju a mirror
    :class:`engine.board.Board` is kept so that :func:`engine.renju.foul_at` can
    judge Black's candidate moves.
    """

    def __init__(self, size: int, rule: Rule) -> None:
        self.size = size
        self.rule = rule
        self.width = width = size + 2 * PAD
        total = width * width
        self.cells = bytearray([WALL]) * total
        self.on_board: list[int] = []
        for y in range(size):
            for x in range(size):
                i = (y + PAD) * width + x + PAD
                self.cells[i] = EMPTY
                self.on_board.append(i)
        self.dirs = (1, width, width + 1, width - 1)
        black_exact = rule in (Rule.STANDARD, Rule.RENJU)
        white_exact = rule is Rule.STANDARD
        self.exact = (False, black_exact, white_exact)
        reach = 5 if (black_exact or white_exact) else 4
        self.reach = reach
        self.pairs = pt.pair_table(black_exact, white_exact)
        self._init_windows(total, reach)
        self.near_offsets = [k * d for d in self.dirs for k in (-2, -1, 1, 2)]
        self.near = [0] * total
        # pair[di][i]: both colours' patterns on direction di; vals[i]: both colours'
        # values (White's shifted up by VALUE_SHIFT); cls[c][i]; tot: the sum of vals.
        self.pair: list[list[int]] = [[OCCUPIED] * total for _ in range(4)]
        self.vals = [0] * total
        self.cls: list[bytearray] = [bytearray(), bytearray(total), bytearray(total)]
        self.count: list[list[int]] = [[], [0] * 8, [0] * 8]  # empty cells per class
        self.tot = 0
        for i in self.on_board:
            self._refresh(i)
        self.stones: list[int] = []
        self.passes = 0  # 1 while a pass (a "null move") is on the board: the other side moves
        self.hash = 0
        self.mirror: Board | None = Board(size, rule) if rule is Rule.RENJU else None
        self._foul_cache: dict[tuple[int, int], bool] = {}

    def _init_windows(self, total: int, reach: int) -> None:
        """Every cell's window on every direction, from the cells (walls included),
        and the key changes a stone makes in its neighbours' windows."""
        cells = self.cells
        self.windows: list[list[int]] = []
        for d in self.dirs:
            windows = [OCCUPIED] * total
            for i in range(total):
                w = 0
                for k in range(-reach, reach + 1):
                    q = i + k * d
                    w |= (cells[q] if 0 <= q < total else WALL) << (2 * (k + reach))
                windows[i] = w
            self.windows.append(windows)
        # steps[sign][c][di]: (offset of a neighbour, change of its window) when a stone
        # of colour c is placed (sign 0) or lifted (sign 1) by the moved cell.
        self.steps = [
            [
                [
                    [
                        (k * d, (-1 if lift else 1) * c << (2 * (reach - k)))
                        for k in range(-reach, reach + 1)
                        if k
                    ]
                    for d in self.dirs
                ]
                for c in (0, BLACK, WHITE)
            ]
            for lift in (False, True)
        ]
        self.centre_bits = 2 * reach

    def _refresh(self, i: int) -> None:
        """Recompute every entry of the empty cell ``i`` from its windows."""
        for di in range(4):
            self.pair[di][i] = self.pairs[self.windows[di][i]]
        black, white = self.packed(BLACK, i), self.packed(WHITE, i)
        v = pt.SCORE[black] | pt.SCORE[white] << VALUE_SHIFT
        self.vals[i] = v
        self.tot += v
        for c, packed in ((BLACK, black), (WHITE, white)):
            k = pt.CLASS[packed]
            self.cls[c][i] = k
            self.count[c][k] += 1

    def packed(self, c: int, i: int) -> int:
        """Colour ``c``'s four line patterns at the empty cell ``i``, 4 bits a direction."""
        shift = 0 if c == BLACK else 4
        p = self.pair
        return (
            (p[0][i] >> shift) & 15
            | ((p[1][i] >> shift) & 15) << 4
            | ((p[2][i] >> shift) & 15) << 8
            | ((p[3][i] >> shift) & 15) << 12
        )

    def value(self, c: int, i: int) -> int:
        """What a stone of colour ``c`` on the empty cell ``i`` is worth (its shape)."""
        v = self.vals[i]
        return v >> VALUE_SHIFT if c == WHITE else v & VALUE_MASK

    def total(self, c: int) -> int:
        """The sum of colour ``c``'s values over the empty cells."""
        return self.tot >> VALUE_SHIFT if c == WHITE else self.tot & VALUE_MASK

    # -- coordinates --------------------------------------------------------

    def index(self, point: Point) -> int:
        return (point[1] + PAD) * self.width + point[0] + PAD

    def point(self, index: int) -> Point:
        y, x = divmod(index, self.width)
        return Point(x - PAD, y - PAD)

    @classmethod
    def from_board(cls, board: Board) -> Position:
        """The position of ``board`` (same stones in the same order)."""
        pos = cls(board.size, board.rule)
        for p in board.moves:
            pos.play(pos.index(p))
        return pos

    def play_points(self, points: Iterable[Point]) -> None:
        for p in points:
            self.play(self.index(p))

    # -- state --------------------------------------------------------------

    @property
    def side(self) -> int:
        """The colour to move."""
        return WHITE if (len(self.stones) + self.passes) & 1 else BLACK

    def cells_with_class(self, c: int, at_least: int) -> list[int]:
        """Empty cells where a stone of colour ``c`` makes threat class ``at_least`` or more."""
        if not any(self.count[c][at_least:]):
            return []
        return [m.start() for m in _CLASS_AT_LEAST[at_least].finditer(self.cls[c])]

    def has_class(self, c: int, at_least: int) -> bool:
        return any(self.count[c][at_least:])

    def first_with_class(self, c: int, at_least: int) -> int:
        """An empty cell of class ``at_least`` or more for ``c``, or -1."""
        if not any(self.count[c][at_least:]):
            return -1
        m = _CLASS_AT_LEAST[at_least].search(self.cls[c])
        return -1 if m is None else m.start()

    def candidates(self) -> list[int]:
        """Empty cells within two steps (along a line) of a stone."""
        cells, near = self.cells, self.near
        if not self.stones:
            centre = self.size // 2
            return [self.index(Point(centre, centre))]
        return [i for i in self.on_board if near[i] and not cells[i]]

    # -- renju --------------------------------------------------------------

    def is_forbidden(self, i: int) -> bool:
        """Whether Black may not play the empty cell ``i`` (renju only). The patterns
        rule out most cells cheaply; the rest go to :func:`engine.renju.foul_at`."""
        mirror = self.mirror
        if mirror is None or not pt.SUSPECT[self.packed(BLACK, i)]:
            return False
        key = (self.hash, i)
        cached = self._foul_cache.get(key)
        if cached is None:
            x, y = self.point(i)
            cached = renju.foul_at(mirror, (y + 1) * mirror.stride + x) is not None
            if len(self._foul_cache) > 200_000:
                self._foul_cache.clear()
            self._foul_cache[key] = cached
        return cached

    def is_legal(self, i: int) -> bool:
        return self.cells[i] == EMPTY and not (self.side == BLACK and self.is_forbidden(i))

    # -- moves --------------------------------------------------------------

    def play(self, i: int) -> None:
        """Place the side to move's stone on the empty cell ``i`` (no legality check)."""
        c = WHITE if (len(self.stones) + self.passes) & 1 else BLACK
        self.cells[i] = c
        self.tot -= self.vals[i]
        for colour in (BLACK, WHITE):
            self.count[colour][self.cls[colour][i]] -= 1
            self.cls[colour][i] = 0
        centre = c << self.centre_bits
        for di in range(4):
            self.windows[di][i] += centre
            self.pair[di][i] = OCCUPIED
        self._update(i, self.steps[0][c])
        self.stones.append(i)
        self.hash ^= _ZOBRIST[c][i]
        near = self.near
        for off in self.near_offsets:
            near[i + off] += 1
        if self.mirror is not None:
            x, y = self.point(i)
            self.mirror.cells[(y + 1) * self.mirror.stride + x] = c

    def toggle_pass(self) -> None:
        """Pass the move to the other side, or take the pass back: how the search asks
        what the opponent could do if it were their move."""
        self.passes ^= 1
        self.hash ^= _PASS_KEY

    def undo(self) -> None:
        i = self.stones.pop()
        c = self.cells[i]
        self.hash ^= _ZOBRIST[c][i]
        self._update(i, self.steps[1][c])
        self.cells[i] = EMPTY
        centre = c << self.centre_bits
        for di in range(4):
            self.windows[di][i] -= centre
        self._refresh(i)
        near = self.near
        for off in self.near_offsets:
            near[i + off] -= 1
        if self.mirror is not None:
            x, y = self.point(i)
            self.mirror.cells[(y + 1) * self.mirror.stride + x] = EMPTY

    def _update(self, i: int, steps: list[list[tuple[int, int]]]) -> None:
        """Apply a stone placed on or lifted from ``i`` (``steps``: the window changes
        it makes, per direction) to the windows of its line neighbours, and refresh
        the empty ones among them.

        Most refreshed cells only change weak patterns (below an open three) on the
        one line: their threat class cannot change and their values move by a
        table delta for both colours at once. The rest are recomputed in full.
        An occupied cell reads OCCUPIED from the pair table, as it has stored, and
        is passed over."""
        pairs, deltas, score, klass = self.pairs, pt.PAIR_DELTA, pt.SCORE, pt.CLASS
        vals = self.vals
        black_cls, white_cls = self.cls[BLACK], self.cls[WHITE]
        black_count, white_count = self.count[BLACK], self.count[WHITE]
        pair0, pair1, pair2, pair3 = all_pairs = self.pair
        tot = self.tot
        for di in range(4):
            windows = self.windows[di]
            pair_of = all_pairs[di]
            for off, step in steps[di]:
                q = i + off
                w = windows[q] + step
                windows[q] = w
                new = pairs[w]
                old = pair_of[q]
                if new == old:
                    continue
                pair_of[q] = new
                d = deltas[old << 8 | new]
                if d is not None:
                    vals[q] += d
                    tot += d
                    continue
                p0, p1, p2, p3 = pair0[q], pair1[q], pair2[q], pair3[q]
                black = (p0 & 15) | (p1 & 15) << 4 | (p2 & 15) << 8 | (p3 & 15) << 12
                white = p0 >> 4 | (p1 >> 4) << 4 | (p2 >> 4) << 8 | (p3 >> 4) << 12
                v = score[black] | score[white] << VALUE_SHIFT
                tot += v - vals[q]
                vals[q] = v
                k = klass[black]
                if k != black_cls[q]:
                    black_count[black_cls[q]] -= 1
                    black_count[k] += 1
                    black_cls[q] = k
                k = klass[white]
                if k != white_cls[q]:
                    white_count[white_cls[q]] -= 1
                    white_count[k] += 1
                    white_cls[q] = k
        self.tot = tot

    # -- lines --------------------------------------------------------------

    def five_point_after(self, c: int, i: int) -> int:
        """After colour ``c`` played a four at ``i``: a cell where ``c`` now makes
        five, looking along ``i``'s lines (-1 if none)."""
        cls = self.cls[c]
        for d in self.dirs:
            for k in (-4, -3, -2, -1, 1, 2, 3, 4):
                q = i + k * d
                if cls[q] == pt.K_FIVE:
                    return q
        return -1
