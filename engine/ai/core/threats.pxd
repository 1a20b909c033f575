# The C types of engine/ai/core/threats.py (an augmenting .pxd, as lines.pxd says).

cimport cython

from engine.ai.core.lines cimport LineBoard

cdef bint COMPILED
cdef int BLACK, EMPTY, RENJU
cdef int K_THREE, K_THREE_THREE, K_FOUR, K_FOUR_THREE, K_FOUR_FOUR, K_OPEN_FOUR, K_FIVE
cdef int LINE_CAP, MEMO_BITS, MOVE_CAP, VPLY


cdef class ThreatSearch(LineBoard):
    cdef unsigned long long memo_mask
    cdef unsigned long long[::1] vcf_key, vct_key
    cdef long long[::1] vmk
    cdef int[::1] vcf_depth, vct_depth, vmv, line, line_len
    cdef public long long nodes
    cdef long long node_cap
    cdef double stop_at
    cdef bint aborted, bounded_done
    cdef object clock
    cdef long long clock_every
    cdef int c_vcf, c_vct_width

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

    @cython.locals(five=int)
    cdef bint _five_line(self, int a, int vp) noexcept

    @cython.locals(block=int, final=int, base=int)
    cdef int _finish_flex(self, int a, int i, int vp) noexcept

    @cython.locals(a=int, d=int, nd=int, flex=int, start=int, n=int, block=int, base=int,
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

    @cython.locals(a=int, d=int, block=int, x=int)
    cdef int _block_counter_four(self, int depth, int vcf_depth, int vp) noexcept

    @cython.locals(saved_stop=double, saved_cap="long long", stones=int, r=int)
    cdef int _bounded(self, int kind, int depth, double deadline, long long node_limit)

    cdef bint _out_of_budget(self)
