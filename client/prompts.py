"""The questions the game screen puts to the player, and the lines it shows them.

A *prompt* is a question the player answers with a key: the opponent's draw,
takeback or rematch offer (y / n), the swap2 colour choice (b / w / p), and the
chance to claim the win from an opponent gone past the grace period (y / n). A
*notice* is a line that needs no answer: your own offer waiting, the opponent
offline with the time left before a claim, waiting for an opponent, the result
and the rating change.

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
from client.state.words import describe_rating_change, describe_result
from engine.types import Color

PromptKind = Literal["offer", "swap2", "claim"]

SWAP2_ANSWERS = {"black": ("b", "take black"), "white": ("w", "take white")}
SWAP2_PLACE2 = ("p", "place two more")


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
    win from an opponent gone past the grace period first (unless answered "not now":
    its ident is in ``dismissed``), then an offer to answer, then a swap2 choice. An
    offer the opponent made before going hid the claim until it was answered."""
    game = model.room
    if game is None or not model.session.link.online:
        return None
    seated = [p for p in me if game.color_of(p) is not None]
    if not seated:
        return None
    gone = _claimable_opponent(game, seated, now)
    if gone is not None:
        claim = Prompt(
            "claim",
            ("claim", game.id, gone.id, gone.claim_at),
            f"{gone.name} disconnected, you may claim the win",
            (("y", "claim"), ("n", "not now")),
        )
        if claim.ident not in dismissed:
            return claim
    pending = game.pending
    if pending is not None and any(p != pending.by for p in seated):
        who = game.name_of(pending.by)
        return Prompt(
            "offer",
            ("offer", pending.kind, pending.by, game.id),
            _OFFER_TEXT[pending.kind].format(who=who),
            (("y", "accept"), ("n", "decline")),
        )
    swap2 = game.swap2
    choosing = swap2 is not None and swap2.phase == "choose" and swap2.to_act in me
    if game.state == "opening" and swap2 is not None and choosing:
        answers = [SWAP2_ANSWERS[c] for c in swap2.choices if c in SWAP2_ANSWERS]
        if "place2" in swap2.choices:
            answers.append(SWAP2_PLACE2)
        return Prompt("swap2", ("swap2", game.id, len(game.moves)), "Swap2", tuple(answers))
    return None


def _opponent_offline(game: GameView, seated: list[str]) -> Seat | None:
    """The opponent's seat while they are offline in a running game (one local
    player seated: in hot seat both seats are here, nobody is away)."""
    if game.state not in ("playing", "opening") or len(seated) != 1:
        return None
    other = game.opponent_of(seated[0])
    if other is None or other.online or other.bot:
        return None
    return other


def _claimable_opponent(game: GameView, seated: list[str], now: float) -> Seat | None:
    other = _opponent_offline(game, seated)
    if other is None or other.claim_at is None or other.claim_at > now:
        return None
    return other


def countdown(seconds: float) -> str:
    """``0:23``, whole seconds rounded up (a countdown reaching 0:00 is over)."""
    total = max(0, int(seconds + 0.999))
    return f"{total // 60}:{total % 60:02d}"


def notice_for(
    model: ViewModel,
    me: frozenset[str],
    now: float,
    *,
    arrow: str = "→",
    ai_key: str = "^O",
) -> str:
    """The line under the board that needs no answer ('' when there is nothing to
    say): your offer waiting, the opponent away, waiting for an opponent (``ai_key``
    seats an AI instead), the result and your rating change."""
    game = model.room
    if game is None:
        return ""
    seated = [p for p in me if game.color_of(p) is not None]
    pending = game.pending
    if pending is not None and pending.by in me and len(seated) == 1:
        return f"Your {pending.kind} offer is waiting for an answer."
    other = _opponent_offline(game, seated)
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
    clock, the claim countdown, the reconnect countdown); None when nothing on it
    depends on time, so no timer needs to run."""
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
    link_wait = link_change(model, now)
    if link_wait is not None:
        delays.append(link_wait)
    return min(delays) if delays else None


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
