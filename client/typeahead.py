"""Keys typed while a room's screen is on its way, kept for it.

Enter on a room in the lobby asks the server to join it, and the game screen comes with
the answer, a moment later. Keys typed meanwhile went to the lobby, where a letter or a
digit means nothing, and those after to the game screen once it showed: ``h8`` Enter
typed right after joining lost its ``h``, and ``8`` went to the chat. A :class:`TypeAhead`
keeps such keys from the request until the room's screen shows, which then takes them
in the order typed.
"""

from __future__ import annotations

import dataclasses

from textual import events

from client.widgets.entry import starts_text

HOLD_S = 5.0
"""How long keys are kept for a screen that has not come: after that they were typed at
the lobby, as the player sees it."""

EDITING_KEYS = frozenset({"enter", "backspace", "space"})


@dataclasses.dataclass(slots=True)
class TypeAhead:
    """The keys kept since ``since`` (the clock's time of the request)."""

    since: float
    keys: list[events.Key] = dataclasses.field(default_factory=list)

    def keep(self, event: events.Key, now: float) -> bool:
        """Keep ``event`` if it is text for the room's screen: a key that begins text (a
        point, a chat line), then the keys that go on with it or end it. A key before
        any text is the lobby's (a second Enter on the room, given to the board, would
        play its cursor's point); so is every key once :data:`HOLD_S` has passed."""
        if now - self.since > HOLD_S:
            return False
        going_on = event.is_printable or event.key in EDITING_KEYS
        kept = going_on if self.keys else starts_text(event)
        if kept:
            self.keys.append(event)
        return kept

    def replayed(self) -> list[events.Key]:
        """The kept keys, as new events to post to the app (an event is handled once)."""
        return [events.Key(key.key, key.character) for key in self.keys]
