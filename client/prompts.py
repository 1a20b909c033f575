"""The questions the game screen puts to the player, and the lines it shows them.

A *prompt* is a question the player answers with a key: the opponent's draw,
takeback or rematch offer (y / n), the swap2 colour choice (b / w / p), and the
chance to claim the win from an opponent gone past the grace period, or, in a game
without a clock, to act past the server's move limit (y / n). A *notice* is a line
that needs no answer: your own move due before the opponent may claim, the first
stone of a game with a clock due before the server aborts it, your own offer
waiting, the opponent offline with the time left before a claim, waiting for an
opponent, the result and the rating change.

Both are pure functions of the view model, the local players and the time, so
what the player is asked is tested without a terminal.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from typing import Literal

from client.state.game import GameView, Seat
from client.state.model import ViewModel
from client.state.questions import can_seat_ai
from client.state.words import describe_rating_change, describe_result, minutes_seconds
from engine.types import Color

PromptKind = Literal["offer", "swap2", "claim"]

SWAP2_ANSWERS = {"black": ("b", "take black"), "white": ("w", "take white")}
SWAP2_PLACE2 = ("p", "place two more")
OFFER_ANSWERS = (("y", "accept"), ("n", "decline"))
CLAIM_ANSWERS = (("y", "claim"), ("n", "not now"))
EVERY_ANSWER = (*OFFER_ANSWERS, *CLAIM_ANSWERS, *SWAP2_ANSWERS.values(), SWAP2_PLACE2)
"""Each answer a question may have, as ``(key, meaning)``: the prompt bar's bindings."""
MOVE_WARNING_S = 60.0
"""In a game without a clock, the player to act is told how long is left before the
move limit runs out from this many seconds before it."""


@dataclasses.dataclass(frozen=True, slots=True)
class Prompt:
    """A question: ``text``, and the ``answers`` as ``(key, meaning)`` pairs (the
    first one is what Enter does, the last what Esc does). ``ident`` tells one
    question from the next (a new offer is a new prompt even if worded alike)."""

    kind: PromptKind
    ident: tuple[object, ...]
    text: str
    answers: tuple[tuple[str, str], ...]

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(key for key, _ in self.answers)

    def line(self, sep: str = "·") -> str:
        """``bob offers a draw: y accept · n decline``."""
        answers = f" {sep} ".join(f"{key} {meaning}" for key, meaning in self.answers)
        return f"{self.text}: {answers}"


_OFFER_TEXT = {
    "draw": "{who} offers a draw",
    "takeback": "{who} asks to take back their last move",
    "rematch": "{who} offers a rematch (colours swapped)",
}


def prompt_for(
    model: ViewModel,
    me: frozenset[str],
    now: float,
    dismissed: Collection[tuple[object, ...]] = (),
) -> Prompt | None:
    """The question for the local players ``me`` now, if there is one: the claim of the
    win from an opponent gone past the grace period, or to act past an untimed game's
    move limit, first (unless answered "not now": its ident is in ``dismissed``), then
    an offer to answer, then a swap2 choice. An offer the opponent made before going
    hid the claim until it was answered."""
    game = model.room
    if game is None or not model.session.link.online:
        return None
    seated = [p for p in me if game.color_of(p) is not None]
    if not seated:
        return None
    claim = _claim_prompt(model, game, seated, now)
    if claim is not None and claim.ident not in dismissed:
        return claim
    pending = game.pending
    if pending is not None and any(p != pending.by for p in seated):
        who = game.name_of(pending.by)
        return Prompt(
            "offer",
            ("offer", pending.kind, pending.by, game.id),
            _OFFER_TEXT[pending.kind].format(who=who),
            OFFER_ANSWERS,
        )
    swap2 = game.swap2
    choosing = swap2 is not None and swap2.phase == "choose" and swap2.to_act in me
    if game.state == "opening" and swap2 is not None and choosing:
        answers = [SWAP2_ANSWERS[c] for c in swap2.choices if c in SWAP2_ANSWERS]
        if "place2" in swap2.choices:
            answers.append(SWAP2_PLACE2)
        return Prompt("swap2", ("swap2", game.id, len(game.moves)), "Swap2", tuple(answers))
    return None


