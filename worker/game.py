"""One room as an AI seat sees it, kept up to date from the snapshot and the
room events, and what the seat has to do next. No I/O."""

from __future__ import annotations

import dataclasses
import time
from typing import Literal

from engine import Board, Color, Opening, Rule
from protocol import events as ev
from protocol.values import Clocks, GameResult, Pending, RoomView, Swap2State, TimeControl
from worker.thinker import board_from_wire

Task = Literal["place", "choose"]

TURN_EVENTS = (ev.GameStarted, ev.Moved, ev.Chose, ev.Undone)
"""The events that hand a turn over: an untimed game's move limit counts from each (the
server's does too, and sends no snapshot for it)."""


@dataclasses.dataclass
class GameState:
    """The state of one room for the AI seat ``me``.

    ``version`` grows with every change that can alter what to play, so an
    answer computed for an older version is thrown away. ``clocks_at`` is the
    local monotonic time at which ``clocks`` were current. ``move_claim_at`` is the
    local monotonic time from which the opponent of the player to act may claim the win
    for their not acting, in a game without a clock (``move_limit_ms``, the server's
    move limit, after each turn handed over; None: no such time).
    """

    room: str
    me: str
    rule: Rule
    size: int
    opening: Opening
    time: TimeControl | None
    state: str
    moves: list[str]
    black: str | None
    white: str | None
    swap2: Swap2State | None = None
    pending: Pending | None = None
    result: GameResult | None = None
    clocks: Clocks | None = None
    clocks_at: float = 0.0
    version: int = 0
    offered_draw: bool = False
    rematch_room: str | None = None
    bots: frozenset[str] = frozenset()
    """The seated players who are AIs (as the snapshot showed them)."""
    offline: frozenset[str] = frozenset()
    """The seated players with no connection in the room (``presence``): in a finished
    game, one who left it."""
    move_limit_ms: int = 0
    move_claim_at: float | None = None
    _board: tuple[tuple[int, int], Board] | None = dataclasses.field(
        default=None, repr=False, compare=False
    )
    """The position at (``version``, number of moves), replayed once for all who ask."""

    @classmethod
    def from_view(
        cls, view: RoomView, me: str, now: float | None = None, *, move_limit_ms: int = 0
    ) -> GameState:
        """The room as a snapshot shows it at local time ``now``; ``move_limit_ms``: the
        server's move limit in a game without a clock (``welcome``'s limits; 0: none)."""
        players = view.players
        now = time.monotonic() if now is None else now
        deadline = view.move_deadline_ms
        return cls(
            room=view.id,
            me=me,
            rule=view.rule,
            size=view.size,
            opening=view.opening,
            time=view.time,
            state=view.state,
            moves=list(view.moves),
            black=None if players.black is None else players.black.id,
            white=None if players.white is None else players.white.id,
            swap2=view.swap2,
            pending=view.pending,
            result=view.result,
            clocks=view.clocks,
            clocks_at=now,
            rematch_room=None,
            bots=frozenset(p.id for p in (players.black, players.white) if p is not None and p.bot),
            offline=frozenset(
                p.id for p in (players.black, players.white) if p is not None and not p.online
            ),
            move_limit_ms=move_limit_ms,
            move_claim_at=None if deadline is None else now + deadline / 1000,
        )

    # -- events ----------------------------------------------------------------

    def apply(self, event: ev.RoomEvent, now: float | None = None) -> None:
        """Follow one room event."""
        now = time.monotonic() if now is None else now
        self._follow(event, now)
        if not self.live or self.time is not None:
            self.move_claim_at = None
        elif isinstance(event, TURN_EVENTS):
            limit = self.move_limit_ms
            self.move_claim_at = now + limit / 1000 if limit > 0 else None

    def _follow(self, event: ev.RoomEvent, now: float) -> None:
        self.version += 1
        if isinstance(event, ev.PlayerJoined):
            self._set_seat(event.seat, event.player)
            if event.bot:
                self.bots |= {event.player}
        elif isinstance(event, ev.PlayerLeft):
            self._set_seat(event.seat, None)
        elif isinstance(event, ev.Presence):
            gone = {event.player}
            self.offline = self.offline - gone if event.online else self.offline | gone
            self.version -= 1  # nothing to play differently
        elif isinstance(event, ev.GameStarted):
            self.black, self.white = event.black, event.white
            self.state = "playing" if self.opening is Opening.FREE else "opening"
            if event.time is not None:
                self.clocks = Clocks(black_ms=event.time.base_ms, white_ms=event.time.base_ms)
                self.clocks_at = now
        elif isinstance(event, ev.Moved):
            self.moves.append(event.point)
            self._set_clocks(event.clocks, now)
        elif isinstance(event, ev.OpeningPhase):
            self.state = "opening"
            self.swap2 = Swap2State(phase=event.phase, to_act=event.to_act, choices=event.choices)
        elif isinstance(event, ev.Chose):
            self.swap2 = None
            if event.black is not None and event.white is not None:
                self.black, self.white = event.black, event.white
                self.state = "playing"
            self._set_clocks(event.clocks, now)  # by the colours after the choice
        elif isinstance(event, ev.Offered):
            self.pending = Pending(kind=event.kind, by=event.by)
        elif isinstance(event, ev.Answered):
            self.pending = None
        elif isinstance(event, ev.Undone):
            del self.moves[len(self.moves) - len(event.points) :]
            self._set_clocks(event.clocks, now)
        elif isinstance(event, ev.GameOver):
            self.state = "over"
            self.pending = None
            self.result = GameResult(winner=event.winner, reason=event.reason, line=event.line)
        elif isinstance(event, ev.Rematch):
            self.rematch_room = event.room
        else:
            self.version -= 1  # presence, chat, spectators: nothing to play differently

    def _set_seat(self, seat: str, player: str | None) -> None:
        if seat == "black":
            self.black = player
        else:
            self.white = player

    def _set_clocks(self, clocks: Clocks | None, now: float) -> None:
        if clocks is not None:
            self.clocks, self.clocks_at = clocks, now

    # -- derived ---------------------------------------------------------------

    @property
    def live(self) -> bool:
        return self.state in ("opening", "playing")

    def against_a_person(self, *, present: bool = False) -> bool:
        """Whether the other seat holds a person; ``present``: one who is in the room
        (who might want a rematch: one who left a finished game, or lost their
        connection, asks for none from there, and the seat is needed elsewhere)."""
        other = self.white if self.me == self.black else self.black
        if other is None or other in self.bots:
            return False
        return not present or other not in self.offline

    def opponent_to_act(self) -> bool:
        """Whether the other seat must act now: place a stone or make a swap2 choice (not
        once the last stone has ended the game on the board)."""
        if self.state == "opening":
            return self.swap2 is not None and self.swap2.to_act not in (None, self.me)
        color = self.my_seat_color()
        if self.state != "playing" or color is None or color is self.to_move():
            return False
        return not self.board().is_over()

    def my_seat_color(self) -> Color | None:
        """The colour of the seat I hold (in swap2, the opener holds Black until the
        choice), or None if I am not seated."""
        if self.me == self.black:
            return Color.BLACK
        if self.me == self.white:
            return Color.WHITE
        return None

    def to_move(self) -> Color:
        return Color.WHITE if len(self.moves) % 2 else Color.BLACK

    def task(self) -> Task | None:
        """What I must do now: place a stone, make a swap2 choice, or nothing."""
        if self.state == "opening":
            swap2 = self.swap2
            if swap2 is None or swap2.to_act != self.me:
                return None
            return "choose" if swap2.phase == "choose" else "place"
        if self.state == "playing" and self.my_seat_color() is self.to_move():
            # The last stone may have ended the game on the board: its game_over comes
            # once the server has archived the game, and there is nothing to play.
            return None if self.board().is_over() else "place"
        return None

    def remaining_ms(self, now: float | None = None) -> int | None:
        """My clock now (my clock runs while I must act and a stone is on the board),
        or None without a time control."""
        color = self.my_seat_color()
        if self.clocks is None or color is None:
            return None
        left = self.clocks.black_ms if color is Color.BLACK else self.clocks.white_ms
        if self.moves and self.task() is not None:
            now = time.monotonic() if now is None else now
            left -= int((now - self.clocks_at) * 1000)
        return max(0, left)

    def board(self) -> Board:
        """The position (a copy: the caller may play on it)."""
        key = (self.version, len(self.moves))
        if self._board is None or self._board[0] != key:
            self._board = (key, board_from_wire(self.rule, self.size, self.moves))
        return self._board[1].copy()
