"""Alpha-beta search: PVS with iterative deepening, aspiration windows, a
transposition table kept between moves, killer moves and late-move reductions,
over threat-based move generation, with threat-space search at the root.

Scores are from the side to move's point of view. A forced win in ``n`` plies
from the root scores ``WIN - n``; a forced loss ``-(WIN - n)``.

At the root, before the alpha-beta search:

* the side to move's own forced win by fours (VCF), then by threes and fours
  (VCT), is looked for and played if found;
* the opponent's forced win (VCF; VCT too with ``defend_vct``) is looked for
  as if we passed. If there is one, the candidates are the moves that may stop
  it: the points of its line, the opponent's threat points, our own fours and
  threes. Each is checked, as time allows, for the opponent's forced win after
  it, and those that leave one are dropped unless all do.

Iterative deepening stops starting iterations after ``soft_time_share`` of the
budget; an iteration cut off by the deadline still counts where it has already
proved a move better than the previous iteration's best.

Move generation at a node, strongest rule first:

* the side to move has a five: it wins (no search);
* the opponent has two fives: lost; one five: the block is the only move
  (searched without using up depth, so chains of fours are read out fully);
* the side to move can make an open four (or a legal double four): it wins;
* the opponent threatens a straight four (it has an open three): only the
  side to move's fours and the points that stop the three;
* otherwise the empty points near stones, best pattern value first, the
  ``width`` best of them, after the transposition table's and the killer moves.

The static evaluation is the sum of both sides' cell values (what a stone on
each empty cell would make), own minus opponent's, plus the value of having
the move: a four-three for the side to move is all but a win, a three-three a
strong threat unless the opponent can answer with fours.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.ai import patterns as pt
from engine.ai import table as tt
from engine.ai.position import BLACK, VALUE_MASK, VALUE_SHIFT, Position
from engine.ai.threats import Budget, OutOfTime, Win, flex_four_cell, legal_for, vcf, vct
from engine.types import Point

WIN = 1_000_000
MATE_BOUND = WIN - 10_000
INFINITY = WIN + 1
_ASPIRATION = 120
_MAX_PLY = 128

# Evaluation terms for the side to move (see the module docstring).
FOUR_THREE_BONUS = 3000
THREE_THREE_BONUS = 1500
THREE_THREE_ANSWERED_BONUS = 400  # when the opponent has fours to answer with


@dataclass(frozen=True)
class SearchConfig:
    """How hard the search tries. ``vct_depth`` 0 skips the VCT search;
    ``defend_vct`` also looks for the opponent's VCT (not only its VCF) at the root."""

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
    leaf_vcf: int = 0  # VCF depth tried at the leaves of the alpha-beta search (0: none)
    vcf_time_share: float = 0.2
    vct_time_share: float = 0.15
    defence_time_share: float = 0.15  # each: finding the opponent's threat; checking answers
    soft_time_share: float = 0.55  # no new iteration after this share of the budget


@dataclass
class Outcome:
    """The search's answer in cell indices (see :mod:`engine.ai` for points)."""

    best: int
    score: int
    pv: list[int]
    win_in: int | None
    depth: int
    reason: str  # "win", "block", "threat" or "positional"
    nodes: int = 0
    root_scores: dict[int, int] = field(default_factory=dict)


def win_in(score: int) -> int | None:
    """Plies to a forced win for the side to move, if ``score`` is one."""
    return WIN - score if score >= MATE_BOUND else None


