"""Opening a finished game's record in the review screen from another screen: the
profile's list of games (Enter), and the game screen once its game is over (^P)."""

from __future__ import annotations

from collections.abc import Callable

from textual.screen import Screen

from client.screens.host import Host
from client.screens.review import ReviewScreen
from client.state.history import RecordRequested
from client.state.model import ViewModel
from engine.errors import RecordError
from engine.record import parse_json
from protocol import messages as msg


class RecordOpener:
    """Asks the server for one game's record and opens the review screen when it has
    come. The screen that owns it hands it each model it draws (:meth:`show`); ``say``
    tells the player why a record did not open (the server's refusal, a record that
    does not read)."""

    def __init__(self, screen: Screen[None], host: Host, say: Callable[[str], None]) -> None:
        self.screen = screen
        self.host = host
        self.say = say
        self.game: str | None = None
        """The game whose record is on its way; None: none asked for."""

    async def open(self, game: str) -> None:
        self.game = game
        await self.host.request(RecordRequested(game), msg.GetRecord(game=game, format="json"))

    def show(self, model: ViewModel) -> None:
        """Open the record asked for if it has come (once)."""
        record = model.history.record
        if self.game is None or record is None or record.game != self.game:
            return
        if record.error is not None:
            self.game = None
            self.say(record.error)
            return
        if record.text is None:
            return
        self.game = None
        try:
            game = parse_json(record.text)
        except RecordError as exc:
            self.say(f"The record of {record.game} does not read: {exc}")
            return
        screen = ReviewScreen(
            game,
            glyphs=self.host.options.glyphs,
            original_json=record.text,
            name=record.game,
            standalone=False,
        )
        self.screen.app.push_screen(screen)
