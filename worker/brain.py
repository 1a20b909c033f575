"""An external Gomocup brain playing one game, through :mod:`gomocup.driver`.

One brain process per game. The brain is told the position incrementally
(``TURN``) while it follows the game, and with ``BOARD`` whenever it does not
(its first move in a game already under way, after a takeback, a swap2
opening, or a restart). A brain that crashes or does not answer in time is
reported (``on_report``), killed, and replaced by a fresh process on the next
move; the move at hand is then played by the built-in engine, so the game goes
on and the clock is respected. A brain that fails :data:`GIVE_UP_AFTER` moves in a
row, or refuses the game's ``START`` (a board size it does not play), gives the
game up (:class:`BrainGaveUp`): the seat resigns rather than let the built-in
engine play a whole game under the brain's name.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from engine import Color, Rule
from gomocup.driver import Brain, BrainBadAnswer, BrainError, BrainTimeout
from protocol.convert import point_to_wire, points_from_wire
from worker.game import GameState
from worker.thinker import Choice, Thinker

log = logging.getLogger("gomoku.worker")

RULE_INFO = {Rule.FREESTYLE: 0, Rule.STANDARD: 1, Rule.RENJU: 4}
"""Gomocup's ``INFO rule`` values."""
START_LIMIT_S = 5.0
"""Seconds a brain may take to start and answer ``START``."""
ANSWER_SLACK_S = 0.05
"""Extra seconds a brain's answer may take beyond its turn budget before it is
dropped (the budget already keeps a margin from the clock)."""
FALLBACK_LEVEL = "intermediate"
GIVE_UP_AFTER = 3
"""Failed moves in a row after which a brain gives its game up."""
PROBE_SIZE = 15
"""The board a brain must start on before the worker offers it (the usual one)."""


class BrainGaveUp(Exception):
    """The brain cannot play this game on: its seat resigns (the message says why)."""


class StartRefused(BrainBadAnswer):
    """The brain answered ``START`` with something else than OK (an unsupported size)."""


async def brain_problem(command: str) -> str | None:
    """Why the brain ``command`` cannot play (it does not run, or does not answer
    ``START 15`` with OK in time), or None: asked once before a worker offers it."""
    try:
        brain = await Brain.popen(command)
    except BrainError as error:
        return str(error)
    try:
        await brain.start(PROBE_SIZE, limit=START_LIMIT_S)
    except BrainError as error:
        return str(error)
    finally:
        await brain.quit(limit=0.5)
    return None


class BrainPlayer:
    """The moves of one brain process in one game."""

    def __init__(
        self,
        command: str,
        thinker: Thinker,
        *,
        on_report: Callable[[str], None],
    ) -> None:
        self.command = command
        self.thinker = thinker
        self.on_report = on_report
        self.brain: Brain | None = None
        self.known: list[str] = []
        """The moves the brain has been told (its own included), in order."""
        self.in_a_row = 0
        """Moves the brain failed since its last good one."""

    async def move(self, game: GameState, budget_ms: int) -> Choice:
        """The brain's move for the side to move; the engine's if the brain fails (in
        what is left of the budget). Raises :class:`BrainGaveUp` when the brain refuses
        the game's board or has failed :data:`GIVE_UP_AFTER` moves in a row."""
        start = time.monotonic()
        try:
            choice = await self._ask(game, budget_ms)
            self.in_a_row = 0
            return choice
        except BrainError as error:
            self.in_a_row += 1
            await self._drop()
            if isinstance(error, StartRefused):
                raise BrainGaveUp(
                    f"the brain cannot play this game ({error}); the AI resigns"
                ) from error
            if self.in_a_row >= GIVE_UP_AFTER:
                raise BrainGaveUp(
                    f"the brain failed {self.in_a_row} moves in a row (the last: {error}); "
                    "the AI resigns"
                ) from error
            what = "did not answer in time" if isinstance(error, BrainTimeout) else "failed"
            self.on_report(f"the brain {what} ({error}); a new one takes over")
        left_s = max(0.0, budget_ms / 1000 - (time.monotonic() - start))
        return await self.thinker.move(game.rule, game.size, game.moves, FALLBACK_LEVEL, left_s)

    async def _ask(self, game: GameState, budget_ms: int) -> Choice:
        brain = await self._ensure(game)
        remaining = game.remaining_ms()
        turn = {"timeout_turn": max(1, budget_ms)}
        if remaining is not None:  # without a clock, timeout_match 0 said there is none
            turn["time_left"] = remaining
        await brain.info(**turn)
        limit = budget_ms / 1000 + ANSWER_SLACK_S
        moves = game.moves
        if not moves and not self.known:
            point = await brain.begin(limit=limit)
        elif self.known and moves[:-1] == self.known:
            last = points_from_wire(moves[-1:], game.size)[0]
            point = await brain.turn(last, limit=limit)
        else:
            mine = game.to_move()
            stones = [
                (p, 1 if (Color.BLACK if n % 2 == 0 else Color.WHITE) is mine else 2)
                for n, p in enumerate(points_from_wire(moves, game.size))
            ]
            point = await brain.board(stones, limit=limit)
        on_board = min(point) >= 0 and max(point) < game.size
        wire = point_to_wire(point, game.size) if on_board else ""
        if not wire or wire in moves:
            raise BrainError(f"{brain.name} played {point.x},{point.y}, which is not a free point")
        self.known = [*moves, wire]
        return Choice(wire, 0, None, "brain", brain.last_elapsed)

    async def _ensure(self, game: GameState) -> Brain:
        if self.brain is not None and self.brain.process.returncode is None:
            return self.brain
        await self._drop()
        brain = await Brain.popen(self.command)
        self.brain = brain
        try:
            await brain.start(game.size, limit=START_LIMIT_S)
        except BrainBadAnswer as error:
            raise StartRefused(str(error)) from error
        # Gomocup's "no limit" is 0; game_type 0: the opponent is a person.
        match_ms = 0 if game.time is None else game.time.base_ms
        await brain.info(
            timeout_match=match_ms, max_memory=0, game_type=0, rule=RULE_INFO[game.rule]
        )
        self.known = []
        return brain

    async def _drop(self) -> None:
        brain, self.brain = self.brain, None
        self.known = []
        if brain is not None:
            try:
                await brain.quit(limit=0.5)
            except Exception:  # a dead brain's pipes may fail in many ways
                log.debug("closing a failed brain", exc_info=True)

    async def close(self) -> None:
        await self._drop()
