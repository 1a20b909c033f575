"""Rooms and seats in the room core: a new room, taking and giving up seats, and the
start of a game once both seats are taken. :func:`seated_room` is the one place a room
is made with its players in it (a new room, a quick match, a room with an AI, a
rematch)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Literal

import msgspec

from engine import Color, Opening, Rule
from engine.opening import OpeningState
from protocol.errors import ErrorCode
from protocol.events import GameStarted, OpeningPhase, PlayerJoined, PlayerLeft, RoomEvent
from protocol.values import TimeControl
from server.game.actions import GameAction, GameError, GameRules, Join, Leave, Outcome, SeatWish
from server.room import Room, Seat, choices, wire_phase


def color_name(color: Color) -> Literal["black", "white"]:
    return "black" if color is Color.BLACK else "white"


def seated(room: Room, player: str) -> int:
    seat = room.seat_of(player)
    if seat is None:
        raise GameError(ErrorCode.NOT_IN_ROOM, "you are not seated in this room")
    return seat


def _seat(player: Seat, now_ms: int, rules: GameRules) -> Seat:
    """``player`` as a new seat: online, with ``attach_wait_ms`` for a connection to come."""
    return msgspec.structs.replace(
        player, online=True, offline_since_ms=None, attach_by_ms=now_ms + rules.attach_wait_ms
    )


def new_room(
    room_id: str,
    *,
    rule: Rule,
    size: int,
    opening: Opening,
    time: TimeControl | None,
    rated: bool,
    private: bool,
    code: str | None,
    now_ms: int,
) -> Room:
    """An empty room waiting for players."""
    return Room(
        id=room_id,
        code=code,
        rule=rule,
        size=size,
        opening=opening,
        time=time,
        rated=rated,
        private=private,
        created_ms=now_ms,
    )


@dataclasses.dataclass(frozen=True, kw_only=True)
class RoomSettings:
    """What a room is made with: rule, board size, opening, clock (None: untimed),
    whether it is rated, and whether it is private (then with its invite code)."""

    rule: Rule
    size: int = 15
    opening: Opening = Opening.FREE
    time: TimeControl | None = None
    rated: bool = False
    private: bool = False
    code: str | None = None


def seated_room(
    room_id: str,
    settings: RoomSettings,
    *,
    owner: str | None,
    seats: Sequence[tuple[Seat, SeatWish]],
    now_ms: int,
    rules: GameRules,
) -> tuple[Room, list[RoomEvent]]:
    """A new room counted against ``owner`` (``Room.owner``), with each of ``seats``
    taken in turn as a player's ``join`` would take it, and the events that begin its
    log (a game starts once both seats are taken). Raises GameError ``room_full`` for a
    seat asked for twice."""
    room = new_room(
        room_id,
        rule=settings.rule,
        size=settings.size,
        opening=settings.opening,
        time=settings.time,
        rated=settings.rated,
        private=settings.private,
        code=settings.code,
        now_ms=now_ms,
    )
    room.owner = owner
    events: list[RoomEvent] = []
    for player, wish in seats:
        events += join(room, Join(player, wish), now_ms, rules).events
    return room, events


def join(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    assert isinstance(action, Join)
    player = action.player
    out = Outcome(room)
    if room.seat_of(player.id) is not None:
        return out  # already seated: joining again only re-sends the snapshot
    if room.state == "over":  # a late comer with the code of a game played without them
        raise GameError(ErrorCode.ROOM_FULL, "the game in that room is over; join as a spectator")
    if room.state != "waiting":
        raise GameError(ErrorCode.ROOM_FULL, "the game has started; join as a spectator")
    wanted = {"black": [room.seat_at(Color.BLACK)], "white": [room.seat_at(Color.WHITE)]}.get(
        action.seat, [0, 1]
    )
    free = [i for i in wanted if room.seats[i] is None]
    if not free:
        raise GameError(ErrorCode.ROOM_FULL, f"no free {action.seat} seat in this room")
    seat = free[0]
    room.seats[seat] = _seat(player, now_ms, rules)
    out.events.append(
        PlayerJoined(
            seat=color_name(room.color_of(seat)),
            player=player.id,
            name=player.name,
            rating=player.rating,
            provisional=player.provisional,
            bot=player.bot,
        )
    )
    if all(s is not None for s in room.seats):
        out.events.extend(_start_game(room))
        room.turn_since_ms = now_ms
        if room.time is not None:
            room.first_stone_by_ms = now_ms + rules.first_stone_ms
    return out


def leave(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    """Give up a seat before the game starts. Once it has started, leaving is only the
    connection going (its presence follows the attached connections); a finished game
    keeps its players on record."""
    assert isinstance(action, Leave)
    out = Outcome(room)
    seat = room.seat_of(action.player)
    if seat is None:
        raise GameError(ErrorCode.NOT_IN_ROOM, "you are not in this room")
    if room.state == "waiting":
        free_seat(room, seat, out)
    return out


def free_seat(room: Room, seat: int, out: Outcome) -> None:
    player = room.seats[seat]
    assert player is not None
    color = room.color_of(seat)
    room.seats[seat] = None
    out.events.append(PlayerLeft(seat=color_name(color), player=player.id))


def _start_game(room: Room) -> list[RoomEvent]:
    """Both seats are filled: begin the opening or the game proper."""
    model = OpeningState.start(room.opening)
    room.opening_state = model.to_dict()
    room.state = "playing" if model.done else "opening"
    if room.time is not None:
        room.clocks_ms = [room.time.base_ms, room.time.base_ms]
    room.clock_since_ms = None
    black = room.seats[room.seat_at(Color.BLACK)]
    white = room.seats[room.seat_at(Color.WHITE)]
    assert black is not None
    assert white is not None
    events: list[RoomEvent] = [GameStarted(black=black.id, white=white.id, time=room.time)]
    if not model.done and model.actor is not None:
        events.append(opening_event(room, model))
    return events


def opening_event(room: Room, model: OpeningState) -> OpeningPhase:
    assert model.actor is not None
    actor = room.seats[model.actor]
    assert actor is not None
    return OpeningPhase(phase=wire_phase(model.phase), to_act=actor.id, choices=choices(model))
