"""The game proper in the room core: stones, swap2 choices, resigning, offers (draw,
takeback, rematch) and their answers, the clocks, and how a game ends."""

from __future__ import annotations

from engine import Color, ForbiddenMoveError, Reason, Result, format_point
from engine.errors import GameOverError, NotationError, OccupiedError, OffBoardError
from engine.opening import Action, OpeningError, takeback_count
from protocol.errors import ErrorCode
from protocol.events import Answered, Chose, GameOver, Moved, Offered, Rematch, RoomEvent, Undone
from protocol.values import GameResult, Pending
from server import lag
from server.game.actions import (
    Answer,
    Choose,
    GameAction,
    GameError,
    GameRules,
    Move,
    Offer,
    Outcome,
    Resign,
    SeatWish,
)
from server.game.seats import RoomSettings, color_name, opening_event, seated, seated_room
from server.room import LIVE_STATES, Room, Seat, cached_name, cached_point


def charge_clock(room: Room, now_ms: int, *, compensated: bool = False) -> None:
    """Stop the running clock at ``now_ms``, charging the actor the time used; for the
    actor's own stone or choice (``compensated``), less what their link's lag took
    (:mod:`server.lag`)."""
    if room.clock_running() and (actor := room.actor()) is not None:
        left = room.remaining_ms(actor, now_ms)
        seat = room.seats[actor]
        if compensated and room.time is not None and seat is not None:
            assert room.clock_since_ms is not None
            used = max(0, now_ms - room.clock_since_ms)
            left += lag.compensate(room.time, seat, used)
        room.clocks_ms[actor] = left
    room.clock_since_ms = None


def restart_clock(room: Room, now_ms: int, previous_actor: int | None) -> None:
    """Start the new actor's clock; a player who handed over the turn gets the increment.
    The turn counts from now for an untimed game's move limit too."""
    room.turn_since_ms = now_ms
    if room.time is None or room.state not in LIVE_STATES or not room.moves:
        room.clock_since_ms = None
        return
    actor = room.actor()
    if previous_actor is not None and actor != previous_actor:
        room.clocks_ms[previous_actor] += room.time.inc_ms
    room.clock_since_ms = now_ms


def take_back_increments(room: Room, first: int) -> None:
    """Each stone from index ``first`` on earned its player the increment (every stone after
    the opening hands the turn over): a takeback removing them takes those increments off
    their clocks too, so a takeback never gains anyone time. Time already spent stays
    spent; a clock goes no lower than zero."""
    if room.time is None or not room.time.inc_ms:
        return
    for index in range(first, len(room.moves)):
        seat = room.seat_at(Color.BLACK if index % 2 == 0 else Color.WHITE)
        room.clocks_ms[seat] = max(0, room.clocks_ms[seat] - room.time.inc_ms)


def finish(room: Room, winner: Color | None, reason: Reason, line: list[str] | None) -> GameOver:
    room.state = "over"
    room.clock_since_ms = None
    room.turn_since_ms = None
    room.pending = None
    winner_name = None if winner is None else color_name(winner)
    room.result = GameResult(winner=winner_name, reason=reason, line=line)
    for seat in room.seats:
        if seat is not None:
            seat.offline_since_ms = seat.attach_by_ms = None
    return GameOver(winner=winner_name, reason=reason, line=line)


def game_over_from_board(room: Room, result: Result) -> GameOver:
    line = None if result.line is None else [format_point(p, room.size) for p in result.line]
    return finish(room, result.winner, result.reason, line)


def flag(room: Room, now_ms: int, *, stopped_too: bool = False) -> GameOver | None:
    """End the game on time if the running clock has run out (``stopped_too``: or the
    clock of the player to move shows no time, running or not: a takeback to the empty
    board leaves the clocks stopped, as before the first stone)."""
    if not room.clock_running() and not (stopped_too and room.time is not None):
        return None
    actor = room.actor()
    if actor is None:
        return None
    left = room.remaining_ms(actor, now_ms)
    if left > 0 or (room.clock_running() and left + room.flag_grace_ms(actor) > 0):
        return None  # (the grace is looked up only once the clock shows no time)
    room.clocks_ms[actor] = 0
    return finish(room, room.color_of(1 - actor), Reason.TIMEOUT, None)


