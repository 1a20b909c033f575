"""Ratings and history in the terminal client against a real server: the leaderboard of
each rule, profiles, and a finished game opened from the archive in the review screen,
stepped through and exported."""

from __future__ import annotations

import json
from pathlib import Path

from client_fixtures import bob_plays, bob_sees_move, in_game_with_bob, running, stones, until
from server_fixtures import Connect
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from client.app import GomokuApp
from client.screens.dialogs import ConfirmDialog
from client.screens.game import GameScreen
from client.screens.lobby import LobbyScreen
from client.screens.ratings import LeaderboardScreen, ProfileScreen
from client.screens.review import ExportDialog, ReviewScreen
from client.screenshot import screen_text
from client.widgets.board import Board
from engine.record import parse_json, parse_psq
from engine.types import Point
from protocol import events as ev
from protocol import messages as m
from server.app import GomokuServer
from server.rating import LOSS, WIN


def freestyle_row(app: GomokuApp) -> list[str]:
    """The cells of the freestyle line of a profile on screen."""
    return next(line for line in screen_text(app).splitlines() if "freestyle" in line).split()


async def to_your_profile(app: GomokuApp, pilot: Pilot[None], result: str) -> None:
    """From the game on screen, once it is over, to the lobby (^L) and your profile (p),
    which lists that game with ``result``."""
    await until(pilot, lambda: app.model.room is not None and app.model.room.state == "over")
    await pilot.press("escape", "ctrl+l")
    await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
    await pilot.press("p")
    await until(pilot, lambda: result in screen_text(app), "the finished game in your profile")


async def test_leaderboard_per_rule_and_profiles(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """l shows the established players of a rule, best first, marking you, then unranked
    those not settled yet (a club's first evening listed nobody); f/s/r switch the rule;
    Enter opens a player's profile (rating, W/L/D per rule); p your own."""
    async with running(server, tmp_path) as (app, pilot):
        bob = await connect("bob")
        me = app.model.me
        assert me is not None
        for i in range(30):  # rated games played earlier: both are established, bob ahead
            score = WIN if i % 3 else LOSS
            await server.store.rate("freestyle", f"earlier-{i}", bob.player, me, score)
        await server.store.put_names({bob.player: "bob", me: "alice"})
        bob_rating = round((await server.store.rating("freestyle", bob.player)).rating.rating)

        await pilot.press("l")
        await until(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
        await until(pilot, lambda: "alice (you)" in screen_text(app), "the leaderboard")
        lines = screen_text(app).splitlines()
        first = next(i for i, line in enumerate(lines) if "bob" in line)
        assert str(bob_rating) in lines[first]
        assert first < next(i for i, line in enumerate(lines) if "alice (you)" in line)

        await pilot.press("r")
        await until(pilot, lambda: "No established renju players yet: a" in screen_text(app))
        first_game = await server.store.rate("standard", "first", bob.player, me, WIN)
        assert first_game is not None
        new_rating = round(first_game.after[0].rating.rating)
        await pilot.press("s")
        await until(pilot, lambda: "has not settled" in screen_text(app), "the unsettled")
        lines = screen_text(app).splitlines()
        assert "No established standard players yet. A rating with ? has not" in " ".join(lines)
        bob_line = next(line for line in lines if "bob" in line)
        assert bob_line.split()[:2] == ["bob", f"{new_rating}?"]  # unranked
        assert lines.index(bob_line) < next(i for i, x in enumerate(lines) if "alice (you)" in x)
        await pilot.press("f")
        await until(pilot, lambda: "alice (you)" in screen_text(app))
        table = app.screen.query_one(DataTable)
        table.move_cursor(row=0)  # bob
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ProfileScreen))
        await until(pilot, lambda: "Profile · bob" in screen_text(app))
        row = freestyle_row(app)
        assert row[1:] == [str(bob_rating), row[2], "30", "20", "10", "0"]
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen))

        await pilot.press("p")
        await until(pilot, lambda: "Profile · alice (you)" in screen_text(app))
        await until(pilot, lambda: "No finished games yet." in screen_text(app))
        renju = next(line for line in screen_text(app).splitlines() if "renju" in line)
        assert renju.split()[1:] == ["unrated", "-", "0", "0", "0", "0"]  # as the page says

        # Your profile -> the leaderboard -> bob's profile, and back: yours again.
        await pilot.press("l")
        await until(pilot, lambda: "alice (you)" in screen_text(app))
        app.screen.query_one(DataTable).move_cursor(row=0)
        await pilot.press("enter")
        await until(pilot, lambda: "Profile · bob" in screen_text(app))
        await pilot.press("q", "q")
        await until(pilot, lambda: "Profile · alice (you)" in screen_text(app))
        await until(pilot, lambda: freestyle_row(app)[4:7] == ["10", "20", "0"], "your W/L/D")


