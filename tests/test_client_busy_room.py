"""Typing in a busy room: while a crowd's chat keeps the log redrawing, lines typed
at a fast typist's pace reach the room exactly as typed, one each, in order."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from client_fixtures import in_game_with_bob, running, stones, until
from server_fixtures import Connect, TestClient
from textual import events
from websockets.exceptions import ConnectionClosed

from protocol import events as ev
from protocol import messages as m
from server.app import GomokuServer

CROWD = 12
LINES = ["gg", "lol", "wow", "ok", "h9"]  # the last one a point: played, not chatted


async def chatter(client: TestClient, room: str, stop: asyncio.Event) -> None:
    """A spectator reading the room and saying a line now and then (under the chat
    limit)."""

    async def read() -> None:
        with contextlib.suppress(ConnectionClosed):
            async for _ in client.ws:
                pass

    reading = asyncio.create_task(read())
    number = 0
    try:
        while not stop.is_set():
            number += 1
            await client.send(m.Chat(room=room, text=f"{client.player[-4:]} line {number}"))
            await asyncio.sleep(0.5)
    finally:
        await client.ws.close()
        await reading


async def test_lines_typed_fast_in_a_busy_room_arrive_as_typed(
    server: GomokuServer, connect: Connect, tmp_path: Path
) -> None:
    """Keys 30 ms apart across Enter while twelve spectators chat: each line reached the
    room whole and once (in a busy room the terminal client cut lines, merged them, sent
    one twice, and once chatted the start of a point typed after a line)."""
    async with running(server, tmp_path) as (app, pilot):
        bob, room = await in_game_with_bob(app, pilot, connect)
        await app.send(m.Move(room=room, point="h8", move_no=1))
        assert (await bob.until_event(ev.Moved)).point == "h8"
        await bob.move(room, "a1")
        assert (await bob.until_event(ev.Moved)).point == "a1"
        crowd = [await connect(f"fan{i}") for i in range(CROWD)]
        for fan in crowd:
            await fan.join(room, role="spectator")
        stop = asyncio.Event()
        talking = [asyncio.create_task(chatter(fan, room, stop)) for fan in crowd]
        try:
            await until(pilot, lambda: stones(app) == 2)
            await asyncio.sleep(1.0)  # the crowd's lines coming in
            for line in LINES:
                for character in line:
                    app.post_message(events.Key(character, character))
                    await asyncio.sleep(0.03)
                app.post_message(events.Key("enter", "\r"))
                await asyncio.sleep(0.03)
            said: list[str] = []
            played: list[str] = []
            while "h9" not in played:
                message = await bob.until(
                    lambda x: (
                        isinstance(x, m.Event)
                        and (
                            isinstance(x.event, ev.Moved)
                            or (
                                isinstance(x.event, ev.ChatPosted)
                                and x.event.player == app.model.me
                            )
                        )
                    )
                )
                assert isinstance(message, m.Event)
                event = message.event
                if isinstance(event, ev.Moved):
                    played.append(event.point)
                elif isinstance(event, ev.ChatPosted):
                    said.append(event.text)
            assert said == LINES[:-1]
            assert played == ["h9"]
        finally:
            stop.set()
            await asyncio.gather(*talking)
