"""gomoku review: stepping through a record file, and exporting it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.color import Color as RichColor
from rich.color import ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual.color import Color as TextualColor

from client.review import export_record, load_record
from client.screens.review import ExportDialog, ReviewApp, ReviewScreen
from client.screenshot import screen_text
from client.widgets.board import Board
from engine import Board as EngineBoard
from engine.notation import format_point
from engine.record import parse_json, parse_psq
from engine.types import Color, Point, Rule

MOVES = "h8 a1 i8 a2 j8 a3 k8 a4 l8\n"


async def test_review_steps_through_the_moves(tmp_path: Path) -> None:
    """The review opens at the end with the winning line; ←/→, Home and End step."""
    source = tmp_path / "game.txt"
    source.write_text(MOVES, encoding="utf-8")
    app = ReviewApp(load_record(source), source=source)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        board = screen.query_one(Board)
        assert screen.index == 9
        assert board.picture.line == frozenset(Point(x, 7) for x in range(7, 12))
        assert "move 9 of 9 · black wins (five in a row)" in screen_text(app)
        assert "  9. (l8)" in screen_text(app)  # the move list marks the current move
        await pilot.press("left", "h", "p")
        assert screen.index == 6
        assert len(board.picture.stones) == 6
        await pilot.pause()
        assert "  5.  j8   (a3)" in screen_text(app)
        assert board.picture.line == frozenset()
        await pilot.press("home")
        assert board.picture.stones == {}
        await pilot.press("right", "l", "n")
        assert board.picture.stones[Point(0, 14)] is Color.WHITE
        await pilot.press("end")
        assert screen.index == 9
        await pilot.press("q")


def _long_game(moves: int) -> str:
    """A record of ``moves`` stones in which nobody wins (row by row, skipping a stone that
    would)."""
    board = EngineBoard(15, Rule.FREESTYLE)
    played: list[str] = []
    for point in (Point(x, y) for y in range(15) for x in range(15)):
        if len(played) == moves:
            break
        if board.play(point) is not None:
            board.undo(1)
            continue
        played.append(format_point(point, 15))
    return " ".join(played) + "\n"


async def test_home_and_end_jump_with_a_long_move_list_focused(tmp_path: Path) -> None:
    """Home and End jump to the first and last position even with the move list focused
    and long enough to scroll (they scrolled it, and the position stayed)."""
    source = tmp_path / "game.txt"
    source.write_text(_long_game(120), encoding="utf-8")
    app = ReviewApp(load_record(source), source=source)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        screen.query_one("#review-moves").focus()
        await pilot.pause()
        await pilot.press("home")
        assert screen.index == 0
        await pilot.press("end")
        assert screen.index == 120
        await pilot.press("q")


async def test_an_unfinished_renju_record_marks_blacks_fouls_at_its_end(tmp_path: Path) -> None:
    """A record with no result ends with Black to move: its last position marks Black's
    forbidden point as any other does (it was taken for a finished game's end)."""
    source = tmp_path / "game.txt"
    source.write_text("h8 a1 g8 a3 i9 a5 i10 a7\n", encoding="utf-8")
    app = ReviewApp(load_record(source, rule=Rule.RENJU), source=source)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        assert screen.index == 8
        assert Point(8, 7) in screen.query_one(Board).picture.forbidden  # i8, a double three


async def test_a_server_records_clock_is_shown(tmp_path: Path) -> None:
    """A record the server kept of a game lost on time says its time control and the
    time each side had left: a 5+3 game and a 4-second one read alike without them."""
    source = tmp_path / "timed.json"
    source.write_text(
        '{"format": "gomoku-arena-record", "version": 1, "rule": "freestyle", "size": 15,'
        ' "opening": "free", "players": {"black": "ann", "white": "bob"},'
        ' "moves": [{"move": "h8", "t": 0}, {"move": "a1", "t": 900}],'
        ' "result": {"winner": "white", "reason": "timeout"},'
        ' "game": {"id": "r-1", "time": {"base_ms": 300000, "inc_ms": 3000},'
        ' "clocks": {"black_ms": 0, "white_ms": 192000}}}',
        encoding="utf-8",
    )
    app = ReviewApp(load_record(source), source=source)
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "ann (black) vs bob (white) · freestyle 15x15 · free · 5+3" in text
        assert "white wins (time) · left: black 0:00.0, white 3:12" in text


async def test_review_exports_json_and_psq(tmp_path: Path) -> None:
    """e asks for a file name; the extension picks the format, and the file reads back."""
    source = tmp_path / "game.txt"
    source.write_text(MOVES, encoding="utf-8")
    record = load_record(source)
    app = ReviewApp(record, source=source)
    target = tmp_path / "out.json"
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, ExportDialog)
        field = app.screen.query_one("#path")
        field.value = str(target)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
    assert parse_json(target.read_text(encoding="utf-8")).points == record.points
    psq = tmp_path / "out.psq"
    assert export_record(record, psq) == "psq"
    assert parse_psq(psq.read_text(encoding="utf-8")).points == record.points