async def test_archive_game_opens_in_review_and_exports(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """A finished game is listed in your profile; Enter fetches its record and opens it
    in the review screen, which steps through it and exports it (JSON as the server
    keeps it, PSQ); q goes back to the list."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        for number, (mine, his) in enumerate(zip("hijk", "1234", strict=True), 1):
            await pilot.press(mine, "8", "enter")
            await bob_sees_move(bob, f"{mine}8")
            await bob_plays(bob, room, f"a{his}")
            await until(pilot, lambda: stones(app) == 2 * number)  # noqa: B023 (awaited here)
        await pilot.press(*"l8", "enter")
        await bob.until_event(ev.GameOver)
        await to_your_profile(app, pilot, "won (five in a row)")
        assert "bob" in screen_text(app)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review screen")
        review = app.screen
        assert isinstance(review, ReviewScreen)
        assert review.index == 9
        assert "move 9 of 9 · black wins (five in a row)" in screen_text(app)
        assert "freestyle 15x15 · free · no clock" in screen_text(app)  # the server's record
        board = review.query_one(Board)
        assert board.picture.line == frozenset(Point(x, 7) for x in range(7, 12))
        await pilot.press("left", "left")
        assert len(board.picture.stones) == 7
        await pilot.press("home")
        assert board.picture.stones == {}

        target = tmp_path / "game.json"
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ExportDialog))
        app.screen.query_one("#path", Input).value = str(target)
        await pilot.press("enter")
        await until(pilot, target.exists)
        saved = json.loads(target.read_text(encoding="utf-8"))
        assert saved["game"]["id"] == room  # the server's facts travel with the record
        assert [m["move"] for m in saved["moves"]][-1] == "l8"
        assert parse_json(target.read_text(encoding="utf-8")).result is not None

        psq = tmp_path / "game.psq"
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ExportDialog))
        app.screen.query_one("#path", Input).value = str(psq)
        await pilot.press("enter")
        await until(pilot, psq.exists)
        assert len(parse_psq(psq.read_text(encoding="utf-8")).moves) == 9

        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, ProfileScreen))
        assert isinstance(app.screen, ProfileScreen)
        assert not isinstance(app.screen, GameScreen)


async def test_a_finished_game_opens_in_review_from_its_own_screen(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Once the game on screen is over, ^P (Review, on the footer only then) opens its
    record in the review screen, as the profile's list does; q comes back to the game."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await pilot.press("enter")  # h8
        await bob_sees_move(bob, "h8")
        assert "^P Review" not in screen_text(app)
        await pilot.press("ctrl+p")  # not yet: nothing opens
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        await bob.send(m.Resign(room=room))
        await until(pilot, lambda: app.model.room is not None and app.model.room.state == "over")
        await until(pilot, lambda: "^P Review" in screen_text(app), "Review on the footer")
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review screen")
        assert "move 1 of 1 · black wins (resignation)" in screen_text(app)
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, GameScreen))


async def test_an_opponents_profile_opens_from_a_game_in_yours(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """In your profile's games, o opens the other player's profile (a friend not on the
    leaderboard could not be looked up); q comes back to yours."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await bob.send(m.Resign(room=room))
        await to_your_profile(app, pilot, "won (resignation)")
        assert "o Opponent's profile" in screen_text(app)
        await pilot.press("o")
        await until(pilot, lambda: "Profile · bob" in screen_text(app), "bob's profile")
        await until(pilot, lambda: "lost (resignation)" in screen_text(app), "bob's game")
        await pilot.press("q")
        await until(pilot, lambda: "Profile · alice (you)" in screen_text(app), "yours again")
        await until(pilot, lambda: "won (resignation)" in screen_text(app), "your games again")


async def test_a_rated_game_in_the_profile_says_what_it_did_and_fits_80_columns(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """A rated game that counted reads "+N" after its rule in the profile of a player
    with a long name, and the row still ends with its moves on an 80-column screen (the
    last column was cut to "move")."""
    long = "Alexandria Ocasio-Lee"
    async with running(server, tmp_path, long) as (app, pilot):
        bob, room = await in_game_with_bob(
            app, pilot, connect, opponent="Bartholomew Kuznetsov", rated=True
        )
        for mine, theirs in (("h8", "a1"), ("h9", "a3")):
            await app.send(m.Move(room=room, point=mine))
            await bob_sees_move(bob, mine)
            await bob_plays(bob, room, theirs)
        await bob.send(m.Resign(room=room))
        over = await bob.until_event(ev.GameOver)
        assert over.ratings is not None
        [change] = [c for c in over.ratings if c.player == app.model.session.me]
        await to_your_profile(app, pilot, "won (resignation)")
        [row] = [line for line in screen_text(app).splitlines() if "won (resignation)" in line]
        assert f"freestyle {change.after - change.before:+d}" in row
        assert row.rstrip(" ▁▇│▏").endswith(" 4"), row  # the moves, not cut off
        assert " moves" in screen_text(app)


async def test_a_rated_game_too_short_to_count_says_so(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """A rated game resigned after one stone has no rating change (protocol.md: it ended
    before its second stone): the log says in one line that it did not count, and why."""
    async with running(server, tmp_path) as (app, pilot):
        bob, _ = await in_game_with_bob(app, pilot, connect, rated=True)
        await pilot.press("enter")  # h8
        await bob_sees_move(bob, "h8")
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog), "resign asks first")
        await pilot.press("y")
        over = await bob.until_event(ev.GameOver)
        assert over.ratings is None
        said = "This game did not count for ratings: it ended before its second stone."
        await until(pilot, lambda: app.model.log[-1].text == said)
        await until(pilot, lambda: "before its second stone." in screen_text(app), "on screen")
