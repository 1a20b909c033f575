"""Review a finished game move by move, and export it.

The board shows the position after move ``index`` (0 = empty board); the
move list beside it (the game screen's :class:`~client.widgets.moves.MoveList`)
marks the current one. At the last move of a
game won on the board the winning line is highlighted, as in play.

The same screen serves ``gomoku review FILE`` (standalone: q quits) and a game
opened from the server's archive in ``gomoku play`` (q goes back to the list).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Input, Label, Static

from client.clipboard import copy_selection
from client.glyphs import UNICODE, Glyphs
from client.picture import BoardPicture
from client.present import TABLE_NAME_MAX, fit_parts, format_clock, shorten
from client.review import (
    FormatError,
    export_record,
    original_json,
    server_clock,
    swap2_story,
    unrecorded,
)
from client.screens.help import HelpScreen, describe_bindings
from client.screens.style import APP_CSS, dress, plain_scrollbars
from client.state.words import aborted, reason_words
from client.stopping import exit_on_stop_signals
from client.widgets.board import Board
from client.widgets.dialog_box import DialogBox
from client.widgets.moves import WIDTH as MOVES_WIDTH
from client.widgets.moves import MoveList
from engine.record import GameRecord
from engine.types import Point


class ExportDialog(ModalScreen[Path | None]):
    """Ask where to write the record; the extension picks the format."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, suggestion: str) -> None:
        super().__init__()
        self.suggestion = suggestion
        self.replace: Path | None = None  # a file that exists, asked about once

    def compose(self) -> ComposeResult:
        with DialogBox(classes="dialog"):
            yield Label(
                "[b]Export[/b]: .json (full record), .psq (Piskvork), other: move list",
                id="ask",
            )
            yield Input(self.suggestion, id="path")
            with Horizontal(classes="buttons"):
                yield Button("Export", id="ok", variant="primary")
                yield Button("Cancel", id="cancel")
        yield Footer(compact=True)  # its own keys, not the review's underneath

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#cancel")
    def cancelled(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted)
    @on(Button.Pressed, "#ok")
    def ok(self) -> None:
        text = self.query_one("#path", Input).value.strip()
        path = Path(text).expanduser() if text else None
        if path is not None and path.exists() and path != self.replace:
            self.replace = path  # a second Export (or Enter) replaces it
            self.query_one("#ask", Label).update(
                Content.from_markup("[b]$name exists[/b]: Export again replaces it", name=path.name)
            )
            return
        self.dismiss(path)


