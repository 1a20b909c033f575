"""The terminal client in a game without a clock, against a real server with a short
move limit: the player to act is told how long they have left, and the opponent of
one who does not act is asked whether to claim the win, which y does."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from client_fixtures import answer, in_game_with_bob, running, until
from server_fixtures import Connect, make_config

from client.screenshot import screen_text
from protocol import events as ev
from server.app import GomokuServer
from server.game import GameRules

LIMIT_MS = 3_000


async def test_an_opponent_who_does_not_move_is_claimed_against_with_y(
    make_server: Callable[..., Awaitable[GomokuServer]], connect: Connect, tmp_path: Path
) -> None:
    """On alice's move the notice counts down the move limit; bob, connected, never
    answers her stone: past the limit she is asked whether to claim, and y wins."""
    rules = GameRules(grace_ms=60_000, untimed_move_ms=LIMIT_MS)
    srv = await make_server(make_config(game=rules))
    async with running(srv, tmp_path) as (app, pilot):
        bob, _ = await in_game_with_bob(app, pilot, connect, to=srv, time=None)
        warning = "Move within 0:0"  # 0:03, then 0:02, ...
        await until(pilot, lambda: warning in screen_text(app), "the warning")
        assert "or bob may claim the win." in screen_text(app)
        await pilot.press("enter")  # h8, the cursor's point
        await bob.until_event(ev.Moved)
        question = "bob has not moved for 0:03, you may claim the win: y claim"
        await until(pilot, lambda: question in screen_text(app), "the claim question")
        assert "may claim the win." not in screen_text(app)  # no warning on bob's move
        await answer(pilot, "y")
        over = await bob.until_event(ev.GameOver)
        assert (over.winner, over.reason) == ("black", "timeout")
        text = "bob (white) did not move in time: alice (black) wins."
        await until(pilot, lambda: text in screen_text(app), "the result")
