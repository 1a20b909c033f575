# The C types of engine/ai/core/root.py (an augmenting .pxd, as lines.pxd says). The
# root's methods stay Python methods (lists, sets, tuples): they run once a search.

from engine.ai.core.alphabeta cimport AlphaBeta

cdef int ASPIRATION, EMPTY, INFINITY, K_FIVE, K_THREE, K_THREE_THREE, MATE_BOUND, MAX_PLY
cdef int R_BLOCK, R_POSITIONAL, R_THREAT, R_WIN, RENJU, WIN


cdef class Core(AlphaBeta):
    cdef int partial_move, partial_score
    cdef int c_max_depth, c_root_width, c_vct, c_safety
    cdef bint c_defend_vct