class ReviewScreen(Screen[None]):
    """Step through a record."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help"),
        Binding("left", "step(-1)", "Back"),
        Binding("h,p", "step(-1)", "Back", show=False),
        Binding("right", "step(1)", "Forward"),
        Binding("l,n", "step(1)", "Forward", show=False),
        # Before the move list's own Home/End (it scrolls, once the list is long enough
        # to: a long game's Home scrolled the list and left the position where it was).
        Binding("home,g", "jump(0)", "Start", show=False, priority=True),
        Binding("end,G", "jump(-1)", "End", show=False, priority=True),
        Binding("e", "export", "Export"),
        Binding("q,escape", "quit", "Quit / back"),
    ]

    index: reactive[int] = reactive(0)

    def __init__(
        self,
        record: GameRecord,
        *,
        source: Path | None = None,
        glyphs: Glyphs = UNICODE,
        original_json: str | None = None,
        name: str | None = None,
        standalone: bool = True,
    ) -> None:
        """``source``: the file read; ``original_json``: the record as the server sent
        it (exported as is); ``name``: for the export file name (the game id);
        ``standalone``: q quits the app rather than going back."""
        super().__init__()
        self.record = record
        self.source = source
        self.glyphs = glyphs
        self.original_json = original_json
        self.clock = server_clock(original_json)
        self.swap2 = swap2_story(original_json, record)
        """Who placed the swap2 opening's stones (from the server's record)."""
        """The time control and final clocks the server's record keeps (read once: a
        record may be 256 KiB, and the screen is drawn at every step)."""
        self.name_hint = name
        self.standalone = standalone

    def compose(self) -> ComposeResult:
        yield Static(Text(self._title()), id="status-players")
        yield Static("", id="status-game")
        with Horizontal(id="game-body"):
            yield Board(id="board", glyphs=self.glyphs, interactive=False)
            yield MoveList(id="review-moves")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.index = len(self.record.moves)
        self._draw()

    def on_resize(self) -> None:
        """Too narrow for the move list beside the whole board (a phone's 40 columns):
        the list goes (it showed its numbers only, the moves cut off; the status line
        says the step), and the status line is fitted to the new width."""
        board = self.query_one(Board)
        whole = board.get_content_width(self.size, self.size) + 1  # and its margin
        self.query_one("#game-body").set_class(self.size.width - whole < MOVES_WIDTH, "-narrow")
        self.query_one("#status-players", Static).update(Text(self._title(self._line_width())))
        self._draw()

    def _line_width(self) -> int:
        """Columns of a status line's text (0: not laid out yet, any)."""
        return max(self.size.width - 2, 1) if self.size.width else 0  # (its padding)

    def _title(self, width: int = 0) -> str:
        """The players, the rule and board, the opening and the clock, in ``width``
        columns (0: any): the least of them left out whole where they do not fit."""
        r = self.record
        black = shorten(r.players.black or "?", TABLE_NAME_MAX)
        white = shorten(r.players.white or "?", TABLE_NAME_MAX)
        parts = [
            (0, f"{black} (black) vs {white} (white)"),
            (1, f"{r.rule} {r.size}x{r.size}"),
            (3, f"{r.opening}" if self.swap2 is None else f"swap2, {self.swap2.opener} opened"),
        ]
        if self.clock is not None:
            time = self.clock[0]
            parts.append((2, "no clock" if time is None else str(time)))
        return fit_parts(parts, width, f" {self.glyphs.sep} ")

    def _points(self) -> list[Point]:
        return [m.point for m in self.record.moves]

    def watch_index(self) -> None:
        if self.is_mounted:
            self._draw()

    def validate_index(self, value: int) -> int:
        return max(0, min(value, len(self.record.moves)))

    def _draw(self) -> None:
        record = self.record
        points = self._points()[: self.index]
        at_end = self.index == len(record.moves)
        result = record.result if at_end else None
        line = list(result.line or ()) if result is not None else []
        picture = BoardPicture.from_moves(  # a record with no result ends with a move to make
            points, size=record.size, rule=record.rule, line=line, show_forbidden=result is None
        )
        self.query_one(Board).picture = picture
        total = len(record.moves)
        # (how much it matters: 0 always shown; the time left goes whole when it does
        # not fit, where White's was cut off at 60 columns)
        parts = [(0, f"move {self.index} of {total}")]
        placer = None if self.swap2 is None or not self.index else self.swap2.placer(self.index)
        if placer is not None:  # in the opening a stone is its placer's, not its colour's
            parts.append((1, f"placed by {placer} in the opening"))
        if result is not None:
            if aborted(result.reason, result.winner, total):
                parts.append((0, "aborted"))
            elif result.winner is None:
                parts.append((0, f"draw ({reason_words(result.reason, drawn=True)})"))
            else:
                why = reason_words(result.reason, drawn=False)
                parts.append((0, f"{result.winner} wins ({why})"))
            left = None if self.clock is None else self.clock[1]
            if left is not None:  # the time each had left
                black, white = format_clock(left.black_ms), format_clock(left.white_ms)
                parts.append((1, f"left: black {black}, white {white}"))
        status = fit_parts(parts, self._line_width(), f" {self.glyphs.sep} ")
        self.query_one("#status-game", Static).update(Text(status))
        self.query_one(MoveList).show(self._points(), record.size, self.index)

    def action_step(self, delta: int) -> None:
        self.index += delta

    def action_jump(self, where: int) -> None:
        self.index = len(self.record.moves) if where < 0 else where

    async def action_help(self) -> None:
        await self.app.push_screen(
            HelpScreen("Review keys", [("Review", describe_bindings(self.BINDINGS, self.glyphs))])
        )

    async def action_export(self) -> None:
        if self.source is not None:
            stem = f"{self.source.stem}-export"
        else:
            stem = f"gomoku-{self.name_hint}" if self.name_hint else "gomoku-game"
        suggestion = str(Path.cwd() / f"{stem}.json")

        def done(path: Path | None) -> None:
            if path is None:
                return
            try:
                kind = export_record(self.record, path, original_json=self.original_json)
            except OSError as exc:
                self.notify(
                    f"Could not write {path}: {exc.strerror}", severity="error", markup=False
                )
                return
            except FormatError as exc:
                self.notify(f"Not written: {exc}", severity="error", markup=False)
                return
            lost = unrecorded(self.record, kind)
            note = "" if lost is None else f". Note: {lost}"
            self.notify(f"Exported as {kind} to {path}{note}", markup=False)

        await self.app.push_screen(ExportDialog(suggestion), done)

    def action_quit(self) -> None:
        if self.standalone:
            self.app.exit()
        else:
            self.dismiss()


class ReviewApp(App[None]):
    """``gomoku review FILE``."""

    TITLE = "Gomoku Arena review"
    CSS = APP_CSS
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        # As in gomoku play: it copies the text selected with the mouse, else quits.
        Binding("ctrl+c", "copy_or_quit", "Quit", show=False, priority=True),
    ]

    async def action_copy_or_quit(self) -> None:
        if not copy_selection(self):
            await self.action_quit()

    def __init__(
        self, record: GameRecord, *, source: Path | None = None, glyphs: Glyphs = UNICODE
    ) -> None:
        super().__init__()
        self.record = record
        self.source = source
        self.glyphs = glyphs

    def get_key_display(self, binding: Binding) -> str:
        """Keys as the glyph set names them (``Left`` in ascii)."""
        return self.glyphs.key_name(binding.key)

    def on_mount(self) -> None:
        exit_on_stop_signals(self)
        dress(self, ascii_only=self.glyphs.name == "ascii")
        # A server's JSON record file: its facts (the clock) shown and kept.
        original = None if self.source is None else original_json(self.source)
        screen = ReviewScreen(
            self.record, source=self.source, glyphs=self.glyphs, original_json=original
        )
        self.push_screen(screen)

    def on_unmount(self) -> None:
        plain_scrollbars(False)
