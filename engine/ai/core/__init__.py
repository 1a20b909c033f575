"""The AI's hot path, written once: the board with incremental line patterns,
move generation, evaluation, threat-space search (VCF and VCT) and the
alpha-beta search that uses them.

Four layers, one class each, every one a subclass of the one before:

- :mod:`.lines` — ``LineBoard``: the position, its line patterns and threat classes,
  kept up to date by ``play``/``undo``; reading it; renju's fouls.
- :mod:`.threats` — ``ThreatSearch``: the node budget and clock, VCF and VCT.
- :mod:`.alphabeta` — ``AlphaBeta``: evaluation, move generation, the PVS search
  and its transposition table.
- :mod:`.root` — ``Core``: the root (threat searches, defences, iterative deepening
  with aspiration windows), what :mod:`engine.ai` calls.

:mod:`.constants` holds the numbers they share.

One source, two ways to run it. As they stand these are plain Python modules.
When the package is installed with a C compiler present, ``setup.py`` compiles
each layer with Cython, reading the C types of every attribute and local from the
``.pxd`` beside it, and the compiled modules (``.so``) are imported in their place;
:mod:`engine.ai.backend` says which one is in use and can load the .py files as
plain Python on request. Both run the same statements in the same order, so at a
fixed depth they choose the same move: the test suite compares them. That is why
the code looks like C: flat ``array`` buffers, no exceptions, no closures,
integers that never leave 64 bits. Where plain Python would be needlessly slow
(sorting a move list) it takes a different route to the same result, behind
``COMPILED``. The layers import each other relatively (``from .lines import``), so
the plain copy the backend loads under another package name is whole.

Board layout: a flat array with a border of ``PAD`` wall cells on every side;
point ``(x, y)`` is cell ``(y + PAD) * W + x + PAD`` with ``W = size + 2 * PAD``.
Every cell keeps, per colour and direction, a base-3 *line key* of the ten cells
around it on that line (the slots of :mod:`engine.ai.patterns`: 0 empty, 1 own
stone, 2 opponent or wall), so a stone changes one key per neighbour by one add.
A key reads as a line pattern through :func:`engine.ai.patterns.line_table`, and
four patterns read as the cell's threat class and value through the tables
``CLASS`` and ``SCORE``. The empty cells keep their classes, values and per-class
counts up to date on every move and undo.

Scores are from the side to move's point of view. A win proven ``n`` plies from
the root scores ``WIN - n``. Only a proof makes a mate score: a five on the board,
a block that cannot be made, an open four, a VCF or VCT line, or an alpha-beta
node whose moves covered every defence (the answers to a four or an open three).
A node that lost with every move it tried but did not try them all scores
``-LIKELY_LOSS`` instead, short of a mate.

This package's ``__init__`` imports nothing: loading one layer never loads the
others' compiled modules behind the backend's back.
"""
