# The C types of engine/ai/core.py, read by Cython when it compiles that file (an
# "augmenting" .pxd: core.py stays plain Python and runs as such without Cython).
# Every attribute and every local of the hot methods gets a C type here; nothing in
# this file changes what the code does, only how fast it runs.

cimport cython

cdef bint COMPILED
cdef int K_THREE, K_THREE_THREE, K_FOUR, K_FOUR_THREE, K_FOUR_FOUR, K_OPEN_FOUR, K_FIVE
cdef int PAD, EMPTY, BLACK, WHITE, WALL, FREESTYLE, STANDARD, RENJU
cdef int WIN, MATE_BOUND, LIKELY_LOSS, INFINITY, ASPIRATION
cdef int MAX_PLY, MOVE_CAP, VPLY, LINE_CAP, MEMO_BITS
cdef int FOUR_THREE_BONUS, THREE_THREE_BONUS, THREE_THREE_ANSWERED_BONUS
cdef int R_WIN, R_BLOCK, R_THREAT, R_POSITIONAL
cdef long long _TT_OFFSET


cdef class Core:
    cdef public int size, rule, W, T, ncells, nstones, passes
    cdef public unsigned long long hash
    cdef unsigned long long pass_key, tt_mask, memo_mask
    cdef int[::1] dirs, nb_off, nb_w, near_off, board, key, val, count, near, stones
    cdef unsigned char[::1] ltb, ltw, klass, suspect, cells, pat, cls
    cdef int[::1] score
    cdef long long[::1] tot
    cdef unsigned long long[::1] zob, tt_key, vcf_key, vct_key
    cdef long long[::1] tt_val, mk, vmk
    cdef int[::1] vcf_depth, vct_depth, mv, vmv, line, line_len, killers, mark
    cdef public long long nodes
    cdef long long node_cap
    cdef double stop_at
    cdef bint aborted, bounded_done
    cdef int partial_move, partial_score
    cdef object clock
    cdef long long clock_every
    cdef int c_max_depth, c_width, c_root_width, c_vcf, c_vct, c_vct_width, c_safety
    cdef int c_leaf_vcf
    cdef bint c_defend_vct, c_threat_eval, c_reductions

    @cython.locals(T=int, di=int, d=int, i=int, kb=int, kw=int, k=int, q=int, v=int, w=int, n=int)
    cdef void _init_keys(self)

    @cython.locals(T=int, pb=int, pw=int, di=int, b=int, w=int)
    cdef void _refresh(self, int i, bint fresh) noexcept

    @cython.locals(T=int, kb=int, kw=int, vb=int, vw=int)
    cdef void _set_cell(self, int i, int pb, int pw, bint fresh) noexcept

    @cython.locals(T=int, base=int)
    cdef int _packed(self, int c, int i) noexcept

    cpdef int side(self) noexcept

    @cython.locals(T=int, c=int, n=int)
    cpdef void play(self, int i) noexcept

    @cython.locals(T=int, c=int, n=int, i=int)
    cpdef void undo(self) noexcept

    cpdef void pass_turn(self) noexcept

    @cython.locals(T=int, db=int, dw=int, di=int, kb_base=int, kw_base=int, j=int, q=int, w=int,
                   kb=int, kw=int, b=int, wp=int)
    cdef void _spread(self, int i, int c, int sign) noexcept

    cpdef int index(self, int x, int y) noexcept
    cpdef int class_of(self, int c, int i) noexcept
    cpdef int value_of(self, int c, int i) noexcept

    @cython.locals(k=int)
    cpdef bint has_class(self, int c, int at_least) noexcept

    @cython.locals(base=int, n=int, i=int)
    cpdef int first_with_class(self, int c, int at_least) noexcept

    @cython.locals(base=int, n=int, i=int)
    cpdef list cells_with_class(self, int c, int at_least)

    @cython.locals(n=int, i=int)
    cpdef list candidates(self)

    cpdef bint is_empty(self, int i) noexcept
    cpdef int near_of(self, int i) noexcept
    cpdef bint is_forbidden(self, int i) noexcept
    cpdef bint legal_for(self, int c, int i) noexcept

    @cython.locals(lo=int, hi=int)
    cdef int _run(self, int i, int d) noexcept

    @cython.locals(lo=int, hi=int)
    cdef bint _five_with(self, int i, int q, int d) noexcept

    @cython.locals(di=int, five=bint)
    cdef bint _makes_five(self, int q) noexcept

    @cython.locals(over=bint, fours=int, threes=int, di=int, d=int, run=int, points=int, last=int,
                   straight=int, k=int, result=int, real=int, seen=int)
    cpdef int foul(self, int i) noexcept

    @cython.locals(found=int, k=int, r=int, lo=int, hi=int, ok=bint)
    cdef int _three_points(self, int i, int d, int strict) noexcept

    @cython.locals(base=int, renju_black=bint, n=int, i=int, k=int)
    cpdef int flex_four_cell(self, int c) noexcept

    @cython.locals(base=int, di=int, d=int, k=int, q=int)
    cdef int _five_point_after(self, int c, int i) noexcept

    cdef void _tick(self) noexcept

    @cython.locals(base=int, n=int, child=int, rest=int, j=int)
    cdef void _set_line(self, int vp, int first, int second) noexcept

    @cython.locals(j=int, h=int, m=int, k="long long")
    cdef void _sort(self, int[::1] mv, long long[::1] mk, int start, int n) noexcept

    @cython.locals(slot="unsigned long long")
    cdef bint _memo_failed(self, int which, int depth) noexcept

    @cython.locals(slot="unsigned long long")
    cdef void _memo_fail(self, int which, int depth) noexcept

    @cython.locals(block=int, final=int, base=int)
    cdef int _finish_flex(self, int a, int i, int vp) noexcept

    @cython.locals(a=int, d=int, five=int, nd=int, flex=int, start=int, n=int, block=int, base=int,
                   j=int, i=int, m=int, r=int)
    cpdef int vcf(self, int depth, int vp) noexcept

    @cython.locals(d=int, block=int, r=int)
    cdef int _after_four(self, int a, int m, int depth, int vp, int vct, int vcf_depth) noexcept

    cpdef int vct(self, int depth, int vcf_depth, int vp) noexcept

    @cython.locals(r=int, a=int, d=int, start=int, n=int, base=int, j=int, i=int, k=int, m=int,
                   four=bint)
    cdef int _vct(self, int depth, int vcf_depth, int vp) noexcept

    @cython.locals(d=int, a=int, start=int, n=int, ba=int, bd=int, j=int, i=int, worst=int,
                   tried=int, r=int, x=int)
    cdef int _defend_three(self, int depth, int vcf_depth, int vp) noexcept

    @cython.locals(a=int, d=int, five=int, block=int, x=int)
    cdef int _block_counter_four(self, int depth, int vcf_depth, int vp) noexcept

    @cython.locals(saved_stop=double, saved_cap="long long", stones=int, r=int)
    cdef int _bounded(self, int kind, int depth, double deadline, long long node_limit)

    cdef bint _out_of_budget(self)

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