def test_a_psq_file_from_windows_with_latin1_names_loads(tmp_path: Path) -> None:
    """Piskvork writes names in the system's code page: a PSQ that is not UTF-8 loads,
    read as Latin-1 (it was refused as "not a text file")."""
    source = tmp_path / "latin1.psq"
    source.write_bytes(
        b"Piskvorky 15x15, 11:11, 0\r\n8,8,0\r\n9,9,10\r\nJos\xe9\r\nM\xfcller\r\n-1\r\n"
    )
    record = load_record(source)
    assert (record.players.black, record.players.white) == ("José", "Müller")
    assert len(record.moves) == 2


async def test_export_asks_before_replacing_a_file(tmp_path: Path) -> None:
    """Export onto a file that exists says so and waits for a second Export: it replaced
    the file at once (the source itself, if its name was typed)."""
    source = tmp_path / "game.txt"
    compact = MOVES.replace(" ", "")  # written back spaced: the file tells when it was
    source.write_text(compact, encoding="utf-8")
    app = ReviewApp(load_record(source), source=source)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        dialog.query_one("#path").value = str(source)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog
        assert "game.txt exists: Export again replaces it" in screen_text(app)
        assert source.read_text(encoding="utf-8") == compact
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, ExportDialog)
    assert source.read_text(encoding="utf-8") == MOVES


async def test_export_to_an_sgf_name_says_it_is_not_written(tmp_path: Path) -> None:
    """An export named .sgf is refused in a notice, the review goes on and nothing is
    written (the program ended with a traceback)."""
    source = tmp_path / "game.txt"
    source.write_text(MOVES, encoding="utf-8")
    app = ReviewApp(load_record(source), source=source)
    target = tmp_path / "out.sgf"
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#path").value = str(target)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert said == [
            "Not written: SGF files are not supported: use .json, .psq or a move list "
            "like h8 i9 (any other name)"
        ]
        assert app.is_running
    assert not target.exists()


async def test_a_narrow_review_hides_the_move_list_and_fits_its_lines(tmp_path: Path) -> None:
    """At 40 columns the move list showed its numbers only (the moves cut off): it goes,
    and the status lines leave out whole parts rather than end mid-word."""
    source = tmp_path / "game.txt"
    source.write_text(MOVES, encoding="utf-8")
    app = ReviewApp(load_record(source), source=source)
    async with app.run_test(size=(40, 15)) as pilot:
        await pilot.pause()
        assert not app.screen.query_one("#review-moves").display
        lines = screen_text(app).splitlines()
        assert lines[0].strip() == "? (black) vs ? (white)"  # the rest did not fit
        assert lines[1].strip().startswith("move 9 of 9 · black wins")
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert app.screen.query_one("#review-moves").display


