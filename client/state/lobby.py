"""The lobby as the client holds it: the rooms the server lists, and the quick-match
queue the player waits in.

The list follows ``lobby`` (in parts, for a long one), ``lobby_room`` and
``lobby_gone``; the queue follows ``queued`` and ``unqueued``, and ends when a game
of the player's comes on screen or the server forgets the player.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from client.state.session import IdentityLost
from engine.types import Rule
from protocol import messages as msg
from protocol.values import RoomSummary, TimeControl


@dataclasses.dataclass(frozen=True, slots=True)
class QueueView:
    """Waiting for a quick match since local time ``since``."""

    rule: Rule
    time: TimeControl | None
    since: float
    ai_after_ms: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class LobbyView:
    """The open rooms by id, and the quick match waited for (None: not queued)."""

    rooms: Mapping[str, RoomSummary] = dataclasses.field(default_factory=dict)
    queue: QueueView | None = None


def reduce_lobby(lobby: LobbyView, action: object, now: float, shown: str | None) -> LobbyView:
    """``lobby`` after ``action`` at local time ``now``; ``shown`` is the room on
    screen before it (a snapshot of another room ends the wait for a match)."""
    match action:
        case msg.Lobby(rooms=rooms, part=part):
            known = lobby.rooms if part else {}  # later parts of a long list add to it
            return dataclasses.replace(lobby, rooms={**known, **{r.id: r for r in rooms}})
        case msg.LobbyRoom(room=summary):
            return dataclasses.replace(lobby, rooms={**lobby.rooms, summary.id: summary})
        case msg.LobbyGone(room=room_id):
            left = {k: v for k, v in lobby.rooms.items() if k != room_id}
            return dataclasses.replace(lobby, rooms=left)
        case msg.Queued(rule=rule, time=time, since_ms=since_ms, ai_after_ms=ai_after_ms):
            since = now - (since_ms or 0) / 1000
            queue = lobby.queue
            if queue is not None and (queue.rule, queue.time) == (rule, time):
                since = queue.since
            return dataclasses.replace(lobby, queue=QueueView(rule, time, since, ai_after_ms))
        case msg.Unqueued() | IdentityLost():
            return dataclasses.replace(lobby, queue=None)
        case msg.Snapshot(room=view) if view.id != shown and lobby.queue is not None:
            return dataclasses.replace(lobby, queue=None)  # matched: the game is on screen
    return lobby
