"""The game screen's text line and its prompt bar.

Typing is never a command on the game screen: a printable key pressed while the
board, the move list or the log has focus (all but a space, and ``?`` and ``.``,
which are keys of their own: help, the last move) starts the text line with that
character (:meth:`EntryLine.take_key`), so ``h8`` Enter plays h8 whatever had
focus, and chat is typed the same way; ``/`` starts a command line the same way
(on the prompt bar too, where other letters wait for the question's answer). Game
actions are on Ctrl keys, which no text uses; they act while a line is typed too
(the text line gives up Input's ^D, delete right, for the draw).

Keys reach a widget through its own queue, so the keys typed right after the
first one may already be on their way to that widget when the text line takes
focus. Each of those widgets (:class:`HandsTypingOn`) therefore keeps handing
keys on (the rest of the line, Enter, Backspace) until it has focus again:
``h``, ``8``, Enter typed in one burst plays h8, never the cursor's point, and
``/draw`` Enter in one burst offers a draw. The ``/`` is handed on in its place
among the keys for the same reason: as a screen binding it would reach the
screen only after the letters behind it had reached the text line.

The prompt bar shows a question (:class:`client.prompts.Prompt`) and takes its
answer keys (``y`` / ``n``, ``b`` / ``w`` / ``p``, capitals too; Enter is the first
answer, Esc the last) while it has focus. Any other letter or digit is ignored (it
was not meant for the question: it neither answers it nor starts a line the player
did not see begin) and the screen says which keys answer; ``/`` starts a command
line, Tab goes on to the text line and an arrow key back to the board. Answer keys
pressed within :data:`PROMPT_GUARD_S` of the question appearing, or of a key it
ignored, are ignored too: they were meant for what was on screen before, or are the
rest of what was being typed (``h8`` Enter never accepts an offer).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import ClassVar, Protocol

from rich.text import Text
from textual import events, on
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

from client.prompts import EVERY_ANSWER, Prompt
from protocol.text import VARIATION_SELECTORS, ZWJ, chat_typable

PROMPT_GUARD_S = 0.4
COMMAND_START = "/"
ARROWS = frozenset({"up", "down", "left", "right"})


class TextSink(Protocol):
    """Where keys typed on the board, the move list, the log or the prompt bar go:
    the text line."""

    async def take_key(self, event: events.Key, *, typing: bool) -> bool:
        """Take ``event`` if it belongs to the text: a key that starts text
        (:func:`starts_text`) always, the rest of a line (any printable key, Enter, Backspace) while
        ``typing``. True when taken (the caller stops the key)."""
        ...


KEYS_OF_THEIR_OWN = frozenset("?.")
"""Printable keys that do not begin text on the game screen: help, the last move."""


def typable(event: events.Key) -> bool:
    """A key that types its character into the line: a printable one, and the joiners,
    direction marks and no-break spaces that Python does not call printable but text
    needs (an emoji family, Persian words, French typography's no-break space before ``!``)."""
    character = event.character
    return character is not None and (event.is_printable or chat_typable(character))


def starts_text(event: events.Key) -> bool:
    """A key that begins typed text: any printable character but a space and
    :data:`KEYS_OF_THEIR_OWN` (a point, a chat line, ``/`` a command). Chat may begin
    with punctuation: ``:)`` was dropped key by key, and its Enter then played the
    cursor's point."""
    character = event.character
    if character is None or not event.is_printable or character.isspace():
        return False
    return character not in KEYS_OF_THEIR_OWN


class HandsTypingOn(Widget, can_focus=True):
    """A focusable widget of the game screen on which typing starts the text line
    (:attr:`sink`). The widget's own key handler calls :meth:`hand_typing_on`.
    Listed first among a widget's bases; ``can_focus=True`` here, since Textual
    copies the flag into each subclass and a container after this class in the
    bases (the log's VerticalScroll) would otherwise lose its own."""

    sink: TextSink | None = None
    """Where typed text goes (the text line); None: nowhere (the key is left alone)."""
    _handing_on = False

    async def hand_typing_on(self, event: events.Key, *, starts: bool) -> bool:
        """Hand ``event`` on to :attr:`sink` when it starts a line (``starts``), or
        follows one handed on from here: every key that still reaches this widget
        after it gave the focus to the text line was typed after the start of that
        line, so it goes there too, in order (Enter included). True when handed on
        (the event is stopped: no binding of this widget or the screen acts on it)."""
        sink = self.sink
        typing = self._handing_on
        if sink is None or not (typing or starts):
            return False
        if not await sink.take_key(event, typing=typing):
            return False
        self._handing_on = True
        event.stop()
        event.prevent_default()
        return True

    @on(events.Focus)
    def _focus_back(self) -> None:
        """Focus is back here: the next key typed starts a new line (or is this
        widget's own key). A handler of its own, so it runs beside any ``on_focus``
        of the widget."""
        self._handing_on = False


def _extends(c: str) -> bool:
    """Whether ``c`` draws as part of the character before it: a combining mark, a
    variation selector, a skin tone, a zero-width joiner."""
    return (
        c == ZWJ
        or c in VARIATION_SELECTORS
        or "\U0001f3fb" <= c <= "\U0001f3ff"
        or unicodedata.category(c) in ("Mn", "Mc", "Me")
    )


def _flag_half(c: str) -> bool:
    """A regional indicator: two of them draw one flag (🇫🇷)."""
    return "\U0001f1e6" <= c <= "\U0001f1ff"


def _pairs_before(text: str, index: int) -> int:
    """How many regional indicators run up to ``index``: flags pair them from the start."""
    count = 0
    while index - count > 0 and _flag_half(text[index - count - 1]):
        count += 1
    return count


def character_before(text: str, index: int) -> int:
    """Where the character drawn just before ``index`` in ``text`` begins: an emoji
    family, an accent typed after its letter, an emoji with its skin tone, a flag are
    one."""
    start = max(0, index - 1)
    if start > 0 and _flag_half(text[start]) and _pairs_before(text, index) % 2 == 0:
        return start - 1
    while start > 0 and (_extends(text[start]) or text[start - 1] == ZWJ):
        start -= 1
    return start


def character_after(text: str, index: int) -> int:
    """Where the character drawn from ``index`` in ``text`` ends (see
    :func:`character_before`)."""
    end = min(len(text), index + 1)
    pair = end < len(text) and _flag_half(text[index]) and _flag_half(text[end])
    if pair and _pairs_before(text, index) % 2 == 0:
        return end + 1
    while end < len(text) and (_extends(text[end]) or text[end - 1] == ZWJ):
        end += 1
    return end


class TextInput(Input):
    """An Input that also types the characters :func:`typable` adds to the printable
    ones (a form's name field): Input drops them, and an emoji family typed as a name
    was kept as three people, its joiners gone. Backspace, Delete and the arrows take
    a character as drawn, not a code point: an emoji family took five Backspaces, the
    cursor lost among them."""

    async def _on_key(self, event: events.Key) -> None:
        if not event.is_printable and typable(event):
            assert event.character is not None
            event.stop()
            event.prevent_default()
            self.insert_text_at_cursor(event.character)

    def action_delete_left(self) -> None:
        if self.selection.is_empty and self.cursor_position > 0:
            self.delete(character_before(self.value, self.cursor_position), self.cursor_position)
        else:
            super().action_delete_left()

    def action_delete_right(self) -> None:
        if self.selection.is_empty and self.cursor_position < len(self.value):
            self.delete(self.cursor_position, character_after(self.value, self.cursor_position))
        else:
            super().action_delete_right()

    def action_cursor_left(self, select: bool = False) -> None:
        if not select and self.selection.is_empty:
            self.cursor_position = character_before(self.value, self.cursor_position)
        else:
            super().action_cursor_left(select)

    def action_cursor_right(self, select: bool = False) -> None:
        at_end = self.cursor_position >= len(self.value)
        if not select and self.selection.is_empty and not at_end:
            self.cursor_position = character_after(self.value, self.cursor_position)
        else:
            super().action_cursor_right(select)


class ToBoard(Message):
    """An arrow key on the prompt bar: back to the board, moving its cursor."""

    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key


EDITING_KEYS = {
    "enter": "submit",
    "backspace": "delete_left",
    "delete": "delete_right",
    "left": "cursor_left",
    "right": "cursor_right",
    "home": "home",
    "end": "end",
}
"""The text line's keys that change the line, and their Input actions."""


class EntryLine(TextInput):
    """The text line: a point to play (``h8``), a ``/command``, or chat."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Send", tooltip="Play the point typed, run a /command, chat"),
        # Input deletes right with ^D; here ^D offers a draw (the screen's binding), as
        # do the other game keys, which Input leaves alone. A binding never enabled
        # (check_action) hands the key on up the chain and keeps it off the footer.
        Binding("ctrl+d", "game_key", show=False),
    ]

    DEFAULT_CSS = """
    EntryLine { height: 1; border: none; padding: 0 1; background: $panel; }
    EntryLine:focus { border: none; background: $primary 40%; }
    """

    def __init__(self, *, placeholder: str, max_length: int = 0, id: str | None = None) -> None:
        """``max_length``: the most characters it takes (a chat line's limit), 0 none."""
        super().__init__(
            placeholder=placeholder, id=id, select_on_focus=False, max_length=max_length
        )
        self.cursor_blink = False  # a blinking cursor would redraw an idle screen twice a second

    async def _on_key(self, event: events.Key) -> None:
        """Input types printable keys only; the characters text needs beside them
        (:func:`typable`) are typed here, and so are the editing keys and Enter
        (:data:`EDITING_KEYS`), in their place among the keys typed. As Input's
        bindings they acted only once the key had passed up to the app, after the
        letters typed behind them (Textual issue 6605: ``abc`` Left Left ``X`` gave
        ``abcX``), and with whatever had the focus by then (an Enter ending a line
        played the board's cursor once the focus had gone back to the board)."""
        action = EDITING_KEYS.get(event.key)
        if action is not None:
            event.stop()
            event.prevent_default()
            await self.run_action(action)
        elif not event.is_printable and typable(event):
            assert event.character is not None
            event.stop()
            event.prevent_default()
            self.insert_text_at_cursor(event.character)

    async def action_submit(self) -> None:
        """Send the line (:class:`Input.Submitted`) and empty it at once: the keys typed
        after Enter begin the next line. Emptied later, by the screen's handler of the
        message, a busy room lost them (``lol`` reached the room as ``ol``)."""
        line, self.value = self.value, ""
        self.post_message(self.Submitted(self, line))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``game_key`` is never this line's: the key goes on to the game screen."""
        return action != "game_key"

    async def take_key(self, event: events.Key, *, typing: bool) -> bool:
        """A key pressed on another widget that belongs here (see :class:`TextSink`):
        applied in order, and the focus moves here at once."""
        character = event.character
        if character == COMMAND_START and not typing:
            self.start_command()
        elif starts_text(event) or (typing and character and typable(event)):
            assert character is not None
            self.insert_text_at_cursor(character)
        elif typing and event.key == "enter":
            await self.action_submit()
        elif typing and event.key == "backspace":
            self.action_delete_left()
        else:
            return False
        if self.screen.focused is not self:
            self.screen.set_focus(self)
        return True

    def start_command(self) -> None:
        """``/`` pressed elsewhere on the screen: an empty line starts with it; a line
        half typed is kept as it is (the key just brings the focus back to it)."""
        if not self.value:
            self.insert_text_at_cursor(COMMAND_START)


def _said(meaning: str) -> str:
    """An answer as the footer names it: ``Accept``, ``Not now``, ``Black``."""
    return {"take black": "Black", "take white": "White", "place two more": "Place two"}.get(
        meaning, meaning.capitalize()
    )


class PromptBar(HandsTypingOn, Static, can_focus=True):
    """A question with its answer keys; :class:`Answered` carries the answer, and
    :class:`Ignored` a key that answers nothing. Enter is one of those: a person who
    was typing a move when the question came ends it with Enter, and an answer by Enter
    would accept a draw or a takeback they never read. Esc answers nothing either, and
    keeps the keys here (it declined an offer, and chose "place two more" in swap2, for
    a person who pressed it to get back to the question, and their answer key went to
    the text line): the log says which keys answer, and the next one does."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # One binding per answer, shown only while the question has it: the footer
        # says what the question line says ("y Accept n Decline"), where it said
        # "y Yes n No" under "y accept · n decline".
        *(
            Binding(f"{key},{key.upper()}", f"answer({key!r}, {meaning!r})", _said(meaning))
            for key, meaning in EVERY_ANSWER
        ),
        Binding("escape", "stay", "Stay", show=False),
    ]

    DEFAULT_CSS = """
    PromptBar { height: auto; max-height: 3; background: $warning 30%; padding: 0 1; }
    PromptBar:focus { background: $warning 70%; text-style: bold; }
    """

    class Answered(Message):
        """The player answered ``prompt`` with ``key`` (one of its answer keys)."""

        def __init__(self, prompt: Prompt, key: str) -> None:
            super().__init__()
            self.prompt = prompt
            self.key = key

    class Ignored(Message):
        """A letter or digit that answers nothing was typed at ``prompt``."""

        def __init__(self, prompt: Prompt) -> None:
            super().__init__()
            self.prompt = prompt

    def __init__(self, clock: Callable[[], float], *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.clock = clock
        self.prompt: Prompt | None = None
        self.shown_at = 0.0

    def ask(self, prompt: Prompt | None, marker: str = "▶", sep: str = "·") -> bool:
        """Show ``prompt`` (None: none); True when it is a new question."""
        new = prompt is not None and (self.prompt is None or self.prompt.ident != prompt.ident)
        if new:
            self.shown_at = self.clock()
        keys_before = None if self.prompt is None else self.prompt.keys
        self.prompt = prompt
        self.update(Text(f"{marker} {prompt.line(sep)}") if prompt is not None else "")
        self.display = prompt is not None
        if keys_before != (None if prompt is None else prompt.keys):
            # The footer shows the answer keys: told only when they change (each tick of
            # a countdown in the question rebuilt it, a flicker under tmux).
            self.refresh_bindings()
        return new

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action != "answer" or not parameters:
            return True
        if self.prompt is None:
            return False
        return tuple(parameters) in self.prompt.answers

    async def on_key(self, event: events.Key) -> None:
        """An arrow goes back to the board; ``/`` starts a command line, and the keys
        after it follow it there; Enter, and a letter or digit that answers nothing, are
        ignored (and the answer keys right after them too); the answer keys are left to
        the bindings."""
        prompt = self.prompt
        if event.key in ARROWS:
            event.stop()
            self.post_message(ToBoard(event.key))
            return
        if await self.hand_typing_on(event, starts=event.character == COMMAND_START):
            return
        if prompt is not None and event.key == "enter":
            event.stop()
            event.prevent_default()
            self.shown_at = self.clock()
            self.post_message(self.Ignored(prompt))
            return
        character = event.character
        if prompt is None or character is None or not starts_text(event):
            return
        if character.lower() not in prompt.keys:
            event.stop()
            event.prevent_default()
            self.shown_at = self.clock()  # what comes right after it is not an answer
            self.post_message(self.Ignored(prompt))

    def action_stay(self) -> None:
        """Esc at a question: it waits, and says which keys answer it (the guard time
        is not begun again: the answer that follows is meant)."""
        if self.prompt is not None:
            self.post_message(self.Ignored(self.prompt))

    def action_answer(self, key: str, meaning: str = "") -> None:
        prompt = self.prompt
        if prompt is None or self.clock() - self.shown_at < PROMPT_GUARD_S:
            return
        if key in prompt.keys:
            self.post_message(self.Answered(prompt, key))
