"""The stylesheet of the terminal UI, shared by ``gomoku play`` (:class:`client.app.GomokuApp`)
and ``gomoku review`` (:class:`client.screens.review.ReviewApp`).

Inline rather than a .tcss file so a plain (non-editable) install needs no package data.

With ``--glyphs ascii`` the app has the class ``-ascii``: the rules under it draw every
border with ASCII (Textual's own widgets use ``tall`` and ``outer`` borders, block
characters), and :func:`plain_scrollbars` draws scrollbars without the partial blocks
Textual puts at the thumb's ends; the Select's arrows are swapped in the dialogs
(:func:`client.screens.dialogs.plain_select_arrows`).
"""

from typing import Any

from textual.app import App
from textual.scrollbar import ScrollBar, ScrollBarRender


class PlainScrollBarRender(ScrollBarRender):
    """Scrollbars of coloured blanks only: the thumb's ends are whole cells."""

    VERTICAL_BARS = [" "] * len(ScrollBarRender.VERTICAL_BARS)
    HORIZONTAL_BARS = [" "] * len(ScrollBarRender.HORIZONTAL_BARS)


def dress(app: App[Any], *, ascii_only: bool) -> None:
    """Give ``app`` the classes this stylesheet reads: ``-ascii`` (``--glyphs ascii``, its
    scrollbars plain too) and ``-few-colours`` when the terminal draws 16 colours or fewer
    (TERM=xterm, linux), under which the board keeps to the ANSI colours whose contrast
    holds in any palette. Both the play and the review app start so."""
    app.set_class(ascii_only, "-ascii")
    app.set_class(app.console.color_system in ("standard", "windows"), "-few-colours")
    plain_scrollbars(ascii_only)


def plain_scrollbars(plain: bool) -> None:
    """Every scrollbar drawn plainly (``plain``) or as Textual draws it. Textual holds
    the renderer on the ScrollBar class, so this is for the process (one app)."""
    ScrollBar.renderer = PlainScrollBarRender if plain else ScrollBarRender


