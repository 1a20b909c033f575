"""One AI seat: a connection of its own, as the seat's player, playing every game
that seat is in (the first one, and the rematches it accepts).

The reader keeps a :class:`~worker.game.GameState` per room and answers offers
at once (takebacks yes, draws only in a dead-drawn position, rematches yes); it
claims the win from an opponent gone past the grace period, or in a game without a
clock from one to act past the server's move limit (an idle person held the seat);
an actor task per room thinks and plays whenever the seat must act. A move
computed for a position that changed meanwhile (a takeback, a reconnect) is
thrown away and thought again. After a network drop the seat reconnects with
its token and joins its rooms again for fresh snapshots. It ends when its
games are over and no rematch came within the linger time, when the server
releases it, or when its token stops working.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Coroutine
from concurrent.futures import BrokenExecutor
from typing import Any, Protocol, cast

import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from engine import Board, Point
from engine.ai import LEVELS
from protocol import events as ev
from protocol import messages as m
from protocol.codec import decode_server, encode
from protocol.convert import point_to_wire
from protocol.errors import ErrorCode, ProtocolError
from protocol.limits import MAX_SERVER_FRAME
from protocol.values import SwapChoice
from worker.brain import BrainGaveUp, BrainPlayer
from worker.config import WorkerConfig
from worker.game import GameState
from worker.judge import dead_draw, proven_lost
from worker.pacer import SendPacer
from worker.stats import WorkerStats
from worker.thinker import Choice, Swap2Plan, Thinker
from worker.timing import move_budget_ms

log = logging.getLogger("gomoku.worker")

ENGINE_FALLBACK_LEVEL = "intermediate"
CHOOSE_LEVEL = "advanced"
"""The engine level that judges a swap2 position when the seat's own level cannot."""
POLL_S = 0.25
"""How often an idle seat checks whether its linger time is over."""
CLAIM_SLACK_S = 0.2
"""Claim this long after a gone opponent's grace period ends (clocks differ a little)."""
IDLE_CLAIM_TRIES = 3
IDLE_CLAIM_RETRY_S = 1.0
"""A claim against an opponent past the move limit that did not end the game (refused as
too early: the server counted from later than the seat did) is sent again this long
after, this many times in all, while nothing else happens in the game."""
RATE_RETRY_S = 0.5
"""How long after a ``rate_limited`` refusal a seat sends its play again."""
BAD_MOVE_CODES = frozenset({ErrorCode.OCCUPIED, ErrorCode.FORBIDDEN, ErrorCode.OFF_BOARD})


class SeatOwner(Protocol):
    """What a seat needs of the worker that runs it (:class:`worker.control.AiWorker`):
    its settings, its counters, its search pool, and the server address its
    connections go to. The worker makes seats; a seat does not know the worker."""

    @property
    def config(self) -> WorkerConfig: ...

    @property
    def stats(self) -> WorkerStats: ...

    @property
    def thinker(self) -> Thinker: ...

    @property
    def url(self) -> str:
        """The server (of the config's ``servers``) the worker's connections use."""
        ...

    def target(self) -> dict[str, Any]:
        """``connect()`` arguments that reach the worker's chosen server address."""
        ...


class SeatLost(Exception):
    """The seat's token no longer works: the server gave the seat to another worker."""


