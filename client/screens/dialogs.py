"""Small modal dialogs: confirm, create a room, quick match, invite code.

Each returns a protocol message (or a plain value) through ``dismiss`` and
None when cancelled; the caller sends it. Every option the protocol's
``create_room`` and ``queue`` have is offered, nothing more.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select

from client.present import TimeControlError, parse_time_control
from engine.notation import MAX_SIZE, MIN_SIZE
from engine.types import Opening, Rule
from protocol import messages as msg
from protocol.values import SeatRequest, TimeControl

RULES = [(str(r).capitalize(), r) for r in Rule]
OPENINGS = [("Free", Opening.FREE), ("Swap2", Opening.SWAP2)]
SEATS: list[tuple[str, str]] = [("Any", "any"), ("Black", "black"), ("White", "white")]


class ConfirmDialog(ModalScreen[bool]):
    """A yes/no question; y/Enter confirms, n/Esc cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question)
            with Horizontal(classes="buttons"):
                yield Button("Yes (y)", id="yes", variant="error", compact=True)
                yield Button("No (n)", id="no", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class _FormDialog(ModalScreen[msg.ClientMessage | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def action_cancel(self) -> None:
        self.dismiss(None)

    def error(self, text: str) -> None:
        self.query_one("#form-error", Label).update(text)

    def time_control(self) -> tuple[bool, TimeControl | None]:
        try:
            return True, parse_time_control(self.query_one("#time", Input).value)
        except TimeControlError as exc:
            self.error(str(exc))
            return False, None

    @on(Button.Pressed, "#cancel")
    def cancelled(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted)
    def submitted(self) -> None:
        self.submit()

    @on(Button.Pressed, "#ok")
    def ok(self) -> None:
        self.submit()

    def submit(self) -> None:
        raise NotImplementedError


class CreateRoomDialog(_FormDialog):
    """Rule, size, opening, time control, private, rated, seat."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("[b]New room[/b]")
            with Grid(classes="form"):
                yield Label("Rule")
                yield Select(
                    RULES, value=Rule.FREESTYLE, allow_blank=False, id="rule", compact=True
                )
                yield Label("Board size")
                yield Input("15", id="size", restrict=r"[0-9]*", max_length=2, compact=True)
                yield Label("Opening")
                yield Select(
                    OPENINGS, value=Opening.FREE, allow_blank=False, id="opening", compact=True
                )
                yield Label("Time (min+s)")
                yield Input("none", id="time", placeholder="5+3 or none", compact=True)
                yield Label("Seat")
                yield Select(SEATS, value="any", allow_blank=False, id="seat", compact=True)
                yield Label("Private")
                yield Checkbox("reached by invite code", id="private", compact=True)
                yield Label("Rated")
                yield Checkbox("counts for ratings", id="rated", compact=True)
            yield Label("", id="form-error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Create", id="ok", variant="primary", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#ok", Button).focus()  # Enter creates with the defaults

    def submit(self) -> None:
        size_text = self.query_one("#size", Input).value
        size = int(size_text) if size_text.isdigit() else 0
        if not MIN_SIZE <= size <= MAX_SIZE:
            self.error(f"Board size must be {MIN_SIZE} to {MAX_SIZE}.")
            return
        ok, time = self.time_control()
        if not ok:
            return
        self.dismiss(
            msg.CreateRoom(
                rule=Rule(str(self.query_one("#rule", Select).value)),
                size=size,
                opening=Opening(str(self.query_one("#opening", Select).value)),
                time=time,
                private=self.query_one("#private", Checkbox).value,
                rated=self.query_one("#rated", Checkbox).value,
                seat=_seat(self.query_one("#seat", Select).value),
            )
        )


def _seat(value: object) -> SeatRequest:
    if value == "black":
        return "black"
    if value == "white":
        return "white"
    return "any"


class QuickMatchDialog(_FormDialog):
    """Rule and time control to queue for."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("[b]Quick match[/b]")
            with Grid(classes="form"):
                yield Label("Rule")
                yield Select(
                    RULES, value=Rule.FREESTYLE, allow_blank=False, id="rule", compact=True
                )
                yield Label("Time (min+s)")
                yield Input("5+3", id="time", placeholder="5+3 or none", compact=True)
            yield Label("", id="form-error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Find opponent", id="ok", variant="primary", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#ok", Button).focus()

    def submit(self) -> None:
        ok, time = self.time_control()
        if ok:
            self.dismiss(
                msg.Queue(rule=Rule(str(self.query_one("#rule", Select).value)), time=time)
            )


class CodeDialog(_FormDialog):
    """The invite code of a private room."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("[b]Join a private room[/b]")
            yield Input(placeholder="invite code", id="code", max_length=32, compact=True)
            yield Checkbox("Watch only", id="watch", compact=True)
            yield Label("", id="form-error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Join", id="ok", variant="primary", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#code", Input).focus()

    def submit(self) -> None:
        code = self.query_one("#code", Input).value.strip()
        if not code:
            self.error("Type the invite code the room's creator gave you.")
            return
        watch = self.query_one("#watch", Checkbox).value
        self.dismiss(msg.Join(code=code, role="spectator" if watch else "player"))
