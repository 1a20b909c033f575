"""The game screen: the board, the move list, the events and chat, a prompt bar
for questions, and the text line.

The key model, as a player meets it:

- **Typing is text.** A letter, digit or ``/`` pressed on this screen goes
  into the text line (the board, the move list and the log hand it on, in order,
  however fast the keys come; a question's prompt bar only ``/``, see below), so
  ``h8`` Enter plays h8 (``H8`` and ``h 8`` too), ``/draw`` runs a command and
  anything else is said in the room's chat. Nothing typed is ever taken as a
  command key. Enter sends the line and gives the keys back to the board.
- **The board** moves its cursor with the arrow keys and plays the cursor's
  point with Enter or Space (or the mouse: select, then confirm).
- **Game actions are Ctrl keys** (nano-style, shown in the footer as ``^D``),
  declared once in :attr:`GameScreen.BINDINGS`; they act whatever has focus, the
  text line too (a half-typed line stays as it is; ^D there offers a draw, it
  does not delete).
- **Questions** (the opponent's draw, takeback or rematch offer, the swap2
  choice, a claim once the opponent is gone past the grace period or, without a
  clock, has been to move past the move limit) show in the
  prompt bar, which takes focus unless a line is half typed: ``y`` / ``n`` (or
  ``Y`` / ``N``) answer it; Enter, Esc and another letter or
  digit are ignored (the log says which keys answer, and that Tab goes on to the
  text line), so a move typed as the question comes never accepts it. A lone
  character in the text line is not a line: a new question clears it (and says
  so in the log) and takes the keys, so a key pressed a moment too early never
  sticks to the front of the next line (``y`` then ``h8`` is not chat ``yh8``).
- **Focus is always visible** (the board's cursor and highlighted labels, the
  text line's and the prompt's colours), **Esc returns to the board**, ``?``
  (F1 while typing) lists every key, Tab moves on.

The footer shows the keys that work now: the game's actions follow the room's
state (resign and draw while it runs, rematch after it, an AI seat while
waiting) and the player's role (a spectator has no Play, Resign or Draw); Play
shows on the player's turn only (out of turn Enter says why nothing is played).
A dialog open over the game shows its own keys in its own footer.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, Static

from client.commands import CHAT_MAX, COMMANDS, NotOnBoard, ReversedPoint, typed_point
from client.picture import renju_foul
from client.present import link_banner, low_clock_spans, status_lines
from client.prompts import Prompt, next_change, notice_for, prompt_for
from client.screens.dialogs import ConfirmDialog, SeatAiDialog
from client.screens.footer import refresh_footer
from client.screens.help import HelpScreen, describe_bindings
from client.screens.host import Host
from client.screens.record_opener import RecordOpener
from client.state.log import LogLine
from client.state.model import ViewModel
from client.state.mute import listed, named, speakers, visible
from client.state.questions import NOT_YOUR_TURN, can_hint, can_move, can_seat_ai
from client.state.words import HOW_TO_PLAY, foul_text, leaving_words
from client.widgets.board import Board
from client.widgets.entry import COMMAND_START, EntryLine, PromptBar, ToBoard, starts_text
from client.widgets.log import LogPane
from client.widgets.moves import WIDTH as MOVES_WIDTH
from client.widgets.moves import MoveList
from engine.notation import format_point
from engine.types import Color, Point
from protocol import messages as msg
from protocol.convert import point_to_wire
from protocol.limits import RATED_MIN_STONES
from protocol.text import chat_problem
from protocol.values import OfferKind, SwapChoice

LATE_TICK_S = 3.0
"""A clock tick this much later than due means the client did not run meanwhile."""

PLACEHOLDER_PLAYER = ("type {point} to play", "text to chat", "/help")
"""(``point``: the board's centre, a point of every size: h8 is none on 5x5.)"""
PLACEHOLDER_WATCHER = ("type to chat", "/help", "arrows look around the board")
PLACEHOLDER_OVER = ("type to chat", "/help", "the game is over")
"""A seated player's text line once the game has ended (no point to play any more)."""
PLACEHOLDER_AI_GONE = ("type to chat", "/help", "the AI left: {again} plays it again")
"""After a game with an AI that has left (no rematch with it): where another comes from."""


def ai_level(name: str) -> str:
    """The level of an AI player by its name (``AI master``: ``master``), as the server
    names them; the default level for any other name."""
    prefix, _, level = name.partition(" ")
    return level if prefix == "AI" and level and " " not in level else "intermediate"


NARROW_LOG = 24  # below this many columns for the log, the move list goes above it
NARROW_SIDE = 20  # below this many columns beside the whole board, the log goes under it

#: Actions that act on the game (Ctrl keys: they work while a line is typed too).
GAME_ACTIONS = frozenset({"seat_ai", "hint", "resign", "offer", "rematch", "review", "leave"})

ARROW_STEPS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}