class Searcher:
    """One search on ``pos`` (left as it was found, even on a time-out).
    ``table`` is a transposition table to read and fill (a fresh one if None)."""

    def __init__(
        self,
        pos: Position,
        config: SearchConfig,
        budget: Budget,
        table: dict[int, int] | None = None,
    ) -> None:
        self.pos = pos
        self.config = config
        self.budget = budget
        self.tt: dict[int, int] = {} if table is None else table
        self.cells_total = len(pos.on_board)
        self.killers = [[-1, -1] for _ in range(_MAX_PLY + 1)]
        self._renju = pos.mirror is not None
        self._root_partial: tuple[int, int] | None = None

    # -- root ---------------------------------------------------------------

    def run(self, start: float) -> Outcome:
        pos = self.pos
        me = pos.side
        opp = 3 - me
        if not pos.stones:
            centre = pos.index(Point(pos.size // 2, pos.size // 2))
            return Outcome(centre, 0, [centre], None, 0, "positional")
        five = pos.first_with_class(me, pt.K_FIVE)
        if five >= 0:
            return Outcome(five, WIN - 1, [five], 1, 1, "win")
        their_fives = pos.cells_with_class(opp, pt.K_FIVE)
        if their_fives:
            legal = [i for i in their_fives if legal_for(pos, me, i)]
            block = (legal or self._any_legal())[0]
            lost = len(their_fives) > 1 or not legal
            score = -(WIN - 2) if lost else self._eval_after(block)
            return Outcome(block, score, [block], None, 1, "block")
        flex = flex_four_cell(pos, me)
        if flex >= 0:
            win = self._vcf_line(flex)
            return Outcome(flex, WIN - 3, win, 3, 3, "win")
        total = self.budget.deadline - start
        found = self._threat_search(total)
        if found is not None:
            return Outcome(
                found.pv[0], WIN - found.plies, found.pv, found.plies, found.plies, "win"
            )
        moves, defending = self._root_moves(start, total)
        return self._iterate(start, total, moves, defending)

    def _any_legal(self) -> list[int]:
        pos = self.pos
        return [i for i in pos.on_board if pos.is_legal(i)] or [pos.on_board[0]]

    def _eval_after(self, move: int) -> int:
        self.pos.play(move)
        score = -self.evaluate()
        self.pos.undo()
        return score

    def _vcf_line(self, flex: int) -> list[int]:
        pos = self.pos
        me = pos.side
        pos.play(flex)
        fives = pos.cells_with_class(me, pt.K_FIVE)
        pos.undo()
        return [flex, *fives[:1]]

    def _threat_search(self, total: float) -> Win | None:
        """VCF (then VCT) for the side to move, each within its share of the time."""
        config = self.config
        clock = self.budget.clock
        for depth, share, kind in (
            (config.vcf_depth, config.vcf_time_share, "vcf"),
            (config.vct_depth, config.vct_time_share, "vct"),
        ):
            if depth <= 0:
                continue
            found, _ = self._bounded(
                kind, depth, min(self.budget.deadline, clock() + total * share), None
            )
            if found is not None and found.pv:
                return found
        return None

    def _bounded(
        self, kind: str, depth: int, deadline: float, node_limit: int | None
    ) -> tuple[Win | None, bool]:
        """A VCF or VCT search for the side to move within ``deadline`` and
        ``node_limit``: the win found (or None), and whether the search finished."""
        sub = Budget(self.budget.clock, deadline, node_limit)
        pos = self.pos
        stones = len(pos.stones)
        try:
            if kind == "vcf":
                return vcf(pos, depth, sub), True
            return vct(pos, depth, self.config.vcf_depth, sub), True
        except OutOfTime:
            self._restore(stones)
            return None, False
        finally:
            self.budget.nodes += sub.nodes

    def _restore(self, stones: int) -> None:
        while len(self.pos.stones) > stones:
            self.pos.undo()

    def _opponent_threat(self, deadline: float) -> tuple[Win | None, str, bool]:
        """The opponent's forced win if it were their move: (the win or None, "vcf" or
        "vct", whether the searches finished)."""
        pos = self.pos
        config = self.config
        pos.toggle_pass()
        try:
            threat, done = self._bounded("vcf", config.vcf_depth, deadline, 20_000)
            if threat is not None or not config.defend_vct:
                return threat, "vcf", done
            threat, vct_done = self._bounded("vct", config.vct_depth or 2, deadline, 5000)
            return threat, "vct", done and vct_done
        finally:
            pos.toggle_pass()

    def _root_moves(self, start: float, total: float) -> tuple[list[int], bool]:
        """Root candidates, and whether they are answers to an opponent's forced win.

        If the opponent has a VCF (or, with ``defend_vct``, a VCT) as if we passed,
        the candidates are the moves that may stop it: the points of its line, the
        opponent's threat points, our own fours and threes. Each is checked for the
        opponent's forced win after it, as time allows, and those that leave one are
        dropped (unless all do). Without such a threat the opponent cannot have one
        after our move either (our stones only block); if that search ran out of
        time, the best ``safety_moves`` candidates are checked for an opponent VCF."""
        pos = self.pos
        me = pos.side
        opp = 3 - me
        config = self.config
        moves = self.generate(me, opp, config.root_width, 0, -1)
        if not moves:
            moves = self._any_legal()
        if config.vcf_depth <= 0 or config.safety_moves <= 0:
            return moves, False
        clock = self.budget.clock
        share = config.defence_time_share
        threat, kind, done = self._opponent_threat(min(self.budget.deadline, start + total * share))
        if threat is None and done and pos.mirror is None:
            return moves, False
        if threat is None:
            check, kind = moves[: config.safety_moves], "vcf"
        else:
            line = threat.pv
            relevant = set(line)
            relevant.update(pos.cells_with_class(opp, pt.K_THREE))
            relevant.update(pos.cells_with_class(me, pt.K_THREE))
            relevant.update(pos.cells_with_class(me, pt.K_FOUR))
            relevant = {i for i in relevant if not pos.cells[i] and legal_for(pos, me, i)}
            first = [line[0]] if line[0] in relevant else []
            check = list(dict.fromkeys(first + [m for m in moves if m in relevant]))
            check += sorted(relevant.difference(check))
        deadline = min(self.budget.deadline, clock() + total * share)
        unsafe: set[int] = set()
        safe: list[int] = []
        for m in check:
            if clock() >= deadline:
                break
            pos.play(m)
            try:
                found, _ = self._bounded("vcf", config.vcf_depth, deadline, 4000)
                if found is None and kind == "vct":
                    found, _ = self._bounded("vct", config.vct_depth or 2, deadline, 2500)
            finally:
                pos.undo()
            if found is None:
                safe.append(m)
            else:
                unsafe.add(m)
        if threat is None:
            rest = [m for m in moves if m not in unsafe and m not in safe]
            return (safe + rest + [m for m in moves if m in unsafe]) or moves, False
        kept = safe + [m for m in check if m not in unsafe and m not in safe]
        return (kept or moves), True

    def _iterate(self, start: float, total: float, moves: list[int], defending: bool) -> Outcome:
        pos = self.pos
        clock = self.budget.clock
        stones = len(pos.stones)
        best, best_score, best_pv, done_depth = moves[0], -INFINITY, [moves[0]], 0
        root_scores: dict[int, int] = {}
        soft = start + total * self.config.soft_time_share
        for depth in range(1, self.config.max_depth + 1):
            if depth > 1 and clock() >= soft:
                break
            self._root_partial = None
            try:
                score, move, scores = self._aspirate(depth, moves, best_score)
            except OutOfTime:
                self._restore(stones)
                partial = self._root_partial
                if partial is not None and partial[0] != best:
                    # The unfinished iteration proved another move better than the
                    # last iteration's best (searched first): take it.
                    best, best_score = partial
                    best_pv = [best]
                break
            best, best_score, done_depth, root_scores = move, score, depth, scores
            moves.remove(move)
            moves.insert(0, move)
            best_pv = self._pv(move, depth)
            if abs(score) >= MATE_BOUND:
                break  # a forced result: deeper search cannot change it
            if len(moves) == 1 and depth >= 2:
                break
        reason = "block" if defending else self._reason(best, best_score)
        if best_score >= MATE_BOUND:
            reason = "win"
        return Outcome(
            best,
            best_score,
            best_pv,
            win_in(best_score),
            done_depth,
            reason,
            root_scores=root_scores,
        )

    def _aspirate(
        self, depth: int, moves: list[int], guess: int
    ) -> tuple[int, int, dict[int, int]]:
        if depth <= 2 or abs(guess) >= MATE_BOUND:
            return self._root(depth, moves, -INFINITY, INFINITY)
        window = _ASPIRATION
        alpha, beta = guess - window, guess + window
        while True:
            score, move, scores = self._root(depth, moves, alpha, beta)
            if alpha < score < beta:
                return score, move, scores
            window *= 4
            if score <= alpha:
                alpha = max(-INFINITY, score - window)
            else:
                beta = min(INFINITY, score + window)
            if window > 20 * _ASPIRATION:
                alpha, beta = -INFINITY, INFINITY

    def _root(
        self, depth: int, moves: list[int], alpha: int, beta: int
    ) -> tuple[int, int, dict[int, int]]:
        pos = self.pos
        best_score, best_move = -INFINITY, moves[0]
        scores: dict[int, int] = {}
        original_alpha = alpha
        for n, m in enumerate(moves):
            pos.play(m)
            try:
                if n == 0:
                    score = -self.pvs(depth - 1, -beta, -alpha, 1)
                else:
                    score = -self.pvs(depth - 1, -alpha - 1, -alpha, 1)
                    if alpha < score < beta:
                        score = -self.pvs(depth - 1, -beta, -alpha, 1)
            finally:
                pos.undo()
            scores[m] = score
            if score > best_score:
                best_score, best_move = score, m
                if score > alpha:
                    alpha = score
                    if original_alpha < score < beta:
                        self._root_partial = (m, score)
                    if alpha >= beta:
                        break
        return best_score, best_move, scores

    def _pv(self, first: int, depth: int) -> list[int]:
        pos = self.pos
        pv = [first]
        pos.play(first)
        played = 1
        for _ in range(depth + 8):
            entry = self.tt.get(pos.hash)
            if entry is None:
                break
            move = tt.unpack(entry)[3]
            if move < 0 or pos.cells[move]:
                break
            pv.append(move)
            pos.play(move)
            played += 1
        for _ in range(played):
            pos.undo()
        return pv

    def _reason(self, move: int, score: int) -> str:
        pos = self.pos
        me = pos.side
        opp = 3 - me
        if score >= MATE_BOUND:
            return "win"
        if pos.cls[opp][move] >= pt.K_THREE_THREE or flex_four_cell(pos, opp) >= 0:
            return "block"
        if pos.cls[me][move] >= pt.K_THREE:
            return "threat"
        return "positional"

    # -- interior -------------------------------------------------------------

    def evaluate(self) -> int:
        """Static value for the side to move (see the module docstring). Called
        where neither side has a five to make and the side to move has no open
        four to make: those are decided before."""
        pos = self.pos
        me = pos.side
        t = pos.tot
        black, white = t & VALUE_MASK, t >> VALUE_SHIFT
        score = black - white if me == BLACK else white - black
        if not self.config.threat_eval:
            return score
        mine = pos.count[me]
        theirs = pos.count[3 - me]
        if mine[pt.K_FOUR_THREE]:
            return score + FOUR_THREE_BONUS
        if theirs[pt.K_OPEN_FOUR] or theirs[pt.K_FOUR_FOUR]:
            return score
        if mine[pt.K_THREE_THREE] and not (self._renju and me == BLACK):
            if theirs[pt.K_FOUR] or theirs[pt.K_FOUR_THREE]:
                return score + THREE_THREE_ANSWERED_BONUS
            return score + THREE_THREE_BONUS
        return score

    def _opponent_open_three(self, opp: int) -> bool:
        """Whether ``opp`` can make a straight four (or a legal double four) next move."""
        count = self.pos.count[opp]
        if not (count[pt.K_OPEN_FOUR] or count[pt.K_FOUR_FOUR]):
            return False
        return flex_four_cell(self.pos, opp) >= 0

    def generate(self, me: int, opp: int, width: int, ply: int, tt_move: int) -> list[int]:
        """Candidate moves for ``me``, best first, at most ``width`` of them unless
        the opponent's open three restricts them to its answers."""
        pos = self.pos
        if self._opponent_open_three(opp):
            moves = list(
                set(pos.cells_with_class(me, pt.K_FOUR)) | set(pos.cells_with_class(opp, pt.K_FOUR))
            )
            width = len(moves)
        else:
            moves = pos.candidates()
        if me == BLACK and self._renju:
            moves = [i for i in moves if not pos.is_forbidden(i)]
        vals, low = pos.vals, VALUE_MASK
        moves.sort(key=lambda i: -((v := vals[i]) & low) - (v >> VALUE_SHIFT))
        front = [tt_move] if tt_move >= 0 else []
        if ply < _MAX_PLY:
            front += self.killers[ply]
        if any(m >= 0 for m in front):
            head = [m for m in dict.fromkeys(front) if m >= 0 and m in moves]
            if head:
                rest = [m for m in moves if m not in head]
                return head + rest[: max(0, width - len(head))]
        return moves[:width]

    def pvs(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        pos = self.pos
        self.budget.tick()
        me = pos.side
        opp = 3 - me
        mine = pos.count[me]
        if mine[pt.K_FIVE]:
            return WIN - ply - 1
        if len(pos.stones) >= self.cells_total:
            return 0
        if pos.count[opp][pt.K_FIVE]:
            their_fives = pos.cells_with_class(opp, pt.K_FIVE)
            block = their_fives[0]
            if len(their_fives) > 1 or not legal_for(pos, me, block):
                return -(WIN - ply - 2)
            pos.play(block)
            try:
                score = -self.pvs(depth, -beta, -alpha, ply + 1)
            finally:
                pos.undo()
            return score
        if (mine[pt.K_OPEN_FOUR] or mine[pt.K_FOUR_FOUR]) and flex_four_cell(pos, me) >= 0:
            return WIN - ply - 3
        if depth <= 0:
            return self.evaluate()
        key = pos.hash
        entry = self.tt.get(key)
        tt_move = -1
        if entry is not None:
            e_depth = (entry >> 2) & 1023
            tt_move = ((entry >> 12) & 4095) - 1
            if e_depth >= depth:
                flag = entry & 3
                e_score = (entry >> 24) - tt.SCORE_OFFSET
                if e_score >= MATE_BOUND:
                    e_score -= ply
                elif e_score <= -MATE_BOUND:
                    e_score += ply
                if flag == tt.EXACT:
                    return e_score
                if flag == tt.LOWER and e_score >= beta:
                    return e_score
                if flag == tt.UPPER and e_score <= alpha:
                    return e_score
        moves = self.generate(me, opp, self.config.width, ply, tt_move)
        if not moves:
            return self.evaluate()
        reduce = self.config.reductions and depth >= 3 and len(moves) > 4
        my_cls, their_cls = pos.cls[me], pos.cls[opp]
        original_alpha = alpha
        best_score, best_move = -INFINITY, moves[0]
        child = depth - 1
        for n, m in enumerate(moves):
            quiet = reduce and n >= 3 and my_cls[m] < pt.K_THREE and their_cls[m] < pt.K_THREE
            pos.play(m)
            try:
                if n == 0:
                    score = -self.pvs(child, -beta, -alpha, ply + 1)
                else:
                    if quiet:
                        score = -self.pvs(child - 1, -alpha - 1, -alpha, ply + 1)
                        if score > alpha:
                            score = -self.pvs(child, -alpha - 1, -alpha, ply + 1)
                    else:
                        score = -self.pvs(child, -alpha - 1, -alpha, ply + 1)
                    if alpha < score < beta:
                        score = -self.pvs(child, -beta, -alpha, ply + 1)
            finally:
                pos.undo()
            if score > best_score:
                best_score, best_move = score, m
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if ply < _MAX_PLY and m != tt_move:
                            killers = self.killers[ply]
                            if killers[0] != m:
                                killers[1] = killers[0]
                                killers[0] = m
                        break
        if best_score <= original_alpha:
            flag = tt.UPPER
        elif best_score >= beta:
            flag = tt.LOWER
        else:
            flag = tt.EXACT
        stored = best_score
        if stored >= MATE_BOUND:
            stored += ply
        elif stored <= -MATE_BOUND:
            stored -= ply
        table = self.tt
        if len(table) >= tt.LIMIT:
            table.clear()
        table[key] = tt.pack(depth, flag, stored, best_move)
        return best_score
