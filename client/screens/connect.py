"""The connect screen: the server's address and your name.

Shown when ``gomoku play`` was not given a name (the remembered one is filled
in), and again when the player stops trying to reach a server (with the reason,
so the address can be corrected). The address field takes every form
:class:`client.address.ServerAddress` reads (``host``, ``host:port``,
``ws://...``, ``http://...``).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, Static

from client.address import AddressError, ServerAddress
from client.screens.host import Host
from client.widgets.dialog_box import DialogBox
from client.widgets.entry import TextInput
from protocol.limits import NAME_MAX
from protocol.text import name_problem

NAME_FULL = f"A name holds {NAME_MAX} characters at most (emoji and accents may count as several)."


class ConnectScreen(Screen[None]):
    """Ask for the server and a name, then connect."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "app.quit", "Quit"),
    ]

    def __init__(
        self,
        host: Host,
        *,
        address: ServerAddress | None = None,
        name: str | None = None,
        error: str | None = None,
    ) -> None:
        """``address`` and ``name`` prefill the form (default: the command line's and
        the remembered one); ``error`` says why the last attempt was given up."""
        super().__init__()
        self.host = host
        self.address = address
        self.prefill_name = name
        self.error = error
        self._name_full = False

    def compose(self) -> ComposeResult:
        address = (self.address or self.host.options.server).display
        name = self.prefill_name or self.host.default_name or ""
        with DialogBox(classes="dialog", id="connect-box"):
            yield Static("[b]Gomoku Arena[/b]: five in a row, over the network.")
            with Grid(classes="form"):
                yield Label("Server")
                yield Input(address, id="address", placeholder="host:port or ws://host:port")
                yield Label("Your name")
                yield TextInput(name, id="name", max_length=NAME_MAX)
            error = f"Stopped trying: {self.error}" if self.error else ""
            yield Label(error, id="form-error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Connect", id="connect", variant="primary")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        """The name field first; the address field when trying it was given up (that
        is what there is to fix). A remembered name the rules no longer take is said so
        (another keeps the player's games and rating: see GomokuApp.start)."""
        self.query_one("#address" if self.error else "#name", Input).focus()
        name = self.query_one("#name", Input).value
        problem = name_problem(name) if name else None
        if problem is not None and not self.error:
            self.query_one("#form-error", Label).update(
                Text(
                    f"{name} is no longer taken as a name: {problem}. Another name keeps "
                    "your games and rating."
                )
            )

    @on(Input.Changed, "#name")
    def name_typed(self, event: Input.Changed) -> None:
        """A name at its limit takes no more keys (the field stops them): said where keys
        would otherwise seem to go nowhere, and unsaid once it is shorter again."""
        full = len(event.value) >= NAME_MAX
        if full != self._name_full:
            self.query_one("#form-error", Label).update(NAME_FULL if full else "")
        self._name_full = full

    @on(Input.Submitted)
    @on(Button.Pressed, "#connect")
    def connect(self) -> None:
        text = self.query_one("#address", Input).value
        name = self.query_one("#name", Input).value.strip()
        error = self.query_one("#form-error", Label)
        try:
            address = ServerAddress.parse(text)
        except AddressError as exc:
            error.update(Text(str(exc)))  # it quotes what was typed
            return
        problem = name_problem(name)
        if problem is not None:
            error.update(Text(problem[0].upper() + problem[1:] + "."))
            return
        self.host.start(address, name)
