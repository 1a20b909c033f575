"""The board: one widget that draws the grid, stones and marks, and turns
keys and clicks into a chosen point.

Layout of a line (15x15 shown, every glyph one cell wide)::

    15 · · · · · · · · · · · · · · ·
     8 · · · · · · ·(●)· · · · · · ·      <- last move in ( )
     7 · · · · · · [○]· · · · · · · ·     <- cursor in [ ]
       a b c d e f g h i j k l m n o

A row label of two cells, then for each column a separator cell and a glyph
cell, then one closing separator. Separators carry the cursor's ``[ ]`` and the
last move's ``( )`` so both show even without colour (``NO_COLOR``, a
monochrome terminal); the cursor on the last move is ``(●]``, half of each.
Colours and emphasis come from component classes, so the theme lives in CSS.

An AI's hint is drawn with the hint glyph (``◇`` / ``*``) on its point.

A board taller than the space it is given (26x26 needs 27 lines; a game screen
at 80x24 has 20) shows a window of whole rows, and one wider than it (26 columns
take 55 cells; a phone's terminal may have 40) a window of whole columns: the
window follows the cursor (keeping two rows or columns of context around it) and
jumps to show each new move. The cursor is a board point and stays on the point
the player put it on: a new move may scroll it out of view, never move it. Enter
never plays at a point you cannot see: with the cursor out of view it brings the
cursor back into view (and plays nothing); so does an arrow key, moving it from
where it was. The corner left of the column letters shows ``↑`` / ``↓`` while
rows are out of view above / below, the cells beside the letters ``←`` / ``→``
while columns are out of view left / right, and the row numbers and column
letters say which are shown.

The widget decides nothing about the game: it posts :class:`Board.PointChosen`
and the screen decides whether that is a move, an error or nothing. It has no
letter keys: a column letter is the start of a typed point, so a letter or
digit pressed on the board is handed on to the text line
(:class:`client.widgets.entry.TextSink`), and so is the rest of that line
until the board has focus again: ``h8`` Enter plays h8 whatever had focus.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip

from client.glyphs import UNICODE, Glyphs
from client.picture import BoardPicture, star_points
from client.widgets.entry import HandsTypingOn, starts_text
from engine.types import Color, Point

LABEL_WIDTH = 2  # row numbers up to 26
SCROLL_MARGIN = 2  # rows kept visible beyond the cursor when the board scrolls


def column_letter(x: int) -> str:
    return chr(ord("a") + x)


SHARED_MARK = "|"
"""The cell between the last move's mark and the cursor's on the next point."""


def _window_start(index: int, start: int, shown: int, n: int) -> int:
    """Where a window of ``shown`` of ``n`` rows (or columns) now starting at ``start``
    starts once moved the least that shows ``index`` with SCROLL_MARGIN around it."""
    margin = min(SCROLL_MARGIN, (shown - 1) // 2)
    if index < start + margin:
        start = index - margin
    elif index > start + shown - 1 - margin:
        start = index - (shown - 1 - margin)
    return max(0, min(start, n - shown))


class Board(HandsTypingOn, can_focus=True):
    """A Gomoku board with a keyboard cursor and mouse selection."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(0,-1)", "Cursor up", show=False),
        Binding("down", "cursor(0,1)", "Cursor down", show=False),
        Binding("left", "cursor(-1,0)", "Cursor left", show=False),
        Binding("right", "cursor(1,0)", "Cursor right", show=False),
        Binding("enter,space", "choose", "Play", tooltip="Play the point under the cursor"),
        # Not the player's turn: Enter still says why nothing is played, but the footer
        # does not offer Play (the first binding enabled for a key is the one used).
        Binding("enter,space", "choose('early')", "", show=False),
        Binding("full_stop", "to_last", "Cursor to the last move", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "board--grid",
        "board--star",
        "board--label",
        "board--black",
        "board--white",
        "board--last",
        "board--win",
        "board--win-white",
        "board--forbidden",
        "board--cursor",
        "board--selected",
        "board--hint",
        "board--kept",
    }

    DEFAULT_CSS = """
    Board {
        width: auto;
        height: auto;
        background: #af875f;
        color: #1a1005;
    }
    Board > .board--grid { color: #5c3d18; }
    Board > .board--star { color: #1a1005; text-style: bold; }
    Board > .board--label { color: #1a1005; background: #c8a070; }
    Board > .board--black { color: #000000; text-style: bold; }
    Board > .board--white { color: #ffffff; text-style: bold; }
    Board > .board--last { background: #3f8fbf; }
    Board > .board--win { background: #f4a08f; text-style: bold underline; }
    Board > .board--win-white { background: #8b1a10; text-style: bold underline; }
    Board > .board--forbidden { color: #4a0000; text-style: bold; }
    Board > .board--cursor { color: #f0e68c; text-style: bold; }
    Board > .board--selected { background: #6fa8dc; }
    Board > .board--hint { color: #006000; background: #a8d890; text-style: bold; }
    Board > .board--kept { color: #1a1005; background: #d9b88c; text-style: bold; }
    Board:focus > .board--cursor { color: #ffff00; }
    Board.-disabled { tint: #808080 20%; }
    """

    picture: reactive[BoardPicture] = reactive(BoardPicture, layout=True)
    cursor: reactive[Point] = reactive(Point(7, 7))
    selected: reactive[Point | None] = reactive(None)
    kept: reactive[Point | None] = reactive(None)
    """A move typed ahead (a premove): marked on its empty point until it is played or
    dropped."""

    class PointChosen(Message):
        """The user chose ``point`` (Enter/Space on the cursor, or a confirmed click)."""

        def __init__(self, board: Board, point: Point) -> None:
            super().__init__()
            self.board = board
            self.point = point

        @property
        def control(self) -> Board:
            return self.board

    def __init__(
        self,
        *,
        glyphs: Glyphs = UNICODE,
        one_click: bool = False,
        interactive: bool = True,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.glyphs = glyphs
        self.one_click = one_click
        self.interactive = interactive
        self.can_focus = interactive
        self.can_play = interactive  # False for a spectator: Enter plays nothing
        self.my_turn = interactive  # False: Enter is not offered (and says why)
        self.window_top = 0  # the board row (0 = the top row) at the top of the window
        self.window_left = 0  # the board column at the left of the window
        self._showing_last = False  # the window last moved to show a new move (not the cursor)

    # -- geometry -----------------------------------------------------------

    @property
    def size_n(self) -> int:
        return self.picture.size

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return LABEL_WIDTH + 2 * self.size_n + 1

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """Every row and the letters when they fit; else as many rows as there is room for."""
        whole = self.size_n + 1
        if container.height <= 0:
            return whole
        return max(2, min(whole, container.height))

    @property
    def rows_shown(self) -> int:
        """How many board rows the window shows (all of them when they fit)."""
        n = self.size_n
        height = self.size.height
        return n if height <= 0 else max(1, min(n, height - 1))

    @property
    def cols_shown(self) -> int:
        """How many board columns the window shows (all of them when they fit)."""
        n = self.size_n
        width = self.size.width
        return n if width <= 0 else max(1, min(n, (width - LABEL_WIDTH - 1) // 2))

    @property
    def left_shown(self) -> int:
        """The board column at the left of the window, within the board: the window's
        width may have grown since it was placed (drawn before on_resize moves it)."""
        return max(0, min(self.window_left, self.size_n - self.cols_shown))

    def _follow(self, point: Point, also: Iterable[Point] = ()) -> None:
        """Move the window the least that shows ``point`` with SCROLL_MARGIN rows and
        columns around it, and ``also`` (a winning five) as far as it fits with it."""
        top, left = self.window_top, self.window_left
        for each in (*also, point):  # ``point`` last: in view whatever the others
            top = _window_start(each.y, top, self.rows_shown, self.size_n)
            left = _window_start(each.x, left, self.cols_shown, self.size_n)
        if (top, left) != (self.window_top, self.window_left):
            self.window_top, self.window_left = top, left
            self.refresh()

    def in_view(self, point: Point) -> bool:
        """Whether ``point`` is in the window (always, when the whole board fits)."""
        top, left = self.window_top, self.left_shown
        rows_in = top <= point.y < top + self.rows_shown
        return rows_in and left <= point.x < left + self.cols_shown

    def point_at(self, x: int, y: int) -> Point | None:
        """The point under content offset ``(x, y)``: a glyph cell or the
        separator to its left; None on labels or outside the grid."""
        if not 0 <= y < self.rows_shown or x < LABEL_WIDTH:
            return None
        col = (x - LABEL_WIDTH) // 2
        if col >= self.cols_shown:
            return None
        return Point(col + self.left_shown, y + self.window_top)

    def offset_of(self, point: Point) -> tuple[int, int]:
        """The content offset of ``point``'s glyph cell (for tests and mouse users);
        outside the window's cells when the point is scrolled out of view."""
        return LABEL_WIDTH + 1 + 2 * (point.x - self.left_shown), point.y - self.window_top

    # -- drawing ------------------------------------------------------------

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(name, partial=True)

    def render_line(self, y: int) -> Strip:
        n = self.size_n
        rows, cols = self.rows_shown, self.cols_shown
        left = self.left_shown
        base = self.rich_style
        label = base + self._style("board--label")
        if y == rows:
            g = self.glyphs
            up = g.up if self.window_top > 0 else " "
            down = g.down if self.window_top + rows < n else " "
            before = g.left if left > 0 else " "
            after = g.right if left + cols < n else " "
            letters = " ".join(column_letter(x) for x in range(left, left + cols))
            return Strip([Segment(f"{up}{down}{before}{letters}{after}", label)])
        if y > rows:
            return Strip.blank(self.size.width, base)
        y += self.window_top
        segments = [Segment(f"{n - y:>{LABEL_WIDTH}}", label)]
        seps = self._separators(y)
        for x in range(left, left + cols):
            segments.append(seps[x])
            segments.append(self._glyph(Point(x, y), base))
        segments.append(seps[left + cols])
        return Strip(segments).simplify()

    def _separators(self, y: int) -> list[Segment]:
        """The n+1 separator cells of row ``y``: blank, or a bracket of the
        cursor / a parenthesis of the last move. When the two are neighbours, the
        cell between them closes one and opens the other: ``(●|○]``, ``[●|○)``; with
        the cursor on the last move, each keeps one side: ``(●]``."""
        n = self.size_n
        base = self.rich_style
        chars = [" "] * (n + 1)
        styles = [base] * (n + 1)
        last = self.picture.last
        if last is not None and last.y == y:
            mark = base + self._style("board--last")
            chars[last.x], chars[last.x + 1] = "(", ")"
            styles[last.x] = styles[last.x + 1] = mark
        cur = self.cursor
        if cur.y == y and self.interactive and self.has_focus_or_selection:
            mark = base + self._style("board--cursor")
            # A cell holding the far side of the last move's mark (``)`` left of the
            # cursor, ``(`` right of it) is shared; on the last move itself the mark
            # keeps its ``(`` and the cursor closes with ``]``, so both still show.
            for cell, bracket, far_side in ((cur.x, "[", ")"), (cur.x + 1, "]", "(")):
                if cur == last and bracket == "[":
                    continue
                chars[cell] = SHARED_MARK if chars[cell] == far_side else bracket
                styles[cell] = mark
        return [Segment(c, s) for c, s in zip(chars, styles, strict=True)]

    @property
    def has_focus_or_selection(self) -> bool:
        """The cursor is drawn while the board has focus or a click selected a point."""
        return self.has_focus or self.selected is not None

    def _glyph(self, point: Point, base: Style) -> Segment:
        pic = self.picture
        g = self.glyphs
        stone = pic.stones.get(point)
        if stone is not None:
            char = g.stone(stone)
            style = base + self._style("board--black" if stone is Color.BLACK else "board--white")
        elif self.kept is not None and point == self.kept:
            char, style = g.kept, base + self._style("board--kept")
        elif point in pic.forbidden:
            char, style = g.forbidden, base + self._style("board--forbidden")
        elif point in star_points(pic.size):
            char, style = g.star, base + self._style("board--star")
        else:
            char, style = g.empty, base + self._style("board--grid")
        if point == pic.hint:
            char, style = g.hint, base + self._style("board--hint")
        if point in pic.line:
            # A light red under Black's five, a dark one under White's: one red for both
            # was 2.5:1 against the black stones in greys (NO_COLOR), and 3.9:1 in colour.
            style += self._style("board--win-white" if stone is Color.WHITE else "board--win")
        elif point == pic.last:
            style += self._style("board--last")
        if point == self.selected:
            style += self._style("board--selected")
        return Segment(char, style)

    # -- reacting -------------------------------------------------------------

    def validate_cursor(self, point: Point) -> Point:
        n = self.size_n
        return Point(min(max(point.x, 0), n - 1), min(max(point.y, 0), n - 1))

    def watch_picture(self, old: BoardPicture, new: BoardPicture) -> None:
        if old.size != new.size:
            self.window_top = self.window_left = 0
            self.cursor = Point(new.size // 2, new.size // 2)
            self.selected = None
        elif self.selected is not None and (
            self.selected in new.stones or len(new.stones) != len(old.stones)
        ):
            # A point clicked once before a stone came (or went) is no longer the
            # click's first half: minutes later, one click on it played it at once.
            self.selected = None
        if new.last is not None and (new.last != old.last or new.line != old.line):
            # Show the new move, and the five it made (at 80x24 the result's lines under
            # the board hid a corner five's far end); the cursor stays on its point.
            self._follow(new.last, new.line)
            self._showing_last = True

    def watch_cursor(self, point: Point) -> None:
        self._follow(point)
        self._showing_last = False

    def on_resize(self) -> None:
        """Keep in view what the window last followed: the newest move if it jumped
        there, else the cursor. (A question appearing under the board takes a row: on
        26x26, swap2's choice hid the stone it asked about.)"""
        top = max(0, min(self.window_top, self.size_n - self.rows_shown))
        left = self.left_shown
        if (top, left) != (self.window_top, self.window_left):  # drawn for the old window
            self.window_top, self.window_left = top, left
            self.refresh()
        last = self.picture.last
        if self._showing_last and last is not None:
            self._follow(last, self.picture.line)
        else:
            self._follow(self.cursor)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Play (Enter) only for a player: a spectator's board just moves its cursor.
        The footer offers Play on the player's turn only; out of turn Enter is taken
        by the hidden binding, and the screen says why no stone is placed."""
        if action != "choose":
            return True
        return self.can_play and self.my_turn == (parameters == ())

    async def on_key(self, event: events.Key) -> None:
        """A printable key starts a typed point (or chat) in the text line; the keys
        after it follow it there, even those that reach the board before the text
        line has taken focus."""
        await self.hand_typing_on(event, starts=starts_text(event))

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.selected = None  # (its second click comes after other things: a new first)
        self.refresh()

    def action_cursor(self, dx: int, dy: int) -> None:
        self._move_cursor(Point(self.cursor.x + dx, self.cursor.y + dy))

    def action_to_last(self) -> None:
        if self.picture.last is not None:
            self._move_cursor(self.picture.last)

    def _move_cursor(self, point: Point) -> None:
        """The player moves the cursor: the window shows it, even when it stays put
        (at the edge, or already there) after a new move scrolled it out of view."""
        self.selected = None
        self.cursor = point
        self._follow(self.cursor)

    def action_choose(self, when: str = "") -> None:
        """Play the cursor's point if it is in view; else only bring it into view, so
        the player sees what the next Enter plays. (``when``: ``early`` out of turn.)"""
        self.selected = None
        if not self.in_view(self.cursor):
            self._follow(self.cursor)
            return
        self.post_message(self.PointChosen(self, self.cursor))

    def on_click(self, event: events.Click) -> None:
        """First click selects (moves the cursor there), a second click on the
        same point confirms; with ``one_click`` the first click confirms."""
        offset = event.get_content_offset(self)
        if offset is None or not self.interactive or event.button != 1:
            return  # (a right or middle click, a paste on X11, played as a left one)
        point = self.point_at(offset.x, offset.y)
        if point is None:
            return
        event.stop()
        self.focus()
        self.cursor = point
        if self.one_click or self.selected == point:
            self.selected = None
            self.post_message(self.PointChosen(self, point))
        else:
            self.selected = point
