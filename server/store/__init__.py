"""Where the server keeps shared state: one interface, several backends."""

from server.store.base import (
    Announced,
    Attachment,
    Attendance,
    CommitResult,
    Conflict,
    LobbyChange,
    Outage,
    PlayerInbox,
    PlayerMessage,
    QueueEntry,
    RoomRecord,
    Store,
    StoredEvent,
    StoreUnavailable,
)
from server.store.memory import MemoryStore

__all__ = [
    "Announced",
    "Attachment",
    "Attendance",
    "CommitResult",
    "Conflict",
    "LobbyChange",
    "MemoryStore",
    "Outage",
    "PlayerInbox",
    "PlayerMessage",
    "QueueEntry",
    "RoomRecord",
    "Store",
    "StoreUnavailable",
    "StoredEvent",
]
