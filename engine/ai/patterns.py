"""Line patterns and the tables indexed by them.

Every empty cell has, for each colour and each of the four directions, a
*line pattern*: what a stone of that colour placed there would make on that
line (a five, an open four, a four, an open three, ...). The pattern depends
only on the cells around it on the line, so it is read from a table indexed by
a base-3 *line key* of those neighbours (0 empty, 1 own stone, 2 blocked: an
opponent stone or the edge). The key is kept up to date incrementally by
:class:`engine.ai.position.Position` on every move and undo, as strong engines
such as Rapfi do.

Windows: with "five or more wins" four cells each side decide everything
(8 neighbours, 3**8 keys). With "exactly five wins" a fifth cell each side is
needed to tell a five from an overline (10 neighbours, 3**10 keys). Key slots
0..3 hold offsets -4..-1, slots 4..7 offsets +1..+4, slot 8 offset -5 and
slot 9 offset +5, so that ``key % 3**8`` is the 8-neighbour key.

The four patterns of a cell for one colour are packed 4 bits per direction
into one integer; :data:`CLASS` and :data:`SCORE` are indexed by that packed
value and give the cell's threat class and its heuristic value.
"""

from __future__ import annotations

import functools
import itertools

# Line patterns, weakest first (OVERLINE sits apart: it is no threat).
P_NONE = 0
P_TWO = 1  # one move from a three
P_OPEN_TWO = 2  # one move from an open three
P_THREE = 3  # one move from a four
P_OPEN_THREE = 4  # one move from an open (straight) four
P_FOUR = 5  # one point makes five
P_DOUBLE_FOUR = 6  # two separate five points on the one line (X.XXX.X): a renju double four
P_OPEN_FOUR = 7  # .XXXX.: two five points, unstoppable
P_FIVE = 8
P_OVERLINE = 9  # six or more where only exactly five wins

# Threat classes of a cell for one colour (what a stone there makes), weakest first,
# so that "makes at least a four" is ``class >= K_FOUR``.
K_NONE = 0
K_THREE = 1  # an open three
K_THREE_THREE = 2  # two open threes
K_FOUR = 3  # a four (one five point)
K_FOUR_THREE = 4  # a four and an open three
K_FOUR_FOUR = 5  # two fours
K_OPEN_FOUR = 6  # an open four
K_FIVE = 7

VALUE_SHIFT = 32  # both colours' cell values share one int: Black's in the low bits
PACK_SHIFT = (0, 4, 8, 12)  # bits of each direction's pattern in a packed cell value
PACK_SIZE = 1 << 16

POW3 = tuple(3**i for i in range(10))
_OFFSET_OF_SLOT = (-4, -3, -2, -1, 1, 2, 3, 4, -5, 5)


def slot_of(offset: int) -> int:
    """The key slot of the neighbour at ``offset`` (-5..5, not 0) along the line."""
    return _OFFSET_OF_SLOT.index(offset)


def _build(slots: int, exact: bool) -> list[int]:
    """The pattern of every key of ``slots`` neighbours."""
    count = 3**slots
    table = [P_NONE] * count
    weaker = {P_OPEN_FOUR: P_OPEN_THREE, P_FOUR: P_THREE, P_DOUBLE_FOUR: P_THREE}
    weaker2 = {P_OPEN_THREE: P_OPEN_TWO, P_THREE: P_TWO}
    # Keys with more own stones are larger, so the patterns one move on are known first.
    for key in range(count - 1, -1, -1):
        line = [2] * 13  # positions 1..11 hold offsets -5..5; 0 and 12 are sentinels
        line[6] = 1
        k = key
        for slot in range(slots):
            line[6 + _OFFSET_OF_SLOT[slot]] = k % 3
            k //= 3
        run = _run(line)
        if run >= 5:
            table[key] = P_FIVE if run == 5 or not exact else P_OVERLINE
            continue
        fives = []
        empties = []
        for offset in (-4, -3, -2, -1, 1, 2, 3, 4):
            pos = 6 + offset
            if line[pos] != 0:
                continue
            empties.append(offset)
            line[pos] = 1
            run = _run(line)
            line[pos] = 0
            if run == 5 or (run > 5 and not exact):
                fives.append(offset)
        if len(fives) >= 2:
            open_four = len(fives) == 2 and fives[1] - fives[0] == 5
            table[key] = P_OPEN_FOUR if open_four else P_DOUBLE_FOUR
            continue
        if fives:
            table[key] = P_FOUR
            continue
        best = P_NONE
        for offset in empties:
            after = table[key + POW3[slot_of(offset)]]
            best = max(best, weaker.get(after, P_NONE))
        if best == P_NONE:
            for offset in empties:
                after = table[key + POW3[slot_of(offset)]]
                best = max(best, weaker2.get(after, P_NONE))
        table[key] = best
    return table


def _run(line: list[int]) -> int:
    lo = 6
    while line[lo - 1] == 1:
        lo -= 1
    hi = 6
    while line[hi + 1] == 1:
        hi += 1
    return hi - lo + 1


def line_table(exact: bool, slots: int = 8) -> list[int]:
    """Pattern by line key of ``slots`` (8 or 10) neighbours. Exactly-five tables need
    10, whatever ``slots`` says; a five-or-more table over 10 slots ignores the outer
    two. Built once per process."""
    return _line_table(exact, 10 if exact else slots)


@functools.cache
def _line_table(exact: bool, slots: int) -> list[int]:
    if exact:
        return _build(10, True)
    if slots == 8:
        return _build(8, False)
    table = _line_table(False, 8)
    return [table[key % POW3[8]] for key in range(3**10)]


