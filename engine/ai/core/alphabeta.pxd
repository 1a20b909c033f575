# The C types of engine/ai/core/alphabeta.py (an augmenting .pxd, as lines.pxd says).

cimport cython

from engine.ai.core.threats cimport ThreatSearch

cdef int BLACK, EMPTY, RENJU
cdef int K_THREE, K_THREE_THREE, K_FOUR, K_FOUR_THREE, K_FOUR_FOUR, K_OPEN_FOUR, K_FIVE
cdef int WIN, MATE_BOUND, LIKELY_LOSS, INFINITY, MAX_PLY, MOVE_CAP
cdef int FOUR_THREE_BONUS, THREE_THREE_BONUS, THREE_THREE_ANSWERED_BONUS
cdef long long _TT_OFFSET


cdef class AlphaBeta(ThreatSearch):
    cdef unsigned long long tt_mask
    cdef unsigned long long[::1] tt_key
    cdef long long[::1] tt_val, mk
    cdef int[::1] mv, killers
    cdef int c_width, c_leaf_vcf
    cdef bint c_threat_eval, c_reductions


    @cython.locals(me=int, opp=int, score=int)
    cpdef int evaluate(self) noexcept

    @cython.locals(opp=int, start=int, n=int, forced=bint, bm=int, bo=int, renju_black=bint, j=int,
                   i=int, head=int, k1=int, k2=int, f=int, m=int, found=int, limit=int)
    cdef int generate(self, int me, int width, int ply, int tt_move) noexcept

    @cython.locals(r=int)
    cdef int _leaf(self, int ply) noexcept

    @cython.locals(me=int, opp=int, block=int, score=int, slot="unsigned long long", tt_move=int,
                   entry="long long", flag=int, e_score=int, n=int, complete=bint, reduce=bint,
                   start=int, original_alpha=int, best_score=int, best_move=int, child=int, bm=int,
                   bo=int, j=int, m=int, quiet=bint, stored="long long")
    cdef int pvs(self, int depth, int alpha, int beta, int ply) noexcept
