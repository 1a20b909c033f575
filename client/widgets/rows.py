"""Filling a DataTable with rows that change while it is shown.

Textual's DataTable measures auto-width columns when it next goes idle, and caches the
lines it rendered meanwhile at the old widths: a value that outgrew its column (a name
that sat down later, a result filled in) could stay cut (``maxim``, ``won (f``) for
good. So the columns here always have explicit widths, computed from the labels and
the rows being shown; when they change, the table is built again at the new widths.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.coordinate import Coordinate
from textual.widgets import DataTable

Row = tuple[str, Sequence[str]]
"""A row's key and its cells, in the table's column order: plain text, never markup (a
player named ``[/x]`` is shown so, where markup would have crashed the table)."""


class RowTable(DataTable[Text]):
    """A table whose rows are chosen (the lobby's rooms, the leaders, one's games):
    Home and End go to the first and the last row, as in any list (DataTable's scroll
    the view sideways, and Home left the cursor where it was, so Enter after it joined
    a room in the middle of the list)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "scroll_top", "First", show=False),
        Binding("end", "scroll_bottom", "Last", show=False),
    ]

    wheeled = False
    """The mouse wheel moved the view since the last key or click: the view is the
    player's, and rows that come leave it where it is (:func:`fill_rows`)."""

    async def _on_click(self, event: events.Click) -> None:
        """Only the primary button chooses a row: two right clicks joined a room, and a
        middle click is a paste on X11."""
        if event.button != 1:
            event.prevent_default()
            event.stop()
            return
        self.wheeled = False

    def _on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self.wheeled = True

    def _on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self.wheeled = True

    def on_key(self, event: events.Key) -> None:
        self.wheeled = False


SCROLLBAR = 2
"""Columns a table's vertical scrollbar takes, kept free so that a long list cuts no
column."""


def room_for_rows(table: DataTable[Text]) -> int:
    """The columns ``table``'s rows may take: its width (before layout, the screen's)
    less a vertical scrollbar's."""
    return (table.size.width or table.app.size.width) - SCROLLBAR


def fill_rows(table: DataTable[Text], rows: Sequence[Row]) -> None:
    """Show ``rows`` (in this order) under the table's columns, keeping the cursor on
    the same row (by key, else by number): in place when the keys and the column
    widths stay the same, otherwise by building the table again."""
    columns = table.ordered_columns
    widths = [
        max([cell_len(column.label.plain), *(cell_len(cells[i]) for _, cells in rows)])
        for i, column in enumerate(columns)
    ]
    keys = [key for key, _ in rows]
    pairs = zip(columns, widths, strict=True)
    same_widths = all(not column.auto_width and column.width == w for column, w in pairs)
    if same_widths and [k.value for k in table.rows] == keys:
        for key, cells in rows:
            for column, value in zip(columns, cells, strict=True):
                table.update_cell(key, column.key, Text(value))
        return
    shown = _key_at(table, table.cursor_row)
    cursor = keys.index(shown) if shown in keys else table.cursor_row
    # A view the wheel moved stays where it is: it jumped back to the cursor's row at
    # each room that came, and the rows under the mouse changed.
    top, away = round(table.scroll_y), isinstance(table, RowTable) and table.wheeled
    labels = [(column.key.value, column.label) for column in columns]
    table.clear(columns=True)
    for (column_key, label), width in zip(labels, widths, strict=True):
        table.add_column(label, width=width, key=column_key)
    for key, cells in rows:
        table.add_row(*(Text(cell) for cell in cells), key=key)
    if rows:
        table.move_cursor(row=min(cursor, len(rows) - 1), scroll=not away)
    if away:  # after the table's own scroll to its cursor, which waits for a refresh
        table.call_after_refresh(table.scroll_to, y=top, animate=False, immediate=True)


def _key_at(table: DataTable[Text], row: int) -> str | None:
    if not 0 <= row < table.row_count:
        return None
    return table.coordinate_to_cell_key(Coordinate(row, 0)).row_key.value
