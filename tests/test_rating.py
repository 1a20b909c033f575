"""Glicko-2 against Glickman's worked example, and the properties players notice."""

from __future__ import annotations

import pytest

from server.rating import (
    DRAW,
    LOSS,
    MAX_RD,
    MIN_RATING,
    MIN_RD,
    PROVISIONAL_RD,
    WIN,
    PlayerRating,
    Rating,
    RatingError,
    age,
    expected_score,
    rate,
    rate_game,
    shown_rd,
)


def test_worked_example_from_glickmans_paper() -> None:
    """1500/200/0.06 beating 1400/30 and losing to 1550/100 and 1700/300 (tau 0.5)."""
    player = Rating(1500, 200, 0.06)
    games = [(Rating(1400, 30), WIN), (Rating(1550, 100), LOSS), (Rating(1700, 300), LOSS)]
    after = rate(player, games, tau=0.5)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_new_player_defaults_are_lichess() -> None:
    """A new player starts at 1500 with RD 500 and volatility 0.06, shown as provisional."""
    assert Rating() == Rating(1500.0, 500.0, 0.06)
    assert str(Rating()) == "1500?"
    assert str(Rating(1612.4, 60.0)) == "1612"


def test_winner_gains_what_an_equal_loser_loses() -> None:
    """Between two equal players the winner goes up and the loser down by the same amount."""
    winner, loser = rate_game(Rating(), Rating(), WIN)
    assert winner.rating > 1500 > loser.rating
    assert winner.rating - 1500 == pytest.approx(1500 - loser.rating)
    assert winner.rd < 500
    assert loser.rd < 500


def test_draw_between_equals_keeps_ratings_and_shrinks_rd() -> None:
    """A draw between equal players changes no rating but makes both more certain."""
    first, second = rate_game(Rating(1700, 80), Rating(1700, 80), DRAW)
    assert first.rating == pytest.approx(1700)
    assert second.rating == pytest.approx(1700)
    assert first.rd < 80


def test_upset_moves_ratings_more_than_expected_result() -> None:
    """Beating a much stronger player gains more than beating a much weaker one."""
    me = Rating(1500, 100)
    beat_strong = rate(me, [(Rating(1900, 60), WIN)])
    beat_weak = rate(me, [(Rating(1100, 60), WIN)])
    assert beat_strong.rating - 1500 > 3 * (beat_weak.rating - 1500) > 0


def test_certain_rating_moves_less_than_new_one() -> None:
    """The same win moves a provisional rating much more than an established one."""
    opponent = Rating(1500, 60)
    new = rate(Rating(1500, 500), [(opponent, WIN)])
    established = rate(Rating(1500, 60), [(opponent, WIN)])
    assert new.rating - 1500 > 5 * (established.rating - 1500)


def test_rd_stays_within_bounds_over_many_games() -> None:
    """Hundreds of games make a rating certain, but RD never drops below the floor."""
    me, other = Rating(), Rating()
    for n in range(300):
        me, other = rate_game(me, other, [WIN, DRAW, LOSS][n % 3])
    assert MIN_RD <= me.rd < 70
    assert me.volatility <= 0.1
    many_draws = [(Rating(1500, 50), DRAW)] * 50
    assert rate(Rating(1500, 50), many_draws).rd == MIN_RD


def test_a_rating_does_not_fall_below_lichesss_floor() -> None:
    """A player at 420 who loses a hundred games to another falls to 400 and stays
    there (it went on to 204.5 and below), one just above it who loses lands on it, and
    a win moves it up again, as lichess's do."""
    me, other = Rating(420, 60), Rating(420, 60)
    for _ in range(100):
        me, other = rate_game(me, other, LOSS)
    assert me.rating == MIN_RATING
    assert rate_game(Rating(405, 60), Rating(420, 60), LOSS)[0].rating == MIN_RATING  # 395
    assert rate_game(Rating(MIN_RATING, 60), Rating(420, 60), WIN)[0].rating > MIN_RATING


def test_a_shown_rd_above_110_is_exactly_a_provisional_one() -> None:
    """RD is shown rounded up: 110.24 read "110" beside "provisional", under a
    leaderboard that takes RD 110 or less."""
    for rd in (45.0, 109.6, 110.0, 110.24, 110.5, 111.0, 350.2):
        rating = Rating(1500, rd)
        assert (shown_rd(rd) > PROVISIONAL_RD) == rating.provisional, rd


def test_no_games_only_widens_rd() -> None:
    """A rating period without games keeps rating and volatility, and raises RD."""
    me = Rating(1800, 50, 0.06)
    after = rate(me, [])
    assert (after.rating, after.volatility) == (1800, 0.06)
    assert after.rd > 50


def test_age_widens_rd_up_to_the_ceiling() -> None:
    """Time away makes a rating uncertain again, never beyond RD 500."""
    me = Rating(1800, 50)
    assert 50 < age(me, 10).rd < age(me, 100).rd
    assert age(me, 1e9).rd == MAX_RD
    assert age(me, 0) == me


def test_expected_score_is_symmetric() -> None:
    """The stronger player is expected to score more, and the two expectations add up to ~1."""
    strong, weak = Rating(1800, 60), Rating(1400, 60)
    assert expected_score(strong, weak) > 0.85
    assert expected_score(strong, weak) + expected_score(weak, strong) == pytest.approx(1.0)


def test_repr_round_trips() -> None:
    """A rating's repr evaluates back to an equal rating."""
    r = Rating(1523.25, 87.5, 0.0601)
    assert eval(repr(r)) == r


@pytest.mark.parametrize("score", [2.0, -1.0, 0.3])
def test_bad_score_is_refused(score: float) -> None:
    """Scores other than win, draw and loss are refused with a RatingError."""
    with pytest.raises(RatingError):
        rate_game(Rating(), Rating(), score)


@pytest.mark.parametrize(
    ("rating", "rd", "volatility"),
    [(float("nan"), 100.0, 0.06), (1500.0, 0.0, 0.06), (1500.0, 100.0, -0.1)],
)
def test_bad_rating_values_are_refused(rating: float, rd: float, volatility: float) -> None:
    """A rating that is not finite, or a non-positive RD or volatility, cannot be built."""
    with pytest.raises(RatingError):
        Rating(rating, rd, volatility)


def test_player_rating_counts_results() -> None:
    """A standing counts wins, losses and draws and carries the new rating."""
    standing = PlayerRating()
    standing = standing.after(Rating(1600, 300), WIN)
    standing = standing.after(Rating(1580, 250), DRAW)
    standing = standing.after(Rating(1550, 220), LOSS)
    assert (standing.wins, standing.draws, standing.losses, standing.games) == (1, 1, 1, 3)
    assert standing.rating == Rating(1550, 220)
    assert eval(repr(standing)) == standing
