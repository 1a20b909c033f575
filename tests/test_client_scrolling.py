"""The game screen's log scrolls: the newest line is always in view as lines arrive,
unless the player scrolled up to read (keys while the log has focus, or the wheel);
End (or scrolling back down) follows the newest line again."""

from __future__ import annotations

from pathlib import Path

from client_fixtures import in_game_with_bob, running, until
from server_fixtures import Connect
from textual import events

from client.screenshot import screen_text
from client.widgets.log import LogPane
from server.app import GomokuServer


def wheel(pane: LogPane, up: bool) -> None:
    """One turn of the mouse wheel over the log."""
    kind = events.MouseScrollUp if up else events.MouseScrollDown
    pane.post_message(kind(pane, 2, 2, 0, -1 if up else 1, 0, False, False, False))


async def test_the_log_follows_new_lines_until_scrolled_up(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    async with running(server, tmp_path) as (app, pilot):
        await in_game_with_bob(app, pilot, connect)
        pane = app.screen.query_one(LogPane)
        for n in range(40):
            app.note(f"line {n}")
            await pilot.pause()
        await until(pilot, lambda: "line 39" in screen_text(app), "the newest line in view")
        # The player reads back: keys on the focused log scroll it, and new lines
        # arriving then do not pull the view away.
        pane.focus()
        await pilot.press("pageup", "up")
        await until(pilot, lambda: "line 39" not in screen_text(app), "scrolled up")
        top = pane.scroll_y
        app.note("line 40")
        await pilot.pause(0.2)
        assert pane.scroll_y == top
        assert "line 40" not in screen_text(app)
        # End scrolls smoothly (pilot.press would wait for the animation to finish, so
        # the key is posted as a terminal would send it); a line arriving on the way
        # is followed too.
        app.post_message(events.Key("end", None))
        await pilot.pause(0.3)  # on the way down
        assert pane.scroll_y < pane.max_scroll_y
        app.note("line 41")
        await until(pilot, lambda: "line 41" in screen_text(app), "following again")
        await pilot.pause(1.2)  # past End's animation: still at the end
        assert "line 41" in screen_text(app)
        assert pane.scroll_y == pane.max_scroll_y
        # The wheel scrolls too.
        wheel(pane, up=True)
        await until(pilot, lambda: pane.scroll_y < pane.max_scroll_y, "the wheel scrolled up")
        wheel(pane, up=False)
        await until(pilot, lambda: pane.scroll_y == pane.max_scroll_y, "the wheel back down")
        app.note("line 42")
        await until(pilot, lambda: "line 42" in screen_text(app), "following after the wheel")


async def test_a_long_move_list_shows_the_marked_last_move_whole() -> None:
    """A list longer than its pane scrolls to the last move, and a two-digit move number
    with White's three-letter last move keeps its closing mark: "(m12)", not "(m12"."""
    from textual.app import App, ComposeResult

    from client.widgets.moves import MoveList
    from engine.notation import parse_point

    class ListApp(App[None]):
        CSS = "MoveList { height: 8; border-left: tall $primary; }"

        def compose(self) -> ComposeResult:
            yield MoveList()

    names = [*[f"{c}{r}" for c in "abcd" for r in range(1, 15)][:28], "k8", "m12"]
    points = [parse_point(name) for name in names]
    app = ListApp()
    async with app.run_test(size=(40, 12)) as pilot:
        app.query_one(MoveList).show(points, 15, len(points))
        await until(pilot, lambda: "k8" in screen_text(app), "the last line in view")
        assert "(m12)" in screen_text(app)


async def test_the_log_stays_at_its_end_when_the_terminal_is_resized(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """A log at its newest line stays there when the terminal is made narrower (the lines
    wrap to more rows) or lower, and when it is made larger again."""
    async with running(server, tmp_path) as (app, pilot):
        await in_game_with_bob(app, pilot, connect)
        for n in range(25):
            app.note(f"message {n} is long enough to wrap in the log")
            await pilot.pause()
        await until(pilot, lambda: "message 24" in screen_text(app), "the newest line in view")
        for size in ((70, 24), (70, 16), (100, 30), (80, 24)):
            await pilot.resize_terminal(*size)
            await until(
                pilot, lambda: "message 24" in screen_text(app), f"the end in view at {size}"
            )
