"""The connect screen: the server's address and your name.

Shown when ``gomoku play`` was not given a name (the remembered one is
filled in); the address comes from the command line (``localhost:8765`` by
default) and can be changed here.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, Static

from client.app import GomokuApp
from client.connection import AddressError, parse_address
from protocol.limits import NAME_MAX
from protocol.values import check_name


class ConnectScreen(Screen[None]):
    """Ask for the server and a name, then connect."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "app.quit", "Quit"),
    ]

    def compose(self) -> ComposeResult:
        app = self.app
        assert isinstance(app, GomokuApp)
        with Vertical(classes="dialog", id="connect-box"):
            yield Static("[b]Gomoku Arena[/b]: five in a row, over the network.")
            with Grid(classes="form"):
                yield Label("Server")
                yield Input(app.options.address, id="address", placeholder="host:port")
                yield Label("Your name")
                yield Input(app.default_name or "", id="name", max_length=NAME_MAX)
            yield Label("", id="form-error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Connect", id="connect", variant="primary")
        yield Footer()

    def on_mount(self) -> None:
        name = self.query_one("#name", Input)
        name.focus()

    @on(Input.Submitted)
    @on(Button.Pressed, "#connect")
    def connect(self) -> None:
        address = self.query_one("#address", Input).value
        name = self.query_one("#name", Input).value.strip()
        error = self.query_one("#form-error", Label)
        try:
            host, port = parse_address(address)
        except AddressError as exc:
            error.update(str(exc))
            return
        try:
            check_name(name)
        except ValueError:
            error.update(f"A name is 1 to {NAME_MAX} printable characters.")
            return
        app = self.app
        assert isinstance(app, GomokuApp)
        app.start(host, port, name)
