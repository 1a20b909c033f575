"""The board widget on its own: drawing, the cursor keys, and both mouse modes."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.pilot import Pilot

from client.glyphs import ASCII, UNICODE, Glyphs, glyphs_named
from client.picture import BoardPicture, star_points
from client.screens.help import describe_bindings
from client.screenshot import screen_text
from client.widgets.board import Board
from engine.notation import parse_moves
from engine.types import Point, Rule


class BoardApp(App[None]):
    """One board, recording the points it reports as chosen."""

    CSS: ClassVar[str] = "Board { margin: 0; }"

    def __init__(self, *, glyphs: Glyphs = UNICODE, one_click: bool = False) -> None:
        super().__init__()
        self.glyphs = glyphs
        self.one_click = one_click
        self.chosen: list[Point] = []

    def compose(self) -> ComposeResult:
        yield Board(glyphs=self.glyphs, one_click=self.one_click)

    def on_board_point_chosen(self, event: Board.PointChosen) -> None:
        self.chosen.append(event.point)


async def focused_board(app: BoardApp, pilot: Pilot[None], moves: str) -> Board:
    """The app's board showing ``moves`` on 15x15, focused and drawn."""
    board = app.query_one(Board)
    board.picture = BoardPicture.from_moves(parse_moves(moves))
    board.focus()
    await pilot.pause()
    return board


def glyph_offset(point: Point) -> tuple[int, int]:
    return Board().offset_of(point)


async def test_draws_coordinates_stars_and_stones() -> None:
    """Rows are numbered 15..1 down the side, columns a..o underneath, stones by colour."""
    app = BoardApp()
    async with app.run_test(size=(40, 17)) as pilot:
        app.query_one(Board).picture = BoardPicture.from_moves(parse_moves("h8 i9"))
        await pilot.pause()
        lines = screen_text(app).splitlines()
    assert lines[0].startswith("15 · · ·")
    assert lines[15].strip() == "a b c d e f g h i j k l m n o"
    assert lines[14].startswith(" 1 ")
    row8 = lines[7]  # h8 is the 8th row from the bottom: line index 15 - 8
    assert row8.startswith(" 8 ")
    assert row8[3 + 2 * 7] == "●"
    assert lines[6][3 + 2 * 8] == "○"  # i9, the last move, in ( )
    assert lines[6][2 + 2 * 8] == "("
    assert lines[11][3 + 2 * 3] == "+"  # d4 star point


async def test_ascii_glyphs() -> None:
    """--glyphs ascii draws X, O and . only."""
    app = BoardApp(glyphs=glyphs_named("ascii"))
    async with app.run_test(size=(40, 17)) as pilot:
        app.query_one(Board).picture = BoardPicture.from_moves(parse_moves("h8 i9"))
        await pilot.pause()
        text = screen_text(app)
    assert "X" in text
    assert "O" in text
    assert "●" not in text
    assert "○" not in text
    assert text.isascii()


async def test_arrow_keys_move_the_cursor_and_enter_space_choose() -> None:
    """Arrows move the cursor (clamped to the board); Enter and Space choose it. Letters
    are no cursor keys (a column letter starts a typed point): with nowhere to hand
    them on, they do nothing."""
    app = BoardApp()
    async with app.run_test(size=(40, 17)) as pilot:
        board = app.query_one(Board)
        assert board.cursor == Point(7, 7)
        await pilot.press("up", "right", "right")
        assert board.cursor == Point(9, 6)
        await pilot.press("h", "j", "k", "l", "left")
        assert board.cursor == Point(8, 6)
        await pilot.press("down")
        assert board.cursor == Point(8, 7)
        await pilot.press("enter")
        await pilot.press("left", "space")
        await pilot.pause()
        for _ in range(20):
            await pilot.press("left", "up")
        assert board.cursor == Point(0, 0)
    assert app.chosen == [Point(8, 7), Point(7, 7)]


async def test_cursor_is_drawn_in_brackets() -> None:
    """The focused board shows the cursor as [ ] around its point."""
    app = BoardApp()
    async with app.run_test(size=(40, 17)) as pilot:
        await pilot.press("up")
        lines = screen_text(app).splitlines()
    assert lines[6][2 + 2 * 7 : 5 + 2 * 7] == "[·]"


async def test_two_click_mouse_selects_then_confirms() -> None:
    """A first click selects a point, a second click on it plays it; another point reselects."""
    app = BoardApp()
    async with app.run_test(size=(40, 17)) as pilot:
        board = app.query_one(Board)
        await pilot.click(Board, offset=glyph_offset(Point(2, 3)))
        assert board.selected == Point(2, 3)
        assert app.chosen == []
        await pilot.click(Board, offset=glyph_offset(Point(4, 4)))
        assert board.selected == Point(4, 4)
        await pilot.click(Board, offset=glyph_offset(Point(4, 4)))
        await pilot.pause()
        assert board.selected is None
    assert app.chosen == [Point(4, 4)]


