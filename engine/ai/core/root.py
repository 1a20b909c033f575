"""The AI core's root (layer 4 of :mod:`engine.ai.core`): ``Core.search`` answers a
move: a five, a block, an open four, the own VCF and VCT, the defence against the
opponent's forced win, then iterative deepening with aspiration windows. This is
the class :mod:`engine.ai` uses."""

from __future__ import annotations

from collections.abc import Callable

from .alphabeta import AlphaBeta
from .constants import (
    ASPIRATION,
    EMPTY,
    INFINITY,
    K_FIVE,
    K_THREE,
    K_THREE_THREE,
    MATE_BOUND,
    MAX_PLY,
    R_BLOCK,
    R_POSITIONAL,
    R_THREAT,
    R_WIN,
    RENJU,
    WIN,
)


class Core(AlphaBeta):
    """A position and the searches on it. ``rule`` is FREESTYLE, STANDARD or RENJU.
    ``play``/``undo`` keep everything incremental; ``search`` answers a move."""

    def __init__(self, size: int, rule: int, tt_bits: int = 20) -> None:
        super().__init__(size, rule, tt_bits)
        self.partial_move = -1
        self.partial_score = 0
        # Search settings (copied from a SearchConfig by ``search``).
        self.c_max_depth = 40
        self.c_root_width = 24
        self.c_vct = 0
        self.c_safety = 10
        self.c_defend_vct = False

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
                if self.partial_move >= 0 and (self.partial_move != best or not done_depth):
                    # The unfinished iteration proved another move better than the
                    # last iteration's best (searched first), or scored the first: take it.
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
        if best_score == -INFINITY:
            # Not one root move was searched in time: the static value after the first
            # candidate, a guess and never a mate score (which would read as a proven loss).
            self.play(best)
            best_score = -self.evaluate()
            self.undo()
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
