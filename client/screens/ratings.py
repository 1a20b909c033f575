"""Ratings and history: the leaderboard of each rule, and a player's profile with
their finished games, from which a game opens in the review screen.

Both screens ask the server when they open (and when the rule or the page
changes) and draw what :mod:`client.state.history` holds; nothing is cached beyond
the last reply, so what they show is the server's current answer.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from client.present import (
    GAME_COLUMNS,
    LEADERBOARD_COLUMNS,
    STANDING_COLUMNS,
    game_rows,
    leaderboard_row,
    standing_row,
)
from client.screens.footer import refresh_footer
from client.screens.help import HelpScreen, describe_bindings
from client.screens.host import Host
from client.screens.record_opener import RecordOpener
from client.state.history import (
    GAMES_PAGE,
    GamesRequested,
    LeaderboardRequested,
    ProfileRequested,
)
from client.state.model import ViewModel
from client.widgets.rows import RowTable, fill_rows, room_for_rows
from engine.types import Rule
from protocol import messages as msg
from protocol.values import GameSummary

NONE_TO_SHOW = "No finished games to show: a private room's games are listed to its players only."


class _HistoryScreen(Screen[None]):
    """Shared by the leaderboard and profile screens: the app, the title, the
    status line and going back."""

    title_text = ""

    def __init__(self, host: Host) -> None:
        super().__init__()
        self.host = host

    def on_mount(self) -> None:
        self.show_model(self.host.model)
        self.call_later(lambda: self.show_model(self.host.model))  # what came while mounting

    def on_screen_resume(self) -> None:
        """Back from a screen that asked for something else (another profile, another
        rule's list): ask again for what this screen shows."""
        if not self.shows_current(self.host.model):
            self.run_worker(self.ask(), group="send")

    def shows_current(self, model: ViewModel) -> bool:
        """Whether the model's history holds what this screen shows."""
        raise NotImplementedError

    async def ask(self) -> None:
        raise NotImplementedError

    def show_model(self, model: ViewModel) -> None:
        if self.is_mounted and self in self.app.screen_stack:  # not while closing
            self._draw(model)

    def _draw(self, model: ViewModel) -> None:
        raise NotImplementedError

    def status(self, text: str) -> None:
        line = self.query_one("#history-status", Static)
        line.update(Text(text))

    async def action_back(self) -> None:
        self.dismiss()

    async def action_help(self) -> None:
        sections = [(self.title_text, describe_bindings(self.BINDINGS))]
        await self.app.push_screen(HelpScreen(f"{self.title_text} keys", sections))


class LeaderboardScreen(_HistoryScreen):
    """The best established players of one rule, ranked; after them, unranked, those
    whose rating has not settled yet (``1742?``), as the server lists them apart."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help"),
        Binding("f", "rule('freestyle')", "Freestyle"),
        Binding("s", "rule('standard')", "Standard"),
        Binding("r", "rule('renju')", "Renju"),
        Binding("enter", "open", "Profile", show=False),
        Binding("q,escape", "back", "Back"),
    ]
    title_text = "Leaderboard"

    def __init__(self, host: Host, rule: Rule = Rule.FREESTYLE) -> None:
        super().__init__(host)
        self.rule = rule

    def compose(self) -> ComposeResult:
        yield Static("", id="lobby-title")
        table: DataTable[Text] = RowTable(id="leaders", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static("", id="history-status")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        table = self.query_one("#leaders", DataTable)
        for column in LEADERBOARD_COLUMNS:
            table.add_column(column, key=column)
        table.focus()
        super().on_mount()
        self.run_worker(self.ask(), group="send")

    async def ask(self) -> None:
        await self.host.request(
            LeaderboardRequested(self.rule), msg.GetLeaderboard(rule=self.rule, limit=50)
        )

    def shows_current(self, model: ViewModel) -> bool:
        board = model.history.leaderboard
        return board is not None and board.rule == self.rule

    def _draw(self, model: ViewModel) -> None:
        sep = f" {self.host.options.glyphs.sep} "
        title = sep.join(("Leaderboard", f"{self.rule}", "f / s / r: freestyle, standard, renju"))
        self.query_one("#lobby-title", Static).update(Text(title))
        board = model.history.leaderboard
        table = self.query_one("#leaders", DataTable)
        if board is None or board.rule != self.rule:
            return
        rows = []
        listed = [(entry, True) for entry in board.entries]
        listed += [(entry, False) for entry in board.unsettled]
        for entry, settled in listed:
            cells = leaderboard_row(entry, settled=settled)
            if entry.player == model.me:
                cells = (cells[0], f"{cells[1]} (you)", *cells[2:])
            rows.append((entry.player, cells))
        fill_rows(table, rows)
        settles = (
            "(RD 110 or less: about 15 to 20 rated games between new players, more for one "
            "who keeps winning)"
        )
        none_yet = f"No established {self.rule} players yet"
        if board.loading:
            self.status("Loading...")
        elif board.error:
            self.status(board.error)
        elif not board.entries and not board.unsettled:
            self.status(f"{none_yet}: a rating counts here once it settles {settles}.")
        elif not board.unsettled:
            self.status("Enter: the player's profile and games.")
        else:
            self.status(
                ("" if board.entries else f"{none_yet}. ")
                + f"A rating with ? has not settled: it is ranked once it does {settles}. "
                "Enter: the player's profile and games."
            )

    async def action_rule(self, rule: str) -> None:
        self.rule = Rule(rule)
        self.query_one("#leaders", DataTable).clear()
        self._draw(self.host.model)
        await self.ask()

    @on(DataTable.RowSelected)
    async def row_selected(self, event: DataTable.RowSelected) -> None:
        await self.action_open()

    async def action_open(self) -> None:
        table = self.query_one("#leaders", DataTable)
        if table.row_count == 0:
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        if key is not None:
            await self.app.push_screen(ProfileScreen(self.host, key))


class ProfileScreen(_HistoryScreen):
    """A player's rating and results under each rule, and their finished games;
    Enter opens the selected game in the review screen."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help"),
        Binding("enter", "open", "Review game"),
        Binding("o", "opponent", "Opponent's profile"),
        Binding("m", "more", "Older games"),
        Binding("l", "leaderboard", "Leaderboard"),
        Binding("q,escape", "back", "Back"),
    ]
    title_text = "Profile"

    def __init__(self, host: Host, player: str | None = None) -> None:
        """``player`` None: your own profile."""
        super().__init__(host)
        self.player = player
        self.records = RecordOpener(self, host, self.status)

    def compose(self) -> ComposeResult:
        yield Static("", id="lobby-title")
        standings: DataTable[Text] = DataTable(id="standings", cursor_type="none")
        standings.can_focus = False
        yield standings
        yield Static("", id="games-title")
        games: DataTable[Text] = RowTable(id="games", cursor_type="row", zebra_stripes=True)
        yield games
        yield Static("", id="history-status")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        standings = self.query_one("#standings", DataTable)
        for column in STANDING_COLUMNS:
            standings.add_column(column, key=column)
        games = self.query_one("#games", DataTable)
        for column in GAME_COLUMNS:
            games.add_column(column, key=column)
        games.focus()
        super().on_mount()
        self.run_worker(self.ask(), group="send")

    async def ask(self) -> None:
        await self.host.request(ProfileRequested(self.player), msg.GetProfile(player=self.player))
        await self.host.request(
            GamesRequested(self.player), msg.ListGames(player=self.player, limit=GAMES_PAGE)
        )

    def on_resize(self) -> None:
        self.show_model(self.host.model)  # the games' names cut to the new width

    def _wanted(self, model: ViewModel) -> tuple[str | None, ...]:
        """The ids a profile reply for this screen may carry (yours: None until known)."""
        return (None, model.me) if self.player is None else (self.player,)

    def shows_current(self, model: ViewModel) -> bool:
        profile, archive = model.history.profile, model.history.archive
        return (
            profile is not None
            and profile.player in self._wanted(model)
            and archive is not None
            and archive.player == self.player
        )

    def _draw(self, model: ViewModel) -> None:
        history = model.history
        profile = history.profile
        if profile is not None and profile.player not in self._wanted(model):
            profile = None  # another player's, on its way out
        mine = self.player is None or self.player == model.me
        name = profile.name if profile is not None and profile.name else ""
        if mine:
            name = f"{name or model.session.name} (you)"
        sep = f" {self.host.options.glyphs.sep} "
        self.query_one("#lobby-title", Static).update(Text(f"Profile{sep}{name}"))
        if profile is not None:
            rows = [(str(s.rule), standing_row(s)) for s in profile.ratings]
            fill_rows(self.query_one("#standings", DataTable), rows)
        archive = history.archive
        games_table = self.query_one("#games", DataTable)
        shown = archive is not None and archive.player == self.player
        count = len(archive.games) if archive is not None and shown else 0
        heading = "Finished games, newest first"
        if archive is not None and shown and archive.more:
            heading += " (m: older)"
        self.query_one("#games-title", Static).update(Text(heading))
        if archive is not None and shown:
            me = self.player or model.me
            cells = game_rows(archive.games, me, room_for_rows(games_table))
            fill_rows(
                games_table, [(g.id, row) for g, row in zip(archive.games, cells, strict=True)]
            )
        self.status(self._status(model, count))
        refresh_footer(self)
        self.records.show(model)

    def _status(self, model: ViewModel, count: int) -> str:
        history = model.history
        for view in (history.profile, history.archive):
            if view is not None and view.error:
                return view.error
        if self.records.game is not None:
            return "Opening the game..."
        if any(v is not None and v.loading for v in (history.profile, history.archive)):
            return "Loading..."
        if count == 0:
            profile = history.profile
            theirs = self.player is not None and self.player != model.me
            played = profile is not None and any(s.games for s in profile.ratings)
            # Rated games counted, none listed: another player's games were private.
            return NONE_TO_SHOW if theirs and played else "No finished games yet."
        return "Enter: review the game move by move (and export it)."

    @on(DataTable.RowSelected, "#games")
    async def row_selected(self, event: DataTable.RowSelected) -> None:
        await self.action_open()

    def _selected(self) -> GameSummary | None:
        """The game under the list's cursor, as listed."""
        table = self.query_one("#games", DataTable)
        archive = self.host.model.history.archive
        if table.row_count == 0 or archive is None or archive.player != self.player:
            return None
        game = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return next((g for g in archive.games if g.id == game), None)

    async def action_open(self) -> None:
        game = self._selected()
        if game is None:
            return
        self.status("Opening the game...")
        await self.records.open(game.id)

    async def action_opponent(self) -> None:
        """The profile of the other player of the game under the cursor (a friend not on
        the leaderboard was reached only from the web page)."""
        game = self._selected()
        if game is None:
            return
        owner = self.player or self.host.model.me
        other = game.white if game.black.id == owner else game.black
        await self.app.push_screen(ProfileScreen(self.host, other.id))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """'Older games' only while the last page was full; a game's keys with a game."""
        if action == "more":
            archive = self.host.model.history.archive
            return archive is not None and archive.player == self.player and archive.more
        if action in ("open", "opponent") and self.is_mounted:
            return self._selected() is not None
        return True

    async def action_more(self) -> None:
        archive = self.host.model.history.archive
        if archive is None or not archive.more or archive.loading:
            self.status("No older games.")
            return
        before = archive.oldest_ms
        await self.host.request(
            GamesRequested(self.player, before),
            msg.ListGames(player=self.player, limit=GAMES_PAGE, before_ms=before),
        )

    async def action_leaderboard(self) -> None:
        await self.app.push_screen(LeaderboardScreen(self.host))