async def test_one_click_mouse_plays_at_once() -> None:
    """With --one-click the first click plays."""
    app = BoardApp(one_click=True)
    async with app.run_test(size=(40, 17)) as pilot:
        await pilot.click(Board, offset=glyph_offset(Point(10, 1)))
        await pilot.pause()
    assert app.chosen == [Point(10, 1)]


async def test_clicks_on_labels_do_nothing() -> None:
    """Clicking the row numbers or the letters below chooses nothing."""
    app = BoardApp(one_click=True)
    async with app.run_test(size=(40, 17)) as pilot:
        await pilot.click(Board, offset=(0, 3))
        await pilot.click(Board, offset=(10, 15))
        await pilot.pause()
    assert app.chosen == []


async def test_winning_line_and_last_move_are_styled() -> None:
    """The winning five gets the win highlight; forbidden points the renju mark."""
    app = BoardApp()
    async with app.run_test(size=(40, 17)) as pilot:
        board = app.query_one(Board)
        moves = parse_moves("h8 a1 i8 a2 j8 a3 k8 a4 l8")
        line = [Point(x, 7) for x in range(7, 12)]
        board.picture = BoardPicture.from_moves(moves, line=line)
        await pilot.pause()
        win = board.get_component_rich_style("board--win", partial=True)
        strip = board.render_line(7)
        styled = [seg for seg in strip if seg.text == "●"]
        assert len(styled) == 5
        assert all(seg.style is not None and seg.style.bgcolor == win.bgcolor for seg in styled)
        renju = parse_moves("h8 a1 i9 a2 i7 a3 j8 a4")
        board.picture = BoardPicture.from_moves(renju, rule=Rule.RENJU)
        await pilot.pause()
        lines = screen_text(app).splitlines()
    assert lines[7][3 + 2 * 8] == UNICODE.forbidden  # i8 is a double three for Black


def test_star_points() -> None:
    """15x15 has the five classic star points; 19x19 nine."""
    assert star_points(15) == {Point(3, 3), Point(3, 11), Point(11, 3), Point(11, 11), Point(7, 7)}
    assert len(star_points(19)) == 9
    assert star_points(7) == {Point(3, 3)}


def test_glyph_sets_are_one_cell_each() -> None:
    """Every glyph is a single character, and ascii is pure ASCII."""
    for glyphs in (UNICODE, ASCII):
        chars = (glyphs.black, glyphs.white, glyphs.empty, glyphs.star, glyphs.forbidden)
        for char in (*chars, glyphs.hint, glyphs.up, glyphs.down, glyphs.left, glyphs.right):
            assert len(char) == 1
    assert all(c.isascii() for c in (ASCII.black, ASCII.white, ASCII.empty, ASCII.forbidden))
    assert all(c.isascii() for c in (ASCII.hint, ASCII.up, ASCII.down, ASCII.left, ASCII.right))


def row_labels(text: str) -> list[int]:
    """The row numbers on screen, top to bottom."""
    return [int(line[:2]) for line in text.splitlines() if line[:2].strip().isdigit()]


async def test_tall_board_scrolls_with_the_cursor() -> None:
    """26x26 in 12 lines: 11 rows show, the cursor stays in view as it moves, arrows by the
    letters say which way more rows are, and clicks hit the rows actually shown."""
    app = BoardApp(one_click=True)
    async with app.run_test(size=(60, 12)) as pilot:
        board = app.query_one(Board)
        board.picture = BoardPicture.from_moves([], size=26)
        board.focus()
        await pilot.pause()
        assert board.rows_shown == 11
        assert board.cursor == Point(13, 13)  # the centre, row 13
        text = screen_text(app)
        assert 13 in row_labels(text)
        assert text.splitlines()[11].startswith("↑↓ a b c")
        board.cursor = Point(13, 2)  # row 24: the window follows
        await pilot.press("up", "up")
        text = screen_text(app)
        assert row_labels(text) == list(range(26, 15, -1))
        assert text.splitlines()[11].startswith(" ↓ a")
        board.cursor = Point(13, 23)
        await pilot.press("down", "down")
        text = screen_text(app)
        assert row_labels(text) == list(range(11, 0, -1))
        assert text.splitlines()[11].startswith("↑  a")
        assert board.cursor == Point(13, 25)
        await pilot.click(Board, offset=(3 + 2 * 2, 10))  # c1: the bottom row on screen
        await pilot.pause()
    assert app.chosen == [Point(2, 25)]


async def test_new_move_out_of_view_is_shown() -> None:
    """A move played out of the window scrolls it into view; . puts the cursor on the
    last move."""
    app = BoardApp()
    async with app.run_test(size=(60, 12)) as pilot:
        board = app.query_one(Board)
        board.picture = BoardPicture.from_moves(parse_moves("m13", 26), size=26)
        board.focus()
        await pilot.pause()
        board.picture = BoardPicture.from_moves(parse_moves("m13 b2", 26), size=26)
        await pilot.pause()
        assert 2 in row_labels(screen_text(app))
        await pilot.press(".")
        assert board.cursor == Point(1, 24)  # b2


