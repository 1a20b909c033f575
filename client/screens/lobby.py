"""The lobby: a live table of rooms, and the ways into a game.

The table follows ``lobby`` / ``lobby_room`` / ``lobby_gone`` through the
view model. From here: create a room (every option the protocol has), join
or watch the selected room, quick match (with a visible waiting state and
cancel, and optionally an AI after a wait), join a private room by its code,
play an AI (a room with an AI of a chosen level in the other seat), start an
AI-vs-AI game to watch, return to a game you are seated in, and open the
leaderboard or your profile with your finished games. With ``--local``, hot
seat too (quick match is hidden: nobody else is on a local server).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from client.app import GomokuApp
from client.present import LOBBY_COLUMNS, link_label, lobby_row, queue_label
from client.screens.dialogs import (
    AiGameDialog,
    CodeDialog,
    CreateRoomDialog,
    PlayAi,
    PlayAiDialog,
    QuickMatchDialog,
)
from client.screens.help import HelpScreen, describe_bindings
from client.screens.ratings import LeaderboardScreen, ProfileScreen
from client.state import ViewModel
from protocol import messages as msg


class LobbyScreen(Screen[None]):
    """Rooms on the server; the player's way into games."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help"),
        Binding("n", "create", "New", tooltip="New room (every option: rule, size, clock...)"),
        Binding("enter", "join", "Join", show=False, tooltip="Join the selected room"),
        Binding("w", "watch", "Watch", show=False, tooltip="Watch the selected room"),
        Binding(
            "m",
            "quick_match",
            "Match",
            tooltip="Quick match, optionally vs an AI after a wait",
        ),
        Binding("escape", "cancel_match", "Cancel match", show=False),
        Binding("c", "code", "Code", show=False, tooltip="Join a private room by its code"),
        Binding("a", "play_ai", "vs AI", tooltip="Play an AI of the level you choose"),
        Binding("v", "ai_game", "AI vs AI", tooltip="Start an AI-vs-AI game and watch it"),
        Binding("t", "hot_seat", "Hot seat", tooltip="Two players on this terminal (--local)"),
        Binding("l", "leaderboard", "Leaders", tooltip="Leaderboard of each rule"),
        Binding("p", "profile", "Profile", tooltip="Your ratings and finished games (review)"),
        Binding("g", "back_to_game", "My game", show=False, tooltip="Back to your game"),
        Binding("q", "quit", "Quit"),
    ]

    def compose(self) -> ComposeResult:
        yield Static("", id="lobby-title")
        yield Static("", id="queue")
        table: DataTable[str] = DataTable(id="rooms", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static("", id="lobby-hint")
        yield Footer()

    @property
    def gomoku(self) -> GomokuApp:
        app = self.app
        assert isinstance(app, GomokuApp)
        return app

    def on_mount(self) -> None:
        table = self.query_one("#rooms", DataTable)
        for column in LOBBY_COLUMNS:
            table.add_column(column, key=column)
        table.focus()
        self._watching = False
        self.set_interval(0.5, self.tick)
        self._draw(self.gomoku.model)

    def on_screen_resume(self) -> None:
        # Back from a game: the lobby stream was stopped by the server or never started.
        self._watching = False
        self.show_model(self.gomoku.model)

    def show_model(self, model: ViewModel) -> None:
        if self.is_mounted:
            self._draw(model)

    def _draw(self, model: ViewModel) -> None:
        if model.link.online and not self._watching and self.is_current:
            self._watching = True
            self.run_worker(self.gomoku.send(msg.LobbyWatch(on=True)), group="send")
        if not model.link.online:
            self._watching = False
        self._fill_table(model)
        self.tick()

    def _fill_table(self, model: ViewModel) -> None:
        table = self.query_one("#rooms", DataTable)
        wanted = dict(model.lobby)
        for key in list(table.rows):
            if key.value not in wanted:
                table.remove_row(key)
        for room_id, summary in sorted(wanted.items()):
            row = lobby_row(summary)
            if room_id in {k.value for k in table.rows}:
                for column, value in zip(LOBBY_COLUMNS, row, strict=True):
                    table.update_cell(room_id, column, value)
            else:
                table.add_row(*row, key=room_id)

    def tick(self) -> None:
        model = self.gomoku.model
        now = self.gomoku.clock()
        conn = self.gomoku.connection
        where = conn.address if conn is not None else self.gomoku.options.address
        who = f"{model.name} @ {where}" if model.name else "connecting"
        title = f"Gomoku Arena · {who} · {link_label(model.link, now)}"
        self.query_one("#lobby-title", Static).update(Text(title))
        queue = self.query_one("#queue", Static)
        queue.update(Text(queue_label(model.queue, now)))
        queue.display = model.queue is not None
        hint = "No open rooms yet: n creates one, m finds an opponent, a plays the AI."
        if self.gomoku.options.local:
            hint = "Local server: t two players on this terminal, a plays the AI."
        if model.lobby:
            hint = "Enter joins, w watches the room; c joins a private room by its code."
        if model.seated_rooms and model.room is None:
            hint = f"You have a game in progress ({', '.join(model.seated_rooms)}): g to return."
        if model.log and model.log[-1].kind == "error":
            hint = model.log[-1].text
        self.query_one("#lobby-hint", Static).update(Text(hint))

    def _selected_room(self) -> str | None:
        table = self.query_one("#rooms", DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return key.value

    # -- actions -----------------------------------------------------------------

    async def action_help(self) -> None:
        sections = [
            ("Lobby", describe_bindings(b for b in self.BINDINGS if self._offered(b))),
            ("Table", [("↑/↓", "choose a room"), ("Enter", "join it as a player")]),
            ("Anywhere", [("Ctrl+Q", "quit")]),
        ]
        await self.app.push_screen(HelpScreen("Lobby keys", sections))

    async def _send_dialog_result(self, message: msg.ClientMessage | None) -> None:
        if message is not None:
            await self.gomoku.send(message)

    async def action_create(self) -> None:
        await self.app.push_screen(CreateRoomDialog(), self._send_dialog_result)

    async def action_quick_match(self) -> None:
        if self.gomoku.model.queue is not None:
            await self.action_cancel_match()
            return
        await self.app.push_screen(QuickMatchDialog(), self._send_dialog_result)

    async def action_cancel_match(self) -> None:
        if self.gomoku.model.queue is not None:
            await self.gomoku.send(msg.Unqueue())

    async def action_play_ai(self) -> None:
        async def chosen(choice: PlayAi | None) -> None:
            if choice is not None:
                await self.gomoku.play_ai(choice.room, choice.level)

        await self.app.push_screen(PlayAiDialog(), chosen)

    async def action_ai_game(self) -> None:
        async def chosen(message: msg.ClientMessage | None) -> None:
            if isinstance(message, msg.CreateAiGame):
                await self.gomoku.create_ai_game(message)

        await self.app.push_screen(AiGameDialog(), chosen)

    async def action_leaderboard(self) -> None:
        await self.app.push_screen(LeaderboardScreen())

    async def action_profile(self) -> None:
        await self.app.push_screen(ProfileScreen())

    async def action_code(self) -> None:
        await self.app.push_screen(CodeDialog(), self._send_dialog_result)

    async def action_join(self) -> None:
        room = self._selected_room()
        if room is not None:
            await self.gomoku.send(msg.Join(room=room, role="player"))

    @on(DataTable.RowSelected)
    async def row_selected(self, event: DataTable.RowSelected) -> None:
        await self.action_join()

    async def action_watch(self) -> None:
        room = self._selected_room()
        if room is not None:
            await self.gomoku.send(msg.Join(room=room, role="spectator"))

    async def action_back_to_game(self) -> None:
        rooms = self.gomoku.model.seated_rooms
        if rooms:
            await self.gomoku.send(msg.Join(room=rooms[0], role="player"))

    def _offered(self, binding: BindingType) -> bool:
        action = binding.action if isinstance(binding, Binding) else binding[1]
        return self.check_action(action, ()) is not False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hot seat exists only with --local (an embedded server), quick match only
        without (nobody else plays on a local server)."""
        if action == "hot_seat":
            return self.gomoku.options.local
        if action == "quick_match":
            return not self.gomoku.options.local
        return True

    async def action_hot_seat(self) -> None:
        await self.gomoku.start_hot_seat()

    async def action_quit(self) -> None:
        await self.gomoku.action_quit()
