"""Presence in the room core: the seats follow the connections attached to the room
(the ``attendance`` a :class:`~server.game.actions.Tick` or
:class:`~server.game.actions.Claim` carries), a player gone past the grace period may
be claimed against, a waiting room nobody came to closes, and a game both players left
ends."""

from __future__ import annotations

from engine import Reason
from protocol.errors import ErrorCode
from protocol.events import GameOver, Presence, RoomEvent
from server.game.actions import Claim, GameAction, GameError, GameRules, Outcome, Tick
from server.game.play import charge_clock, finish
from server.game.seats import free_seat, seated
from server.room import LIVE_STATES, Room
from server.store.base import Attendance


def claim(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    assert isinstance(action, Claim)
    seat = seated(room, action.player)
    other = room.seats[1 - seat]
    assert other is not None
    out = Outcome(room)
    if action.attendance is not None:
        out.events += _sync_presence(room, action.attendance, now_ms, rules)
    due = room.move_deadline_ms(rules.untimed_move_ms) if room.actor() == 1 - seat else None
    if due is not None and now_ms >= due:
        # An untimed game's move limit: whether they are here or not (a connection that
        # came and went each grace period held off the claim of an absent player too).
        out.events.append(finish(room, room.color_of(seat), Reason.TIMEOUT, None))
        return out
    idle = "" if due is None else f"; they have {_in_words(due - now_ms)} left to move"
    if other.online or other.offline_since_ms is None:
        # (one gone for less than the offline notice's wait is still shown connected: a
        # reload is no news; the claim said "connected" of one who had just left)
        raise GameError(
            ErrorCode.NOT_CLAIMABLE,
            f"your opponent is connected, or left only a moment ago{idle}",
        )
    left = other.offline_since_ms + rules.grace_ms - now_ms
    if left > 0:
        raise GameError(
            ErrorCode.NOT_CLAIMABLE,
            f"your opponent has {_in_words(left)} left to come back{idle}",
        )
    charge_clock(room, now_ms)
    out.events.append(finish(room, room.color_of(seat), Reason.ABANDON, None))
    return out


def _in_words(ms: int) -> str:
    """``4 min 10 s``, ``35 s``: a wait in whole seconds, rounded up."""
    minutes, secs = divmod(-(-ms // 1000), 60)
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def tick(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    assert isinstance(action, Tick)
    out = Outcome(room)  # the flag check in apply() does the clocks' work
    if room.state == "waiting" and room.close_at_ms is not None and now_ms >= room.close_at_ms:
        for seat, player in enumerate(room.seats):  # nobody came: the room closes
            if player is not None:
                free_seat(room, seat, out)
        return out
    if action.attendance is not None:
        waits = [s.attach_by_ms for s in room.seats if s is not None]
        out.events += _sync_presence(room, action.attendance, now_ms, rules)
        if waits != [s.attach_by_ms for s in room.seats if s is not None]:
            out.quiet_change = True  # a seat's player was seen attached: keep that
    abandoned = room.abandoned_at_ms(rules.grace_ms)
    aborted = room.aborted_at_ms()
    if abandoned is not None and now_ms >= abandoned:
        out.events.append(_abandon(room, now_ms, rules))
    elif aborted is not None and now_ms >= aborted:
        # Aborted: "abandon" with no winner before four stones does not count (no clock
        # ran, none is charged). A reason of its own would need a new protocol version.
        out.events.append(finish(room, None, Reason.ABANDON, None))
    return out


def _sync_presence(
    room: Room, attendance: Attendance, now_ms: int, rules: GameRules
) -> list[RoomEvent]:
    """Bring the seats' presence in line with the connections attached to the room:
    ``presence`` events for the changes (once each), a seat given up in a room still
    waiting for its players once its player has been gone for the grace period (at
    once if they never came: a reload or a dropped network keeps the room and its
    invite code), a departure announced once the player has been gone for
    ``offline_after_ms`` (the seat shows online until then, as a new seat does while
    its player's connection comes), and a player's return and departure both announced
    when they came and went between two looks (the countdown starts again)."""
    events: list[RoomEvent] = []
    kept = room.state in LIVE_STATES or room.state == "waiting"  # a seat that may come back
    for index, seat in enumerate(room.seats):
        if seat is None:
            continue
        found = attendance.seated.get(seat.id)
        if found is not None and found.conns > 0:
            seat.attach_by_ms = None
            if not seat.online:
                seat.online, seat.offline_since_ms = True, None
                events.append(Presence(player=seat.id, online=True))
            continue
        if seat.attach_by_ms is not None:
            if now_ms < seat.attach_by_ms:
                continue  # a new seat: its player's connection has a moment to attach
            seat.attach_by_ms = None
        # When their last connection left, if one ever did: a player with no connection
        # here yet (a seat taken while they were away) has not come and gone.
        went = None if found is None or found.left_ms is None else min(found.left_ms, now_ms)
        if room.state == "waiting" and (went is None or now_ms >= went + rules.grace_ms):
            out = Outcome(room)  # gone for good before the game: the seat is given up
            free_seat(room, index, out)
            events += out.events
            continue
        # An AI seat's going is seen at once: the watchdog hands a seat whose worker died
        # to another by the room's presence (one that reads online plays elsewhere).
        wait = 0 if seat.bot else min(rules.offline_after_ms, rules.grace_ms)
        quiet_until = None if went is None else went + wait
        if seat.online and kept and quiet_until is not None and now_ms < quiet_until:
            seat.attach_by_ms = quiet_until  # looked at again then
            continue
        if seat.online:
            seat.online = False
            seat.offline_since_ms = (now_ms if went is None else went) if kept else None
        elif (
            kept
            and seat.offline_since_ms is not None
            and went is not None
            and went > seat.offline_since_ms
        ):
            events.append(Presence(player=seat.id, online=True))  # came and went meanwhile
            seat.offline_since_ms = went
        else:
            continue
        deadline = None
        if seat.offline_since_ms is not None:
            deadline = max(0, seat.offline_since_ms + rules.grace_ms - now_ms)
        events.append(Presence(player=seat.id, online=False, deadline_ms=deadline))
    return events


def _abandon(room: Room, now_ms: int, rules: GameRules) -> GameOver:
    """Both players are gone (:meth:`Room.abandoned_at_ms` has come): if the first to go
    was past the grace period while the other was still there, the first loses, as a
    claim would have had it; if they left within the grace period of each other, the game
    is drawn by ``abandon`` (not rated if it had fewer than four stones: aborted, see
    server.history)."""
    gone = sorted((s.offline_since_ms or 0, i) for i, s in enumerate(room.seats) if s is not None)
    (first_since, _), (second_since, second) = gone
    charge_clock(room, now_ms)
    if first_since + rules.grace_ms <= second_since:
        return finish(room, room.color_of(second), Reason.ABANDON, None)
    return finish(room, None, Reason.ABANDON, None)
