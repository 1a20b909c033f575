"""The AI watchdog: what happens to AI seats whose worker goes away.

Liveness: a worker sends ``bot_heartbeat``; one silent for three heartbeats is
closed. A seat nobody plays (its room has shown it offline for ``lease_ms``, or it
never connected within ``lease_ms`` of being given out) while its game runs is handed
over (to any worker with a free seat, its old one too): a new token is issued, the old
session is deleted (the old token stops working) and connections still using it are
closed, so two workers never play one seat. The seat goes back to the shared AI pool,
where a worker of any instance takes it. A worker whose own connection is gone keeps
its seats for ``lease_ms``, so it can reconnect and carry on.

The registry lives in one server instance and holds the seats its own workers took
from the pool. A seat's presence in its rooms is what every instance sees, so a seat
that plays through another instance (behind a load balancer) is left to that one
rather than taken away.

Across a restart: every AI seat in play is also recorded in the store (its token
hash, worker, name and level; :meth:`Store.put_ai_seat`), from when it is given out
until it is released (a seat waiting in the pool has no worker in its record, and is
left to the pool). The watchdog loads those records when it starts, so the
instance knows its seats before any of them says hello again: each is held for its
worker as if the worker's connection had just gone, and gets one lease for the worker
to come back. After that it is judged like any seat nobody plays here: released if
its games are over, left alone if its room shows it online through another instance,
otherwise handed over. A room's "online" is not believed for a seat that has not said
hello since the latest outage (every instance was down, so no connection survived
it; that is how a killed server leaves its rooms). A handover replaces the seat's
record only if it is still the one this instance knew (one atomic step), so two
instances that both judge a seat never both hand it over.

An instance that dies takes its registry with it. So every lease, each instance adopts
the seats in the store whose worker is connected to no instance (its record in the
cluster ran out) and that it does not know: held as if just restored, they are judged
like any other, and the one instance whose handover wins puts the seat back in the pool.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection

import msgspec

from protocol import messages as m
from protocol.backoff import sleep_unless
from server.bots.registry import AiSeat, SeatRecord, Worker, WorkerRegistry
from server.bots.seating import AiSeating, Claim, cluster_workers
from server.config import Bots
from server.metrics import Metrics
from server.notices import Notice, encode_notice
from server.room import LIVE_STATES, Seat
from server.service import RoomService, counted, now_ms
from server.sessions import decode_session, new_token, token_hash
from server.store import Store, StoreUnavailable
from server.store_watch import StoreWatch

log = logging.getLogger("gomoku.server")

OPEN_STATES = frozenset({"waiting", *LIVE_STATES})
"""A room whose game is not over."""

SILENT_HEARTBEATS = 3
"""A worker that sends nothing for this many heartbeat intervals is closed."""

_record_decoder = msgspec.msgpack.Decoder(SeatRecord)


class Watchdog:
    """Closes silent workers, expires their leases, and hands over or releases seats."""

    def __init__(
        self,
        registry: WorkerRegistry,
        seating: AiSeating,
        store: Store,
        service: RoomService,
        settings: Bots,
        metrics: Metrics,
    ) -> None:
        self.registry = registry
        self.seating = seating
        self.store = store
        self.service = service
        self.settings = settings
        self.metrics = metrics
        self._gameless: set[str] = set()
        """AI seats waiting in the pool that had no running game at the last sweep."""

    async def watch(self) -> None:
        """Learn the AI seats in play from the store (once it answers), then close
        silent workers, expire leases, hand over or release seats."""
        tick = max(0.02, min(self.settings.heartbeat_ms, self.settings.lease_ms) / 4000)
        changed = self.registry.changed
        restored = False
        adopted_at = time.monotonic()
        watch = StoreWatch("AI seats nobody looks after are looked for when it answers")
        while True:
            if restored and time.monotonic() - adopted_at >= self.settings.lease_ms / 1000:
                adopted_at = time.monotonic()
                try:
                    await self.adopt()
                    watch.answered()
                except StoreUnavailable as error:
                    watch.failed(error)
                except Exception:
                    self.metrics.inc("gomoku_errors_internal_total")
                    log.exception("looking for AI seats nobody looks after failed")
            if not restored:
                try:
                    if count := await self.restore():
                        log.info(
                            "%s in play at start-up, loaded from the store; their workers "
                            "may return",
                            counted(count, "AI seat"),
                        )
                    restored = True
                except StoreUnavailable as error:
                    log.warning("cannot load the AI seats in play yet: %s", error)
                except Exception:
                    self.metrics.inc("gomoku_errors_internal_total")
                    log.exception("loading the AI seats in play failed")
                    restored = True  # a bug, not an outage: do not try every tick
            try:
                await self.check()
            except Exception:
                self.metrics.inc("gomoku_errors_internal_total")
                log.exception("AI watchdog failed")
            await sleep_unless(changed, tick)  # not wait_for: it can lose a cancellation
            changed.clear()

    async def adopt(self) -> None:
        """Look after the AI seats whose worker is connected to no instance any more
        (its instance died with it, or it never came back there): held here as if
        just restored, so they are judged after one lease like any seat nobody plays.
        Several instances may adopt a seat; only one hands it over (see
        :meth:`_hand_over`)."""
        live = await cluster_workers(self.store)
        known = self.registry.workers
        if count := await self.restore(keep=lambda worker: worker in live or worker in known):
            log.info(
                "looking after %s whose worker is connected to no instance; handed over "
                "after one lease unless it comes back",
                counted(count, "AI seat"),
            )
        await self.sweep_waiting()

    async def sweep_waiting(self) -> None:
        """Release the AI seats waiting in the pool whose games have ended: their game
        ended before any worker of their level took them (the player resigned, say, after
        the worker died), so no worker holds them and no watchdog judges them, and each
        would count against every worker's capacity (``no_ai_available``) until a worker
        of that level came. A seat is released when it had no running game at two sweeps
        in a row, a lease apart: a seat just claimed is not in its room yet. Its job,
        still queued, is dropped by whoever takes it (its token no longer works)."""
        gameless: set[str] = set()
        for player, data in (await self.store.ai_seats()).items():
            try:
                record = _record_decoder.decode(data)
            except msgspec.DecodeError:
                continue  # restore() forgets it
            if record.worker or await self._seat_rooms(player, OPEN_STATES):
                continue  # a worker holds it (judged there), or its game is not over
            if player not in self._gameless:
                gameless.add(player)
                continue
            await self.store.delete_session(record.token_hash)
            if await self.store.drop_ai_seat(player):  # (not by another instance first)
                log.info("AI seat %s waiting in the AI pool: its game is over; released", player)
        self._gameless = gameless

    async def restore(self, keep: Callable[[str], bool] | None = None) -> int:
        """Hold every AI seat the store records as in play and the registry does not
        know yet (a restart), for its worker, as if the worker's connection had just
        gone: the worker gets one lease to come back before the seat is judged. Seats
        whose worker ``keep`` names are left alone. How many were taken up."""
        registry = self.registry
        now = time.monotonic()
        restored = 0
        for player, data in (await self.store.ai_seats()).items():
            if registry.tracked(player) is not None:
                continue  # it said hello before we got here
            try:
                record = _record_decoder.decode(data)
            except msgspec.DecodeError:
                log.warning("AI seat %s: unreadable record in the store; forgotten", player)
                await self.store.drop_ai_seat(player)
                continue
            if not record.worker or (keep is not None and keep(record.worker)):
                continue  # waiting in the AI pool, or its worker is alive somewhere
            seat = AiSeat(player, record.name, record.level, record.token_hash)
            seat.away_since = seat.restored_at = now
            registry.hold(registry.known_worker(record.worker, now), seat)
            restored += 1
        registry.changed.set()
        return restored

    async def check(self) -> None:
        registry = self.registry
        now = time.monotonic()
        lease = self.settings.lease_ms / 1000
        silent = SILENT_HEARTBEATS * self.settings.heartbeat_ms / 1000
        for worker in list(registry.workers.values()):
            if worker.link is not None and now - worker.last_seen > silent:
                log.warning("AI worker %s missed its heartbeats; closing it", worker.id)
                worker.link.close(1008, "missed heartbeats")
                registry.link_closed(worker.id, worker.link)
            if worker.link is None and worker.lost_at is not None and now - worker.lost_at > lease:
                for seat in worker.held.values():
                    registry.owner.pop(seat.player, None)
                    registry.orphans[seat.player] = seat
                del registry.workers[worker.id]
                if worker.linked:  # (one known here only by its seats' connections is
                    # connected to another instance or process: nothing to say of it)
                    log.info("AI worker %s did not come back to this instance", worker.id)
        for worker in list(registry.workers.values()):
            for seat in list(worker.held.values()):
                await self._judge(seat, worker)
        for seat in list(registry.orphans.values()):
            await self._judge(seat, None)

    async def _judge(self, seat: AiSeat, worker: Worker | None) -> None:
        """Keep, release, forget or hand over one AI seat.

        A seat is handed over when it has running games and nobody plays it: it never
        connected within the lease after it was given out, or its room has shown it
        offline for longer than the lease (the room's presence is what every server
        instance sees, so a seat that reconnected through another instance is left to
        that instance and forgotten here).

        A seat loaded from the store at start-up is not judged before one lease has
        passed (its worker may reconnect after the restart), and its room's "online"
        is not believed if it has not said hello since the latest outage."""
        if seat.away_since is None and worker is not None:
            return  # connected here, and its worker is known
        lease_s = self.settings.lease_ms / 1000
        if seat.restored_at is not None and time.monotonic() - seat.restored_at <= lease_s:
            return  # loaded at start-up: its worker may yet come back
        places = await self._seat_rooms(seat.player)
        if not places:
            if seat.away_since is not None:
                await self._release(seat)  # its games are over and it has left
            return
        if seat.away_since is None:
            return  # an orphan still connected here: its worker may come back
        seen_ms = None
        if not seat.connected_once or seat.restored_at is not None:
            # Not here; perhaps through another server instance.
            data = await self.store.get_session(seat.token_hash)
            seen_ms = None if data is None else decode_session(data).seen_ms
            if seat.away_since is None:
                return  # it said hello here while we read the store
            seat.connected_once = seen_ms is not None
        if seat.connected_once:
            in_room = places[0][1]
            if in_room.online:
                if not self._online_is_stale(seat, seen_ms):
                    self.registry.drop(seat.player)
                    log.info("AI seat %s plays through another server instance", seat.player)
                    return
            else:
                wall = now_ms()
                if wall - (in_room.offline_since_ms or wall) <= self.settings.lease_ms:
                    return
        elif time.monotonic() - seat.away_since <= lease_s:
            return
        if worker is not None and worker.link is not None:
            worker.link.send(
                m.BotRelease(
                    player=seat.player, reason="nobody played the seat; it is given out again"
                )
            )
        await self._hand_over(seat, [room for room, _ in places])

    def _online_is_stale(self, seat: AiSeat, seen_ms: int | None) -> bool:
        """Whether a seat loaded at start-up shows "online" in its room only because the
        server that served it was killed: it has not said hello since the latest outage
        (when no instance ran, so no connection survived)."""
        outage = self.service.outage
        return (
            seat.restored_at is not None
            and outage is not None
            and seen_ms is not None
            and seen_ms < outage.end_ms
        )

    async def _seat_rooms(
        self, player: str, states: Collection[str] = LIVE_STATES
    ) -> list[tuple[str, Seat]]:
        """The rooms in ``states`` (by default: running games) where the AI seat sits,
        and its seat in each (with the presence every server instance sees)."""
        places = []
        for room_id in await self.store.player_rooms(player):
            loaded = await self.service.load(room_id)
            if loaded is None or loaded[1].state not in states:
                continue
            room = loaded[1]
            index = room.seat_of(player)
            seat = None if index is None else room.seats[index]
            if seat is not None:
                places.append((room_id, seat))
        return places

    async def _release(self, seat: AiSeat) -> None:
        """The seat's games are over and its connection is gone: forget it."""
        self.registry.drop(seat.player)
        await self.store.delete_session(seat.token_hash)
        if await self.store.drop_ai_seat(seat.player):  # (not by another instance first)
            log.info("AI seat %s released", seat.player)

    async def _hand_over(self, seat: AiSeat, rooms: list[str]) -> bool:
        """Give a seat whose worker is gone back to the pool with a new token (the old
        one stops working and its connections are closed); a worker of any instance
        takes it. False if another server instance handed it over first."""
        self.registry.drop(seat.player)
        old_hash, known = seat.token_hash, seat.record()
        token = new_token()
        fresh = AiSeat(seat.player, seat.name, seat.level, token_hash(token))
        if not await self.store.put_ai_seat(seat.player, fresh.record(), replacing=known):
            log.info("AI seat %s: another server instance handed it over first", seat.player)
            return False
        await self.seating.store_session(fresh, "")
        await self.store.delete_session(old_hash)
        await self.store.publish_player(
            seat.player, encode_notice(Notice(kind="revoke", room=rooms[0], token=old_hash))
        )
        self.metrics.inc("gomoku_ai_handovers_total")
        log.info("room %s: AI seat %s goes back to the AI pool", rooms[0], seat.player)
        await self.seating.dispatch(Claim(fresh, token), rooms[0])
        return True