def _claim_prompt(model: ViewModel, game: GameView, seated: list[str], now: float) -> Prompt | None:
    """The claim of the win open to the one local player seated: from an opponent gone
    past the grace period (said as such, even if they are past the move limit too: one
    question, not two), else from one to act past the move limit."""
    answers = CLAIM_ANSWERS
    ident: tuple[object, ...]
    gone = _claimable_opponent(game, seated, now)
    if gone is not None:
        ident = ("claim", game.id, gone.id, gone.claim_at)
        return Prompt("claim", ident, f"{gone.name} went offline, you may claim the win", answers)
    idle = _idle_opponent(game, seated, now)
    if idle is not None:
        ident = ("claim", game.id, idle.id, "idle", game.move_claim_at)
        limit = countdown(model.session.move_limit_ms / 1000)
        text = f"{idle.name} has not moved for {limit}, you may claim the win"
        return Prompt("claim", ident, text, answers)
    return None


def _idle_opponent(game: GameView, seated: list[str], now: float) -> Seat | None:
    """The opponent while they are to act past an untimed game's move limit (one local
    player seated: in hot seat both are here, and nobody claims against the keyboard)."""
    due = game.move_claim_at
    if not game.running or len(seated) != 1 or due is None or due > now:
        return None
    other = game.opponent_of(seated[0])
    return other if other is not None and game.to_act() == other.id else None


def _my_move_due(game: GameView, me: frozenset[str]) -> tuple[float, Seat | None] | None:
    """When the one local player seated, to act in a game without a clock, may be claimed
    against, and their opponent; None otherwise (not their turn, hot seat, a spectator,
    a clock, no limit)."""
    seated = [p for p in me if game.color_of(p) is not None]
    due = game.move_claim_at
    if not game.running or len(seated) != 1 or due is None or game.to_act() != seated[0]:
        return None
    return due, game.opponent_of(seated[0])


def _move_warning(game: GameView, me: frozenset[str], now: float) -> str:
    """``Move within 0:45, or bob may claim the win.`` in the last minute of the move
    limit on one's own turn ('' before that, and where the limit does not apply)."""
    mine = _my_move_due(game, me)
    if mine is None or mine[0] - now >= MOVE_WARNING_S:
        return ""
    due, other = mine
    who = other.name if other is not None else "your opponent"
    if due <= now:
        return f"Move now: {who} may claim the win."
    return f"Move within {countdown(due - now)}, or {who} may claim the win."


def _first_stone_warning(game: GameView, me: frozenset[str], now: float) -> str:
    """In a game with a clock before its first stone, the time Black (the opener, in
    swap2) has left to place it before the server aborts the game: ``Place the first
    stone within 0:25, or the game is aborted.`` to them (in hot seat too: the keyboard
    places it), ``bob has 0:25 to place the first stone, or the game is aborted.`` to
    their opponent and spectators ('' when no such countdown runs)."""
    due = game.abort_at
    if due is None or not game.running:
        return ""
    left = countdown(due - now)
    black = game.black
    if black is not None and black.id in me:
        return f"Place the first stone within {left}, or the game is aborted."
    who = black.name if black is not None else "Black"
    return f"{who} has {left} to place the first stone, or the game is aborted."


def _opponent_offline(game: GameView, seated: list[str]) -> Seat | None:
    """The opponent's seat while they are offline in a running game (one local
    player seated: in hot seat both seats are here, nobody is away). An AI seat too:
    one offline past the grace period has lost its worker and no other took it over,
    and the player would wait for it for ever."""
    if game.state not in ("playing", "opening") or len(seated) != 1:
        return None
    other = game.opponent_of(seated[0])
    if other is None or other.online:
        return None
    return other


def _claimable_opponent(game: GameView, seated: list[str], now: float) -> Seat | None:
    other = _opponent_offline(game, seated)
    if other is None or other.claim_at is None or other.claim_at > now:
        return None
    return other


def countdown(seconds: float) -> str:
    """``0:23``, whole seconds rounded up (a countdown reaching 0:00 is over)."""
    return minutes_seconds(int(seconds * 1000))


