"""The terminal client in a game with a clock, against a real server with a short time
for the first stone: Black is told how long is left to place it, counted down each
second, and the game nobody begins is aborted as the countdown said."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path

from client_fixtures import in_game_with_bob, running, until
from server_fixtures import Connect, make_config

from client.screenshot import screen_text
from protocol import events as ev
from protocol.values import TimeControl
from server.app import GomokuServer
from server.game import GameRules

FIRST_STONE_MS = 4_000
COUNTDOWN = re.compile(r"Place the first stone within 0:0(\d), or the game is aborted\.")


def seconds_shown(text: str) -> int | None:
    """The seconds the first stone's countdown shows on the screen (None: not shown)."""
    found = COUNTDOWN.search(text)
    return None if found is None else int(found.group(1))


async def test_black_sees_the_first_stones_time_run_out_and_the_game_aborted(
    make_server: Callable[..., Awaitable[GomokuServer]], connect: Connect, tmp_path: Path
) -> None:
    """Alice, Black in a game with a clock, does not play: the notice counts down the
    4 s she has for the first stone, a second at a time; then the server aborts the game
    and the screen says so, the countdown gone, and offers no review of a game with no
    stone (as the page does not)."""
    rules = GameRules(grace_ms=60_000, first_stone_ms=FIRST_STONE_MS)
    srv = await make_server(make_config(game=rules))
    async with running(srv, tmp_path) as (app, pilot):
        one_minute = TimeControl(base_ms=60_000, inc_ms=0)
        bob, _ = await in_game_with_bob(app, pilot, connect, to=srv, time=one_minute)
        await until(pilot, lambda: seconds_shown(screen_text(app)) is not None, "the countdown")
        first = seconds_shown(screen_text(app))
        assert first is not None
        assert 2 <= first <= 4
        # Redrawn as a second goes, with no event to prompt it.
        await until(pilot, lambda: seconds_shown(screen_text(app)) == first - 1, "a tick")
        over = await bob.until_event(ev.GameOver)
        assert (over.winner, over.reason) == (None, "abandon")
        text = "Game aborted before its first stone."
        await until(pilot, lambda: text in screen_text(app), "the result")
        assert seconds_shown(screen_text(app)) is None
        await until(pilot, lambda: "^R Resign" not in screen_text(app), "the footer of a game over")
        assert "^P Review" not in screen_text(app)