def _classify(patterns: tuple[int, ...]) -> tuple[int, bool]:
    """The threat class of four line patterns, and whether a renju foul is possible."""
    n_five = patterns.count(P_FIVE)
    n_open4 = patterns.count(P_OPEN_FOUR)
    n_four = patterns.count(P_FOUR) + 2 * patterns.count(P_DOUBLE_FOUR)
    n_three = patterns.count(P_OPEN_THREE)
    suspect = not n_five and (P_OVERLINE in patterns or n_open4 + n_four >= 2 or n_three >= 2)
    if n_five:
        return K_FIVE, False
    if n_open4:
        return (K_FOUR_FOUR if n_four else K_OPEN_FOUR), suspect
    if n_four >= 2:
        return K_FOUR_FOUR, suspect
    if n_four:
        return (K_FOUR_THREE if n_three else K_FOUR), suspect
    if n_three >= 2:
        return K_THREE_THREE, suspect
    if n_three:
        return K_THREE, suspect
    return K_NONE, suspect


OCCUPIED = 0xFF  # the pair-table entry of a window whose centre holds a stone (or a wall)


class _LazyPairs(dict[int, int]):
    """A pair table filled on demand: the 11-cell windows of exactly-five rules have
    4**10 possible values, too many to build up front, but a game meets few of them."""

    def __init__(self, reach: int, black: list[int], white: list[int]) -> None:
        super().__init__()
        self.reach = reach
        self.black = black
        self.white = white

    def __missing__(self, window: int) -> int:
        if (window >> (2 * self.reach)) & 3:
            self[window] = OCCUPIED
            return OCCUPIED
        black_key = white_key = 0
        for j in range(2 * self.reach + 1):
            code = (window >> (2 * j)) & 3
            offset = j - self.reach
            if not offset or not code:
                continue
            weight = POW3[slot_of(offset)]
            black_key += weight * (1 if code == 1 else 2)
            white_key += weight * (1 if code == 2 else 2)
        pair = self.black[black_key] | self.white[white_key] << 4
        self[window] = pair
        return pair


@functools.cache
def pair_table(black_exact: bool, white_exact: bool) -> list[int] | _LazyPairs:
    """Both colours' line patterns (Black's in the low 4 bits, White's in the next 4)
    by *window*: the 2 * reach + 1 cells centred on an empty cell, 2 bits each, the
    nearest-to-start cell lowest (0 empty, 1 black, 2 white, 3 wall). The reach is
    4 cells each way, or 5 when some colour needs exactly five. Built once per process."""
    if black_exact or white_exact:
        black = line_table(True) if black_exact else line_table(False, 10)
        white = line_table(True) if white_exact else line_table(False, 10)
        return _LazyPairs(5, black, white)
    line = line_table(False)
    # Keys of the 4 cells each side; cell code -> (black digit, white digit).
    digits = ((0, 0), (1, 2), (2, 1), (2, 2))
    left_keys = []
    right_keys = []
    for half in range(256):
        codes = [(half >> (2 * j)) & 3 for j in range(4)]
        left = [0, 0]
        right = [0, 0]
        for j, code in enumerate(codes):
            for colour in (0, 1):
                left[colour] += digits[code][colour] * POW3[slot_of(j - 4)]
                right[colour] += digits[code][colour] * POW3[slot_of(j + 1)]
        left_keys.append(left)
        right_keys.append(right)
    table = [OCCUPIED] * (1 << 18)
    for high, (rb, rw) in enumerate(right_keys):
        base = high << 10
        for low, (lb, lw) in enumerate(left_keys):
            table[base | low] = line[lb + rb] | line[lw + rw] << 4
    return table


# Heuristic value of one line pattern, and a bonus for the combined threat class.
_PATTERN_VALUE = (0, 3, 10, 12, 45, 60, 420, 450, 3000, 0)
_CLASS_BONUS = (0, 0, 300, 0, 700, 700, 400, 5000)


def _build_cell_tables() -> tuple[bytes, list[int], bytes]:
    classes = bytearray(PACK_SIZE)
    scores = [0] * PACK_SIZE
    suspects = bytearray(PACK_SIZE)
    for combo in itertools.product(range(10), repeat=4):
        packed = combo[0] | combo[1] << 4 | combo[2] << 8 | combo[3] << 12
        cls, suspect = _classify(combo)
        classes[packed] = cls
        suspects[packed] = suspect
        scores[packed] = sum(_PATTERN_VALUE[p] for p in combo) + _CLASS_BONUS[cls]
    return bytes(classes), scores, bytes(suspects)


CLASS, SCORE, SUSPECT = _build_cell_tables()


def _build_pair_delta() -> list[int | None]:
    """By ``old << 8 | new`` (two pair-table entries of one direction): how both
    colours' cell values change (Black's plus White's shifted up VALUE_SHIFT bits), or None
    when a pattern of an open three or more is involved and the cell's threat class
    may change with it, so the cell must be recomputed in full."""
    table: list[int | None] = [None] * (1 << 16)
    for old in range(256):
        for new in range(256):
            ob, ow, nb, nw = old & 15, old >> 4, new & 15, new >> 4
            if max(ob, ow, nb, nw) >= P_OPEN_THREE:
                continue
            black = _PATTERN_VALUE[nb] - _PATTERN_VALUE[ob]
            white = _PATTERN_VALUE[nw] - _PATTERN_VALUE[ow]
            table[old << 8 | new] = black + (white << VALUE_SHIFT)
    return table


PAIR_DELTA = _build_pair_delta()
