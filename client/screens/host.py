"""What the screens of ``gomoku play`` need of the application that shows them.

The application (:class:`client.app.GomokuApp`) owns the state and the connections
and decides which screen is shown; it hands itself to each screen it makes as a
:class:`Host`, and a screen hands its host on to the screens it opens. A screen
draws ``model`` and asks for everything else through these few members, so the
screens never import the application (which imports them) and never change the
model: they send requests and wait for the server's answer, the only authority.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from client.address import ServerAddress
from client.options import PlayOptions
from client.state.history import HistoryAction
from client.state.model import ViewModel
from engine.types import Point
from protocol import messages as msg


class Host(Protocol):
    """The application as a screen sees it."""

    @property
    def options(self) -> PlayOptions:
        """The command line's options (glyphs, one-click, --local, the server...)."""
        ...

    @property
    def model(self) -> ViewModel:
        """The state to draw, as the last action left it."""
        ...

    @property
    def muted(self) -> dict[str, str]:
        """The players whose chat this terminal hides, id -> name, until it stops
        (:mod:`client.state.mute`); the game screen changes it."""
        ...

    @property
    def clock(self) -> Callable[[], float]:
        """Local monotonic time, as the model's times are measured."""
        ...

    @property
    def local_players(self) -> frozenset[str]:
        """The player ids this terminal plays for (two in hot seat)."""
        ...

    @property
    def default_name(self) -> str | None:
        """The name to offer: the command line's, else the remembered one."""
        ...

    @property
    def server_shown(self) -> str:
        """The server as the screens name it (``host:port``, or the URL)."""
        ...

    def can_stop_trying(self) -> bool:
        """Whether a connection is trying to reach the server, and can be given up."""
        ...

    def start(self, address: ServerAddress, name: str) -> None:
        """Connect to ``address`` as ``name`` and show the lobby."""
        ...

    def stop_trying(self) -> None:
        """Give up on the server while the link is down: back to the connect screen."""
        ...

    def tell_lobby(self, text: str) -> None:
        """Say ``text`` on the lobby's line until the lobby's next request."""
        ...

    def note(self, text: str, *, refusal: bool = False) -> None:
        """A line of the client's own in the log; a ``refusal`` (a point taken, not one's
        turn) is set as the server's refusals are, not as a quiet note."""
        ...

    async def send(self, message: msg.ClientMessage) -> bool:
        """Send on the main connection; False (and a note in the log) if offline."""
        ...

    async def ask(self, message: msg.ClientMessage, *, in_dialog: bool = False) -> bool:
        """Send a request of the lobby's: the model's ``lobby.asked`` waits for its
        answer, and ``lobby.notice`` says why it was refused (on the lobby's line,
        unless ``in_dialog``: the dialog sending it shows it); False if not sent."""
        ...

    def give_typeahead(self) -> None:
        """Give the keys typed since the lobby asked for a room to the screen that now
        shows it (:mod:`client.typeahead`)."""
        ...

    async def send_as(self, player: str | None, message: msg.ClientMessage) -> bool:
        """Send as ``player`` (in hot seat, the partner's connection when it is theirs)."""
        ...

    async def send_chat(self, player: str | None, room: str, text: str) -> None:
        """Say ``text`` in ``room`` as ``player``; a line the chat limit refuses is given
        back to the text line (:meth:`GameScreen.give_back_line`)."""
        ...

    async def send_move(self, player: str | None, move: msg.Move, point: Point) -> bool:
        """Send ``move`` (a stone at ``point``) as ``player``; once sent, the room shows
        it on its way (``sending``) until the server answers."""
        ...

    async def request(self, action: HistoryAction, message: msg.ClientMessage) -> None:
        """Ask for ratings or history; the view waits (``action``) for the reply."""
        ...

    @property
    def last_room(self) -> msg.CreateRoom | None:
        """The settings of the last room created with :meth:`create_room` (kept over
        restarts), which the new-room form offers again."""
        ...

    @property
    def last_match(self) -> msg.Queue | None:
        """The last quick match asked for with :meth:`quick_match` (kept over restarts),
        which the quick-match form offers again."""
        ...

    async def quick_match(self, queue: msg.Queue) -> None:
        """Ask for a quick match with ``queue``'s settings, keeping them
        (:attr:`last_match`)."""
        ...

    async def create_room(self, create: msg.CreateRoom) -> None:
        """Create a room with ``create``'s settings, keeping them (:attr:`last_room`)."""
        ...

    async def play_ai(self, create: msg.CreateRoom, level: str) -> None:
        """Create a room, then seat an AI of ``level`` in its other seat (the choice is
        kept in ``model.lobby.ai_choice``)."""
        ...

    async def seat_ai(self, room: str, level: str | None) -> None:
        """An AI of ``level`` in the empty seat of ``room``."""
        ...

    async def create_ai_game(self, message: msg.CreateAiGame) -> None:
        """A room where two AIs play each other, to watch."""
        ...

    async def leave_room(self) -> None:
        """Back to the lobby from the room on screen."""
        ...

    async def start_hot_seat(self, room: msg.CreateRoom | None = None) -> None:
        """Two players on this terminal (with --local), in a room made with ``room``'s
        settings (None: the defaults)."""
        ...
