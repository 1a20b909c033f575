"""The Textual application: owns the view model and the connection(s), and
routes between the screens.

Every change of state goes through :meth:`GomokuApp.dispatch`, which runs the
pure reducer and then hands the new model to each screen on the stack that
draws one. Screens never mutate the model; they send protocol messages with
:meth:`GomokuApp.send` (or its hot-seat variant) and wait for the server's
events, which is the only authority. The app hands itself to each screen it
makes as the screen's :class:`~client.screens.host.Host`, the few members a
screen may use.
"""

from __future__ import annotations

import dataclasses
import shlex
import time
from collections.abc import Callable
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

import msgspec
from textual import events
from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen, Screen
from textual.widget import Widget

from client.address import ServerAddress
from client.clipboard import copy_selection
from client.config import Identity, load_identity, save_identity
from client.connection import RECONNECT, Connection
from client.local import LocalServer, LocalServerError, start_local_server
from client.options import PlayOptions
from client.screens.connect import ConnectScreen
from client.screens.dialogs import CodeDialog, ConfirmDialog, NoticeDialog
from client.screens.game import GameScreen
from client.screens.lobby import LobbyScreen
from client.screens.style import APP_CSS, dress, plain_scrollbars
from client.state.game import GameView
from client.state.history import HistoryAction, HistoryFailed
from client.state.lobby import NOT_SENT, AiChoice, LobbyAsked, LobbyTold, LobbyUnsent
from client.state.log import Note
from client.state.model import Action, ViewModel, ended_out_of_sight, reduce
from client.state.room import MoveSent, ResumeDone, RoomClosed, RoomGone, RoomSeen
from client.state.session import IdentityLost
from client.state.words import (
    IDENTITY_LOST,
    describe_error,
    finished_room_gone_text,
    leaving_words,
    room_closed_text,
    room_gone_text,
    server_words,
)
from client.stopping import exit_on_stop_signals
from client.typeahead import TypeAhead
from engine.types import Point
from protocol import messages as msg
from protocol.backoff import Backoff
from protocol.errors import ErrorCode
from protocol.text import name_problem

KeptRequest = TypeVar("KeptRequest", msg.CreateRoom, msg.Queue)


def _to_keep(request: KeptRequest) -> dict[str, Any]:
    """A request's settings as the identity file keeps them (without its id)."""
    kept: dict[str, Any] = msgspec.to_builtins(msgspec.structs.replace(request, id=None))
    return kept


def _read_kept(kept: dict[str, Any] | None, kind: type[KeptRequest]) -> KeptRequest | None:
    """Settings kept by :func:`_to_keep`, or None if none or they no longer read (written
    by another version, or by hand)."""
    if kept is None:
        return None
    try:
        return msgspec.convert(kept, kind)
    except msgspec.ValidationError:
        return None


ENDED_AWAY_GAMES = 5
"""The latest games asked for when one ended out of sight, to say how (it is archived
before the lobby hears it ended; a few more cover others ending meanwhile)."""

BACK_IN_LOBBY = "You are back in the lobby."
"""Said after why the room on screen went away (the lobby took its place)."""

# Refusals worth a pop-up as well as a line in the log: they answer a request for an AI
# or a new room, made from a dialog the player has just closed.
NOTIFIED_ERRORS = frozenset(
    {
        ErrorCode.NO_AI_AVAILABLE,
        ErrorCode.AI_NOT_ALLOWED,
        ErrorCode.HINT_NOT_ALLOWED,
        ErrorCode.TOO_MANY_ROOMS,
    }
)


@dataclasses.dataclass(frozen=True, slots=True)
class AiRequest:
    """An AI of ``level`` (None: the server's default) wanted in the next room we create."""

    level: str | None


@runtime_checkable
class ModelView(Protocol):
    """A screen that draws the view model."""

    def show_model(self, model: ViewModel) -> None: ...


