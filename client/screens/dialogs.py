"""Small modal dialogs: confirm, a notice, create a room, quick match, invite code,
and the AI ones (play an AI, seat an AI, AI vs AI).

Each returns a protocol message (or a plain value) through ``dismiss`` and
None when cancelled; the caller sends it. Every option the protocol's
``create_room``, ``queue``, ``seat_ai`` and ``create_ai_game`` have is offered,
nothing more. The invite-code dialog is the exception: it sends its ``join`` itself
and stays open until the server answers, so a code that leads nowhere is said in
the dialog and can be typed again (a game coming on screen closes it). The play-the-AI
dialog opens with the settings of the last game against an AI.

Each dialog has its own footer: while it is open, the bottom line names its keys,
not those of the screen underneath.

AI levels: the server does not list the levels its workers offer, so the
dialogs offer the project worker's five (weakest to strongest) in a list, and
a field for any other level name a worker may offer (``brain:embryo``); a
level nobody offers is refused by the server with ``no_ai_available``, whose
message lists the levels that are offered.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, ClassVar, Generic, TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal
from textual.content import Content
from textual.screen import ModalScreen
from textual.style import Style
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Footer, Input, Label, Select, Static

from client.address import RoomLink, room_link
from client.present import TimeControlError, parse_time_control
from client.screens.host import Host
from client.state.lobby import AiChoice
from client.state.model import ViewModel
from client.state.words import OPENING_WORDS, RULE_WORDS, choice_label
from client.widgets.dialog_box import DialogBox
from engine.ai.levels import LEVEL_NAMES
from engine.ai.levels import LEVELS as ENGINE_LEVELS
from engine.notation import MAX_SIZE, MIN_SIZE
from engine.types import Opening, Rule
from protocol import messages as msg
from protocol.errors import ErrorCode
from protocol.values import LEVEL_PATTERN, JoinRole, SeatRequest, TimeControl

RULES = [(choice_label(rule, RULE_WORDS[rule]), rule) for rule in Rule]
OPENINGS = [(choice_label(opening, OPENING_WORDS[opening]), opening) for opening in Opening]
SEATS: list[tuple[str, str]] = [
    ("Random", "random"),
    ("Black (swap2: the opener)", "black"),
    ("White (swap2: the other)", "white"),
]
AI_LEVELS = LEVEL_NAMES
"""The levels the project's worker offers, weakest first (protocol.md, AI seats)."""
DEFAULT_LEVEL = AI_LEVELS[0]
"""The level a form offers before any was played: the weakest, a newcomer's first game
(the page starts there too, then offers the last level played)."""
LEVELS = [(f"{name.capitalize()} ({ENGINE_LEVELS[name].words})", name) for name in AI_LEVELS]
"""Each level with what it plays like, as the choices show it."""

R = TypeVar("R")

PLAIN_ARROWS = {"down-arrow": "v", "up-arrow": "^"}
"""The Select's arrows (Textual draws ▼ and ▲) in ASCII."""


def plain_select_arrows(root: Widget) -> None:
    """The arrows of every Select under ``root`` in ASCII (``--glyphs ascii``)."""
    for select in root.query(Select):
        for arrow in select.query(".arrow").results(Static):
            for name, plain in PLAIN_ARROWS.items():
                if arrow.has_class(name):
                    arrow.update(plain)


