"""This instance in the store, and keeping the store tidy: the instance's id and lease
(renewed while it lives, so its connections' attachments keep players present only
while it does; its connections attached again if it finds the lease was taken over
while it was paused or cut off, and closed if the store lost its data), reaping the
attachments of instances that stopped renewing theirs, dropping attachments a closed
connection could not drop while the store was unreachable, and purging what expired."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
from collections.abc import Awaitable, Callable

from protocol.errors import CloseCode
from server.cluster import instances
from server.config import Timers
from server.game import GameError
from server.metrics import Metrics
from server.service import NoSuchRoom, RoomService, counted, now_ms
from server.store import Store, StoreUnavailable
from server.store_watch import StoreWatch

log = logging.getLogger("gomoku.server")

DATA_LOST = "the game store lost its data: connect again and start afresh"
"""The close reason (1012) when the store lost its data."""


class Housekeeping:
    """The instance's lease, stale attachments, and expiry."""

    def __init__(
        self, store: Store, service: RoomService, timers: Timers, metrics: Metrics
    ) -> None:
        self.store = store
        self.service = service
        self.timers = timers
        self.metrics = metrics
        self.instance_id = secrets.token_hex(6)
        """This instance in the store: its connections' attachments carry it, and its
        lease (renewed by :meth:`keep_lease`) says it is alive."""
        self._conn_ids = itertools.count(1)
        self.reattach: Callable[[], Awaitable[tuple[int, bool]]] | None = None
        """Attaches this instance's connections again to their rooms (set by the server,
        :meth:`Listener.reattach`): called when its lease was found taken over."""
        self._reattaching: asyncio.Task[None] | None = None
        self._reattach_due = False
        self.close_all: Callable[[int, str], int] | None = None
        """Closes every connection with a code and reason (set by the server): the store
        lost its data, and every game and session with it."""
        self._epoch: str | None = None
        """The store's data as this instance knows it (:meth:`Store.data_epoch`)."""
        self._written: set[int] = set()
        """Where this instance set its lease at its last beat that answered, and at the
        beats since that failed (they may have been done): a beat that finds another value
        there finds the lease was taken over."""
        self._detach_retry: set[tuple[str, str]] = set()
        """(room, connection) attachments a closed connection could not drop (the store
        was unreachable): tried again until they are gone."""

    def new_conn_id(self) -> str:
        """A connection id unique over every instance: this instance's id, ``/``, a number."""
        return f"{self.instance_id}/{next(self._conn_ids)}"

    def detach_later(self, room_id: str, conn_id: str) -> None:
        """A closed connection's attachment that could not be dropped now: try again."""
        self._detach_retry.add((room_id, conn_id))

    async def detach(self, room_id: str, conn_id: str) -> int | None:
        """Drop a connection's attachment to a room: the player's attachments left there,
        or None if the store is unreachable (then it is dropped later, :meth:`detach_later`:
        an attachment left behind would keep the player present)."""
        try:
            return await self.store.detach(room_id, conn_id, now_ms())
        except StoreUnavailable:
            self.detach_later(room_id, conn_id)
            return None

    async def join(self) -> None:
        """Starting: take the lease before serving anyone."""
        self._epoch = await self.store.data_epoch()
        until = now_ms() + self.timers.instance_lease_ms
        await self.store.instance_beat(self.instance_id, until)
        self._written = {until}

    async def keep_lease(self) -> None:
        """Renew this instance's lease; reap instances whose lease ran out (their
        attachments would keep players present forever); drop attachments that closed
        connections left behind while the store was unreachable."""
        lease = self.timers.instance_lease_ms
        last_beat: int | None = None  # when this instance's lease was last renewed
        steady_since: int | None = None  # renewed on time since then
        watch = StoreWatch("the instance lease waits for it")
        while True:
            await asyncio.sleep(lease / 5000)
            try:
                now = now_ms()
                self._written.add(now + lease)  # a second run of this beat finds its own
                before = await self.store.instance_beat(self.instance_id, now + lease)
                watch.answered()
                renewed = now_ms()
                if before not in self._written:
                    self._reattach_due = not await self._data_lost()
                self._written = {now + lease}
                if self._reattach_due and self._reattaching is None:
                    # Beside the renewals: a pass over thousands of connections may take
                    # longer than a lease, which unrenewed would be taken again.
                    self._reattach_due = False
                    self._reattaching = asyncio.create_task(self._reattach())
                if last_beat is None or steady_since is None or renewed - last_beat > lease / 2:
                    # A gap in our own renewals (starting, or the store hung or was gone):
                    # the other instances may have had the same gap. Their leases ran out
                    # with ours; they get a whole lease to renew before being reaped (a
                    # hung Redis made every instance reap the others' live players).
                    steady_since = renewed
                last_beat = renewed
                for room_id, conn_id in sorted(self._detach_retry):
                    if await self.store.detach(room_id, conn_id, now) == 0:
                        await self.service.presence_changed(room_id)
                    self._detach_retry.discard((room_id, conn_id))
                if renewed - steady_since < lease:
                    continue
                expired = await self.store.expired_instances(now, lease)
                known = await instances(self.store) if expired else {}
                for instance in expired:
                    gone = await self.store.reap_instance(instance, now)
                    at = f" at {known[instance].address}" if instance in known else ""
                    log.warning(
                        "server instance %s%s stopped renewing its lease: its connections left %s",
                        instance,
                        at,
                        counted(len(gone), "room"),
                    )
                    for room_id in gone:
                        with contextlib.suppress(GameError, NoSuchRoom):
                            await self.service.presence_changed(room_id)
            except StoreUnavailable as exc:
                steady_since = None
                watch.failed(exc)
            except Exception:
                self.metrics.inc("gomoku_errors_internal_total")
                log.exception("instance lease upkeep failed")

    async def _data_lost(self) -> bool:
        """Whether the store lost its data since this instance last looked (a Redis
        restarted without persistence): every room, session and lease is gone, and the
        connections here follow games that no longer exist, their players told nothing
        (their tokens are gone too). They are closed with 1012, as a server restarted
        without its data would close them: clients connect again and start afresh."""
        epoch = await self.store.data_epoch()
        if epoch == self._epoch:
            return False
        self._epoch = epoch
        closed = self.close_all(CloseCode.SERVICE_RESTART, DATA_LOST) if self.close_all else 0
        log.warning(
            "the store lost its data (a Redis restarted without persistence?): every game, "
            "session and AI seat in it is gone; closed %d connections (1012) so that their "
            "clients start afresh",
            closed,
        )
        return True

    async def _reattach(self) -> None:
        """This instance's lease ran out and another instance took it over: its live
        connections' attachments may have been reaped (the players read as offline, and
        their games would end by abandon), so they are attached again. A pass that could
        not do every connection (the store unreachable, one moving to a sibling) is
        due again at the next renewal."""
        try:
            if self.reattach is None:
                return
            log.warning(
                "this server instance's lease was taken over (it was paused or cut off "
                "from the store for longer than %d ms): attaching its connections again",
                self.timers.instance_lease_ms,
            )
            done, whole = await self.reattach()
            self._reattach_due = self._reattach_due or not whole
            log.warning("attached %d connections again", done)
        except StoreUnavailable as exc:
            self._reattach_due = True
            log.info("attaching connections again waits for the store: %s", exc)
        except Exception:
            self._reattach_due = True
            self.metrics.inc("gomoku_errors_internal_total")
            log.exception("attaching connections again failed")
        finally:
            self._reattaching = None

    async def leave(self) -> None:
        """Stopping: every connection detached as it closed; drop whatever attachment of
        this instance is left and its lease, so a stopped instance keeps nobody present.
        Nothing if it never took its lease (:meth:`join`): it attached no one, and a
        store that did not answer at the start would hold the stop too."""
        if self._reattaching is not None:
            self._reattaching.cancel()
        if not self._written:
            return
        with contextlib.suppress(StoreUnavailable):
            gone = await self.store.reap_instance(self.instance_id, now_ms())
            for room_id in gone:
                with contextlib.suppress(GameError, NoSuchRoom):
                    await self.service.presence_changed(room_id)

    async def purge(self) -> None:
        """Drop what expired, now and then (the memory store's rooms and sessions, the
        Redis store's index of rooms)."""
        while True:
            await asyncio.sleep(self.timers.purge_interval_s)
            try:
                await self.store.purge()
            except StoreUnavailable as exc:
                log.info("housekeeping waits for the store: %s", exc)