class GomokuApp(App[None]):
    """``gomoku play``: connect, lobby, game, help."""

    TITLE = "Gomoku Arena"
    CSS = APP_CSS
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
        # Ctrl+C quits as ^Q does (asking first in a running game), where Textual only
        # said "Press ctrl+q to quit the app"; with text selected by the mouse (an
        # invite code) it copies it, as anywhere else (it quit, the code gone with it).
        Binding("ctrl+c", "copy_or_quit", "Quit", show=False, priority=True),
        # Back to the shell, as in any terminal program (``fg`` returns), from any screen
        # or dialog (priority: a dialog held it back): it did nothing.
        # The game goes on meanwhile, as when the player walks away.
        Binding("ctrl+z", "suspend_process", "Suspend", show=False, priority=True),
    ]

    def __init__(
        self,
        options: PlayOptions | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        backoff: Backoff | None = None,
        autostart: bool = True,
    ) -> None:
        super().__init__()
        self.options = options = options or PlayOptions()
        self.clock = clock
        self.backoff = backoff or RECONNECT
        self.autostart = autostart  # False: no connection, screens driven by dispatch (tests)
        self.model = ViewModel()
        self.connection: Connection | None = None
        self.partner: Connection | None = None  # the second player in hot seat
        self.chat_sent: tuple[int, str] | None = None  # the last chat line: its id, its text
        self.muted: dict[str, str] = {}  # players whose chat is hidden here (/mute)
        self.identity: Identity = (
            load_identity(options.config_dir, options.profile) if options.remember else Identity()
        )
        self.unsaved = False  # the identity file could not be written (said once)
        last_ai = AiChoice.from_json(self.identity.last_ai) if self.identity.last_ai else None
        if last_ai is not None:
            self.dispatch(last_ai)  # the dialog offers it again, after a restart too
        self.local_server: LocalServer | None = None  # --local: the server this client started
        self._asking_quit = False
        """The quit question is on screen (^Q there quits without asking again)."""
        self.ai_after_create: AiRequest | None = None  # seat an AI in the room being created
        self.ai_seat_asked: tuple[int, str] | None = None  # (request id, room) of that seat_ai
        self.searching: msg.Queue | None = None
        """The quick match last asked for, asked again on a new connection (see
        :meth:`_keep_searching`)."""
        self.requeue: int | None = None
        """The id of the quick match asked again after a reconnection, until answered."""
        self.hot_seat_wanted = False  # the partner joins the room being created
        self.launch_rooms: set[str] | None = None
        """The rooms of this launch's first welcome not caught up yet (None before it)."""
        self.link = options.link  # the room SERVER linked to: entered once, at launch
        self.game_coming = False  # the game screen waits for dialogs still mounting
        self.typeahead: TypeAhead | None = None
        """Keys typed since the lobby asked for a room, kept for its screen (None: no
        such request is waiting)."""

    # -- starting ---------------------------------------------------------------

    @property
    def default_name(self) -> str | None:
        return self.options.name or self.identity.name

    @property
    def server_shown(self) -> str:
        conn = self.connection
        return conn.address if conn is not None else self.options.address

    def can_stop_trying(self) -> bool:
        return self.connection is not None and not self.model.session.link.online

    async def on_event(self, event: events.Event) -> None:
        """Keys arriving pass by the game screen before and after they are given out
        (:meth:`GameScreen.key_arriving`, :meth:`GameScreen.key_given`): the focus
        follows the keys there, in the order they arrive."""
        if isinstance(event, events.Key) and not event.is_forwarded:
            screen = self.screen
            if isinstance(screen, GameScreen):
                if screen.key_arriving(event):
                    return
                await super().on_event(event)
                screen.key_given(event)
                return
            if self._kept_for_the_room(event):
                return
        await super().on_event(event)

    def _kept_for_the_room(self, event: events.Key) -> bool:
        """Whether ``event`` is kept for the room the lobby asked for (see
        :mod:`client.typeahead`); a refusal ends the wait, and what was kept is dropped."""
        ahead = self.typeahead
        if ahead is None:
            return False
        if self.model.room is None and self.model.lobby.asked is None:
            self.typeahead = None  # refused, or not sent: the lobby says why
            return False
        return ahead.keep(event, self.clock())

    def give_typeahead(self) -> None:
        """The game screen shows: the keys typed while it came go to it, in order."""
        ahead, self.typeahead = self.typeahead, None
        for key in ahead.replayed() if ahead is not None else ():
            self.post_message(key)

    async def on_mount(self) -> None:
        exit_on_stop_signals(self, before=self._shut_down)
        # Back from Ctrl+Z (fg): the terminal's screen was the shell's meanwhile, so all of
        # it is drawn again (a dialog came back as its footer alone, under load).
        self.app_resume_signal.subscribe(self, self._draw_all_again)
        dress(self, ascii_only=self.options.glyphs.name == "ascii")
        if not self.autostart:
            return
        name = self.default_name
        if name is not None and name_problem(name) is not None:
            # Kept from before a rule of names changed (brackets, say): asked again, with
            # why (a Hello with it raised, and the client ended in a traceback).
            self.push_screen(ConnectScreen(self, name=name))
            return
        if self.options.local:
            try:
                self.local_server = await start_local_server()
            except LocalServerError as exc:
                self.exit(return_code=1, message=f"gomoku play --local: no local server: {exc}")
                return
            local = ServerAddress("127.0.0.1", self.local_server.port)
            self.start(local, name or "Player 1")
        elif name and (self.options.name or self.identity.token_for(self.options.server.key)):
            # Named on the command line, or back on a server this identity has played on
            # (its token kept): straight in, and back to a game left running.
            self.start(self.options.server, name)
        elif (there := self.identity.name_on(self.options.server.key)) is not None:
            self.start(self.options.server, there)  # as the name played there, not the last
        else:
            self.push_screen(ConnectScreen(self))

    def _draw_all_again(self, _: object) -> None:
        self.screen.refresh(repaint=True, layout=True)
        self.refresh(repaint=True, layout=True)

    def start(self, address: ServerAddress, name: str) -> None:
        """Connect to ``address`` as ``name`` and show the lobby."""
        key = address.key
        last = self.identity.name
        known = self.identity.token_for(key) is not None  # on this server, as ``last``
        token = self.identity.token_as(name, key)
        if last and last != name and known and token is None and name_problem(last) is not None:
            # The last name is no longer a name (a rule changed): the new one renames that
            # player, games and rating kept, as the page's does, rather than start anew.
            token = self.identity.token_for(key)
        elif last and last != name and known and token is None:
            self.notify(  # said: another name is no rename
                f"{name} is a new player here; {last} is kept on this computer: "
                f"gomoku play --name {shlex.quote(last)} plays as them again.",
                timeout=12,
                markup=False,
            )
        self.connection = Connection(
            address,
            name,
            token=token,
            dispatch=self.dispatch,
            on_welcome=lambda n, t: self._remember(key, n, t),
            backoff=self.backoff,
            clock=self.clock,
        )
        self.run_worker(self.connection.run(), name="connection", group="net")
        self.switch_or_push(LobbyScreen(self))

    def stop_trying(self) -> None:
        """The player gave up on this server while the link was down: stop the
        connection and go back to the connect screen, which says why and offers the
        address again (Enter tries once more)."""
        conn = self.connection
        if conn is None or self.model.session.link.online:
            return
        conn.stop()
        why = self.model.session.link.detail or "not connected"
        self.connection = None
        while len(self.screen_stack) > 1:
            self.pop_screen()
        lobby = dataclasses.replace(self.model.lobby, queue=None, asked=None)
        self.model = dataclasses.replace(self.model, room=None, lobby=lobby)
        self.push_screen(ConnectScreen(self, address=conn.server, name=conn.name, error=why))

    def get_key_display(self, binding: Binding) -> str:
        """Keys as the glyph set names them: ``^D``, ``⏎`` (``Enter`` in ascii)."""
        return self.options.glyphs.key_name(binding.key)

    def switch_or_push(self, screen: Screen[None]) -> None:
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def _remember(self, address: str, name: str, token: str) -> None:
        """Keep the welcome's name and token for the next start, except a --local
        server's: it keeps nothing and stops with the client, so its token would be dead
        (the file gained one per run) and its default name not one the player chose."""
        if self.local_server is not None:
            return
        self._save(self.identity.with_token(address, name, token))

    def _save(self, identity: Identity) -> None:
        self.identity = identity
        if not self.options.remember:
            return
        try:
            save_identity(self.identity, self.options.config_dir, self.options.profile)
        except OSError as exc:
            if self.unsaved:
                return
            self.unsaved = True  # said once: the game goes on, unremembered
            where = exc.filename or "the config directory"
            text = (  # what it means first: a long path may not fit the lobby's line
                "This player is not remembered after you quit: your identity could not "
                f"be saved ({exc.strerror}: {where})."
            )
            self.tell_lobby(text)
            self.note(text, refusal=True)

    # -- state ------------------------------------------------------------------

    def dispatch(self, action: Action) -> None:
        """Apply ``action`` to the model, then move between screens and redraw."""
        before = self.model
        self.model = reduce(before, action, self.clock())
        if not self.is_running:
            return  # shutting down: the screens are gone, messages may still arrive
        if isinstance(action, msg.Error):
            self.ai_after_create = None  # whatever it refused, do not seat an AI later
            asked = self.ai_seat_asked
            if asked is not None and action.re == asked[0]:
                self.ai_seat_asked = None
                if action.code == ErrorCode.NO_AI_AVAILABLE:
                    self.run_worker(self._give_up_ai_room(asked[1], action), group="send")
            self.hot_seat_wanted = False
            if action.code in NOTIFIED_ERRORS:
                self.notify(describe_error(action), severity="error", timeout=6, markup=False)
            sent = self.chat_sent
            if action.code == ErrorCode.CHAT_RATE_LIMITED and sent and action.re == sent[0]:
                for screen in self.screen_stack:
                    if isinstance(screen, GameScreen):
                        screen.give_back_line(sent[1])
        self._navigate(before, self.model)
        self._return_to_game(action)
        self._keep_searching(before, action)
        shown = before.room.id if before.room is not None else None
        for room in ended_out_of_sight(before.seated_rooms, self.model.seated_rooms, action, shown):
            self.run_worker(self._leave_quietly(room), group="send")
            # How it ended, for the lobby's line: the player's latest games (the line
            # said only that it had ended, and to look in the profile).
            self.run_worker(self.send(msg.ListGames(limit=ENDED_AWAY_GAMES)), group="send")
        for screen in self.screen_stack:
            if isinstance(screen, ModelView):
                screen.show_model(self.model)
        self._tell(before, action)

    def _keep_searching(self, before: ViewModel, action: Action) -> None:
        """A quick match goes on over a new connection: the server forgets the queue
        with the connection it was asked on (a dropped network, a server restart), and
        the player, still shown "Looking for an opponent", was never paired. Unless a
        match came just before the drop (the welcome lists a game we did not know): then
        the search is over, and the game is in the lobby's list of ours."""
        if isinstance(action, msg.Error) and action.re is not None and action.re == self.requeue:
            self.requeue = None  # refused (the store is down, say): the search is over
            self.dispatch(msg.Unqueued())
            why = server_words(action.message)
            self.note(f"The quick match could not go on ({why}): m searches again.")
            return
        if isinstance(action, msg.Queued | msg.Unqueued):
            self.requeue = None
        if not isinstance(action, msg.Welcome) or before.lobby.queue is None:
            return
        # The connection resumes the rooms it has seen after this welcome is dispatched.
        seen = self.connection.seen_rooms() if self.connection is not None else frozenset()
        if self.searching is None or set(action.rooms) - seen:
            self.dispatch(msg.Unqueued())
            return
        self.run_worker(self._search_again(self.searching), group="send")

    async def _search_again(self, message: msg.Queue) -> None:
        request = self.connection.next_id() if self.connection is not None else 0
        self.requeue = request
        await self.send(msgspec.structs.replace(message, id=request))

    def _tell(self, before: ViewModel, action: Action) -> None:
        """A dialog for what the player must not miss: the server forgot them, or the
        game on screen is gone."""
        if isinstance(action, IdentityLost):
            self.push_screen(NoticeDialog("The server forgot you", IDENTITY_LOST))
        elif (
            isinstance(action, RoomGone)
            and before.room is not None
            and before.room.id == action.room
        ):
            if action.expired:  # its time on the server was up
                text = room_closed_text(action.room, before.room.state)
                self.push_screen(NoticeDialog("The room has closed", text + " " + BACK_IN_LOBBY))
                return
            if before.room.state == "over":  # its record is kept: nothing of it is lost
                text = finished_room_gone_text(action.room) + " " + BACK_IN_LOBBY
                self.push_screen(NoticeDialog("The room has closed", text))
                return
            text = room_gone_text(action.room) + " " + BACK_IN_LOBBY
            self.push_screen(NoticeDialog("The game is gone", text))

    def tell_lobby(self, text: str) -> None:
        self.dispatch(LobbyTold(text))

    def note(self, text: str, *, refusal: bool = False) -> None:
        self.dispatch(Note(text, "error" if refusal else "system"))

    def _navigate(self, before: ViewModel, after: ViewModel) -> None:
        on_game = any(isinstance(s, GameScreen) for s in self.screen_stack)
        new_room = after.room is not None and (
            before.room is None or before.room.id != after.room.id
        )
        if new_room and after.room is not None and after.room.state == "waiting":
            if self.partner is not None and self.hot_seat_wanted:
                self.hot_seat_wanted = False
                self.run_worker(self.seat_partner(), group="send")
            wanted = self.ai_after_create
            if wanted is not None and after.room.color_of(after.me) is not None:
                self.ai_after_create = None
                room = after.room.id
                self.run_worker(self._seat_ai_asked(room, wanted.level), group="send")
        if new_room and after.room is not None and after.room.state != "waiting":
            self._partner_back(after.room)
        if new_room and before.room is not None and before.room.state == "over":
            # A finished game gave way to another (its rematch, a new game): left, as
            # on quitting. Kept, every one of an evening's games stayed followed (its
            # events, its memory) and the last was announced as ended at the next launch.
            self.run_worker(self._leave_quietly(before.room.id, before.room), group="send")
        self._follow_rematch(before, after)
        if after.room is not None and not on_game:
            self._show_game()
        elif after.room is None and on_game:
            while not isinstance(self.screen, GameScreen):
                self.pop_screen()
            self.pop_screen()

    def _show_game(self) -> None:
        """The game screen over the lobby, once the dialogs it closes have finished
        mounting: a dialog opened a moment before (``n`` pressed just after Enter) and
        removed while its widgets were still mounting crashed the client (Textual's
        Select looked for its overlay in a removed dialog). Meanwhile nothing else is
        pushed: the game comes once, when the dialogs are settled."""
        if self.game_coming:
            return
        if not all(_settled(screen) for screen in self.screen_stack):
            self.game_coming = True
            self.set_timer(0.02, self._show_game_when_settled)
            return
        self._close_dialogs()
        self.push_screen(GameScreen(self))

    def _show_game_when_settled(self) -> None:
        self.game_coming = False
        if self.model.room is not None and not any(
            isinstance(screen, GameScreen) for screen in self.screen_stack
        ):
            self._show_game()

    def _close_dialogs(self) -> None:
        """A game is coming on screen: the dialogs open over the lobby close (the
        invite-code dialog that waited for this answer, a form left open: they were
        the lobby's). A notice to read stays, on top of the game."""
        while isinstance(self.screen, ModalScreen) and not isinstance(self.screen, NoticeDialog):
            self.pop_screen()

    def _return_to_game(self, action: Action) -> None:
        """Launched while a game of ours is on (the terminal was closed, the machine
        restarted): go straight back to it, as the lobby's g would, rather than leave
        its clock running behind the lobby. The rooms this launch's first welcome lists
        are resumed in the background first: once each has caught up, the games that
        ended meanwhile (a rematch's first game, a game lost by abandon) are known, and
        the first game still on is shown; or, when SERVER was a web page's link to a
        room, that room (as the invite-code dialog enters it). Only at launch: a player
        who goes to the lobby later, and is reconnected there, stays there."""
        if isinstance(action, msg.Welcome) and self.launch_rooms is None:
            self.launch_rooms = set(action.rooms)
        elif self.launch_rooms and isinstance(action, ResumeDone | RoomGone):
            self.launch_rooms.discard(action.room)
        elif self.launch_rooms and isinstance(action, RoomSeen):
            self.launch_rooms.discard(action.view.id)
        else:
            return
        if self.launch_rooms:
            return
        self.launch_rooms = set()  # done: nothing more to wait for at this launch
        if self.link is not None:  # the room a web page's link named, as c would enter it
            link, self.link = self.link, None
            self.push_screen(CodeDialog(self, link))
            return
        if self.model.room is None and self.model.seated_rooms:
            message = msg.Join(room=self.model.seated_rooms[0], role="player")
            self.run_worker(self.send(message), group="send")

    def _follow_rematch(self, before: ViewModel, after: ViewModel) -> None:
        """A spectator follows the players into their rematch (the players are moved
        there by the server; a spectator joins it)."""
        room = after.room
        if room is None or room.rematch_room is None or before.room is None:
            return
        if before.room.id != room.id or before.room.rematch_room == room.rematch_room:
            return
        if self.sits_in(room):
            return
        if room.rematch_code is not None:  # a private room is watched by its code
            message = msg.Join(code=room.rematch_code, role="spectator")
        else:
            message = msg.Join(room=room.rematch_room, role="spectator")
        self.run_worker(self.send(message), group="send")

    @property
    def local_players(self) -> frozenset[str]:
        """The player ids this terminal plays for (two in hot seat)."""
        ids = {c.player for c in (self.connection, self.partner) if c is not None and c.player}
        if self.model.me is not None:
            ids.add(self.model.me)
        return frozenset(ids)

    def sits_in(self, game: GameView | None) -> bool:
        """Whether a player of this terminal has a seat in ``game``."""
        return game is not None and any(game.color_of(p) is not None for p in self.local_players)

    # -- sending ------------------------------------------------------------------

    async def send(self, message: msg.ClientMessage) -> bool:
        """Send on the main connection; a note in the log if offline."""
        if self.connection is None or not await self.connection.send(message):
            self.note(NOT_SENT)
            return False
        return True

    async def ask(self, message: msg.ClientMessage, *, in_dialog: bool = False) -> bool:
        """Send a request of the lobby's with an id of its own: the answer that echoes
        it ends the wait, and a refusal is the lobby's notice (until its next request;
        ``in_dialog``: the dialog that sent it shows it instead)."""
        request = self.connection.next_id() if self.connection is not None else 0
        if isinstance(message, msg.Queue):
            self.searching = message
        if isinstance(message, (msg.Join, msg.CreateRoom)):
            self.typeahead = TypeAhead(self.clock())
        self.dispatch(LobbyAsked(request, in_dialog))
        if not await self.send(msgspec.structs.replace(message, id=request)):
            self.dispatch(LobbyUnsent(request))
            return False
        return True

    def _connection_of(self, player: str | None) -> Connection | None:
        """The connection ``player`` speaks on: the partner's in hot seat when it is
        theirs, else the main one."""
        partner = self.partner
        if partner is not None and player is not None and partner.player == player:
            return partner
        return self.connection

    async def send_as(self, player: str | None, message: msg.ClientMessage) -> bool:
        """Send as ``player`` (hot seat: the partner connection when it is theirs)."""
        return await self._send_as(player, message, numbered=False) is not None

    async def _send_as(
        self, player: str | None, message: msg.ClientMessage, *, numbered: bool
    ) -> int | None:
        """Send ``message`` as ``player``, with an id of its connection's unless not
        ``numbered`` (a refusal echoes it as ``re``); the id (0 unnumbered), or None and
        a note in the log when offline."""
        connection = self._connection_of(player)
        request = 0
        if connection is not None and numbered:
            request = connection.next_id()
            message = msgspec.structs.replace(message, id=request)
        if connection is None or not await connection.send(message):
            self.note(NOT_SENT)
            return None
        return request

    async def send_chat(self, player: str | None, room: str, text: str) -> None:
        """Say ``text`` in ``room`` as ``player``; a line the chat limit refuses goes back
        into the text line, to be sent again (it was lost; the page kept it)."""
        request = await self._send_as(player, msg.Chat(room=room, text=text), numbered=True)
        if request is not None:
            self.chat_sent = (request, text)

    async def send_move(self, player: str | None, move: msg.Move, point: Point) -> bool:
        """Send ``move`` as ``player``; the room shows it on its way until answered."""
        request = await self._send_as(player, move, numbered=True)
        if request is None:
            return False
        if move.move_no is not None:
            self.dispatch(MoveSent(move.room, point, move.move_no, request))
        return True

    async def request(self, action: HistoryAction, message: msg.ClientMessage) -> None:
        """Ask the server for ratings or history: the view waits (``action``) for the reply."""
        self.dispatch(action)
        if not await self.send(message):
            self.dispatch(HistoryFailed(NOT_SENT))

    async def _local_ai(self) -> bool:
        """With --local, wait for the local AI worker to be up (it starts with the app);
        False (and a note) if it never came. Always True against a real server, which
        answers for itself (``no_ai_available``)."""
        server = self.local_server
        if server is None:
            return True
        if await server.wait_for_ai(0):
            return True
        self.note("Starting the local AI...")
        if await server.wait_for_ai():
            return True
        self.note("The local AI did not start.")
        return False

    @property
    def last_room(self) -> msg.CreateRoom | None:
        return _read_kept(self.identity.last_room, msg.CreateRoom)

    @property
    def last_match(self) -> msg.Queue | None:
        return _read_kept(self.identity.last_match, msg.Queue)

    async def quick_match(self, queue: msg.Queue) -> None:
        self._save(dataclasses.replace(self.identity, last_match=_to_keep(queue)))
        await self.ask(queue)

    async def create_room(self, create: msg.CreateRoom) -> None:
        self._save(dataclasses.replace(self.identity, last_room=_to_keep(create)))
        await self.ask(create)

    async def play_ai(self, create: msg.CreateRoom, level: str) -> None:
        """Create a room (``create``), then seat an AI of ``level`` in its other seat.
        The choice is kept: the dialog offers it next time."""
        choice = AiChoice(create, level)
        self.dispatch(choice)
        self._save(dataclasses.replace(self.identity, last_ai=choice.to_json()))
        if not await self._local_ai():
            return
        self.ai_after_create = AiRequest(level)
        if not await self.ask(create):
            self.ai_after_create = None

    async def _seat_ai_asked(self, room: str, level: str | None) -> None:
        """Seat the AI the player asked to play in the room just made for it, numbered:
        with no AI free, :meth:`_give_up_ai_room` follows."""
        request = await self._send_as(None, msg.SeatAi(room=room, level=level), numbered=True)
        if request is not None:
            self.ai_seat_asked = (request, room)

    async def _give_up_ai_room(self, room: str, refused: msg.Error) -> None:
        """No AI was free for the game against an AI just asked for: leave its room (it
        closes) and say why in the lobby. Left waiting, it was a public room that any
        stranger could join, for a player who had asked for the AI."""
        shown = self.model.room
        if shown is None or shown.id != room or shown.state != "waiting":
            return
        await self.leave_room()
        self.dispatch(LobbyTold(f"{describe_error(refused)} The room is closed."))

    async def seat_ai(self, room: str, level: str | None) -> None:
        """An AI of ``level`` in the empty seat of ``room`` (a room we sit in)."""
        if await self._local_ai():
            await self.send(msg.SeatAi(room=room, level=level))

    async def create_ai_game(self, message: msg.CreateAiGame) -> None:
        """A room where two AIs play each other; we watch it."""
        if await self._local_ai():
            await self.ask(message)

    async def leave_room(self) -> None:
        room = self.model.room
        if room is None:
            return
        if self.connection is not None:
            self.connection.forget_room(room.id)
        await self.send(msg.Leave(room=room.id))
        if self.partner is not None:
            await self.partner.send(msg.Leave(room=room.id))
        self.dispatch(RoomClosed(room.id))

    async def start_hot_seat(self, room: msg.CreateRoom | None = None) -> None:
        """Two players on this terminal: a second identity joins a new room made with
        ``room``'s settings (None: the defaults; the first player Black), and the board
        takes moves for whoever is to move (see :meth:`send_as`)."""
        main = self.connection
        if main is None or not main.online:
            self.note("Not connected.")
            return
        if self.partner is None:
            self.partner = Connection(
                main.server,
                partner_name(main.name),
                dispatch=self._partner_dispatch,
                backoff=self.backoff,
                clock=self.clock,
            )
            self.run_worker(self.partner.run(), name="partner", group="net")
            await self.partner.wait_welcomed()
        self.hot_seat_wanted = True
        self.ai_after_create = None
        await self.ask(room or msg.CreateRoom(seat="black"))

    def _partner_dispatch(self, action: Action) -> None:
        """The partner's stream: only its refusals are shown (everything else the main
        connection sees too)."""
        if isinstance(action, msg.Error):
            who = self.partner.name if self.partner else "Player 2"
            self.note(f"{who}: {server_words(action.message)}")

    async def seat_partner(self) -> None:
        """Called when a waiting room of ours appears: the partner takes the other seat."""
        room = self.model.room
        partner = self.partner
        if room is None or partner is None or room.state != "waiting":
            return
        if partner.player is not None and room.color_of(partner.player) is None:
            await partner.send(msg.Join(room=room.id, role="player"))

    def _partner_back(self, room: GameView) -> None:
        """A game of the hot-seat partner's is on screen again (back from the lobby with
        g): the partner comes back to it too. Its seat went offline with ours at ^L, and
        left so the game ended with a win nobody chose (claimed, or abandoned)."""
        partner = self.partner
        player = partner.player if partner is not None else None
        if partner is not None and player is not None and room.color_of(player) is not None:
            self.run_worker(partner.send(msg.Join(room=room.id, role="player")), group="send")

    async def action_copy_or_quit(self) -> None:
        """Ctrl+C: copy the text selected with the mouse (to the terminal's clipboard,
        OSC 52), else quit (:meth:`action_quit`)."""
        if not copy_selection(self):
            await self.action_quit()

    async def action_quit(self) -> None:
        """Quit; from a running game of one's own only after asking, as ^L asks before
        leaving it: the clock runs on and the opponent may claim the win (with --local,
        from the lobby too while a game of one's own goes on: it ends with the local
        server). ^Q at the question quits at once."""
        game = self.model.room
        running = game is not None and game.running and self.sits_in(game)
        # A game left for the lobby goes on, but not past a local server, which stops
        # with the client: from the lobby too, that was a game lost without a word.
        away = game is None and self.options.local and bool(self.model.seated_rooms)
        if (running or away) and not self._asking_quit:
            self._asking_quit = True

            async def decided(yes: bool | None) -> None:
                self._asking_quit = False
                if yes:
                    await self._quit_now()

            question = (
                LOCAL_AWAY_QUESTION
                if away
                else LOCAL_QUIT_QUESTION
                if self.options.local
                else quit_question(
                    timed=game is not None and game.time is not None,
                    leaving=self._leaving_words(),
                )
            )
            await self.push_screen(ConfirmDialog(question), decided)
            return
        await self._quit_now()

    def _leaving_words(self) -> str:
        """What going away from the game on screen does (``leaving_words``)."""
        game = self.model.room
        opponent = None
        if game is not None:
            me = next((p for p in self.local_players if game.color_of(p) is not None), None)
            opponent = game.opponent_of(me)
        session = self.model.session
        return leaving_words(
            opponent, session.grace_ms, self.clock(), move_limit_ms=session.move_limit_ms
        )

    async def _quit_now(self) -> None:
        game = self.model.room
        if game is not None and game.state == "over" and self.sits_in(game):
            await self._leave_quietly(game.id)  # seen to its end: not announced next launch
        elif game is not None and game.state == "waiting" and self.sits_in(game):
            # A quit is no dropped network: the room waiting for an opponent is closed
            # now, not kept the grace period for a return (a stranger could join it).
            await self._leave_quietly(game.id)
        await self._shut_down()
        self.exit()

    async def _leave_quietly(self, room: str, game: GameView | None = None) -> None:
        """Leave a finished game of ours whose end the player has been shown (on screen,
        or by the lobby's line): the server lists the rooms a player sits in at every
        launch, and a game never left was announced as ended again at each one. Nothing
        is said if it cannot be sent: the next launch tells of it once more. ``game``:
        the room as last shown (default: the one on screen)."""
        if self.connection is not None:
            self.connection.forget_room(room)
            await self.connection.send(msg.Leave(room=room))
        partner, game = self.partner, game or self.model.room
        if partner is None or partner.player is None or game is None or game.id != room:
            return
        if game.color_of(partner.player) is not None:  # a hot-seat game: both sat in it
            await partner.send(msg.Leave(room=room))

    async def _shut_down(self) -> None:
        for conn in (self.connection, self.partner):
            if conn is not None:
                await conn.close()
        if self.local_server is not None:
            server, self.local_server = self.local_server, None
            await server.stop()

    async def on_unmount(self) -> None:
        plain_scrollbars(False)
        await self._shut_down()


