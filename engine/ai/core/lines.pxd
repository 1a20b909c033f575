# The C types of engine/ai/core/lines.py, read by Cython when it compiles that file
# (an "augmenting" .pxd: lines.py stays plain Python and runs as such without
# Cython). Every attribute and every local of the hot methods gets a C type here;
# nothing in this file changes what the code does, only how fast it runs. The
# constants are C ints, set once from engine.ai.core.constants when the module loads.

cimport cython

cdef int PAD, EMPTY, BLACK, WHITE, WALL, STANDARD, RENJU


cdef class LineBoard:
    cdef public int size, rule, W, T, ncells, nstones, passes
    cdef public unsigned long long hash
    cdef unsigned long long pass_key
    cdef int[::1] dirs, nb_off, nb_w, near_off, board, key, val, count, near, stones
    cdef unsigned char[::1] ltb, ltw, klass, suspect, cells, pat, cls
    cdef int[::1] score
    cdef long long[::1] tot
    cdef unsigned long long[::1] zob

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