APP_CSS = """
Screen { layout: vertical; }
#status-players { height: 1; background: $boost; text-style: bold; padding: 0 1; }
#status-game { height: 1; background: $boost; color: $text-muted; padding: 0 1; }
#game-body { height: 1fr; }
#board { margin: 0 1 0 0; max-width: 100%; }
#side { width: 1fr; layout: horizontal; }
#side.-stacked { layout: vertical; }
#moves { border-left: tall $primary-background; }
#side.-stacked #moves { width: 1fr; height: 6; }
#log-pane {
    width: 1fr; height: 1fr; border-left: tall $primary-background; padding: 0 1;
    scrollbar-size-vertical: 1;
}
#log-pane:focus { background: $boost; }
/* Too narrow for the log beside the board (a phone's terminal): the log goes under
   it, and the move list, which the board's last-move mark stands in for, goes. */
#game-body.-narrow { layout: vertical; }
#game-body.-narrow #board { height: 1fr; margin: 0; }
#game-body.-narrow #side { width: 1fr; height: 5; }
#game-body.-narrow #moves, #game-body.-narrow #review-moves { display: none; }
#game-body.-narrow #log-pane { border-left: none; border-top: tall $primary-background; }
#log { height: auto; }
#banner { height: auto; background: $error 40%; padding: 0 1; }
#notice { height: auto; background: $boost; padding: 0 1; }
Board:focus > .board--label { background: $accent; color: #000000; }
/* 16 colours (TERM=xterm, linux): whatever the terminal's palette, a light board
   with every stone in black ink, White's the hollow glyph, as printed diagrams draw
   them (its white on the palette's light grey or yellow was all but invisible). Here,
   not in the board's own CSS: Textual scopes that to the board's subtree. The colours
   are the 16-colour palette's own values, which go out as the terminal's colour
   numbers: Textual turns an ansi_* colour into its theme's RGB first, and the
   nearest of 16 to that drew the labels bright red, the winning five magenta. */
.-few-colours Board { background: rgb(170,170,170); color: rgb(0,0,0); }
.-few-colours Board > .board--grid { color: rgb(85,85,85); }
.-few-colours Board > .board--star { color: rgb(0,0,0); }
.-few-colours Board > .board--label { color: rgb(0,0,0); background: rgb(170,85,0); }
.-few-colours Board > .board--black { color: rgb(0,0,0); }
.-few-colours Board > .board--white { color: rgb(0,0,0); }
.-few-colours Board > .board--last { background: rgb(0,170,170); }
.-few-colours Board > .board--win { background: rgb(255,85,85); }
.-few-colours Board > .board--win-white { background: rgb(255,85,85); }
.-few-colours Board > .board--forbidden { color: rgb(170,0,0); }
.-few-colours Board > .board--cursor { color: rgb(0,0,170); }
.-few-colours Board > .board--hint { color: rgb(0,0,0); background: rgb(0,170,0); }
.-few-colours Board > .board--kept { color: rgb(0,0,0); background: rgb(170,0,170); }
/* NO_COLOR (Textual draws every colour as its grey): the cursor's brackets in black
   ink, as the stones are; its yellow became all but white on the grey board (2.7:1). */
App:nocolor Board > .board--cursor { color: rgb(0,0,0); }
/* A dialog's compact fields have no border: the focused one is told by its background
   (Textual's own focus tint was one step of grey, near invisible). */
.dialog Input.-textual-compact:focus, .dialog Select:focus > SelectCurrent {
    background: $primary 40%;
}
/* A Select has no text cursor to show it has the keys: reversed too, as a focused
   button is (the tint alone was 1.8:1 in greys, fainter than the buttons not focused). */
.dialog Select:focus > SelectCurrent { text-style: reverse; }
/* Placeholders ("type h8 to play") a step brighter than Textual's: its shade and the
   text line's background both became bright black on a 16-colour terminal (TERM=linux,
   xterm), which drew the prompt invisible. */
Input > .input--placeholder { color: $text-muted; }
.-ascii #moves, .-ascii #log-pane, .-ascii #review-moves { border-left: ascii $primary; }
.-ascii .dialog, .-ascii #help-box { border: ascii $primary; }
.-ascii Input, .-ascii Button, .-ascii SelectOverlay { border: ascii $border-blurred; }
.-ascii Input:focus, .-ascii Button:focus, .-ascii SelectOverlay:focus { border: ascii $border; }
.-ascii OptionList { border: ascii $border-blurred; }
.-ascii EntryLine, .-ascii EntryLine:focus { border: none; }
.-ascii Input.-textual-compact, .-ascii Input.-textual-compact:focus { border: none; }
.-ascii Button.-textual-compact, .-ascii Button.-textual-compact:focus { border: none; }
.-ascii Toast { border-left: ascii $success; }
.-ascii Toast.-warning { border-left: ascii $warning; }
.-ascii Toast.-error { border-left: ascii $error; }
#lobby-title { height: 1; background: $boost; text-style: bold; padding: 0 1; }
#queue { height: 1; background: $warning 30%; padding: 0 1; }
LobbyScreen #banner { height: auto; background: $error 40%; padding: 0 1; }
#rooms { height: 1fr; }
#lobby-hint { height: auto; max-height: 3; color: $text-muted; padding: 0 1; }
/* A dialog scrolls inside a small terminal (the focused field is scrolled into view):
   at 40x15 the new-room dialog's Create button was out of sight and out of reach. */
.dialog {
    width: 64; max-width: 100%; height: auto; max-height: 100%; padding: 1 2;
    background: $panel; border: thick $primary; scrollbar-size-vertical: 1;
}
ModalScreen { align: center middle; }
ConnectScreen { align: center middle; }
.form { grid-size: 2; grid-columns: 16 1fr; grid-rows: auto; height: auto; grid-gutter: 0 1; }
.buttons { height: auto; align-horizontal: right; margin-top: 1; }
.dialog > Label { margin-bottom: 1; width: 1fr; }
.buttons > Button { margin-left: 1; }
.error { color: $error; height: auto; }
#help-box {
    width: 72; height: auto; max-height: 90%;
    background: $panel; border: thick $primary; padding: 0 1;
}
#review-moves { width: 1fr; border-left: tall $primary-background; padding: 0 1; }
#leaders, #games { height: 1fr; }
#standings { height: auto; margin-bottom: 1; }
#games-title { height: 1; background: $boost; padding: 0 1; }
#history-status { height: auto; color: $text-muted; padding: 0 1; }
"""