async def test_sixteen_colours_draw_the_board_in_the_colours_the_stylesheet_names(
    tmp_path: Path,
) -> None:
    """On a 16-colour terminal the labels came out bright red and the winning five
    magenta (Textual's RGB for ANSI yellow and red, then the nearest of 16): they are
    the palette's yellow and bright red (black ink on red was 2.8:1), the last move
    cyan, the cursor blue."""
    source = tmp_path / "game.txt"
    source.write_text(MOVES, encoding="utf-8")
    app = ReviewApp(load_record(source), source=source)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.has_class("-few-colours")  # (a test's terminal has 16 colours)
        board = app.screen.query_one(Board)

        def colour(component: str, background: bool) -> int | None:
            chosen = _drawn_colour(app, board.get_component_rich_style(component), background)
            return chosen.downgrade(ColorSystem.STANDARD).number

        assert colour("board--label", background=True) == 3  # yellow
        assert colour("board--win", background=True) == 9  # bright red
        assert colour("board--win-white", background=True) == 9
        assert colour("board--last", background=True) == 6  # cyan
        assert colour("board--cursor", background=False) == 4  # blue
        assert colour("board--black", background=False) == 0  # black ink


async def test_a_swap2_record_says_who_opened_and_who_placed_each_opening_stone(
    tmp_path: Path,
) -> None:
    """No review said who placed a swap2 opening's stones (its record has it): the
    title names the opener, and each opening stone its placer."""
    source = tmp_path / "swap2.json"
    source.write_text(
        json.dumps(
            {
                "format": "gomoku-arena-record",
                "version": 1,
                "size": 15,
                "rule": "standard",
                "opening": "swap2",
                "players": {"black": "bob", "white": "ann"},
                "moves": [{"move": m} for m in ["h8", "i9", "j8", "g7", "k10", "a1"]],
                "result": None,
                "game": {"swap2": {"opener": "white", "stones": 5}},
            }
        ),
        encoding="utf-8",
    )
    app = ReviewApp(load_record(source), source=source)
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        assert "swap2, ann opened" in screen_text(app).splitlines()[0]
        for step, placer in ((2, "ann"), (3, "ann"), (4, "bob"), (5, "bob"), (6, None)):
            app.screen.index = step  # type: ignore[attr-defined]
            await pilot.pause()
            status = screen_text(app).splitlines()[1]
            if placer is None:
                assert "placed by" not in status, status
            else:
                assert f"placed by {placer} in the opening" in status, status


def _drawn_colour(app: ReviewApp, style: Style, background: bool) -> RichColor:
    """``style``'s colour (its background's, if ``background``) as the app draws it:
    through its filters (Textual's ANSI-to-RGB, NO_COLOR's greys)."""
    segments = [Segment("x", style)]
    for step in app._filters:
        segments = step.apply(segments, TextualColor(0, 0, 0))
    out = segments[0].style
    assert out is not None
    chosen = out.bgcolor if background else out.color
    assert chosen is not None
    return chosen


def _luminance(colour: tuple[int, int, int]) -> float:
    """WCAG's relative luminance of an sRGB colour."""

    def linear(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


async def test_without_colour_the_winning_five_and_the_cursor_keep_their_contrast(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NO_COLOR draws every colour as its grey: Black's winning stones were 2.5:1 on
    the five's highlight and the cursor's brackets 2.7:1 on the board. Both stones of a
    five now stand at 4.5:1 or more on theirs, and the cursor at 3:1 or more."""
    monkeypatch.setenv("NO_COLOR", "1")
    source = tmp_path / "game.txt"
    source.write_text(MOVES, encoding="utf-8")
    app = ReviewApp(load_record(source), source=source)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.no_color
        board = app.screen.query_one(Board)

        def drawn(component: str, background: bool) -> tuple[int, int, int]:
            style = board.rich_style + board.get_component_rich_style(component)
            triplet = _drawn_colour(app, style, background).get_truecolor()
            return (triplet.red, triplet.green, triplet.blue)

        black, white = drawn("board--black", False), drawn("board--white", False)
        assert _contrast(black, drawn("board--win", True)) >= 4.5
        assert _contrast(white, drawn("board--win-white", True)) >= 4.5
        assert _contrast(drawn("board--cursor", False), drawn("board--grid", True)) >= 3
