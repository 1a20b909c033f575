"""Fan-out inside one server instance: one store subscription per watched room,
one for the lobby and one inbox for player notices, each delivered to the
local connections that want it. Encoding happens once per event and wire
encoding (MessagePack, JSON), not once per watcher."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

import msgspec
from websockets.asyncio.server import ServerConnection

from protocol.codec import Codec
from protocol.messages import LobbyGone, LobbyRoom
from protocol.values import RoomSummary
from server.frames import write_message
from server.store import PlayerInbox, Store, StoredEvent

log = logging.getLogger("gomoku.server")

_summary_decoder = msgspec.msgpack.Decoder(RoomSummary)


class Watcher(Protocol):
    """What the hub needs from a connection."""

    codec: Codec
    """The encoding of the frames the connection is given."""

    def room_event(self, room_id: str, seq: int, frame: bytes) -> ServerConnection | None:
        """Take a room's event: the socket to write ``frame`` to now, or None."""
        ...

    def send_bytes(self, frame: bytes) -> None: ...

    def room_gone(self, room_id: str) -> None:
        """The room is gone (expired, or closed while waiting): no more of its events."""
        ...


@dataclasses.dataclass
class _Feed:
    watchers: set[Watcher]
    ready: asyncio.Event
    task: asyncio.Task[None] | None = None
    _groups: list[tuple[Codec, list[Watcher]]] | None = None

    def add(self, watcher: Watcher) -> None:
        self.watchers.add(watcher)
        self._groups = None

    def discard(self, watcher: Watcher) -> None:
        self.watchers.discard(watcher)
        self._groups = None

    def by_encoding(self) -> list[tuple[Codec, list[Watcher]]]:
        """The watchers, grouped by the encoding of their frames: made again only after
        a watcher came or went, not at every event. (Lists of their own: a watcher that
        goes while an event is delivered does not change the lists being read.)"""
        if self._groups is None:
            groups: dict[Codec, list[Watcher]] = {}
            for watcher in self.watchers:
                groups.setdefault(watcher.codec, []).append(watcher)
            self._groups = list(groups.items())
        return self._groups


class Hub:
    """Per-instance subscriptions and the connections that receive them."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._feeds: dict[str, _Feed] = {}
        self.lobby_watchers: set[Watcher] = set()
        self._inbox: PlayerInbox | None = None
        self._inbox_ready = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self.on_notice: Callable[[str, bytes], Awaitable[None]] | None = None
        self._stopping = False

    # -- lifecycle -------------------------------------------------------------

    async def start(self) -> None:
        lobby_ready = asyncio.Event()
        self._tasks.append(asyncio.create_task(self._run_lobby(lobby_ready)))
        self._tasks.append(asyncio.create_task(self._run_inbox()))
        await lobby_ready.wait()
        await self._inbox_ready.wait()

    async def stop(self) -> None:
        self._stopping = True  # feeds ending now end with the store, not with their rooms
        tasks = self._tasks + [f.task for f in self._feeds.values() if f.task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._feeds.clear()

    def rooms_followed(self) -> int:
        return len(self._feeds)

    # -- rooms -----------------------------------------------------------------

    async def watch(self, room_id: str, watcher: Watcher) -> None:
        """Deliver the room's events to ``watcher`` from now on. Returns once the
        room's subscription is live, so a snapshot loaded afterwards is not
        older than the first event delivered."""
        feed = self._feeds.get(room_id)
        if feed is None:
            feed = self._feeds[room_id] = _Feed(set(), asyncio.Event())
            feed.task = asyncio.create_task(self._run_room(room_id, feed))
        feed.add(watcher)
        await feed.ready.wait()

    def unwatch(self, room_id: str, watcher: Watcher) -> None:
        feed = self._feeds.get(room_id)
        if feed is None:
            return
        feed.discard(watcher)
        if not feed.watchers:
            del self._feeds[room_id]
            if feed.task is not None:
                feed.task.cancel()

    async def _run_room(self, room_id: str, feed: _Feed) -> None:
        try:
            record = await self.store.load_room(room_id)
            after = 0 if record is None else record.seq

            def deliver(stored: StoredEvent) -> None:
                seq = stored.seq
                for codec, watchers in feed.by_encoding():
                    frame = codec.event_frame(room_id, seq, stored.data)  # stored by us: valid
                    sockets: list[ServerConnection] = []
                    for watcher in watchers:
                        try:
                            ws = watcher.room_event(room_id, seq, frame)
                        except Exception:  # pragma: no cover - never let one break a commit
                            log.exception("room %s: delivering event %d failed", room_id, seq)
                            continue
                        if ws is not None:
                            sockets.append(ws)
                    if sockets:  # synchronous writes, encoded once
                        write_message(sockets, frame, text=codec.text)

            listener = self.store.listen_room(room_id, after, deliver)
            if listener is not None:  # handed over synchronously, no queue
                async with listener as ended:
                    feed.ready.set()
                    await ended
            else:
                async with self.store.subscribe_room(room_id, after) as events:
                    feed.ready.set()
                    async for stored in events:
                        deliver(stored)
            # A feed ends by itself only when its room is gone (an unwatched or stopped
            # one is cancelled): its watchers are told, or a player looking at a finished
            # game learnt it only from the next action's ``no_such_room``.
            if not self._stopping:
                for watcher in list(feed.watchers):
                    watcher.room_gone(room_id)
        finally:
            feed.ready.set()
            if self._feeds.get(room_id) is feed:
                del self._feeds[room_id]

    # -- lobby -----------------------------------------------------------------

    async def _run_lobby(self, ready: asyncio.Event) -> None:
        async with self.store.subscribe_lobby() as changes:
            ready.set()
            async for change in changes:
                message: LobbyGone | LobbyRoom
                if change.summary is None:
                    message = LobbyGone(room=change.room_id)
                else:
                    message = LobbyRoom(room=_summary_decoder.decode(change.summary))
                frames: dict[Codec, bytes] = {}
                for watcher in list(self.lobby_watchers):
                    frame = frames.get(watcher.codec)
                    if frame is None:
                        frame = frames[watcher.codec] = watcher.codec.encode(message)
                    watcher.send_bytes(frame)

    # -- player notices ------------------------------------------------------------

    async def add_player(self, player_id: str) -> None:
        if self._inbox is not None:
            await self._inbox.add(player_id)

    async def remove_player(self, player_id: str) -> None:
        if self._inbox is not None:
            await self._inbox.remove(player_id)

    async def _run_inbox(self) -> None:
        async with self.store.subscribe_players() as inbox:
            self._inbox = inbox
            self._inbox_ready.set()
            async for message in inbox:
                if self.on_notice is not None:
                    try:
                        await self.on_notice(message.player_id, message.data)
                    except Exception:
                        log.exception("player notice for %s failed", message.player_id)
