"""Renju fouls for Black: double-three, double-four and overline (RIF rules).

How a move is judged, in this order:

1. A move that makes exactly five in some line is legal (and wins), whatever
   else it makes.
2. A run of six or more through the move is an *overline*.
3. Two or more *fours* made by the move are a *double-four*. A four is four
   stones (with the move) that one more stone turns into exactly five. Two
   fours can lie on one line (``XXX.X.XXX``, ``XX.XX.XX``, ``X.XXX.X`` with
   the move in the middle group); ``.XXXX.`` is a single (straight) four.
4. Two or more *threes* made by the move are a *double-three*. A three is
   three stones (with the move) that one more stone turns into a straight
   four ``.XXXX.`` whose both ends make exactly five, where that stone is not
   itself forbidden with the move on the board. The last condition is checked
   recursively; it is what clears the "fake" double-threes.

Every line through the point is read as an 11-cell window (the point and five
cells either side). Everything a line can tell on its own (five, overline,
number of fours, the points that would turn a three into a straight four)
depends only on that window, so it is computed once per window and memoized.
Only a point with two or more candidate threes needs the whole-board,
recursive check. The board is read as a bytes snapshot padded with wall cells,
so a window is one C-level slice and the memo key is that slice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.types import Foul

if TYPE_CHECKING:
    from engine.board import Board

_EMPTY = 0
_BLACK = 1
_BLOCK = 3  # a White stone or the edge, as seen from Black's line

_REACH = 5  # cells read on each side of the point
_WIDTH = 2 * _REACH + 1

# A line's verdict is one integer so that four lines add up in one sum: the
# digits count threes (at most one per line), fours (at most two per line),
# overlines and fives, and cannot carry into each other.
_THREE = 1
_FOUR = 10
_OVERLINE = 100
_FIVE = 1000

_LineInfo = tuple[int, tuple[int, ...]]
"""A window's verdict and the offsets (from the point) of the stones that would
turn its three into a straight four; the offsets are empty unless it has a three."""

_TABLE_LIMIT = 1 << 17  # memo entries (about 150 bytes each) kept before starting over


def _normalise(window: bytes) -> list[int]:
    """The window as Black sees it after playing its centre: black, empty, or
    blocked; everything beyond a White stone or the edge is blocked too."""
    line = list(window) + [_BLOCK] * (_WIDTH - len(window))
    line[_REACH] = _BLACK
    for side in (range(_REACH + 1, _WIDTH), range(_REACH - 1, -1, -1)):
        blocked = False
        for k in side:
            if blocked or line[k] not in (_EMPTY, _BLACK):
                blocked = True
                line[k] = _BLOCK
    return line


def _run(line: list[int], at: int) -> tuple[int, int]:
    """First and last cell of the black run through ``at`` (a black cell)."""
    lo = at
    while lo > 0 and line[lo - 1] == _BLACK:
        lo -= 1
    hi = at
    while hi < _WIDTH - 1 and line[hi + 1] == _BLACK:
        hi += 1
    return lo, hi


def _makes_five(line: list[int], at: int) -> bool:
    """Whether a black stone on the empty cell ``at`` makes a run of exactly five
    that includes the centre."""
    if not 0 <= at < _WIDTH or line[at] != _EMPTY:
        return False
    line[at] = _BLACK
    lo, hi = _run(line, at)
    line[at] = _EMPTY
    return hi - lo == 4 and lo <= _REACH <= hi


def _classify(window: bytes) -> _LineInfo:
    """What a black stone on the centre of ``window`` makes along that line.

    Runs once per distinct window (see ``_Table``), so it favours plain
    definitions over speed: a four is counted by its five points, a three by
    the stones that turn it into ``.XXXX.`` with both ends making exactly five.
    """
    line = _normalise(window)
    lo, hi = _run(line, _REACH)
    length = hi - lo + 1
    if length == 5:
        return _FIVE, ()
    if length > 5:
        return _OVERLINE, ()
    five_points = [q for q in range(1, _WIDTH - 1) if _makes_five(line, q)]
    # Two five points five apart are the two ends of one straight four.
    fours = len(five_points) - sum(1 for q in five_points if q + 5 in five_points)
    completions: list[int] = []
    for r in range(_REACH - 3, _REACH + 4):
        if line[r] != _EMPTY:
            continue
        line[r] = _BLACK
        lo, hi = _run(line, _REACH)
        if (
            hi - lo == 3
            and lo <= r <= hi
            and _makes_five(line, lo - 1)
            and _makes_five(line, hi + 1)
        ):
            completions.append(r - _REACH)
        line[r] = _EMPTY
    return fours * _FOUR + (_THREE if completions else 0), tuple(completions)


class _Table(dict[bytes, _LineInfo]):
    """Window -> verdict, filled on first use."""

    def __missing__(self, window: bytes) -> _LineInfo:
        if len(self) >= _TABLE_LIMIT:
            self.clear()
        info = self[window] = _classify(window)
        return info


_TABLE = _Table()


_WALLS: dict[int, bytes] = {}  # stride -> the padding for boards of that stride


def _snapshot(board: Board) -> tuple[bytes, int]:
    """The board's cells as bytes with enough wall cells before and after that
    every window slice stays in range, and the offset of cell 0 in it."""
    walls = _WALLS.get(board.stride)
    if walls is None:
        walls = _WALLS[board.stride] = bytes([_BLOCK]) * (_REACH * (board.stride + 1))
    return b"".join((walls, board.cells, walls)), len(walls)


def _foul(cells: bytes, i: int, stride: int) -> Foul | None:
    """The foul of a black stone on the empty cell ``i`` of a padded snapshot."""
    table = _TABLE
    d1, d2, d3 = stride, stride + 1, stride - 1
    v0, t0 = table[cells[i - 5 : i + 6]]
    v1, t1 = table[cells[i - 5 * d1 : i + 6 * d1 : d1]]
    v2, t2 = table[cells[i - 5 * d2 : i + 6 * d2 : d2]]
    v3, t3 = table[cells[i - 5 * d3 : i + 6 * d3 : d3]]
    total = v0 + v1 + v2 + v3
    if total < 2 * _THREE or total >= _FIVE:
        return None
    if total >= _OVERLINE:
        return Foul.OVERLINE
    if total >= 2 * _FOUR:
        return Foul.DOUBLE_FOUR
    if total % _FOUR < 2:
        return None
    # Two or more candidate threes: each is real only if some stone that makes
    # it a straight four is not itself forbidden with this stone placed.
    placed = cells[:i] + b"\x01" + cells[i + 1 :]
    lines = [(t, d) for t, d in ((t0, 1), (t1, d1), (t2, d2), (t3, d3)) if t]
    real = 0
    for n, (completions, d) in enumerate(lines, 1):
        if any(_foul(placed, i + off * d, stride) is None for off in completions):
            real += 1
            if real == 2:
                return Foul.DOUBLE_THREE
        elif real + len(lines) - n < 2:
            return None
    return None


def foul_at(board: Board, index: int) -> Foul | None:
    """The foul Black commits by playing on the empty cell ``index``, or None.

    Black's turn and the rule are the caller's business; this only reads the
    stones. Cheap when no foul is possible: four slices and four table lookups.
    """
    cells, pad = _snapshot(board)
    return _foul(cells, index + pad, board.stride)


def forbidden_indices(board: Board) -> list[int]:
    """Every empty cell where a black stone would be a foul, in index order."""
    cells, pad = _snapshot(board)
    stride, size = board.stride, board.size
    found = []
    for y in range(size):
        row = (y + 1) * stride
        for i in range(row, row + size):
            if not cells[i + pad] and _foul(cells, i + pad, stride) is not None:
                found.append(i)
    return found
