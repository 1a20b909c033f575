"""A board drawn as SVG, for a notebook or a web page (as ``chess.svg`` draws chess).

    >>> from engine import Board
    >>> from engine.svg import board_svg
    >>> picture = board_svg(Board.from_moves("h8 i9 h9"))  # text of an <svg> element

:meth:`engine.board.Board._repr_svg_` returns the same, so Jupyter shows a board as a
picture. Coordinates are labelled as in ``h8`` (columns from the left, rows from the
bottom); the last move has a ring, the winning line a stroke through it, and any
``marks`` (Black's forbidden points, say) a small cross.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from engine.types import Color, Point, Result


class Position(Protocol):
    """What a drawing reads of a board (:class:`engine.board.Board`, which imports this
    module to draw itself)."""

    @property
    def size(self) -> int: ...

    @property
    def last_move(self) -> Point | None: ...

    @property
    def result(self) -> Result | None: ...

    def stones(self, color: Color | str) -> list[Point]: ...


CELL = 24
"""Pixels between two lines of the grid (the default)."""


def board_svg(board: Position, *, marks: Iterable[Point] = (), cell: int = CELL) -> str:
    """The SVG text of ``board``, ``cell`` pixels between lines, with ``marks`` crossed."""
    size = board.size
    radius = cell * 0.45
    label = max(9, cell // 2)
    margin = round(radius + 2.4 * label)  # around the grid: the labels stand there
    side = 2 * margin + (size - 1) * cell

    def at(point: Point) -> tuple[int, int]:
        return margin + point.x * cell, margin + point.y * cell

    far = margin + (size - 1) * cell
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {side} {side}" '
        f'width="{side}" height="{side}">',
        f'<rect width="{side}" height="{side}" fill="#dcb35c"/>',
        '<g stroke="#000" stroke-width="1">',
    ]
    for n in range(size):
        line = margin + n * cell
        parts.append(f'<line x1="{margin}" y1="{line}" x2="{far}" y2="{line}"/>')
        parts.append(f'<line x1="{line}" y1="{margin}" x2="{line}" y2="{far}"/>')
    parts.append("</g>")
    parts.append(f'<g font-family="sans-serif" font-size="{label}" text-anchor="middle">')
    below, left = round(far + radius + 1.2 * label), round(margin - radius - 1.1 * label)
    for n in range(size):
        line = margin + n * cell
        parts.append(f'<text x="{line}" y="{below}">{chr(ord("a") + n)}</text>')
        parts.append(f'<text x="{left}" y="{line + label // 3}">{size - n}</text>')
    parts.append("</g>")
    for colour in (Color.BLACK, Color.WHITE):
        fill = "#111" if colour is Color.BLACK else "#fafafa"
        for point in board.stones(colour):
            x, y = at(point)
            parts.append(
                f'<circle class="{colour}" cx="{x}" cy="{y}" r="{radius:g}" '
                f'fill="{fill}" stroke="#000"/>'
            )
    last = board.last_move
    if last is not None:
        x, y = at(last)
        parts.append(
            f'<circle class="last" cx="{x}" cy="{y}" r="{radius / 2:g}" fill="none" '
            'stroke="#e33" stroke-width="2"/>'
        )
    result = board.result
    if result is not None and result.line:
        (x1, y1), (x2, y2) = at(result.line[0]), at(result.line[-1])
        parts.append(
            f'<line class="win" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#e33" '
            'stroke-width="3"/>'
        )
    arm = cell // 5
    for point in marks:
        x, y = at(point)
        parts.append(
            f'<path class="mark" d="M{x - arm} {y - arm}L{x + arm} {y + arm}'
            f'M{x - arm} {y + arm}L{x + arm} {y - arm}" stroke="#c00" stroke-width="2"/>'
        )
    parts.append("</svg>")
    return "".join(parts)
