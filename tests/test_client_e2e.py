"""End to end: a real server, two headless terminal clients playing a game to the end
through their keyboards, and a third client watching it as a spectator."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from client_fixtures import FAST, running, until

from client.app import GomokuApp
from client.screens.game import GameScreen
from client.screenshot import screen_text
from client.widgets.board import Board
from engine.types import Color, Point, Reason
from server.app import GomokuServer

# Black plays h8 i8 j8 k8 l8 (five in row 8); White answers on row 1.
BLACK_KEYS = [[], ["right"], ["right"], ["right"], ["right"]]
WHITE_FIRST = Point(0, 14)  # a1


async def test_two_clients_play_to_the_end_and_a_spectator_sees_it(
    server: GomokuServer, tmp_path: Path
) -> None:
    """Alice and Bob play a whole game with keys and typed points; Carol watches every
    move and the result, and all three agree on the final board."""
    async with (
        running(server, tmp_path, "alice") as (alice, a_pilot),
        running(server, tmp_path, "bob") as (bob, b_pilot),
        running(server, tmp_path, "carol") as (carol, c_pilot),
    ):
        assert alice.backoff == FAST
        await a_pilot.press("n")
        await a_pilot.click("#ok")
        await until(a_pilot, lambda: isinstance(alice.screen, GameScreen), "alice's room")
        assert alice.model.room is not None
        room_id = alice.model.room.id
        await until(b_pilot, lambda: room_id in bob.model.lobby.rooms, "the room in bob's lobby")
        await b_pilot.press("enter")
        await until(b_pilot, lambda: isinstance(bob.screen, GameScreen), "bob's game")
        await until(c_pilot, lambda: room_id in carol.model.lobby.rooms)
        await c_pilot.press("w")
        await until(c_pilot, lambda: isinstance(carol.screen, GameScreen), "carol watching")

        await until(
            a_pilot, lambda: alice.model.room is not None and alice.model.room.state == "playing"
        )
        black_app, black_pilot = (
            (alice, a_pilot) if alice.model.my_color is Color.BLACK else (bob, b_pilot)
        )
        white_app, white_pilot = (bob, b_pilot) if black_app is alice else (alice, a_pilot)
        black_app.screen.query_one(Board).cursor = Point(7, 7)
        for number, keys in enumerate(BLACK_KEYS):
            await black_pilot.press(*keys, "enter")
            await until(white_pilot, has_stones(white_app, 2 * number + 1))
            if number == len(BLACK_KEYS) - 1:
                break
            await white_pilot.press(*f"a{number + 1}", "enter", "escape")
            await until(black_pilot, has_stones(black_app, 2 * number + 2))

        for app, pilot in ((alice, a_pilot), (bob, b_pilot), (carol, c_pilot)):
            await until(pilot, is_over(app))
        final = [app.model.room for app in (alice, bob, carol)]
        assert all(room is not None for room in final)
        moves = {room.moves for room in final if room is not None}
        assert len(moves) == 1
        for room in final:
            assert room is not None
            assert room.outcome is not None
            assert room.outcome.winner is Color.BLACK
            assert room.outcome.reason is Reason.FIVE
            assert room.picture.line == frozenset(Point(x, 7) for x in range(7, 12))
        assert carol.model.my_color is None
        assert "black wins (five in a row)" in screen_text(carol)
        assert "wins with five in a row from" in screen_text(carol)


def has_stones(app: GomokuApp, count: int) -> Callable[[], bool]:
    def check() -> bool:
        room = app.model.room
        return room is not None and len(room.moves) == count

    return check


def is_over(app: GomokuApp) -> Callable[[], bool]:
    return lambda: app.model.room is not None and app.model.room.state == "over"