class SeatClient:
    """Plays one AI seat for its worker."""

    def __init__(
        self, owner: SeatOwner, *, player: str, token: str, name: str, room: str, level: str
    ) -> None:
        self.owner = owner
        self.config = owner.config
        self.stats = owner.stats
        self.player = player
        self.token = token
        self.name = name
        self.level = level
        self.rooms: set[str] = {room}
        """Rooms to join on every (re)connect."""
        self.games: dict[str, GameState] = {}
        self._wakeups: dict[str, asyncio.Event] = {}
        self._actors: dict[str, asyncio.Task[None]] = {}
        self._brains: dict[str, BrainPlayer] = {}
        self._planned: dict[str, list[str]] = {}
        """Per room: the swap2 stones the engine chose to place and has not placed yet."""
        self._moves_sent: dict[int, str] = {}
        self._ids = itertools.count(1)
        self._bad_move: set[str] = set()
        self._idle_since: float | None = None
        self._joining: set[int] = set()
        """Ids of ``join`` requests not answered yet."""
        self._in_flight: dict[str, int] = {}
        """Per room: the id of our move (or swap2 choice) the server has not answered
        yet. The seat does not act again there until the game changes or the play is
        refused: a presence or chat event arriving meanwhile must not make it play the
        same position twice (the second would be refused as not our turn)."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._claims: dict[str, asyncio.Task[None]] = {}
        """Per room: a claim of the win waiting for a gone opponent's grace period."""
        self._idle_claims: dict[str, tuple[float, asyncio.Task[None]]] = {}
        """Per room: a claim of the win waiting for the opponent to have been to act for
        the move limit (a game without a clock), and the local time it is due."""
        self._move_limit_ms = 0
        """The server's move limit in a game without a clock (``welcome``'s limits)."""
        self._ws: ClientConnection | None = None
        self._pacer: SendPacer | None = None
        """Paces sends to the limits the server announced on this connection."""
        self.released = False

    # -- lifecycle -----------------------------------------------------------------

    async def run(self) -> None:
        """Play until the seat's games are over (and the linger time passed), the seat
        is released, or its token stops working."""
        attempt = 0  # reconnect attempts since the last session
        try:
            while not self.released:
                try:
                    async with connect(
                        self.owner.url,
                        compression=None,
                        max_size=MAX_SERVER_FRAME,
                        open_timeout=10,
                        **self.owner.target(),
                    ) as ws:
                        self._ws = ws
                        attempt = 0
                        if await self._session(ws):
                            return
                except SeatLost:
                    log.info("seat %s: its token no longer works; giving it up", self.player)
                    return
                except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError) as error:
                    if self.released:  # the worker stops, or the seat went elsewhere
                        log.info("seat %s: closed (%s)", self.player, error)
                    else:
                        lost = "lost" if self._ws is not None else "could not be made"
                        log.info(
                            "seat %s: connection %s (%s); reconnecting", self.player, lost, error
                        )
                finally:
                    self._ws = None
                    await self._stop_actors()
                if self.released:
                    return
                self.stats.reconnects += 1
                attempt += 1
                await asyncio.sleep(self.config.backoff.delay(attempt))
        except InvalidURI:
            log.error("seat %s: bad server address %r", self.player, self.owner.url)
        finally:
            for brain in self._brains.values():
                await brain.close()
            self._brains.clear()

    def release(self) -> None:
        """Stop playing this seat (the server moved it elsewhere, or the worker stops)."""
        self.released = True
        self.reconnect()

    def reconnect(self, token: str | None = None) -> None:
        """Drop the connection (to reconnect, with ``token`` if given)."""
        if token is not None:
            self.token = token
        ws = self._ws
        if ws is not None:
            self._background(ws.close())

    async def _stop_actors(self) -> None:
        idle = [task for _, task in self._idle_claims.values()]
        actors = list(self._actors.values()) + list(self._claims.values()) + idle
        self._actors.clear()
        self._claims.clear()
        self._idle_claims.clear()
        self._wakeups.clear()
        for task in actors:
            task.cancel()
        for task in actors:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task  # an actor's failure was logged where it happened

    # -- the connection --------------------------------------------------------------

    async def _send(self, message: msgspec.Struct) -> None:
        ws = self._ws
        if ws is None:
            raise ConnectionClosed(None, None)
        if self._pacer is not None:
            await self._pacer.wait()
        await ws.send(encode(message))

    async def _recv(self, ws: ClientConnection, wait_s: float | None) -> m.ServerMessage | None:
        try:
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for returns a frame that
            # arrives just as the seat is cancelled, and the cancellation is lost.
            async with asyncio.timeout(wait_s):
                data = await ws.recv()
        except TimeoutError:
            return None
        try:
            return decode_server(data)
        except ProtocolError:
            return None  # a newer server's message, or a broken frame: nothing to do

    async def _session(self, ws: ClientConnection) -> bool:
        """One connection's life; True when the seat is done."""
        self._pacer = None
        await self._send(
            m.Hello(name=self.name, token=self.token, bot_key=self.config.bot_key, id=0)
        )
        while True:
            reply = await self._recv(ws, 10.0)
            if reply is None:
                raise TimeoutError("no welcome from the server")
            if isinstance(reply, m.Error) and reply.re == 0:
                if reply.code == ErrorCode.BAD_TOKEN:
                    raise SeatLost(reply.message)
                raise ConnectionError(f"hello refused: {reply.code}: {reply.message}")
            if isinstance(reply, m.Welcome):
                self._pacer = SendPacer.within(reply.limits)
                self._move_limit_ms = reply.limits.untimed_move_ms
                self.rooms.update(reply.rooms)
                break
        self._joining.clear()
        self._in_flight.clear()  # a play the old connection sent may never have arrived
        for room in sorted(self.rooms):
            request = next(self._ids)
            self._joining.add(request)
            await self._send(m.Join(room=room, id=request))
        while not self.released:
            wait = POLL_S if self._idle_since is not None else None
            message = await self._recv(ws, wait)
            if message is not None:
                await self._handle(message)
            if self._done():
                return True
        return True

    def _done(self) -> bool:
        """All games over (once every room has answered), and no rematch within the
        linger time."""
        if self._joining or any(game.live for game in self.games.values()):
            self._idle_since = None
            return False
        if self._idle_since is None:
            self._idle_since = time.monotonic()
        if not any(game.against_a_person(present=True) for game in self.games.values()):
            return True  # no person to want a rematch: free the seat now
        return time.monotonic() - self._idle_since >= self.config.linger_s

    # -- messages ----------------------------------------------------------------------

    async def _handle(self, message: m.ServerMessage) -> None:
        if isinstance(message, m.Snapshot):
            await self._on_snapshot(message)
        elif isinstance(message, m.Event):
            await self._on_event(message)
        elif isinstance(message, m.Error):
            self._on_error(message)

    async def _on_snapshot(self, message: m.Snapshot) -> None:
        self._joining.discard(message.re if message.re is not None else -1)
        view = message.room
        before = self.games.get(view.id)
        known = before is not None
        game = GameState.from_view(view, self.player, move_limit_ms=self._move_limit_ms)
        if before is None or (before.moves, before.state) != (game.moves, game.state):
            self._in_flight.pop(view.id, None)
        if game.my_seat_color() is None:
            self.rooms.discard(view.id)  # not our seat (any more)
            return
        self.rooms.add(view.id)
        self.games[view.id] = game
        if game.live:
            self._idle_since = None
            if not known:
                self.stats.games += 1
                log.info("seat %s plays in room %s (%s)", self.player, view.id, self.level)
        if game.pending is not None and game.pending.by != self.player:
            await self._answer_offer(game, game.pending.kind)
        for ref in (view.players.black, view.players.white):
            if ref is not None and ref.id != self.player and game.live:
                self._watch_presence(view.id, ref.online, ref.deadline_ms)
        self._watch_idle(view.id)
        self._wake(view.id)

    async def _on_event(self, message: m.Event) -> None:
        game = self.games.get(message.room)
        if game is None:
            return
        event = message.event
        version = game.version
        game.apply(event)
        if game.version != version:  # the game changed: our play, if any, was answered
            self._in_flight.pop(message.room, None)
        if isinstance(event, ev.GameOver):
            self._planned.pop(message.room, None)  # a game ended in its opening: no leftovers
            self.stats.finished += 1
            self._idle_since = None
            log.info(
                "seat %s: room %s over (%s, %s)",
                self.player,
                message.room,
                event.winner,
                event.reason,
            )
        elif isinstance(event, ev.Offered) and event.by != self.player:
            await self._answer_offer(game, event.kind)
        elif isinstance(event, ev.Presence) and event.player != self.player:
            self._watch_presence(message.room, event.online, event.deadline_ms)
        self._watch_idle(message.room)
        self._wake(message.room)

    def _watch_presence(self, room: str, online: bool, deadline_ms: int | None) -> None:
        """An opponent who left claims nothing from us: once they have been gone as long
        as a move may take (the server's move limit, or their grace period if longer),
        claim the win, so the seat is not held forever by a game nobody plays. Not at the
        grace period's end: a child whose tablet locked for a minute came back to "You
        lose" in a game that read "no clock (10:00 a move)"; a person would wait too."""
        pending = self._claims.pop(room, None)
        if pending is not None:
            pending.cancel()
        if not online and deadline_ms is not None:
            wait_ms = max(deadline_ms, self._move_limit_ms)
            self._claims[room] = asyncio.create_task(self._claim_later(room, wait_ms))

    async def _claim_later(self, room: str, deadline_ms: int) -> None:
        await asyncio.sleep(deadline_ms / 1000 + CLAIM_SLACK_S)
        game = self.games.get(room)
        if game is not None and game.live:
            log.info("seat %s: the opponent left room %s; claiming the win", self.player, room)
            await self._send(m.Claim(room=room))

    def _watch_idle(self, room: str) -> None:
        """An opponent who stays and never acts would hold the seat for good in a game
        without a clock (students idle for nine minutes and more held a class's AI
        seats): once they have been to act for the move limit, claim the win. Scheduled
        again whenever the time changes (a stone, a choice, a takeback, a snapshot);
        dropped when it is the seat's turn or the game is over."""
        game = self.games.get(room)
        due = None
        if game is not None and game.live and game.opponent_to_act():
            due = game.move_claim_at
        scheduled = self._idle_claims.get(room)
        if scheduled is not None and scheduled[0] == due:
            return
        if scheduled is not None:
            del self._idle_claims[room]
            scheduled[1].cancel()
        if due is not None:
            self._idle_claims[room] = (due, asyncio.create_task(self._claim_idle_later(room, due)))

    async def _claim_idle_later(self, room: str, due: float) -> None:
        await asyncio.sleep(max(0.0, due - time.monotonic()) + CLAIM_SLACK_S)
        for _ in range(IDLE_CLAIM_TRIES):
            game = self.games.get(room)
            if game is None or not game.live or not game.opponent_to_act():
                return
            log.info("seat %s: the opponent in room %s has not moved; claiming", self.player, room)
            try:
                await self._send(m.Claim(room=room))
            except (ConnectionClosed, OSError):
                return  # the connection is going: the next one's snapshots schedule it again
            # The game over cancels this; a refusal (not_claimable) only says how long is
            # left by the server's count, which is not far: try again shortly.
            await asyncio.sleep(IDLE_CLAIM_RETRY_S)

    def _on_error(self, error: m.Error) -> None:
        self._joining.discard(error.re if error.re is not None else -1)
        room = self._moves_sent.pop(error.re, None) if error.re is not None else None
        if room is not None and self._in_flight.get(room) == error.re:
            del self._in_flight[room]
        if room is None:
            if error.code == ErrorCode.NO_SUCH_ROOM and error.room is not None:
                self.rooms.discard(error.room)
            else:
                log.debug("seat %s: %s: %s", self.player, error.code, error.message)
            return
        if error.code == ErrorCode.RATE_LIMITED:  # dropped unread: send it again shortly
            self.stats.rate_limited += 1
            log.info("seat %s: our play in room %s was rate-limited; again", self.player, room)
            self._background(self._wake_later(room, RATE_RETRY_S))
            return
        self.stats.refused += 1
        log.warning("seat %s: the server refused our play: %s", self.player, error.message)
        if error.code in BAD_MOVE_CODES:
            self._bad_move.add(room)
        self._wake(room)

    async def _answer_offer(self, game: GameState, kind: str) -> None:
        """Takebacks yes; draws only when nobody can win any more; rematches if allowed."""
        if kind == "takeback":
            accept = True
            self.stats.takebacks_accepted += 1
        elif kind == "draw":
            accept = dead_draw(game.board())
        else:
            accept = self.config.rematch
            if accept:
                self.stats.rematches_accepted += 1
        await self._send(
            m.Answer(room=game.room, kind=kind, accept=accept)  # type: ignore[arg-type]
        )

    # -- playing -----------------------------------------------------------------------

    async def _wake_later(self, room: str, delay_s: float) -> None:
        await asyncio.sleep(delay_s)
        if self._ws is not None:
            self._wake(room)

    def _wake(self, room: str) -> None:
        wake = self._wakeups.get(room)
        if wake is None:
            wake = self._wakeups[room] = asyncio.Event()
            self._actors[room] = asyncio.create_task(self._actor(room, wake))
        wake.set()

    async def _actor(self, room: str, wake: asyncio.Event) -> None:
        """Act in ``room`` whenever it is this seat's turn."""
        while True:
            await wake.wait()
            wake.clear()
            game = self.games.get(room)
            if game is None or not game.live:
                continue
            task = game.task()
            if task is None or room in self._in_flight:
                continue
            started = time.monotonic()
            version = game.version
            budget = self._budget_ms(game)
            if task == "choose":
                try:
                    choice = await self._choose(game, budget)
                except Exception:
                    log.exception("seat %s: choosing failed; taking White", self.player)
                    choice = "white"
                if self.games.get(room) is game and game.version == version:
                    request = self._track(room)
                    self._in_flight[room] = request
                    await self._send(m.Choose(room=room, choice=choice, id=request))
                else:
                    wake.set()
                continue
            try:
                move = await self._place(game, budget)
            except BrainGaveUp as gave_up:
                if self.games.get(room) is game and game.state == "playing":
                    await self._tell(room, str(gave_up))  # read before the game's end
                    request = self._track(room)  # nothing more here until it is answered
                    self._in_flight[room] = request
                    await self._send(m.Resign(room=room, id=request))
                continue
            except Exception:  # a bug must not leave the seat silent: play a legal move
                log.exception("seat %s: finding a move failed; playing a safe one", self.player)
                move = _safe_move(game)
            if self.games.get(room) is not game or game.version != version:
                wake.set()  # the position changed while we thought: think again
                continue
            if self.config.resign and proven_lost(move.score) and game.state == "playing":
                self.stats.resigned += 1
                await self._send(m.Resign(room=room))
                continue
            if not await self._paced(game, started, budget):
                wake.set()  # the position changed while we waited
                continue
            if not game.offered_draw and game.pending is None and dead_draw(game.board()):
                game.offered_draw = True
                self.stats.draws_offered += 1
                await self._send(m.Offer(room=room, kind="draw"))
            request = self._track(room)
            self._in_flight[room] = request
            await self._send(m.Move(room=room, point=move.point, id=request))
            self.stats.record_move((time.monotonic() - started) * 1000, budget)
            self.stats.quick_moves += move.quick

    async def _paced(self, game: GameState, started: float, budget_ms: int) -> bool:
        """In a game between two AIs, let each move take at least the watch pace (never
        more than its time budget), so spectators can follow it; False if the position
        changed meanwhile."""
        pace_ms = min(self.config.pace_ms, budget_ms)
        if pace_ms <= 0 or game.against_a_person():
            return True
        version = game.version
        delay = started + pace_ms / 1000 - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        return self.games.get(game.room) is game and game.version == version

    def _track(self, room: str) -> int:
        request = next(self._ids)
        self._moves_sent[request] = room
        if len(self._moves_sent) > 100:
            self._moves_sent.pop(next(iter(self._moves_sent)))
        return request

    def _budget_ms(self, game: GameState) -> int:
        return move_budget_ms(
            remaining_ms=game.remaining_ms(),
            inc_ms=0 if game.time is None else game.time.inc_ms,
            stones=len(game.moves),
            cells=game.size * game.size,
            cap_ms=int(self.config.move_time_s * 1000),
            overhead_ms=self.config.overhead_ms,
        )

    def _engine_level(self) -> str:
        return self.level if self.level in LEVELS else ENGINE_FALLBACK_LEVEL

    async def _place(self, game: GameState, budget_ms: int) -> Choice:
        if game.room in self._bad_move:
            self._bad_move.discard(game.room)
            return _safe_move(game)
        if game.state == "opening":
            opening = await self._opening_stone(game, budget_ms)
            if opening is not None:
                return opening
        if self.config.brain is not None and self.level not in LEVELS:
            brain = self._brains.get(game.room)
            if brain is None:
                brain = self._brains[game.room] = BrainPlayer(
                    self.config.brain,
                    self.owner.thinker,
                    on_report=lambda text: self._report(game.room, text),
                )
            return await brain.move(game, budget_ms)
        return await self.owner.thinker.move(
            game.rule, game.size, game.moves, self._engine_level(), budget_ms / 1000
        )

    async def _opening_stone(self, game: GameState, budget_ms: int) -> Choice | None:
        """The next swap2 stone this seat places: the opener's three, or the two of a
        ``place2``, as the engine planned them (:mod:`engine.ai.swap2`); a fixed
        balanced shape if the engine could not plan in time."""
        planned = self._planned.get(game.room, [])
        if not game.moves and not planned:
            try:
                plan = await self.owner.thinker.swap2(
                    game.rule, game.size, game.moves, budget_ms / 1000
                )
                planned = self._planned[game.room] = list(plan.stones)
            except (TimeoutError, BrokenExecutor):
                log.warning("seat %s: no swap2 plan in time; a fixed shape", self.player)
        while planned and planned[0] in game.moves:
            planned.pop(0)  # placed already (a resend after a reconnect)
        if planned:
            return Choice(planned.pop(0), 0, None, "opening", 0.0)
        return _opening_stone(game)

    async def _choose(self, game: GameState, budget_ms: int) -> SwapChoice:
        """Take the colour that stands better, or (after three stones, in an even
        position) place two more and let the opener choose: :mod:`engine.ai.swap2`."""
        assert game.swap2 is not None
        options = list(game.swap2.choices)
        try:
            plan = await self.owner.thinker.swap2(
                game.rule, game.size, game.moves, budget_ms / 1000
            )
        except (TimeoutError, BrokenExecutor):
            log.warning("seat %s: no swap2 decision in time; judging by one search", self.player)
            level = self._engine_level()
            if LEVELS[level].search is None:
                level = CHOOSE_LEVEL
            found = await self.owner.thinker.move(
                game.rule, game.size, game.moves, level, budget_ms / 2000
            )
            plan = Swap2Plan("white" if found.score >= 0 else "black", [])
        if plan.choice not in options:
            plan = Swap2Plan(options[0] if options else "white", [])
        if plan.choice == "place2":
            self._planned[game.room] = list(plan.stones)
        return cast(SwapChoice, plan.choice)

    def _report(self, room: str, text: str) -> None:
        """Tell the room (and the log) that the brain failed, while the game goes on."""
        self._background(self._tell(room, text))

    async def _tell(self, room: str, text: str) -> None:
        """Tell the room (and the log) that the brain failed."""
        self.stats.brain_failures += 1
        log.warning("seat %s, room %s: %s", self.player, room, text)
        line = " ".join(text.split())[:300] or "brain failure"
        await self._send(m.Chat(room=room, text=line))

    def _background(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` on its own, keeping a reference until it is done."""

        async def quietly() -> None:
            with contextlib.suppress(ConnectionClosed, OSError):
                await coro

        task = asyncio.get_running_loop().create_task(quietly())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _opening_stone(game: GameState) -> Choice | None:
    """A swap2 opener's first three stones: a fixed, roughly balanced shape at the
    centre (B centre, W beside it, B diagonal), when those points are free."""
    if len(game.moves) >= 3:
        return None
    c = game.size // 2
    shape = [Point(c, c), Point(c + 1, c), Point(c + 1, c - 1)]
    wire = point_to_wire(shape[len(game.moves)], game.size)
    if wire in game.moves:
        return None
    return Choice(wire, 0, None, "opening", 0.0)


def _safe_move(game: GameState) -> Choice:
    """A legal move for sure (after the server refused one): the legal point nearest
    the last stone, or the centre."""
    board: Board = game.board()
    last = board.last_move or Point(game.size // 2, game.size // 2)
    legal = board.legal_moves()
    best = min(legal, key=lambda p: (max(abs(p.x - last.x), abs(p.y - last.y)), p))
    return Choice(point_to_wire(best, game.size), 0, None, "fallback", 0.0)
