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
from textual.timer import Timer
from textual.widgets import DataTable, Footer, Static

from client.present import (
    LOBBY_COLUMNS,
    link_banner,
    link_label,
    lobby_choice,
    lobby_order,
    lobby_rows,
    queue_change,
    queue_label,
)
from client.prompts import link_change
from client.screens.dialogs import (
    AiGameDialog,
    CodeDialog,
    CreateRoomDialog,
    HotSeatDialog,
    PlayAi,
    PlayAiDialog,
    QuickMatchDialog,
)
from client.screens.footer import refresh_footer
from client.screens.help import HelpScreen, describe_bindings
from client.screens.host import Host
from client.screens.ratings import LeaderboardScreen, ProfileScreen
from client.state.model import ViewModel
from client.state.words import HOW_TO_PLAY
from client.widgets.rows import RowTable, fill_rows, room_for_rows
from protocol import messages as msg

NEEDS_SERVER = frozenset(
    {
        "create",
        "join",
        "watch",
        "quick_match",
        "code",
        "play_ai",
        "ai_game",
        "hot_seat",
        "leaderboard",
        "profile",
        "back_to_game",
    }
)
"""The lobby's actions that ask the server: not offered while the link is down."""


class LobbyScreen(Screen[None]):
    """Rooms on the server; the player's way into games."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help"),
        Binding("n", "create", "New", tooltip="New room (every option: rule, size, clock...)"),
        Binding(
            "enter",
            "join",
            "Join",
            show=False,
            tooltip="Join the selected room (watch it if both seats are taken)",
        ),
        Binding("w", "watch", "Watch", show=False, tooltip="Watch the selected room"),
        Binding(
            "m",
            "quick_match",
            "Match",
            tooltip="Quick match, optionally vs an AI after a wait",
        ),
        Binding("escape", "cancel_match", "Cancel match", tooltip="Stop waiting for a match"),
        Binding(
            "escape",
            "stop_trying",
            "Stop trying",
            tooltip="While the connection is down: stop trying, back to the connect screen",
        ),
        Binding("c", "code", "Code", tooltip="Join a private room by its code"),
        Binding("a", "play_ai", "vs AI", tooltip="Play an AI of the level you choose"),
        Binding("v", "ai_game", "AI vs AI", tooltip="Start an AI-vs-AI game and watch it"),
        Binding("t", "hot_seat", "Hot seat", tooltip="Two players on this terminal (--local)"),
        Binding("l", "leaderboard", "Leaders", tooltip="Leaderboard of each rule"),
        Binding("p", "profile", "Profile", tooltip="Your ratings and finished games (review)"),
        Binding("g", "back_to_game", "My game", tooltip="Back to your game in progress"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self, host: Host) -> None:
        super().__init__()
        self.host = host
        self._gone: tuple[str, str | None] | None = None
        """The room the cursor was on when it left the list, and the room the cursor
        fell to instead: Enter there is not what was chosen (see :meth:`_unchosen`)."""

    def compose(self) -> ComposeResult:
        yield Static("", id="lobby-title")
        yield Static("", id="banner")
        yield Static("", id="queue")
        table: DataTable[Text] = RowTable(id="rooms", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static("", id="lobby-hint")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        table = self.query_one("#rooms", DataTable)
        for column in LOBBY_COLUMNS:
            table.add_column(column, key=column)
        table.focus()
        self._watching = False
        self._timer: Timer | None = None
        self._draw(self.host.model)
        self.call_later(lambda: self.show_model(self.host.model))  # what came while mounting

    def on_screen_resume(self) -> None:
        # Back from a game: the lobby stream was stopped by the server or never started.
        self._watching = False
        self.show_model(self.host.model)

    def show_model(self, model: ViewModel) -> None:
        if self.is_mounted and self in self.app.screen_stack:  # not while closing
            self._draw(model)

    def _draw(self, model: ViewModel) -> None:
        if model.session.link.online and not self._watching and self.is_current:
            self._watching = True
            self.run_worker(self.host.send(msg.LobbyWatch(on=True)), group="send")
        if not model.session.link.online:
            self._watching = False
        self._fill_table(model)
        refresh_footer(self)
        self.tick()

    def _fill_table(self, model: ViewModel) -> None:
        rooms = lobby_order(model.lobby.rooms)
        table = self.query_one("#rooms", DataTable)
        chosen = self._selected_room()
        rows = lobby_rows([summary for _, summary in rooms], room_for_rows(table))
        fill_rows(table, [(room_id, row) for (room_id, _), row in zip(rooms, rows, strict=True)])
        if chosen is not None and chosen not in model.lobby.rooms:
            self._gone = (chosen, self._selected_room())

    def _unchosen(self) -> bool:
        """Whether the cursor is on the room it fell to when the one it was on left the
        list, unmoved since: Enter (or w) there would join a room nobody chose (a room
        left as Enter was pressed sat a player down in a rated game next to it). Said
        once on the lobby's line; the next Enter acts."""
        gone, self._gone = self._gone, None
        if gone is None or gone[1] is None or gone[1] != self._selected_room():
            return False
        self.host.tell_lobby(
            "That room has left the list, and the cursor moved to another: press again for it."
        )
        return True

    def on_resize(self) -> None:
        self._fill_table(self.host.model)

    def tick(self) -> None:
        """Redraw what depends on the time (the queue's wait, the reconnect countdown),
        then sleep until it next changes: no timer runs while nothing shown does."""
        model = self.host.model
        now = self.host.clock()
        glyphs = self.host.options.glyphs
        where = self.host.server_shown
        session = model.session
        who = f"{session.name} @ {where}" if session.name else f"connecting to {where}"
        profile = self.host.options.profile
        if profile is not None:  # which of the people sharing this account (shown nowhere)
            who += f" (profile {profile})"
        state = link_label(session.link, now) if session.link.online else session.link.status
        title = f" {glyphs.sep} ".join(("Gomoku Arena", who, state))
        self.query_one("#lobby-title", Static).update(Text(title))
        banner = self.query_one("#banner", Static)
        banner.update(Text(link_banner(model.session.link, where, now, glyphs)))
        banner.display = not model.session.link.online
        queue = self.query_one("#queue", Static)
        rooms = list(model.lobby.rooms.values())
        width = (self.size.width or self.app.size.width) - 2  # (its padding)
        label = queue_label(model.lobby.queue, now, rooms, model.session.me, width)
        queue.update(Text(glyphs.plain(label)))
        queue.display = model.lobby.queue is not None
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        waits = [w for w in (queue_change(model.lobby.queue, now), link_change(model, now)) if w]
        if waits:
            self._timer = self.set_timer(min(waits), self.tick)
        hint = "No open rooms yet: n creates one, m finds an opponent, a plays the AI."
        if not model.session.link.online:  # no rooms known: none said to be open
            hint = "Not connected: the rooms show once the server answers."
        elif self.host.options.local:
            hint = "Local server: t two players on this terminal, a plays the AI."
        if model.lobby.rooms:
            chosen = self._selected_room()
            hint = lobby_choice(None if chosen is None else model.lobby.rooms.get(chosen))
        if model.seated_rooms and model.room is None:
            games = ", ".join(self._game_named(room, model) for room in model.seated_rooms)
            hint = f"You have a game in progress ({games}): g to return."
        if model.lobby.line_notice:  # why the lobby's latest request was refused
            hint = model.lobby.line_notice
        self.query_one("#lobby-hint", Static).update(Text(hint))

    @staticmethod
    def _game_named(room_id: str, model: ViewModel) -> str:
        """A game of one's own as the lobby's line names it: ``with bob`` when the list
        shows the room (a public one), else its id (the id alone told a player nothing
        about which game it was)."""
        summary = model.lobby.rooms.get(room_id)
        if summary is None:
            return room_id
        me = model.session.me
        seated = (summary.players.black, summary.players.white)
        others = [p.name for p in seated if p is not None and p.id != me]
        return f"with {others[0]}" if others else room_id

    def _selected_room(self) -> str | None:
        table = self.query_one("#rooms", DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return key.value

    # -- actions -----------------------------------------------------------------

    async def action_help(self) -> None:
        glyphs = self.host.options.glyphs
        sections = [
            ("Lobby", describe_bindings((b for b in self.BINDINGS if self._offered(b)), glyphs)),
            (
                "Table",
                [
                    (f"{glyphs.key_name('up')}/{glyphs.key_name('down')}", "choose a room"),
                    ("PgUp/PgDn, Home/End", "a page up or down, the first or the last room"),
                    ("click, click again", "choose a room, then join it (Enter does too)"),
                ],
            ),
            ("Anywhere", [("^Q", "quit")]),
        ]
        rules = [("How to play", HOW_TO_PLAY)]
        await self.app.push_screen(HelpScreen("Lobby keys", sections, rules))

    async def action_create(self) -> None:
        await self.app.push_screen(CreateRoomDialog(self.host.last_room), self._create_room)

    async def _create_room(self, room: msg.CreateRoom | None) -> None:
        if room is not None:
            await self.host.create_room(room)

    async def action_quick_match(self) -> None:
        if self.host.model.lobby.queue is not None:
            await self.action_cancel_match()
            return
        await self.app.push_screen(QuickMatchDialog(self.host.last_match), self._quick_match)

    async def _quick_match(self, queue: msg.Queue | None) -> None:
        if queue is not None:
            await self.host.quick_match(queue)

    async def action_cancel_match(self) -> None:
        if self.host.model.lobby.queue is not None:
            await self.host.ask(msg.Unqueue())

    def action_stop_trying(self) -> None:
        self.host.stop_trying()

    async def action_play_ai(self) -> None:
        async def chosen(choice: PlayAi | None) -> None:
            if choice is not None:
                await self.host.play_ai(choice.room, choice.level)

        await self.app.push_screen(PlayAiDialog(self.host.model.lobby.ai_choice), chosen)

    async def action_ai_game(self) -> None:
        async def chosen(message: msg.ClientMessage | None) -> None:
            if isinstance(message, msg.CreateAiGame):
                await self.host.create_ai_game(message)

        await self.app.push_screen(AiGameDialog(), chosen)

    async def action_leaderboard(self) -> None:
        await self.app.push_screen(LeaderboardScreen(self.host))

    async def action_profile(self) -> None:
        await self.app.push_screen(ProfileScreen(self.host))

    async def action_code(self) -> None:
        await self.app.push_screen(CodeDialog(self.host))

    async def action_join(self) -> None:
        """Sit down in the selected room, or watch it when nobody can sit down any
        more (both seats taken, or the game under way)."""
        room = self._selected_room()
        if room is None or self._unchosen():
            return
        summary = self.host.model.lobby.rooms.get(room)
        full = summary is not None and (
            summary.state != "waiting"
            or (summary.players.black is not None and summary.players.white is not None)
        )
        await self.host.ask(msg.Join(room=room, role="spectator" if full else "player"))

    @on(DataTable.RowSelected)
    async def row_selected(self, event: DataTable.RowSelected) -> None:
        await self.action_join()

    @on(DataTable.RowHighlighted)
    def row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.tick()  # the line names the room the cursor is on

    async def action_watch(self) -> None:
        room = self._selected_room()
        if room is not None and not self._unchosen():
            await self.host.ask(msg.Join(room=room, role="spectator"))

    async def action_back_to_game(self) -> None:
        rooms = self.host.model.seated_rooms
        if rooms:
            await self.host.ask(msg.Join(room=rooms[0], role="player"))

    def _offered(self, binding: BindingType) -> bool:
        """Whether the key exists in this mode (hot seat with --local, quick match
        without); the help lists those whether or not they work right now."""
        action = binding.action if isinstance(binding, Binding) else binding[1]
        if action in ("hot_seat", "quick_match"):
            return self.check_action(action, ()) is not False
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hot seat exists only with --local (an embedded server), quick match only
        without (nobody else plays on a local server)."""
        model = self.host.model
        if action in NEEDS_SERVER and not model.session.link.online:
            return False  # the footer shows what works: Esc, help and quit
        if action == "hot_seat":
            return self.host.options.local
        if action in ("quick_match", "ai_game") and model.lobby.queue is not None:
            # While a match is looked for: Esc cancels it first (and the footer keeps
            # its last keys, Quit among them, within 80 columns).
            return False
        if action == "quick_match":
            return not self.host.options.local
        if action == "cancel_match":
            return model.lobby.queue is not None and model.session.link.online
        if action == "stop_trying":
            return self.host.can_stop_trying()
        if action == "back_to_game":
            return bool(model.seated_rooms)
        return True

    async def action_hot_seat(self) -> None:
        async def chosen(room: msg.CreateRoom | None) -> None:
            if room is not None:
                await self.host.start_hot_seat(room)

        await self.app.push_screen(HotSeatDialog(), chosen)

    async def action_quit(self) -> None:
        await self.app.action_quit()