def move(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    assert isinstance(action, Move)
    seat = seated(room, action.player)
    if action.move_no is not None and action.move_no != len(room.moves) + 1:
        raise GameError(
            ErrorCode.STALE_MOVE,
            "not played: the game had moved on when this move arrived (it was meant as "
            f"stone {action.move_no}; the board has {len(room.moves)} "
            f"stone{'' if len(room.moves) == 1 else 's'} now)",
        )
    model = room.opening_model()
    if not model.done and Action.PLACE not in model.allowed():
        raise GameError(ErrorCode.WRONG_PHASE, "a swap2 choice is awaited, not a stone")
    if room.actor(model) != seat:
        raise GameError(ErrorCode.NOT_YOUR_TURN, "it is not your turn")
    try:
        point = cached_point(action.point, room.size)
    except NotationError as exc:
        raise GameError(ErrorCode.OFF_BOARD, str(exc)) from None
    board = room.board(handed_over=True)  # given back with the stone, or as it was
    color = board.turn
    try:
        result = board.play(point)
    except (OffBoardError, OccupiedError, ForbiddenMoveError, GameOverError) as exc:
        room.remember_board(board)  # a refused stone leaves the board as it was
        raise _refused_stone(exc) from None
    out = Outcome(room)
    charge_clock(room, now_ms, compensated=True)
    room.first_stone_by_ms = None  # begun (a takeback to the empty board sets it again)
    room.moves.append(cached_name(point, room.size))
    room.remember_board(board)
    if not model.done:
        model = model.place(seat)
        room.opening_state = model.to_dict()
        if model.done:  # pragma: no cover - swap2 always ends with a choice
            room.state = "playing"
    restart_clock(room, now_ms, seat)
    pending = room.pending
    if pending is not None and (pending.by != action.player or pending.kind == "takeback"):
        # Playing on declines the opponent's offer. A takeback asked for before one's own
        # move would now take back a different move than the one it was asked for: the
        # move withdraws it (``by`` the requester; not a decline, so no cooldown).
        room.pending = None
        out.events.append(Answered(kind=pending.kind, by=action.player, accept=False))
        if pending.kind == "draw":
            _block_draws(room, pending.by, rules)
    out.events.append(
        Moved(
            point=room.moves[-1],
            color=color_name(color),
            move_no=len(room.moves),
            clocks=room.clocks(now_ms),
        )
    )
    if result is not None:
        out.events.append(game_over_from_board(room, result))
    elif not model.done and model.actor is not None and model.stones in (3, 5):
        out.events.append(opening_event(room, model))
    return out


def _refused_stone(exc: Exception) -> GameError:
    """The refusal of a stone the board would not take, with its wire code."""
    if isinstance(exc, OccupiedError):
        return GameError(ErrorCode.OCCUPIED, str(exc))
    if isinstance(exc, ForbiddenMoveError):
        return GameError(ErrorCode.FORBIDDEN, str(exc), foul=str(exc.foul))
    if isinstance(exc, GameOverError):
        return GameError(ErrorCode.GAME_OVER, str(exc))
    return GameError(ErrorCode.OFF_BOARD, str(exc))


def choose(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    assert isinstance(action, Choose)
    seat = seated(room, action.player)
    model = room.opening_model()
    if Action(action.choice) not in model.allowed():
        raise GameError(ErrorCode.WRONG_PHASE, f"{action.choice!r} is not a choice open now")
    if model.actor != seat:
        raise GameError(ErrorCode.NOT_YOUR_TURN, "the other player makes this choice")
    try:
        new_model = model.choose(seat, action.choice)
    except OpeningError as exc:  # pragma: no cover - checked above
        raise GameError(ErrorCode.WRONG_PHASE, str(exc)) from None
    charge_clock(room, now_ms, compensated=True)
    room.opening_state = new_model.to_dict()
    out = Outcome(room)
    black = white = None
    if new_model.done:
        room.state = "playing"
        room.opening_stones = len(room.moves)
        black_seat, white_seat = (
            room.seats[room.seat_at(Color.BLACK)],
            room.seats[room.seat_at(Color.WHITE)],
        )
        assert black_seat is not None
        assert white_seat is not None
        black, white = black_seat.id, white_seat.id
    restart_clock(room, now_ms, seat)
    out.events.append(
        Chose(
            player=action.player,
            choice=action.choice,
            black=black,
            white=white,
            clocks=room.clocks(now_ms),
        )
    )
    if not new_model.done:
        out.events.append(opening_event(room, new_model))
    return out


def resign(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    assert isinstance(action, Resign)
    seat = seated(room, action.player)
    charge_clock(room, now_ms)
    return Outcome(room, [finish(room, room.color_of(1 - seat), Reason.RESIGN, None)])


def offer(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    assert isinstance(action, Offer)
    seat = seated(room, action.player)
    if room.pending is not None:
        raise GameError(ErrorCode.OFFER_PENDING, f"a {room.pending.kind} offer is pending")
    if action.kind == "takeback":
        blocked_until = room.takeback_blocked_until.get(action.player, 0)
        if room.takeback_declines.get(action.player, 0) >= rules.max_takeback_declines:
            raise GameError(ErrorCode.THROTTLED, "too many declined takebacks in this game")
        if now_ms < blocked_until:
            wait = (blocked_until - now_ms + 999) // 1000
            raise GameError(ErrorCode.THROTTLED, f"wait {wait} s before asking again")
        if _takeback_count(room, seat) == 0:
            raise GameError(ErrorCode.WRONG_PHASE, "you have no move to take back")
    if action.kind == "draw":
        left = room.draw_blocked_until_move.get(action.player, 0) - len(room.moves)
        if left > 0:
            raise GameError(
                ErrorCode.THROTTLED,
                # Stones of both sides: "4 more moves" read as four of the player's own.
                f"your draw offer was declined: offer again once {left} more "
                f"{'stone is' if left == 1 else 'stones are'} on the board",
            )
    if action.kind == "rematch" and room.rematch_room is not None:
        raise GameError(ErrorCode.WRONG_PHASE, "the rematch has already been agreed")
    if action.kind == "rematch" and action.player in room.rematch_declined:
        raise GameError(
            ErrorCode.THROTTLED,
            "your rematch offer was declined: the other player may still offer one",
        )
    opponent = room.seats[1 - seat]
    if action.kind == "rematch" and (opponent is None or not opponent.online):
        # Nobody would answer it (an AI gone after its game, a player who left): say so
        # now rather than leave the offer pending. Back in the room, they can be asked.
        who = "your opponent" if opponent is None else opponent.name
        raise GameError(ErrorCode.WRONG_PHASE, f"{who} has left the room")
    room.pending = Pending(kind=action.kind, by=action.player)
    return Outcome(room, [Offered(kind=action.kind, by=action.player)])


def _block_draws(room: Room, player: str, rules: GameRules) -> None:
    """``player``'s draw offer was declined: no other until more stones are played."""
    room.draw_blocked_until_move[player] = len(room.moves) + rules.draw_reoffer_moves


def _takeback_count(room: Room, seat: int) -> int:
    """How many stones a takeback by ``seat`` removes: back to their last move."""
    return takeback_count(len(room.moves), room.opening_stones, room.color_of(seat))


def answer(room: Room, action: GameAction, now_ms: int, rules: GameRules) -> Outcome:
    assert isinstance(action, Answer)
    seat = seated(room, action.player)
    pending = room.pending
    if pending is None or pending.kind != action.kind or pending.by == action.player:
        raise GameError(ErrorCode.NO_OFFER, f"there is no {action.kind} offer for you to answer")
    room.pending = None
    out = Outcome(room, [Answered(kind=action.kind, by=action.player, accept=action.accept)])
    if not action.accept:
        if action.kind == "draw":
            _block_draws(room, pending.by, rules)
        if action.kind == "rematch":
            room.rematch_declined = [*room.rematch_declined, pending.by]
        if action.kind == "takeback":
            declines = room.takeback_declines.get(pending.by, 0) + 1
            room.takeback_declines[pending.by] = declines
            cooldown = rules.takeback_cooldown_ms * 2 ** (declines - 1)
            room.takeback_blocked_until[pending.by] = now_ms + cooldown
        return out
    if action.kind == "draw":
        charge_clock(room, now_ms)
        out.events.append(finish(room, None, Reason.AGREEMENT, None))
    elif action.kind == "takeback":
        requester = 1 - seat
        count = _takeback_count(room, requester)
        charge_clock(room, now_ms)
        first = len(room.moves) - count
        taken = room.moves[first:][::-1]
        take_back_increments(room, first)
        del room.moves[first:]
        room.clock_since_ms = now_ms if room.time is not None and room.moves else None
        room.turn_since_ms = now_ms
        if room.time is not None and not room.moves:
            # Back to before the first stone, whose clock does not run: its time limit
            # comes back too (without it, a timed game stood still for good).
            room.first_stone_by_ms = now_ms + rules.first_stone_ms
        out.events.append(Undone(points=taken, clocks=room.clocks(now_ms)))
        # The player to move may have had only those increments, board empty or not.
        flagged = flag(room, now_ms, stopped_too=True)
        if flagged is not None:
            out.events.append(flagged)
    else:
        if not action.rematch_id:
            raise GameError(ErrorCode.INTERNAL, "no id for the rematch room")
        out.spawn, out.spawn_events = _rematch_room(
            room, action.rematch_id, action.rematch_code, now_ms, rules
        )
        room.rematch_room, room.rematch_code = out.spawn.id, out.spawn.code
        out.events.append(Rematch(room=out.spawn.id, code=out.spawn.code))
    return out


def _rematch_room(
    room: Room, room_id: str, code: str | None, now_ms: int, rules: GameRules
) -> tuple[Room, list[RoomEvent]]:
    """The next game, already started: same settings, seats swapped (the other
    player is Black, or opens the swap2), and the events that begin its log. A private
    room's rematch is private too, with ``code`` its own invite code (a spectator of the
    game joins the next one by it)."""
    if room.private and code is None:
        raise GameError(ErrorCode.INTERNAL, "no invite code for the private rematch room")
    # Seat 0 opened this game: Black in a free opening, the swap2 opener whatever
    # colour they chose. The other player opens the next one (by colour, the opener who
    # took White opened again and again).
    opener, other = room.seats
    assert opener is not None
    assert other is not None
    settings = RoomSettings(
        rule=room.rule,
        size=room.size,
        opening=room.opening,
        time=room.time,
        rated=room.rated,
        private=room.private,
        code=code if room.private else None,
    )
    seats: list[tuple[Seat, SeatWish]] = [(other, "black"), (opener, "white")]
    return seated_room(room_id, settings, owner=None, seats=seats, now_ms=now_ms, rules=rules)
