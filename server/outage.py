"""Fair clocks after an outage: time when no server ran is given back.

Every server instance beats in the store several times a second
(:meth:`server.store.Store.beat`). When every instance was down (a crash, a
restart, a redeploy) or none could reach the store (Redis down), nobody beat;
the first beat afterwards finds the silence and records it as the latest
*outage*. A room that is touched afterwards (a move, a presence change, or the
clock ticker when its deadline falls due) first gets the outage's time back:
the running clock's start moves forward by the part of the outage it ran
through, and so do the claim countdown of a disconnected player and an untimed
game's move limit. The
grace is at most ``outage_grace_max_ms`` per outage, and a room takes each
outage once (``Room.outage_seen_ms``), so a refund is never counted twice.

An instance that dies while another keeps running is no outage: the other
instance still serves every room, and its players reconnect through the load
balancer as after any network drop.
"""

from __future__ import annotations

from server.room import LIVE_STATES, Room
from server.store import Outage


def give_back(room: Room, outage: Outage | None, cap_ms: int) -> bool:
    """Give ``room`` the time of ``outage`` back, at most ``cap_ms``. True if anything
    changed; the caller must then commit the room (with or without events)."""
    if outage is None or outage.end_ms <= room.outage_seen_ms:
        return False
    changed = False
    if room.state in LIVE_STATES and room.clock_running():
        assert room.clock_since_ms is not None
        refund = _overlap(room.clock_since_ms, outage, cap_ms)
        if refund:
            room.clock_since_ms += refund
            changed = True
    if room.state in LIVE_STATES and room.time is None and room.turn_since_ms is not None:
        # An untimed game's only clock, its move limit: a restart took 50 of a player's
        # 120 s, and the claim came at the limit as if it had not (:meth:`move_deadline_ms`).
        refund = _overlap(room.turn_since_ms, outage, cap_ms)
        if refund:
            room.turn_since_ms += refund
            changed = True
    for seat in room.seats:
        if seat is not None and seat.offline_since_ms is not None:
            refund = _overlap(seat.offline_since_ms, outage, cap_ms)
            if refund:
                seat.offline_since_ms += refund
                changed = True
    if changed:
        room.outage_seen_ms = outage.end_ms
    return changed


def _overlap(since_ms: int, outage: Outage, cap_ms: int) -> int:
    """How much of the outage a countdown running since ``since_ms`` went through."""
    return max(0, min(cap_ms, outage.end_ms - max(since_ms, outage.start_ms)))
