"""The game screen: the board, the status lines, offers, the events/chat pane
and the command line.

Three ways to move, all ending in :meth:`GameScreen.play`: the board's cursor
(arrows / hjkl, Enter or Space), the mouse (select then confirm, or one
click with ``--one-click``), and typing a point like ``h8`` in the command
line. The command line also takes ``/commands`` and chat.

The keys are declared once, in :attr:`GameScreen.BINDINGS` (and the board's
own), and the help screen lists them from there. The footer shows the keys that
do something in the room's current state (resign and draw while the game runs,
rematch after it, an AI seat while waiting); the hint and AI-seat keys show
dimmed in a rated game, where they are refused, and the room's first log line
says why.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from client.app import GomokuApp
from client.present import link_banner, status_lines
from client.screens.dialogs import ConfirmDialog, SeatAiDialog
from client.screens.help import HelpScreen, describe_bindings
from client.state import (
    NO_AI_RATED,
    NO_HINT_RATED,
    LogLine,
    ViewModel,
    can_hint,
    can_move,
    can_seat_ai,
)
from client.widgets.board import Board
from engine.errors import NotationError
from engine.types import Point
from protocol import messages as msg
from protocol.convert import point_from_wire, point_to_wire
from protocol.values import OfferKind, SwapChoice

COMMANDS: dict[str, str] = {
    "/resign": "resign the game",
    "/draw": "offer a draw",
    "/takeback": "ask to take your last move back",
    "/rematch": "offer a rematch (after the game)",
    "/accept": "accept the opponent's offer",
    "/decline": "decline the opponent's offer",
    "/claim": "claim the win when the opponent is gone past the grace period",
    "/hint": "ask an AI for a move (unrated games)",
    "/ai [level]": "seat an AI in the empty seat (beginner ... master)",
    "/black, /white, /place2": "swap2: take a colour, or place two more stones",
    "/leave": "back to the lobby",
    "/help": "this help",
    "h8": "(any point) play there",
    "anything else": "say it in the room's chat",
}

LOG_STYLES = {"chat": "", "event": "italic", "error": "bold red", "system": "dim"}


class GameScreen(Screen[None]):
    """One room: play or watch."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help"),
        Binding("i,colon", "command", "Type"),
        Binding("slash", "command('/')", "Command", show=False),
        Binding("escape", "board", "Back to board", show=False),
        Binding("a", "seat_ai", "AI opponent", tooltip="Seat an AI in the empty seat"),
        Binding("H", "hint", "Hint", tooltip="Ask an AI for a move (unrated games only)"),
        Binding("R", "resign", "Resign"),
        Binding("d", "offer('draw')", "Draw"),
        Binding("u", "offer('takeback')", "Takeback"),
        Binding("m", "offer('rematch')", "Rematch"),
        Binding("y", "answer(True)", "Accept", show=False),
        Binding("n", "answer(False)", "Decline", show=False),
        Binding("c", "claim", "Claim win", show=False),
        Binding("B", "choose('black')", "Swap2: take black", show=False),
        Binding("W", "choose('white')", "Swap2: take white", show=False),
        Binding("P", "choose('place2')", "Swap2: place two more", show=False),
        Binding("q", "leave", "Leave"),
    ]

    def compose(self) -> ComposeResult:
        options = self.gomoku.options
        yield Static("", id="status-players")
        yield Static("", id="status-game")
        with Horizontal(id="game-body"):
            yield Board(id="board", glyphs=options.glyphs, one_click=options.one_click)
            with VerticalScroll(id="side"):
                yield Static("", id="log")
        yield Static("", id="offer")
        yield Input(
            placeholder="h8 to play · text to chat · /help · Esc: board",
            id="command",
            select_on_focus=False,
        )
        yield Footer()

    def on_mount(self) -> None:
        self._shown_log: tuple[LogLine, ...] | None = None
        self._last_room: str | None = None
        boards = self.query(Board)
        if not boards:  # the app closed while this screen was still being composed
            return
        boards.first().focus()
        self.set_interval(0.2, self.tick)
        self._draw(self.model)

    @property
    def model(self) -> ViewModel:
        return self.gomoku.model

    @property
    def me(self) -> frozenset[str]:
        return self.gomoku.local_players

    @property
    def gomoku(self) -> GomokuApp:
        app = self.app
        assert isinstance(app, GomokuApp)
        return app

    # -- drawing --------------------------------------------------------------

    def show_model(self, model: ViewModel) -> None:
        if self.is_mounted:
            self._draw(model)

    def _draw(self, model: ViewModel) -> None:
        game = model.room
        board = self.query_one(Board)
        if game is not None:
            if game.id != self._last_room:
                self._last_room = game.id
                board.picture = game.picture
                board.cursor = game.picture.last or Point(game.size // 2, game.size // 2)
            board.picture = game.picture
        board.set_class(not model.link.online, "-disabled")
        self._show_offer(model)
        self._show_log(model)
        self.refresh_bindings()
        self.tick()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Which keys the footer offers now: True shown, None shown dimmed (refused
        in this room: the hint and AI keys of a rated game), False hidden."""
        game = self.model.room
        if game is None:
            return True
        seated = self._my_seat_player() is not None
        running = game.state in ("playing", "opening")
        if action == "seat_ai":
            why = can_seat_ai(self.model, self.me)
            return True if why is None else None if why == NO_AI_RATED else False
        if action == "hint":
            return False if not running else None if can_hint(self.model) == NO_HINT_RATED else True
        if action == "resign":
            return running and seated
        if action == "offer":
            if parameters and parameters[0] == "rematch":
                return game.state == "over" and seated
            return running and seated
        return True

    def tick(self) -> None:
        """Redraw the status lines (the clocks run between server updates)."""
        glyphs = self.gomoku.options.glyphs
        now = self.gomoku.clock()
        first, second = status_lines(self.model, self.me, (glyphs.black, glyphs.white), now)
        self.query_one("#status-players", Static).update(Text(first))
        self.query_one("#status-game", Static).update(Text(second))
        if not self.model.link.online:
            self._show_offer(self.model)

    def _show_offer(self, model: ViewModel) -> None:
        offer = self.query_one("#offer", Static)
        game = model.room
        text = link_banner(model.link, self.gomoku.clock())
        if text:
            pass
        elif game is not None and game.pending is not None:
            kind = game.pending.kind
            if game.pending.by in self.me and len(self.me) == 1:
                text = f"Your {kind} offer is waiting for an answer."
            else:
                who = game.name_of(game.pending.by)
                text = f"{who} offers a {kind}: y accept, n decline"
        elif game is not None and game.swap2 is not None and game.swap2.to_act in self.me:
            if game.swap2.phase == "choose":
                choices = ", ".join(
                    {"black": "B take black", "white": "W take white", "place2": "P place two"}[c]
                    for c in game.swap2.choices
                )
                text = f"Swap2: choose: {choices}"
        elif game is not None and game.rematch_room is not None:
            text = "Rematch agreed."
        elif game is not None and game.state == "waiting" and self._my_seat_player():
            text = "Waiting for an opponent"
            if game.code:
                text += f" (invite code {game.code})"
            why = can_seat_ai(model, self.me)
            text += ": a seats an AI instead." if why is None else "."
        offer.update(text)
        offer.display = bool(text)

    def _show_log(self, model: ViewModel) -> None:
        """The chat/events pane: the model's log (bounded), newest at the bottom.
        Rendered whole so it wraps to the pane's current width."""
        if model.log is self._shown_log:
            return
        self._shown_log = model.log
        text = Text()
        for index, line in enumerate(model.log):
            if index:
                text.append("\n")
            text.append(line.text, style=LOG_STYLES.get(line.kind, ""))
        self.query_one("#log", Static).update(text)
        self.query_one("#side", VerticalScroll).scroll_end(animate=False)

    # -- moving ----------------------------------------------------------------

    @on(Board.PointChosen)
    async def point_chosen(self, event: Board.PointChosen) -> None:
        await self.play(event.point)

    async def play(self, point: Point) -> None:
        """Send a move at ``point``, or say why it cannot be played now."""
        model = self.model
        game = model.room
        why = can_move(model, self.me)
        if game is None or why is not None:
            self.gomoku.note(why or "You are not in a game.")
            return
        if point in game.picture.stones:
            self.gomoku.note(f"{point_to_wire(point, game.size)} is already taken.")
            return
        if point in game.picture.forbidden:
            self.gomoku.note(f"{point_to_wire(point, game.size)} is forbidden for Black (renju).")
            return
        actor = game.to_act()
        await self.gomoku.send_as(
            actor, msg.Move(room=game.id, point=point_to_wire(point, game.size))
        )

    # -- the command line ------------------------------------------------------

    @on(Input.Submitted, "#command")
    async def command_entered(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        if not text:
            self.query_one(Board).focus()
            return
        await self.run_command(text)

    async def run_command(self, text: str) -> None:
        game = self.model.room
        if text.startswith("/"):
            await self._slash(text[1:].strip().lower())
            return
        if game is not None and self._looks_like_point(text):
            try:
                point = point_from_wire(text.lower(), game.size)
            except NotationError as exc:
                self.gomoku.note(str(exc))
                return
            self.query_one(Board).cursor = point
            await self.play(point)
            return
        if game is not None:
            await self.gomoku.send_as(self._speaker(), msg.Chat(room=game.id, text=text[:300]))

    def _speaker(self) -> str | None:
        game = self.model.room
        if game is None:
            return None
        return game.to_act() or self.model.me

    @staticmethod
    def _looks_like_point(text: str) -> bool:
        t = text.strip().lower()
        return 2 <= len(t) <= 3 and t[0].isalpha() and t[1:].isdigit()

    async def _slash(self, command: str) -> None:
        actions = {
            "resign": self.action_resign,
            "draw": lambda: self.action_offer("draw"),
            "takeback": lambda: self.action_offer("takeback"),
            "undo": lambda: self.action_offer("takeback"),
            "rematch": lambda: self.action_offer("rematch"),
            "accept": lambda: self.action_answer(True),
            "decline": lambda: self.action_answer(False),
            "claim": self.action_claim,
            "hint": self.action_hint,
            "black": lambda: self.action_choose("black"),
            "white": lambda: self.action_choose("white"),
            "place2": lambda: self.action_choose("place2"),
            "leave": self.action_leave,
            "help": self.action_help,
        }
        word, _, rest = command.partition(" ")
        if word == "ai":
            await self.seat_ai(rest.strip() or None)
            return
        action = actions.get(command)
        if action is None:
            self.gomoku.note(f"Unknown command /{command}; /help lists them.")
            return
        await action()

    # -- actions -----------------------------------------------------------------

    def action_command(self, prefix: str = "") -> None:
        box = self.query_one("#command", Input)
        box.focus()
        if prefix and not box.value:
            box.value = prefix
            box.cursor_position = len(prefix)

    def action_board(self) -> None:
        self.query_one(Board).focus()

    async def action_help(self) -> None:
        sections = [
            ("Board", describe_bindings(Board.BINDINGS)),
            ("Mouse", [("click", "select a point; click it again to play (--one-click: at once)")]),
            (
                "Big boards",
                [
                    ("", "a board taller than the screen (e.g. 26x26 at 80x24) scrolls:"),
                    ("", "the view follows the cursor and jumps to each new move;"),
                    ("", "↑ / ↓ left of the letters: more rows above / below"),
                ],
            ),
            ("Game", describe_bindings(self.BINDINGS)),
            ("Command line", list(COMMANDS.items())),
            ("Anywhere", [("Ctrl+Q", "quit")]),
        ]
        await self.app.push_screen(HelpScreen("Game keys", sections))

    def _my_seat_player(self) -> str | None:
        """The local player who acts for 'me' in this room (hot seat: the one to move)."""
        game = self.model.room
        if game is None:
            return None
        seated = [p for p in self.me if game.color_of(p) is not None]
        if not seated:
            return None
        actor = game.to_act()
        return actor if actor in seated else seated[0]

    async def action_resign(self) -> None:
        game = self.model.room
        player = self._my_seat_player()
        if game is None or player is None or game.state == "over":
            self.gomoku.note("Nothing to resign.")
            return
        room = game.id

        async def decided(yes: bool | None) -> None:
            if yes:
                await self.gomoku.send_as(player, msg.Resign(room=room))

        await self.app.push_screen(ConfirmDialog("Resign this game?"), decided)

    async def action_offer(self, kind: OfferKind) -> None:
        game = self.model.room
        player = self._my_seat_player()
        if game is None or player is None:
            self.gomoku.note("Only the players can do that.")
            return
        if kind == "rematch" and game.state != "over":
            self.gomoku.note("A rematch can be offered once the game is over.")
            return
        if kind != "rematch" and game.state not in ("playing", "opening"):
            self.gomoku.note("The game is not running.")
            return
        await self.gomoku.send_as(player, msg.Offer(room=game.id, kind=kind))

    async def action_answer(self, accept: bool) -> None:
        game = self.model.room
        if game is None or game.pending is None:
            self.gomoku.note("There is no offer to answer.")
            return
        answerer = next(
            (p for p in self.me if game.color_of(p) is not None and p != game.pending.by), None
        )
        if answerer is None:
            self.gomoku.note("The offer is not yours to answer.")
            return
        await self.gomoku.send_as(
            answerer, msg.Answer(room=game.id, kind=game.pending.kind, accept=accept)
        )

    async def action_hint(self) -> None:
        """Ask an AI for the side to move's best move (unrated games only)."""
        game = self.model.room
        why = can_hint(self.model)
        if game is None or why is not None:
            self.gomoku.note(why or "You are not in a game.")
            return
        self.gomoku.note("Asking an AI for a hint...")
        await self.gomoku.send(msg.Hint(room=game.id))

    async def action_seat_ai(self) -> None:
        """Choose a level, then seat an AI of it in the empty seat."""
        game = self.model.room
        why = can_seat_ai(self.model, self.me)
        if game is None or why is not None:
            self.gomoku.note(why or "You are not in a game.")
            return

        async def chosen(message: msg.ClientMessage | None) -> None:
            if isinstance(message, msg.SeatAi):
                await self.gomoku.seat_ai(message.room, message.level)

        await self.app.push_screen(SeatAiDialog(game.id), chosen)

    async def seat_ai(self, level: str | None) -> None:
        """``/ai [level]``: seat an AI without the dialog."""
        game = self.model.room
        why = can_seat_ai(self.model, self.me)
        if game is None or why is not None:
            self.gomoku.note(why or "You are not in a game.")
            return
        await self.gomoku.seat_ai(game.id, level)

    async def action_claim(self) -> None:
        game = self.model.room
        player = self._my_seat_player()
        if game is None or player is None:
            self.gomoku.note("Only the players can claim.")
            return
        await self.gomoku.send_as(player, msg.Claim(room=game.id))

    async def action_choose(self, choice: SwapChoice) -> None:
        game = self.model.room
        if game is None or game.swap2 is None or game.swap2.phase != "choose":
            self.gomoku.note("There is no swap2 choice to make now.")
            return
        await self.gomoku.send_as(game.swap2.to_act, msg.Choose(room=game.id, choice=choice))

    async def action_leave(self) -> None:
        game = self.model.room
        if game is None:
            return
        running = game.state in ("playing", "opening") and self._my_seat_player() is not None

        async def decided(yes: bool | None) -> None:
            if yes:
                await self.gomoku.leave_room()

        if running:
            question = "Leave the running game? (It counts as a disconnect; R resigns.)"
            await self.app.push_screen(ConfirmDialog(question), decided)
        else:
            await self.gomoku.leave_room()
