"""A bounded map that keeps what was used last: the server's per-room memories (the
position of recent rooms, the room state last committed) forget the rooms not touched
for longest once they hold ``size`` of them."""

from __future__ import annotations

import collections
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Recent(Generic[K, V]):
    """At most ``size`` entries; :meth:`get` and :meth:`put` make an entry the newest."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: collections.OrderedDict[K, V] = collections.OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        if len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def pop(self, key: K) -> V | None:
        """Forget ``key``; what it held, or None."""
        return self._entries.pop(key, None)

    def __len__(self) -> int:
        return len(self._entries)