class TickBox(Checkbox, inherit_bindings=False):
    """A checkbox that reads right without colour: ``[X]`` when ticked, ``[ ]`` when
    not (Textual's own draws the X either way and tells them apart by colour). Space
    ticks it; Enter submits its form, as on every other field (Textual's Enter ticked
    it too: "Watch only" ticked, then Enter, unticked it and sent nothing)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_button", "Toggle", show=False),
    ]

    BUTTON_LEFT = "["
    BUTTON_RIGHT = "]"

    def render(self) -> Content:
        self.BUTTON_INNER = "X" if self.value else " "
        return super().render()

    @property
    def _button(self) -> Content:
        """The box with its brackets in the text's colour: Textual draws them in the
        box's own background colour, which left an unticked box all but invisible (dark
        blue on near black)."""
        _, background, _, text = self.colors
        sides = Style(foreground=text, background=background)
        inner = self.get_visual_style("toggle--button")
        return Content.assemble(
            (self.BUTTON_LEFT, sides), (self.BUTTON_INNER, inner), (self.BUTTON_RIGHT, sides)
        )


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
        with DialogBox(classes="dialog"):
            yield Label(Text(self.question))  # names in it are text, not markup
            with Horizontal(classes="buttons"):
                yield Button("Yes (y)", id="yes", variant="error", compact=True)
                yield Button("No (n)", id="no", variant="primary", compact=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class NoticeDialog(ModalScreen[None]):
    """Something the player must read (the server forgot them, their game is gone):
    a heading and a sentence; Enter, Esc or the button closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,escape,space", "close", "OK"),
    ]

    def __init__(self, heading: str, text: str) -> None:
        super().__init__()
        self.heading = heading
        self.text = text

    def compose(self) -> ComposeResult:
        with DialogBox(classes="dialog"):
            yield Label(Text(self.heading, style="bold"))
            yield Label(Text(self.text))
            with Horizontal(classes="buttons"):
                yield Button("OK (Enter)", id="ok", variant="primary", compact=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#ok", Button).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed)
    def pressed(self) -> None:
        self.dismiss(None)


class _FormDialog(ModalScreen[R | None], Generic[R]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("enter", "submit", show=False),  # from a field that does not take Enter
    ]

    FOCUS: ClassVar[str] = "#ok"
    """The widget focused on opening: the OK button, so Enter submits the form with its
    defaults, or the field a dialog needs filled in first. (A class attribute, not an
    ``on_mount`` override: Textual runs the ``on_mount`` of every class in the MRO.)"""

    def on_mount(self) -> None:
        self.query_one(self.FOCUS).focus()
        if self.app.has_class("-ascii"):
            self.call_after_refresh(plain_select_arrows, self)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def error(self, text: str) -> None:
        self.query_one("#form-error", Label).update(Text(text))  # it may quote what was typed

    def time_control(self) -> tuple[bool, TimeControl | None]:
        try:
            return True, parse_time_control(self.query_one("#time", Input).value)
        except TimeControlError as exc:
            self.error(str(exc))
            return False, None

    def level(self, select_id: str, other_id: str) -> tuple[bool, str]:
        """The level chosen in a level list, or typed in the field beside it."""
        typed = self.query_one(f"#{other_id}", Input).value.strip().lower()
        if typed:
            if not re.fullmatch(LEVEL_PATTERN, typed):
                self.error(f"{typed!r} is not a level name like master or brain:embryo.")
                return False, ""
            return True, typed
        return True, str(self.query_one(f"#{select_id}", Select).value)

    def board_size(self) -> int | None:
        """The size typed, as ``15`` or ``15x15`` (how a board's size is usually written)."""
        size_text = self.query_one("#size", Input).value.strip()
        found = re.fullmatch(r"(\d+)(?:\s*[x\u00d7]\s*(\d+))?", size_text.lower())
        size = 0
        if found is not None and found[2] in (None, found[1]):
            size = int(found[1])
        if not MIN_SIZE <= size <= MAX_SIZE:
            self.error(f"Board size: {size_text!r} is not a number from {MIN_SIZE} to {MAX_SIZE}.")
            return None
        return size

    def select(self, select_id: str) -> str:
        return str(self.query_one(f"#{select_id}", Select).value)

    def room_settings(self, **more: Any) -> msg.CreateRoom | None:
        """The room the form's game fields (:func:`_game_fields`) describe, with
        ``more`` fields; None, the form saying why, if its size or time is wrong."""
        size = self.board_size()
        ok, time = self.time_control()
        if size is None or not ok:
            return None
        return msg.CreateRoom(
            rule=Rule(self.select("rule")),
            size=size,
            opening=Opening(self.select("opening")),
            time=time,
            **more,
        )

    @on(Button.Pressed, "#cancel")
    def cancelled(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted)
    def submitted(self) -> None:
        self.submit()

    @on(Button.Pressed, "#ok")
    def ok(self) -> None:
        self.submit()

    def action_submit(self) -> None:
        self.submit()

    def submit(self) -> None:
        raise NotImplementedError


def _game_fields(*, seat: bool, last: msg.CreateRoom | None = None) -> ComposeResult:
    """The form rows every room has: rule, size, opening, time (and the seat), filled
    in with ``last``'s settings (None: the defaults)."""
    room = last or msg.CreateRoom()
    time = "none" if room.time is None else str(room.time)
    yield Label("Rule")
    yield Select(RULES, value=room.rule, allow_blank=False, id="rule", compact=True)
    yield Label(f"Board ({MIN_SIZE}-{MAX_SIZE})")
    # Not restricted to digits: a clock typed here by mistake (1+0) became a size (10)
    # without a word; read on submit, it is refused saying what the field holds.
    yield Input(str(room.size), id="size", max_length=8, compact=True)
    yield Label("Opening")
    yield Select(OPENINGS, value=room.opening, allow_blank=False, id="opening", compact=True)
    yield Label("Clock (min+s)")
    yield Input(time, id="time", placeholder="5+3 or none", compact=True)
    if seat:
        yield Label("Seat")
        # "any" (kept from before "random" was offered) gave the creator Black every time.
        seat_value = room.seat if room.seat in ("black", "white") else "random"
        yield Select(SEATS, value=seat_value, allow_blank=False, id="seat", compact=True)


def _form_end(ok: str) -> ComposeResult:
    """The end of every form: the line that says what is wrong with it, then its button
    (``ok``: what it does) and Cancel."""
    yield Label("", id="form-error", classes="error")
    with Horizontal(classes="buttons"):
        yield Button(ok, id="ok", variant="primary", compact=True)
        yield Button("Cancel", id="cancel", compact=True)


def _level_fields(
    label: str, select_id: str, other_id: str, level: str = DEFAULT_LEVEL
) -> ComposeResult:
    """A level list and a field for any other level name; ``level`` chosen in the list
    if it is there, else typed in the field."""
    listed = level in AI_LEVELS
    yield Label(label)
    value = level if listed else DEFAULT_LEVEL
    yield Select(LEVELS, value=value, allow_blank=False, id=select_id, compact=True)
    yield Label("  or level name")
    other = "" if listed else level
    yield Input(other, id=other_id, placeholder="e.g. brain:embryo", max_length=40, compact=True)


class CreateRoomDialog(_FormDialog[msg.CreateRoom]):
    """Rule, size, opening, time control, private, rated, seat: filled in with the last
    room's (``last``), so a club's evening of 3+2 standard rated rooms is one Enter
    each (they were reset to freestyle, no clock, each time)."""

    def __init__(self, last: msg.CreateRoom | None = None) -> None:
        super().__init__()
        self.last = last

    def compose(self) -> ComposeResult:
        last = self.last or msg.CreateRoom()
        with DialogBox(classes="dialog"):
            yield Label("[b]New room[/b]")
            with Grid(classes="form"):
                yield from _game_fields(seat=True, last=last)
                yield Label("Private")
                yield TickBox("reached by invite code", last.private, id="private", compact=True)
                yield Label("Rated")
                yield TickBox("counts for ratings", last.rated, id="rated", compact=True)
            yield from _form_end("Create")
        yield Footer(compact=True)

    def submit(self) -> None:
        room = self.room_settings(
            private=self.query_one("#private", Checkbox).value,
            rated=self.query_one("#rated", Checkbox).value,
            seat=_seat(self.query_one("#seat", Select).value),
        )
        if room is not None:
            self.dismiss(room)


def _seat(value: object) -> SeatRequest:
    if value == "black":
        return "black"
    if value == "white":
        return "white"
    return "random"


class QuickMatchDialog(_FormDialog[msg.Queue]):
    """Rule and time control to queue for; optionally an AI if nobody comes in time.
    Filled in with the last quick match's (``last``), as the new-room form is."""

    def __init__(self, last: msg.Queue | None = None) -> None:
        super().__init__()
        self.last = last

    def compose(self) -> ComposeResult:
        last = self.last
        rule = Rule.FREESTYLE if last is None else last.rule
        time = "5+3" if last is None else "none" if last.time is None else str(last.time)
        after = last.ai_after_ms if last is not None else None
        after_text = "never" if after is None else f"{after / 1000:g}"
        level = last.ai_level if last is not None and last.ai_level else DEFAULT_LEVEL
        with DialogBox(classes="dialog"):
            yield Label("[b]Quick match[/b] (15x15, rated; against an AI: unrated)")
            with Grid(classes="form"):
                yield Label("Rule")
                yield Select(RULES, value=rule, allow_blank=False, id="rule", compact=True)
                yield Label("Clock (min+s)")
                yield Input(time, id="time", placeholder="5+3 or none", compact=True)
                yield Label("AI after (s)")
                yield Input(
                    after_text,
                    id="ai-after",
                    placeholder="seconds, or never",
                    max_length=6,
                    compact=True,
                )
                yield from _level_fields("AI level", "ai-level", "ai-other", level)
            yield from _form_end("Find opponent")
        yield Footer(compact=True)

    def ai_after_ms(self) -> tuple[bool, int | None]:
        text = self.query_one("#ai-after", Input).value.strip().lower()
        if text in ("", "never", "no", "-"):
            return True, None
        try:
            seconds = float(text)
        except ValueError:
            seconds = -1.0
        if not 0 <= seconds <= 3600:
            self.error("AI after: a number of seconds (0 to 3600), or never.")
            return False, None
        return True, round(seconds * 1000)

    def submit(self) -> None:
        ok, time = self.time_control()
        if not ok:
            return
        ok, ai_after = self.ai_after_ms()
        if not ok:
            return
        level: str | None = None
        if ai_after is not None:
            ok, level = self.level("ai-level", "ai-other")
            if not ok:
                return
        rule = Rule(self.select("rule"))
        self.dismiss(msg.Queue(rule=rule, time=time, ai_after_ms=ai_after, ai_level=level))


@dataclasses.dataclass(frozen=True, slots=True)
class PlayAi:
    """Create ``room`` and seat an AI of ``level`` in its other seat."""

    room: msg.CreateRoom
    level: str


class HotSeatDialog(_FormDialog[msg.CreateRoom]):
    """A game for two players at this terminal: the room's settings (the first player
    plays Black, or opens a swap2). Never rated."""

    def compose(self) -> ComposeResult:
        with DialogBox(classes="dialog"):
            yield Label("[b]Hot seat[/b]: two players on this terminal (unrated)")
            with Grid(classes="form"):
                yield from _game_fields(seat=False)
            yield from _form_end("Play")
        yield Footer(compact=True)

    def submit(self) -> None:
        room = self.room_settings(rated=False, seat="black")
        if room is not None:
            self.dismiss(room)


class PlayAiDialog(_FormDialog[PlayAi]):
    """A game against an AI: the room's settings, your colour and the AI's level,
    as chosen for the ``last`` one (None: the defaults). Games with an AI are never
    rated."""

    def __init__(self, last: AiChoice | None = None) -> None:
        super().__init__()
        self.last = last

    def compose(self) -> ComposeResult:
        last = self.last
        with DialogBox(classes="dialog"):
            yield Label("[b]Play the AI[/b] (unrated)")
            with Grid(classes="form"):
                yield from _game_fields(seat=True, last=last.room if last else None)
                level = last.level if last else DEFAULT_LEVEL
                yield from _level_fields("AI level", "level", "level-other", level)
            yield from _form_end("Play")
        yield Footer(compact=True)

    def submit(self) -> None:
        room = self.room_settings(rated=False, seat=_seat(self.query_one("#seat", Select).value))
        if room is None:
            return
        ok, level = self.level("level", "level-other")
        if ok:
            self.dismiss(PlayAi(room, level))


class SeatAiDialog(_FormDialog[msg.ClientMessage]):
    """The level of the AI to seat in the empty seat of ``room``."""

    def __init__(self, room: str) -> None:
        super().__init__()
        self.room = room

    def compose(self) -> ComposeResult:
        with DialogBox(classes="dialog"):
            yield Label("[b]An AI opponent[/b] in the empty seat (the game is unrated)")
            with Grid(classes="form"):
                yield from _level_fields("AI level", "level", "level-other")
            yield from _form_end("Seat the AI")
        yield Footer(compact=True)

    def submit(self) -> None:
        ok, level = self.level("level", "level-other")
        if ok:
            self.dismiss(msg.SeatAi(room=self.room, level=level))


class AiGameDialog(_FormDialog[msg.ClientMessage]):
    """Two AIs play each other, and you watch: the room's settings and both levels."""

    def compose(self) -> ComposeResult:
        with DialogBox(classes="dialog"):
            yield Label("[b]AI vs AI[/b]: watch two AIs play")
            with Grid(classes="form"):
                yield from _game_fields(seat=False)
                yield from _level_fields("Black AI", "black", "black-other")
                yield from _level_fields("White AI", "white", "white-other")
                yield Label("Private")
                yield TickBox("not listed in the lobby", id="private", compact=True)
            yield from _form_end("Start")
        yield Footer(compact=True)

    def submit(self) -> None:
        size = self.board_size()
        ok, time = self.time_control()
        if size is None or not ok:
            return
        ok, black = self.level("black", "black-other")
        ok2, white = self.level("white", "white-other")
        if not (ok and ok2):
            return
        self.dismiss(
            msg.CreateAiGame(
                rule=Rule(self.select("rule")),
                size=size,
                opening=Opening(self.select("opening")),
                time=time,
                private=self.query_one("#private", Checkbox).value,
                black=black,
                white=white,
            )
        )


LINK_MAX = 300
"""The most characters the invite-code field takes: a pasted link is longer than a code
(a field of 32 cut it, and the cut link found no room)."""


class CodeDialog(_FormDialog[None]):
    """The invite code of a private room. The dialog sends the ``join`` itself and
    waits for the answer (``host.model.lobby.asked``): a refusal (no room has that
    code) is shown here, the code kept and selected to be typed again; the game
    coming on screen closes the dialog (the app closes it). A room with no seat for
    the player (its game started) is watched instead, as the lobby's Enter does. The
    web page's link to a room (``http://host:8765/#/room/K7Q-2MX-8RT``) may be pasted
    instead of its code; ``link`` (one given as the server's address) is sent at once."""

    def __init__(self, host: Host, link: RoomLink | None = None) -> None:
        super().__init__()
        self.host = host
        self.link = link
        self.waiting = False
        self.code = ""  # the code sent to join as a player, to watch by if no seat is free

    def compose(self) -> ComposeResult:
        with DialogBox(classes="dialog"):
            yield Label("[b]Join a private room[/b]")
            yield Input(
                self.link.key if self.link else "",
                placeholder="invite code, or the link to the room",
                id="code",
                max_length=LINK_MAX,
                compact=True,
            )
            watch = self.link is not None and self.link.watch
            yield TickBox("Watch only", watch, id="watch", compact=True)
            yield from _form_end("Join")
        yield Footer(compact=True)

    FOCUS = "#code"

    def on_mount(self) -> None:
        if self.link is not None:
            self.call_after_refresh(self.submit)

    def submit(self) -> None:
        if self.waiting:
            return  # the server has not answered the code sent yet
        code = self.query_one("#code", Input).value.strip()
        if not code:
            self.error("Type the invite code the room's creator gave you.")
            return
        watch = self.query_one("#watch", Checkbox).value
        if (link := room_link(code)) is not None:  # the page's link: its code (or room)
            code, watch = link.key, watch or link.watch
        self.code = "" if watch else code
        self._send(code, watch=watch)

    def _send(self, code: str, *, watch: bool) -> None:
        self.waiting = True
        self.error("")
        role: JoinRole = "spectator" if watch else "player"
        # A public room's link names its id; a private room's, its code.
        is_id = code.startswith("r-")
        join = msg.Join(room=code, role=role) if is_id else msg.Join(code=code, role=role)
        self.run_worker(self.host.ask(join, in_dialog=True))

    def show_model(self, model: ViewModel) -> None:
        """The answer came: a refusal is said here, and the code can be typed again.
        (When the room came on screen instead, the app has closed this dialog.)"""
        if not self.waiting or model.lobby.asked is not None or model.room is not None:
            return
        self.waiting = False
        if model.lobby.refusal == ErrorCode.ROOM_FULL and self.code:
            code, self.code = self.code, ""
            self._send(code, watch=True)  # no seat: the game is watched, as from the lobby
            return
        if model.lobby.notice:
            self.error(model.lobby.notice)
            field = self.query_one("#code", Input)
            field.focus()
            field.select_all()