def notice_for(
    model: ViewModel,
    me: frozenset[str],
    now: float,
    *,
    arrow: str = "→",
    ai_key: str = "^O",
) -> str:
    """The line under the board that needs no answer ('' when there is nothing to
    say): your move due before the opponent may claim the win (the last minute of an
    untimed game's move limit), or the first stone due before a game with a clock is
    aborted (said first, as the most pressing; the two never run at once: one needs a
    clock, the other none), your offer waiting, the opponent away, waiting for an
    opponent (``ai_key`` seats an AI instead), the result and your rating change."""
    game = model.room
    if game is None:
        return ""
    warning = _move_warning(game, me, now) or _first_stone_warning(game, me, now)
    if warning:
        return warning
    seated = [p for p in me if game.color_of(p) is not None]
    pending = game.pending
    if pending is not None and pending.by in me and len(seated) == 1:
        return f"Your {pending.kind} offer is waiting for an answer."
    other = _opponent_offline(game, seated)
    if other is not None and not model.session.link.online:
        # Not connected ourselves: a claim could not be sent, and the countdown may not
        # even run (a server that stopped, or restarts and gives the time back).
        other = None
    if other is not None and other.claim_at is not None and other.claim_at > now:
        left = countdown(other.claim_at - now)
        return f"{other.name} is offline: you may claim the win if they are not back in {left}."
    if other is not None and other.claim_at is None:
        return f"{other.name} is offline."
    if game.state == "waiting":
        text = "Waiting for an opponent"
        if game.code:
            text += f" (invite code {game.code})"
        if can_seat_ai(model, me) is None:
            return text + f": {ai_key} seats an AI instead."
        return text + "."
    if game.state == "over" and game.outcome is not None:
        text = describe_result(game.outcome, game)
        for change in game.outcome.ratings:
            if change.player in seated:
                text += f" Your rating: {describe_rating_change(change, arrow)}."
        if game.rematch_room is not None:
            text += " Rematch agreed."
        return text
    return ""


def next_change(model: ViewModel, me: frozenset[str], now: float) -> float | None:
    """Seconds until something time-dependent on the game screen changes (a running
    clock, the claim countdown, the move limit's warning and claim, the first stone's
    countdown, the reconnect countdown); None when nothing on it depends on time, so no
    timer needs to run."""
    delays: list[float] = []
    game = model.room
    if game is not None and game.clocks is not None and game.clocks.running is not None:
        left = game.clocks.remaining(game.clocks.running, now)
        delays.append(0.2 if left < 10_000 else _to_next_second(left / 1000))
    if game is not None and game.state != "over":  # any seat's countdown (a spectator's too)
        for seat in (game.black, game.white):
            away = None if seat is None or seat.online else seat.claim_at
            if away is not None and away > now:
                delays.append(_to_next_second(away - now))
    if game is not None:
        move_wait = move_limit_change(game, me, now)
        if move_wait is not None:
            delays.append(move_wait)
        abort_wait = first_stone_change(game, now)
        if abort_wait is not None:
            delays.append(abort_wait)
    link_wait = link_change(model, now)
    if link_wait is not None:
        delays.append(link_wait)
    return min(delays) if delays else None


def move_limit_change(game: GameView, me: frozenset[str], now: float) -> float | None:
    """Seconds until the move limit changes what the one local player seated sees: on
    their turn, its warning appearing, then each second of its countdown; on the
    opponent's, the claim becoming possible. None when nothing is coming."""
    mine = _my_move_due(game, me)
    if mine is not None:
        left = mine[0] - now
        if left >= MOVE_WARNING_S:
            return left - MOVE_WARNING_S + 0.01
        return _to_next_second(left) if left > 0 else None
    seated = [p for p in me if game.color_of(p) is not None]
    due = game.move_claim_at
    if due is None or due <= now or len(seated) != 1 or game.to_act() in seated:
        return None
    return due - now + 0.01 if game.to_act() is not None else None


def first_stone_change(game: GameView, now: float) -> float | None:
    """Seconds until the first stone's countdown shows another number (None: none runs,
    or it has run out and the server's ``game_over`` is what comes next). Players and
    spectators alike see it."""
    due = game.abort_at
    if due is None or due <= now or not game.running:
        return None
    return _to_next_second(due - now)


def link_change(model: ViewModel, now: float) -> float | None:
    """Seconds until the reconnect countdown shows another number (None: none shown)."""
    at = model.session.link.next_try_at
    if model.session.link.status != "reconnecting" or at is None or at <= now:
        return None
    return _to_next_second(at - now)


def _to_next_second(seconds_left: float) -> float:
    """The time until a whole-seconds display of ``seconds_left`` (rounded up) ticks."""
    fraction = seconds_left % 1.0
    return (fraction if fraction > 0.001 else 1.0) + 0.01


def my_colour(game: GameView, me: frozenset[str]) -> Color | None:
    """The colour of the single local player seated in ``game`` (None for spectators
    and in hot seat, where both colours are local)."""
    colours = {game.color_of(p) for p in me} - {None}
    return colours.pop() if len(colours) == 1 else None
