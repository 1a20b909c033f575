"""Glicko-2 ratings (Mark Glickman, "Example of the Glicko-2 system", 2013).

Pure functions on a plain `Rating` value. The defaults are lichess's: a new
player is 1500 with RD 500 and volatility 0.06, tau is 0.75, RD stays within
[45, 500], volatility at most 0.1 and the rating at least 400. Like lichess, the server rates every
game as its own rating period (`rate_game`), so a rating moves right after the
game instead of at the end of a fixed period; `rate` is the paper's general
update over any number of games, and `age` widens RD for time away, at lichess's
0.21436 rating periods a day, counted in whole days (`periods_between`): the archive
ages a standing from its last rated game to the moment it is read or rated again.

Glicko-2 works on its own scale (mu, phi) = ((r - 1500) / 173.7178, RD / 173.7178);
the conversions live here and nowhere else.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

DEFAULT_RATING = 1500.0
DEFAULT_RD = 500.0
DEFAULT_VOLATILITY = 0.06
DEFAULT_TAU = 0.75
MIN_RD = 45.0
MAX_RD = 500.0
MAX_VOLATILITY = 0.1
#: lichess's floor (lila's Glicko.minRating): a rating does not fall below it.
MIN_RATING = 400.0
#: lichess marks a rating provisional ("1500?") while its RD is above this.
PROVISIONAL_RD = 110.0

SCALE = 173.7178
#: lichess's pace of rating periods for time away: about one period every 4.7 days, so
#: a settled RD of 45 needs about 14 months without a rated game to pass 110 again
#: (at volatility 0.06).
PERIODS_PER_DAY = 0.21436
DAY_MS = 86_400_000
#: Convergence tolerance of the volatility iteration (the paper's epsilon).
EPSILON = 1e-6

WIN = 1.0
DRAW = 0.5
LOSS = 0.0


class RatingError(ValueError):
    """A score or rating value the system cannot use (e.g. a score of 2, an RD of 0)."""


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's Glicko-2 rating on the familiar scale (1500-centred, RD in points)."""

    rating: float = DEFAULT_RATING
    rd: float = DEFAULT_RD
    volatility: float = DEFAULT_VOLATILITY

    def __post_init__(self) -> None:
        if not math.isfinite(self.rating):
            raise RatingError(f"rating must be finite, not {self.rating!r}")
        if not (math.isfinite(self.rd) and self.rd > 0):
            raise RatingError(f"RD must be positive, not {self.rd!r}")
        if not (math.isfinite(self.volatility) and self.volatility > 0):
            raise RatingError(f"volatility must be positive, not {self.volatility!r}")

    @property
    def provisional(self) -> bool:
        """True while the rating is too uncertain to show without a '?' or rank."""
        return self.rd > PROVISIONAL_RD

    def __str__(self) -> str:
        return f"{round(self.rating)}{'?' if self.provisional else ''}"


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, g_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-g_j * (mu - mu_j)))


def _check_score(score: float) -> float:
    if score not in (WIN, DRAW, LOSS):
        raise RatingError(f"a game's score is 1, 0.5 or 0, not {score!r}")
    return float(score)


@dataclass(frozen=True, slots=True)
class PlayerRating:
    """A player's standing in one rating pool: the rating and the rated results behind it."""

    rating: Rating = Rating()
    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    def after(self, rating: Rating, score: float) -> PlayerRating:
        """This standing after a rated game that ended with ``score`` and gave ``rating``."""
        score = _check_score(score)
        return PlayerRating(
            rating,
            self.wins + (score == WIN),
            self.losses + (score == LOSS),
            self.draws + (score == DRAW),
        )


def expected_score(player: Rating, opponent: Rating) -> float:
    """The player's expected score against the opponent (0..1), as Glicko-2 predicts it."""
    mu, mu_j, phi_j = (
        (player.rating - DEFAULT_RATING) / SCALE,
        (opponent.rating - DEFAULT_RATING) / SCALE,
        opponent.rd / SCALE,
    )
    return _expected(mu, mu_j, _g(phi_j))


def _new_volatility(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    """Step 5 of the paper: the Illinois-method root of f(x) = 0."""
    a = math.log(sigma * sigma)
    delta2, phi2 = delta * delta, phi * phi

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def _bounded(rating: float, phi: float, sigma: float, rd_min: float, rd_max: float) -> Rating:
    rd = min(max(phi * SCALE, rd_min), rd_max)
    return Rating(max(rating, MIN_RATING), rd, min(sigma, MAX_VOLATILITY))


def shown_rd(rd: float) -> int:
    """RD as players read it: rounded up, so that a shown RD above 110 is exactly a
    provisional rating (110.24 rounded to the nearest read 110 beside "provisional",
    under a leaderboard that says it takes RD 110 or less)."""
    return math.ceil(rd)


def rate(
    player: Rating,
    games: Iterable[tuple[Rating, float]],
    *,
    tau: float = DEFAULT_TAU,
    rd_min: float = MIN_RD,
    rd_max: float = MAX_RD,
) -> Rating:
    """The player's rating after one rating period with these (opponent, score) games.

    Opponents are taken at their ratings before the period. With no games the
    rating and volatility stay and only RD grows, as the paper prescribes.
    """
    mu = (player.rating - DEFAULT_RATING) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    inv_v = 0.0
    improvement = 0.0
    for opponent, score in games:
        mu_j = (opponent.rating - DEFAULT_RATING) / SCALE
        g_j = _g(opponent.rd / SCALE)
        e_j = _expected(mu, mu_j, g_j)
        inv_v += g_j * g_j * e_j * (1.0 - e_j)
        improvement += g_j * (_check_score(score) - e_j)
    if inv_v == 0.0:
        return _bounded(player.rating, math.sqrt(phi * phi + sigma * sigma), sigma, rd_min, rd_max)
    v = 1.0 / inv_v
    new_sigma = _new_volatility(v * improvement, phi, v, sigma, tau)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * improvement
    return _bounded(SCALE * new_mu + DEFAULT_RATING, new_phi, new_sigma, rd_min, rd_max)


def rate_game(
    first: Rating, second: Rating, score: float, *, tau: float = DEFAULT_TAU
) -> tuple[Rating, Rating]:
    """Both players' ratings after one game; ``score`` is the first player's (1, 0.5 or 0)."""
    score = _check_score(score)
    return (
        rate(first, [(second, score)], tau=tau),
        rate(second, [(first, 1.0 - score)], tau=tau),
    )


def periods_between(since_ms: int, until_ms: int) -> float:
    """The rating periods from one moment to a later one, counted in whole days (none
    within the first day), so a rating read again the same day is the one stored."""
    return max(until_ms - since_ms, 0) // DAY_MS * PERIODS_PER_DAY


def age(player: Rating, periods: float, *, rd_max: float = MAX_RD) -> Rating:
    """The rating after ``periods`` rating periods without games: RD grows, nothing else.

    Fractional periods are allowed (lichess counts time away in fractions of days).
    """
    if not (math.isfinite(periods) and periods >= 0):
        raise RatingError(f"periods must be a non-negative number, not {periods!r}")
    phi = player.rd / SCALE
    grown = math.sqrt(phi * phi + periods * player.volatility * player.volatility) * SCALE
    return Rating(player.rating, min(max(grown, player.rd), rd_max), player.volatility)
