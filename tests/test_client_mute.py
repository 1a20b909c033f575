"""Muting a player's chat in the terminal client (``/mute name``), against a real server
on 127.0.0.1: their lines go from the screen, the ones said before included, and come
back with ``/unmute``; the game goes on as before."""

from __future__ import annotations

from pathlib import Path

from client_fixtures import bob_plays, bob_sees_move, in_game_with_bob, running, stones, until
from server_fixtures import Connect, TestClient
from textual.pilot import Pilot
from textual.widgets import Static

from client.app import GomokuApp
from protocol import messages as m
from server.app import GomokuServer


async def type_line(pilot: Pilot[None], text: str) -> None:
    """A line typed on the board and sent, as a person types it."""
    await pilot.press(*text, "enter")


def log_shown(app: GomokuApp) -> str:
    """The room's log pane as it reads, whole and unwrapped (the pane is narrow at 80
    columns, and scrolls)."""
    return str(app.screen.query_one("#log", Static).content)


async def watcher_says(
    app: GomokuApp, pilot: Pilot[None], connect: Connect, room: str, name: str, text: str
) -> TestClient:
    """A watcher called ``name`` comes into ``room`` and says ``text``, seen in the log."""
    watcher = await connect(name)
    await watcher.join(room, role="spectator")
    await watcher.send(m.Chat(room=room, text=text))
    await until(pilot, lambda: text in log_shown(app), f"{name}'s line")
    return watcher


async def test_a_muted_spectators_chat_is_hidden_and_comes_back_when_unmuted(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """/mute troll hides a watcher's lines, the earlier one too, and their next; the
    opponent's chat and moves still show; /unmute troll shows them all again."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        troll = await watcher_says(app, pilot, connect, room, "troll", "you play like a potato")

        await type_line(pilot, "/mute troll")
        await until(pilot, lambda: "Muted troll" in log_shown(app), "the mute's note")
        assert "like a potato" not in log_shown(app)

        await troll.send(m.Chat(room=room, text="still here, potato"))
        await bob.send(m.Chat(room=room, text="good luck"))
        await until(pilot, lambda: "bob: good luck" in log_shown(app), "bob's line")
        assert "potato" not in log_shown(app)
        await type_line(pilot, "h8")
        await bob_sees_move(bob, "h8")
        await bob_plays(bob, room, "a1")
        await until(pilot, lambda: stones(app) == 2, "both stones")

        await type_line(pilot, "/unmute TROLL")
        await until(pilot, lambda: "Unmuted troll" in log_shown(app), "the unmute's note")
        text = log_shown(app)
        assert "still here, potato" in text


async def test_mute_names_everyone_going_by_that_name_and_says_so(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """A watcher who took the opponent's name is muted with them, and the note says two
    players go by it; /mute alone lists who is muted; a name nobody has is refused."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await watcher_says(app, pilot, connect, room, "bob", "i resign lol")  # a fake bob

        await type_line(pilot, "/mute nobody")
        await until(pilot, lambda: "Nobody here goes by nobody" in log_shown(app))
        await type_line(pilot, "/mute bob")
        await until(pilot, lambda: "2 players go by that name" in log_shown(app))
        assert "i resign lol" not in log_shown(app)
        await type_line(pilot, "/mute")
        await until(pilot, lambda: "Muted: bob, bob." in log_shown(app), "the list")

        await bob.send(m.Resign(room=room))  # what they do still shows
        await until(pilot, lambda: "resigned" in log_shown(app), "the resignation")