class GameScreen(Screen[None]):
    """One room: play or watch."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help('key')", "Help", tooltip="Every key of this screen"),
        Binding("f1", "help('f1')", "Help", tooltip="The same, also while typing"),
        # Leave next to Help, where it stays in every state of the game: further on, the
        # keys before it came and went, and a click where Leave had been asked to resign.
        Binding("ctrl+l", "leave", "Leave", tooltip="Back to the lobby (asks first in a game)"),
        # The widgets hand / on to the text line themselves, in its place among the keys
        # typed (see client.widgets.entry); this binding names the key for the help.
        Binding("slash", "command", "Command", show=False, tooltip="Type a /command"),
        Binding(
            "escape",
            "question",
            "Question",
            tooltip="To the question waiting (an offer on your move leaves you the keys)",
        ),
        Binding("escape", "board", "Board", tooltip="Back to the board (from the text line)"),
        Binding(
            "escape",
            "stop_trying",
            "Stop trying",
            tooltip="While the connection is down: stop trying, back to the connect screen",
        ),
        Binding("ctrl+d", "offer('draw')", "Draw", tooltip="Offer a draw"),
        Binding("ctrl+t", "offer('takeback')", "Takeback", tooltip="Ask to take your move back"),
        Binding("ctrl+r", "resign", "Resign", tooltip="Resign the game (asks first)"),
        Binding(
            "ctrl+n",
            "rematch",
            "Rematch",
            tooltip="Rematch, colours swapped; an AI that left plays again",
        ),
        Binding("ctrl+g", "hint", "Hint", tooltip="Ask an AI for a move (unrated games only)"),
        Binding(
            "ctrl+g",
            "hint('watching')",
            "Hint (watching)",
            tooltip="As a spectator: ask an AI for the move of the side to move",
        ),
        Binding("ctrl+o", "seat_ai", "AI opponent", tooltip="Seat an AI in the empty seat"),
        Binding(
            "ctrl+p",
            "review",
            "Review",
            tooltip="After the game: go over it move by move, and export its record",
        ),
    ]

    def __init__(self, host: Host) -> None:
        super().__init__()
        self.host = host
        self.records = RecordOpener(self, host, host.note)

    def compose(self) -> ComposeResult:
        """The widgets, kept as attributes: drawing updates them directly, so it never
        depends on whether a nested one is mounted yet (containers mount their
        children after the screen's own mount)."""
        options = self.host.options
        sep = f" {options.glyphs.sep} "
        self.status_players = Static("", id="status-players")
        self.status_game = Static("", id="status-game")
        self.board = Board(id="board", glyphs=options.glyphs, one_click=options.one_click)
        # Before the footer first shows the board's keys: a spectator never sees Play.
        self.board.can_play = self._can_play(self.model)
        self.board.my_turn = can_move(self.model, self.me) is None
        self.moves = MoveList(id="moves")
        self.log_pane = LogPane(id="log-pane")
        self.side = Horizontal(self.moves, self.log_pane, id="side")
        self.banner = Static("", id="banner")
        self.notice = Static("", id="notice")
        self.prompt_bar = PromptBar(self.host.clock, id="prompt")
        self.entry = EntryLine(
            placeholder=sep.join(PLACEHOLDER_PLAYER).format(point="h8"),
            max_length=CHAT_MAX,
            id="command",
        )  # typing stops at a chat line's limit, rather than the line being cut when sent
        for typed_on in (self.board, self.moves, self.log_pane, self.prompt_bar):
            typed_on.sink = self.entry
        yield self.status_players
        yield self.status_game
        yield Horizontal(self.board, self.side, id="game-body")
        yield self.banner
        yield self.notice
        yield self.prompt_bar
        yield self.entry
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._last_room: str | None = None
        self._timer: Timer | None = None
        self._due: float | None = None  # when the timer's tick is due (monotonic)
        self._dismissed: set[tuple[object, ...]] = set()  # claims answered "not now"
        # The log, the players muted, and the log shown for them (see _visible_log).
        self._shown_log: tuple[tuple[LogLine, ...], tuple[str, ...], tuple[LogLine, ...]] | None
        self._shown_log = None
        self.premove: tuple[str, int, Point] | None = None
        """A move typed while the opponent was to move in a game with a clock (room,
        stones then, point): played as soon as it is our turn, if the point is still
        free (a bullet player's typed move was thrown away with "Not your turn.")."""
        self._line_full = False  # the text line was at the chat's limit (said once)
        self.set_focus(self.board)  # now, so a question drawn next may take it over
        self._draw(self.model)
        self.host.give_typeahead()  # after the focus: they go where typing goes here
        # What arrives while the screen is still mounting is not drawn then (it is not
        # mounted yet): draw the model as it is once mounting is over.
        self.call_later(lambda: self.show_model(self.host.model))

    @property
    def model(self) -> ViewModel:
        return self.host.model

    @property
    def me(self) -> frozenset[str]:
        return self.host.local_players

    # -- drawing --------------------------------------------------------------

    def show_model(self, model: ViewModel) -> None:
        if self.is_mounted and self in self.app.screen_stack:  # not while closing
            self._draw(model)
            self.records.show(model)

    def _draw(self, model: ViewModel) -> None:
        game = model.room
        board = self.board
        if game is not None:
            if game.id != self._last_room:
                self._last_room = game.id
                self._dismissed.clear()
                board.picture = game.picture
                board.cursor = game.picture.last or Point(game.size // 2, game.size // 2)
                self.log_pane.follow()  # a new room's log starts at its newest line
                self._fit_layout()  # the board's size may be another
            board.picture = game.picture
            seated = self._my_seat_player() is not None
            board.can_play = self._can_play(model)
            board.my_turn = can_move(model, self.me) is None  # the footer offers Play
            self._play_premove(model)
            self._show_premove()
            sep = f" {self.host.options.glyphs.sep} "
            centre = format_point(Point(game.size // 2, game.size // 2), game.size)
            words: tuple[str, ...] = PLACEHOLDER_WATCHER
            if seated:
                words = tuple(word.format(point=centre) for word in PLACEHOLDER_PLAYER)
            if seated and game.state == "over":
                words = PLACEHOLDER_OVER
                opponent = game.opponent_of(self._my_seat_player())
                if opponent is not None and opponent.bot and not opponent.online:
                    again = self.host.options.glyphs.key_name("ctrl+n")
                    words = tuple(word.format(again=again) for word in PLACEHOLDER_AI_GONE)
            self.entry.placeholder = sep.join(words)
            self.moves.show(game.moves, game.size, len(game.moves))
        board.set_class(not model.session.link.online, "-disabled")
        self.log_pane.show(self._visible_log(model.log), self.host.options.glyphs)
        refresh_footer(self)
        self.tick()

    def tick(self) -> None:
        """Redraw what depends on the time (clocks, countdowns, a claim becoming
        possible), then sleep until the next time it changes: no timer runs while
        nothing on the screen depends on the time."""
        model = self.model
        glyphs = self.host.options.glyphs
        now = self.host.clock()
        if self._due is not None and now - self._due > LATE_TICK_S:
            self._ask_for_the_room()
        width = self.status_game.content_size.width  # 0 before the first layout
        first, second = status_lines(model, self.me, glyphs, now, width)
        players = Text(first)
        for start, end in low_clock_spans(first, model.room, now):
            players.stylize("reverse", start, end)
        self.status_players.update(players)
        self.status_game.update(Text(second))
        banner = link_banner(model.session.link, self.host.server_shown, now, glyphs)
        self._show_line(self.banner, banner)
        notice = notice_for(
            model, self.me, now, arrow=glyphs.arrow, ai_key=self._key_for("seat_ai")
        )
        self._show_line(self.notice, notice)
        self._show_prompt(prompt_for(model, self.me, now, self._dismissed))
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        delay = next_change(model, self.me, now)
        self._due = None if delay is None else now + delay
        if delay is not None:
            self._timer = self.set_timer(delay, self.tick)

    def _ask_for_the_room(self) -> None:
        """The room again, for the clocks as the server has them now: this client was
        stopped (the whole of ``gomoku play --local`` frozen, a laptop's sleep on a
        system whose clock counts it), and counted its clock down to 0:00.0 while the
        server, stopped too, gave that time back as an outage's."""
        game = self.model.room
        if game is None or not game.running or not self.model.session.link.online:
            return
        seated = self._my_seat_player() is not None
        join = msg.Join(room=game.id, role="player" if seated else "spectator")
        self.run_worker(self.host.send(join), group="resync")

    def _key_for(self, action: str) -> str:
        """The key of ``action`` as the footer names it (declared once, in BINDINGS)."""
        for binding in self.BINDINGS:
            if isinstance(binding, Binding) and binding.action == action:
                return self.app.get_key_display(binding)
        return action

    def _show_line(self, line: Static, text: str) -> None:
        line.update(Text(text))
        line.display = bool(text)

    def _show_prompt(self, prompt: Prompt | None) -> None:
        """Show the question; a new one takes focus unless a line is half typed."""
        bar = self.prompt_bar
        focused = self.focused
        glyphs = self.host.options.glyphs
        if bar.ask(prompt, glyphs.marker, glyphs.sep):
            if prompt is not None and self._moving(prompt):
                return  # shown; the keys stay with the move being made (Esc: to it)
            stray = self.entry.value
            if len(stray) == 1:  # one key pressed a moment too early, not yet a line
                self.entry.value = ""
                cleared = f'"{stray}" was cleared from the text line: the question takes the keys.'
                self.call_later(self.host.note, cleared)  # after this drawing
            typing = bool(self.entry.value)  # a line half typed keeps the focus
            if not typing and not isinstance(focused, MoveList):
                self.set_focus(bar)
        elif prompt is None and focused is bar:
            self.set_focus(self.board)
        elif prompt is not None and focused is bar and self._moving(prompt):
            # Offered on the opponent's turn, who then moved: our move comes first now
            # (playing it declines the offer). The offer kept the keys, and a bullet
            # player's typed move went nowhere while the clock ran.
            self.set_focus(self.board)

    def _moving(self, prompt: Prompt) -> bool:
        """An offer come while it is our move in a running game: it does not take the
        keys, so that a move being typed is played (which declines it). An opponent who
        offered again and again took every key typed, and the clock ran."""
        game = self.model.room
        if prompt.kind != "offer" or game is None or game.state != "playing":
            return False
        seated = [p for p in self.me if game.color_of(p) is not None]
        # Hot seat (both seats here): the offer is for the other person at this keyboard.
        return len(seated) == 1 and game.to_act() in self.me

    def on_resize(self) -> None:
        """Fit the layout to the new size (:meth:`_fit_layout`); the status line is
        fitted to the new width once it is laid out."""
        self._fit_layout()
        self.call_after_refresh(self.tick)

    def _fit_layout(self) -> None:
        """Narrow room for the log (a big board at 80 columns): the move list goes
        above the log instead of beside it. Too narrow for the log beside the whole
        board (40 columns): the log goes under the board, whose columns then scroll
        (the log was two columns wide, its refusals and chat unreadable)."""
        board = self.board
        whole = board.get_content_width(self.size, self.size) + 1  # and its margin
        narrow = self.size.width - whole < NARROW_SIDE
        body = self.query_one("#game-body")
        if body.has_class("-narrow") != narrow:
            body.set_class(narrow, "-narrow")
            self.call_after_refresh(self.log_pane.follow)  # its newest line, in its new place
        room = self.size.width - min(whole, self.size.width) - MOVES_WIDTH
        self.side.set_class(room < NARROW_LOG, "-stacked")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Which keys work now (the footer shows only those): the game's actions as
        the room's state and the player's seat allow, whether or not a line is
        being typed."""
        typing = isinstance(self.focused, Input)
        if action in GAME_ACTIONS - {"leave"} and not self.model.session.link.online:
            return False  # the server is needed for all of them
        if action in ("question", "board"):
            bar = self.prompt_bar
            waiting = bar.prompt is not None and self.focused is not bar
            return (
                waiting if action == "question" else self.focused is not self.board and not waiting
            )
        if action == "stop_trying":
            return self.focused is self.board and not self.model.session.link.online
        if action == "help":
            return typing == (parameters == ("f1",))
        game = self.model.room
        if game is None:
            return action == "help"
        seated = self._my_seat_player() is not None
        running = game.running
        if action == "seat_ai":
            return can_seat_ai(self.model, self.me) is None
        if action == "hint":
            return running and can_hint(self.model) is None and seated == (parameters == ())
        if action == "resign":
            return running and seated
        if action == "review":  # a private game's record is its players' only; a game
            # with no stone (aborted) has nothing to go over, as on the page
            over = game.state == "over" and bool(game.moves)
            return over and (seated or not game.private)
        if action == "rematch":  # not with nobody there to answer, but an AI comes again
            opponent = game.opponent_of(self._my_seat_player())
            here = opponent is not None and (opponent.online or opponent.bot)
            return game.state == "over" and here and game.rematch_room is None
        if action == "offer":
            # No draw or takeback in swap2's opening, nor while an offer waits for its
            # answer (the server takes one offer at a time, of either player); no
            # takeback without a stone of one's own to take back.
            if parameters and parameters[0] == "takeback":
                return game.pending is None and game.can_take_back(self._offering("takeback"))
            return game.state == "playing" and seated and game.pending is None
        return True

    # -- keys handed on ----------------------------------------------------------

    def key_arriving(self, event: events.Key) -> bool:
        """Called by the app for each key as it arrives, before the key is given to the
        widget with focus; :meth:`key_given` after. Every widget has a queue of its own,
        and a focus moved by a widget's handler moves only once the keys queued before
        it are handled, while the keys typed meanwhile have already been given out: the
        redraws of a busy room's log made lines lose keys, merge, or be sent twice, and
        an Enter meant for a line reach the board and play its cursor. So the focus
        follows the keys here, as they arrive: a key that starts text while the board,
        the move list or the log has focus gives the focus to the text line, and it and
        every key after it go into the text line's one queue, in the order typed, until
        its Enter. True when the key is used up here: ``/`` with a line half typed only
        brings the focus back to the line, as it is."""
        if not isinstance(self.focused, (Board, MoveList, LogPane)) or not starts_text(event):
            return False
        self.set_focus(self.entry)
        return event.character == COMMAND_START and bool(self.entry.value)

    def key_given(self, event: events.Key) -> None:
        """After a key went to its widget: Enter given to the text line gives the focus
        back at once (to a question waiting for its answer, else the board), so that
        the keys after it are given out from there."""
        if event.key != "enter" or self.focused is not self.entry:
            return
        waiting = self.prompt_bar.prompt
        # The question waiting, unless it leaves the keys to our move (Esc: to it).
        if waiting is not None and not self._moving(waiting):
            self.set_focus(self.prompt_bar)
        else:
            self.set_focus(self.board)

    @on(ToBoard)
    def to_board(self, event: ToBoard) -> None:
        board = self.board
        self.set_focus(board)
        board.action_cursor(*ARROW_STEPS[event.key])

    @on(PromptBar.Answered)
    async def answered(self, event: PromptBar.Answered) -> None:
        prompt, key = event.prompt, event.key
        self.set_focus(self.board)
        if prompt.kind == "offer":
            await self.action_answer(key == "y")
        elif prompt.kind == "swap2":
            choice: SwapChoice = "black" if key == "b" else "white" if key == "w" else "place2"
            await self.action_choose(choice)
        elif key == "y":
            await self.action_claim()
        else:
            self._dismissed.add(prompt.ident)
            self.tick()

    @on(PromptBar.Ignored)
    def ignored(self, event: PromptBar.Ignored) -> None:
        """A letter that answers nothing, typed at a question: say which keys do."""
        keys = " / ".join(key for key, _ in event.prompt.answers)
        self.host.note(f"The question takes the keys: {keys} to answer, Tab for the text line.")

    # -- moving ----------------------------------------------------------------

    @on(Board.PointChosen)
    async def point_chosen(self, event: Board.PointChosen) -> None:
        await self.play(event.point)

    async def play(self, point: Point) -> None:
        """Send a move at ``point``, or say why it cannot be played now."""
        model = self.model
        game = model.room
        why = can_move(model, self.me)
        # Under a clock, a move typed while the opponent thinks waits for its turn (a
        # premove); without one, typing ahead is more likely a slip, and is refused.
        timed = game is not None and game.time is not None
        if game is not None and timed and why == NOT_YOUR_TURN and game.state == "playing":
            if point in game.picture.stones:
                self.host.note(f"{point_to_wire(point, game.size)} is already taken.", refusal=True)
                return
            self.premove = (game.id, len(game.moves), point)
            self._show_premove()
            other = game.opponent_of(self._my_seat_player())
            who = "your opponent" if other is None else other.name
            self.host.note(
                f"{point_to_wire(point, game.size)} is played as soon as {who} has moved "
                "(another point chosen replaces it)."
            )
            return
        if game is None or why is not None:
            self.host.note(why or "You are not in a game.", refusal=True)
            return
        if game.sending is not None:
            on_its_way = point_to_wire(game.sending.point, game.size)
            typed = point_to_wire(point, game.size)
            self.host.note(
                f"{typed} not played: your move {on_its_way} is still on its way.", refusal=True
            )
            return
        if point in game.picture.stones:
            self.host.note(f"{point_to_wire(point, game.size)} is already taken.", refusal=True)
            return
        if point in game.picture.forbidden:
            foul = renju_foul(game.moves, game.size, point) or "renju"
            self.host.note(foul_text(point_to_wire(point, game.size), foul), refusal=True)
            return
        actor = game.to_act()
        move_no = len(game.moves) + 1  # for this position only
        wire = point_to_wire(point, game.size)
        await self.host.send_move(actor, msg.Move(room=game.id, point=wire, move_no=move_no), point)

    def _show_premove(self) -> None:
        """Mark the move typed ahead on the board (it was said once, in a note, and then
        not seen)."""
        game, premove = self.model.room, self.premove
        shown = premove is not None and game is not None and premove[0] == game.id
        self.board.kept = premove[2] if shown and premove is not None else None

    def _play_premove(self, model: ViewModel) -> None:
        """The move typed ahead, once it is our turn in the position after the one it
        was typed in; dropped, with a word, when the game went otherwise (it ended, a
        takeback, the point taken by the opponent's stone)."""
        game, premove = model.room, self.premove
        if premove is None or game is None:
            return
        room, stones, point = premove
        if game.id != room or game.state != "playing" or len(game.moves) < stones:
            self.premove = None  # another room, the game's end, a takeback
            return
        if len(game.moves) == stones:
            return  # the opponent still thinks
        self.premove = None
        if len(game.moves) != stones + 1 or can_move(model, self.me) is not None:
            return
        if point in game.picture.stones:
            taken = point_to_wire(point, game.size)
            # Said after this drawing: said now, the draw in progress put the log back as
            # it was, and the word waited for the next line in the room.
            said = f"{taken} was not played: the opponent's stone took it."
            self.call_later(self.host.note, said, refusal=True)
            return
        self.call_later(self.play, point)

    # -- the text line -----------------------------------------------------------

    @on(Input.Changed, "#command")
    def line_typed(self, event: Input.Changed) -> None:
        """A line grown to the chat's limit takes no more keys (the field stops them):
        said once, where keys seemed to go nowhere."""
        full = len(event.value) >= CHAT_MAX
        if full and not self._line_full:
            self.host.note(f"A chat line holds {CHAT_MAX} characters at most: this one is full.")
        self._line_full = full

    @on(Input.Submitted, "#command")
    async def command_entered(self, event: Input.Submitted) -> None:
        """A line is done: run it. (The keys went back to the board, or a question, as
        its Enter arrived: :meth:`key_given`; the next letter starts a new line.)"""
        text = event.value.strip()  # the line is already empty (EntryLine.action_submit)
        if text:
            await self.run_command(text)

    async def run_command(self, text: str) -> None:
        """A point is played (exactly that point, or refused with the reason), a
        /command run, anything else said in the chat. A spectator plays no point: what
        they type is chat, a point named included ("k8" to show it)."""
        game = self.model.room
        if text.startswith("/"):
            await self._slash(text[1:].strip().lower())
            return
        if game is None:
            return
        watching = all(game.color_of(p) is None for p in self.me)
        try:
            point = None if watching else typed_point(text, game.size)
        except (NotOnBoard, ReversedPoint) as refused:
            self.host.note(str(refused), refusal=True)
            return
        if point is not None:
            self.board.cursor = point
            await self.play(point)
            return
        text = text[:CHAT_MAX]
        problem = chat_problem(text)  # pasted text may hold what a chat line may not
        if problem is not None:
            self.host.note(f"Not sent: {problem}.", refusal=True)
            return
        await self.host.send_chat(self._speaker(), game.id, text)

    def give_back_line(self, text: str) -> None:
        """A chat line refused by the chat limit, back in the text line to be sent again,
        unless another line is being typed there."""
        if not self.entry.value:
            self.entry.value = text
            self.entry.cursor_position = len(text)

    def _speaker(self) -> str | None:
        game = self.model.room
        if game is None:
            return None
        return game.to_act() or self.model.me

    async def _slash(self, command: str) -> None:
        actions = {
            "resign": self.action_resign,
            "draw": lambda: self.action_offer("draw"),
            "takeback": lambda: self.action_offer("takeback"),
            "undo": lambda: self.action_offer("takeback"),
            "rematch": self.action_rematch,
            "review": self.action_review,
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
        if word in ("mute", "unmute"):
            self.mute(rest, mute=word == "mute")
            return
        action = actions.get(command)
        if action is None:
            self.host.note(f"Unknown command /{command}; /help lists them.")
            return
        await action()

    def _visible_log(self, log: tuple[LogLine, ...]) -> tuple[LogLine, ...]:
        """The log without the muted players' lines; the same tuple while neither it
        nor the muted players changed, so the pane is not drawn again for nothing."""
        muted = tuple(self.host.muted)
        last = self._shown_log
        if last is None or last[0] is not log or last[1] != muted:
            last = self._shown_log = (log, muted, visible(log, self.host.muted))
        return last[2]

    def mute(self, name: str, *, mute: bool) -> None:
        """``/mute name``: hide the chat of whoever goes by ``name`` here; ``/unmute
        name``: show it again; either with no name: say who is muted and who may be."""
        muted = self.host.muted
        here = speakers(self.model.log, self.model.room, self.me)
        if not name.strip():
            others = listed({p: n for p, n in here.items() if p not in muted}) or "nobody"
            text = f"Muted: {listed(muted)}." if muted else "Nobody is muted."
            self.host.note(f"{text} Players here to /mute by name: {others}.")
        elif mute:
            found = named(name, here)
            if not found:
                self.host.note(f"Nobody here goes by {name.strip()}: /mute lists who does.")
                return
            muted.update(found)
            who = listed(found)
            many = f" ({len(found)} players go by that name)" if len(found) > 1 else ""
            self.host.note(
                f"Muted {who}{many}: their chat is hidden here until you /unmute them. "
                "They are not told."
            )
        else:
            found = named(name, muted)
            if not found:
                self.host.note(f"{name.strip()} is not muted: /mute lists who is.")
                return
            for player in found:
                del muted[player]
            self.host.note(f"Unmuted {listed(found)}: their chat shows again.")

    # -- actions -----------------------------------------------------------------

    def action_command(self) -> None:
        """``/`` that no widget handed on (nothing had focus): start a command line."""
        self.set_focus(self.entry)
        self.entry.start_command()

    def action_question(self) -> None:
        """Esc while a question waits elsewhere: to it."""
        self.set_focus(self.prompt_bar)

    def action_board(self) -> None:
        """Esc with no question waiting elsewhere: back to the board. (Focus moves at
        once, not after the keys already queued: Esc then ^R typed together resigns
        from the board.)"""
        self.set_focus(self.board)

    def action_stop_trying(self) -> None:
        self.host.stop_trying()

    async def action_help(self, via: str = "") -> None:
        glyphs = self.host.options.glyphs
        sections = [
            ("Typing (anywhere on this screen)", list(COMMANDS.items())),
            ("Board", describe_bindings(Board.BINDINGS, glyphs)),
            ("Game (also while typing)", describe_bindings(self.BINDINGS, glyphs)),
            (
                "Questions (the prompt bar)",
                [
                    ("y / n", "accept / decline an offer; claim the win / not now"),
                    ("b / w / p", "swap2: take black / take white / place two more"),
                    ("Esc", "answers nothing: the question waits for its keys"),
                    ("", "capitals answer too; Enter and other letters wait for the answer"),
                    ("Tab", "on to the text line (to chat while the question waits)"),
                ],
            ),
            (
                "Mouse and focus",
                [
                    ("click", "select a point; click it again to play (--one-click: at once)"),
                    ("drag, ^C", "copy the text dragged over (^C with none: quit)"),
                    ("Tab", "board, move list, log, question, text line in turn"),
                    ("", "a board taller than the screen scrolls with the cursor"),
                ],
            ),
            ("Anywhere", [("^Q", "quit (in a running game it asks first; ^Q again quits)")]),
            (
                "Marks on the board",
                [
                    (f"{glyphs.black} {glyphs.white}", "Black's and White's stones"),
                    (f"({glyphs.black})", "the last move"),
                    (f"[{glyphs.empty}]", "the cursor"),
                    (glyphs.forbidden, "renju: forbidden for Black (a foul: Enter says which)"),
                    (glyphs.hint, "the AI's hint"),
                    (f"{glyphs.up} {glyphs.down}", "rows out of view above / below"),
                    (f"{glyphs.left} {glyphs.right}", "columns out of view left / right"),
                ],
            ),
        ]
        await self.app.push_screen(
            HelpScreen("Game keys", sections, [("How to play", HOW_TO_PLAY)])
        )

    def _can_play(self, model: ViewModel) -> bool:
        """Whether Enter on the board plays: a game running, a local player seated in
        it, and the server there."""
        game = model.room
        running = game is not None and game.running
        return running and self._my_seat_player() is not None and model.session.link.online

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
            self.host.note("Nothing to resign.")
            return
        room = game.id

        async def decided(yes: bool | None) -> None:
            if yes:
                await self.host.send_as(player, msg.Resign(room=room))

        question = "Resign this game?"
        if game.rated and len(game.moves) < RATED_MIN_STONES:  # as lichess's "abort"
            question = "Resign this game? Before its second stone, it is not rated."
        if len(self.me) > 1:  # hot seat: the player to move resigns, whose name it says
            color = game.color_of(player)
            question = f"Resign for {game.seat_name(color) if color else 'the player to move'}?"
        await self.app.push_screen(ConfirmDialog(question), decided)

    def _offering(self, kind: OfferKind) -> str | None:
        """The local player who makes an offer of ``kind``: one's own seat; in hot seat a
        takeback is asked by the player who moved last, and the one to move answers it,
        so a misplaced stone goes alone (asked by the one to move, it went with the
        stone before it)."""
        player = self._my_seat_player()
        game = self.model.room
        if game is None or kind != "takeback":
            return player
        other = game.opponent_of(player)
        if other is not None and other.id in self.me and game.can_take_back(other.id):
            return other.id
        return player

    async def action_offer(self, kind: OfferKind) -> None:
        game = self.model.room
        player = self._offering(kind)
        if game is None or player is None:
            self.host.note("Only the players can do that.")
            return
        if kind == "rematch" and game.state != "over":
            self.host.note("A rematch can be offered once the game is over.")
            return
        if kind != "rematch" and game.state not in ("playing", "opening"):
            self.host.note("The game is not running.")
            return
        await self.host.send_as(player, msg.Offer(room=game.id, kind=kind))

    async def action_review(self) -> None:
        """The finished game in the review screen (its record, as the profile opens it)."""
        game = self.model.room
        if game is None:
            return
        if game.state != "over":  # (typed as /review it said nothing at all)
            again = self.host.options.glyphs.key_name("ctrl+p")
            self.host.note(f"The review opens once the game is over ({again} then).")
            return
        if not game.moves:
            self.host.note("This game has no stone to go over.")
            return
        self.host.note("Opening the game's record...")
        await self.records.open(game.id)

    async def action_rematch(self) -> None:
        """A rematch: offered to the opponent, or, with an AI that has left (it waits a
        little for one, then goes), played at once in a new room with the colours
        swapped and an AI of the same level, as the web page's "Play the AI again"."""
        game = self.model.room
        player = self._my_seat_player()
        opponent = game.opponent_of(player) if game is not None else None
        gone_ai = opponent is not None and opponent.bot and not opponent.online
        if game is None or game.state != "over" or opponent is None or not gone_ai:
            await self.action_offer("rematch")
            return
        color = game.color_of(player)
        create = msg.CreateRoom(
            rule=game.rule,
            size=game.size,
            opening=game.opening,
            time=game.time,
            private=game.private,
            seat="white" if color is Color.BLACK else "black",
        )
        await self.host.leave_room()
        await self.host.play_ai(create, ai_level(opponent.name))

    async def action_answer(self, accept: bool) -> None:
        game = self.model.room
        if game is None or game.pending is None:
            self.host.note("There is no offer to answer.")
            return
        answerer = next(
            (p for p in self.me if game.color_of(p) is not None and p != game.pending.by), None
        )
        if answerer is None:
            self.host.note("The offer is not yours to answer.")
            return
        await self.host.send_as(
            answerer, msg.Answer(room=game.id, kind=game.pending.kind, accept=accept)
        )

    async def action_hint(self, watching: str = "") -> None:
        """Ask an AI for the side to move's best move (unrated games only; spectators
        may ask too, and are told it is a spectator's hint)."""
        game = self.model.room
        why = can_hint(self.model)
        if game is None or why is not None:
            self.host.note(why or "You are not in a game.")
            return
        spectator = self._my_seat_player() is None
        self.host.note(f"Asking an AI for a hint{' (as a spectator)' if spectator else ''}...")
        await self.host.send(msg.Hint(room=game.id))

    async def action_seat_ai(self) -> None:
        """Choose a level, then seat an AI of it in the empty seat."""
        game = self.model.room
        why = can_seat_ai(self.model, self.me)
        if game is None or why is not None:
            self.host.note(why or "You are not in a game.")
            return

        async def chosen(message: msg.ClientMessage | None) -> None:
            if isinstance(message, msg.SeatAi):
                await self.host.seat_ai(message.room, message.level)

        await self.app.push_screen(SeatAiDialog(game.id), chosen)

    async def seat_ai(self, level: str | None) -> None:
        """``/ai [level]``: seat an AI without the dialog."""
        game = self.model.room
        why = can_seat_ai(self.model, self.me)
        if game is None or why is not None:
            self.host.note(why or "You are not in a game.")
            return
        await self.host.seat_ai(game.id, level)

    async def action_claim(self) -> None:
        game = self.model.room
        player = self._my_seat_player()
        if game is None or player is None:
            self.host.note("Only the players can claim.")
            return
        await self.host.send_as(player, msg.Claim(room=game.id))

    async def action_choose(self, choice: SwapChoice) -> None:
        game = self.model.room
        if game is None or game.swap2 is None or game.swap2.phase != "choose":
            self.host.note("There is no swap2 choice to make now.")
            return
        await self.host.send_as(game.swap2.to_act, msg.Choose(room=game.id, choice=choice))

    async def action_leave(self) -> None:
        game = self.model.room
        if game is None:
            return
        running = game.running and self._my_seat_player() is not None

        async def decided(yes: bool | None) -> None:
            if yes:
                await self.host.leave_room()

        if running:
            model = self.host.model
            opponent = game.opponent_of(self._my_seat_player())
            leaving = leaving_words(
                opponent,
                model.session.grace_ms,
                self.host.clock(),
                move_limit_ms=model.session.move_limit_ms,
            )
            question = (
                f"Leave the running game? It counts as a disconnect: {leaving}. (^R resigns "
                "instead.)"
            )
            await self.app.push_screen(ConfirmDialog(question), decided)
        else:
            await self.host.leave_room()