async def test_full_stop_puts_the_cursor_on_the_last_move() -> None:
    """The . key (Textual's full_stop) moves the cursor to the last move, and the help
    names it "."."""
    app = BoardApp()
    async with app.run_test(size=(40, 17)) as pilot:
        board = await focused_board(app, pilot, "h8 c3")
        assert board.cursor == Point(7, 7)
        await pilot.press(".")
        assert board.cursor == Point(2, 12)  # c3
    assert (".", "Cursor to the last move") in describe_bindings(Board.BINDINGS)


async def test_a_new_move_never_moves_the_cursor() -> None:
    """26x26 in 12 lines, the cursor on z26: a move at a3 scrolls the window down to it
    and the cursor stays on z26; Enter first shows z26 again (playing nothing), the
    next Enter plays z26."""
    app = BoardApp()
    async with app.run_test(size=(60, 12)) as pilot:
        board = app.query_one(Board)
        board.picture = BoardPicture.from_moves([], size=26)
        board.focus()
        board.cursor = Point(25, 0)  # z26
        await pilot.pause()
        assert row_labels(screen_text(app))[0] == 26
        board.picture = BoardPicture.from_moves(parse_moves("a3", 26), size=26)
        await pilot.pause()
        assert 3 in row_labels(screen_text(app))
        assert 26 not in row_labels(screen_text(app))
        assert board.cursor == Point(25, 0)
        await pilot.press("enter")
        assert app.chosen == []
        assert row_labels(screen_text(app))[0] == 26
        assert "[·]" in screen_text(app).splitlines()[0]  # the cursor on z26, on screen
        await pilot.press("enter")
        await pilot.pause()
    assert app.chosen == [Point(25, 0)]


async def test_hint_is_drawn_with_its_glyph() -> None:
    """A hint point shows the hint glyph (◇, or * in ascii) with the hint style."""
    app = BoardApp(glyphs=ASCII)
    async with app.run_test(size=(40, 17)) as pilot:
        board = app.query_one(Board)
        board.picture = BoardPicture.from_moves(parse_moves("h8"), hint=Point(8, 6))
        await pilot.pause()
        lines = screen_text(app).splitlines()
        style = board.get_component_rich_style("board--hint", partial=True)
        marked = [seg for seg in board.render_line(6) if seg.text == "*"]
    assert lines[6][3 + 2 * 8] == "*"  # i9
    assert len(marked) == 1
    assert marked[0].style is not None
    assert marked[0].style.bgcolor == style.bgcolor


async def test_the_cursor_beside_the_last_move_keeps_both_marks() -> None:
    """The cursor on the point right of the last move (or left of it): the cell between
    them closes one mark and opens the other, so neither loses a side; on the last move
    itself each keeps one side: ``(○]``."""
    app = BoardApp()
    async with app.run_test(size=(40, 17)) as pilot:
        app.query_one(Board).picture = BoardPicture.from_moves(parse_moves("h8 i8"))
        await pilot.press("right", "right")  # from h8 (the centre) to j8, beside i8
        line = screen_text(app).splitlines()[7]
        assert line[3 + 2 * 7 :].startswith("●(○|·]"), line
        await pilot.press("left", "left")  # h8, left of i8
        line = screen_text(app).splitlines()[7]
        assert line[2 + 2 * 7 :].startswith("[●|○)"), line
        await pilot.press("right")  # on the last move: its ( and the cursor's ]
        line = screen_text(app).splitlines()[7]
        assert line[2 + 2 * 7 :].startswith(" ●(○]"), line


async def test_a_terminal_made_small_then_large_again_shows_the_whole_board() -> None:
    """15x15 shrunk to a few lines (the window scrolls to the cursor), then back to full
    size: rows 15 to 1 show again, never a row 0 in place of row 15."""
    app = BoardApp()
    async with app.run_test(size=(40, 17)) as pilot:
        board = await focused_board(app, pilot, "h8 c3")
        board.cursor = Point(2, 12)  # c3, low on the board
        for size in ((40, 12), (40, 8), (40, 17)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
        assert row_labels(screen_text(app)) == list(range(15, 0, -1))


async def test_a_five_at_the_board_edge_stays_whole_in_view_as_the_result_takes_rows() -> None:
    """On 20x20 and 19x19, the game ends with a five at a corner: when the lines under the
    board take two of its rows, the window shows every stone of the five, not just the last."""
    games = (
        (20, "t20 a1 s19 b1 r18 c1 q17 d1 p16", "p16 q17 r18 s19 t20"),
        (19, "e5 s19 d4 r19 c3 q19 b2 p19 a1", "a1 b2 c3 d4 e5"),
    )
    for size, moves, five in games:
        app = BoardApp()
        async with app.run_test(size=(60, size + 1)) as pilot:
            board = app.query_one(Board)
            line = parse_moves(five, size)
            board.picture = BoardPicture.from_moves(parse_moves(moves, size), size=size, line=line)
            board.focus()
            await pilot.pause()
            assert board.rows_shown == size  # (the whole board, until the result comes)
            await pilot.resize_terminal(60, size - 1)
            await pilot.pause()
            assert board.rows_shown == size - 2
            assert all(board.in_view(p) for p in line), (size, board.window_top)