def quit_question(*, timed: bool, leaving: str) -> str:
    """What quitting a running game asks: in a timed one the clock runs on; what going
    away does (:func:`client.state.words.leaving_words`: the opponent may claim the win
    after the grace period, said in time as the web page says it, "after 1:00 away")."""
    clock = "Your clock keeps running, and " if timed else ""
    said = clock + leaving if timed else leaving[0].upper() + leaving[1:]
    return (
        f"Quit while your game runs? {said}; "
        "start gomoku play again to come back to it. (^Q again quits; ^R resigns instead.)"
    )


LOCAL_QUIT_QUESTION = (
    "Quit while your game runs? This local server stops with the client: the game "
    "is over for good. (^Q again quits; ^R resigns instead.)"
)
LOCAL_AWAY_QUESTION = (
    "Quit while your game goes on? This local server stops with the client: the game "
    "is over for good. (^Q again quits.)"
)


def partner_name(name: str) -> str:
    """The second hot-seat player's name, distinct from the first."""
    return "Player 2" if name != "Player 2" else "Player 1"


def _settled(screen: Screen[object]) -> bool:
    """Whether ``screen`` and every widget in it have run their mount handlers (so
    removing it now leaves none of them to run on a removed widget)."""
    widgets = screen.walk_children(Widget)
    return screen.is_mounted and all(widget.is_mounted for widget in widgets)
